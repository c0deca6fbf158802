#!/bin/sh
# A "tests pass" gate: the check many CI setups stop at. It runs the repository's own test
# command, found the way a CI template finds it, and says PASS when it exits 0. It reads no ledger,
# no receipt and no log. It catches what breaks the suite (the semantic tier's loud omissions) and,
# by construction, none of what keeps the suite green (the silent ones) nor a ledger that does not
# add up. scenarios/tests-pass.yaml and scenarios/semantic.yaml run it beside the reference gate.
#
# The test command: `cargo test --offline` for a Cargo.toml, `node --test` for a package.json,
# pytest (under the system python3: a version manager's shim cannot run in the sandbox) for Python
# tests; none of these: it reports that it found no test suite.
set -u
scratch="${TMPDIR:-/tmp}"
# A verifier must not change what it judges: no bytecode next to the sources, no pytest cache, the
# cargo build in the scratch folder.
export PYTHONDONTWRITEBYTECODE=1
if [ -f Cargo.toml ]; then
  # The toolchain is read from ~/.rustup (the scenario grants it); cargo's own state and the build
  # go to the round's scratch folder.
  export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_TARGET_DIR="$scratch/target"
  [ -d "$RUSTUP_HOME" ] || RUSTUP_HOME=/root/.rustup
  export CARGO_HOME="$scratch/cargo-home"
  set -- cargo test --offline --quiet
elif [ -f package.json ]; then
  set -- node --test
elif find . -path ./.git -prune -o \( -name 'test_*.py' -o -name '*_test.py' \) -print | grep -q .; then
  python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  set -- "$python" -m pytest -q -p no:cacheprovider
else
  set --
fi

if [ $# -eq 0 ]; then
  result=issues-found
  findings='[{"title": "no test suite found", "severity": 7, "description": "no Cargo.toml, package.json or Python test file", "sources": []}]'
else
  "$@" >"$scratch/tests-pass.log" 2>&1
  code=$?
  if [ "$code" -eq 0 ]; then
    result=pass
    findings='[]'
  else
    # The end of the suite's output, for whoever reads the trial's stderr.
    tail -n 40 "$scratch/tests-pass.log" >&2
    result=issues-found
    findings="[{\"title\": \"the test suite fails (\`$1 ... \` exited $code)\", \"severity\": 8, \"description\": \"the repository's test command did not pass\", \"sources\": []}]"
  fi
fi
cat > "$GATEBENCH_REPORT" <<JSON
{
  "schemaVersion": 1,
  "status": "ok",
  "error": null,
  "findings": $findings,
  "overall": {"result": "$result"},
  "scope": {"depth": "deep", "mode": "branch", "baseRef": "$GATEBENCH_BASE", "mergeBase": null,
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
