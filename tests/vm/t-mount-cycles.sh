#!/bin/bash
# 200 mount/umount cycles, each moving data through the RDMA path (a write
# larger than the inline threshold, a read after dropping caches), leave
# nothing behind: the inode slab, the client's and the server's RDMA
# connections and the module's reference count all return to their
# baseline, and rmmod then finds every slab empty.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
cycles=${ORFS_CYCLES:-200}
mkdir -p "$exp/d"
touch "$exp/d/a" "$exp/d/b"
head -c 300000 /dev/urandom >"$ORFS_WORK/src"
orfs_insmod
orfs_server_start "$exp"

# Active inodes; the slab's per-CPU caches are flushed first so that freed
# objects do not count.
slab() {
	[ -w /sys/kernel/slab/orfs_inode_cache/shrink ] &&
		echo 1 >/sys/kernel/slab/orfs_inode_cache/shrink
	awk '$1 == "orfs_inode_cache" { print $2 }' /proc/slabinfo
}
qps() { rdma resource show qp 2>/dev/null | grep -c 'pid' || true; }
slab0=$(slab)
qp0=$(qps)
t0=$(date +%s)
for i in $(seq 1 "$cycles"); do
	orfs_mount "$mnt"
	ls -l "$mnt/d" >/dev/null
	if [ $((i % 10)) -eq 1 ]; then
		cp "$ORFS_WORK/src" "$mnt/d/f$i"
		sync "$mnt/d/f$i"
		echo 3 >/proc/sys/vm/drop_caches
		cmp "$ORFS_WORK/src" "$mnt/d/f$i" || fail "cycle $i: data differs"
		rm "$mnt/d/f$i"
	fi
	umount "$mnt"
done
note "$cycles cycles in $(( $(date +%s) - t0 )) s"
[ "$(awk '$1 == "orfs" { print $3 }' /proc/modules)" = 0 ] || fail "module still referenced"
[ "$(rdma resource show cm_id 2>/dev/null | grep -c 'dst-addr '"$ORFS_SRV_ADDR" || true)" -eq 0 ] ||
	fail "client connections left behind"
echo 2 >/proc/sys/vm/drop_caches
sleep 1		# inodes are freed after an RCU grace period
[ "$(slab)" -le "${slab0:-0}" ] || fail "orfs inodes left: $(slab) active, $slab0 before"
# The server drops a connection's QP when the client's disconnect arrives.
for _ in $(seq 1 50); do
	[ "$(qps)" -le "$qp0" ] && break
	sleep 0.1
done
[ "$(qps)" -le "$qp0" ] || fail "queue pairs left: $(qps), $qp0 before"
# kmem_cache_destroy() at unload reports any inode still allocated
# ("Slab cache still has objects"), which fails the test through dmesg.
rmmod orfs
exit 0
