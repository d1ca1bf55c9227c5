#!/bin/bash
# ORFS benchmark, the guest side: tools/bench/run.sh boots the test VM
# (tools/vm/run) with this script.  It sets up NFS/RDMA and ORFS (mounted
# twice: orfs, and orfstf with trusted_fabric) on the rxe pair, runs the raw
# rxe limits and the file system jobs (tools/bench/jobs.sh)
# ORFS_BENCH_REPEAT times, and writes raw results under $ORFS_VM_SHARE/raw/.
# The host side (report.py) turns them into the table, CSV and chart.
#
# Exit status: 0 when the raw limits and NFS/RDMA worked (ORFS jobs may have
# failed: they show as "error"); 1 when a step that must work broke (raw
# perftest, NFS/RDMA, loading or mounting ORFS), after running everything
# else it could.  See Documentation/benchmarks.md.
set -uo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# run.sh runs a snapshot of tools/bench from the results directory.
BENCH_TOP=${ORFS_BENCH_TOP:-$(cd "$BENCH_DIR/../.." && pwd)}
BENCH_OUT=${ORFS_VM_SHARE:?not inside the ORFS VM (ORFS_VM_SHARE unset)}
export BENCH_DIR BENCH_TOP BENCH_OUT
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/jobs.sh"
. "$BENCH_DIR/setup.sh"

[ "${ORFS_VM:-}" = 1 ] || { echo "guest.sh runs inside the VM: use tools/bench/run.sh" >&2; exit 2; }
mkdir -p "$BENCH_RAW" "$BENCH_LOG" "$BENCH_TMP"
# The guest's fresh /dev has no /dev/fd (bash process substitution, tools).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
: >"$BENCH_TSV"
: >"$BENCH_STEPS"

die() { echo "bench: FATAL: $*" >&2; exit 1; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1=$2: not a positive number"; }

# --- knobs (Documentation/benchmarks.md) ------------------------------------------
BENCH_SIZE=$(size_bytes "${ORFS_BENCH_SIZE:-128M}") || die "ORFS_BENCH_SIZE=${ORFS_BENCH_SIZE}: not a size"
if [ $((BENCH_SIZE % 1048576)) != 0 ] || [ "$BENCH_SIZE" -lt 1048576 ]; then
	die "ORFS_BENCH_SIZE must be a whole number of MiB"
fi
BENCH_FILES=${ORFS_BENCH_FILES:-10000}
BENCH_REPEAT=${ORFS_BENCH_REPEAT:-1}
BENCH_RUNTIME=${ORFS_BENCH_RUNTIME:-120}
BENCH_RAND_RUNTIME=${ORFS_BENCH_RAND_RUNTIME:-20}
BENCH_PINGS=${ORFS_BENCH_PINGS:-1000}
BENCH_STEP_TIMEOUT=${ORFS_BENCH_STEP_TIMEOUT:-600}
BENCH_TAR_DIR=${ORFS_BENCH_TAR_DIR:-/usr/include}
BENCH_SYSTEMS=${ORFS_BENCH_SYSTEMS:-orfs orfstf nfs}
BENCH_JOBS=${ORFS_BENCH_JOBS:-}
BENCH_ORDER=${ORFS_BENCH_ORDER:-rotate}
BENCH_BOOT_INDEX=${ORFS_BENCH_BOOT_INDEX:-0}
BENCH_WARMUP=${ORFS_BENCH_WARMUP:-1}
case $BENCH_ORDER in rotate | fixed) ;; *) die "ORFS_BENCH_ORDER=$BENCH_ORDER: rotate or fixed" ;; esac
case $BENCH_WARMUP in 0 | 1) ;; *) die "ORFS_BENCH_WARMUP=$BENCH_WARMUP: 0 or 1" ;; esac
[[ $BENCH_BOOT_INDEX =~ ^[0-9]+$ ]] || die "ORFS_BENCH_BOOT_INDEX=$BENCH_BOOT_INDEX: not a number"
for v in BENCH_FILES BENCH_REPEAT BENCH_RUNTIME BENCH_RAND_RUNTIME BENCH_PINGS BENCH_STEP_TIMEOUT; do
	posint "ORFS_$v" "${!v}"
done
export BENCH_SIZE BENCH_FILES BENCH_RUNTIME BENCH_RAND_RUNTIME BENCH_PINGS

info() { printf '%s=%s\n' "$1" "$2" >>"$BENCH_RAW/info.txt"; }
: >"$BENCH_RAW/info.txt"
info started "$(date '+%Y-%m-%d %H:%M:%S')"
info kernel "$(uname -r)"
info cpus "$(nproc)"
info mem_mb $(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
info clocksource "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
info size_bytes "$BENCH_SIZE"
info files "$BENCH_FILES"
info repeat "$BENCH_REPEAT"
info runtime_cap_s "$BENCH_RUNTIME"
info rand_runtime_s "$BENCH_RAND_RUNTIME"
info pings "$BENCH_PINGS"
info step_timeout_s "$BENCH_STEP_TIMEOUT"
info systems "$BENCH_SYSTEMS"
info order "$BENCH_ORDER"
info warmup "$BENCH_WARMUP"
info jobs "${BENCH_JOBS:-all}"

# selected JOBNAME: true if ORFS_BENCH_JOBS is empty or names it.
selected() { [ -z "$BENCH_JOBS" ] || [[ " $BENCH_JOBS " == *" $1 "* ]]; }
has_system() { [[ " $BENCH_SYSTEMS " == *" $1 "* ]]; }

declare -A BROKEN		# system -> why its jobs are not run any more
FAILURES=()			# steps that must work and broke
loud() {
	FAILURES+=("$*")
	echo "bench: FAILED: $*" >&2
}

watchdog_init

# --- setup ---------------------------------------------------------------------------
T_START=$SECONDS
bench_note "sizes: file $((BENCH_SIZE / 1048576)) MiB, $BENCH_FILES files, tar of $BENCH_TAR_DIR, $BENCH_REPEAT repetition(s)"

if has_system nfs; then
	bench_note "starting kernel nfsd with RDMA on $BENCH_SRV:$BENCH_NFS_PORT"
	nfs_server_start || { loud "$SETUP_ERR"; BROKEN[nfs]="NFS server setup failed"; }
fi

# The tar jobs' input: a tarball of ORFS_BENCH_TAR_DIR in the guest's tmpfs.
BENCH_TARBALL=$BENCH_TMP/tarsrc.tar
if tar -cvf "$BENCH_TARBALL" -C "$(dirname "$BENCH_TAR_DIR")" "$(basename "$BENCH_TAR_DIR")" \
	>"$BENCH_TMP/tarball.list" 2>"$BENCH_LOG/tarball.err"; then
	BENCH_TAR_ENTRIES=$(wc -l <"$BENCH_TMP/tarball.list")
else
	BENCH_TAR_ENTRIES=0
	bench_warn "cannot make a tarball of $BENCH_TAR_DIR: $(head -c 200 "$BENCH_LOG/tarball.err")"
fi
export BENCH_TARBALL BENCH_TAR_ENTRIES BENCH_TAR_DIR
info tar_dir "$BENCH_TAR_DIR"
info tar_entries "$BENCH_TAR_ENTRIES"
info tar_bytes "$(stat -c %s "$BENCH_TARBALL" 2>/dev/null || echo 0)"

# orfstf needs orfsd and the module, which orfs_start brings up (with the
# orfs mount, used or not).
if has_system orfs || has_system orfstf; then
	bench_note "loading orfs.ko, starting orfsd on $BENCH_SRV:$BENCH_ORFS_PORT, mounting $BENCH_ORFS_MNT"
	if orfs_start; then
		info orfs_mount "$ORFS_MOUNT_OPTS"
		bench_note "ORFS: $ORFS_MOUNT_OPTS"
	else
		loud "$SETUP_ERR"
		BROKEN[orfs]="ORFS setup failed: $SETUP_ERR"
		BROKEN[orfstf]=${BROKEN[orfs]}
		info orfs_mount "failed: $SETUP_ERR"
	fi
	info orfs_ko "${BENCH_KO:-}"
	info orfsd "${BENCH_ORFSD:-}"
fi

# mount_system SYSTEM WHAT LABEL OPTSVAR: unless SYSTEM is not selected or
# broken already, say "mounting WHAT" and mount it with SYSTEM_mount (which
# sets OPTSVAR to the options in effect, or SETUP_ERR); record the options
# under LABEL, or mark SYSTEM broken.
mount_system() {
	local sys=$1 what=$2 label=$3 optsvar=$4
	has_system "$sys" && [ -z "${BROKEN[$sys]:-}" ] || return 0
	bench_note "mounting $what"
	if "${sys}_mount"; then
		info "${sys}_mount" "${!optsvar}"
		bench_note "$label: ${!optsvar}"
	else
		loud "$SETUP_ERR"
		BROKEN[$sys]=$SETUP_ERR
		info "${sys}_mount" "failed: $SETUP_ERR"
	fi
}

mount_system orfstf "the same ORFS export with trusted_fabric on $BENCH_ORFSTF_MNT" \
	"ORFS trusted_fabric" ORFSTF_MOUNT_OPTS
mount_system nfs "NFS over RDMA on $BENCH_NFS_MNT" NFS NFS_MOUNT_OPTS
info setup_s $((SECONDS - T_START))

# --- the jobs ------------------------------------------------------------------------
dmesg_before=$(dmesg | wc -l)
# Every pass's raw jobs run first, before any file system job.  Run
# between two passes, they made the next pass's first job about twice as
# slow, whichever system it measured: see "seqwrite" under Caveats in
# Documentation/benchmarks.md.
if [ "${ORFS_BENCH_RAW:-1}" != 0 ]; then
	for rep in $(seq 1 "$BENCH_REPEAT"); do
		for spec in "${RAW_JOBS[@]}"; do
			run_job "$rep" raw "$spec"
		done
	done
fi
# warm_up: the first selected file system job once on every system, not
# measured (its figures go to raw/warmup.tsv, its steps to
# raw/warmup-steps.tsv).  The first file system job of a boot ran up to
# three times as slow as later runs of it, whichever system it measured
# (see "seqwrite" under Caveats in Documentation/benchmarks.md).
warm_up() {
	local spec name sys main_tsv=$BENCH_TSV main_steps=$BENCH_STEPS
	# run_job labels the runs of the warm-up as such, not as repetition 1.
	local BENCH_WARMING=1
	BENCH_TSV=$BENCH_RAW/warmup.tsv
	BENCH_STEPS=$BENCH_RAW/warmup-steps.tsv
	export BENCH_RESULTS_TSV=$BENCH_TSV BENCH_STEPS_TSV=$BENCH_STEPS
	: >"$BENCH_TSV"
	: >"$BENCH_STEPS"
	for spec in "${FS_JOBS[@]}"; do
		read -r name _ <<<"$spec"
		selected "$name" || continue
		info warmup_job "$name"
		bench_note "warm-up, not measured: $name on $BENCH_SYSTEMS"
		for sys in $BENCH_SYSTEMS; do
			system_runs "$sys" "$name" || continue
			run_job 1 "$sys" "$spec"
		done
		break
	done
	BENCH_TSV=$main_tsv
	BENCH_STEPS=$main_steps
	unset BENCH_RESULTS_TSV BENCH_STEPS_TSV
}
[ "$BENCH_WARMUP" = 0 ] || warm_up

# rotated_systems N: $BENCH_SYSTEMS rotated left by N places.
rotated_systems() {
	local -a s r
	read -r -a s <<<"$BENCH_SYSTEMS"
	local k=$(($1 % ${#s[@]}))
	r=("${s[@]:k}" "${s[@]:0:k}")
	echo "${r[*]}"
}
# Whichever system runs a job first after the previous job pays more for
# it on this emulated VM (see "seqwrite" under Caveats in
# Documentation/benchmarks.md), so by default each pass (numbered on
# across boots) starts with the next system, and each system comes first
# equally often over a number of passes that is a multiple of their count.
for rep in $(seq 1 "$BENCH_REPEAT"); do
	order=$BENCH_SYSTEMS
	[ "$BENCH_ORDER" = fixed ] ||
		order=$(rotated_systems $((BENCH_BOOT_INDEX * BENCH_REPEAT + rep - 1)))
	info "order_$rep" "$order"
	bench_note "pass $rep: systems in the order $order"
	for spec in "${FS_JOBS[@]}"; do
		read -r name _ <<<"$spec"
		selected "$name" || continue
		for sys in $order; do
			system_runs "$sys" "$name" || continue
			run_job "$rep" "$sys" "$spec"
		done
	done
done
info jobs_s $((SECONDS - T_START))

# --- teardown and checks ---------------------------------------------------------------
# Anything a job left behind (D state: stuck in the kernel).
ps -eo pid,stat,wchan:24,args | grep -E 'jobrun|fio|ib_(send|read|write)|rpcbench|meta.py|tar ' |
	grep -v grep >"$BENCH_LOG/leftovers.txt"
[ -s "$BENCH_LOG/leftovers.txt" ] &&
	bench_warn "processes left behind by jobs: $(wc -l <"$BENCH_LOG/leftovers.txt") (raw/logs/leftovers.txt)"
if has_system orfs || has_system orfstf; then
	bounded 120 orfs_stop || bench_warn "ORFS teardown did not finish"
fi
if has_system nfs; then
	bounded 120 nfs_stop || bench_warn "NFS teardown did not finish"
fi
dmesg >"$BENCH_LOG/dmesg.txt"
warn=$(tail -n +"$((dmesg_before + 1))" "$BENCH_LOG/dmesg.txt" |
	grep -cE 'WARNING:|BUG:|Oops|general protection|Call Trace|rxe_reg_fast_mr') || true
info kernel_warnings "$warn"
[ "$warn" = 0 ] || bench_warn "the kernel log has $warn warning line(s) from the run: see raw/logs/dmesg.txt"

# Raw limits and NFS/RDMA must work; ORFS jobs may fail (shown as "error").
# The event-driven ib_send_lat (*_2b_ev) is only null_rtt's second
# reference, and hangs on 6.12's rxe (benchmarks.md, Caveats): a warning.
# (awk, not read: IFS=tab would merge the empty fields of an error line.)
bad=$(awk -F'\t' '($3 == "raw" || $3 == "nfs") && $4 == "error" && $2 !~ /_2b_ev$/ {
	printf "%s on %s (rep %s): %s\n", $2, $3, $1, $10 }' "$BENCH_TSV")
while IFS= read -r line; do
	[ -n "$line" ] && loud "$line"
done <<<"$bad"
ev=$(awk -F'\t' '$3 == "raw" && $4 == "error" && $2 ~ /_2b_ev$/ { n++ } END { print n + 0 }' "$BENCH_TSV")
[ "$ev" = 0 ] || bench_warn "the event-driven ib_send_lat gave no result ($ev): null_rtt has only the busy-polling reference"
info failures "${#FAILURES[@]}"
info finished "$(date '+%Y-%m-%d %H:%M:%S')"
info total_s $((SECONDS - T_START))
sync

if [ ${#FAILURES[@]} -gt 0 ]; then
	echo "bench: ${#FAILURES[@]} step(s) that must work FAILED:" >&2
	printf 'bench:   %s\n' "${FAILURES[@]}" >&2
	exit 1
fi
exit 0
