#!/bin/bash
# The shared-secret handshake end to end: the right secret mounts and does
# I/O (secret= and mount.orfs secretfile=); a wrong secret, no secret
# against a server that has one, and a secret against a server that has
# none are refused with EACCES and a kernel log line naming the reason; the
# secret never shows in /proc/mounts, mountinfo or the kernel log, and
# cannot change on remount; mount.orfs refuses a world-readable file; and
# after orfsd is killed and started again the mount reconnects through the
# handshake and the I/O goes on.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d" "$mnt"
echo content >"$exp/d/f"

# Secrets as text (orfsd and mount.orfs drop one trailing newline).
text=$(head -c 24 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
other=$(head -c 24 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
(umask 077; printf '%s\n' "$text" >"$ORFS_WORK/secret"; printf '%s' "$other" >"$ORFS_WORK/other")
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
key=$(hex "$text")
bad=$(hex "$other")
mount_orfs() { "$ORFS_TOP/tools/mount.orfs" "$ORFS_SRV_ADDR:/" "$mnt" "$@"; }
# The last kernel log lines must name the reason.
klog() { dmesg | tail -n 6 | grep -q "orfs: .*$1" || fail "no kernel log line '$1': $(dmesg | tail -n 6)"; }
stat_of() {
	kill -USR1 "$ORFSD_PID"
	sleep 0.5
	grep "stats: $1 " "$ORFS_WORK/orfsd.log" | tail -n 1 | awk '{ print $NF }'
}
orfs_insmod

# orfsd refuses a secret file others can read, and starts with a good one.
chmod 644 "$ORFS_WORK/secret"
expect_fail "chmod 600" "$ORFS_ORFSD" --export "$exp" --foreground --secret-file "$ORFS_WORK/secret"
chmod 600 "$ORFS_WORK/secret"
orfs_server_start "$exp" --secret-file "$ORFS_WORK/secret"
grep -q "clients must prove the shared secret" "$ORFS_WORK/orfsd.log" || fail "orfsd did not say it requires a secret"

# The right secret: mount, write, read back.
dmesg_from=$(dmesg | wc -l)
orfs_mount "$mnt" / "secret=$key"
[ "$(cat "$mnt/d/f")" = content ] || fail "cannot read through an authenticated mount"
head -c $((3 * 1048576)) /dev/urandom >"$ORFS_WORK/src"
cp "$ORFS_WORK/src" "$mnt/big"
sync
cmp "$ORFS_WORK/src" "$exp/big" || fail "the server's copy differs"
echo 3 >/proc/sys/vm/drop_caches
cmp "$ORFS_WORK/src" "$mnt/big" || fail "the mount reads back different data"
# Never shown: /proc/mounts, mountinfo, the kernel log.
for f in /proc/mounts /proc/self/mountinfo; do
	grep -q " $mnt " "$f" || fail "$mnt not in $f"
	! grep " $mnt " "$f" | grep -qi "secret\|$key" || fail "the secret shows in $f: $(grep orfs "$f")"
done
! dmesg | tail -n +"$((dmesg_from + 1))" | grep -qi "$key" || fail "the secret is in the kernel log"
# It cannot change on remount; the same one (or none) is fine.
expect_fail "" mount -o "remount,secret=$bad" "$mnt"
klog "secret cannot change on remount"
mount -o "remount,secret=$key,acregmax=30" "$mnt"
mount -o remount,acregmax=20 "$mnt"
grep " $mnt orfs " /proc/mounts | grep -q "acregmax=20" || fail "remount did not apply"
[ "$(cat "$mnt/d/f")" = content ] || fail "the mount broke on remount"
umount "$mnt"

# A wrong secret: EACCES, a kernel log line, a log line with our address.
expect_fail "Permission denied" mount_orfs -o "secret=$bad"
klog "server rejected our secret"
grep -q "${ORFS_CLI_ADDR:-192.0.2.2}:[0-9]*: authentication failed: wrong shared-secret proof" \
	"$ORFS_WORK/orfsd.log" || fail "orfsd did not log the wrong proof"
# No secret against a server that requires one.
expect_fail "Permission denied" mount_orfs
klog "server requires a shared secret"
grep -q "rejected: the client offers no shared secret" "$ORFS_WORK/orfsd.log" ||
	fail "orfsd did not log the client without a secret"
! mountpoint -q "$mnt" || fail "something got mounted"
[ "$(stat_of auth_failures)" -ge 2 ] || fail "auth_failures not counted"

# A client that offers the handshake and then says nothing is dropped once
# the 10 s AUTH timeout has passed (orfs-smoke -S times it).
out=$("$ORFS_TOP/server/build/orfs-smoke" -p "$ORFS_PORT" -S "$ORFS_SRV_ADDR" 2>&1) ||
	fail "silent client: $out"
note "$(echo "$out" | grep "disconnected a client")"
grep -q "authentication failed: no AUTH within 10 s" "$ORFS_WORK/orfsd.log" ||
	fail "orfsd did not log the silent client"

# mount.orfs secretfile=: works, and refuses a file others may read.
mount_orfs -o "secretfile=$ORFS_WORK/secret"
[ "$(cat "$mnt/d/f")" = content ] || fail "secretfile= mount does not read"
! grep -q "$key" /proc/mounts || fail "the secret shows in /proc/mounts"
umount "$mnt"
cp "$ORFS_WORK/secret" "$ORFS_WORK/open"
chmod 644 "$ORFS_WORK/open"
expect_fail "group or others may access it" mount_orfs -o "secretfile=$ORFS_WORK/open"
! mountpoint -q "$mnt" || fail "mounted with a world-readable secret file"
expect_fail "Permission denied" mount_orfs -o "secretfile=$ORFS_WORK/other"

# orfsd killed and started again: the hard mount reconnects through the
# handshake (a connection that skipped it would get EACCES for everything).
mount_orfs -o "secretfile=$ORFS_WORK/secret,timeo=50,actimeo=0"
ls "$mnt/d" >/dev/null
ok_before=$(stat_of auth_ok)
[ "$ok_before" -ge 2 ] || fail "auth_ok is $ok_before"
( for r in $(seq 1 30); do
	echo "$r" >"$mnt/d/r$r" && cat "$mnt/d/f" >/dev/null || exit 1
  done ) &
bg=$!
sleep 1
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
sleep 2
orfs_server_start "$exp" --secret-file "$ORFS_WORK/secret"
wait $bg || fail "I/O failed across the restart"
[ "$(ls "$mnt/d" | grep -c '^r')" -eq 30 ] || fail "files missing after the restart"
cp "$ORFS_WORK/src" "$mnt/big2"
cmp "$ORFS_WORK/src" "$exp/big2" || fail "write after the restart differs"
dir=$(grep -l . /sys/fs/orfs/*/counters | head -n 1)
[ "$(awk '$1 == "reconnects" { print $2 }' "$dir")" -ge 1 ] || fail "no reconnect counted"
[ "$(stat_of auth_ok)" -ge 1 ] || fail "the reconnection did not authenticate"
[ "$(stat_of auth_failures)" -eq 0 ] || fail "the reconnection failed the handshake"
umount "$mnt"
orfs_server_stop

# A secret against a server that has none: the client refuses it.
orfs_server_start "$exp"
expect_fail "Permission denied" mount_orfs -o "secret=$key"
klog "server did not prove the shared secret"
! mountpoint -q "$mnt" || fail "mounted a server that proved nothing"
# ... and without a secret it mounts as before.
orfs_mount "$mnt"
[ "$(cat "$mnt/d/f")" = content ] || fail "plain mount does not read"
umount "$mnt"
exit 0
