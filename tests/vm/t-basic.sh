#!/bin/bash
# First slice end to end: load orfs.ko, start orfsd, mount over rxe, stat
# and list a directory prepared on the server side, df, umount, rmmod.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt

mkdir -p "$exp/dir/sub" "$exp/empty"
echo hello >"$exp/file"
head -c 100000 /dev/urandom >"$exp/dir/big"
chmod 0640 "$exp/dir/big"
chown 1234:5678 "$exp/dir/big"
ln -s file "$exp/link"
mkfifo "$exp/fifo"
touch -d '2001-02-03 04:05:06.123456789' "$exp/dir/sub"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"

[ "$(stat -c %F "$mnt")" = directory ] || fail "mount root is not a directory"
grep -q " $mnt orfs .*addr=$ORFS_SRV_ADDR,port=$ORFS_PORT" /proc/mounts ||
	fail "/proc/mounts lacks the options: $(grep orfs /proc/mounts)"

# Same names, types, sizes, modes, owners, link counts, times and inode
# numbers as the server's own view.
view() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		while read -r f; do stat -c '%n %F %s %a %u %g %h %Y %i' "$f"; done)
}
view "$exp" >"$ORFS_WORK/want"
view "$mnt" >"$ORFS_WORK/got"
diff -u "$ORFS_WORK/want" "$ORFS_WORK/got" || fail "the mount's view differs"
note "$(wc -l <"$ORFS_WORK/got") entries match"

[ "$(stat -c %y "$mnt/dir/sub")" = "$(stat -c %y "$exp/dir/sub")" ] ||
	fail "nanosecond mtime differs"
[ -z "$(ls -A "$mnt/empty")" ] || fail "empty directory is not empty"
[ "$(ls -1a "$mnt" | head -n 2 | tr '\n' ' ')" = ". .. " ] || fail "no dot entries"
ls -la "$mnt/dir" >/dev/null

# A missing name is ENOENT and stays so.
expect_fail "No such file" stat "$mnt/nope"
expect_fail "No such file" stat "$mnt/dir/nope/deeper"
expect_fail "Not a directory" ls "$mnt/file/x"

# statfs: the export's file system numbers, seen through the mount.
df -P "$mnt" | tail -n 1
[ "$(stat -f -c '%b %S %c' "$mnt")" = "$(stat -f -c '%b %S %c' "$exp")" ] ||
	fail "statfs differs: $(stat -f -c '%b %S %c' "$mnt") vs $(stat -f -c '%b %S %c' "$exp")"
[ "$(stat -f -c %T "$mnt")" != "" ]

# Per-mount sysfs: counters, requests by opcode, and the NULL ping.
dev=$(stat -c '%Hd:%Ld' "$mnt")
sys=/sys/fs/orfs/$dev
[ -d "$sys" ] || fail "no $sys"
[ "$(cat "$sys/server")" = "$ORFS_SRV_ADDR:$ORFS_PORT" ] || fail "sysfs server: $(cat "$sys/server")"
[ "$(cat "$sys/inline_size")" -eq 4096 ] || fail "inline_size $(cat "$sys/inline_size")"
[ "$(awk '$1 == "lookup" { print $2 }' "$sys/requests")" -gt 0 ] || fail "no lookups counted"
[ "$(awk '$1 == "mr_registrations" { print $2 }' "$sys/counters")" -eq 0 ] ||
	fail "memory was registered on the metadata path"
echo 100 >"$sys/ping"
note "ping: $(cat "$sys/ping")"
[ "$(awk '{ print $2 }' "$sys/ping")" -eq 100 ] || fail "ping did not run 100 round trips"
[ "$(awk '$1 == "null" { print $2 }' "$sys/requests")" -ge 100 ] || fail "NULLs not counted"

umount "$mnt"
[ -d "$sys" ] && fail "$sys left behind after umount"
rmmod orfs
grep -q '^orfs ' /proc/modules && fail "module still loaded"
exit 0
