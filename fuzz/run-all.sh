#!/bin/sh
# Fuzzes every target in turn for SECONDS each (default 600) at the lowest priority, on the
# prebuilt binaries (`cargo +nightly fuzz build` first), and logs what docs/RELIABILITY.md reports:
# start time, duration, executions, crashes. New inputs go to fuzz/corpus/<target>/, crashes to
# fuzz/artifacts/<target>/.
#   usage: fuzz/run-all.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")"
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-"report_v1 ledger results fixture_yaml scenario placeholder"}
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p logs
for t in $targets; do
  mkdir -p "corpus/$t" "artifacts/$t"
  start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  # -rss_limit_mb: an input that makes a target allocate over 2 GB is a crash (unbounded
  # allocation); -timeout: one input running over 10 s is a hang.
  nice -n 19 "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
    > "logs/$t.log" 2>&1
  rc=$?
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "logs/$t.log" | tail -1)
  crashes=$(ls "artifacts/$t" | wc -l)
  echo "$t start=$start seconds=$seconds exit=$rc ${runs:-no-summary} artifacts=$crashes" >> logs/summary.txt
done
