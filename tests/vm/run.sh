#!/bin/bash
# Host side of the VM integration tests: boots one VM for the whole group
# and runs tests/vm/group.sh inside it.  Usage: tests/vm/run.sh [TEST...]
# where TEST is a t-*.sh name without the extension (default: all).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# The VM boots the kernel orfs.ko is built for (tools/vm/run: its vermagic).
# The suite needs orfs.ko's benchmark-only parts (fs/bench.c: t-xfer's
# ioctl, the O_DIRECT A/B switches t-direct turns): make check builds them.
if ! modinfo -F parm orfs.ko 2>/dev/null | grep -q '^direct_push:'; then
	echo "tests/vm: $top/orfs.ko is missing or has no benchmark-only parts;" \
		"build it with: make module ORFS_BENCH=y" >&2
	echo "FAIL vm/orfs.ko-not-built-with-ORFS_BENCH"
	exit 1
fi
# A scratch disk for t-bigfile (a file larger than the guest's RAM); sparse,
# so it costs host disk only for what the test writes.
exec tools/vm/run --timeout "${ORFS_VM_TIMEOUT:-2400}" --disk "${ORFS_VM_DISK_MB:-4096}" \
	tests/vm/group.sh "$@"
