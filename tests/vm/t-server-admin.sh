#!/bin/bash
# orfsd's access control as a client sees it: an allow-list that leaves the
# client out refuses the mount with EACCES and a kernel log line; a
# read-only export refuses changes with EROFS and still serves reads; a
# config file works, and the command line overrides it.
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
[ -e "$exp/d/f" ] || fail "file removed from a read-only export"
umount "$mnt"
orfs_server_stop

# The command line overrides the file.
orfs_server_start "$exp" --config "$ORFS_WORK/orfsd.conf" --read-only=no
orfs_mount "$mnt"
touch "$mnt/new"
[ -e "$exp/new" ] || fail "--read-only=no did not override the file"
umount "$mnt"
exit 0
