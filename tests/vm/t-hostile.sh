#!/bin/bash
# orfsd against a hostile client (server/build/orfs-hostile, from
# tests/hostile/hostile.c) while a normal mount of the same orfsd runs fio
# with verification.  Four servers in turn:
#  1. the default (memory windows on rxe): stale-staging and foreign-rkey:
#     a connection's staging buffers hold zeros when granted, nothing of
#     another client's; another connection's rkey (staging buffers, a READ's
#     memory window) fails; malformed: bad headers, short bodies, unknown
#     ops, forged handles, paths out of the export, a SEND larger than the
#     receive buffers;
#  2. --memory-windows=no (a protection domain per connection): the same;
#  3. --secret-file: pre-auth (no grant in the accept, nothing before AUTH),
#     and the same two again as authenticated clients;
#  4. a block cache of 32 blocks: demote-window (a zero-copy DEMOTE's
#     window is write-only, its block zeroed).
# Each attack must fail ("PASS hostile/MODE"); the mount must see no error,
# no reconnect and no wrong byte (fio verify; reconnects, bad_replies and
# timeouts stay 0); orfsd must keep serving, give every staging buffer back
# (staging_granted and staging_dirty 0 once the clients are gone, the
# closed connections' buffers wiped) and exit 0 on SIGTERM.
# ORFS_HOSTILE overrides the attacker's binary.
. "$(dirname "$0")/lib.sh"
set -e
HOSTILE=${ORFS_HOSTILE:-$ORFS_TOP/server/build/orfs-hostile}
[ -x "$HOSTILE" ] || fail "no $HOSTILE (make -C server)"
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
ctl=$ORFS_WORK/ctl
mkdir -p "$exp" "$mnt"
orfs_insmod
dmesg_mark

stat_of() { orfsd_stat "$ctl" "$1"; }
ctr() { orfs_sysfs "$mnt" counters "$1"; }

# fio_start: write and verify, in a loop until fio_stop: O_DIRECT (orfsd
# moves the data itself through its staging buffers) and buffered (the
# client RDMA-writes into, and after a drop_caches reads from, its staging
# buffers or the cache's memory windows).
fio_start() {
	local bs=${1:-1m} n=0
	rm -f "$ORFS_WORK/fio-stop"
	(
		set +e
		while [ ! -e "$ORFS_WORK/fio-stop" ] || [ $n -lt 1 ]; do
			n=$((n + 1))
			fio --name=dio --directory="$mnt" --direct=1 --rw=randwrite \
				--bs=64k --size=4m --verify=crc32c --verify_fatal=1 \
				--eta=never --output="$ORFS_WORK/fio-dio.log" ||
				{ echo "fio dio failed (pass $n)"; cat "$ORFS_WORK/fio-dio.log"; exit 1; }
			fio --name=buf --directory="$mnt" --rw=write --bs="$bs" \
				--size=8m --verify=crc32c --do_verify=0 --end_fsync=1 \
				--eta=never --output="$ORFS_WORK/fio-buf.log" ||
				{ echo "fio buf failed (pass $n)"; exit 1; }
			echo 3 >/proc/sys/vm/drop_caches
			fio --name=buf --directory="$mnt" --rw=write --bs="$bs" \
				--size=8m --verify=crc32c --verify_only --verify_fatal=1 \
				--eta=never --output="$ORFS_WORK/fio-verify.log" ||
				{ echo "fio verify failed (pass $n)"; cat "$ORFS_WORK/fio-verify.log"; exit 1; }
			grep -q "err= 0" "$ORFS_WORK/fio-verify.log" ||
				{ echo "fio verify reported an error (pass $n)"; exit 1; }
		done
		echo "$n" >"$ORFS_WORK/fio-passes"
	) &
	fio_pid=$!
}

fio_stop() {
	touch "$ORFS_WORK/fio-stop"
	wait "$fio_pid" || fail "the normal mount's fio failed during the attacks"
	note "the normal mount's fio verified $(cat "$ORFS_WORK/fio-passes") passes"
	rm -f "$mnt"/dio.* "$mnt"/buf.*
}

# attack LABEL ARGS...: run orfs-hostile; every mode must pass.
attack() {
	local label=$1 out rc=0
	shift
	out=$("$HOSTILE" -p "$ORFS_PORT" "$@" "$ORFS_SRV_ADDR" "${modes[@]}" 2>&1) || rc=$?
	echo "$out" | grep -E '^(PASS|FAIL|not ok)' | sed "s/^/  [$label] /"
	if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^PASS' ||
	   echo "$out" | grep -qE '^(FAIL|not ok)'; then
		echo "$out"
		fail "orfs-hostile ($label) found a hole (exit status $rc)"
	fi
}

# mount_clean: the normal mount saw no failure while it was attacked.
mount_clean() {
	local c
	for c in reconnects bad_replies timeouts; do
		[ "$(ctr $c)" -eq 0 ] || fail "the normal mount counted $c: $(ctr $c)"
	done
	[ "$(ctr bytes_client_rdma_write)" -gt 0 ] ||
		fail "the normal mount moved no data through its staging buffers"
}

# server_done: orfsd still serves the mount, gives every staging buffer
# back once the mount is gone, and exits 0 on SIGTERM.
server_done() {
	local rc=0
	head -c 3000000 /dev/urandom >"$ORFS_WORK/after"
	cp "$ORFS_WORK/after" "$mnt/after"
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$ORFS_WORK/after" "$mnt/after" || fail "the mount reads back other bytes after the attacks"
	rm -f "$mnt/after"
	umount "$mnt"
	for _ in $(seq 1 50); do
		[ "$(stat_of connections)" -eq 0 ] && [ "$(stat_of staging_dirty)" -eq 0 ] && break
		sleep 0.2
	done
	[ "$(stat_of connections)" -eq 0 ] || fail "orfsd still has $(stat_of connections) connections"
	[ "$(stat_of staging_granted)" -eq 0 ] || fail "staging buffers still held: $(stat_of staging_granted)"
	[ "$(stat_of staging_dirty)" -eq 0 ] || fail "staging buffers never wiped: $(stat_of staging_dirty)"
	[ "$(stat_of staging_wiped)" -gt 0 ] || fail "no staging buffer wiped"
	note "orfsd wiped $(( $(stat_of staging_wiped) >> 20 )) MiB of staging buffers in $(stat_of staging_wipe_usec) us"
	kill "$ORFSD_PID"
	wait "$ORFSD_PID" || rc=$?
	ORFSD_PID=
	[ $rc -eq 0 ] || { tail -n 30 "$ORFS_WORK/orfsd.log"; fail "orfsd exited $rc on SIGTERM"; }
	! grep -qiE 'sanitizer|segmentation|assert' "$ORFS_WORK/orfsd.log" ||
		fail "orfsd's log shows a crash: $(grep -iE 'sanitizer|segmentation|assert' "$ORFS_WORK/orfsd.log")"
	rm -f "$ctl" "$ORFS_WORK/orfsd.log"
}

# 1. Memory windows (rxe has type 2B).
orfs_server_start "$exp" --control "$ctl"
orfs_mount "$mnt"
fio_start
modes=(stale-staging foreign-rkey malformed)
attack windows
fio_stop
grep -q "each client's staging buffers are behind a memory window bound to its queue pair" \
	"$ORFS_WORK/orfsd.log" || fail "orfsd did not log its memory-window isolation"
grep -q "cache blocks registered one by one for them" "$ORFS_WORK/orfsd.log" ||
	fail "orfsd did not log the registrations of its cache blocks for soft-RoCE's windows"
mount_clean
server_done
note "memory windows: attacks refused"

# 2. No memory windows: a protection domain per connection.
orfs_server_start "$exp" --control "$ctl" --memory-windows=no
orfs_mount "$mnt"
fio_start
attack own-pd
fio_stop
grep -q "no memory windows (--memory-windows=no): each client gets a protection domain of its own" \
	"$ORFS_WORK/orfsd.log" || fail "orfsd did not log its per-connection protection domains"
mount_clean
[ "$(stat_of bytes_read_window)" -eq 0 ] || fail "--memory-windows=no used memory windows"
server_done
note "a protection domain per connection: attacks refused"

# 3. A shared secret: nothing before AUTH.
text=$(head -c 24 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
(umask 077; printf '%s\n' "$text" >"$ORFS_WORK/secret")
key=$(printf '%s' "$text" | od -An -v -tx1 | tr -d ' \n')
orfs_server_start "$exp" --control "$ctl" --secret-file "$ORFS_WORK/secret"
orfs_mount "$mnt" / "secret=$key"
fio_start
modes=(pre-auth stale-staging foreign-rkey)
attack secret -S "$ORFS_WORK/secret"
fio_stop
mount_clean
[ "$(stat_of auth_failures)" -ge 3 ] || fail "requests before AUTH not counted as failures"
server_done
note "shared secret: nothing given before AUTH"

# 4. Zero-copy DEMOTE through memory windows, on a cache of 32 blocks (the
# attacker pushes 4 MiB through it first); two staging buffers each.
orfs_server_start "$exp" --control "$ctl" --cache-size 10M --staging-size 8M --grants 2
orfs_mount "$mnt" / nconnect=1,rsize=65536,wsize=65536
fio_start 64k
modes=(demote-window)
attack demote
fio_stop
mount_clean
server_done
note "DEMOTE windows: write-only, over zeroed blocks"

dmesg_check || fail "kernel warnings"
