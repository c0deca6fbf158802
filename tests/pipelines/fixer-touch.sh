#!/bin/sh
# A fixer: needs the last report, creates FIXED, reports its cost.
[ -s "$GATEBENCH_LAST_REPORT" ] || { echo "no last report" >&2; exit 3; }
grep -q '"issues-found"' "$GATEBENCH_LAST_REPORT" || { echo "last report is not a failure" >&2; exit 4; }
echo "fixed" > FIXED
echo '{"tokensIn": 50, "tokensOut": 5, "usd": 0.001}' > "$GATEBENCH_FIX_COST"
