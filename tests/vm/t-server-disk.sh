#!/bin/bash
# orfsd's disk side under stress: a full backing filesystem gives ENOSPC at
# the client's fsync and damages no other file (ext4 loop image with
# O_DIRECT, and a small tmpfs with buffered I/O); kill -9 of orfsd during
# writes, then a restart: every write acknowledged by fsync is intact;
# SIGTERM while clients write: orfsd finishes what is in flight, syncs,
# exits 0, and the clients carry on with the next instance.
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
mnt=$ORFS_WORK/mnt
mkdir -p "$ORFS_WORK"
modprobe loop
orfs_insmod

# enospc EXPORT LABEL: fill EXPORT through the mount until it is full.
enospc() {
	local exp=$1 label=$2 out n
	orfs_server_start "$exp" --control "$ORFS_WORK/ctl"
	orfs_mount "$mnt" /
	head -c 1048576 /dev/urandom >"$ORFS_WORK/keep"
	cp "$ORFS_WORK/keep" "$mnt/keep"
	sync -f "$mnt/keep"
	if out=$(dd if=/dev/urandom of="$mnt/big" bs=1M count=64 conv=fsync 2>&1); then
		fail "$label: writing 64 MiB into a small filesystem succeeded"
	fi
	echo "$out" | grep -q "No space left on device" ||
		fail "$label: dd failed without ENOSPC: $out"
	note "$label: $(echo "$out" | grep -m1 'No space')"
	cmp "$ORFS_WORK/keep" "$exp/keep" || fail "$label: the other file was damaged"
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$ORFS_WORK/keep" "$mnt/keep" || fail "$label: the mount reads it differently"
	rm -f "$mnt/big"
	# fsync of the new file only: syncfs would report big's write-back
	# errors again.
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"after\n")
os.fsync(fd)' "$mnt/small" || fail "$label: no write after freeing space"
	[ "$(cat "$exp/small")" = after ] || fail "$label: the write after freeing space is missing"
	n=$(orfsd_stat "$ORFS_WORK/ctl" errors_ENOSPC 2>/dev/null) || n=0
	echo "  errors_ENOSPC $n"
	[ "$n" -gt 0 ] || fail "$label: no ENOSPC counted"
	umount "$mnt"
	orfs_server_stop
}

# 1. ENOSPC on ext4 (O_DIRECT backing files) and on tmpfs (buffered).
mkdir -p "$ORFS_WORK/ext4" "$ORFS_WORK/tmpfs"
truncate -s 24M "$ORFS_WORK/small.img"
mkfs.ext4 -q -F -b 4096 -m 0 "$ORFS_WORK/small.img"
mount -t ext4 -o loop "$ORFS_WORK/small.img" "$ORFS_WORK/ext4"
enospc "$ORFS_WORK/ext4" ext4
mount -t tmpfs -o size=16m tmpfs "$ORFS_WORK/tmpfs"
enospc "$ORFS_WORK/tmpfs" tmpfs
umount "$ORFS_WORK/ext4" "$ORFS_WORK/tmpfs"

# 2. kill -9 during writes: what fsync acknowledged survives the restart.
exp=$ORFS_WORK/export
mkdir -p "$exp" "$ORFS_WORK/src"
truncate -s 128M "$ORFS_WORK/data.img"
mkfs.ext4 -q -F -b 4096 "$ORFS_WORK/data.img"
mount -t ext4 -o loop "$ORFS_WORK/data.img" "$exp"
for i in $(seq 1 30); do
	head -c $((200000 + i * 12345)) /dev/urandom >"$ORFS_WORK/src/f$i"
done
orfs_server_start "$exp"
orfs_mount "$mnt" / timeo=50
: >"$ORFS_WORK/acked"
( for i in $(seq 1 30); do
	dd if="$ORFS_WORK/src/f$i" of="$mnt/f$i" bs=64k conv=fsync status=none &&
		echo "f$i" >>"$ORFS_WORK/acked"
  done ) &
writer=$!
for _ in $(seq 1 300); do
	[ "$(wc -l <"$ORFS_WORK/acked")" -ge 5 ] && break
	sleep 0.1
done
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
acked=$(wc -l <"$ORFS_WORK/acked")
note "orfsd killed after $acked acknowledged files"
for f in $(cat "$ORFS_WORK/acked"); do
	cmp "$ORFS_WORK/src/$f" "$exp/$f" || fail "$f was acknowledged but differs after kill -9"
done
sleep 1
orfs_server_start "$exp"
timeout 300 bash -c "while kill -0 $writer 2>/dev/null; do sleep 0.5; done" ||
	fail "the writer did not finish after the restart"
[ "$(wc -l <"$ORFS_WORK/acked")" -eq 30 ] || fail "not every file was acknowledged"
for i in $(seq 1 30); do
	cmp "$ORFS_WORK/src/f$i" "$exp/f$i" || fail "f$i differs after the restart"
done
echo 3 >/proc/sys/vm/drop_caches
for i in 1 15 30; do
	cmp "$ORFS_WORK/src/f$i" "$mnt/f$i" || fail "the mount reads f$i differently"
done

# 3. SIGTERM while clients write and read: drain, sync, exit 0.
head -c $((24 * 1048576)) /dev/urandom >"$ORFS_WORK/src/stream"
( rc=0; dd if="$ORFS_WORK/src/stream" of="$mnt/stream" bs=1M conv=fsync status=none || rc=$?
  echo $rc >"$ORFS_WORK/stream.rc" ) &
writer=$!
( while [ ! -e "$ORFS_WORK/stop-reader" ]; do
	cat "$mnt"/f1* >/dev/null 2>&1; echo 3 >/proc/sys/vm/drop_caches
  done ) &
reader=$!
for _ in $(seq 1 200); do
	[ "$(stat -c %s "$exp/stream" 2>/dev/null || echo 0)" -gt $((4 * 1048576)) ] && break
	sleep 0.1
done
t0=$(date +%s)
kill -TERM "$ORFSD_PID"
rc=0
wait "$ORFSD_PID" || rc=$?
t1=$(date +%s)
ORFSD_PID=
note "orfsd exited with $rc after $((t1 - t0)) s: $(grep -E 'drained|drain timed out' "$ORFS_WORK/orfsd.log" | tail -n 1)"
[ $rc -eq 0 ] || fail "orfsd exited with status $rc on SIGTERM"
[ $((t1 - t0)) -le 15 ] || fail "the drain took $((t1 - t0)) s"
grep -q "export synced to stable storage" "$ORFS_WORK/orfsd.log" ||
	fail "no sync at shutdown"
grep -q "drained:" "$ORFS_WORK/orfsd.log" || fail "the drain did not complete"
sleep 1
orfs_server_start "$exp"
timeout 300 bash -c "while kill -0 $writer 2>/dev/null; do sleep 0.5; done" ||
	fail "the writer did not finish after the restart"
touch "$ORFS_WORK/stop-reader"
wait "$reader" 2>/dev/null || true
[ "$(cat "$ORFS_WORK/stream.rc")" = 0 ] || fail "the write failed across the SIGTERM"
cmp "$ORFS_WORK/src/stream" "$exp/stream" || fail "stream differs after the SIGTERM"
umount "$mnt"
orfs_server_stop
check_log
exit 0
