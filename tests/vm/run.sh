#!/bin/bash
# Host side of the VM integration tests: boots one VM for the whole group
# and runs tests/vm/group.sh inside it.  Usage: tests/vm/run.sh [TEST...]
# where TEST is a t-*.sh name without the extension (default: all).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
KDIR=${KDIR:-$(tools/kdir.sh)}
krel=$(tools/kdir.sh --release "$KDIR")
if [ -n "$krel" ] && [ -e "/boot/vmlinuz-$krel" ]; then
	export ORFS_VM_KERNEL=${ORFS_VM_KERNEL:-/boot/vmlinuz-$krel}
fi
# A scratch disk for t-bigfile (a file larger than the guest's RAM); sparse,
# so it costs host disk only for what the test writes.
exec tools/vm/run --timeout "${ORFS_VM_TIMEOUT:-2400}" --disk "${ORFS_VM_DISK_MB:-4096}" \
	tests/vm/group.sh "$@"
