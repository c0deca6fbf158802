#!/bin/sh
# Counts its invocations in $COUNT_FILE, then runs the reference gate ($GB_BIN).
echo "$GATEBENCH_CASE $GATEBENCH_TRIAL $GATEBENCH_ROUND" >> "$COUNT_FILE"
exec "$GB_BIN" gate --base "$GATEBENCH_BASE" --format json --output "$GATEBENCH_REPORT" .
