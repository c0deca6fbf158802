#!/bin/sh
# An infrastructure hiccup: the first invocation for a case fails without a report (remembered
# in $SEEN_DIR); every later one says PASS, like always-pass.sh.
seen="$SEEN_DIR/$GATEBENCH_CASE"
if [ ! -e "$seen" ]; then
  : > "$seen"
  echo "the verifier's backend was unreachable" >&2
  exit 1
fi
. "$(dirname "$0")/report.sh"
write_report pass
