#!/bin/bash
# Tracepoints: every event of fs/orfs_fs_trace.h and net/orfs_trace.h is
# under /sys/kernel/tracing/events/orfs/, and with the one documented switch
# on (events/orfs/enable) the fs/ events fire with the right device, inode
# numbers, names, offsets and results: lookups (found and not), dentries
# trusted without asking (RCU-walk) and looked up again (actimeo=0),
# attribute revalidation from the cache and by GETATTR, a page cache
# dropped after a change on the server, readahead, ->read_folio (a fault
# in an MADV_RANDOM mapping), write-back and fsync, O_DIRECT reads and
# writes, synchronous and asynchronous (fio libaio).
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mnt2=$ORFS_WORK/mnt2
T=/sys/kernel/tracing
mkdir -p "$exp/dir"
head -c $((2 * 1048576)) /dev/urandom >"$exp/dir/big"
head -c 1048576 /dev/urandom >"$exp/dir/mapped"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"
orfs_mount "$mnt2" / actimeo=0
dev=$(stat -c '%Hd:%Ld' "$mnt")
dev2=$(stat -c '%Hd:%Ld' "$mnt2")
ino() { stat -c %i "$exp/$1"; }
root=$(ino .) d=$(ino dir) big=$(ino dir/big) mapped=$(ino dir/mapped)

tracefs_mounted=
if [ ! -e "$T/trace" ]; then
	mount -t tracefs tracefs "$T" || fail "cannot mount tracefs on $T"
	tracefs_mounted=1
fi
stop_tracing() {
	echo 0 >"$T/events/orfs/enable"
	echo >"$T/trace"
	[ -z "$tracefs_mounted" ] || umount "$T"
}
trap stop_tracing EXIT

for e in orfs_read_folio orfs_readahead orfs_read_done orfs_writeback_done \
	 orfs_fsync orfs_direct_io orfs_lookup orfs_d_revalidate_cached \
	 orfs_d_revalidate orfs_revalidate_inode orfs_invalidate_mapping \
	 orfs_send orfs_recv orfs_wc_error orfs_rdma orfs_request_error \
	 orfs_conn_state; do
	[ -d "$T/events/orfs/$e" ] || fail "no tracepoint $T/events/orfs/$e"
done
echo >"$T/trace"
echo 1 >"$T/tracing_on"
echo 1 >"$T/events/orfs/enable"

# Lookups, found and not; then the same name trusted without asking.
stat "$mnt/dir/big" >/dev/null
expect_fail "No such file" stat "$mnt/dir/nope"
stat "$mnt/dir/big" >/dev/null
# Looked up again on the actimeo=0 mount.
stat "$mnt2/dir/big" >/dev/null
stat "$mnt2/dir/big" >/dev/null

# Buffered reads: readahead, and a fault in a mapping with no readahead,
# which reads one folio through ->read_folio.
cat "$mnt/dir/big" >/dev/null
python3 - "$mnt/dir/mapped" <<'EOF'
import mmap, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    m[3 * 65536 + 5]
    m.close()
EOF

# A file cached by the actimeo=0 mount changes on the server: the next
# open asks, sees the change and drops the cached pages.
cat "$mnt2/dir/big" >/dev/null
printf X | dd of="$exp/dir/big" bs=1 seek=100 conv=notrunc status=none
cmp "$mnt2/dir/big" "$exp/dir/big" || fail "stale data after a change on the server"

# Write-back and fsync, then O_DIRECT both ways, then asynchronous O_DIRECT.
dd if=/dev/urandom of="$mnt/dir/w" bs=64k count=8 conv=fsync status=none
w=$(ino dir/w)
dd if="$mnt/dir/w" of=/dev/null bs=64k count=2 iflag=direct status=none
dd if=/dev/zero of="$mnt/dir/w" bs=4k count=1 seek=1 conv=notrunc oflag=direct status=none
fio --name=aio --filename="$mnt/dir/w" --direct=1 --rw=read --bs=4k --size=64k \
	--ioengine=libaio --iodepth=4 --eta=never --output="$ORFS_WORK/fio.log" ||
	{ cat "$ORFS_WORK/fio.log"; fail "fio libaio"; }

echo 0 >"$T/events/orfs/enable"
cat "$T/trace" >"$ORFS_WORK/trace"
for e in "$T"/events/orfs/orfs_*; do
	e=${e##*/}
	n=$(grep -c " $e: " "$ORFS_WORK/trace" || true)
	[ "$n" -eq 0 ] || note "$e: $n"
done

# want EVENT REGEX: some EVENT line's fields match REGEX (anchored at both ends).
want() {
	grep -qE " $1: $2\$" "$ORFS_WORK/trace" && return 0
	echo "--- $1 events:"
	grep " $1: " "$ORFS_WORK/trace" | head -n 20
	fail "no $1 event matching '$2'"
}
# sum EVENT REGEX FIELD: the sum of FIELD=N over the EVENT lines matching REGEX.
sum() {
	grep -E " $1: $2" "$ORFS_WORK/trace" |
		sed -nE "s/.* $3=([0-9]+).*/\1/p" | awk '{ s += $1 } END { print s + 0 }'
}

want orfs_lookup "dev=$dev dir=$root name=dir ino=$d ret=0"
want orfs_lookup "dev=$dev dir=$d name=big ino=$big ret=0"
want orfs_lookup "dev=$dev dir=$d name=nope ino=0 ret=-2"
want orfs_lookup "dev=$dev dir=$d name=w ino=0 ret=-2"
want orfs_d_revalidate_cached "dev=$dev dir=$d name=big ino=$big ret=1"
want orfs_d_revalidate "dev=$dev2 dir=$d name=big ino=$big ret=1"
want orfs_revalidate_inode "dev=$dev ino=$big force=0 cached error=0 data_stale=0"
want orfs_revalidate_inode "dev=$dev2 ino=$big force=0 getattr error=0 data_stale=0"
# The open after the server's change: forced (close-to-open), data stale.
want orfs_revalidate_inode "dev=$dev2 ino=$big force=1 getattr error=0 data_stale=1"
want orfs_invalidate_mapping "dev=$dev2 ino=$big nrpages=512"

want orfs_readahead "dev=$dev ino=$big pos=0 count=[1-9][0-9]*"
want orfs_read_done "dev=$dev ino=$big pos=0 count=[1-9][0-9]* done=[1-9][0-9]* error=0"
n=$(sum orfs_read_done "dev=$dev ino=$big " "done")
[ "$n" -eq $((2 * 1048576)) ] || fail "readahead of big: read_done events sum to $n bytes"
want orfs_read_folio "dev=$dev ino=$mapped pos=196608 count=4096"
want orfs_read_done "dev=$dev ino=$mapped pos=196608 count=4096 done=4096 error=0"

want orfs_writeback_done "dev=$dev ino=$w pos=0 count=[1-9][0-9]* done=[1-9][0-9]* error=0"
n=$(sum orfs_writeback_done "dev=$dev ino=$w .*error=0" "done")
[ "$n" -eq 524288 ] || fail "write-back of w: writeback_done events sum to $n bytes"
want orfs_fsync "dev=$dev ino=$w start=0 end=9223372036854775807 datasync=0 error=0"

want orfs_direct_io "dev=$dev ino=$w read sync pos=0 count=65536 ret=65536"
want orfs_direct_io "dev=$dev ino=$w read sync pos=65536 count=65536 ret=65536"
want orfs_direct_io "dev=$dev ino=$w write sync pos=4096 count=4096 ret=4096"
want orfs_direct_io "dev=$dev ino=$w read async pos=[0-9]+ count=4096 ret=4096"

# The transport's events come with the same switch.
want orfs_send "conn=.* xid=.* op=[0-9]+ body=[0-9]+ data=[0-9]+"
