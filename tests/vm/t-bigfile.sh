#!/bin/bash
# A file larger than the guest's RAM, streamed through: written with fio
# (crc32c verification headers in every block), then read back and
# verified.  Most of it must have left the client's page cache before the
# read starts, so write-back throttling, reclaim and readahead all take
# part.  The export lives on ext4 on the VM's scratch disk (tests/vm/run.sh
# attaches one), which is also orfsd's O_DIRECT backing path.
. "$(dirname "$0")/lib.sh"
set -e
disk=/dev/vda
modprobe virtio_blk 2>/dev/null || true
for _ in $(seq 1 50); do [ -b "$disk" ] && break; sleep 0.1; done
[ -b "$disk" ] || fail "no scratch disk $disk (tests/vm/run.sh attaches one with --disk)"
exp=$ORFS_WORK/disk
mnt=$ORFS_WORK/mnt
mkdir -p "$exp"
mkfs.ext4 -q -F -E nodiscard "$disk" || fail "mkfs.ext4 $disk"
mount "$disk" "$exp"
ram_mb=$(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo)
size_mb=$((ram_mb + 256))
disk_mb=$(df -m --output=avail "$exp" | tail -n 1)
[ "$disk_mb" -gt $((size_mb + 64)) ] || fail "scratch disk too small: $disk_mb MiB free, need $size_mb"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" /
note "RAM $ram_mb MiB, file $size_mb MiB"
t0=$(date +%s)
out=$(fio --name=big --filename="$mnt/big" --rw=write --bs=1M --size="${size_mb}M" \
	--ioengine=psync --end_fsync=1 --fallocate=none --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --verify_state_save=0 --output-format=terse --terse-version=3 2>&1) ||
	fail "fio: $out"
t1=$(date +%s)
size=$(stat -c %s "$exp/big")
[ "$size" -eq $((size_mb << 20)) ] || fail "server file is $size bytes, want $((size_mb << 20))"
note "written and verified in $((t1 - t0)) s"
# Cold reads of the first and the last 64 MiB compare the client's view
# with the server's file byte for byte.
echo 3 >/proc/sys/vm/drop_caches
for skip in 0 $((size_mb - 64)); do
	dd if="$mnt/big" of="$ORFS_WORK/client.part" bs=1M skip=$skip count=64 status=none
	dd if="$exp/big" of="$ORFS_WORK/server.part" bs=1M skip=$skip count=64 status=none
	cmp "$ORFS_WORK/client.part" "$ORFS_WORK/server.part" ||
		fail "client and server copies differ in the 64 MiB at $skip MiB"
done
rm -f "$ORFS_WORK/client.part" "$ORFS_WORK/server.part"
rm "$mnt/big"
umount "$mnt"
orfs_server_stop
umount "$exp"
exit 0
