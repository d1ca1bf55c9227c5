#!/bin/bash
# The client's link goes down and comes back during activity: requests
# complete once it is back.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d"
for i in $(seq 1 20); do echo "$i" >"$exp/d/f$i"; done
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" / actimeo=0,timeo=30
( for r in $(seq 1 30); do ls -l "$mnt/d" >/dev/null || exit 1; sleep 0.1; done ) &
bg=$!
sleep 1
ip link set v1 down
sleep 3
ip link set v1 up
wait $bg || fail "activity failed across the link flap"
[ "$(ls "$mnt/d" | wc -l)" -eq 20 ] || fail "wrong listing after the flap"
umount "$mnt"
exit 0
