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
umount "$mnt"
exit 0
