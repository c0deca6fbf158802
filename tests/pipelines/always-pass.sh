#!/bin/sh
# Says PASS whatever the repository holds.
. "$(dirname "$0")/report.sh"
write_report pass
