# shellcheck shell=bash disable=SC2034 # the lists and EMIT_NOTE are read elsewhere
# ORFS benchmark: the jobs (sourced by guest.sh and jobrun.sh).
#
# A job is a function job_NAME SYSTEM MNT SRVDIR plus one line in RAW_JOBS
# (raw rxe limits, SYSTEM "raw", no MNT/SRVDIR) or FS_JOBS (run once per file
# system: SYSTEM "orfs", "orfstf" or "nfs", MNT the client mount, SRVDIR the
# same directory seen locally on the server side, a tmpfs).  orfstf is the
# orfs server and export mounted a second time with trusted_fabric: it
# runs only the jobs SYSTEM_JOBS lists for it, and its files share SRVDIR
# with orfs's (a job that writes puts SYSTEM in the file name).
#
# The list line is "NAME [METRIC...]": the metrics the job reports (default:
# NAME).  The driver uses them to record "error" for whatever a job that
# died or timed out did not report.
#
# A job reports with emit METRIC VALUE UNIT higher|lower [RAWREF...],
# emit_error METRIC REASON or emit_na METRIC REASON (tools/bench/lib.sh).
# RAWREFs are raw metrics the figure is divided by in the table.  Each job
# runs in its own process under a deadline (ORFS_BENCH_STEP_TIMEOUT); it
# should clean up what it created, on success and on failure.
#
# Sizes and counts come from the environment: BENCH_SIZE (bytes),
# BENCH_FILES, BENCH_RUNTIME, BENCH_RAND_RUNTIME, BENCH_PINGS, BENCH_TARBALL,
# BENCH_TAR_ENTRIES (set by guest.sh from the ORFS_BENCH_* knobs).

RAW_JOBS=(
	"raw_lat	ib_send_lat_2b raw_rtt_2b ib_send_lat_4k raw_rtt_rate_4k ib_send_lat_2b_ev raw_rtt_2b_ev"
	"raw_read_bw	ib_read_bw_4k ib_read_bw_1m ib_read_bw_1m_q2"
	"raw_write_bw	ib_write_bw_4k ib_write_bw_1m ib_write_bw_1m_q2"
	"raw_rpc	rpc_read_4k_qd1 rpc_read_4k_qd16 rpc_write_4k_qd16 rpc_send_4k_qd16"
)

FS_JOBS=(
	"seqwrite"
	"seqread"
	"seqread_ra4m"
	"randread"
	"meta		meta_create meta_stat meta_unlink"
	"tar_x"
	"tar_c"
	"null_rtt	null_rtt null_rtt_poll"
	"prim		prim_read prim_write"
	"direct		d_randread_qd1 d_randread_qd16 d_randwrite_qd16 d_seqread d_seqwrite"
	"regcache_reuse	regcache_reuse_dynamic_r20 regcache_reuse_pindown_r20 regcache_reuse_fmrd_r20 regcache_reuse_dynamic_r80 regcache_reuse_pindown_r80 regcache_reuse_fmrd_r80"
	"ogr		ogr_individual ogr_grouped"
	"connect	connect_mount"
)

# The FS_JOBS a system runs, for a system that does not run them all
# (system_runs).  trusted_fabric changes only the buffered data path
# (O_DIRECT, metadata, OGR and the registration modes are the same as on
# orfs), so orfstf runs the buffered fio jobs.
declare -gA SYSTEM_JOBS=(
	[orfstf]="seqwrite seqread randread"
)

# system_runs SYSTEM JOBNAME: true if SYSTEM runs the FS_JOBS job JOBNAME.
system_runs() {
	local l=${SYSTEM_JOBS[$1]-all}
	[ "$l" = all ] || [[ " $l " == *" $2 "* ]]
}

# --- raw rxe limits -------------------------------------------------------------

# perf_pair TOOL OUT ARGS...: perftest server on rxe0, client on rxe1 to
# the server's address; the client's output in OUT.  Extra arguments for
# both: ORFS_BENCH_PERFTEST_ARGS.  Server and client are pinned to different
# vCPUs: two busy-polling processes that the guest scheduler puts on one
# vCPU take turns at each 4 ms tick, and the latency jumps from ~25 us to
# ~4000 us.  A random port: a pair left over from a killed job cannot
# answer the next one.  A pair that fails (typically one that stalled in
# rxe's RC retries until the 60 s limit) runs once more, with a warning:
# the raw limits are the reference every ratio needs.
perf_pair() {
	perf_pair_once "$@" && return 0
	bench_warn "$PERF_ERR: running it once more"
	perf_pair_once "$@"
}

# pair_pins: PIN0 and PIN1, the command prefixes that put a pair's server
# and client on vCPUs 0 and 1 (see perf_pair); empty on one vCPU.
pair_pins() {
	PIN0='' PIN1=''
	if [ "$(nproc)" -ge 2 ]; then
		PIN0="taskset -c 0" PIN1="taskset -c 1"
	fi
}

# pair_wait SPID TENTHS CHECK...: waits until CHECK succeeds (the pair's
# server listens), the server SPID exits, or TENTHS tenths of a second
# have passed.  The client then finds out which.
pair_wait() {
	local spid=$1 n=$2
	shift 2
	for _ in $(seq 1 "$n"); do
		"$@" && return
		kill -0 "$spid" 2>/dev/null || return
		sleep 0.1
	done
}

tcp_listens() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

perf_pair_once() {
	local tool=$1 out=$2 spid rc port=$((30000 + RANDOM % 10000))
	shift 2
	pair_pins
	# shellcheck disable=SC2086 # word splitting of pin and extra arguments
	to 60 $PIN0 "$tool" -d rxe0 -F -p $port "$@" ${ORFS_BENCH_PERFTEST_ARGS:-} \
		>"$out.server" 2>&1 &
	spid=$!
	pair_wait $spid 150 tcp_listens $port
	# shellcheck disable=SC2086
	to 60 $PIN1 "$tool" -d rxe1 -F -p $port "$@" ${ORFS_BENCH_PERFTEST_ARGS:-} \
		"$BENCH_SRV" >"$out" 2>&1
	rc=$?
	wait $spid || { [ $rc != 0 ] || rc=1; }
	if [ $rc -ne 0 ]; then
		PERF_ERR="$tool $*: exit $rc: $(tail -n 2 "$out" | tr '\n' ' ')"
		return 1
	fi
}

# perf_twice OUT WHY CMD...: CMD, and if it gives no usable result, warn
# "WHY: running it once more" and run it again, keeping the first try's
# output as OUT.try1.  perf_pair already reruns a pair that fails; this
# also catches a run that exits 0 with a result that is no result.
perf_twice() {
	local out=$1 why=$2
	shift 2
	"$@" && return 0
	bench_warn "$why: running it once more"
	cp "$out" "$out.try1" 2>/dev/null
	"$@"
}

# raw_lat_once OUT SIZE COUNT [-e]: one ib_send_lat run with a finite
# result, parsed into the caller's r.
raw_lat_once() {
	# shellcheck disable=SC2086 # the optional -e
	perf_pair ib_send_lat "$1" -s "$2" -n "$3" ${4:-} &&
		r=$(python3 "$BENCH_DIR/parse.py" perftest "$1" lat)
}

# ib_send_lat, 2 B and 4 KiB, busy-polling (the raw limit) and, for 2 B,
# event-driven (-e: the process sleeps on a completion channel and is woken
# by an interrupt, as a kernel client is).  The latency is perftest's
# t_typical (the median): with retransmissions in a run, t_avg is dominated
# by the few 67 ms retry timeouts.  ib_send_lat reports half a round trip.
job_raw_lat() {
	local s mode out r lat n=2000 why tag
	for s in 2 4096 2e; do
		mode=
		case $s in
		2) tag=2b ;;
		4096) tag=4k ;;
		2e) tag=2b_ev s=2 mode=-e ;;
		esac
		out=$BENCH_LOG/raw-ib_send_lat-$tag-r$BENCH_REP.txt
		if perf_twice "$out" "ib_send_lat $s B: no (or no finite) result" \
			raw_lat_once "$out" $s $n $mode; then
			lat=$(kv t_typical "$r")
			EMIT_NOTE="one-way (half round trip) median of $n; mean $(kv t_avg "$r") us, max $(kv t_max "$r") us"
			emit ib_send_lat_$tag "$lat" us lower
			EMIT_NOTE=
			case $tag in
			2b | 2b_ev)
				EMIT_KEEP=1 EMIT_NOTE="2 x ib_send_lat_$tag" \
					emit raw_rtt_$tag "$(awk -v a="$lat" 'BEGIN { printf "%.2f", 2 * a }')" us lower ;;
			4k)
				EMIT_KEEP=1 EMIT_NOTE="1e6 / (2 x ib_send_lat_4k)" \
					emit raw_rtt_rate_4k "$(awk -v a="$lat" 'BEGIN { printf "%.1f", 1e6 / (2 * a) }')" ops/s higher ;;
			esac
		else
			why=${PERF_ERR:-no result in $out}
			emit_error ib_send_lat_$tag "$why"
			case $tag in
			2b | 2b_ev) EMIT_KEEP=1 emit_error raw_rtt_$tag "$why" ;;
			4k) EMIT_KEEP=1 emit_error raw_rtt_rate_4k "$why" ;;
			esac
		fi
	done
}

# raw_bw_once TOOL OUT SIZE COUNT QPS: one run with a non-zero result,
# parsed into the caller's r.
raw_bw_once() {
	perf_pair "$1" "$2" -s "$3" -n "$4" -q "$5" &&
		r=$(python3 "$BENCH_DIR/parse.py" perftest "$2" bw) &&
		[ "$(kv bw_avg "$r")" != 0.00 ]
}

# raw_bw TOOL: 4 KiB and 1 MiB messages on one QP, about 20 MiB and 100
# MiB, and 1 MiB messages on two QPs (_q2: 100 each), the raw limit of the
# two connections an ORFS mount has by default (nconnect=2 on two vCPUs;
# NFS/RDMA's mount has one).  The guest's RPS puts each QP's flows on a
# vCPU it picks by hash; perftest, unlike ORFS (spread_tries), does not
# steer them apart, so in some boots _q2 has both QPs on one vCPU.  A run that exits 0 with a zero bandwidth (perftest does,
# now and then, under emulation) is run once more (perf_twice).
raw_bw() {
	local tool=$1 spec s n q out r tag
	for spec in "4096 5000 1 4k" "1048576 100 1 1m" "1048576 100 2 1m_q2"; do
		read -r s n q tag <<<"$spec"
		out=$BENCH_LOG/raw-$tool-$tag-r$BENCH_REP.txt
		if perf_twice "$out" "$tool $tag: no (or a zero) result" \
			raw_bw_once "$tool" "$out" $s $n $q; then
			EMIT_NOTE="perftest BW average, $q QP x $n x $s B; peak $(kv bw_peak "$r")" \
				emit "${tool}_$tag" "$(kv bw_avg "$r")" MiB/s higher
		else
			emit_error "${tool}_$tag" "${PERF_ERR:-no (or a zero) result in $out}"
		fi
	done
}
job_raw_read_bw() { raw_bw ib_read_bw; }
job_raw_write_bw() { raw_bw ib_write_bw; }

# raw_rpc: the message pattern of an O_DIRECT 4 KiB read or write on an
# RDMA file system (request SEND; server RDMA WRITE into, or RDMA READ from,
# the client's registered buffer; reply SEND) between two processes with
# nothing else (tools/bench/rpcbench.c); rpc_send_* is a write whose data
# rides in the request SEND, as ORFS's small O_DIRECT writes do (the NFS
# client's go by the server's RDMA READ).  Buffers registered once, both
# busy-polling, the two pinned to different vCPUs as perf_pair's are.
# perftest times one operation kind at a time; this is the raw limit the
# d_randread_* and d_randwrite_* jobs are divided by.
rpc_pair() { # OUT read|write|send SIZE DEPTH COUNT
	local out=$1 port=$((30000 + RANDOM % 10000)) spid rc
	shift
	pair_pins
	# shellcheck disable=SC2086 # word splitting of pin
	to 60 $PIN0 "$BENCH_TMP/rpcbench" server "$BENCH_SRV" $port >"$out.server" 2>&1 &
	spid=$!
	pair_wait $spid 50 cm_listens "$BENCH_SRV:$port"
	# shellcheck disable=SC2086
	to 60 $PIN1 "$BENCH_TMP/rpcbench" client -S "$BENCH_CLI" "$BENCH_SRV" $port "$@" >"$out" 2>&1
	rc=$?
	wait $spid || { [ $rc != 0 ] || rc=1; }
	[ $rc = 0 ] || PERF_ERR="rpcbench $*: exit $rc: $(tail -n 2 "$out" "$out.server" | tr '\n' ' ')"
	return $rc
}
job_raw_rpc() {
	local spec name mode qd count out r
	if ! gcc -O2 -Wall -o "$BENCH_TMP/rpcbench" "$BENCH_DIR/rpcbench.c" -lrdmacm -libverbs \
		2>"$BENCH_TMP/rpcbench.err"; then
		for name in rpc_read_4k_qd1 rpc_read_4k_qd16 rpc_write_4k_qd16 rpc_send_4k_qd16; do
			emit_error $name "cannot build rpcbench: $(head -c 200 "$BENCH_TMP/rpcbench.err")"
		done
		return
	fi
	for spec in "rpc_read_4k_qd1 read 1 3000" "rpc_read_4k_qd16 read 16 10000" \
		    "rpc_write_4k_qd16 write 16 10000" "rpc_send_4k_qd16 send 16 10000"; do
		read -r name mode qd count <<<"$spec"
		out=$BENCH_LOG/raw-$name-r$BENCH_REP.txt
		if perf_twice "$out" "rpcbench $name: no result" \
			rpc_pair "$out" "$mode" 4k "$qd" "$count"; then
			r=$(tr ' ' '\n' <"$out")
			EMIT_NOTE="$count x 4 KiB $mode, $qd in flight; p50 $(kv lat_us_p50 "$r") us"
			case $name in
			*qd1) emit $name "$(kv lat_us_mean "$r")" us lower ;;
			*) emit $name "$(kv ops_per_s "$r")" ops/s higher ;;
			esac
			EMIT_NOTE=
		else
			emit_error $name "${PERF_ERR:-no result in $out}"
		fi
	done
}

# --- file system jobs -------------------------------------------------------------

# server_file SRVDIR: the read jobs' input file, written on the server side
# (so it is in the server's memory, the export being a tmpfs, and not in the
# client's page cache).  Made once per boot; orfs and orfstf read the same
# file (read only), so they read the same bytes.
server_file() {
	local f=$1/bench-read.dat
	if [ "$(stat -c %s "$f" 2>/dev/null)" != "$BENCH_SIZE" ]; then
		rm -f "$f"
		dd if=/dev/urandom of="$f" bs=1M count=$((BENCH_SIZE / 1048576)) \
			status=none || return 1
	fi
	echo "$f"
}

# server_cold FILE: the server side's cache of FILE (given by its server
# path) is dropped before the next read through the mount.  orfsd keeps a
# block cache of what clients read and drops a file's blocks when the
# file's ctime moved behind its back (Documentation/admin-guide.md,
# "Memory"): a touch makes every system's read job start with a server
# that has not cached the file, as the first one to read it after
# server_file does, instead of finding what the system before it (orfs
# before orfstf, on the same orfsd) left there.  nfsd on tmpfs keeps no
# copy of its own: the touch makes no difference to NFS.
server_cold() { touch -c "$1"; }

job_seqwrite() {
	local sys=$1 mnt=$2 f out
	f=$mnt/bench-seqwrite-$sys.dat	# orfs and orfstf share the export
	to 60 rm -f "$f"
	drop_caches
	export BENCH_FILE=$f
	if fio_job seqwrite seqwrite.fio; then
		out=$FIO_OUT
		[ "$(kv write_bytes "$out")" = "$BENCH_SIZE" ] ||
			EMIT_NOTE="only $(kv write_bytes "$out") bytes in the ${BENCH_RUNTIME}s cap"
		emit seqwrite "$(kv write_mibs "$out")" MiB/s higher ib_write_bw_1m ib_write_bw_1m_q2
		EMIT_NOTE=
	else
		emit_error seqwrite "$FIO_ERR"
	fi
	to 60 rm -f "$f"
}

# seqread_run METRIC SRVDIR MNT [NOTE]: the seqread fio job, reported as METRIC.
seqread_run() {
	local metric=$1 srv=$2 mnt=$3 note=${4:-} f out
	f=$(server_file "$srv") || { emit_error "$metric" "cannot write the input file on the server"; return; }
	server_cold "$f"
	drop_caches
	export BENCH_FILE=$mnt/${f##*/}
	if fio_job "$metric" seqread.fio; then
		out=$FIO_OUT
		[ "$(kv read_bytes "$out")" = "$BENCH_SIZE" ] ||
			note="${note:+$note; }only $(kv read_bytes "$out") bytes in the ${BENCH_RUNTIME}s cap"
		EMIT_NOTE=$note emit "$metric" "$(kv read_mibs "$out")" MiB/s higher ib_read_bw_1m ib_write_bw_1m ib_read_bw_1m_q2
		EMIT_NOTE=
	else
		emit_error "$metric" "$FIO_ERR"
	fi
}

job_seqread() { seqread_run seqread "$3" "$2"; }

# bdi_of MNT: the sysfs directory of the mount's BDI (ORFS names its own
# orfs-MAJ:MIN, NFS MAJ:MIN), where its readahead window is set.
bdi_of() {
	local dev b
	dev=$(mount_dev "$1")
	[ -n "$dev" ] || return 1
	for b in "/sys/class/bdi/orfs-$dev" "/sys/class/bdi/$dev"; do
		[ -e "$b/read_ahead_kb" ] && { echo "$b"; return 0; }
	done
	return 1
}

# seqread_ra4m: seqread with the same 4 MiB readahead window on every system
# (read_ahead_kb of the mount's BDI, restored afterwards).  By default
# ORFS's window is rsize, one READ (1 MiB), and NFS's the kernel's default
# (128 KiB); fio's POSIX_FADV_SEQUENTIAL doubles either.
job_seqread_ra4m() {
	local sys=$1 mnt=$2 srv=$3 b ra
	b=$(bdi_of "$mnt") || { emit_error seqread_ra4m "no BDI in /sys/class/bdi for $mnt"; return; }
	ra=$(cat "$b/read_ahead_kb")
	echo 4096 >"$b/read_ahead_kb" || { emit_error seqread_ra4m "cannot set $b/read_ahead_kb"; return; }
	seqread_run seqread_ra4m "$srv" "$mnt" "read_ahead_kb 4096 (default $ra)"
	echo "$ra" >"$b/read_ahead_kb" || bench_warn "could not restore $b/read_ahead_kb=$ra"
}

job_randread() {
	local sys=$1 mnt=$2 srv=$3 f out
	f=$(server_file "$srv") || { emit_error randread "cannot write the input file on the server"; return; }
	server_cold "$f"
	drop_caches
	export BENCH_FILE=$mnt/${f##*/}
	if fio_job randread randread.fio; then
		out=$FIO_OUT
		EMIT_NOTE="$(kv read_bytes "$out") bytes in $(kv read_runtime_s "$out") s" \
			emit randread "$(kv read_iops "$out")" ops/s higher raw_rtt_rate_4k
	else
		emit_error randread "$FIO_ERR"
	fi
}

# O_DIRECT through libaio (tools/bench/fio/direct.fio): 4 KiB random reads
# at depth 1 (mean latency) and 16, random writes at depth 16, and 1 MiB
# sequential reads and writes at depth 4.
job_direct() {
	local sys=$1 mnt=$2 srv=$3 f out spec name rw bs qd metric
	f=$(server_file "$srv") || {
		for name in d_randread_qd1 d_randread_qd16 d_randwrite_qd16 d_seqread d_seqwrite; do
			emit_error $name "cannot write the input file on the server"
		done
		return
	}
	export BENCH_FILE=$mnt/${f##*/}
	# The defaults, whatever an interrupted ogr job left behind.
	[ "$sys" != orfs ] || orfs_param_defaults
	for spec in "d_randread_qd1 randread 4k 1" "d_randread_qd16 randread 4k 16" \
		    "d_randwrite_qd16 randwrite 4k 16" "d_seqread read 1m 4" \
		    "d_seqwrite write 1m 4"; do
		read -r name rw bs qd <<<"$spec"
		export BENCH_RW=$rw BENCH_BS=$bs BENCH_QD=$qd
		drop_caches
		if ! fio_job "$name" direct.fio; then
			emit_error "$name" "$FIO_ERR"
			continue
		fi
		out=$FIO_OUT
		case $name in
		d_randread_qd1)
			EMIT_NOTE="$(kv read_iops "$out") ops/s" \
				emit $name "$(kv read_lat_us "$out")" us lower rpc_read_4k_qd1 raw_rtt_2b ;;
		d_randread_qd16)
			emit $name "$(kv read_iops "$out")" ops/s higher rpc_read_4k_qd16 raw_rtt_rate_4k ;;
		d_randwrite_qd16)
			emit $name "$(kv write_iops "$out")" ops/s higher rpc_send_4k_qd16 \
				rpc_write_4k_qd16 raw_rtt_rate_4k ;;
		d_seqread)
			emit $name "$(kv read_mibs "$out")" MiB/s higher ib_write_bw_1m ;;
		d_seqwrite)
			emit $name "$(kv write_mibs "$out")" MiB/s higher ib_write_bw_1m ;;
		esac
	done
}

# [Wu04, Figure 4.4] (Documentation/bibliography.md): O_DIRECT writes of
# 16 KiB (small, so that registration costs show next to the data
# transfer) from a pool of 1000 buffers, a registration cache of 100, 20%
# and 80% buffer reuse, in each registration mode.  Each time is divided by a reference: a run with
# registration already done (one buffer, registered once and then found in
# the cache), the faster of pindown's and fmrd's in the same round; dynamic
# mode registers on every write, so its own one-buffer run is no such
# reference (it is shown in the note).  The three modes are mounted side
# by side and their runs alternate, REUSE_ROUNDS rounds, each in another
# order; each figure is the median over the rounds, as the VM's speed
# drifts between minutes.  2000 writes per run, ORFS only.
REUSE_ROUNDS=5
reuse_run() { # BIN DIR BUFFERS REUSE -> seconds
	local out
	out=$(to 300 "$1" "$2/regcache_reuse" "$3" 100 "$4" 2000 16384 2>&1) || return 0
	kv seconds "${out// /$'\n'}"
}
job_regcache_reuse() {
	local sys=$1 mnt=$2 srv=$3 mode r m=/mnt/orfs-reuse bin=$BENCH_TMP/regcache_reuse t ref i k dev
	local -a modes=(dynamic pindown fmrd) order
	local -A one=() ratios=() err=() ctrs=()
	if [ "$sys" != orfs ]; then
		for mode in "${modes[@]}"; do
			for r in 20 80; do
				emit_na regcache_reuse_${mode}_r$r "registration modes are ORFS's"
			done
		done
		return
	fi
	gcc -O2 -o "$bin" "$BENCH_DIR/regcache_reuse.c" 2>"$BENCH_TMP/regcache_reuse.err" || {
		for mode in "${modes[@]}"; do
			for r in 20 80; do emit_error regcache_reuse_${mode}_r$r "cannot build regcache_reuse"; done
		done
		return
	}
	# 16 KiB writes would otherwise be pushed by the client, unregistered.
	orfs_param direct_push N
	# One connection per mode: the registration cache is per connection,
	# and the figure compares the modes, not how buffers spread over two.
	for mode in "${modes[@]}"; do
		mkdir -p $m-$mode
		if ! to 120 mount -t orfs -o "soft,nconnect=1,regcache=$mode,regcache_entries=100" \
			"$BENCH_SRV:/" $m-$mode 2>"$BENCH_TMP/regcache_reuse.err"; then
			for r in 20 80; do err[$mode$r]="mount: $(head -c 200 "$BENCH_TMP/regcache_reuse.err")"; done
			continue
		fi
		reuse_run "$bin" $m-$mode 1 100 >/dev/null	# warm-up
	done
	for ((i = 0; i < REUSE_ROUNDS; i++)); do
		k=$((i % ${#modes[@]}))
		order=("${modes[@]:k}" "${modes[@]:0:k}")
		local -A secs=()
		for mode in "${order[@]}"; do
			mountpoint -q $m-$mode || continue
			secs[${mode}1]=$(reuse_run "$bin" $m-$mode 1 100)
			for r in 20 80; do
				secs[$mode$r]=$(reuse_run "$bin" $m-$mode 1000 $r)
			done
		done
		ref=$(min_of "${secs[pindown1]:-}" "${secs[fmrd1]:-}")
		[ -n "$ref" ] || continue
		for mode in "${modes[@]}"; do
			one[$mode]+="${secs[${mode}1]:-?} "
			for r in 20 80; do
				t=${secs[$mode$r]:-}
				[ -n "$t" ] || continue
				ratios[$mode$r]+="$(ratio "$t" "$ref") "
			done
		done
	done
	orfs_param_defaults
	for mode in "${modes[@]}"; do
		rm -f $m-$mode/regcache_reuse
		# The result columns show the main mount's counters: this
		# mount's registration counters go in the note.
		dev=$(orfs_mount_dev $m-$mode)
		[ -n "$dev" ] && ctrs[$mode]=$(grep -E \
			'^(mr_registrations|regcache_hits|regcache_misses|regcache_dereg_batches) ' \
			"/sys/fs/orfs/$dev/counters" 2>/dev/null | tr ' \n' '= ')
		mountpoint -q $m-$mode && { to 60 umount $m-$mode || to 30 umount -f $m-$mode; }
		for r in 20 80; do
			k=$mode$r
			if [ -n "${err[$k]:-}" ]; then
				emit_error regcache_reuse_${mode}_r$r "${err[$k]}"
			elif [ -z "${ratios[$k]:-}" ]; then
				emit_error regcache_reuse_${mode}_r$r "no round with a reference run completed"
			else
				# shellcheck disable=SC2086 # the ratios are words
				EMIT_NOTE="median of rounds ${ratios[$k]% }; one-buffer runs ${one[$mode]% } s; mount counters ${ctrs[$mode]:-?}" \
					emit regcache_reuse_${mode}_r$r "$(median ${ratios[$k]})" x lower
			fi
		done
	done
}

# Optimistic Group Registration (the case of [Wu04, Table 4.1]): a 2-D subarray of 16
# rows of 4 KiB, 16 KiB apart, written with pwritev, 200 times per run.
# All on one mount (regcache=pindown) with nconnect=1: the guest's RPS
# puts each connection's flows on vCPUs of their own, and two mounts made
# the ratio depend on that draw (2026-11-26: rounds from 0.52 to 1.79).
# The "Ideal" of [Wu04, Table 4.1] is the same list I/O with every registration already
# cached: one array, registered once and then found in the cache.
# "Individual" (ogr=N: each row registered apart) and "grouped" (OGR) cycle
# through OGR_POOL arrays at different addresses, more than the cache's
# regcache_entries, so that every pwritev misses, registers, and evicts
# (pindown deregisters at once).  Every run is pinned to one vCPU
# (ogr_pick_cpu).  The runs alternate, OGR_ROUNDS rounds,
# and each figure is the median over the rounds of ideal time / its time
# (1.0 is ideal, the target 0.9 or more): this VM's speed drifts by tens of
# percent between minutes, and a ratio within one round cancels that.
# The note also gives the ratio to the same bytes from one contiguous
# buffer per call (one segment, also registered every call), a stricter
# reference that includes the cost of moving 16 segments instead of one.
# direct_inline and direct_push are off meanwhile: they would send each
# 4 KiB row of "individual" (and the contiguous buffer) unregistered, with
# no registration to compare.  ORFS only.
OGR_ROUNDS=5
OGR_POOL=128
OGR_PIN=
ogr_run() { # BIN FILE STRIDE POOL -> seconds
	# shellcheck disable=SC2086 # OGR_PIN is a command prefix or nothing
	kv seconds "$(to 300 $OGR_PIN "$1" "$2" 16 4096 "$3" 200 "$4" 2>&1 | tr ' ' '\n')"
}
# Every run on one vCPU: where a synchronous caller sleeps, relative to
# the vCPU its connection's replies arrive on, moves its time by tens of
# percent (Documentation/benchmarks.md, Caveats).  The vCPU is the one
# where the ideal run is fastest, so that no variant pays a cross-vCPU
# wake-up on every call that the scheduler would have spared it.
ogr_pick_cpu() { # BIN FILE: sets OGR_PIN
	local c t best='' bt=''
	OGR_PIN=
	[ "$(nproc)" -ge 2 ] || return 0
	for c in 0 1; do
		OGR_PIN="taskset -c $c"
		t=$(ogr_run "$1" "$2" 16384 1)
		[ -n "$t" ] || continue
		if [ -z "$bt" ] || awk -v a="$t" -v b="$bt" 'BEGIN { exit !(a < b) }'; then
			best=$c bt=$t
		fi
	done
	OGR_PIN=${best:+taskset -c $best}
	bench_note "  ogr: runs pinned to vCPU ${best:-none}"
}
job_ogr() {
	local sys=$1 m=/mnt/orfs-ogr bin=$BENCH_TMP/ogr ideal contig ind grp i
	local -a r_ind=() r_grp=() r_contig=()
	if [ "$sys" != orfs ]; then
		emit_na ogr_individual "OGR is ORFS's"
		emit_na ogr_grouped "OGR is ORFS's"
		return
	fi
	mkdir -p $m
	if ! gcc -O2 -o "$bin" "$BENCH_DIR/ogrbench.c" 2>"$BENCH_TMP/ogr.err" ||
	   ! to 120 mount -t orfs -o soft,nconnect=1,regcache=pindown,regcache_entries=64 "$BENCH_SRV:/" $m \
		2>>"$BENCH_TMP/ogr.err"; then
		emit_error ogr_individual "$(head -c 200 "$BENCH_TMP/ogr.err")"
		emit_error ogr_grouped "$(head -c 200 "$BENCH_TMP/ogr.err")"
		return
	fi
	orfs_param ogr Y
	orfs_param direct_inline N
	orfs_param direct_push N
	ogr_run "$bin" $m/ogr 16384 1 >/dev/null	# warm-up: registers once
	ogr_pick_cpu "$bin" $m/ogr
	for ((i = 0; i < OGR_ROUNDS; i++)); do
		orfs_param ogr Y
		ideal=$(ogr_run "$bin" $m/ogr 16384 1)
		grp=$(ogr_run "$bin" $m/ogr 16384 $OGR_POOL)
		contig=$(ogr_run "$bin" $m/ogr 4096 $OGR_POOL)
		orfs_param ogr N
		ind=$(ogr_run "$bin" $m/ogr 16384 $OGR_POOL)
		[ -n "$ideal" ] && [ -n "$grp" ] && [ -n "$ind" ] && [ -n "$contig" ] || continue
		r_grp+=("$(ratio "$ideal" "$grp")")
		r_ind+=("$(ratio "$ideal" "$ind")")
		r_contig+=("$(ratio "$contig" "$grp")")
	done
	orfs_param_defaults
	if [ ${#r_grp[@]} -eq 0 ]; then
		emit_error ogr_individual "no round completed"
		emit_error ogr_grouped "no round completed"
	else
		EMIT_NOTE="median of ${#r_ind[@]} rounds: ${r_ind[*]}" \
			emit ogr_individual "$(median "${r_ind[@]}")" x higher
		EMIT_NOTE="median of ${#r_grp[@]} rounds: ${r_grp[*]}; against one contiguous buffer: $(median "${r_contig[@]}") (${r_contig[*]})" \
			emit ogr_grouped "$(median "${r_grp[@]}")" x higher
	fi
	rm -f $m/ogr
	to 60 umount $m || to 30 umount -f $m
}

job_meta() {
	local sys=$1 mnt=$2 d=$2/bench-meta op r failed=
	to 300 rm -rf "$d"
	r=$(mkdir "$d" 2>&1) || failed="mkdir: ${r:0:200}"
	for op in create stat unlink; do
		if [ -n "$failed" ]; then
			emit_error meta_$op "not run: $failed"
			continue
		fi
		# stat and unlink start from a cold client cache (every name is
		# looked up again); create starts from an empty directory.
		[ $op = create ] || drop_caches
		if r=$(python3 "$BENCH_DIR/meta.py" $op "$d" "$BENCH_FILES" 2>&1); then
			r=${r// /$'\n'}
			EMIT_NOTE="$BENCH_FILES files in $(kv seconds "$r") s" \
				emit meta_$op "$(kv rate "$r")" ops/s higher
		else
			emit_error meta_$op "${r:0:200}"
			failed="$op failed"
		fi
	done
	to 300 rm -rf "$d"
}

# files_per_s ENTRIES SECONDS
files_per_s() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }'; }

# tar_x: unpack the tarball (from the guest's local tmpfs) into the mount,
# then syncfs: the data is on the server when the clock stops.
job_tar_x() {
	local sys=$1 mnt=$2 d=$2/bench-tarx t0 s errf=$BENCH_TMP/tar_x.err
	[ "$BENCH_TAR_ENTRIES" -gt 0 ] || { emit_error tar_x "no tarball of $BENCH_TAR_DIR"; return; }
	to 300 rm -rf "$d"
	drop_caches
	t0=$(now)
	if mkdir "$d" 2>"$errf" && tar -xf "$BENCH_TARBALL" -C "$d" 2>>"$errf" &&
		sync -f "$d" 2>>"$errf"; then
		s=$(elapsed "$t0")
		EMIT_NOTE="$BENCH_TAR_ENTRIES entries in $s s" \
			emit tar_x "$(files_per_s "$BENCH_TAR_ENTRIES" "$s")" files/s higher
	else
		emit_error tar_x "tar x: $(head -c 200 "$errf")"
	fi
	to 300 rm -rf "$d"
}

# tar_c: the same tree, unpacked on the server side, archived through the
# mount with a cold client cache into a pipe (not /dev/null, which GNU tar
# would not even read).
job_tar_c() {
	local sys=$1 mnt=$2 srv=$3 d=bench-tarc t0 s rc errf=$BENCH_TMP/tar_c.err
	[ "$BENCH_TAR_ENTRIES" -gt 0 ] || { emit_error tar_c "no tarball of $BENCH_TAR_DIR"; return; }
	rm -rf "${srv:?}/$d"
	if ! { mkdir "$srv/$d" && tar -xf "$BENCH_TARBALL" -C "$srv/$d"; }; then
		emit_error tar_c "cannot unpack on the server side"
		rm -rf "${srv:?}/$d"
		return
	fi
	drop_caches
	t0=$(now)
	tar -cf - -C "$mnt/$d" . 2>"$errf" | cat >/dev/null
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ] && [ ! -s "$errf" ]; then
		s=$(elapsed "$t0")
		EMIT_NOTE="$BENCH_TAR_ENTRIES entries in $s s" \
			emit tar_c "$(files_per_s "$BENCH_TAR_ENTRIES" "$s")" files/s higher
	else
		emit_error tar_c "tar c: exit $rc: $(head -c 200 "$errf")"
	fi
	rm -rf "${srv:?}/$d"
}

# ping_median METRIC FILE RAWREF...: BENCH_PINGS NULL round trips through
# FILE (/sys/fs/orfs/<dev>/ping), emitted as METRIC: their median, as
# perftest's t_typical (an older orfs.ko has only the mean).
ping_median() {
	local metric=$1 f=$2 line r m
	shift 2
	if ! to 120 bash -c 'echo "$1" >"$2"' _ "$BENCH_PINGS" "$f"; then
		emit_error "$metric" "writing $BENCH_PINGS to $f failed"
		return
	fi
	read -r line <"$f"
	if r=$(python3 "$BENCH_DIR/parse.py" ping "$line"); then
		m=$(kv median_us "$r")
		[ -n "$m" ] || m=$(kv mean_us "$r")
		EMIT_NOTE="$line" emit "$metric" "$m" us lower "$@"
	else
		emit_error "$metric" "unexpected ping output: ${line:0:100}"
	fi
}

# prim: the transport's data primitives at 1 MiB (fs/bench.c, ORFS_IOC_XFER):
# READs whose data the client RDMA-reads from the server's cache blocks,
# against ib_read_bw_1m, and WRITEs whose data it RDMA-writes into staging
# buffers, against ib_write_bw_1m: PRIM_COUNT requests of 1 MiB, PRIM_DEPTH
# in flight, cycling through 16 MiB of one file, between kernel pages and
# the server, without the page cache and its copy to user memory (which the
# buffered jobs include).  The WRITEs go first and make the file; one pass
# of READs then warms the server's cache, as ib_read_bw reads memory.
PRIM_COUNT=${ORFS_BENCH_PRIM_COUNT:-200}
PRIM_DEPTH=${ORFS_BENCH_PRIM_DEPTH:-4}
prim_run() { # OP FILE COUNT -> MiB/s, or nothing (the error in $BENCH_TMP/prim.err)
	local out
	out=$(to 300 "$BENCH_TMP/xferbench" "$1" "$2" 1m "$3" "$PRIM_DEPTH" 16m \
		2>"$BENCH_TMP/prim.err") || return 1
	kv mibs "${out// /$'\n'}"
}
job_prim() {
	local sys=$1 mnt=$2 f=$2/prim-$1.dat v
	if [ "$sys" != orfs ]; then
		emit_na prim_read "ORFS_IOC_XFER is ORFS's"
		emit_na prim_write "ORFS_IOC_XFER is ORFS's"
		return
	fi
	# The harness has a copy of orfs_ioctl.h (run.sh); the tree, include/.
	if ! gcc -O2 -I"$BENCH_DIR" -I"$BENCH_DIR/../../include" -o "$BENCH_TMP/xferbench" \
		"$BENCH_DIR/xferbench.c" 2>"$BENCH_TMP/prim.err"; then
		emit_error prim_read "cannot build xferbench: $(head -c 200 "$BENCH_TMP/prim.err")"
		emit_error prim_write "cannot build xferbench: $(head -c 200 "$BENCH_TMP/prim.err")"
		return
	fi
	if v=$(prim_run write "$f" "$PRIM_COUNT"); then
		EMIT_NOTE="$PRIM_COUNT x 1 MiB WRITE, $PRIM_DEPTH in flight" \
			emit prim_write "$v" MiB/s higher ib_write_bw_1m
	else
		emit_error prim_write "$(head -c 200 "$BENCH_TMP/prim.err")"
	fi
	if prim_run read "$f" 16 >/dev/null && v=$(prim_run read "$f" "$PRIM_COUNT"); then
		EMIT_NOTE="$PRIM_COUNT x 1 MiB READ, $PRIM_DEPTH in flight" \
			emit prim_read "$v" MiB/s higher ib_read_bw_1m
	else
		emit_error prim_read "$(head -c 200 "$BENCH_TMP/prim.err")"
	fi
	rm -f "$f"
}

# connect: what a mount's connection costs to set up: the median of 20
# mounts with nconnect=1 (rdma_cm's resolve and connect, the accept, GRANTS
# for the staging buffers, MOUNT), each unmounted (not timed) before the
# next.  ORFS only.
job_connect() {
	local sys=$1 m=/mnt/orfs-connect i t0 t1
	local -a ms=()
	if [ "$sys" != orfs ]; then
		emit_na connect_mount "ORFS's connection setup"
		return
	fi
	mkdir -p $m
	for ((i = 0; i < 20; i++)); do
		t0=$(date +%s%N)
		if ! to 60 mount -t orfs -o soft,nconnect=1 "$BENCH_SRV:/" $m \
			2>"$BENCH_TMP/connect.err"; then
			emit_error connect_mount "mount: $(head -c 200 "$BENCH_TMP/connect.err")"
			return
		fi
		t1=$(date +%s%N)
		ms+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')")
		if ! to 60 umount $m; then
			emit_error connect_mount "umount $m failed"
			return
		fi
	done
	EMIT_NOTE="median of ${#ms[@]} mounts with nconnect=1; min $(min_of "${ms[@]}") ms"
	emit connect_mount "$(median "${ms[@]}")" ms lower
	EMIT_NOTE=
}

# null_rtt: ORFS's NULL request, N synchronous round trips, against 2 x
# ib_send_lat 2 B: null_rtt remounted with busy_poll=0 (the client sleeps
# until its reply, as perftest -e does), null_rtt_poll with busy_poll=200
# (the client spins for its reply, as ib_send_lat does by default); the
# mount's own busy_poll (auto by default) is restored afterwards.
job_null_rtt() {
	local sys=$1 mnt=$2 dev f bp
	if [ "$sys" != orfs ]; then
		emit_na null_rtt "no NULL-request interface"
		emit_na null_rtt_poll "no NULL-request interface"
		return
	fi
	dev=$(mountpoint -d "$mnt") || {
		emit_error null_rtt "$mnt is not mounted"
		emit_error null_rtt_poll "$mnt is not mounted"
		return
	}
	f=/sys/fs/orfs/$dev/ping
	if [ ! -e "$f" ]; then
		emit_na null_rtt "this orfs.ko has no $f"
		emit_na null_rtt_poll "this orfs.ko has no $f"
		return
	fi
	bp=$(awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts | tr ',' '\n' |
		sed -n 's/^busy_poll=//p')
	if mount -o remount,busy_poll=0 "$mnt" 2>"$BENCH_TMP/remount.err"; then
		ping_median null_rtt "$f" raw_rtt_2b_ev raw_rtt_2b
	else
		emit_error null_rtt "remount busy_poll=0: $(cat "$BENCH_TMP/remount.err")"
	fi
	if ! mount -o remount,busy_poll=200 "$mnt" 2>"$BENCH_TMP/remount.err"; then
		emit_error null_rtt_poll "remount busy_poll=200: $(cat "$BENCH_TMP/remount.err")"
	else
		ping_median null_rtt_poll "$f" raw_rtt_2b raw_rtt_2b_ev
	fi
	mount -o remount,busy_poll="${bp:-auto}" "$mnt" ||
		bench_warn "could not restore busy_poll=${bp:-auto} on $mnt"
}
