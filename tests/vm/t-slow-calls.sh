#!/bin/bash
# One slow system call does not stall the other clients (issue 37, defect
# 9).  Removing or truncating a file with many extents makes ext4 free them
# all inside the unlinkat(2) or ftruncate(2) call; orfsd makes those calls
# on an offload thread (server/ops_ns.c, server/ops_attr.c), so its event
# loop keeps answering everyone else meanwhile.
#
# The export is ext4 on a sparse loop image.  Two 4 GiB files are allocated
# on the server with fallocate(1) and fragmented (a 4 KiB hole punched
# every 64 KiB: 65536 extents each, as a file written in small random
# pieces would have), because freeing the few 128 MiB extents of a freshly
# fallocated file takes milliseconds, not a stall worth measuring.  Mount A
# removes one (UNLINK) and truncates the other to 0 (SETATTR with a size),
# while mount B, over its own connection, stats another file every few
# milliseconds with actimeo=0 (a request each, GETATTR or LOOKUP).  B's slowest GETATTR must
# stay far below the time A's call took.  The call itself must take long
# enough (SLOW_MIN_MS) for a stall to be visible at all, or the test fails
# as unable to tell.
. "$(dirname "$0")/lib.sh"
set -e
img=$ORFS_WORK/slow.img
exp=$ORFS_WORK/slowfs
a=$ORFS_WORK/a
b=$ORFS_WORK/b
probe_out=$ORFS_WORK/probe.out
SLOW_MIN_MS=${SLOW_MIN_MS:-400}
mkdir -p "$ORFS_WORK" "$exp"
modprobe loop || fail "modprobe loop"

truncate -s 10G "$img"
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=1 -J size=16 "$img" || fail "mkfs.ext4 $img"
loopdev=$(losetup -f --show "$img") || fail "losetup $img"
mount -t ext4 "$loopdev" "$exp" || fail "mount $loopdev"
mkdir "$exp/big" "$exp/probe"
echo probe >"$exp/probe/f"

# fragmented PATH: a 4 GiB allocated file of 65536 extents.
fragmented() {
	fallocate -l 4G "$1" || fail "fallocate $1"
	python3 - "$1" <<'PY' || fail "cannot fragment $1"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_WRONLY)
step = 64 << 10
# FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: the last 4 KiB of each 64 KiB
for off in range(step - 4096, 4 << 30, step):
    if libc.fallocate(fd, 3, off, 4096) != 0:
        sys.exit("punch at %d: %s" % (off, os.strerror(ctypes.get_errno())))
os.fsync(fd)
os.close(fd)
PY
}
fragmented "$exp/big/unlink-me"
fragmented "$exp/big/truncate-me"
sync
# filefrag's summary merges extents whose logical and physical gaps match
# (a punched hole's block is both); -v lists the file system's extents.
ext=$(filefrag -v "$exp/big/unlink-me" | grep -c '^ *[0-9]*:')
[ "$ext" -ge 10000 ] || fail "the file has only $ext extents"
note "two 4 GiB files of $ext extents each on ext4"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$a" / actimeo=0
orfs_mount "$b" / actimeo=0
[ "$(awk '$3 == "orfs"' /proc/mounts | wc -l)" -eq 2 ] || fail "two mounts expected"
stat "$a/big/unlink-me" "$a/big/truncate-me" >/dev/null
stat "$b/probe/f" >/dev/null

# probe START_FILE STOP_FILE: stat B's file until STOP_FILE exists; print
# "count max_ms median_ms" of the stats made after START_FILE appeared.
probe() {
	python3 - "$b/probe/f" "$1" "$2" <<'PY'
import os, sys, time
path, start, stop = sys.argv[1:4]
lat = []
while not os.path.exists(start):
    time.sleep(0.001)
while not os.path.exists(stop):
    t0 = time.monotonic()
    os.stat(path)
    lat.append(time.monotonic() - t0)
    time.sleep(0.002)
lat.sort()
print(len(lat), round(lat[-1] * 1000, 1), round(lat[len(lat) // 2] * 1000, 2))
PY
}

# sent_b: GETATTRs and LOOKUPs mount B sent so far (with actimeo=0, a stat
# sends at least one: the attributes, or the name's revalidation).
sent_b() {
	echo $(($(orfs_sysfs "$b" requests getattr) + $(orfs_sysfs "$b" requests lookup)))
}

# measure NAME CMD...: run CMD on mount A while B probes; fail if B stalled.
measure() {
	local name=$1 t0 t1 ms n max med getattr0 getattr1
	shift
	rm -f "$ORFS_WORK/start" "$ORFS_WORK/stop"
	getattr0=$(sent_b)
	probe "$ORFS_WORK/start" "$ORFS_WORK/stop" >"$probe_out" &
	local pid=$!
	sleep 0.5
	touch "$ORFS_WORK/start"
	sleep 0.3
	t0=$(date +%s%N)
	"$@" || fail "$name: $* failed"
	t1=$(date +%s%N)
	sleep 0.3
	touch "$ORFS_WORK/stop"
	wait "$pid" || fail "$name: the probe failed"
	getattr1=$(sent_b)
	read -r n max med <"$probe_out"
	ms=$(((t1 - t0) / 1000000))
	note "$name: took $ms ms on A; B made $n stats meanwhile, slowest $max ms, median $med ms"
	[ $((getattr1 - getattr0)) -ge "$n" ] || fail "$name: B's stats sent $((getattr1 - getattr0)) GETATTRs and LOOKUPs for $n stats"
	[ "$ms" -ge "$SLOW_MIN_MS" ] ||
		fail "$name took only $ms ms: too fast to show a stall (SLOW_MIN_MS $SLOW_MIN_MS)"
	[ "$n" -ge 20 ] || fail "$name: B made only $n stats"
	# The slowest GETATTR: under a quarter of the slow call, and 250 ms.
	python3 -c 'import sys; m, s = float(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if m < min(s / 4, 250) else 1)' "$max" "$ms" ||
		fail "$name: B's GETATTR stalled $max ms while A's call took $ms ms"
}

measure "UNLINK of a 4 GiB file" rm "$a/big/unlink-me"
[ ! -e "$exp/big/unlink-me" ] || fail "the file is still on the server"
measure "truncate of a 4 GiB file" truncate -s 0 "$a/big/truncate-me"
[ "$(stat -c %s "$exp/big/truncate-me")" = 0 ] || fail "the file was not truncated"
[ "$(stat -c %s "$a/big/truncate-me")" = 0 ] || fail "A does not see the truncation"

umount "$a"
umount "$b"
orfs_server_stop
umount "$exp"
losetup -d "$loopdev"
exit 0
