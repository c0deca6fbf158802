# Sourced by the test pipelines: write_report RESULT [FINDING_TITLE] writes a minimal valid
# report v1 to $GATEBENCH_REPORT. RESULT is pass or issues-found.
write_report() {
  result=$1
  findings='[]'
  if [ -n "${2:-}" ]; then
    findings="[{\"title\": \"$2\", \"severity\": ${SEVERITY:-7}, \"description\": \"$2\", \"sources\": []}]"
  fi
  cost=""
  if [ -n "${COST:-}" ]; then
    cost=", \"cost\": $COST"
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
  "customGates": {"exerciser": [], "review": []}$cost
}
JSON
}
