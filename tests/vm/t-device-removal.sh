#!/bin/bash
# The client's RDMA device is removed under a live mount: removal does not
# hang, the mount waits, and it recovers once the device is back.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d"
echo hello >"$exp/d/f"
orfs_insmod
orfs_server_start "$exp"
# Two connections (the default on two CPUs, given here so that one-CPU
# VMs test it too): every one of them must let the device go.
orfs_mount "$mnt" / actimeo=0,nconnect=2
stat "$mnt/d/f" >/dev/null

timeout 30 rdma link delete rxe1 || fail "removing rxe1 hung or failed"
dmesg | tail -n 20 | grep -q "rxe1 is being removed" || { dmesg | tail -n 40; fail "no removal log line"; }
# While the device is gone the hard mount waits; bring it back.
( sleep 3; rdma link add rxe1 type rxe netdev v1 ) &
readd=$!
timeout 60 stat "$mnt/d/f" >/dev/null || fail "mount did not recover after the device came back"
wait $readd
[ "$(cat "$mnt/d/f")" = hello ] || fail "wrong data after recovery"
umount "$mnt"
exit 0
