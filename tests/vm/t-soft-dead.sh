#!/bin/bash
# A soft mount against a dead server returns EIO within timeo * retrans
# (plus reconnect back-off), for a stat, a writer and a reader, and
# umount -f works on a hard mount.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mkdir -p "$exp/d"
echo x >"$exp/d/f"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$ORFS_WORK/soft" / soft,timeo=10,retrans=2,actimeo=0
orfs_mount "$ORFS_WORK/hard" / hard,actimeo=0
stat "$ORFS_WORK/soft/d/f" "$ORFS_WORK/hard/d/f" >/dev/null
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
ORFSD_PID=

start=$(date +%s)
if out=$(stat "$ORFS_WORK/soft/d/f" 2>&1); then
	fail "stat on a soft mount with a dead server succeeded"
fi
took=$(( $(date +%s) - start ))
echo "$out" | grep -q "Input/output error" || fail "expected EIO, got: $out"
note "soft mount: EIO after ${took}s (timeo*retrans = 2 s)"
[ "$took" -le 10 ] || fail "EIO took ${took}s"

# The hard mount waits; umount -f makes the waiter fail and the unmount work.
stat "$ORFS_WORK/hard/d/f" >/dev/null 2>&1 &
waiter=$!
sleep 2
kill -0 $waiter 2>/dev/null || fail "hard mount did not wait for the server"
umount -f "$ORFS_WORK/hard" 2>/dev/null || true
timeout 20 bash -c "while kill -0 $waiter 2>/dev/null; do sleep 0.2; done" ||
	fail "waiter still blocked after umount -f"
mountpoint -q "$ORFS_WORK/hard" && umount "$ORFS_WORK/hard"
umount -f "$ORFS_WORK/soft" 2>/dev/null || umount "$ORFS_WORK/soft"

# dies_with_eio WHO PID OUT DID WHEN: kill orfsd under WHO (process PID,
# whose exit status is in $ORFS_WORK/OUT.rc and stderr in OUT.err) on the
# soft mount.  WHO must end within 90 s with EIO, DID not having
# succeeded, and a plain umount must then work.
dies_with_eio() {
	local who=$1 pid=$2 out=$ORFS_WORK/$3 did=$4 when=$5 start took
	kill -9 "$ORFSD_PID"
	wait "$ORFSD_PID" 2>/dev/null || true
	ORFSD_PID=
	start=$(date +%s)
	timeout 90 bash -c "while kill -0 $pid 2>/dev/null; do sleep 0.5; done" ||
		fail "the $who is still blocked 90 s after the server died"
	took=$(( $(date +%s) - start ))
	[ "$(cat "$out.rc")" != 0 ] || fail "$did succeeded with the server dead"
	grep -q "Input/output error" "$out.err" ||
		fail "expected EIO from the $who, got: $(cat "$out.err")"
	note "soft mount, server killed $when: $who got EIO after ${took}s"
	timeout 30 umount "$ORFS_WORK/soft" || fail "umount of the soft mount after the $who failed"
}

# Data I/O on a soft mount when the server dies mid-write: the writer gets
# EIO within a bound (write-back of many pages must not wait timeo *
# retrans for each one), and a plain umount then works.
orfs_server_start "$exp"
orfs_mount "$ORFS_WORK/soft" / soft,timeo=10,retrans=2
( rc=0; dd if=/dev/zero of="$ORFS_WORK/soft/big" bs=1M count=400 conv=fsync \
	2>"$ORFS_WORK/dd.err" || rc=$?; echo $rc >"$ORFS_WORK/dd.rc" ) &
writer=$!
for _ in $(seq 1 100); do
	[ -s "$exp/big" ] && break
	sleep 0.1
done
[ -s "$exp/big" ] || fail "the writer never reached the server"
dies_with_eio writer "$writer" dd "the write" mid-write

# And mid-read: a reader of a file the client has not cached (readahead
# and read_folio both waiting on the dead server) gets EIO within the
# bound too, and a plain umount then works.
rm -f "$exp/big"
dd if=/dev/urandom of="$exp/rbig" bs=1M count=200 status=none
orfs_server_start "$exp"
orfs_mount "$ORFS_WORK/soft" / soft,timeo=10,retrans=2
( rc=0; dd if="$ORFS_WORK/soft/rbig" of=/dev/null bs=1M 2>"$ORFS_WORK/rd.err" || rc=$?
  echo $rc >"$ORFS_WORK/rd.rc" ) &
reader=$!
for _ in $(seq 1 100); do
	[ "$(orfs_sysfs "$ORFS_WORK/soft" requests read)" -gt 0 ] && break
	sleep 0.1
done
[ "$(orfs_sysfs "$ORFS_WORK/soft" requests read)" -gt 0 ] || fail "the reader never reached the server"
dies_with_eio reader "$reader" rd "the whole read" mid-read
exit 0
