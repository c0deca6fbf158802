#!/bin/sh
# Runs a coding agent's verify skill as gatebench's pipeline (examples/agent-verify-skill.yaml).
# NOT run in CI: it needs an agent CLI, a model and credentials. Adapt AGENT_COMMAND to yours; it
# receives the prompt as its last argument and must leave the report v1 at $GATEBENCH_REPORT.
#
# The agent's own usage, when it reports one, belongs in the report's `cost` key
# ({"tokensIn": ..., "tokensOut": ..., "usd": ..., "model": ...}); gatebench sums it per round,
# trial, fixture and run, and shows "unknown" where a round did not report it.
set -eu
: "${AGENT_COMMAND:?set AGENT_COMMAND to your agent CLI, e.g. 'my-agent --print'}"
prompt="Run the verify skill on the repository in the current directory, against base ref \
$GATEBENCH_BASE, in JSON mode: --format=json --output=$GATEBENCH_REPORT. \
Judge only: do not modify, stage or commit any file (gatebench fingerprints the repository before \
and after and flags any change). If you know your token usage, add it to the report as \
\"cost\": {\"tokensIn\": N, \"tokensOut\": N, \"usd\": X, \"model\": \"...\"}."
# Word splitting of AGENT_COMMAND is intended: it is a command line.
# shellcheck disable=SC2086
exec $AGENT_COMMAND "$prompt"
