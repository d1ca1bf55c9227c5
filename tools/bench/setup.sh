# shellcheck shell=bash disable=SC2034 # SETUP_ERR, *_MOUNT_OPTS and the pids are read by guest.sh
# ORFS benchmark: bringing up and down the file systems in the guest
# (sourced by guest.sh): NFS/RDMA, and one orfsd mounted twice (systems orfs
# and orfstf).  Every function returns non-zero with a message in SETUP_ERR
# instead of exiting.  Logs go to $BENCH_LOG.

# --- NFS over RDMA: kernel nfsd on rxe0, client on rxe1 ---------------------------
#
# No systemd in the VM, so the pieces nfs-server.service would start are
# started by hand:
#  - nfsd's control file system on /proc/fs/nfsd;
#  - a tmpfs pseudo root (fsid=0) with the tmpfs export below it.  The guest's
#    "/" is an overlay over 9p, which nfsd cannot export, so mountd's default
#    pseudo root (fsid=0 on "/") does not work; both need fsid= (tmpfs has no
#    UUID).  The client mounts 192.0.2.1:/export, i.e. /srv/nfs4/export;
#  - rpcbind (rpc.nfsd and mountd register with it; NFSv4 itself needs it
#    only for the v3 fallback);
#  - rpc.mountd, which answers the kernel's export upcalls (needed for v4 too);
#  - rpc.nfsd, then "rdma 20049" into /proc/fs/nfsd/portlist;
#  - "Y" into /proc/fs/nfsd/v4_end_grace, so the first OPEN does not wait out
#    the NFSv4 grace period (there is nothing to reclaim on a fresh boot).

_nfs_server_up() {
	local i
	set -x
	modprobe -a nfsd rpcrdma nfsv4 nfsv3 || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	mkdir -p $BENCH_NFS_ROOT && mount -t tmpfs -o size=1m,mode=0755 nfs4root $BENCH_NFS_ROOT &&
		mkdir -p $BENCH_NFS_EXPORT && mount -t tmpfs -o mode=0777 nfsexport $BENCH_NFS_EXPORT ||
		return 1
	mkdir -p /run/rpcbind /var/lib/nfs/v4recovery
	rpcbind -f &
	RPCBIND_PID=$!
	for i in $(seq 1 50); do [ -S /run/rpcbind.sock ] && break; sleep 0.1; done
	exportfs -o ro,fsid=0,crossmnt,insecure,no_subtree_check,sec=sys "$BENCH_CLI/32:$BENCH_NFS_ROOT" &&
		exportfs -o rw,fsid=1,no_root_squash,insecure,no_subtree_check,sec=sys "$BENCH_CLI/32:$BENCH_NFS_EXPORT" ||
		return 1
	exportfs -v
	rpc.mountd --no-udp --foreground &
	MOUNTD_PID=$!
	rpc.nfsd --no-udp 8 || return 1
	echo "rdma $BENCH_NFS_PORT" >/proc/fs/nfsd/portlist || return 1
	cat /proc/fs/nfsd/portlist /proc/fs/nfsd/versions
	echo Y >/proc/fs/nfsd/v4_end_grace
	kill -0 $MOUNTD_PID || return 1
	set +x
}

nfs_server_start() {
	local log=$BENCH_LOG/nfs-server.log
	_nfs_server_up >>"$log" 2>&1 && return 0
	set +x
	SETUP_ERR="NFS server setup failed, see $log: $(tail -n 3 "$log" | tr '\n' ' ')"
	return 1
}

# nfs_mount: vers=ORFS_BENCH_NFS_VERS (4.2) over RDMA; falls back to vers=3
# (export path /srv/nfs4/export) when v4.2 does not mount.  Checks that the
# mount really uses the rdma transport.  Sets NFS_MOUNT_OPTS.
nfs_mount() {
	local log=$BENCH_LOG/nfs-mount.log vers=${ORFS_BENCH_NFS_VERS:-4.2} opts src
	mkdir -p $BENCH_NFS_MNT
	for vers in $vers 3; do
		opts=vers=$vers,proto=rdma,port=$BENCH_NFS_PORT${ORFS_BENCH_NFS_OPTS:+,$ORFS_BENCH_NFS_OPTS}
		case $vers in 4*) src=$BENCH_SRV:/export ;; *) src=$BENCH_SRV:$BENCH_NFS_EXPORT ;; esac
		echo "+ mount -t nfs -o $opts $src $BENCH_NFS_MNT" >>"$log"
		if to 120 mount -t nfs -o "$opts" "$src" $BENCH_NFS_MNT >>"$log" 2>&1; then
			break
		fi
		bench_warn "NFS mount with vers=$vers failed: $(tail -n 1 "$log")"
		opts=
		[ "$vers" = 3 ] && break
	done
	if [ -z "$opts" ]; then
		SETUP_ERR="NFS/RDMA mount failed, see $log"
		return 1
	fi
	grep " $BENCH_NFS_MNT " /proc/mounts >>"$log"
	if ! grep -q " $BENCH_NFS_MNT nfs.*proto=rdma" /proc/mounts ||
		! awk -v m=" $BENCH_NFS_MNT " '/^device/ { on = index($0, m) > 0 } on && /xprt:/ { print; exit }' \
			/proc/self/mountstats | grep -q 'xprt:[[:space:]]*rdma'; then
		SETUP_ERR="the NFS mount does not use RDMA: $(grep " $BENCH_NFS_MNT " /proc/mounts)"
		return 1
	fi
	NFS_MOUNT_OPTS="$src $(awk -v m="$BENCH_NFS_MNT" '$2 == m { print $4 }' /proc/mounts)"
}

nfs_stop() {
	local log=$BENCH_LOG/nfs-server.log
	{
		mounted $BENCH_NFS_MNT nfs && { to 60 umount $BENCH_NFS_MNT || to 30 umount -f $BENCH_NFS_MNT; }
		rpc.nfsd 0
		exportfs -ua
		[ -n "${MOUNTD_PID:-}" ] && kill "$MOUNTD_PID"
		[ -n "${RPCBIND_PID:-}" ] && kill "$RPCBIND_PID"
	} >>"$log" 2>&1
	return 0
}

# --- ORFS: orfsd exporting a tmpfs on 192.0.2.1, orfs.ko mounting it ---------------
# Mount options: ORFS_BENCH_ORFS_OPTS, default "soft", so that a request the
# server never answers fails the job (ETIMEDOUT) instead of hanging it.
BENCH_ORFS_OPTS=${ORFS_BENCH_ORFS_OPTS-soft}

orfs_start() {
	local log=$BENCH_LOG/orfsd.log i
	BENCH_KO=${ORFS_BENCH_KO:-$BENCH_TOP/orfs.ko}
	BENCH_ORFSD=${ORFS_BENCH_ORFSD:-$BENCH_TOP/server/orfsd}
	modprobe rdma_cm || { SETUP_ERR="modprobe rdma_cm failed"; return 1; }
	if ! grep -q '^orfs ' /proc/modules; then
		insmod "$BENCH_KO" 2>"$BENCH_TMP/insmod.err" ||
			{ SETUP_ERR="insmod $BENCH_KO: $(cat "$BENCH_TMP/insmod.err")"; return 1; }
	fi
	mkdir -p $BENCH_ORFS_EXPORT
	mountpoint -q $BENCH_ORFS_EXPORT ||
		mount -t tmpfs -o mode=0777 orfsexport $BENCH_ORFS_EXPORT ||
		{ SETUP_ERR="cannot mount a tmpfs on $BENCH_ORFS_EXPORT"; return 1; }
	# --no-root-squash by default, as the NFS export has no_root_squash: the
	# jobs run as root on both.
	# shellcheck disable=SC2086 # extra server arguments
	"$BENCH_ORFSD" --export $BENCH_ORFS_EXPORT --listen "$BENCH_SRV:$BENCH_ORFS_PORT" \
		--foreground ${ORFS_BENCH_ORFSD_ARGS---no-root-squash} >>"$log" 2>&1 </dev/null &
	ORFSD_PID=$!
	for i in $(seq 1 150); do
		cm_listens "$BENCH_SRV:$BENCH_ORFS_PORT" && break
		if ! kill -0 $ORFSD_PID 2>/dev/null; then
			SETUP_ERR="orfsd exited: $(tail -n 3 "$log" | tr '\n' ' ')"
			return 1
		fi
		sleep 0.1
	done
	[ "$i" -lt 150 ] || { SETUP_ERR="orfsd did not start listening"; return 1; }
	mkdir -p $BENCH_ORFS_MNT
	if ! to 120 mount -t orfs ${BENCH_ORFS_OPTS:+-o "$BENCH_ORFS_OPTS"} \
		"$BENCH_SRV:/" $BENCH_ORFS_MNT 2>"$BENCH_TMP/mount.err"; then
		SETUP_ERR="ORFS mount failed: $(cat "$BENCH_TMP/mount.err")"
		return 1
	fi
	ORFS_MOUNT_OPTS="$BENCH_SRV:/ $(awk -v m="$BENCH_ORFS_MNT" '$2 == m { print $4 }' /proc/mounts)"
}

# orfstf_mount: system orfstf, the export orfs_start serves mounted again on
# BENCH_ORFSTF_MNT with trusted_fabric added to BENCH_ORFS_OPTS (its own
# super block and connections).  After orfs_start.  Checks that the option
# took (/proc/mounts); whether the server took page lists shows in the
# bytes_page_list counter of the jobs.  Sets ORFSTF_MOUNT_OPTS.
orfstf_mount() {
	local opts=${BENCH_ORFS_OPTS:+$BENCH_ORFS_OPTS,}trusted_fabric
	mkdir -p "$BENCH_ORFSTF_MNT"
	if ! to 120 mount -t orfs -o "$opts" "$BENCH_SRV:/" "$BENCH_ORFSTF_MNT" \
		2>"$BENCH_TMP/mount-tf.err"; then
		SETUP_ERR="ORFS trusted_fabric mount failed: $(cat "$BENCH_TMP/mount-tf.err")"
		return 1
	fi
	ORFSTF_MOUNT_OPTS="$BENCH_SRV:/ $(awk -v m="$BENCH_ORFSTF_MNT" '$2 == m { print $4 }' /proc/mounts)"
	if [[ ,${ORFSTF_MOUNT_OPTS#* }, != *,trusted_fabric,* ]]; then
		SETUP_ERR="$BENCH_ORFSTF_MNT is mounted without trusted_fabric: $ORFSTF_MOUNT_OPTS"
		return 1
	fi
}

# umount_orfs DIR: unmounts an ORFS mount, if DIR is one.
umount_orfs() {
	mounted "$1" orfs || return 0
	to 60 umount "$1" || to 30 umount -f "$1" || bench_warn "cannot unmount $1"
}

# orfs_stop: both ORFS mounts, orfsd, the module.
orfs_stop() {
	umount_orfs "$BENCH_ORFSTF_MNT"
	umount_orfs "$BENCH_ORFS_MNT"
	if [ -n "${ORFSD_PID:-}" ]; then
		kill "$ORFSD_PID" 2>/dev/null
		wait "$ORFSD_PID" 2>/dev/null
		ORFSD_PID=
	fi
	grep -q '^orfs ' /proc/modules && { rmmod orfs || bench_warn "rmmod orfs failed"; }
	return 0
}

# mounted DIR FSTYPE: from /proc/mounts, without touching the file system
# (a stat of a mount whose server is gone can fail or hang).
mounted() {
	awk -v d="$1" -v t="$2" '$2 == d && index($3, t) == 1 { f = 1 } END { exit !f }' /proc/mounts
}

# orfsd_alive: false, with SETUP_ERR, when orfsd has exited.  Once it has
# been reaped, the next call finds ORFSD_STATUS (orfs and orfstf both ask).
orfsd_alive() {
	if [ -z "${ORFSD_STATUS:-}" ] && [ -n "${ORFSD_PID:-}" ] &&
		! kill -0 "$ORFSD_PID" 2>/dev/null; then
		wait "$ORFSD_PID"
		ORFSD_STATUS=$?
	fi
	[ -n "${ORFSD_STATUS:-}" ] || return 0
	SETUP_ERR="orfsd died (status $ORFSD_STATUS): $(tail -n 2 "$BENCH_LOG/orfsd.log" | tr '\n' ' ')"
	return 1
}

# check_system SYSTEM: before each job (run_job), is SYSTEM still usable?
# Sets SETUP_ERR and fails when orfsd died or a mount is gone, so that the
# remaining jobs are recorded as errors at once instead of each waiting for
# its timeouts.
check_system() {
	local mnt=$BENCH_ORFS_MNT
	case $1 in
	orfs | orfstf)
		orfsd_alive || return 1
		[ "$1" = orfs ] || mnt=$BENCH_ORFSTF_MNT
		mounted "$mnt" orfs || { SETUP_ERR="$mnt is no longer mounted"; return 1; }
		;;
	nfs)
		mounted $BENCH_NFS_MNT nfs || { SETUP_ERR="$BENCH_NFS_MNT is no longer mounted"; return 1; }
		;;
	esac
	return 0
}

# system_monitor SYSTEM JOBPID: runs in the background while a job runs
# (run_job).  When orfsd exits during an ORFS job, it stops the job (the
# process group of its timeout, JOBPID) instead of letting it wait for the
# step deadline.  tail --pid checks once a second, without an exec.
system_monitor() {
	case $1 in orfs | orfstf) ;; *) return 0 ;; esac
	[ -n "${ORFSD_PID:-}" ] || return 0
	tail --pid="$ORFSD_PID" -f /dev/null 2>/dev/null
	# tail also returns when run_job stops the monitor after the job.
	kill -0 "$ORFSD_PID" 2>/dev/null && return 0
	bench_warn "orfsd exited during the job: stopping the job"
	kill -TERM -- -"$2" 2>/dev/null
	sleep 10
	kill -KILL -- -"$2" 2>/dev/null
}
