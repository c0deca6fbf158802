#!/usr/bin/env bash
# The scale benchmark (issue 14): N fixtures end to end with the built-in gate, reporting wall time,
# fixtures per second, CPU per fixture and peak resident memory. The corpus is the bundled one,
# every omission fixture copied with new ids (`<id>-rN`) until N fixtures, plus the goldens they
# extend; repositories go to tmpfs when /dev/shm exists.
#
#   cargo build --release && bash benches/scale.sh 100 1000 10000
#
# Prints one Markdown row per N (docs/PERFORMANCE.md keeps the figures). With RUNS=K each N is run
# K times and every figure of its row is the median of the K runs (each figure on its own). With
# OUTPUTS=1 it then
# runs every command that reads a run on each N's run, and prints their wall time and peak memory:
# `compare` (the run against itself), `replay`, `explain` (one fixture), `list --outcome`, and
# `merge` of the same corpus run again as two shards. JOBS=K runs K trials at once (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${BIN:-target/release/gatebench}"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
jobs="${JOBS:-2}"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/gatebench-scale.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
work=/dev/shm; [ -d "$work" ] || work="$scratch"
goldens=$(grep -L '^extends:' fixtures/*/fixture.yaml | xargs -n1 dirname | xargs -n1 basename)
# ONLY=GLOB copies only the omission fixtures whose id matches (ONLY='loop-*': verification-loop
# trials alone, whose commands are processes).
omissions=$(grep -l '^extends:' fixtures/*/fixture.yaml | xargs -n1 dirname | xargs -n1 basename |
  while read -r o; do case "$o" in ${ONLY:-*}) echo "$o" ;; esac; done)
[ -n "$omissions" ] || { echo "no omission fixture matches ONLY=${ONLY:-}" >&2; exit 1; }
echo "| fixtures | wall s | fixtures/s | CPU ms/fixture (user+sys) | peak RSS MiB | results.json KiB/trial |"
echo "|---|---|---|---|---|---|"
for n in "${@:-100}"; do
  dir="$scratch/n$n"; mkdir -p "$dir/fixtures" "$dir/scenarios"
  count=0
  for g in $goldens; do cp -r "fixtures/$g" "$dir/fixtures/"; count=$((count + 1)); done
  round=0
  while [ "$count" -lt "$n" ]; do
    for o in $omissions; do
      [ "$count" -ge "$n" ] && break
      new="$o-r$round"
      cp -r "fixtures/$o" "$dir/fixtures/$new"
      sed -i "s/^id: .*/id: $new/" "$dir/fixtures/$new/fixture.yaml"
      count=$((count + 1))
    done
    round=$((round + 1))
  done
  cat > "$dir/scenarios/scale.yaml" <<YAML
name: scale
fixtures_dir: ../fixtures
pipeline: {kind: builtin}
thresholds: {min_recall: 0.0, max_false_pass_rate: 1.0, max_rounds_off: 1000000}
YAML
  : >"$dir/runs.txt"
  for run in $(seq "${RUNS:-1}"); do
    # Each run writes a run folder of its own; the last one stays for OUTPUTS.
    rm -rf "$dir/reports"
    /usr/bin/time -v -o "$dir/time.txt" "$bin" run "$dir/scenarios/scale.yaml" --quiet \
      --jobs "$jobs" --work-dir "$work" --reports-dir "$dir/reports" >"$dir/out.txt" 2>&1 || {
      rc=$?; [ "$rc" -le 2 ] || { echo "run of $n fixtures failed (exit $rc):" >&2; tail -5 "$dir/out.txt" >&2; exit 1; }; }
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/time.txt" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    user=$(awk -F': ' '/User time/ {print $2}' "$dir/time.txt")
    sys=$(awk -F': ' '/System time/ {print $2}' "$dir/time.txt")
    rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/time.txt")
    results=$(ls "$dir"/reports/*/results.json 2>/dev/null | head -1 || true)
    size=$([ -n "$results" ] && stat -c %s "$results" || echo 0)
    echo "$wall $user $sys $rss $size" >>"$dir/runs.txt"
  done
  median() { # median EXPR: the median over the runs of an awk expression of runs.txt's columns
    awk "{ print $1 }" "$dir/runs.txt" | sort -g | awk '{ v[NR] = $1 } END {
      print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
  }
  awk -v n="$count" -v w="$(median '$1')" -v c="$(median '$2 + $3')" -v r="$(median '$4')" -v b="$(median '$5')" 'BEGIN {
    printf "| %d | %.2f | %.0f | %.2f | %.0f | %.1f |\n", n, w, n / w, c * 1000 / n, r / 1024, b / 1024 / n }'
  if [ "${OUTPUTS:-0}" = 1 ] && [ -n "$results" ]; then
    run_dir=$(dirname "$results")
    fixture=$(ls "$dir/fixtures" | awk '/-r0$/ && !found { print; found = 1 }')
    for shard in 1/2 2/2; do
      "$bin" run "$dir/scenarios/scale.yaml" --quiet --jobs "$jobs" --work-dir "$work" \
        --shard "$shard" --reports-dir "$dir/shards" >/dev/null 2>&1 || [ $? -le 2 ]
    done
    timed() { # timed NAME COMMAND...: one row of wall time and peak memory; exit codes 0-2 are results
      local name=$1; shift
      /usr/bin/time -f "%e %M" -o "$dir/cmd.txt" "$@" >"$dir/cmd.out" 2>&1 || {
        rc=$?; [ "$rc" -le 2 ] || { echo "$name failed (exit $rc):" >&2; tail -5 "$dir/cmd.out" >&2; exit 1; }; }
      awk -v n="$count" -v c="$name" '{ printf "| %d | %s | %.2f | %.0f |\n", n, c, $1, $2 / 1024 }' "$dir/cmd.txt"
    }
    echo
    echo "| fixtures | command | wall s | peak RSS MiB |"
    echo "|---|---|---|---|"
    timed compare "$bin" compare "$run_dir" "$run_dir" --output "$dir/compare.txt"
    timed replay "$bin" replay "$run_dir" --reports-dir "$dir/replayed"
    timed explain "$bin" explain "$fixture" --fixtures "$dir/fixtures" --results "$run_dir"
    timed "list --outcome" "$bin" list --fixtures "$dir/fixtures" --outcome false-pass --results "$run_dir"
    timed merge "$bin" merge $(ls -d "$dir"/shards/*/) --reports-dir "$dir/merged"
    echo
  fi
  rm -rf "$dir"
done
