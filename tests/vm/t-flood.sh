#!/bin/bash
# Four times more concurrent requesters than credits: every one is answered, some
# wait for a credit, and soft-RoCE sees no RNR retry.  Then buffered writers
# whose write-back needs more staging buffers than the server grants: every
# batch lands.  Waiters for either are woken one at a time, so a lost wakeup
# would hang here.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d"
for i in $(seq 1 64); do echo "$i" >"$exp/d/f$i"; done
orfs_insmod
orfs_server_start "$exp" --grants 2
# One connection: its 4 credits are all there is (the default of two
# connections would double them, and the flood could then fit).
orfs_mount "$mnt" / credits=4,nconnect=1,actimeo=0
rnr() { cat /sys/class/infiniband/rxe*/ports/1/hw_counters/*rnr* 2>/dev/null | paste -sd+ | bc; }
before=$(rnr)
pids=()
for p in $(seq 1 16); do
	( for r in $(seq 1 3); do
		for i in $(seq $p 16 64); do
			[ "$(cat "$mnt/d/f$i" 2>/dev/null || stat -c %s "$mnt/d/f$i")" ] || exit 1
		done
	done ) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a request failed under the flood"; done
after=$(rnr)
dir=$(dirname "$(grep -l . /sys/fs/orfs/*/counters | head -n 1)")/counters
stalls=$(awk '$1 == "credit_stalls" { print $2 }' "$dir")
note "credit stalls: $stalls; rxe RNR counters: $before -> $after"
[ "$(cat "$(dirname "$dir")/credits")" -eq 4 ] || fail "credits not 4"
[ "$stalls" -gt 0 ] || fail "the flood never waited for a credit"
[ "${after:-0}" = "${before:-0}" ] || fail "RNR retries happened"
[ "$(awk '$1 == "timeouts" { print $2 }' "$dir")" -eq 0 ] || fail "requests timed out"

# The mount's workqueue runs at most nconnect * credits requests at once.
wq=/sys/devices/virtual/workqueue/orfs_io-$(stat -c '%Hd:%Ld' "$mnt")
[ "$(cat "$wq/max_active")" -eq 4 ] || fail "$wq/max_active: $(cat "$wq/max_active" 2>&1), not 4"

conns=$(dirname "$dir")/connections
grep -q "grants 2" "$conns" || fail "connections: $(cat "$conns"), not 2 staging buffers"
g0=$(orfs_sysfs "$mnt" counters grant_stalls)
head -c $((6 << 20)) /dev/urandom >"$ORFS_WORK/src"
pids=()
for p in $(seq 1 6); do
	dd if="$ORFS_WORK/src" of="$mnt/w$p" bs=1M conv=fsync status=none &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a buffered writer failed"; done
g=$(( $(orfs_sysfs "$mnt" counters grant_stalls) - g0 ))
note "6 writers of 6 MiB with 2 staging buffers: $g waits for one"
[ "$g" -gt 0 ] || fail "the writers never waited for a staging buffer"
for p in $(seq 1 6); do cmp "$ORFS_WORK/src" "$exp/w$p" || fail "w$p differs on the server"; done
umount "$mnt"
exit 0
