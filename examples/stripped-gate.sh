#!/bin/sh
# The reference gate as an outsider's verifier: it runs `gatebench gate` and keeps only what
# the report v1 (docs/CONCEPTS.md#verify-report-v1) defines (scenarios/stripped-gate.yaml). Every key
# that only gatebench's gate writes (findings' `validator`, `rule`, `requirementId`, `obligationId`;
# the `verificationLoop` block; any other key outside the verify pipeline's shape) is removed, so
# this verifier is scored exactly as a verify skill that never heard of gatebench would be: from
# verdicts, locations, titles and descriptions.
set -eu
raw="${TMPDIR:-/tmp}/gate-raw.$$.json"
trap 'rm -f "$raw"' EXIT
"${GATEBENCH_BIN:-gatebench}" gate . --base "$GATEBENCH_BASE" --format json --output "$raw" || true
# The system interpreter: a version-manager shim on PATH (pyenv) would exec files outside the
# sandbox.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" - "$raw" "$GATEBENCH_REPORT" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
TOP = ["schemaVersion", "status", "error", "findings", "overall", "scope", "knownFindings",
       "deferredToEpic", "triage", "skillResults", "issues", "exerciserVerification", "customGates"]
FINDING = ["title", "severity", "description", "sources", "location", "class"]
ISSUE = ["id", "severity", "title", "sources", "location", "description"]
def keep(obj, keys):
    return {k: obj[k] for k in keys if k in obj}
out = keep(report, TOP)
out["findings"] = [keep(f, FINDING) for f in report.get("findings", [])]
out["issues"] = [keep(i, ISSUE) for i in report.get("issues", [])]
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
