#!/bin/bash
# O_DIRECT: zero-copy; reads through FRWR registrations, moved by the
# server's own RDMA; writes pushed by the client (direct_inline,
# direct_push), or registered and read by the server with direct_push=N.
# fio with verify=crc32c through psync, libaio and io_uring at
# iodepth 1 and 32; dd; address-space changes under direct I/O (munmap and
# remap, fork, MADV_DONTNEED); buffered and direct I/O mixed on one file.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" /
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
ctr() { orfs_sysfs "$mnt" counters "$1"; }
# param NAME VALUE: set a module parameter of orfs.
param() { echo "$2" >"/sys/module/orfs/parameters/$1"; }
# The defaults, whatever an earlier test left behind.
param direct_inline Y
param direct_push Y

# dd both ways, compared with the server's copy.  1 MiB writes are pushed
# by the client's RDMA WRITE into staging buffers (direct_push), with
# nothing registered; reads are registered and written by the server.
head -c $((6 * 1048576 + 12345)) /dev/urandom >"$ORFS_WORK/src"
regs0=$(ctr mr_registrations) cw0=$(ctr bytes_client_rdma_write)
dd if="$ORFS_WORK/src" of="$mnt/dd" bs=1M oflag=direct status=none
cmp "$ORFS_WORK/src" "$exp/dd" || fail "dd oflag=direct: server copy differs"
[ "$(ctr mr_registrations)" -eq "$regs0" ] || fail "1 MiB O_DIRECT writes registered memory"
[ "$(( $(ctr bytes_client_rdma_write) - cw0 ))" -ge $((6 * 1048576)) ] ||
	fail "1 MiB O_DIRECT writes did not move by the client's RDMA WRITE"
srv0=$(ctr bytes_server_rdma)
dd if="$mnt/dd" of="$ORFS_WORK/back" bs=1M iflag=direct status=none
cmp "$ORFS_WORK/src" "$ORFS_WORK/back" || fail "dd iflag=direct: data differs"
regs=$(( $(ctr mr_registrations) - regs0 ))
note "dd: $regs registrations, $(ctr bytes_server_rdma) bytes moved by the server"
[ "$regs" -gt 0 ] || fail "O_DIRECT reads did not register the user buffer"
[ "$(( $(ctr bytes_server_rdma) - srv0 ))" -ge $((6 * 1048576)) ] ||
	fail "O_DIRECT reads did not move by the server's RDMA"
# With direct_push=N the same writes are registered and read by the server.
regs0=$(ctr mr_registrations) srv0=$(ctr bytes_server_rdma)
param direct_push N
dd if="$ORFS_WORK/src" of="$mnt/dd2" bs=1M oflag=direct status=none
param direct_push Y
cmp "$ORFS_WORK/src" "$exp/dd2" || fail "direct_push=N: server copy differs"
[ "$(ctr mr_registrations)" -gt "$regs0" ] || fail "direct_push=N: writes did not register"
[ "$(( $(ctr bytes_server_rdma) - srv0 ))" -ge $((6 * 1048576)) ] ||
	fail "direct_push=N: writes did not move by the server's RDMA READ"
rm -f "$mnt/dd2"

# Writes up to the inline threshold go in the SEND (direct_inline): no
# registration; with direct_inline=N the same writes are registered.
regs0=$(ctr mr_registrations)
out0=$(ctr bytes_inline_out)
dd if="$ORFS_WORK/src" of="$mnt/small" bs=4k count=64 oflag=direct status=none
cmp -n 262144 "$ORFS_WORK/src" "$exp/small" || fail "4 KiB O_DIRECT writes: server copy differs"
[ "$(ctr mr_registrations)" -eq "$regs0" ] || fail "4 KiB O_DIRECT writes registered memory"
[ "$(( $(ctr bytes_inline_out) - out0 ))" -ge 262144 ] ||
	fail "4 KiB O_DIRECT writes did not go inline"
param direct_inline N
param direct_push N
dd if="$ORFS_WORK/src" of="$mnt/small2" bs=4k count=64 oflag=direct status=none
param direct_inline Y
param direct_push Y
cmp -n 262144 "$ORFS_WORK/src" "$exp/small2" || fail "direct_inline=N: server copy differs"
[ "$(ctr mr_registrations)" -gt "$regs0" ] || fail "direct_inline=N: 4 KiB writes did not register"
rm -f "$mnt/small" "$mnt/small2"

# fio with verification, random and sequential, three engines, two depths.
run_fio() {
	local name=$1
	shift
	fio --name="$name" --directory="$mnt" --direct=1 --size=8m --eta=never \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output="$ORFS_WORK/fio-$name.log" "$@" ||
		{ cat "$ORFS_WORK/fio-$name.log"; fail "fio $name"; }
	grep -q "err= 0" "$ORFS_WORK/fio-$name.log" ||
		{ cat "$ORFS_WORK/fio-$name.log"; fail "fio $name reported an error"; }
	note "fio $name ok"
}
run_fio rand-psync --rw=randwrite --bs=4k --ioengine=psync
run_fio seq-libaio-1 --rw=write --bs=1m --ioengine=libaio --iodepth=1
run_fio rand-libaio-32 --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32
run_fio seq-uring-32 --rw=write --bs=256k --ioengine=io_uring --iodepth=32
run_fio rand-uring-1 --rw=randwrite --bs=16k --ioengine=io_uring --iodepth=1
run_fio mixed-libaio-32 --rw=randrw --bs=8k --ioengine=libaio --iodepth=32 \
	--verify_backlog=64
rm -f "$mnt"/rand-* "$mnt"/seq-* "$mnt"/mixed-*
# Their asynchronous READs (verification, randrw) used cached registrations,
# so they completed from the reply's completion, not from the worker.
early=$(ctr direct_early_completions)
note "asynchronous READs completed early: $early"
[ "$early" -gt 0 ] || fail "no asynchronous O_DIRECT READ completed early"
# Asynchronous requests of one READ or WRITE were posted by fio itself.
posted=$(ctr direct_submitter_posts)
note "asynchronous requests posted by their submitter: $posted"
[ "$posted" -gt 0 ] || fail "no asynchronous O_DIRECT request was posted by its submitter"
# Unmounting right after asynchronous reads waits for their workers (a
# bad wait would leave the mount busy, or free the client under them).
fio --name=early --filename="$mnt/early" --direct=1 --size=4m --eta=never \
	--rw=randread --bs=4k --ioengine=libaio --iodepth=16 --number_ios=2000 \
	--output="$ORFS_WORK/fio-early.log" || { cat "$ORFS_WORK/fio-early.log"; fail "fio early"; }
umount "$mnt" || fail "umount right after asynchronous reads"
orfs_mount "$mnt" /
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")

# Address-space changes under direct I/O.
gcc -O2 -Wall -o "$ORFS_WORK/dio_remap" "$ORFS_TOP/tests/vm/tools/dio_remap.c" ||
	fail "cannot build dio_remap"
"$ORFS_WORK/dio_remap" "$mnt/remap" || fail "dio_remap"
# ... and with its writes registered too (cached registrations of writes).
param direct_inline N
param direct_push N
"$ORFS_WORK/dio_remap" "$mnt/remap" || fail "dio_remap (direct writes registered)"
param direct_inline Y
param direct_push Y

# Vectored I/O of a 2-D subarray (the case of [Wu04, Table 4.1]): rows 3
# pages apart are registered as one region (OGR); rows across an unmapped
# hole are not.
gcc -O2 -Wall -o "$ORFS_WORK/dio_ogr" "$ORFS_TOP/tests/vm/tools/dio_ogr.c" ||
	fail "cannot build dio_ogr"
# 16 rows (ORFS_RSEG_MAX) each 3 pages apart are one region: the pwritev
# is one WRITE and the preadv one READ, each grouped (dio_ogr also reads
# the file once through the page cache, which is not counted as grouped).
w0=$(orfs_sysfs "$mnt" requests write) g0=$(ctr ogr_groups)
"$ORFS_WORK/dio_ogr" "$mnt/ogr0" 16 4096 16384 >/dev/null || fail "dio_ogr 16 rows"
w=$(( $(orfs_sysfs "$mnt" requests write) - w0 )) g=$(( $(ctr ogr_groups) - g0 ))
note "OGR, 16 rows: $w WRITE, $g grouped requests"
[ "$w/$g" = 1/2 ] || fail "OGR split 16 rows: $w WRITEs, $g grouped requests (want 1 and 2)"
g0=$(ctr ogr_groups) f0=$(ctr ogr_fallbacks)
"$ORFS_WORK/dio_ogr" "$mnt/ogr1" 64 4096 16384 >/dev/null || fail "dio_ogr aligned rows"
"$ORFS_WORK/dio_ogr" "$mnt/ogr2" 40 3000 5000 >/dev/null || fail "dio_ogr unaligned rows"
"$ORFS_WORK/dio_ogr" "$mnt/ogr3" 16 4096 16384 hole >/dev/null || fail "dio_ogr with a hole"
note "OGR: $(( $(ctr ogr_groups) - g0 )) grouped requests, $(( $(ctr ogr_fallbacks) - f0 )) fallbacks"
[ "$(( $(ctr ogr_groups) - g0 ))" -gt 0 ] || fail "OGR never grouped segments"
[ "$(( $(ctr ogr_fallbacks) - f0 ))" -gt 0 ] || fail "OGR did not fall back at an unmapped hole"

# Buffered and direct I/O on one file, in one process: each sees the other.
python3 - "$mnt/mix" <<'PY' || fail "buffered/direct coherence"
import mmap, os, sys
p = sys.argv[1]
buf = mmap.mmap(-1, 1 << 20)            # page-aligned anonymous buffer
b = os.open(p, os.O_RDWR | os.O_CREAT, 0o644)
d = os.open(p, os.O_RDWR | os.O_DIRECT)
os.pwrite(b, b"A" * 65536, 0)            # dirty in the page cache
buf[:65536] = b"\0" * 65536
os.preadv(d, [memoryview(buf)[:65536]], 0)
assert buf[:65536] == b"A" * 65536, "direct read missed dirty buffered data"
buf[:65536] = b"B" * 65536
os.pwritev(d, [memoryview(buf)[:65536]], 0)
assert os.pread(b, 65536, 0) == b"B" * 65536, "buffered read saw stale cache"
m = mmap.mmap(b, 65536)
assert m[:4] == b"BBBB"
buf[:4096] = b"C" * 4096
os.pwritev(d, [memoryview(buf)[:4096]], 0)
assert m[:4] == b"CCCC", "mmap saw stale data after a direct write"
m.close()
# A direct read of a hole that only a dirty page further on puts inside
# the file: the server must know that page, or it answers end of file.
os.fsync(b)
os.pwrite(b, b"D" * 100, 1 << 20)        # dirty, extends the file
buf[:8192] = b"x" * 8192
n = os.preadv(d, [memoryview(buf)[:8192]], 1 << 19)
assert n == 8192 and buf[:8192] == b"\0" * 8192, \
    "direct read of a hole below a dirty end of file returned %d bytes" % n
print("buffered/direct coherence ok")
PY

# The registration cache (default regcache=fmrd): fio reuses its buffers,
# so after the first pass nearly every request hits a cached registration.
# Its writes are registered too here (direct_push=N), and so are those of
# the short-lived processes below.
param direct_push N
h0=$(ctr regcache_hits) m0=$(ctr regcache_misses)
fio --name=rc --directory="$mnt" --direct=1 --size=16m --eta=never \
	--rw=randwrite --bs=64k --ioengine=libaio --iodepth=8 \
	--output="$ORFS_WORK/fio-rc.log" || { cat "$ORFS_WORK/fio-rc.log"; fail "fio rc"; }
hits=$(( $(ctr regcache_hits) - h0 )) misses=$(( $(ctr regcache_misses) - m0 ))
note "regcache: $hits hits, $misses misses, $(ctr regcache_dereg_batches) batches" \
	"retiring $(ctr regcache_dereg_entries), $(ctr regcache_invalidations) invalidations"
[ "$hits" -gt $((4 * misses)) ] || fail "the registration cache did not hit ($hits/$misses)"
# The mount has two connections (the default on two CPUs), each with its
# own cache: the requests on one buffer keep to one of them, so dd's single
# buffer is registered once, not once per connection.
nc=$(( $(nproc) < 2 ? 1 : 2 ))
grep " $mnt orfs " /proc/mounts | grep -q "[ ,]nconnect=$nc[, ]" ||
	fail "default nconnect is not $nc: $(grep " $mnt orfs " /proc/mounts)"
# A request takes the least busy connection, the first on a tie: one at a
# time (one process, metadata) keeps to connection 0, and concurrent ones
# spread over both.  "connections": "N up requests R inflight U ...".
conn_reqs() { awk -v i="$1" '$1 == i { print $4 }' "$sys/connections"; }
[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq "$nc" ] ||
	fail "not all $nc connections up: $(cat "$sys/connections")"
if [ "$nc" -eq 2 ]; then
	sync
	a0=$(conn_reqs 0) a1=$(conn_reqs 1)
	for i in $(seq 1 40); do
		: >"$mnt/conn$i"
		rm "$mnt/conn$i"
	done
	d0=$(( $(conn_reqs 0) - a0 )) d1=$(( $(conn_reqs 1) - a1 ))
	note "one process, 80 creates and removes: $d0 requests on connection 0, $d1 on 1"
	[ "$d0" -ge 80 ] && [ "$d1" -eq 0 ] ||
		fail "requests made one at a time did not all take connection 0 ($d0 / $d1)"
	a1=$(conn_reqs 1)
	# Buffered, so that no O_DIRECT affinity is involved: four readers
	# missing the page cache at once.
	echo 3 >/proc/sys/vm/drop_caches
	fio --name=spread --filename="$mnt/dd" --rw=randread --bs=4k --size=6m \
		--ioengine=psync --numjobs=4 --eta=never \
		--output="$ORFS_WORK/fio-spread.log" || { cat "$ORFS_WORK/fio-spread.log"; fail "fio spread"; }
	d1=$(( $(conn_reqs 1) - a1 ))
	note "four readers at once: $d1 requests took connection 1"
	[ "$d1" -gt 0 ] || fail "concurrent requests never took connection 1: $(cat "$sys/connections")"
fi
h0=$(ctr regcache_hits) m0=$(ctr regcache_misses)
dd if="$mnt/dd" of=/dev/null bs=64k count=64 iflag=direct status=none
hits=$(( $(ctr regcache_hits) - h0 )) misses=$(( $(ctr regcache_misses) - m0 ))
note "one buffer, $nc connection(s): $hits hits, $misses misses"
[ "$misses" -eq 1 ] && [ "$hits" -eq 63 ] ||
	fail "dd's one buffer: $misses registrations and $hits hits, want 1 and 63"
# expect_unpinned WHAT: the cache's pinned pages drop to 0 within 5 s.
expect_unpinned() {
	for _ in $(seq 1 50); do
		[ "$(ctr regcache_pinned_pages)" -eq 0 ] && return 0
		sleep 0.1
	done
	fail "$(ctr regcache_pinned_pages) pages still pinned after $1"
}
# fio has exited: its registrations were invalidated and released.
expect_unpinned "fio exited"
rm -f "$mnt"/rc.*
# Many short-lived processes, each with registrations of its own.
# (wait on these pids only: a bare wait would wait for orfsd too)
pids=
for i in $(seq 1 30); do
	dd if="$ORFS_WORK/src" of="$mnt/many$((i % 3))" bs=64k count=8 \
		oflag=direct conv=notrunc status=none &
	pids="$pids $!"
	if [ $((i % 6)) -eq 0 ]; then
		# shellcheck disable=SC2086
		wait $pids || fail "a short-lived direct writer failed"
		pids=
	fi
done
expect_unpinned "30 processes exited"
cmp -n 524288 "$ORFS_WORK/src" "$exp/many1" || fail "data of the short-lived writers differs"
param direct_push Y

# Nothing stays registered or pinned once the I/O is done.
sync
echo 3 >/proc/sys/vm/drop_caches
umount "$mnt"
grep -q " $mnt " /proc/mounts && fail "still mounted"

# regcache=dynamic: a registration per request, never a hit.
orfs_mount "$mnt" / regcache=dynamic
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
grep -q "regcache=dynamic" /proc/mounts || fail "regcache=dynamic not shown"
dd if="$ORFS_WORK/src" of="$mnt/dyn" bs=1M oflag=direct status=none
cmp "$ORFS_WORK/src" "$exp/dyn" || fail "regcache=dynamic: data differs"
dd if="$mnt/dyn" of="$ORFS_WORK/back" bs=1M iflag=direct status=none
cmp "$ORFS_WORK/src" "$ORFS_WORK/back" || fail "regcache=dynamic: data read back differs"
[ "$(ctr regcache_hits)" -eq 0 ] || fail "regcache=dynamic hit the cache"
# (one registration per READ: dd made seven)
[ "$(ctr mr_registrations)" -ge 6 ] ||
	fail "regcache=dynamic did not register per request: $(cat "$sys/counters")"
"$ORFS_WORK/dio_remap" "$mnt/remap2" || fail "dio_remap (dynamic)"
# A per-request registration is invalidated before its READ completes.
fio --name=dyn --filename="$mnt/dyn" --direct=1 --size=4m --eta=never \
	--rw=randread --bs=4k --ioengine=libaio --iodepth=8 --number_ios=200 \
	--output="$ORFS_WORK/fio-dyn.log" || { cat "$ORFS_WORK/fio-dyn.log"; fail "fio dyn"; }
[ "$(ctr direct_early_completions)" -eq 0 ] ||
	fail "regcache=dynamic: a READ completed before its invalidation"
umount "$mnt"
expect_fail "" mount -t orfs -o regcache=sometimes "$ORFS_SRV_ADDR:/" "$mnt"
orfs_server_stop
