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

# Unprivileged: uid/gid 1000, no supplementary groups.  From a cold dcache,
# so that names the root run made are looked up again (an exclusive create
# of an existing name where the user may not write must still be EEXIST).
echo 2 >/proc/sys/vm/drop_caches
user() { setpriv --reuid=1000 --regid=1000 --clear-groups python3 "$ORFS_TOP/tests/vm/tools/nscompare.py" "$@" --user; }
user "$ref" >"$ORFS_WORK/ref.user"
user "$mnt" >"$ORFS_WORK/orfs.user"
diff -u "$ORFS_WORK/ref.user" "$ORFS_WORK/orfs.user" || fail "user scenarios differ (tmpfs vs orfs)"
grep -q "read secret .*EACCES" "$ORFS_WORK/orfs.user" || fail "permission check missing"
note "$(wc -l <"$ORFS_WORK/orfs.user") unprivileged steps agree"

# An exclusive create is one request: no LOOKUP before it, no GETATTR when
# the new file is opened, and the name is in the dcache afterwards (so the
# second O_EXCL open of f0 fails without asking the server).
req() { orfs_sysfs "$mnt" requests "$1"; }
mkdir "$mnt/excl"
l0=$(req lookup) c0=$(req create) g0=$(req getattr)
python3 - "$mnt/excl" <<'PY' || fail "exclusive creates"
import os, sys
for i in range(20):
    os.close(os.open("%s/f%d" % (sys.argv[1], i), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
try:
    os.open(sys.argv[1] + "/f0", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    sys.exit("O_EXCL on an existing file succeeded")
except FileExistsError:
    pass
for i in range(20):
    os.stat("%s/f%d" % (sys.argv[1], i))
PY
l=$(( $(req lookup) - l0 )) c=$(( $(req create) - c0 )) g=$(( $(req getattr) - g0 ))
note "20 exclusive creates and stats: $c CREATE, $l LOOKUP, $g GETATTR"
[ "$c/$l/$g" = 20/0/0 ] || fail "exclusive creates: $c CREATE, $l LOOKUP, $g GETATTR (want 20/0/0)"

# Crossing mounts is EXDEV; names over 255 bytes are ENAMETOOLONG.
expect_fail "Invalid cross-device link" ln "$mnt/h" "$ref/cross"
umount "$mnt"
umount "$ref"
exit 0
