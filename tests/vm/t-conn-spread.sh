#!/bin/bash
# A mount's connections run on different CPUs (net/clnt.c, "Spreading a
# mount's connections over the CPUs"): rxe does a connection's packet work
# on the one CPU RPS hashes its flow to, so two connections on one CPU
# halve a bulk transfer's speed.  At mount and after a server restart,
# every CPU has as many connections as any other, unless the client ran
# out of tries (spread_tries, counted in spread_reconnects), or the
# kernel's rxe does not keep a connection's completions on one CPU (6.12;
# see settled below), where only the rest is checked; with
# spread_tries=0 no connection is opened twice.
#
# It runs before t-link-flap (the name): taking v1 down flushes the policy
# route that sends the client's traffic out of v1 (tools/vm/guest-setup.sh),
# and nothing puts it back, so the tests after it in the same VM talk over
# lo, where RPS does not steer, and no placement is better than another.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp"
ncpu=$(nproc)	# on one CPU there is nothing to spread: no retries either
orfs_insmod
tries=$(cat /sys/module/orfs/parameters/spread_tries) || fail "no spread_tries parameter"
[ "$tries" -gt 0 ] || fail "spread_tries is $tries by default"

# cpus: the cpu field of every connection of $mnt.
cpus() {
	awk '{ for (i = 1; i < NF; i++) if ($i == "cpu") print $(i + 1) }' "$sys/connections"
}
# settled: the first connection's replies kept completing on one CPU over
# 10 rounds of 20 NULL requests (the mount's ping).  Where they do not,
# where a probe saw a connection's completions says nothing lasting, and
# no placement can be checked: 6.12's rxe runs queue-pair work that finds
# its task busy on an unbound workqueue, and there a mount's connections
# were seen to move between CPUs after their probes.
settled() {
	local first c
	first=$(cpus | head -n 1)
	for _ in $(seq 1 10); do
		echo 20 >"$sys/ping"
		c=$(cpus | head -n 1)
		[ "$c" = "$first" ] || { note "the first connection's completions moved from CPU $first to $c"; return 1; }
	done
}
# check_spread N WHAT: N connections are up, each on a CPU, and no CPU has
# more of them than another has (fewer than the total allows), unless the
# retries ran out on the last connection, or the completions do not stay
# on a CPU (settled).
check_spread() {
	local n=$1 what=$2 c most least
	[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq "$n" ] ||
		fail "$what: not $n connections up: $(cat "$sys/connections")"
	for c in $(cpus); do
		[ "$c" -ge 0 ] || fail "$what: a connection has no CPU: $(cat "$sys/connections")"
	done
	most=$(cpus | sort | uniq -c | awk '{ print $1 }' | sort -n | tail -n 1)
	least=$(( n / ncpu ))
	note "$what: cpus $(cpus | tr '\n' ' ')spread_reconnects $(orfs_sysfs "$mnt" counters spread_reconnects)"
	if [ "$most" -gt $(( (n + ncpu - 1) / ncpu )) ] || { [ "$n" -le "$ncpu" ] && [ "$most" -gt 1 ]; }; then
		# Placement is a hash: the last try may land anywhere.
		[ "$(orfs_sysfs "$mnt" counters spread_reconnects)" -ge "$tries" ] && return 0
		if settled; then
			fail "$what: connections share a CPU (most $most, at least $least each) after fewer than $tries retries: $(cat "$sys/connections")"
		fi
		note "$what: completions do not stay on one CPU with this kernel's device: placement not checked"
	fi
}

orfs_server_start "$exp"
orfs_mount "$mnt" / nconnect=2
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
check_spread 2 "nconnect=2"
# The data path works over both (a write-back of 16 MiB takes both).
dd if=/dev/urandom of="$ORFS_WORK/src" bs=1M count=16 status=none
cp "$ORFS_WORK/src" "$mnt/f"
sync
cmp "$ORFS_WORK/src" "$exp/f" || fail "data differs on the server"
umount "$mnt"

orfs_mount "$mnt" / nconnect=4
sys=/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$mnt")
check_spread 4 "nconnect=4"

# After the server restarts, the reconnected connections spread again.
before=$(orfs_sysfs "$mnt" counters reconnects)
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
orfs_server_start "$exp"
timeout 60 cat "$mnt/f" >/dev/null || fail "no reconnect within 60 s"
for _ in $(seq 1 100); do
	[ "$(grep -c '^[0-9]* up ' "$sys/connections")" -eq 4 ] && break
	sleep 0.1
done
[ "$(orfs_sysfs "$mnt" counters reconnects)" -gt "$before" ] || fail "no reconnect counted"
# A connection reconnected but not yet used by a request still shows its
# probe's CPU.
check_spread 4 "nconnect=4 after a server restart"
umount "$mnt"

# spread_tries=0: each connection is opened once.
echo 0 >/sys/module/orfs/parameters/spread_tries
orfs_mount "$mnt" / nconnect=4 || { echo "$tries" >/sys/module/orfs/parameters/spread_tries; fail "mount"; }
echo "$tries" >/sys/module/orfs/parameters/spread_tries
[ "$(orfs_sysfs "$mnt" counters spread_reconnects)" = 0 ] ||
	fail "spread_tries=0 still reopened connections"
umount "$mnt"
