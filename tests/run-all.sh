#!/bin/bash
# Run the whole ORFS test suite: server unit tests (cmocka), the host tests
# of the userspace tools (tests/tools/run.sh: orfsstat), a short run of
# the libFuzzer targets (tests/fuzz/run.sh, 20 s each), the packages (make
# deb with lintian, and DKMS for the first two kernels of the list in a
# private mount namespace: tests/pkg/dkms.sh), and for each kernel
# generation the module's build (W=1, sparse), the KUnit suites (UML, that
# kernel's source) and the VM integration tests (orfs.ko against orfsd over
# soft-RoCE, in a VM that boots that kernel).
#
# Every layer prints one line per test, "PASS <layer>/<name>" or
# "FAIL <layer>/<name>"; this script counts them and ends with the line
# "N passed, N failed".  A layer that dies without reporting counts as a
# failure of that layer.  The lines of a kernel other than the first of the
# list carry its series in front: "PASS 6.12/vm/t-basic".
#
# Kernels (tools/kdir.sh): ORFS_CHECK_KVERS, a list of KVER values whose
# first gets the whole suite and the others the build, KUnit and the VM
# groups of ORFS_CHECK_VM_OTHER (default: all of them); `make check` sets it
# to "6.1 6.12", or to its KVER.  Without it: KVER, or the default kernel.
# KDIR (a build directory) replaces the list by that one kernel.
# The first kernel runs last, so that its ORFS_BENCH=y module stays built.
#
# Environment: ORFS_SKIP="fuzz kunit vm pkg" (also: server, tools) to skip layers while developing
# (never in CI).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$(mktemp -d "${TMPDIR:-/tmp}/orfs-check.XXXXXX")
trap 'rm -rf "$out"' EXIT
log="$out/all.log"
: >"$log"

skip() { case " ${ORFS_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }

# run_layer NAME PREFIX CMD...: streams CMD's output, keeps its PASS/FAIL
# lines, each with PREFIX (e.g. "6.12/") before its name.
run_layer() {
	local name=$1 prefix=$2 rc
	shift 2
	echo "=== $prefix$name: $*"
	"$@" 2>&1 | sed -u -E "s#^(PASS|FAIL|SKIP) #\1 $prefix#" | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	grep -E '^(PASS|FAIL) ' "$out/$name.log" >>"$log"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out/$name.log"; then
		echo "FAIL $prefix$name/layer (exit status $rc)" | tee -a "$log"
	fi
	return 0
}

# build_module: orfs.ko for KDIR, W=1 and sparse.
build_module() {
	local ok=0 log=$out/make-module.log

	# The module must be clean under W=1 and sparse: any warning fails.
	# First the production module, then the one with the benchmark-only
	# parts (ORFS_BENCH=y, fs/bench.c) under sparse too: the VM tests and
	# the benchmarks use that one, which stays built.
	if make module KDIR="$KDIR" W=1 >"$log" 2>&1 && ! grep -qiE 'warning:|error:' "$log"; then
		echo "PASS build/orfs.ko (W=1)"
		# A production module carries no benchmark-only part.  (Here-
		# strings: under pipefail, grep -q ending nm's pipe early on a
		# match would make the pipe fail, and the check pass.)
		if grep -qE '^(ogr|direct_inline|direct_push):' <<<"$(modinfo -F parm orfs.ko)" ||
			grep -qw orfs_xfer <<<"$(nm --defined-only orfs.ko)"; then
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
	return $ok
}

# build: what does not depend on the kernel.
build() {
	local ok=0

	if make -s server; then echo "PASS build/orfsd"; else echo "FAIL build/orfsd"; ok=1; fi
	if make -s tools; then echo "PASS build/tools"; else echo "FAIL build/tools"; ok=1; fi
	# The admin guide's option lists are what the option tables give.
	if tools/gen-docs.sh --check --no-build; then echo "PASS build/docs"; else echo "FAIL build/docs"; ok=1; fi
	# Every source file is in architecture.md's folder map.
	if tools/check-docmap.sh; then echo "PASS build/docmap"; else echo "FAIL build/docmap"; ok=1; fi
	return $ok
}

# packages: make deb (lintian-clean) and its packages installed in a
# chroot over the host's root (tests/pkg/install.sh), then DKMS on a "fresh
# machine" (a private mount namespace) for the kernels of the list, the
# first two (tests/pkg/dkms.sh).
packages() {
	local ok=0

	if tools/build-deb.sh >"$out/deb.log" 2>&1; then
		echo "PASS pkg/deb (lintian clean)"
		# dpkg -i of the three in a chroot over the host's root (overlay)
		tests/pkg/install.sh "${1%% *}" || ok=1
	else
		tail -n 40 "$out/deb.log"
		echo "FAIL pkg/deb"
		ok=1
	fi
	# shellcheck disable=SC2086 # a list of KVERs
	tests/pkg/dkms.sh $1 || ok=1
	return $ok
}

# kernel KDIR PREFIX VMTESTS...: the module's build, KUnit and VM layers
# against one kernel.
kernel() {
	local kdir=$1 prefix=$2 series
	shift 2
	series=$(tools/kdir.sh --series "$(tools/kdir.sh --release "$kdir")")
	echo "=== kernel $(tools/kdir.sh --release "$kdir") ($kdir)"
	KDIR=$kdir run_layer kbuild "$prefix" build_module
	skip kunit || KVER=$series run_layer kunit "$prefix" tools/kunit.sh
	if ! skip vm; then
		if grep -qF "FAIL ${prefix}build/" "$log" || grep -q '^FAIL build/' "$log"; then
			echo "FAIL ${prefix}vm/not-run (the build failed)" | tee -a "$log"
		else
			KDIR=$kdir run_layer vm "$prefix" tests/vm/run.sh "$@"
		fi
	fi
}

start=$(date +%s)
run_layer build "" build
skip server || run_layer server "" tests/server/run.sh
skip tools || run_layer tools "" tests/tools/run.sh
skip fuzz || run_layer fuzz "" tests/fuzz/run.sh

# The packages, before the VM layers (t-packages installs build/deb/).
pkg_kvers=${ORFS_CHECK_KVERS:-${KVER:-6.1}}
skip pkg || run_layer pkg "" packages "$(echo $pkg_kvers | cut -d' ' -f1-2)"

# kernels[i]: the build directory of the i-th kernel of the list, or empty
# if its headers are missing.
if [ -n "${KDIR:-}" ]; then
	kernels=("$KDIR")
else
	read -r -a kvers <<<"${ORFS_CHECK_KVERS:-${KVER:-}}"
	[ ${#kvers[@]} -gt 0 ] || kvers=("")
	kernels=()
	for k in "${kvers[@]}"; do
		kernels+=("$(tools/kdir.sh "$k")")
	done
fi
# The others first, the first kernel of the list last.
for ((i = ${#kernels[@]} - 1; i >= 0; i--)); do
	prefix=
	[ "$i" -eq 0 ] || prefix=$(tools/kdir.sh --series "${kvers[i]}")/
	if [ -z "${kernels[i]}" ]; then
		echo "FAIL ${prefix}build/kernel-headers (KVER=${kvers[i]} is not installed: tools/install-deps.sh ${kvers[i]})" | tee -a "$log"
	elif [ "$i" -eq 0 ]; then
		kernel "${kernels[i]}" "$prefix"
	else
		# shellcheck disable=SC2086 # a list of test names
		kernel "${kernels[i]}" "$prefix" ${ORFS_CHECK_VM_OTHER:-}
	fi
done

passed=$(grep -c '^PASS ' "$log" || true)
failed=$(grep -c '^FAIL ' "$log" || true)
echo
echo "=== summary ($(( $(date +%s) - start )) s)"
grep '^FAIL ' "$log" || true
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
