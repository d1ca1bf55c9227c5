#!/bin/bash
# orfsd's access control as a client sees it: an allow-list that leaves the
# client out refuses the mount with EACCES and a kernel log line; a
# read-only export refuses changes with EROFS and still serves reads; a
# config file works, and the command line overrides it.  The file handle
# key: made once in the export root's trusted.orfsd.fh_key, kept across
# restarts, invisible and untouchable through the mount; --fh-key-file
# makes a 0600 key file instead.  (Forged handles: t-server-smoke.)
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/d" "$mnt"
echo content >"$exp/d/f"
orfs_insmod

orfs_server_start "$exp" --allow 198.51.100.0/24
# mount(8) rewords EACCES ("write-protected"); mount.orfs prints strerror.
expect_fail "Permission denied" "$ORFS_TOP/tools/mount.orfs" "$ORFS_SRV_ADDR:/" "$mnt"
dmesg | tail -n 3 | grep -q "client not on the server's allow-list" ||
	fail "no kernel log line naming the allow-list"
grep -q "rejected\|not allowed\|allow" "$ORFS_WORK/orfsd.log" || fail "orfsd did not log the refusal"
orfs_server_stop

cat >"$ORFS_WORK/orfsd.conf" <<CONF
# test configuration
export = $exp
allow = 192.0.2.0/24, 198.51.100.7
read-only = yes
CONF
orfs_server_start "$exp" --config "$ORFS_WORK/orfsd.conf"
orfs_mount "$mnt"
[ "$(cat "$mnt/d/f")" = content ] || fail "read-only export does not serve reads"
expect_fail "Read-only file system" touch "$mnt/new"
expect_fail "Read-only file system" mkdir "$mnt/newdir"
expect_fail "Read-only file system" rm "$mnt/d/f"
expect_fail "Read-only file system" chmod 600 "$mnt/d/f"
# An existing name is EEXIST, as on a local read-only file system: the
# VFS checks for it before the write permission.  drop_caches first, so
# that the client does not know the name and skips the lookup.
cold() { echo 2 >/proc/sys/vm/drop_caches; }
cold; expect_fail "File exists" mkdir "$mnt/d"
cold; expect_fail "File exists" ln -s x "$mnt/d/f"
cold; expect_fail "File exists" ln "$mnt/d/f" "$mnt/d"
cold; python3 -c 'import os, sys; os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY)' \
	"$mnt/d/f" 2>&1 | grep -q FileExistsError || fail "O_EXCL create of an existing name on a read-only export"
[ -e "$exp/d/f" ] || fail "file removed from a read-only export"
umount "$mnt"
orfs_server_stop

# The command line overrides the file.
orfs_server_start "$exp" --config "$ORFS_WORK/orfsd.conf" --read-only=no
orfs_mount "$mnt"
touch "$mnt/new"
[ -e "$exp/new" ] || fail "--read-only=no did not override the file"

# The file handle key: the same since the first start, hidden from clients.
key() { python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "trusted.orfsd.fh_key").hex())' "$1"; }
k1=$(key "$exp")
[ ${#k1} -eq 32 ] || fail "no 16-byte key on the export root: '$k1'"
python3 - "$mnt" <<'PY' || fail "the key is visible or writable through the mount"
import errno, os, sys
m = sys.argv[1]
try:
    os.getxattr(m, "trusted.orfsd.fh_key")
    sys.exit("GETXATTR of the key succeeded")
except OSError as e:
    if e.errno != errno.ENODATA:
        sys.exit("GETXATTR: %s" % e)
for f in (lambda: os.setxattr(m, "trusted.orfsd.fh_key", b"0" * 16),
          lambda: os.removexattr(m, "trusted.orfsd.fh_key")):
    try:
        f()
        sys.exit("changing the key succeeded")
    except OSError as e:
        if e.errno != errno.EPERM:
            sys.exit("SETXATTR/REMOVEXATTR: %s" % e)
if any(n.startswith("trusted.orfsd.") for n in os.listxattr(m)):
    sys.exit("LISTXATTR shows the key")
PY
umount "$mnt"
orfs_server_stop
orfs_server_start "$exp"
[ "$(key "$exp")" = "$k1" ] || fail "the key changed across a restart"
orfs_server_stop

# --fh-key-file: a key file made with mode 0600, and the same one kept.
orfs_server_start "$exp" --fh-key-file "$ORFS_WORK/fh.key"
[ "$(stat -c %a "$ORFS_WORK/fh.key")" = 600 ] || fail "key file mode $(stat -c %a "$ORFS_WORK/fh.key")"
kf=$(cat "$ORFS_WORK/fh.key")
orfs_mount "$mnt"
[ "$(cat "$mnt/d/f")" = content ] || fail "no reads with a key file"
umount "$mnt"
orfs_server_stop
chmod 644 "$ORFS_WORK/fh.key"
expect_fail "readable by it alone" timeout 20 "$ORFS_ORFSD" --export "$exp" --foreground \
	--listen "$ORFS_SRV_ADDR:$ORFS_PORT" --fh-key-file "$ORFS_WORK/fh.key"
chmod 600 "$ORFS_WORK/fh.key"
[ "$(cat "$ORFS_WORK/fh.key")" = "$kf" ] || fail "the key file changed"
exit 0
