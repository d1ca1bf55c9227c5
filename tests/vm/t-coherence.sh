#!/bin/bash
# Two mounts of one export over separate connections see each other's
# changes: at once on open (close-to-open), and within actimeo for cached
# attributes, names and negative entries.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
a=$ORFS_WORK/a
b=$ORFS_WORK/b
mkdir -p "$exp"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$a" / actimeo=2
orfs_mount "$b" / actimeo=2
[ "$(awk '$3 == "orfs"' /proc/mounts | wc -l)" -eq 2 ] || fail "two mounts expected"

# Close-to-open: written and closed on A, opened on B.
echo "version 1" >"$a/file"
[ "$(cat "$b/file")" = "version 1" ] || fail "B does not see A's new file"
echo "version 2, longer" >"$b/file"
[ "$(cat "$a/file")" = "version 2, longer" ] || fail "A does not see B's rewrite on open"

# A larger file written through one mount and read through the other.
head -c 3000000 /dev/urandom >"$ORFS_WORK/blob"
cp "$ORFS_WORK/blob" "$a/blob"
cmp "$ORFS_WORK/blob" "$b/blob" || fail "data differs across mounts"
cmp "$ORFS_WORK/blob" "$exp/blob" || fail "data differs on the server"

# Cached attributes catch up within actimeo.
stat -c %s "$a/file" >/dev/null
echo "appended" >>"$b/file"
sleep 3
[ "$(stat -c %s "$a/file")" -eq "$(stat -c %s "$exp/file")" ] || fail "A's size is stale after actimeo"

# A negative entry expires: B looks, A creates, B sees it after actimeo.
[ -e "$b/late" ] && fail "late exists too early"
touch "$a/late"
sleep 3
[ -e "$b/late" ] || fail "B's negative entry did not expire"

# Removal on A: B's cached name goes away after actimeo.
stat "$b/late" >/dev/null
rm "$a/late"
sleep 3
expect_fail "No such file" stat "$b/late"

# Names revalidated after actimeo: one LOOKUP each, whose attributes serve
# the stat too (no GETATTR), and the sizes are the server's.  By name, not
# by a glob: a listing would bring the attributes itself (rdirplus).
mkdir "$a/many"
for i in $(seq 20); do echo "$i" >"$a/many/f$i"; done
names() { for i in $(seq 20); do echo "$1/many/f$i"; done; }
names "$b" | xargs stat >/dev/null
for i in $(seq 20); do echo "more $i" >>"$a/many/f$i"; done
sleep 3
req() { orfs_sysfs "$b" requests "$1"; }
l0=$(req lookup) g0=$(req getattr)
sizes=$(names "$b" | xargs stat -c %s | tr '\n' ' ')
l=$(( $(req lookup) - l0 )) g=$(( $(req getattr) - g0 ))
[ "$sizes" = "$(names "$exp" | xargs stat -c %s | tr '\n' ' ')" ] || fail "B's sizes are stale: $sizes"
note "stat of 20 expired names: $l LOOKUPs, $g GETATTRs"
[ "$l" -ge 20 ] && [ "$g" -le 2 ] || fail "stat of 20 expired names: $l LOOKUPs, $g GETATTRs"

# Replaced under a cached name on the other mount: the stale handle makes
# the VFS walk again (LOOKUP_REVAL) and the new file is found at once.
stat "$b/file" >/dev/null
rm "$a/file"
echo "replacement" >"$a/file"
[ "$(cat "$b/file")" = "replacement" ] || fail "B did not recover from a stale handle"

# A file removed under an open descriptor on the other mount: ESTALE, like NFS.
exec 4<"$b/blob"
rm "$a/blob"
sleep 3
if out=$(cat /proc/self/fd/4 2>&1 >/dev/null); then
	note "read of a deleted file still served from cache"
else
	echo "$out" | grep -q "Stale file handle" || fail "expected ESTALE, got: $out"
fi
exec 4<&-
umount "$a"
umount "$b"
exit 0
