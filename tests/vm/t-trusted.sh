#!/bin/bash
# The trusted-fabric mode of buffered I/O (mount -o trusted_fabric): the
# client's PD has a global rkey, READs and WRITEs name their page-cache
# pages by page list (ORFS_IO_PAGES) and orfsd moves the data itself.
# Checks that the data path is really that one (counters), that nothing is
# registered, that fio's verification and mmap hold, that an ordinary
# mount of the same export sees the same bytes, and that the mode is shown
# and cannot be switched on remount.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
plain=$ORFS_WORK/plain
mkdir -p "$exp"
orfs_insmod
orfs_server_start "$exp"
dmesg_mark
orfs_mount "$mnt" / trusted_fabric
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
ctr() {
	local v
	v=$(awk -v k="$1" '$1 == k { print $2 }' "$sys/counters")
	[ -n "$v" ] || fail "no counter $1"
	echo "$v"
}

grep -q "^[^ ]* $mnt orfs .*,trusted_fabric" /proc/mounts ||
	fail "/proc/mounts does not show trusted_fabric"
dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
	grep -q "trusted_fabric: the server may read and write all of this host's memory" ||
	fail "the mount did not warn what trusted_fabric means"

# 32 MiB through write-back and readahead: all of it by page list.
head -c 33554432 /dev/urandom >"$ORFS_WORK/src"
dd if="$ORFS_WORK/src" of="$mnt/seq" bs=1M conv=fsync status=none
cmp "$ORFS_WORK/src" "$exp/seq" || fail "server copy differs"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$mnt/seq" || fail "read-back differs"
pl=$(ctr bytes_page_list)
note "bytes_page_list $pl, bytes_client_rdma_read $(ctr bytes_client_rdma_read)," \
	"bytes_client_rdma_write $(ctr bytes_client_rdma_write), bytes_window_read $(ctr bytes_window_read)"
[ "$pl" -ge $((2 * 33554432 - 2 * 1048576)) ] ||
	fail "only $pl bytes went by page list"
[ "$(ctr bytes_client_rdma_write)" -eq 0 ] || fail "write-back still RDMA-wrote staging buffers"
[ "$(ctr bytes_client_rdma_read)" -eq 0 ] || fail "readahead still RDMA-read staging buffers"
[ "$(ctr bytes_window_read)" -eq 0 ] || fail "readahead still RDMA-read windows"
[ "$(ctr mr_registrations)" -eq 0 ] || fail "the buffered path registered memory"

# fio with verification: sequential, random and mixed, 4 KiB to 1 MiB.
for job in "write:1m" "randwrite:4k" "randrw:64k" "rw:256k"; do
	rw=${job%%:*} bs=${job#*:}
	fio --name="t-$rw" --directory="$mnt" --rw="$rw" --bs="$bs" --size=16m \
		--ioengine=psync --verify=crc32c --verify_fatal=1 --end_fsync=1 \
		--eta=never >"$ORFS_WORK/fio-$rw.log" 2>&1 ||
		{ cat "$ORFS_WORK/fio-$rw.log"; fail "fio $rw $bs"; }
done
echo 3 >/proc/sys/vm/drop_caches
fio --name=t-reread --directory="$mnt" --filename=t-write.0.0 --rw=read --bs=1m \
	--size=16m --verify=crc32c --verify_only --eta=never >"$ORFS_WORK/fio-rr.log" 2>&1 ||
	{ cat "$ORFS_WORK/fio-rr.log"; fail "re-verification after drop_caches"; }
note "fio verified: write 1m, randwrite 4k, randrw 64k, rw 256k, re-read"

# mmap: write through a shared mapping, msync, and check on the server.
python3 - "$mnt/map" "$exp/map" <<'PY'
import mmap, os, sys
m, e = sys.argv[1], sys.argv[2]
size = 3 * 1048576 + 1234
fd = os.open(m, os.O_CREAT | os.O_RDWR, 0o644)
os.ftruncate(fd, size)
mm = mmap.mmap(fd, size)
data = os.urandom(size)
mm[:] = data
mm.flush()
mm.close()
os.close(fd)
assert open(e, "rb").read() == data, "server copy of the mapping differs"
PY
note "mmap write and msync ok"

# An ordinary mount of the same export sees what the trusted one wrote,
# and the other way round.
orfs_mount "$plain" /
cmp "$ORFS_WORK/src" "$plain/seq" || fail "the plain mount reads other bytes"
head -c 5000000 /dev/urandom >"$ORFS_WORK/src2"
cp "$ORFS_WORK/src2" "$plain/from-plain"
sync
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src2" "$mnt/from-plain" || fail "the trusted mount reads other bytes"
umount "$plain"

# The mode shapes the connections: it cannot change on remount.
expect_fail "" mount -o remount,notrusted_fabric "$mnt"
dmesg | tail -n 6 | grep -q "orfs: .*trusted_fabric cannot change on remount" ||
	fail "no kernel log line for the refused remount"
grep -q "^[^ ]* $mnt orfs .*,trusted_fabric" /proc/mounts ||
	fail "a refused remount changed the options"
umount "$mnt"
note "remount to notrusted_fabric refused"

# A server that does not take page lists (orfsd --page-lists=no): the
# mount still works, says so in the kernel log, and its buffered I/O goes
# through staging buffers, with the same bytes.
orfs_server_stop
orfs_server_start "$exp" --page-lists=no
lines=$(dmesg | wc -l)
orfs_mount "$mnt" / trusted_fabric
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
dd if="$ORFS_WORK/src" of="$mnt/declined" bs=1M conv=fsync status=none
cmp "$ORFS_WORK/src" "$exp/declined" || fail "page lists declined: server copy differs"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$mnt/declined" || fail "page lists declined: read-back differs"
note "page lists declined: bytes_page_list $(ctr bytes_page_list)," \
	"bytes_client_rdma_write $(ctr bytes_client_rdma_write)," \
	"bytes_client_rdma_read $(ctr bytes_client_rdma_read) (of which windows $(ctr bytes_window_read))"
[ "$(ctr bytes_page_list)" -eq 0 ] || fail "page lists were used although the server declined them"
[ "$(ctr bytes_client_rdma_write)" -ge $((33554432 - 1048576)) ] ||
	fail "page lists declined: write-back did not go through staging buffers"
[ "$(ctr bytes_client_rdma_read)" -ge $((33554432 - 1048576)) ] ||
	fail "page lists declined: readahead did not go through staging buffers"
[ "$(ctr mr_registrations)" -eq 0 ] || fail "page lists declined: the buffered path registered memory"
dmesg | tail -n +"$((lines + 1))" |
	grep -q "server does not take page lists" || fail "no kernel log line for the declined page lists"
umount "$mnt"
note "trusted_fabric against orfsd --page-lists=no: staging buffers, same bytes"
