# shellcheck shell=bash disable=SC2034 # its variables are used by the scripts that source it
# ORFS benchmark: helpers for the guest side (sourced by guest.sh and
# jobrun.sh).  See Documentation/benchmarks.md.
#
# Results are lines of $BENCH_OUT/raw/results.tsv, one per (repetition,
# metric, system), written by emit/emit_error/emit_na:
#   rep job system status value unit better rawrefs counters note
# status is ok, error or na; rawrefs is a comma-separated list of raw
# metrics the value is compared with; counters is "name=delta,..." of the rxe
# hardware counters (both devices summed) and of lo/v0/v1 tx bytes, since the
# previous emit or the start of the job, and of the host's CPU time
# (host_total_ms, host_other_ms: ctr_read_host); on an ORFS system (orfs,
# orfstf) also of the mount's own counters, as orfs_<name> (ctr_read_orfs).

BENCH_DIR=${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
BENCH_OUT=${BENCH_OUT:-${ORFS_VM_SHARE:-/tmp/orfs-bench}}
BENCH_RAW=$BENCH_OUT/raw
# The warm-up (guest.sh) writes its figures and steps elsewhere.
BENCH_TSV=${BENCH_RESULTS_TSV:-$BENCH_RAW/results.tsv}
BENCH_STEPS=${BENCH_STEPS_TSV:-$BENCH_RAW/steps.tsv}
BENCH_LOG=$BENCH_RAW/logs
BENCH_TMP=${BENCH_TMP:-/run/orfs-bench}
BENCH_SRV=${ORFS_SRV_ADDR:-192.0.2.1}
BENCH_CLI=${ORFS_CLI_ADDR:-192.0.2.2}

# Where each system lives: client mount and server-side export directory.
BENCH_ORFS_MNT=/mnt/orfs
BENCH_ORFS_EXPORT=/srv/orfs-export
# orfstf: the same orfsd and export, mounted again with trusted_fabric.
BENCH_ORFSTF_MNT=/mnt/orfstf
BENCH_NFS_MNT=/mnt/nfs
BENCH_NFS_ROOT=/srv/nfs4		# NFSv4 pseudo root (fsid=0)
BENCH_NFS_EXPORT=/srv/nfs4/export	# the export, "192.0.2.1:/export"
BENCH_NFS_PORT=20049
BENCH_ORFS_PORT=${ORFS_PORT:-20050}

bench_note() { printf 'bench: %s\n' "$*"; }
bench_warn() { printf 'bench: WARNING: %s\n' "$*" >&2; }

# size_bytes SIZE: 64M, 1G, 512K or a bare number of MiB -> bytes.
size_bytes() {
	local s=${1^^}
	case $s in
	*K) echo $((${s%K} * 1024)) ;;
	*M) echo $((${s%M} * 1024 * 1024)) ;;
	*G) echo $((${s%G} * 1024 * 1024 * 1024)) ;;
	*[!0-9]* | '') return 1 ;;
	*) echo $((s * 1024 * 1024)) ;;
	esac
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# now: seconds since boot with nanoseconds, without an exec.
now() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}
# elapsed T0: seconds since T0 (from now), 3 decimals.  Costs one awk.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# --- counters --------------------------------------------------------------
# ctr_read: the current counter values into CTR_NOW (associative).
# Both rxe devices are summed per counter name: the retry counters of
# either end mean the same thing for the figure.
declare -A CTR_NOW CTR_PREV
ctr_read() {
	local f n v dev
	CTR_NOW=()
	for f in /sys/class/infiniband/rxe*/ports/1/hw_counters/*; do
		[ -r "$f" ] || continue
		n=${f##*/}
		read -r v <"$f" || continue
		CTR_NOW[$n]=$((${CTR_NOW[$n]:-0} + v))
	done
	for dev in lo v0 v1; do
		f=/sys/class/net/$dev/statistics/tx_bytes
		[ -r "$f" ] && read -r v <"$f" && CTR_NOW[${dev}_tx_bytes]=$v
	done
	ctr_read_host
	ctr_read_guest
	ctr_read_orfs
}

# ctr_read_guest: adds the guest's CPU time (cpu_user, cpu_sys, cpu_softirq,
# cpu_idle: USER_HZ ticks of /proc/stat, all vCPUs) and the memory
# manager's reclaim and compaction work (vm_*, from /proc/vmstat).  A
# figure that cost more CPU than its like, or ran while memory was being
# reclaimed, shows it in its deltas in raw/results.tsv.
ctr_read_guest() {
	local n u ni s i io irq sirq rest
	read -r n u ni s i io irq sirq rest </proc/stat
	CTR_NOW[cpu_user]=$((u + ni))
	CTR_NOW[cpu_sys]=$((s + irq))
	CTR_NOW[cpu_softirq]=$sirq
	CTR_NOW[cpu_idle]=$((i + io))
	while read -r n u; do
		case $n in
		pgscan_kswapd | pgscan_direct | pgsteal_kswapd | pgsteal_direct | \
			compact_stall | compact_migrate_scanned | allocstall_normal | \
			allocstall_movable | pgfault | pgalloc_dma32 | pgalloc_normal | \
			pgfree | nr_free_pages)
			CTR_NOW[vm_$n]=$u ;;
		esac
	done </proc/vmstat
}

# ctr_read_host: adds host_total_ms and host_other_ms, the host's CPU time
# that passed and the part of it that processes other than this VM used,
# kept by run.sh's monitor (hostmon.py) in $BENCH_RAW/host_cpu.  Under TCG
# the guest's CPUs are host threads: other work on the host slows them,
# and nothing inside the guest can tell.
ctr_read_host() {
	local n v
	[ -r "$BENCH_RAW/host_cpu" ] || return 0
	while read -r n v; do
		[[ $n == host_*_ms && $v =~ ^[0-9]+$ ]] && CTR_NOW[$n]=$v
	done <"$BENCH_RAW/host_cpu"
}

# mount_dev MNT [FSTYPE]: the maj:min of the mount on MNT, nothing if
# there is none (or it is not of type FSTYPE).  From mountinfo, not from a
# stat of the mount, which can hang when the server is gone.
mount_dev() {
	# mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE ...;
	# the last mount on MNT is the one that is seen.
	awk -v m="$1" -v t="${2:-}" '$5 == m {
		for (i = 7; i < NF; i++) if ($i == "-") { d = t == "" || $(i + 1) == t ? $3 : ""; break }
	} END { print d }' /proc/self/mountinfo
}

# orfs_mount_dev MNT: the maj:min of the ORFS mount on MNT (which names
# /sys/fs/orfs/<maj:min>/), nothing if MNT is no ORFS mount.
orfs_mount_dev() { mount_dev "$1" orfs; }

# ctr_read_orfs: adds the counters of the ORFS mount of BENCH_SYS
# (/sys/fs/orfs/<maj:min>/counters, "name value" lines) to CTR_NOW as
# orfs_<name>: how the data moved (bytes_page_list: by trusted_fabric page
# list).  The mounts the regcache_reuse and ogr jobs make themselves are not
# counted.
ctr_read_orfs() {
	local mnt dev n v
	case ${BENCH_SYS:-} in
	orfs) mnt=$BENCH_ORFS_MNT ;;
	orfstf) mnt=$BENCH_ORFSTF_MNT ;;
	*) return 0 ;;
	esac
	dev=$(orfs_mount_dev "$mnt")
	[ -n "$dev" ] && [ -r "/sys/fs/orfs/$dev/counters" ] || return 0
	while read -r n v; do
		[[ $v =~ ^[0-9]+$ ]] && CTR_NOW[orfs_$n]=$v
	done <"/sys/fs/orfs/$dev/counters"
}
ctr_snapshot() {
	local k
	ctr_read
	CTR_PREV=()
	for k in "${!CTR_NOW[@]}"; do CTR_PREV[$k]=${CTR_NOW[$k]}; done
}
# ctr_delta: sets CTR_DELTA to "name=delta,..." since the last snapshot and
# takes a new one (not in a subshell: it updates CTR_PREV).
ctr_delta() {
	local k out=
	ctr_read
	for k in $(printf '%s\n' "${!CTR_NOW[@]}" | LC_ALL=C sort); do
		out+="${out:+,}$k=$((CTR_NOW[$k] - ${CTR_PREV[$k]:-0}))"
	done
	CTR_PREV=()
	for k in "${!CTR_NOW[@]}"; do CTR_PREV[$k]=${CTR_NOW[$k]}; done
	CTR_DELTA=$out
}

# --- results ---------------------------------------------------------------
# BENCH_REP and BENCH_SYS are set by the driver for each job.
_emit_line() { # STATUS METRIC VALUE UNIT BETTER RAWREFS NOTE
	local note=${7//$'\t'/ }
	note=${note//$'\n'/ }
	# EMIT_KEEP=1: a figure derived from the same measurement as the
	# previous one gets the same counter deltas.
	[ "${EMIT_KEEP:-0}" = 1 ] || ctr_delta
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${BENCH_REP:-1}" "$2" \
		"${BENCH_SYS:-?}" "$1" "$3" "$4" "$5" "$6" "$CTR_DELTA" "$note" >>"$BENCH_TSV"
}

# emit METRIC VALUE UNIT higher|lower [RAWREF...]: a measured figure.
# RAWREFs name raw metrics (system "raw") it is compared with.
emit() {
	local m=$1 v=$2 u=$3 b=$4
	shift 4
	local refs=$*
	bench_note "  $BENCH_SYS $m = $v $u"
	_emit_line ok "$m" "$v" "$u" "$b" "${refs// /,}" "${EMIT_NOTE:-}"
}
# emit_error METRIC REASON: the step failed; shown as "error".
emit_error() {
	bench_note "  $BENCH_SYS $1 = error: $2"
	_emit_line error "$1" "" "" "" "" "$2"
}
# emit_na METRIC REASON: does not apply to this system; shown as "n/a".
emit_na() {
	bench_note "  $BENCH_SYS $1 = n/a: $2"
	_emit_line na "$1" "" "" "" "" "$2"
}

# emitted METRIC: true if this repetition already has a line for METRIC on
# this system.
emitted() {
	[ -f "$BENCH_TSV" ] || return 1
	awk -F'\t' -v r="${BENCH_REP:-1}" -v m="$1" -v s="${BENCH_SYS:-?}" \
		'$1 == r && $2 == m && $3 == s { f = 1 } END { exit !f }' "$BENCH_TSV"
}

# cm_listens ADDR:PORT: an rdma_cm listener is up there (orfsd, rpcbench).
cm_listens() {
	rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr $1"
}

# --- steps with deadlines ----------------------------------------------------
# to SECS CMD...: CMD with a deadline inside a job: TERM, KILL 10 s later;
# status 124/137 when it timed out.  --foreground keeps CMD in the job's
# process group, so that the job's own deadline (run_job) kills it too.
to() {
	local t=$1
	shift
	timeout --foreground -k 10 "$t" "$@"
}

# --- fio -----------------------------------------------------------------------
# fio_job NAME JOBFILE: runs tools/bench/fio/JOBFILE (which expands the
# exported BENCH_* variables) with JSON output in the log directory.  On
# success sets FIO_OUT to parse.py's "key=value" lines; on failure (fio's
# status, or an error in the JSON) sets FIO_ERR and returns non-zero.
# Call it directly, not in $(...): it sets variables.
fio_job() {
	local name=$1 jf=$BENCH_DIR/fio/$2 json rc
	json=$BENCH_LOG/${BENCH_SYS}-${name}-r${BENCH_REP:-1}.json
	FIO_OUT='' FIO_ERR=''
	fio --output-format=json --output="$json" "$jf" >"$json.stderr" 2>&1
	rc=$?
	FIO_OUT=$(python3 "$BENCH_DIR/parse.py" fio "$json" 2>>"$json.stderr")
	if [ $rc -eq 0 ] && [ -n "$FIO_OUT" ] && [ "$(kv error "$FIO_OUT")" = 0 ]; then
		return 0
	fi
	FIO_ERR=$(grep -v '^ *$' "$json.stderr" | tail -n 2 | tr '\n' ' ')
	FIO_ERR="fio exit $rc: ${FIO_ERR:-error $(kv error "$FIO_OUT") in the JSON}"
	FIO_ERR=${FIO_ERR:0:240}
	return $((rc ? rc : 1))
}

# kv KEY TEXT: the value of "KEY=value" in TEXT (lines).
kv() { sed -n "s/^$1=//p" <<<"$2" | head -n 1; }

# orfs_param NAME VALUE: set a parameter of the loaded orfs.ko.
orfs_param() { echo "$2" >"/sys/module/orfs/parameters/$1"; }

# orfs_param_defaults: the O_DIRECT parameters that jobs change (ogr,
# direct_inline, direct_push) back to their defaults.
orfs_param_defaults() {
	orfs_param ogr Y
	orfs_param direct_inline Y
	orfs_param direct_push Y
}

# ratio A B: A / B with three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# min_of X...: the smallest of the numbers given; nothing for none.
min_of() { printf '%s\n' "$@" | grep . | sort -g | head -n 1; }

# median X...: the median of the numbers (the mean of the middle two for an
# even count), with three decimals; nothing for no numbers.
median() {
	printf '%s\n' "$@" | grep . | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# --- one job under a deadline -------------------------------------------------------
# The job runs as jobrun.sh under coreutils timeout (TERM, then KILL, to the
# whole process group).  A process stuck in the kernel (D state) survives
# KILL, and timeout then waits for it forever: a watchdog kills timeout
# itself 30 s later, the job is left behind, and the system is marked broken
# (its remaining jobs are recorded as errors without running).
# watchdog_init: fd 9, a FIFO nobody writes, on which the watchdog waits
# with read -t (a builtin: killing the watchdog leaves no sleep behind).
watchdog_init() {
	local fifo=$BENCH_TMP/watchdog.fifo
	rm -f "$fifo"
	mkfifo "$fifo" && exec 9<>"$fifo"
}

# bounded SECS CMD...: CMD in the background; given up (KILL, and left
# behind if it is stuck in the kernel) after SECS.  For the teardown, where
# an unmount of a dead mount can block for ever.
bounded() {
	local t=$1 p w rc
	shift
	"$@" &
	p=$!
	(read -r -t "$t" -u 9; kill -KILL "$p" 2>/dev/null) &
	w=$!
	wait "$p"
	rc=$?
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	return $rc
}

# run_job REP SYSTEM "NAME [METRIC...]": runs job_NAME on SYSTEM, records
# "error" for each METRIC it did not report.  Uses BROKEN (associative,
# system -> reason) and BENCH_STEP_TIMEOUT from the driver.
run_job() {
	local rep=$1 sys=$2 name metrics m pid wd mon kids rc t0 why=''
	read -r name metrics <<<"$3"
	metrics=${metrics:-$name}
	export BENCH_REP=$rep BENCH_SYS=$sys
	# check_system (setup.sh, when sourced) notices a dead server or mount.
	if [ -z "${BROKEN[$sys]:-}" ] && declare -F check_system >/dev/null &&
		! check_system "$sys"; then
		BROKEN[$sys]=$SETUP_ERR
		bench_warn "$sys: $SETUP_ERR"
	fi
	if [ -n "${BROKEN[$sys]:-}" ]; then
		for m in $metrics; do emitted "$m" || emit_error "$m" "not run: ${BROKEN[$sys]}"; done
		return
	fi
	if [ -n "${BENCH_WARMING:-}" ]; then
		bench_note "[warm-up, not measured] $name on $sys"
	else
		bench_note "[rep $rep/$BENCH_REPEAT] $name on $sys"
	fi
	t0=$SECONDS
	ctr_snapshot	# for the deltas of the errors recorded here, below
	timeout -k 10 "$BENCH_STEP_TIMEOUT" bash "$BENCH_DIR/jobrun.sh" "$name" "$sys" &
	pid=$!
	(read -r -t $((BENCH_STEP_TIMEOUT + 30)) -u 9; kill -KILL "$pid" 2>/dev/null) &
	wd=$!
	mon=''
	if declare -F system_monitor >/dev/null; then
		system_monitor "$sys" "$pid" &
		mon=$!
	fi
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null
	if [ -n "$mon" ]; then
		kids=$(pgrep -P "$mon")
		kill "$mon" $kids 2>/dev/null
		wait "$mon" 2>/dev/null
	fi
	# A dead server explains a failed job better than its exit status.
	if [ "$rc" != 0 ] && declare -F check_system >/dev/null && ! check_system "$sys"; then
		why=$SETUP_ERR
		BROKEN[$sys]=$SETUP_ERR
		rc=-1
	fi
	case $rc in
	0 | -1) ;;
	124 | 137)
		why="timed out after ${BENCH_STEP_TIMEOUT}s"
		# The watchdog fired, or something of the job's process group
		# is left (stuck in the kernel)?
		if [ $((SECONDS - t0)) -ge $((BENCH_STEP_TIMEOUT + 30)) ] ||
			pgrep -g "$pid" >/dev/null; then
			BROKEN[$sys]="$name on $sys hung in the kernel (unkillable after ${BENCH_STEP_TIMEOUT}s)"
			bench_warn "${BROKEN[$sys]}"
		fi
		;;
	*) why="job exited with status $rc" ;;
	esac
	for m in $metrics; do
		emitted "$m" || emit_error "$m" "${why:-job reported nothing}"
	done
	printf '%s\t%s\t%s\t%s\t%s\n' "$rep" "$name" "$sys" $((SECONDS - t0)) "$rc" >>"$BENCH_STEPS"
}
