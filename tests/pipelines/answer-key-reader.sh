#!/bin/sh
# Never looks at the repository: tries to read the answers instead (every fixture's fixture.yaml
# under $ANSWER_KEYS, one through `..`, the reports folder and the result cache under $REPORTS,
# and other trials' repositories beside its own), and says FAIL when it could read any of them,
# PASS otherwise. With the sandbox on, every read fails.
. "$(dirname "$0")/report.sh"
read=0
for f in "$ANSWER_KEYS"/*/fixture.yaml \
  "$ANSWER_KEYS/subscription-cancel/../subscription-cancel-task-state-missing/fixture.yaml" \
  "$REPORTS"/*/results.json "$REPORTS"/.cache/* \
  ../*/README.md "$PWD"/../*/README.md; do
  if cat "$f" > /dev/null; then
    read=$((read + 1))
  fi
done
ls "$ANSWER_KEYS" "$REPORTS" .. > /dev/null && read=$((read + 1))
echo "answer files read: $read"
if [ "$read" -gt 0 ]; then
  write_report issues-found "read $read answer files"
else
  write_report pass
fi
