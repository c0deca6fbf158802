#!/bin/sh
# Leaves children behind that would outlive it: one in its process group, one that called setsid,
# one double-forked into a session of its own (all `sleep $MARK`), then says PASS.
. "$(dirname "$0")/report.sh"
sleep "$MARK" &
setsid sleep "$MARK" &
( setsid sh -c "sleep $MARK &" & )
sleep 0.2
write_report pass
