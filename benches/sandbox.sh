#!/usr/bin/env bash
# The sandbox's cost per command (issue 46): `gatebench gate --sandbox` on the materialized golden
# `loop-wordcount` runs the verification loop's four commands (build, test, perf, lint), each in
# the sandbox, plus the gate's own reading. OLD and NEW are run in turn RUNS times on the same
# repository, each also without `--sandbox` (the same commands unsandboxed), so that the
# difference of the two is the sandbox's share. Prints the median wall time and CPU (user+sys of
# gatebench and every process it waited for, from getrusage, to the microsecond) of each.
#
#   OLD=/path/to/gatebench-before NEW=target/release/gatebench bash benches/sandbox.sh 21
set -euo pipefail
cd "$(dirname "$0")/.."
old="${OLD:?OLD=the build to compare against}"
new="${NEW:-target/release/gatebench}"
runs="${1:-21}"
work=/dev/shm; [ -d "$work" ] || work="${TMPDIR:-/tmp}"
repo="$(mktemp -d "$work/gatebench-sandbox-repo.XXXXXX")"
trap 'rm -rf "$repo"' EXIT
rmdir "$repo"
"$new" materialize loop-wordcount --out "$repo" >/dev/null
python3 - "$old" "$new" "$repo" "$runs" <<'PY'
import collections, resource, statistics, subprocess, sys, time
old, new, repo, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
samples = collections.defaultdict(list)
for _ in range(runs):
    for build, binary in (("old", old), ("new", new)):
        for mode, flag in (("sandbox", ["--sandbox"]), ("open", [])):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([binary, "gate", repo, "--base", "main", *flag, "--format", "json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            samples[f"{build}-{mode}"].append((wall, cpu))
print("| build, commands | runs | median wall ms | median CPU ms (user+sys) |")
print("|---|---|---|---|")
for label, values in sorted(samples.items()):
    wall = statistics.median(v[0] for v in values) * 1000
    cpu = statistics.median(v[1] for v in values) * 1000
    print(f"| {label} | {len(values)} | {wall:.1f} | {cpu:.1f} |")
PY
