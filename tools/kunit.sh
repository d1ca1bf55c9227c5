#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/kunit.sh - build and run ORFS's KUnit tests in a UML kernel.
#
# Usage: [KVER=...] tools/kunit.sh [kunit.py run options...]
#   e.g. tools/kunit.sh                      # every suite
#        tools/kunit.sh 'orfs_proto.*hdr*'   # a kunit.py filter glob
#        KVER=6.12 tools/kunit.sh            # against Linux 6.12's source
# KVER is a series (6.1, 6.12) or a release (6.12.117+deb12-amd64, whose
# series is taken); without it, the default kernel's series (tools/kdir.sh).
# (not --raw_output or --json: the script relies on its own setting of those)
#
# Output: one line per test case on stdout,
#	PASS kunit/<suite>/<case>
#	FAIL kunit/<suite>/<case>
#	SKIP kunit/<suite>/<case>	(kunit_skip(); not a failure)
# or "FAIL kunit/build" / "FAIL kunit/boot" if no test could run.  stderr
# gets the failing cases' KUnit diagnostics and a one-line summary.  Exit status is 0 only if the UML kernel configured, built and
# booted, at least one case passed and none failed (a crash, a timeout or a
# missing result counts as a failure).  On a config or build failure the
# kunit.py log, which holds make's stderr (the compiler errors), is printed.
#
# What it does, each step cached:
#  1. Unpacks /usr/src/linux-source-X.Y.tar.xz (Debian's linux-source-X.Y,
#     X.Y the series) into build/linux-source-X.Y, once per series.
#     build/linux-source-X.Y/.orfs-unpacked is written after a complete
#     extraction and records the tarball's size and mtime; a missing or
#     different stamp re-unpacks (and drops that series' UML build, which
#     belongs to the old source).
#  2. Hooks tests/kunit/ into that tree: the symlink drivers/orfs_kunit ->
#     tests/kunit, plus one line appended (once) to each of drivers/Kconfig
#     and drivers/Makefile.  Because it is a symlink, every edit to
#     tests/kunit/* and to the repo files they #include is seen by the next
#     build; nothing is copied.
#  3. Runs tools/testing/kunit/kunit.py run --arch=um with
#     --build_dir=build/kunit-um-X.Y (kept between runs: kbuild rebuilds only
#     what changed) and --kunitconfig=tests/kunit/.kunitconfig, then parses
#     the kernel's KTAP output (build/kunit-um/test.log) with the tree's own
#     kunit_parser.
#
# Cold run (unpack + full UML build with KASAN) takes 3-7 minutes on 2 cores
# (5.7 CPU-minutes for 6.1, 5.4 for 6.12); a warm run with nothing changed
# 6-7 s, after editing a
# test or a header it includes about 10 s.  rm -rf build/linux-source-X.Y
# build/kunit-um-X.Y to start over (also needed after moving the checkout:
# the build dir holds absolute paths).
#
# Adding a KUnit suite (see also tests/kunit/README.md):
#  1. Write tests/kunit/orfs_<thing>_test.c: a struct kunit_suite named
#     "orfs_<thing>" registered with kunit_test_suite().  Include the code
#     under test by path relative to the test file, e.g.
#	#include "../../include/orfs_proto.h"
#	#include "../../net/regcache_tree.c"
#     Only files that include no RDMA (ib_core, rdma_cm) headers can be built
#     here.  A .c file may be #included by at most one suite, or its global
#     symbols will be defined twice at link time.
#  2. Add "obj-$(CONFIG_ORFS_KUNIT_TEST) += orfs_<thing>_test.o" to
#     tests/kunit/Kbuild.
#  3. Run tools/kunit.sh.  The tests are built with -Werror.
#
# Environment: ORFS_KUNIT_CACHE puts linux-source-X.Y/ and kunit-um-X.Y/ in that
# directory instead of build/ (e.g. to share one UML build between fresh
# clones: the tests' objects are rebuilt, the kernel's are not),
# ORFS_LINUX_TARBALL overrides the tarball, ORFS_KUNIT_JOBS the make -j
# (default: number of CPUs), ORFS_KUNIT_TIMEOUT the seconds the UML kernel may
# run (default 300).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
SERIES=$("$ROOT/tools/kdir.sh" --series "${KVER:-}")
[ -n "$SERIES" ] || { echo "kunit: error: KVER=${KVER:-}: no such kernel (tools/kdir.sh)" >&2; exit 1; }
TARBALL=${ORFS_LINUX_TARBALL:-/usr/src/linux-source-$SERIES.tar.xz}
BUILD=${ORFS_KUNIT_CACHE:-$ROOT/build}
TREE=$BUILD/linux-source-$SERIES
STAMP=$TREE/.orfs-unpacked
KBUILD_DIR=$BUILD/kunit-um-$SERIES
TESTS=$ROOT/tests/kunit
JOBS=${ORFS_KUNIT_JOBS:-$(nproc)}
TIMEOUT=${ORFS_KUNIT_TIMEOUT:-300}
LOG=$KBUILD_DIR/orfs-kunit.log

log() { echo "kunit: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ -r "$TARBALL" ] || die "$TARBALL not found (run tools/install-deps.sh $SERIES)"
command -v python3 >/dev/null || die "python3 not found"
mkdir -p "$BUILD"

# One run at a time per cache: runs share the kernel tree and build dir.
exec 9>"$BUILD/.kunit.lock"
if ! flock -n 9; then
	log "another tools/kunit.sh is using $BUILD; waiting"
	flock 9
fi

# ---- 1. the kernel source, unpacked once ----
want_stamp="$(stat -L -c '%s %Y' "$TARBALL") $TARBALL"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$want_stamp" ]; then
	log "unpacking $TARBALL into $TREE"
	rm -rf "$TREE" "$KBUILD_DIR" "$BUILD"/.unpack.*
	tmp=$(mktemp -d "$BUILD/.unpack.XXXXXX")
	tar -xJf "$TARBALL" -C "$tmp"
	[ -f "$tmp/linux-source-$SERIES/tools/testing/kunit/kunit.py" ] ||
		die "$TARBALL does not unpack to linux-source-$SERIES/"
	mv "$tmp/linux-source-$SERIES" "$TREE"
	rmdir "$tmp"
	echo "$want_stamp" >"$STAMP"
fi

# ---- 2. hook tests/kunit into the tree (idempotent) ----
link=$TREE/drivers/orfs_kunit
if [ "$(readlink "$link" 2>/dev/null)" != "$TESTS" ]; then
	rm -rf "$link"
	ln -s "$TESTS" "$link"
fi
# Append, never rewrite: the files' mtimes change only the first time.
hook_line() {
	grep -qxF "$2" "$1" || printf '\n# ORFS KUnit tests, added by tools/kunit.sh\n%s\n' "$2" >>"$1"
}
hook_line "$TREE/drivers/Kconfig" 'source "drivers/orfs_kunit/Kconfig"'
# shellcheck disable=SC2016 # a make variable, literally
hook_line "$TREE/drivers/Makefile" 'obj-$(CONFIG_ORFS_KUNIT_TEST) += orfs_kunit/'

# ---- 3. configure, build, boot ----
mkdir -p "$KBUILD_DIR"
rm -f "$KBUILD_DIR/test.log"
if [ ! -e "$KBUILD_DIR/vmlinux" ]; then
	log "building the UML kernel from scratch in $KBUILD_DIR (a few minutes; log: $LOG)"
fi
start=$(date +%s)
rc=0
python3 "$TREE/tools/testing/kunit/kunit.py" run \
	--arch=um \
	--build_dir="$KBUILD_DIR" \
	--kunitconfig="$TESTS/.kunitconfig" \
	--jobs="$JOBS" \
	--timeout="$TIMEOUT" \
	--raw_output=kunit \
	--kernel_args=kasan_multi_shot \
	"$@" </dev/null >"$LOG" 2>&1 || rc=$?
# Messages name tests/kunit/ files by their path in the kernel tree.
show_log() { sed "s|$TREE/drivers/orfs_kunit/|$TESTS/|g" "$LOG" >&2; }
if [ "$rc" -ne 0 ]; then
	# With --raw_output kunit.py fails only if config or build failed.
	show_log
	echo "FAIL kunit/build"
	die "kunit.py could not configure or build the UML kernel (exit $rc; log: $LOG)"
fi
if [ ! -s "$KBUILD_DIR/test.log" ]; then
	show_log
	echo "FAIL kunit/boot"
	die "the UML kernel produced no output ($KBUILD_DIR/test.log)"
fi

# ---- 4. KTAP -> PASS/FAIL lines ----
rc=0
python3 - "$TREE/tools/testing/kunit" "$KBUILD_DIR/test.log" \
	"$KBUILD_DIR/orfs-kunit-parsed.log" <<'EOF' || rc=$?
import contextlib, io, re, sys

kunit_dir, raw_log, parsed_log = sys.argv[1:4]
sys.path.insert(0, kunit_dir)
pretty = io.StringIO()
# kunit_printer binds sys.stdout when imported: import and parse inside the
# redirect so kunit_parser's human-readable report goes to parsed_log.
with contextlib.redirect_stdout(pretty):
	import kunit_parser
	from kunit_parser import TestStatus
	with open(raw_log, errors='backslashreplace') as f:
		main = kunit_parser.parse_run_tests(f.readlines())
with open(parsed_log, 'w') as f:
	f.write(pretty.getvalue())

passed = failed = skipped = diag = 0

def report(word, name, test):
	global passed, failed, skipped, diag
	print(f'{word} kunit/{name}', flush=True)
	if word == 'PASS':
		passed += 1
	elif word == 'SKIP':
		skipped += 1
	else:
		failed += 1
	if word != 'PASS':
		for line in test.log:
			if line.strip():
				line = line.rstrip().replace('drivers/orfs_kunit/',
							     'tests/kunit/')
				print(f'    {line}', file=sys.stderr, flush=True)
				diag += 1

# Without CONFIG_KASAN_KUNIT_TEST a KASAN (or UBSAN, or other "BUG:") report
# does not fail the running case; it lands in the case's log, before its
# result line: fail the case here.
KERNEL_BUG = re.compile(r'\b(BUG|UBSAN): ')

def word_of(test):
	if any(KERNEL_BUG.search(line) for line in test.log):
		return 'FAIL'
	if test.status == TestStatus.SUCCESS:
		return 'PASS'
	if test.status == TestStatus.SKIPPED:
		return 'SKIP'
	return 'FAIL'

for suite in main.subtests:
	sname = suite.name or '<unnamed suite>'
	case_failed = False
	for i, case in enumerate(suite.subtests, 1):
		cname = case.name or f'<case {i}: no result, kernel crashed?>'
		word = word_of(case)
		case_failed |= word == 'FAIL'
		report(word, f'{sname}/{cname}', case)
	# A suite can fail with no failing case: init error, no cases, a parse
	# error.  Say so rather than let it pass.
	if not case_failed and word_of(suite) == 'FAIL':
		report('FAIL', f'{sname}/<suite: {suite.status.name}>', suite)

if main.status in (TestStatus.FAILURE_TO_PARSE_TESTS, TestStatus.NO_TESTS) \
		or main.counts.errors:
	print(f'kunit: KTAP parse problem: {main.status.name}, '
	      f'{main.counts.errors} error(s); see {parsed_log}', file=sys.stderr)
	failed += 1
if failed and not diag:
	# E.g. a panic before any test: its oops is at the end of the log.
	with open(raw_log, errors='backslashreplace') as f:
		tail = f.readlines()[-40:]
	print(f'kunit: last lines of {raw_log}:', file=sys.stderr)
	for line in tail:
		print(f'  | {line.rstrip()}', file=sys.stderr)
print(f'kunit: {passed} passed, {failed} failed, {skipped} skipped',
      file=sys.stderr)
if passed == 0 and failed == 0:
	print('kunit: error: no test case ran', file=sys.stderr)
	sys.exit(1)
sys.exit(1 if failed else 0)
EOF
log "done in $(( $(date +%s) - start ))s (raw KTAP: $KBUILD_DIR/test.log)"
exit "$rc"
