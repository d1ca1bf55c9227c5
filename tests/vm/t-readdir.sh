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

# Statahead: names looked up one by one with cold caches, in an order that
# is not the directory's, without listing it first.  After the first few
# LOOKUPs the directory is listed with attributes instead, and every stat
# still shows what the server has.  statahead=0 (on remount) turns it off.
mkdir "$exp/sa"
python3 - "$exp/sa" <<'PY'
import os, sys
for i in range(400):
    p = "%s/n%03d" % (sys.argv[1], i)
    with open(p, "wb") as f:
        f.write(b"y" * (i * 11))
    os.chmod(p, 0o600 + (i % 64))
PY
mkdir "$exp/sa/subdir"
sastat() {	# DIR: size, mode, mtime of each name, in name order, one by one
	python3 - "$1" <<'PY'
import os, sys
names = ["n%03d" % i for i in range(400)] + ["subdir"]
for n in names:
    st = os.lstat(os.path.join(sys.argv[1], n))
    print(n, st.st_size, oct(st.st_mode), st.st_mtime_ns, st.st_ino)
try:
    os.lstat(os.path.join(sys.argv[1], "absent"))
    print("absent exists")
except FileNotFoundError:
    print("absent ENOENT")
PY
}
sactr() { orfs_sysfs "$mnt" counters "statahead_$1"; }
(cd "$exp/sa" && sastat .) | awk '{ print $1, $2, $3, $4 }' >"$ORFS_WORK/want.sa"
for sa in 16384 0; do
	[ $sa = 0 ] && mount -o remount,statahead=0 "$mnt"
	grep -q " $mnt orfs .*,statahead=$sa[, ]" /proc/mounts || fail "statahead=$sa not shown"
	echo 3 >/proc/sys/vm/drop_caches
	l0=$(lookups) f0=$(sactr found) p0=$(sactr primed) b0=$(sactr batches)
	sastat "$mnt/sa" >"$ORFS_WORK/got.sa.ino"
	awk '{ print $1, $2, $3, $4 }' "$ORFS_WORK/got.sa.ino" >"$ORFS_WORK/got.sa"
	diff "$ORFS_WORK/want.sa" "$ORFS_WORK/got.sa" || fail "statahead=$sa: stat differs from the server's"
	l=$(( $(lookups) - l0 )) f=$(( $(sactr found) - f0 ))
	p=$(( $(sactr primed) - p0 )) b=$(( $(sactr batches) - b0 ))
	note "statahead=$sa: 402 cold lookups made $l LOOKUPs, $b statahead READDIRs ($p entries, $f lookups answered)"
	if [ $sa = 0 ]; then
		[ "$l" -ge 402 ] && [ "$b" -eq 0 ] || fail "statahead=0: $l LOOKUPs, $b READDIRs"
		# st_ino is the same whether the listing or a LOOKUP brought it.
		awk '{ print $1, $5 }' "$ORFS_WORK/got.sa.ino" | cmp -s - "$ORFS_WORK/ino.sa" ||
			fail "statahead: inode numbers differ from LOOKUP's"
	else
		# The directory itself, the first ORFS_SA_TRIGGER (8) names, and
		# the absent one after the pass ended.
		[ "$l" -le 12 ] || fail "statahead: $l LOOKUPs for 402 names"
		[ "$f" -ge 1 ] && [ "$p" -ge 390 ] || fail "statahead: found $f, primed $p"
		awk '{ print $1, $5 }' "$ORFS_WORK/got.sa.ino" >"$ORFS_WORK/ino.sa"
	fi
done
# A user who may search the directory but not read it: the listing fails,
# statahead gives up on it, and every stat still answers, by LOOKUP.
mount -o remount,statahead=16384 "$mnt"
chmod 0711 "$exp/sa"
echo 3 >/proc/sys/vm/drop_caches
b0=$(sactr batches) l0=$(lookups)
setpriv --reuid=1000 --regid=1000 --clear-groups python3 - "$mnt/sa" <<'PY' >"$ORFS_WORK/got.sa.u" ||
import os, sys
for i in range(400):
    st = os.lstat("%s/n%03d" % (sys.argv[1], i))
    print("n%03d" % i, st.st_size, oct(st.st_mode), st.st_mtime_ns)
PY
	fail "stat as a user without read permission failed"
head -n 400 "$ORFS_WORK/want.sa" | diff - "$ORFS_WORK/got.sa.u" >/dev/null ||
	fail "stat as a user without read permission differs"
b=$(( $(sactr batches) - b0 )) l=$(( $(lookups) - l0 ))
note "no read permission: $l LOOKUPs, $b statahead READDIRs (refused)"
[ "$b" -eq 1 ] && [ "$l" -ge 399 ] || fail "no read permission: $b READDIRs, $l LOOKUPs"
chmod 0755 "$exp/sa"

# Unlinks by name in a cold directory: the lookups they need come from the
# listing, and every file is gone on the server.
echo 3 >/proc/sys/vm/drop_caches
l0=$(lookups)
python3 - "$mnt/sa" <<'PY'
import os, sys
for i in range(399, -1, -1):
    os.unlink("%s/n%03d" % (sys.argv[1], i))
PY
l=$(( $(lookups) - l0 ))
note "unlink of 400 cold names made $l LOOKUPs"
[ "$l" -le 12 ] || fail "unlink: $l LOOKUPs for 400 names"
[ "$(ls -A "$exp/sa")" = subdir ] || fail "unlink left: $(ls -A "$exp/sa" | head -5)"
[ "$(ls -A "$mnt/sa")" = subdir ] || fail "mount still lists: $(ls -A "$mnt/sa" | head -5)"
umount "$mnt"
orfs_mount "$mnt"
# A larger inline threshold carries more entries per reply.
umount "$mnt"
orfs_mount "$mnt" / inline=65536
(cd "$mnt/big" && ls -1af | LC_ALL=C sort) >"$ORFS_WORK/got"
cmp -s "$ORFS_WORK/want" "$ORFS_WORK/got" || fail "listings differ with inline=65536"
exit 0
