#!/bin/bash
# Request credentials and server-side permissions: orfsd with its defaults
# (root squash to 65534:65534), then --no-root-squash and --all-squash.
# Unprivileged users run commands through setpriv (the host's util-linux).
# The server is authoritative: client root passes every local permission
# check (CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FOWNER), so what fails for it
# here fails on the server; and a mode changed on the server behind the
# client's back is enforced while the client's cached mode still allows.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
ANON=65534

# as UID[:GROUPS] CMD...: run CMD as UID (gid UID), with the supplementary
# groups GROUPS (comma-separated) or none.
as() {
	local id=${1%%:*} groups=
	[ "$1" != "$id" ] && groups=${1#*:}
	shift
	if [ -n "$groups" ]; then
		setpriv --reuid="$id" --regid="$id" --groups="$groups" -- "$@"
	else
		setpriv --reuid="$id" --regid="$id" --clear-groups -- "$@"
	fi
}

owner() { stat -c %u:%g "$1"; }

command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"

# The server's tree, made directly in the export.
mkdir -p "$exp/pub" "$exp/home" "$exp/grp" "$exp/rw"
chmod 0755 "$ORFS_WORK" "$exp"
chmod 1777 "$exp/pub"
chown 1000:1000 "$exp/home" "$exp/rw"
chown 0:2345 "$exp/grp"
chmod 0770 "$exp/grp"
echo "group data" >"$exp/grp/g"
chown 0:2345 "$exp/grp/g"
chmod 0640 "$exp/grp/g"
echo "top secret" >"$exp/secret"
chown 4321:4321 "$exp/secret"
chmod 0600 "$exp/secret"
echo "mine" >"$exp/owned"
chown 1000:1000 "$exp/owned"
head -c 8192 /dev/urandom >"$exp/rw/data"
chown 4321:4321 "$exp/rw/data"
chmod 0644 "$exp/rw/data"

orfs_insmod
ORFS_SERVER_IDENT= orfs_server_start "$exp"
grep -q "root squash: requests of uid 0 run as uid $ANON" "$ORFS_WORK/orfsd.log" ||
	fail "orfsd does not say it squashes root: $(cat "$ORFS_WORK/orfsd.log")"
orfs_mount "$mnt"

# --- root squash: the client's root is 65534 on the server
echo root >"$mnt/pub/by-root"
mkdir "$mnt/pub/dir-by-root"
[ "$(owner "$exp/pub/by-root")" = "$ANON:$ANON" ] ||
	fail "a file root created is owned by $(owner "$exp/pub/by-root") on the server"
[ "$(owner "$exp/pub/dir-by-root")" = "$ANON:$ANON" ] ||
	fail "a directory root created is owned by $(owner "$exp/pub/dir-by-root")"
[ "$(cat "$exp/pub/by-root")" = root ] || fail "root's write-back did not land"
[ "$(stat -c %u "$mnt/pub/by-root")" = $ANON ] || fail "the client shows another owner"
note "client root creates files owned by $ANON:$ANON"

# Local checks pass for root; the server refuses.
expect_fail "Permission denied" cat "$mnt/secret"
expect_fail "Permission denied" touch "$mnt/new-in-root-dir"
expect_fail "Operation not permitted" chown 1000 "$mnt/owned"
expect_fail "Operation not permitted" chmod 0777 "$mnt/secret"
[ "$(owner "$exp/owned")" = 1000:1000 ] || fail "chown by squashed root happened"
[ "$(stat -c %a "$exp/secret")" = 600 ] || fail "chmod by squashed root happened"
[ ! -e "$exp/new-in-root-dir" ] || fail "squashed root created a file in a 0755 root directory"
note "squashed root: EACCES reading a 0600 file, EPERM for chown and chmod"

# --- an unprivileged user: its own uid on the server
as 1000 sh -c "echo hello >'$mnt/home/u1'"
as 1000 mkdir "$mnt/home/d1"
[ "$(owner "$exp/home/u1")" = 1000:1000 ] || fail "user 1000's file is owned by $(owner "$exp/home/u1")"
[ "$(owner "$exp/home/d1")" = 1000:1000 ] || fail "user 1000's directory is owned by $(owner "$exp/home/d1")"
[ "$(cat "$exp/home/u1")" = hello ] || fail "user 1000's write-back did not land"
[ "$(as 1000 cat "$mnt/home/u1")" = hello ] || fail "user 1000 cannot read its file back"
expect_fail "Permission denied" as 1000 touch "$mnt/u1-in-root-dir"
expect_fail "Permission denied" as 1000 cat "$mnt/secret"
# chown by a non-owner: EPERM (the kernel on either side refuses).
expect_fail "Operation not permitted" as 1001 chown 1001 "$mnt/owned"
as 1000 chmod 0600 "$mnt/owned"
[ "$(stat -c %a "$exp/owned")" = 600 ] || fail "the owner's chmod did not happen"
note "user 1000 creates files owned by 1000:1000"

# --- supplementary groups
[ "$(as 1001:2345 cat "$mnt/grp/g")" = "group data" ] ||
	fail "a member of group 2345 cannot read a 0640 file of that group"
as 1001:2345 touch "$mnt/grp/by-member"
[ "$(owner "$exp/grp/by-member")" = 1001:1001 ] ||
	fail "a member's file is owned by $(owner "$exp/grp/by-member")"
expect_fail "Permission denied" as 1001 cat "$mnt/grp/g"
expect_fail "Permission denied" as 1001 ls "$mnt/grp"
note "supplementary group access works"

# --- a mode changed on the server behind the client's back
as 1000 touch "$mnt/rw/before"
as 1000 dd if="$mnt/rw/data" of=/dev/null bs=4096 count=1 iflag=direct status=none
[ "$(stat -c %a "$mnt/rw")" = 755 ] || fail "rw is $(stat -c %a "$mnt/rw") on the client"
chmod 0555 "$exp/rw"
chmod 0600 "$exp/rw/data"
# The client still believes 0755 / 0644 (attribute cache: acdirmin 30 s)...
[ "$(stat -c %a "$mnt/rw")" = 755 ] || note "(the client refreshed rw's mode already)"
# ...but the server decides.
expect_fail "Permission denied" as 1000 touch "$mnt/rw/after"
expect_fail "Permission denied" as 1000 dd if="$mnt/rw/data" of=/dev/null bs=4096 count=1 iflag=direct status=none
[ ! -e "$exp/rw/after" ] || fail "a file was created in a directory made 0555 on the server"
note "modes changed on the server are enforced while the client's cache is stale"

# --- --no-root-squash: the client's root is root
umount "$mnt"
orfs_server_stop
orfs_server_start "$exp" --no-root-squash
orfs_mount "$mnt"
echo root >"$mnt/by-real-root"
[ "$(owner "$exp/by-real-root")" = 0:0 ] ||
	fail "without root squash root's file is owned by $(owner "$exp/by-real-root")"
[ "$(cat "$mnt/secret")" = "top secret" ] || fail "unsquashed root cannot read the 0600 file"
chown 4321 "$mnt/owned"
[ "$(stat -c %u "$exp/owned")" = 4321 ] || fail "unsquashed root cannot chown"
expect_fail "Permission denied" as 1000 cat "$mnt/secret"
note "--no-root-squash: root is root, users still checked"

# --- --all-squash: everyone is 65534
umount "$mnt"
orfs_server_stop
orfs_server_start "$exp" --all-squash
orfs_mount "$mnt"
# (Not touch: its utimensat(NULL) on a file the client sees owned by 65534
# needs write permission, which 0644 denies user 1000, as on NFS.)
as 1000 sh -c "echo squashed >'$mnt/pub/by-1000-squashed'"
[ "$(owner "$exp/pub/by-1000-squashed")" = "$ANON:$ANON" ] ||
	fail "with --all-squash user 1000's file is owned by $(owner "$exp/pub/by-1000-squashed")"
[ "$(cat "$exp/pub/by-1000-squashed")" = squashed ] || fail "the squashed write-back did not land"
note "--all-squash: user 1000 creates files owned by $ANON:$ANON"

umount "$mnt"
orfs_server_stop
exit 0
