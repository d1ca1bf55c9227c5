#!/bin/bash
# Extended attributes in the user. and trusted. namespaces: set, get, list,
# remove, CREATE/REPLACE, sizes; other namespaces refused.  The export is
# ext4 on a loop device (tmpfs in 6.1 has no user.* attributes).
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp"
truncate -s 64M "$ORFS_WORK/ext4.img"
mkfs.ext4 -q -F -b 4096 "$ORFS_WORK/ext4.img"
modprobe loop
mount -t ext4 -o loop "$ORFS_WORK/ext4.img" "$exp"
echo data >"$exp/f"
mkdir "$exp/d"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"

python3 - "$mnt" <<'PY'
import errno, os, sys
m = sys.argv[1]
f, d = m + "/f", m + "/d"

def expect_err(e, fn, *a, **k):
    try:
        fn(*a, **k)
    except OSError as x:
        assert x.errno == e, "%s: got %s, want %s" % (fn.__name__, errno.errorcode[x.errno], errno.errorcode[e])
        return
    raise AssertionError("%s%r succeeded, want %s" % (fn.__name__, a, errno.errorcode[e]))

os.setxattr(f, "user.color", b"blue")
assert os.getxattr(f, "user.color") == b"blue"
os.setxattr(f, "user.empty", b"")
assert os.getxattr(f, "user.empty") == b""
big = os.urandom(3000)
os.setxattr(d, "user.big", big)
assert os.getxattr(d, "user.big") == big
os.setxattr(f, "trusted.t", b"root only")
assert os.getxattr(f, "trusted.t") == b"root only"
assert sorted(os.listxattr(f)) == ["trusted.t", "user.color", "user.empty"], os.listxattr(f)
expect_err(errno.EEXIST, os.setxattr, f, "user.color", b"red", os.XATTR_CREATE)
expect_err(errno.ENODATA, os.setxattr, f, "user.nope", b"x", os.XATTR_REPLACE)
os.setxattr(f, "user.color", b"red", os.XATTR_REPLACE)
assert os.getxattr(f, "user.color") == b"red"
os.removexattr(f, "user.color")
expect_err(errno.ENODATA, os.getxattr, f, "user.color")
expect_err(errno.ENODATA, os.removexattr, f, "user.color")
expect_err(errno.EOPNOTSUPP, os.setxattr, f, "security.evil", b"x")
expect_err(errno.E2BIG, os.setxattr, f, "user.huge", b"x" * 70000)
print("xattr ok")
PY
# The server's own file shows what the client set.
python3 -c "import os,sys; assert os.getxattr(sys.argv[1], 'user.big') is not None" "$exp/d"
# Unprivileged users cannot see or set trusted.*.
out=$(setpriv --reuid=1000 --regid=1000 --clear-groups python3 -c "import os,sys; print(os.listxattr(sys.argv[1]))" "$mnt/f")
[ "$out" = "['user.empty']" ] || fail "unprivileged listing: $out"
umount "$mnt"
orfs_server_stop
umount "$exp"
exit 0
