#!/bin/bash
# orfsd against its userspace test client (server/build/orfs-smoke, no
# orfs.ko): several connections with inline, granted and REMOTE (server
# RDMA) I/O through the block cache, a client that vanishes, the startup
# errors, SIGTERM; DEMOTE_META and DEMOTE against a second orfsd with a
# small cache, and its demote statistics.  tests/server/vm_smoke.sh prints TAP; any "not ok" fails.
. "$(dirname "$0")/lib.sh"
out=$(bash "$ORFS_TOP/tests/server/vm_smoke.sh" 2>&1)
rc=$?
echo "$out" | grep -E '^(not ok|1\.\.)' | sed 's/^/  /'
if echo "$out" | grep -q '^not ok' || [ $rc -ne 0 ]; then
	echo "$out" | grep -v '^ok ' | grep -v ': debug: '
	fail "vm_smoke.sh (exit status $rc)"
fi
exit 0
