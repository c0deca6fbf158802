#!/usr/bin/env bash
# Per-trial CPU of two builds, and the parallel speedup of the second (issue 14). The bundled
# corpus is split in two scenarios written to a temporary folder: the Loom-ledger fixtures
# (`exclude: ["loop-*"]`) and the verification-loop fixtures (`include: ["loop-*"]`). Each is run
# with 1 job by OLD and NEW in turn, RUNS times, under /usr/bin/time; then NEW runs the default
# scenario with 1 and with 2 jobs, RUNS times. Prints the medians (wall and user+sys CPU).
#
#   OLD=/path/to/gatebench-before NEW=target/release/gatebench bash benches/cpu.sh 5
set -euo pipefail
cd "$(dirname "$0")/.."
old="${OLD:?OLD=the build to compare against}"
new="${NEW:-target/release/gatebench}"
runs="${1:-5}"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
scratch="$(mktemp -d "${TMPDIR:-/tmp}/gatebench-cpu.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
work=/dev/shm; [ -d "$work" ] || work="$scratch"
for part in loom:exclude loop:include; do
  cat > "$scratch/${part%%:*}.yaml" <<YAML
name: ${part%%:*}
fixtures_dir: $PWD/fixtures
pipeline: {kind: builtin}
fixtures:
  ${part##*:}: ["loop-*"]
thresholds: {min_recall: 0.0, max_false_pass_rate: 1.0, max_rounds_off: 1000000}
YAML
done
times="$scratch/times.txt"
run() { # run LABEL BIN ARGS...: one timed run; exit codes 0-2 are results
  local label=$1 bin=$2; shift 2
  /usr/bin/time -f "$label %e %U %S" -a -o "$times" "$bin" run "$@" --quiet \
    --work-dir "$work" --reports-dir "$scratch/reports" >/dev/null 2>&1 || [ $? -le 2 ]
}
for _ in $(seq "$runs"); do
  for build in old new; do
    for scenario in loom loop; do
      run "$build-$scenario" "${!build}" "$scratch/$scenario.yaml" --jobs 1
    done
  done
  for jobs in 1 2; do
    run "default-jobs$jobs" "$new" scenarios/default.yaml --jobs "$jobs"
  done
done
python3 - "$times" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4:
        runs[parts[0]].append((float(parts[1]), float(parts[2]) + float(parts[3])))
print("| run | runs | median wall s | median CPU s (user+sys) |")
print("|---|---|---|---|")
for label, values in sorted(runs.items()):
    wall = statistics.median(v[0] for v in values)
    cpu = statistics.median(v[1] for v in values)
    print(f"| {label} | {len(values)} | {wall:.2f} | {cpu:.2f} |")
one, two = runs.get("default-jobs1"), runs.get("default-jobs2")
if one and two:
    speedup = statistics.median(v[0] for v in one) / statistics.median(v[0] for v in two)
    print(f"\nspeedup with 2 jobs (median wall, 1 job over 2 jobs): {speedup:.2f}x")
PY
