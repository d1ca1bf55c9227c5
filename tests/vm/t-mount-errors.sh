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
for o in port=0 port=70000 inline=100 inline=1000000 credits=0 credits=100000 \
	 timeo=0 actimeo=99999 bogus=1 port=abc; do
	expect_fail "" mount -t orfs -o "$o" "$ORFS_SRV_ADDR:/" "$mnt"
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

# A sub-directory of the export mounts, and sees only itself.
orfs_mount "$mnt" /sub
[ -z "$(ls -A "$mnt")" ] || fail "sub-directory mount is not empty"
umount "$mnt"
exit 0
