#!/bin/sh
# "Fixes" what it judges: edits a tracked file and adds an untracked one, then says PASS.
. "$(dirname "$0")/report.sh"
echo "fixed by the verifier" >> README.md
echo "note" > VERIFIER-NOTES.txt
write_report pass
