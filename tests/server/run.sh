#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Server unit tests: the cmocka binaries and cli_test.sh (startup errors of
# the real orfsd).  The binaries: test_proto; the request-handling tests,
# one per server/ops*.c file (test_ops, test_ops_io, test_ops_ns,
# test_ops_xattr), test_ops_cred (identities across them) and test_ops_slow
# (UNLINK, RMDIR and truncates on the offload threads); test_config,
# test_drc, test_acl, test_blockcache, test_rseg, test_unifier, test_stats,
# test_auth, test_ops_offload, test_window, test_fault, test_offload,
# test_arena and test_rdma_size.  Each
# request-handling test runs twice: as is, and as <binary>_cached
# (test_ops_cached, test_ops_io_cached ...) with ORFS_TEST_CACHE=io_uring
# (every request through the block cache and the io_uring engine).  Runs
# on the host, no RDMA needed; the request-handling tests, test_unifier
# and test_ops_offload need root (file handles, private tmpfs mounts) and a
# filesystem with file handles under /tmp (or ORFS_TEST_TMPDIR).
#
# Usage: tests/server/run.sh [--tap] [--no-build]
#
# Default output is one line per test for tests/run-all.sh:
#	PASS server/<binary>/<test>   or   FAIL server/<binary>/<test>
# --tap prints the raw TAP of each binary instead ("make -C server test").
# A binary that fails without naming a failed test (a crash, a failed group
# setup) gets "FAIL server/<binary>/exit-status-N".  Exits 1 on any failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=$repo/server/build
tap=0
do_build=1
for a in "$@"; do
	case $a in
	--tap) tap=1 ;;
	--no-build) do_build=0 ;;
	*) echo "usage: $0 [--tap] [--no-build]" >&2; exit 2 ;;
	esac
done

if [ $do_build -eq 1 ] && ! make -s -C "$repo/server" tests; then
	echo "FAIL server/build"
	exit 1
fi

export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0

# report NAME FILE STATUS: turn NAME's TAP in FILE into the chosen output.
report() {
	local name=$1 file=$2 st=$3 line t
	local nfail=0
	while IFS= read -r line; do
		case $line in
		"ok "*)
			t=${line#ok * - }
			[ $tap -eq 1 ] && echo "$line" || echo "PASS server/$name/$t" ;;
		"not ok "*)
			t=${line#not ok * - }
			nfail=$((nfail + 1))
			[ $tap -eq 1 ] && echo "$line" || echo "FAIL server/$name/$t" ;;
		"#"* | "1.."*)
			echo "$line" ;;
		*)
			echo "# $line" ;;	# stderr of the test (expected errors too)
		esac
	done <"$file"
	if [ "$st" -ne 0 ]; then
		failed=1
		if [ $nfail -eq 0 ]; then
			[ $tap -eq 1 ] && echo "not ok - $name exit-status-$st" ||
				echo "FAIL server/$name/exit-status-$st"
		fi
	fi
}

out=$(mktemp -d "${TMPDIR:-/tmp}/orfs-server-tests.XXXXXX")
trap 'rm -rf "$out"' EXIT
# The request-handling tests (server/Makefile's OPS_TESTS).
ops_tests="test_ops test_ops_io test_ops_ns test_ops_xattr test_ops_cred test_ops_slow"
for t in test_proto $ops_tests test_config test_drc test_acl test_blockcache \
	test_rseg test_unifier test_stats test_auth test_ops_offload test_window \
	test_fault test_offload test_arena test_rdma_size; do
	echo "# $t"
	"$build/tests/$t" >"$out/$t" 2>&1
	report "$t" "$out/$t" $?
done
for t in $ops_tests; do
	echo "# ${t}_cached"
	ORFS_TEST_CACHE=io_uring "$build/tests/$t" >"$out/${t}_cached" 2>&1
	report "${t}_cached" "$out/${t}_cached" $?
done
echo "# cli_test"
ORFSD=$repo/server/orfsd bash "$here/cli_test.sh" >"$out/cli" 2>&1
report cli_test "$out/cli" $?

[ $failed -eq 0 ] && echo "# server tests passed" || echo "# server tests FAILED"
exit $failed
