#!/bin/bash
# Guest side: runs VM tests one after another in this one boot and prints
# "PASS vm/<name>" or "FAIL vm/<name>" for each.  A test fails if it exits
# non-zero, times out, leaves the module or a mount behind, or if the kernel
# log grows a WARNING, BUG, Oops, leak report or "scheduling while atomic"
# while it runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/vm/lib.sh

tests=("$@")
# All of them by default, but those marked "# vm-suite: by name only" (too
# slow for make check, or known to fail: the test says which), which run
# when named.
if [ ${#tests[@]} -eq 0 ]; then
	for f in tests/vm/t-*.sh; do
		grep -q '^# vm-suite: by name only' "$f" && continue
		tests+=("$(basename "$f" .sh)")
	done
fi

for t in "${tests[@]}"; do
	echo "--- vm/$t"
	dmesg_mark
	ORFS_TEST=$t timeout -k 10 "${ORFS_TEST_TIMEOUT:-600}" bash "tests/vm/$t.sh"
	rc=$?
	[ $rc -eq 124 ] && echo "vm/$t: timed out"
	orfs_cleanup || { echo "vm/$t: cleanup failed"; rc=1; }
	dmesg_check || rc=1
	if [ $rc -eq 0 ]; then echo "PASS vm/$t"; else echo "FAIL vm/$t"; fi
done
exit 0
