#!/bin/bash
# Mount failures: each gives the right errno and a clear message, and
# leaves nothing behind.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/sub" "$mnt"
echo x >"$exp/plain"

orfs_insmod

# Nobody listening on that port: refused, and fast.
start=$(date +%s)
expect_fail "" mount -t orfs -o port=20099 "$ORFS_SRV_ADDR:/" "$mnt"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "refusal took too long"
dmesg | tail -n 5 | grep -q "orfs: connection rejected\|orfs: cannot connect" ||
	fail "no kernel log line for the refused connection"

orfs_server_start "$exp"

# Bad options: EINVAL before anything touches the network.
# One bad value of each option, plus unknown options and wrong types; each
# must leave a kernel log line naming the option.
for o in port=0 port=70000 port=abc inline=100 inline=1000000 credits=0 credits=100000 \
	 timeo=0 timeo=x actimeo=99999 nconnect=0 nconnect=17 retrans=0 \
	 keepalive=99999 soft=1 hard=yes bogus=1; do
	expect_fail "" mount -t orfs -o "$o" "$ORFS_SRV_ADDR:/" "$mnt"
	key=${o%%=*}
	dmesg | tail -n 2 | grep -q "orfs: .*$key" || fail "no kernel log line for $o"
done
expect_fail "" mount -t orfs "nocolon" "$mnt"
expect_fail "" mount -t orfs "not-an-ip:/" "$mnt"
expect_fail "" mount -t orfs "$ORFS_SRV_ADDR:relative" "$mnt"

# Paths the server refuses.
# mount(8) words ENOENT as "does not exist".
expect_fail "does not exist" mount -t orfs "$ORFS_SRV_ADDR:/missing" "$mnt"
dmesg | tail -n 3 | grep -q "server refused to mount /missing: error -2" ||
	fail "no kernel log line for the missing path"
expect_fail "Not a directory" mount -t orfs "$ORFS_SRV_ADDR:/plain" "$mnt"
expect_fail "" mount -t orfs "$ORFS_SRV_ADDR:/../.." "$mnt"
mountpoint -q "$mnt" && fail "something got mounted"

# Options in effect show in /proc/mounts; the helper resolves host names.
orfs_mount "$mnt" / nconnect=2,soft,timeo=20,retrans=4,actimeo=7,keepalive=0
grep " $mnt orfs " /proc/mounts | grep -q "nconnect=2,soft,timeo=20,retrans=4,actimeo=7,keepalive=0" ||
	fail "options not shown: $(grep " $mnt orfs " /proc/mounts)"
umount "$mnt"
echo "$ORFS_SRV_ADDR orfs-server.test" >>/etc/hosts
"$ORFS_TOP/tools/mount.orfs" orfs-server.test:/ "$mnt" -o port=$ORFS_PORT
grep -q " $mnt orfs .*addr=$ORFS_SRV_ADDR," /proc/mounts || fail "mount.orfs did not resolve the name"
umount "$mnt"

# A sub-directory of the export mounts, and sees only itself.
orfs_mount "$mnt" /sub
[ -z "$(ls -A "$mnt")" ] || fail "sub-directory mount is not empty"
umount "$mnt"
exit 0
