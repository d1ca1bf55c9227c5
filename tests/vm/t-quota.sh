#!/bin/bash
# Disk quotas hold through ORFS (issue 37, defect 7): orfsd runs as root,
# but the threads that write for clients have no CAP_SYS_RESOURCE, so a
# quota's hard limit applies to what they write (server/cred.c).  The
# export is ext4 with quotas on a loop file; limits are set with quotactl(2)
# (tests/vm/tools/quota_limit.c).  With orfsd's defaults (root squash):
#  - a user under its limit writes, and copies (COPY: the server copies,
#    an offload thread writes);
#  - the same user past its 4 MiB limit: a write gets EDQUOT (at write(2)
#    or at the latest at fsync), a COPY and an fallocate (ALLOCATE, on an
#    offload thread) too, and the server's usage stays within the limit;
#  - past its limit of 24 inodes, creating files (CREATE, in the identity
#    thread) gets EDQUOT;
#  - the client's root is squashed as before: its files belong to 65534,
#    whose 1 MiB limit stops its write;
# and with --no-root-squash, root's writes to its own files are not limited.
# orfsd's own writes keep CAP_SYS_RESOURCE: on a second filesystem whose
# export root belongs to a user over quota, with 128-byte inodes (no room
# for attributes inside them), orfsd starts and stores its file handle key
# in the root's attributes, in a block charged to that user.
. "$(dirname "$0")/lib.sh"
set -e
mnt=$ORFS_WORK/mnt
img=$ORFS_WORK/quota.img
exp=$ORFS_WORK/qfs
U=1000
ANON=65534
ql=$ORFS_WORK/quota_limit
mkdir -p "$ORFS_WORK" "$exp" "$mnt"
gcc -O2 -Wall -o "$ql" "$ORFS_TOP/tests/vm/tools/quota_limit.c" || fail "cannot build quota_limit"
# Loop devices, and the quota file format of ext4's hidden quota inodes.
modprobe -a loop quota_v2 || fail "modprobe loop quota_v2"
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"

as_user() { setpriv --reuid="$U" --regid="$U" --clear-groups -- "$@"; }

# mkquotafs IMG DIR [mkfs options]: ext4 with quotas on a loop device,
# mounted on DIR with enforcement on; prints the loop device.
mkquotafs() {
	local img=$1 dir=$2 loopdev
	shift 2
	truncate -s 64M "$img"
	mkfs.ext4 -q -F -O quota -E quotatype=usrquota:grpquota "$@" "$img" >/dev/null ||
		fail "mkfs.ext4 -O quota $img"
	loopdev=$(losetup -f --show "$img") || fail "losetup $img"
	if ! mount -t ext4 -o usrquota,grpquota "$loopdev" "$dir"; then
		dmesg | tail -n 5 >&2
		fail "mount $img ($loopdev) with quotas"
	fi
	echo "$loopdev"
}

# used ID: KiB user ID uses on the export's filesystem.
used() { "$ql" "$dev" user "$1" | cut -d' ' -f1; }

# expect_edquot WHAT CMD...: CMD fails with "Disk quota exceeded".
expect_edquot() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "$what succeeded past the quota"
	fi
	echo "$out" | grep -q "Disk quota exceeded" ||
		fail "$what failed, but not with EDQUOT: $out"
}

# pycopy SRC DST: copy_file_range(2) of all of SRC to the new file DST.
pycopy() {
	python3 - "$1" "$2" <<'PY'
import os, sys
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
left = os.fstat(src).st_size
while left:
    n = os.copy_file_range(src, dst, left)
    if n == 0:
        sys.exit("copy_file_range: source ended early")
    left -= n
os.fsync(dst)
os.close(dst)
PY
}

qdev=$(mkquotafs "$img" "$exp")
dev=$qdev
mkdir "$exp/pub"
chmod 1777 "$exp/pub"
"$ql" "$dev" user "$U" 4096 24
"$ql" "$dev" user "$ANON" 1024 0
orfs_insmod
ORFS_SERVER_IDENT= orfs_server_start "$exp"
orfs_mount "$mnt" / actimeo=0

# Under the limit: writes and a COPY go through.
head -c 1048576 /dev/urandom >"$ORFS_WORK/one"
as_user dd if="$ORFS_WORK/one" of="$mnt/pub/f1" bs=64k conv=fsync status=none ||
	fail "a 1 MiB write under the quota failed"
copies0=$(orfs_sysfs "$mnt" requests copy)
as_user bash -c "$(declare -f pycopy); pycopy $mnt/pub/f1 $mnt/pub/f2" ||
	fail "a 1 MiB copy under the quota failed"
[ "$(orfs_sysfs "$mnt" requests copy)" -gt "$copies0" ] || fail "the copy sent no COPY"
cmp "$ORFS_WORK/one" "$exp/pub/f2" || fail "the copy differs"
[ "$(stat -c %u "$exp/pub/f1")" = "$U" ] || fail "f1 is not the user's on the server"
note "user $U under its 4 MiB limit: write and COPY done, $(used $U) KiB used"

# Past the limit: write, COPY, ALLOCATE fail with EDQUOT.
expect_edquot "an 8 MiB write" as_user dd if=/dev/zero of="$mnt/pub/big" bs=64k count=128 conv=fsync status=none
kib=$(used $U)
[ "$kib" -le 4096 ] || fail "user $U uses $kib KiB, past its 4096 KiB hard limit"
expect_edquot "a copy" as_user bash -c "$(declare -f pycopy); pycopy $mnt/pub/f1 $mnt/pub/f3"
allocs0=$(orfs_sysfs "$mnt" requests allocate)
expect_edquot "an fallocate" as_user fallocate -l 1M "$mnt/pub/f4"
[ "$(orfs_sysfs "$mnt" requests allocate)" -gt "$allocs0" ] || fail "fallocate sent no ALLOCATE"
kib=$(used $U)
[ "$kib" -le 4096 ] || fail "user $U uses $kib KiB after COPY and ALLOCATE, past its limit"
note "user $U past its limit: write, COPY and ALLOCATE got EDQUOT ($kib KiB used of 4096)"

# Past the inode limit: CREATE gets EDQUOT.
as_user rm -f "$mnt/pub/big" "$mnt/pub/f3" "$mnt/pub/f4"
made=0
for i in $(seq 1 40); do
	if ! out=$(as_user touch "$mnt/pub/n$i" 2>&1); then
		echo "$out" | grep -q "Disk quota exceeded" || fail "touch n$i: $out"
		break
	fi
	made=$((made + 1))
done
inodes=$("$ql" "$dev" user "$U" | cut -d' ' -f2)
[ "$made" -lt 40 ] && [ "$inodes" -le 24 ] ||
	fail "user $U created $made files, uses $inodes inodes; its limit is 24"
note "user $U created $made files, then EDQUOT ($inodes inodes of 24)"

# Root squash as before: root's files are 65534's, and 65534's limit holds.
echo root >"$mnt/pub/by-root"
[ "$(stat -c %u:%g "$exp/pub/by-root")" = "$ANON:$ANON" ] ||
	fail "root's file is $(stat -c %u:%g "$exp/pub/by-root") on the server, not $ANON:$ANON"
expect_edquot "root's (squashed) 4 MiB write" dd if=/dev/zero of="$mnt/pub/root-big" bs=64k count=64 conv=fsync status=none
[ "$(used $ANON)" -le 1024 ] || fail "$ANON uses $(used $ANON) KiB, past its limit"
note "squashed root: files of $ANON:$ANON, EDQUOT past $ANON's 1 MiB"
umount "$mnt"
orfs_server_stop

# No root squash: root writes its own files, which no limit binds.
orfs_server_start "$exp"
orfs_mount "$mnt"
dd if=/dev/zero of="$mnt/root-8m" bs=64k count=128 conv=fsync status=none ||
	fail "root's 8 MiB write without root squash failed"
[ "$(stat -c %u "$exp/root-8m")" = 0 ] || fail "root's file is not root's"
umount "$mnt"
orfs_server_stop
note "no root squash: root wrote 8 MiB of its own"

# orfsd's own writes: the file handle key goes into a new attribute block of
# an export root whose owner is over quota.
img2=$ORFS_WORK/key.img
exp2=$ORFS_WORK/kfs
mkdir -p "$exp2"
kdev=$(mkquotafs "$img2" "$exp2" -I 128)
dev=$kdev
chown "$U:$U" "$exp2"
as_user dd if=/dev/zero of="$exp2/fill" bs=4k count=4 status=none
kib=$(used $U)
"$ql" "$dev" user "$U" "$kib" 0
expect_edquot "a local write as user $U" as_user dd if=/dev/zero of="$exp2/more" bs=4k count=1 conv=fsync status=none
orfs_server_start "$exp2"
python3 -c 'import os, sys; os.getxattr(sys.argv[1], "trusted.orfsd.fh_key")' "$exp2" ||
	fail "orfsd stored no file handle key on $exp2"
[ "$(used $U)" -gt "$kib" ] || fail "the key's block is not charged to user $U ($(used $U) KiB)"
orfs_mount "$mnt"
[ "$(stat -c %s "$mnt/fill")" = 16384 ] || fail "the export with the key does not serve"
umount "$mnt"
orfs_server_stop
note "orfsd's own write: the handle key's block, past user $U's limit ($(used $U) KiB of $kib)"
umount "$exp2"
umount "$exp"
losetup -d "$kdev" "$qdev"
exit 0
