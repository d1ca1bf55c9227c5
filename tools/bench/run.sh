#!/bin/bash
# `make bench`: ORFS against NFS/RDMA and the raw soft-RoCE limits, in one
# boot of the test VM.  See Documentation/benchmarks.md.
#
# Usage: tools/bench/run.sh
#
# Builds orfs.ko and orfsd (unless ORFS_BENCH_BUILD=0), boots the VM with
# tools/bench/guest.sh, then writes results.txt (printed), results.csv and
# chart.png into the results directory: $ORFS_BENCH_OUT, or
# build/bench/<timestamp>/ (also linked as build/bench/latest).
#
# Exit status: 0 when the run completed, whatever the figures (ORFS jobs that
# failed show as "error"); non-zero when the build, the VM, the raw rxe
# limits, NFS/RDMA or loading/mounting ORFS broke.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
if [ -n "${ORFS_BENCH_OUT:-}" ]; then
	ORFS_BENCH_OUT=$(realpath -m "$ORFS_BENCH_OUT")	# relative to the caller's cwd
fi
for v in ORFS_BENCH_KO ORFS_BENCH_ORFSD; do
	[ -z "${!v:-}" ] || printf -v "$v" '%s' "$(realpath -m "${!v}")"
done
cd "$top"
msg() { echo "bench: $*"; }
fail() {
	echo "bench: FAILED: $*" >&2
	exit 1
}
t_start=$(date +%s)

stamp=$(date +%Y%m%d-%H%M%S)
if [ -n "${ORFS_BENCH_OUT:-}" ]; then
	out=$ORFS_BENCH_OUT
else
	out=$top/build/bench/$stamp
fi
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
case $out in /tmp/* | /run/* | /dev/* | /proc/* | /sys/*)
	fail "ORFS_BENCH_OUT=$out is not visible inside the VM; use a directory elsewhere" ;;
esac
[ -z "$(ls -A "$out")" ] || fail "$out is not empty"
if [ -z "${ORFS_BENCH_OUT:-}" ]; then
	ln -sfn "$stamp" "$top/build/bench/latest"
fi

tools/install-deps.sh "${KVER:-}"

if [ "${ORFS_BENCH_BUILD:-1}" != 0 ]; then
	msg "building orfs.ko, orfsd and tools"
	make -s all ORFS_BENCH=y >"$out/build.log" 2>&1 || {
		tail -n 30 "$out/build.log" >&2
		fail "the build failed (full log: $out/build.log); ORFS_BENCH_BUILD=0 benchmarks the binaries already there"
	}
fi
ko=${ORFS_BENCH_KO:-$top/orfs.ko}
orfsd=${ORFS_BENCH_ORFSD:-$top/server/orfsd}
[ -r "$ko" ] || fail "no $ko (build it, or set ORFS_BENCH_KO)"
[ -x "$orfsd" ] || fail "no $orfsd (build it, or set ORFS_BENCH_ORFSD)"
# Snapshots: the tree is shared, and a rebuild or an edit of tools/bench
# during the run (bash reads scripts as it goes) must not change what runs.
# They also record what was measured.
mkdir -p "$out/bin" "$out/harness"
cp "$ko" "$out/bin/orfs.ko"
cp "$orfsd" "$out/bin/orfsd"
cp -r tools/bench/. "$out/harness/"
cp include/orfs_ioctl.h "$out/harness/"	# xferbench.c's, for the prim job
git -C "$top" describe --always --dirty >"$out/bin/version" 2>/dev/null || true
export ORFS_BENCH_KO=$out/bin/orfs.ko ORFS_BENCH_ORFSD=$out/bin/orfsd ORFS_BENCH_TOP=$top

# The VM boots the kernel orfs.ko was built for (tools/vm/run: its vermagic).
export ORFS_VM_MODULE=$ORFS_BENCH_KO

# The whole run must end: 40 min per repetition is far more than a
# default run takes (see Documentation/benchmarks.md), plus setup.
repeat=${ORFS_BENCH_REPEAT:-1}
[[ $repeat =~ ^[1-9][0-9]*$ ]] || fail "ORFS_BENCH_REPEAT=$repeat: not a positive number"
vm_timeout=${ORFS_VM_TIMEOUT:-$((900 + 2400 * repeat))}
mem=${ORFS_BENCH_MEM:-3072}

# The host's load: other VMs on these 2 cores distort everything.
others=$(pgrep -c -f '^qemu-system' || true)
{
	echo "host_load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "host_other_vms=$others"
	echo "host_cpus=$(nproc)"
	echo "vm_cpu=${ORFS_VM_CPU:-max,-erms,-fsrm (tools/vm/run default)}"
} >"$out/host.txt"
[ "${others:-0}" = 0 ] || msg "note: $others other qemu VM(s) running on this host: figures will be noisier"

# The guest's clocksource.  Under TCG the kernel rejects the TSC and
# takes the HPET, whose every read (ktime_get(), fio's clock_gettime()) is
# an emulated MMIO access under QEMU's global lock; perftest reads the TSC
# itself and pays nothing.  TCG's TSC is derived from the host's clock and
# the same on every vCPU, so the bench tells the kernel to trust it, as a
# real host's is (ORFS_BENCH_CLOCKSOURCE=default leaves the kernel's choice).
case ${ORFS_BENCH_CLOCKSOURCE:-tsc} in
tsc) export ORFS_VM_APPEND="${ORFS_VM_APPEND:+$ORFS_VM_APPEND }clocksource=tsc tsc=reliable" ;;
default) ;;
*) fail "ORFS_BENCH_CLOCKSOURCE=$ORFS_BENCH_CLOCKSOURCE: tsc or default" ;;
esac
echo "clocksource=${ORFS_BENCH_CLOCKSOURCE:-tsc}" >>"$out/host.txt"

boots=${ORFS_BENCH_BOOTS:-1}
[[ $boots =~ ^[1-9][0-9]*$ ]] || fail "ORFS_BENCH_BOOTS=$boots: not a positive number"

# boot_once DIR INDEX: boot INDEX (0, 1, ...) of the VM, running every
# job (INDEX shifts the order of the systems: see guest.sh), its results in
# DIR/raw/ and its console in DIR/console.log.  While it runs,
# hostmon.py keeps the host's CPU time used by other processes where the
# guest's counters read it (DIR/raw/host_cpu), so that every result shows
# how much of the host it shared (report.py).  Returns tools/vm/run's
# status.
boot_once() {
	local dir=$1 boot_index=$2 rc=0
	python3 "$out/harness/hostmon.py" "$dir" &
	hostmon=$!
	ORFS_BENCH_BOOT_INDEX=$boot_index ORFS_VM_SHARE=$dir tools/vm/run --timeout "$vm_timeout" --mem "$mem" "$out/harness/guest.sh" \
		2>&1 | tee "$dir/console.log" || rc=${PIPESTATUS[0]}
	kill $hostmon 2>/dev/null || true
	hostmon=
	return $rc
}
hostmon=
trap '[ -z "$hostmon" ] || kill $hostmon 2>/dev/null || true' EXIT

# merge_boots: DIR/boot-N/raw/ of each boot into DIR/raw/: results, steps
# and warm-up figures with the repetitions numbered on across boots,
# info.txt of the first boot with the totals.
merge_boots() {
	local b n=0 dirs=()
	mkdir -p "$out/raw"
	: >"$out/raw/results.tsv"
	: >"$out/raw/steps.tsv"
	: >"$out/raw/warmup.tsv"
	for b in $(seq 1 "$boots"); do
		[ -s "$out/boot-$b/raw/results.tsv" ] || continue
		dirs+=("boot-$b")
		for f in results.tsv steps.tsv warmup.tsv; do
			[ -f "$out/boot-$b/raw/$f" ] || continue
			awk -F'\t' -v OFS='\t' -v base=$((n * repeat)) '{ $1 += base; print }' \
				"$out/boot-$b/raw/$f" >>"$out/raw/$f"
		done
		n=$((n + 1))
	done
	[ -n "${dirs[*]}" ] || return 0
	grep -v '^repeat=' "$out/${dirs[0]}/raw/info.txt" >"$out/raw/info.txt"
	{
		echo "repeat=$((n * repeat))"
		echo "boots=$n"
		echo "passes=$repeat"
		echo "boot_dirs=${dirs[*]}"
	} >>"$out/raw/info.txt"
}

msg "results in $out"
rc=0
if [ "$boots" = 1 ]; then
	msg "booting the VM (timeout ${vm_timeout}s, ${mem} MB): raw rxe limits, NFS/RDMA and ORFS"
	boot_once "$out" 0 || rc=$?
else
	# Each boot draws its own vCPUs for each connection's packets (RPS,
	# see Caveats): medians over boots, as well as over passes.
	for b in $(seq 1 "$boots"); do
		mkdir -p "$out/boot-$b"
		msg "boot $b of $boots (timeout ${vm_timeout}s, ${mem} MB): raw rxe limits, NFS/RDMA and ORFS"
		brc=0
		boot_once "$out/boot-$b" $((b - 1)) || brc=$?
		[ "$brc" = 0 ] || { msg "boot $b: status $brc"; [ "$rc" != 0 ] || rc=$brc; }
	done
	merge_boots
fi

echo "host_load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/host.txt"
echo
if [ -s "$out/raw/results.tsv" ]; then
	python3 "$out/harness/report.py" "$out" || { echo "bench: report.py failed" >&2; [ "$rc" != 0 ] || rc=1; }
else
	echo "bench: no results were recorded" >&2
	[ "$rc" != 0 ] || rc=1
fi
t_total=$(($(date +%s) - t_start))
echo "total $t_total s" >>"$out/results.txt"

echo
msg "results: $out/results.txt, results.csv, chart.png (raw data and logs in raw/)"
msg "total time $t_total s"
case $rc in
0) ;;
1) fail "a step that must work broke (raw rxe limits, NFS/RDMA, or loading/mounting ORFS): see above and $out/console.log" ;;
124) fail "the VM timed out after ${vm_timeout}s (ORFS_VM_TIMEOUT); partial results above" ;;
125) fail "the VM failed (setup error, panic or crash): see $out/console.log" ;;
*) fail "tools/vm/run exited with status $rc: see $out/console.log" ;;
esac
exit 0
