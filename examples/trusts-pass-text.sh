#!/bin/sh
# A verifier that does what gatebench exists to catch: it believes the "Result: PASS" line of the
# feature's verify-report.md instead of checking the ledger, the tests and the evidence. Every
# fixture's report says PASS, so it passes every known omission: a false-pass rate of 1.
# (scenarios/external-trusts-pass-text.yaml runs it; it must score badly.)
set -eu
if grep -qs '^Result: PASS' specs/*/verify-report.md; then
  result=pass
  findings='[]'
else
  result=issues-found
  findings='[{"title": "verify-report.md does not say PASS", "severity": 7, "description": "no PASS line", "sources": []}]'
fi
cat > "$GATEBENCH_REPORT" <<JSON
{
  "schemaVersion": 1,
  "status": "ok",
  "error": null,
  "findings": $findings,
  "overall": {"result": "$result"},
  "scope": {"depth": "light", "mode": "branch", "baseRef": "$GATEBENCH_BASE", "mergeBase": null,
            "headSha": null, "includedFiles": [], "excludedFiles": [], "files": [], "excluded": []},
  "knownFindings": null,
  "deferredToEpic": [],
  "triage": {"skillsRun": [], "skillsSkipped": [], "skills_run": [], "skills_skipped": []},
  "skillResults": [],
  "issues": [],
  "exerciserVerification": [],
  "customGates": {"exerciser": [], "review": []}
}
JSON
