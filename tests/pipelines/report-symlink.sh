#!/bin/sh
# Leaves a symbolic link to a valid report where its report should be.
. "$(dirname "$0")/report.sh"
report=$GATEBENCH_REPORT
GATEBENCH_REPORT="$report.real"
write_report pass
ln -s "$report.real" "$report"
