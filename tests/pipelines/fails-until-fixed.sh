#!/bin/sh
# FAIL until a file named FIXED is committed-or-present at the repository root, then PASS.
. "$(dirname "$0")/report.sh"
if [ -f FIXED ]; then
  COST='{"tokensIn": 100, "tokensOut": 10}' write_report pass
else
  COST='{"tokensIn": 100, "tokensOut": 10}' write_report issues-found "FIXED is missing"
fi
