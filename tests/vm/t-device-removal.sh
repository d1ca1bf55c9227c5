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
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq 2 ] ||
	fail "two connections are not up: $(cat "$sys/connections")"

timeout 30 rdma link delete rxe1 || fail "removing rxe1 hung or failed"
dmesg | tail -n 20 | grep -q "rxe1 is being removed" || { dmesg | tail -n 40; fail "no removal log line"; }
# The connections were let go, and sysfs says so without waiting.
conns=$(timeout 10 cat "$sys/connections") || fail "reading connections hung"
[ "$(grep -c '^[0-9]* down ' <<<"$conns")" -eq 2 ] || fail "after removal: $conns"
# While the device is gone the hard mount waits; bring it back.
( sleep 3; rdma link add rxe1 type rxe netdev v1 ) &
readd=$!
timeout 60 stat "$mnt/d/f" >/dev/null || fail "mount did not recover after the device came back"
wait $readd
[ "$(cat "$mnt/d/f")" = hello ] || fail "wrong data after recovery"
# Both connections come back (the second may follow the first).
for _ in $(seq 1 100); do
	[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq 2 ] && break
	sleep 0.1
done
[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq 2 ] ||
	fail "not both connections back: $(cat "$sys/connections")"
umount "$mnt"
exit 0
