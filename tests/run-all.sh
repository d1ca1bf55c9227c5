#!/bin/bash
# Run the whole ORFS test suite: server unit tests (cmocka), a short run of
# the libFuzzer targets (tests/fuzz/run.sh, 20 s each), KUnit suites (UML),
# and VM integration tests (orfs.ko against orfsd over soft-RoCE).
#
# Every layer prints one line per test, "PASS <layer>/<name>" or
# "FAIL <layer>/<name>"; this script counts them and ends with the line
# "N passed, N failed".  A layer that dies without reporting counts as a
# failure of that layer.
#
# Environment: KDIR (kernel build dir), ORFS_SKIP="fuzz kunit vm" to skip
# layers while developing (never in CI).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# make check passes KDIR; run directly, take the Makefile's default.
KDIR=${KDIR:-$(tools/kdir.sh)}
export KDIR
out=$(mktemp -d "${TMPDIR:-/tmp}/orfs-check.XXXXXX")
trap 'rm -rf "$out"' EXIT
log="$out/all.log"
: >"$log"

skip() { case " ${ORFS_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }

# run_layer NAME CMD...: streams CMD's output, keeps its PASS/FAIL lines.
run_layer() {
	local name=$1 rc
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	grep -E '^(PASS|FAIL) ' "$out/$name.log" >>"$log"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out/$name.log"; then
		echo "FAIL $name/layer (exit status $rc)" | tee -a "$log"
	fi
	return 0
}

build() {
	local ok=0 log=$out/kbuild.log

	# The module must be clean under W=1 and sparse: any warning fails.
	# First the production module, then the one with the benchmark-only
	# parts (ORFS_BENCH=y, fs/bench.c) under sparse too: the VM tests and
	# the benchmarks use that one, which stays built.
	if make module KDIR="$KDIR" W=1 >"$log" 2>&1 && ! grep -qiE 'warning:|error:' "$log"; then
		echo "PASS build/orfs.ko (W=1)"
		# A production module carries no benchmark-only part.
		if modinfo -F parm orfs.ko | grep -qE '^(ogr|direct_inline|direct_push):' ||
			nm --defined-only orfs.ko | grep -qw orfs_xfer; then
			echo "FAIL build/orfs.ko (production: no benchmark-only parts)"
			ok=1
		else
			echo "PASS build/orfs.ko (production: no benchmark-only parts)"
		fi
	else
		cat "$log"
		echo "FAIL build/orfs.ko (W=1)"
		ok=1
	fi
	if make module KDIR="$KDIR" ORFS_BENCH=y W=1 C=2 >"$log" 2>&1 &&
		! grep -qiE 'warning:|error:' "$log"; then
		echo "PASS build/orfs.ko (ORFS_BENCH=y, W=1, sparse)"
	else
		grep -iE 'warning:|error:' "$log" | head -n 40
		echo "FAIL build/orfs.ko (ORFS_BENCH=y, W=1, sparse)"
		ok=1
	fi
	if make -s server; then echo "PASS build/orfsd"; else echo "FAIL build/orfsd"; ok=1; fi
	if make -s tools; then echo "PASS build/tools"; else echo "FAIL build/tools"; ok=1; fi
	# The admin guide's option lists are what the option tables give.
	if tools/gen-docs.sh --check --no-build; then echo "PASS build/docs"; else echo "FAIL build/docs"; ok=1; fi
	# Every source file is in architecture.md's folder map.
	if tools/check-docmap.sh; then echo "PASS build/docmap"; else echo "FAIL build/docmap"; ok=1; fi
	return $ok
}

start=$(date +%s)
run_layer build build
skip server || run_layer server tests/server/run.sh
skip fuzz || run_layer fuzz tests/fuzz/run.sh
skip kunit || run_layer kunit tools/kunit.sh
if ! skip vm; then
	if grep -q '^FAIL build/' "$log"; then
		echo "FAIL vm/not-run (the build failed)" | tee -a "$log"
	else
		run_layer vm tests/vm/run.sh
	fi
fi

passed=$(grep -c '^PASS ' "$log" || true)
failed=$(grep -c '^FAIL ' "$log" || true)
echo
echo "=== summary ($(( $(date +%s) - start )) s)"
grep '^FAIL ' "$log" || true
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
