#!/bin/sh
# Leaves a FIFO and optionally a file of $BIG_MIB MiB in the repository it verifies, then says PASS.
. "$(dirname "$0")/report.sh"
mkfifo left-behind.fifo
if [ -n "${BIG_MIB:-}" ]; then
  head -c "$((BIG_MIB * 1024 * 1024))" /dev/zero > big.bin
fi
write_report pass
