#!/bin/sh
# A minimal correct verifier for gatebench's command pipeline (docs/GUIDE.md: "External pipelines").
#
# gatebench runs this with the materialized repository as the working directory and tells it
# where things are through the environment:
#   GATEBENCH_REPORT   where to write the report v1 (a fresh path outside the repository)
#   GATEBENCH_BASE     the base ref to compare against (e.g. main)
#   GATEBENCH_CASE (an opaque case id), GATEBENCH_ROUND (1-based), GATEBENCH_TRIAL (0-based)
#   GATEBENCH_BIN      the gatebench binary that is running this (when known)
#
# It must write a report v1 to $GATEBENCH_REPORT and must not change the repository. Its exit code
# does not matter when the report is there (the reference gate exits 2 on FAIL); without a report,
# the round is an error whatever the exit code.
#
# This one delegates to gatebench's own reference gate; put your verifier in its place.
set -eu
exec "${GATEBENCH_BIN:-gatebench}" gate . \
  --base "$GATEBENCH_BASE" \
  --format json \
  --output "$GATEBENCH_REPORT"
