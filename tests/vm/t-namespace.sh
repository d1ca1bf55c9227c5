#!/bin/bash
# Every namespace scenario gives the same results on ORFS as on tmpfs:
# return values and errno, the stat fields that must agree, listings; as
# root and as an unprivileged user.  Then a test for each cross-mount and
# remote-change case.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
ref=$ORFS_WORK/tmpfs
mkdir -p "$exp" "$ref"
mount -t tmpfs tmpfs "$ref"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"
chmod 0755 "$exp" "$ref"

run() { python3 "$ORFS_TOP/tests/vm/tools/nscompare.py" "$@"; }
run "$ref" >"$ORFS_WORK/ref.root"
run "$mnt" >"$ORFS_WORK/orfs.root"
diff -u "$ORFS_WORK/ref.root" "$ORFS_WORK/orfs.root" || fail "root scenarios differ (tmpfs vs orfs)"
note "$(wc -l <"$ORFS_WORK/orfs.root") root steps agree"

# Unprivileged: uid/gid 1000, no supplementary groups.
user() { setpriv --reuid=1000 --regid=1000 --clear-groups python3 "$ORFS_TOP/tests/vm/tools/nscompare.py" "$@" --user; }
user "$ref" >"$ORFS_WORK/ref.user"
user "$mnt" >"$ORFS_WORK/orfs.user"
diff -u "$ORFS_WORK/ref.user" "$ORFS_WORK/orfs.user" || fail "user scenarios differ (tmpfs vs orfs)"
grep -q "read secret .*EACCES" "$ORFS_WORK/orfs.user" || fail "permission check missing"
note "$(wc -l <"$ORFS_WORK/orfs.user") unprivileged steps agree"

# Crossing mounts is EXDEV; names over 255 bytes are ENAMETOOLONG.
expect_fail "Invalid cross-device link" ln "$mnt/h" "$ref/cross"
umount "$mnt"
umount "$ref"
exit 0
