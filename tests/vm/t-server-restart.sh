#!/bin/bash
# kill -9 of orfsd in the middle of activity, then a restart: the hard mount
# reconnects on its own, file handles stay valid, and the work completes.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d"
for i in $(seq 1 50); do echo "$i" >"$exp/d/f$i"; done

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" / actimeo=0,timeo=50
ls -l "$mnt/d" >/dev/null	# inodes (server handles) cached across the restart

# Metadata traffic in the background while the server dies and returns.
( for r in $(seq 1 40); do ls -l "$mnt/d" >/dev/null || exit 1; done ) &
bg=$!
sleep 1
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
sleep 2
orfs_server_start "$exp"
wait $bg || fail "listing failed across the restart"
[ "$(ls "$mnt/d" | wc -l)" -eq 50 ] || fail "wrong listing after restart"
stat "$mnt/d/f7" >/dev/null
dir=$(grep -l . /sys/fs/orfs/*/counters | head -n 1)
note "$(grep reconnects "$dir")"
[ "$(awk '$1 == "reconnects" { print $2 }' "$dir")" -ge 1 ] || fail "no reconnect counted"

# kill -9 in the middle of a large write through the RDMA path, then a
# restart: the writer's fsync succeeds, and every byte is on the server.
head -c $((48 * 1048576)) /dev/urandom >"$ORFS_WORK/src"
( rc=0; dd if="$ORFS_WORK/src" of="$mnt/big" bs=1M conv=fsync status=none || rc=$?
  echo $rc >"$ORFS_WORK/dd.rc" ) &
writer=$!
for _ in $(seq 1 200); do
	[ "$(stat -c %s "$exp/big" 2>/dev/null || echo 0)" -gt $((4 * 1048576)) ] && break
	sleep 0.1
done
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
note "server killed with $(stat -c %s "$exp/big") bytes of 48 MiB written"
sleep 2
orfs_server_start "$exp"
timeout 300 bash -c "while kill -0 $writer 2>/dev/null; do sleep 0.5; done" ||
	fail "the writer did not finish after the restart"
[ "$(cat "$ORFS_WORK/dd.rc")" = 0 ] || fail "the write failed across the restart"
cmp "$ORFS_WORK/src" "$exp/big" || fail "the server's copy differs after the restart"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$mnt/big" || fail "the mount reads back different data"

# kill -9 under asynchronous O_DIRECT at depth 16: requests that fio's own
# io_submit posted (direct_submitter_posts) and that were in flight are
# sent again on the new connection, and fio's verification reads every
# block back.
posted=$(awk '$1 == "direct_submitter_posts" { print $2 }' "$dir")
fio --name=adio --filename="$mnt/adio" --size=64m --direct=1 --ioengine=libaio \
	--iodepth=16 --rw=randwrite --bs=4k --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --eta=never --output="$ORFS_WORK/fio-adio.log" &
fiopid=$!
for _ in $(seq 1 100); do
	[ "$(awk '$1 == "direct_submitter_posts" { print $2 }' "$dir")" -gt $((posted + 500)) ] && break
	sleep 0.1
done
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
note "server killed after $(($(awk '$1 == "direct_submitter_posts" { print $2 }' "$dir") - posted)) asynchronous O_DIRECT requests"
sleep 2
orfs_server_start "$exp"
wait $fiopid || { cat "$ORFS_WORK/fio-adio.log"; fail "asynchronous O_DIRECT failed across the restart"; }
grep -q "err= 0" "$ORFS_WORK/fio-adio.log" ||
	{ cat "$ORFS_WORK/fio-adio.log"; fail "fio reported an error across the restart"; }
umount "$mnt"
exit 0
