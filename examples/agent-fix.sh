#!/bin/sh
# A fixer for examples/agent-verify-skill.yaml: asks the agent to address the findings of the last
# report. gatebench commits whatever it changes. NOT run in CI.
# Its cost, when known, goes to $GATEBENCH_FIX_COST as {"tokensIn": N, "tokensOut": N, "usd": X}.
set -eu
: "${AGENT_COMMAND:?set AGENT_COMMAND to your agent CLI}"
prompt="Read the verification report at $GATEBENCH_LAST_REPORT and fix every finding in the \
repository in the current directory. Do not commit. If you know your token usage, write it as \
JSON {\"tokensIn\": N, \"tokensOut\": N, \"usd\": X} to $GATEBENCH_FIX_COST."
# shellcheck disable=SC2086
exec $AGENT_COMMAND "$prompt"
