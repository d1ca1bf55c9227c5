#!/bin/bash
# orfsd's block cache (the Unifier) as clients see it, on an ext4 loop
# image (O_DIRECT backing files): re-reads after the clients dropped their
# page caches are served from the server cache; writes through one mount
# are seen by another (the server drops what they cover); two mounts of the
# export and one of a subdirectory at once; the statistics on the
# --control socket and by SIGUSR1; zero copy (memory windows for large
# READs, gathered replies for small ones); adaptive polling (the default)
# finds completions without events and sleeps when idle; then busy polling
# with the synchronous disk engine, buffered backing files (--direct-io=no)
# and no memory windows (--memory-windows=no: READs copy into staging
# buffers); then event polling.
. "$(dirname "$0")/lib.sh"
set -e
# Stop our orfsd even on failure (the runner's cleanup only knows "orfsd",
# not a differently named build such as ORFS_ORFSD=.../orfsd-asan).
trap 'orfs_server_stop' EXIT

# No sanitizer report (ORFS_ORFSD=server/build/orfsd-asan) in orfsd's log.
check_log() {
	! grep -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$ORFS_WORK/orfsd.log" ||
		fail "sanitizer report in the orfsd log"
}
exp=$ORFS_WORK/export
ctl=$ORFS_WORK/orfsd.ctl
m1=$ORFS_WORK/m1
m2=$ORFS_WORK/m2
m3=$ORFS_WORK/m3
mkdir -p "$exp"
truncate -s 128M "$ORFS_WORK/ext4.img"
mkfs.ext4 -q -F -b 4096 "$ORFS_WORK/ext4.img"
modprobe loop
mount -t ext4 -o loop "$ORFS_WORK/ext4.img" "$exp"
mkdir -p "$exp/sub"

# stat KEY: the value of KEY from the control socket.
stat_of() { orfsd_stat "$ctl" "$1"; }

orfs_insmod
orfs_server_start "$exp" --control "$ctl" --cache-size 64M
grep -q "backing-file I/O: io_uring" "$ORFS_WORK/orfsd.log" ||
	fail "orfsd does not use io_uring: $(grep -i 'i/o' "$ORFS_WORK/orfsd.log")"
orfs_mount "$m1" /
orfs_mount "$m2" /
orfs_mount "$m3" /sub
[ "$(stat_of connections)" -ge 3 ] || fail "expected 3 connections"
[ "$(stat_of cache_block_size)" -eq 65536 ] || fail "default block size"

# 8 MiB through m1, read back through m2 with cold client caches: misses,
# then again through m1: served from the server's cache.
head -c 8388608 /dev/urandom >"$ORFS_WORK/src"
dd if="$ORFS_WORK/src" of="$m1/big" bs=1M conv=fsync status=none
cmp "$ORFS_WORK/src" "$exp/big" || fail "server copy differs"
echo 3 >/proc/sys/vm/drop_caches
h0=$(stat_of cache_hits)
mi0=$(stat_of cache_misses)
cmp "$ORFS_WORK/src" "$m2/big" || fail "m2 reads different data"
h1=$(stat_of cache_hits)
mi1=$(stat_of cache_misses)
note "first read: $((mi1 - mi0)) misses, $((h1 - h0)) hits"
[ $((mi1 - mi0)) -ge 100 ] || fail "the first read did not fill the cache"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$m1/big" || fail "m1 reads different data"
h2=$(stat_of cache_hits)
mi2=$(stat_of cache_misses)
note "second read: $((mi2 - mi1)) misses, $((h2 - h1)) hits ($(stat_of cache_hit_percent)% overall)"
[ $((h2 - h1)) -ge 100 ] || fail "the re-read was not served from the server cache"
[ "$(stat_of disk_direct)" -gt 0 ] || fail "no O_DIRECT I/O on ext4"
# Granted READs from the cache: the clients RDMA-read the cache blocks
# through memory windows, nothing is copied to a staging buffer; small
# reads' inline replies are gathered from the blocks.
note "buffered reads: $(stat_of bytes_read_window) bytes through memory windows, $(stat_of bytes_read_grant) through staging buffers, $(stat_of bytes_read_gather) gathered inline, $(stat_of bytes_cache_copied) copied"
[ "$(stat_of bytes_read_window)" -ge 16777216 ] || fail "the reads did not go through memory windows"
[ "$(stat_of bytes_read_grant)" -eq 0 ] || fail "a READ was copied into a staging buffer"
[ "$(stat_of bytes_cache_copied)" -eq 0 ] || fail "data was copied between cache and buffers"
win=$(awk '$1 == "bytes_window_read" { print $2 }' "/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$m1")/counters")
[ "$win" -gt 0 ] || fail "m1 counted no RDMA READ from memory windows"
# A small file read back cold: an inline READ whose reply SEND gathers the
# bytes from the cache block.
head -c 3000 /dev/urandom >"$ORFS_WORK/small"
cp "$ORFS_WORK/small" "$m1/small"
sync -f "$m1/small"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/small" "$m2/small" || fail "small file reads different data"
[ "$(stat_of bytes_read_gather)" -ge 3000 ] || fail "the inline READ was not gathered from the cache"
[ "$(stat_of bytes_cache_copied)" -eq 0 ] || fail "the inline READ was copied"

# A write through m2 over cached data: m1 sees the new bytes.
python3 - "$m2/big" "$ORFS_WORK/src" <<'PY'
import os, sys
patch = os.urandom(300000)
for path in sys.argv[1:]:
    fd = os.open(path, os.O_WRONLY)
    os.pwrite(fd, patch, 70007)
    os.fsync(fd)
    os.close(fd)
PY
cmp "$ORFS_WORK/src" "$exp/big" || fail "server copy differs after the patch"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$m1/big" || fail "m1 reads stale data after m2 wrote"
# Truncate through m1: m2 sees the new size and content.
truncate -s 1000000 "$m1/big"
truncate -s 1000000 "$ORFS_WORK/src"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$m2/big" || fail "m2 reads stale data after truncate"

# The subdirectory mount and the whole-export mounts see each other.
head -c 1500000 /dev/urandom >"$ORFS_WORK/s2"
cp "$ORFS_WORK/s2" "$m3/f"
sync -f "$m3/f"
cmp "$ORFS_WORK/s2" "$m1/sub/f" || fail "m1 does not see m3's file"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/s2" "$m2/sub/f" || fail "m2 does not see m3's file"
rm "$m2/sub/f"
[ ! -e "$exp/sub/f" ] || fail "the removed file is still on the server"

# Direct I/O from the client through the cache: REMOTE (server RDMA) path,
# RDMA-written straight from the cache blocks (zero copy).
dd if="$ORFS_WORK/src" of="$m1/direct" bs=256k oflag=direct status=none
dd if="$m2/direct" of="$ORFS_WORK/back" bs=256k iflag=direct status=none
cmp "$ORFS_WORK/src" "$ORFS_WORK/back" || fail "O_DIRECT round trip differs"
[ "$(stat_of bytes_read_server_rdma)" -gt 0 ] || fail "no server RDMA counted"
note "O_DIRECT: $(stat_of bytes_read_server_rdma) bytes RDMA-written by the server, $(stat_of bytes_read_zero_copy) of them straight from cache blocks"
[ "$(stat_of bytes_read_zero_copy)" -gt 0 ] || fail "no zero-copy READ from the cache"
# Again, now from cached blocks (hits): still zero copy, same bytes.
echo 3 >/proc/sys/vm/drop_caches
dd if="$m1/direct" of="$ORFS_WORK/back2" bs=64k iflag=direct status=none
cmp "$ORFS_WORK/src" "$ORFS_WORK/back2" || fail "O_DIRECT re-read differs"

# SIGUSR1 logs the same statistics.
kill -USR1 "$ORFSD_PID"
sleep 1
grep -q "stats: cache_hits " "$ORFS_WORK/orfsd.log" || fail "SIGUSR1 logged no statistics"
note "errors: $(stat_of errors), requests: $(stat_of requests), disk reads: $(stat_of disk_reads), disk writes: $(stat_of disk_writes)"
# Memory windows keep the blocks a client was last shown pinned until it
# names that staging buffer again or disconnects: at most grants x
# (grant size / block size + 1) per connection, and none once all are gone.
pinned=$(stat_of cache_pinned_blocks)
note "blocks pinned by memory windows of 3 connections: $pinned"
[ "$pinned" -le $((3 * 16 * 17)) ] || fail "more blocks pinned than the windows can hold"

# Adaptive polling (the default): requests that followed each other were
# found by polling, without an event; an idle server went back to
# sleeping in epoll, and stays asleep (its CPU time stops growing).
note "polling: $(stat_of poll_events) events, $(stat_of poll_found) completions found by polling, $(stat_of poll_sleeps) sleeps"
[ "$(stat_of poll_found)" -gt 0 ] || fail "adaptive polling found no completion"
[ "$(stat_of poll_sleeps)" -gt 0 ] || fail "adaptive polling never went back to sleep"
# cpu_ticks: orfsd's user + system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$ORFSD_PID/stat"; }
sleep 1
t0=$(cpu_ticks)
sleep 3
t1=$(cpu_ticks)
note "an idle orfsd used $((t1 - t0)) ticks of CPU in 3 s ($(getconf CLK_TCK) per second)"
[ $((t1 - t0)) -le $(($(getconf CLK_TCK) / 5)) ] || fail "an idle adaptive-polling orfsd keeps spinning"

umount "$m3"
umount "$m2"
umount "$m1"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(stat_of connections)" -eq 0 ] && break
	sleep 1
done
[ "$(stat_of cache_pinned_blocks)" -eq 0 ] || fail "blocks left pinned after the clients left"
orfs_server_stop
[ ! -e "$ctl" ] || fail "the control socket was not removed"

# Busy polling, the synchronous engine, buffered backing files.
# Also without memory windows: granted READs copy into staging buffers.
orfs_server_start "$exp" --control "$ctl" --poll busy --io-engine sync \
	--direct-io=no --cache-block-size 16K --memory-windows=no
orfs_mount "$m1" /
[ "$(stat_of disk_engine)" = sync ] || fail "engine is not sync"
head -c 3000000 /dev/urandom >"$ORFS_WORK/src3"
dd if="$ORFS_WORK/src3" of="$m1/busy" bs=64k conv=fsync status=none
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src3" "$m1/busy" || fail "busy polling: read back differs"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src3" "$m1/busy" || fail "busy polling: re-read differs"
[ "$(stat_of disk_direct)" -eq 0 ] || fail "--direct-io=no used O_DIRECT"
[ "$(stat_of cache_hits)" -gt 0 ] || fail "busy polling: no cache hits"
[ "$(stat_of cache_block_size)" -eq 16384 ] || fail "--cache-block-size"
[ "$(stat_of bytes_read_window)" -eq 0 ] || fail "--memory-windows=no used windows"
[ "$(stat_of bytes_read_grant)" -gt 0 ] || fail "no READ through a staging buffer without windows"
[ "$(stat_of bytes_cache_copied)" -gt 0 ] || fail "the copy without windows was not counted"
umount "$m1"
orfs_server_stop

# Event polling: every completion wakes the loop through an event; none is
# found by polling.
orfs_server_start "$exp" --control "$ctl" --poll event
orfs_mount "$m1" /
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src3" "$m1/busy" || fail "event polling: read back differs"
[ "$(stat_of poll_events)" -gt 0 ] || fail "event polling counted no event"
[ "$(stat_of poll_found)" -eq 0 ] || fail "event polling polled"
umount "$m1"
orfs_server_stop
check_log
exit 0
