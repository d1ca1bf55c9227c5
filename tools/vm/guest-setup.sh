#!/bin/bash
# ORFS test VM, stage 2: runs as PID 1 in the guest after switch_root.
#
# Sets up the rest of the system (devpts, hostname, loopback), soft-RoCE over a
# tuned veth pair (see shared/design-brief.md, "Test environment: verified
# facts"), then runs the job described by /run/orfs-vm/job.sh and powers off.
# The job's exit status goes to /run/orfs-vm/exit (host run dir) and to the
# console as "ORFS-VM-EXIT: N".  Setup failures report status 125.
#
# No "set -e": PID 1 must never exit (that panics the kernel); every path ends
# in finish().

CTL=/run/orfs-vm
SRV=192.0.2.1
CLI=192.0.2.2

finish() {
	echo "$1" >"$CTL/exit"
	sync
	echo "ORFS-VM-EXIT: $1"
	busybox poweroff -f
	echo o >/proc/sysrq-trigger
	while :; do sleep 60; done
}

die() {
	echo "orfs-vm setup: $*" >&2
	finish 125
}

# run CMD...: run a setup step, die with its output on failure.
run() {
	local out
	out=$("$@" 2>&1) || die "'$*' failed: $out"
}

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

# setsys KEY VALUE: sysctl without an exec (each exec costs ~50 ms under TCG).
setsys() {
	echo "$2" >"/proc/sys/${1//.//}" || die "cannot set $1=$2"
}

# --- base system ---------------------------------------------------------
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o nosuid,nodev tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
setsys kernel.hostname orfs-vm

# --- soft-RoCE over a veth pair --------------------------------------------
run modprobe -a veth rdma_rxe rdma_cm ib_uverbs rdma_ucm
run ip -batch - <<EOF
link set lo up
link add v0 type veth peer name v1
link set v0 mtu 9000
link set v1 mtu 9000
addr add $SRV/24 dev v0
addr add $CLI/24 dev v1
link set v0 up
link set v1 up
EOF

# Jumbo frames (above), as RoCE deployments use them: rxe's path MTU becomes
# 4096 instead of 1024, so a 4 KiB transfer is one packet instead of four.
# Under TCG each packet costs far more than its bytes (skb, ICRC, softirq,
# RPS): in one boot raw ib_read_bw 1 MiB went from 45 to 91 MiB/s, ORFS
# buffered seqread from 42 to 83 MiB/s.
# Tuning: veth bursts overflow the default backlog; RPS keeps a flow on one CPU
# so it arrives in order; accept packets whose source is a local address.
setsys net.core.netdev_max_backlog 10000
rps=$(printf '%x' $(((1 << $(nproc)) - 1)))
for i in v0 v1; do
	echo "$rps" >/sys/class/net/$i/queues/rx-0/rps_cpus || die "rps_cpus on $i"
done
for i in all default v0 v1; do
	setsys net.ipv4.conf.$i.accept_local 1
	setsys net.ipv4.conf.$i.rp_filter 0
done

# Both addresses are local, so by default traffic between them uses lo.
# Route locally generated packets to each address out of the opposite end.
run ip -batch - <<EOF
rule add pref 100 iif lo to $SRV/32 lookup 100
route add $SRV/32 dev v1 src $CLI table 100
rule add pref 101 iif lo to $CLI/32 lookup 101
route add $CLI/32 dev v0 src $SRV table 101
rule add pref 1000 lookup local
rule del pref 0
EOF

run rdma -b - <<EOF
link add rxe0 type rxe netdev v0
link add rxe1 type rxe netdev v1
EOF
for d in rxe0 rxe1; do
	st=/sys/class/infiniband/$d/ports/1/state
	for i in $(seq 50); do
		[[ $(<$st) == *ACTIVE* ]] && break
		sleep 0.1
	done
	[[ $(<$st) == *ACTIVE* ]] || die "$d is not ACTIVE: $(<$st)"
done
route=$(ip route get $SRV from $CLI)
[[ $route == *"dev v1"* ]] || die "route to $SRV does not use v1: $route"

# --- the job ---------------------------------------------------------------
# job.sh (written by tools/vm/run) sets ORFS_VM_CWD, ORFS_VM_SHARE, ORFS_VM_ARGV
# and exports the host's ORFS_* variables.
. "$CTL/job.sh" || die "cannot read $CTL/job.sh"
export ORFS_VM=1 ORFS_SRV_ADDR=$SRV ORFS_CLI_ADDR=$CLI ORFS_VM_SHARE
cd "$ORFS_VM_CWD" || die "working directory $ORFS_VM_CWD is not visible in the guest"

echo "orfs-vm: up in $(cut -d' ' -f1 /proc/uptime) s, running: ${ORFS_VM_ARGV[*]}"
if [ -f "${ORFS_VM_ARGV[0]}" ] && [ ! -x "${ORFS_VM_ARGV[0]}" ]; then
	bash "${ORFS_VM_ARGV[@]}" </dev/null
else
	"${ORFS_VM_ARGV[@]}" </dev/null
fi
finish $?
