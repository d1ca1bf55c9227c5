#!/bin/bash
# A directory of 100,000 entries, spread over many READDIR replies, is
# listed with each name exactly once and the right d_type; telldir()/
# seekdir() resume at the same place.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
n=${ORFS_READDIR_N:-100000}
mkdir -p "$exp/big"
python3 - "$exp/big" "$n" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    os.close(os.open("%s/entry-with-a-moderately-long-name-%07d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644))
PY
mkdir "$exp/big/adir"
ln -s nowhere "$exp/big/alink"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"

(cd "$exp/big" && ls -1af | LC_ALL=C sort) >"$ORFS_WORK/want"
(cd "$mnt/big" && ls -1af | LC_ALL=C sort) >"$ORFS_WORK/got"
cmp -s "$ORFS_WORK/want" "$ORFS_WORK/got" || fail "listings differ"
[ "$(uniq -d "$ORFS_WORK/got" | wc -l)" -eq 0 ] || fail "duplicate names"
[ "$(wc -l <"$ORFS_WORK/got")" -eq $((n + 4)) ] || fail "wrong count: $(wc -l <"$ORFS_WORK/got")"
# d_type without stat: find -type uses it when the file system fills it in.
[ "$(find "$mnt/big" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] || fail "d_type dir"
[ "$(find "$mnt/big" -mindepth 1 -maxdepth 1 -type l | wc -l)" -eq 1 ] || fail "d_type link"
readdirs=$(awk '$1 == "readdir" { print $2 }' /sys/fs/orfs/*/requests)
note "$n entries listed once each, in $readdirs READDIR replies so far"
[ "$readdirs" -gt 100 ] || fail "expected the listing to span many replies"

python3 tests/vm/tools/seekdir.py "$mnt/big" 12345

# rdirplus (the default): the listing brings each entry's handle and
# attributes, so "ls -l" right after asks for no name again, and shows
# what the server has.  With nordirplus every name is a LOOKUP.
mkdir "$exp/plus" "$exp/plus/sub"
python3 - "$exp/plus" <<'PY'
import os, sys
for i in range(300):
    with open("%s/f%03d" % (sys.argv[1], i), "wb") as f:
        f.write(b"x" * (i * 37))
    os.chmod("%s/f%03d" % (sys.argv[1], i), 0o600 + (i % 64))
PY
ln -s f001 "$exp/plus/link"
lookups() { orfs_sysfs "$mnt" requests lookup; }
(cd "$exp/plus" && ls -ln --time-style=+%s) >"$ORFS_WORK/want.l"
for opt in rdirplus nordirplus; do
	umount "$mnt"
	orfs_mount "$mnt" / "$opt"
	grep -q " $mnt orfs .*,$opt[, ]" /proc/mounts || fail "$opt not shown"
	echo 3 >/proc/sys/vm/drop_caches
	l0=$(lookups)
	(cd "$mnt/plus" && ls -ln --time-style=+%s) >"$ORFS_WORK/got.l"
	l=$(( $(lookups) - l0 ))
	diff "$ORFS_WORK/want.l" "$ORFS_WORK/got.l" || fail "$opt: ls -l differs from the server's"
	note "$opt: ls -l of 302 entries made $l LOOKUPs"
	if [ $opt = rdirplus ]; then
		[ "$l" -le 2 ] || fail "rdirplus: $l LOOKUPs for names the listing brought"
	else
		[ "$l" -ge 302 ] || fail "nordirplus: only $l LOOKUPs for 302 names"
	fi
done
umount "$mnt"
orfs_mount "$mnt"
# A larger inline threshold carries more entries per reply.
umount "$mnt"
orfs_mount "$mnt" / inline=65536
(cd "$mnt/big" && ls -1af | LC_ALL=C sort) >"$ORFS_WORK/got"
cmp -s "$ORFS_WORK/want" "$ORFS_WORK/got" || fail "listings differ with inline=65536"
exit 0
