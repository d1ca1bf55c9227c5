#!/bin/bash
# The buffered data path: large sequential files, batching, partial pages
# at odd offsets, mmap, truncate/extend, append, fsync; every byte verified
# against the server's copy and after dropping the client's caches.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" / inline=65536
count() { orfs_sysfs "$mnt" requests "$1"; }

# 8 MiB sequential: batched 64 KiB WRITEs and READs.
head -c 8388608 /dev/urandom >"$ORFS_WORK/src"
w0=$(count write)
dd if="$ORFS_WORK/src" of="$mnt/seq" bs=1M conv=fsync status=none
writes=$(( $(count write) - w0 ))
cmp "$ORFS_WORK/src" "$exp/seq" || fail "server copy differs"
note "8 MiB written in $writes WRITE requests"
[ "$writes" -le 256 ] || fail "write-back was not batched ($writes requests for 8 MiB)"
echo 3 >/proc/sys/vm/drop_caches
r0=$(count read)
cmp "$ORFS_WORK/src" "$mnt/seq" || fail "read-back differs"
reads=$(( $(count read) - r0 ))
note "8 MiB read in $reads READ requests"
[ "$reads" -le 256 ] || fail "readahead was not batched ($reads requests for 8 MiB)"
[ "$(orfs_sysfs "$mnt" counters mr_registrations)" -eq 0 ] ||
	fail "the buffered path registered memory"

# Write-behind: 1 MiB writes that end 1 MiB (wsize) chunks of the file are
# on the server before close or fsync.  With nowritebehind (remount) they
# wait for them.
wb_check() {	# yes|no
	local n0 n
	n0=$(orfs_sysfs "$mnt" counters write_behind)
	python3 - "$mnt/wb" "$exp/wb" "$1" <<'PY' || fail "write-behind ($1)"
import os, sys, time
m, e, want = sys.argv[1:4]
data = os.urandom(4 << 20)
fd = os.open(m, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
for i in range(4):
    os.write(fd, data[i << 20:(i + 1) << 20])
def on_server():
    with open(e, "rb") as f:
        return f.read()
end = time.monotonic() + (20 if want == "yes" else 2)
while on_server() != data and time.monotonic() < end:
    time.sleep(0.1)
got = on_server()
if want == "yes" and got != data:
    sys.exit("write-behind: %d of %d bytes on the server before close" % (len(got), len(data)))
if want == "no" and got:
    sys.exit("nowritebehind: %d bytes on the server before close" % len(got))
os.close(fd)
if on_server() != data:
    sys.exit("server copy differs after close")
PY
	n=$(( $(orfs_sysfs "$mnt" counters write_behind) - n0 ))
	if [ "$1" = yes ]; then
		[ "$n" -ge 1 ] || fail "write_behind counter did not move"
	else
		[ "$n" -eq 0 ] || fail "nowritebehind: write_behind moved by $n"
	fi
}
grep -q " $mnt orfs .*,writebehind[, ]" /proc/mounts || fail "writebehind not shown"
wb_check yes
mount -o remount,nowritebehind "$mnt"
grep -q " $mnt orfs .*,nowritebehind[, ]" /proc/mounts || fail "nowritebehind not shown"
wb_check no
mount -o remount,writebehind "$mnt"
wb_check yes
note "write-behind: the data of 4 x 1 MiB writes reached the server before close"

# Partial pages at odd offsets, through the mount and checked on the server.
python3 - "$mnt/odd" "$exp/odd" <<'PY'
import os, random, sys
m, e = sys.argv[1], sys.argv[2]
random.seed(7)
ref = bytearray(200000)
fd = os.open(m, os.O_CREAT | os.O_RDWR, 0o644)
for _ in range(300):
    off = random.randrange(0, 190000)
    data = os.urandom(random.randrange(1, 9000))
    os.pwrite(fd, data, off)
    ref[off:off + len(data)] = data
    size = max(len(ref), off + len(data))
end = max(i for i in range(len(ref)) if ref[i]) + 1 if any(ref) else 0
os.fsync(fd)
os.close(fd)
got = open(e, "rb").read()
want = bytes(ref[:len(got)])
assert got == want, "server copy differs after odd writes"
with open("/proc/sys/vm/drop_caches", "w") as f:
    f.write("3")
assert open(m, "rb").read() == got, "mount differs after drop_caches"
print("odd-offset writes ok (%d bytes)" % len(got))
PY

# mmap: write through a shared mapping, msync, verify on the server.
python3 - "$mnt/map" "$exp/map" <<'PY'
import mmap, os, sys
m, e = sys.argv[1], sys.argv[2]
fd = os.open(m, os.O_CREAT | os.O_RDWR, 0o644)
os.ftruncate(fd, 3 * 4096 + 100)
mm = mmap.mmap(fd, 3 * 4096 + 100)
mm[10:20] = b"0123456789"
mm[4096 * 3 + 50:4096 * 3 + 60] = b"abcdefghij"
mm.flush()
mm.close()
os.close(fd)
d = open(e, "rb").read()
assert d[10:20] == b"0123456789" and d[4096 * 3 + 50:4096 * 3 + 60] == b"abcdefghij", "mmap write lost"
mm = mmap.mmap(os.open(m, os.O_RDONLY), 0, prot=mmap.PROT_READ)
assert mm[10:20] == b"0123456789"
print("mmap ok")
PY

# Truncate and extend: the tail reads as zeroes; append goes to the end.
printf 'abcdefghij' >"$mnt/t"
truncate -s 4 "$mnt/t"
truncate -s 8192 "$mnt/t"
[ "$(head -c 4 "$mnt/t")" = abcd ] || fail "truncate lost the head"
[ "$(tail -c +5 "$mnt/t" | tr -d '\0' | wc -c)" -eq 0 ] || fail "extended tail is not zero"
printf 'END' >>"$mnt/t"
[ "$(stat -c %s "$exp/t")" -eq 8195 ] || fail "append landed at the wrong place"
[ "$(tail -c 3 "$exp/t")" = END ] || fail "append data wrong"

# Data written through one mount and read through another.
orfs_mount "$ORFS_WORK/m2"
cmp "$ORFS_WORK/src" "$ORFS_WORK/m2/seq" || fail "second mount reads different data"
umount "$ORFS_WORK/m2"
umount "$mnt"

# The same with the default 4 KiB threshold.
orfs_mount "$mnt"
cmp "$ORFS_WORK/src" "$mnt/seq" || fail "read with inline=4096 differs"
cp "$ORFS_WORK/src" "$mnt/seq2"
sync
cmp "$ORFS_WORK/src" "$exp/seq2" || fail "write with inline=4096 differs"

# openread (the default): opening a small file for reading is one READ
# that brings its attributes and its data, no GETATTR; a larger one is
# revalidated by GETATTR; empty files too.  A file changed on the server
# is seen at the next open, as close-to-open promises.
mkdir "$exp/small"
for i in $(seq 1 20); do head -c $((i * 150)) /dev/urandom >"$exp/small/f$i"; done
: >"$exp/small/empty"
head -c 10000 /dev/urandom >"$exp/small/big"
ls -l "$mnt/small" >/dev/null	# names and attributes cached (rdirplus)
g0=$(count getattr) r0=$(count read) o0=$(orfs_sysfs "$mnt" counters open_reads)
for i in $(seq 1 20); do
	cmp "$exp/small/f$i" "$mnt/small/f$i" || fail "openread: f$i differs"
done
g=$(( $(count getattr) - g0 )) r=$(( $(count read) - r0 ))
o=$(( $(orfs_sysfs "$mnt" counters open_reads) - o0 ))
note "openread: 20 small files read with $r READs, $g GETATTRs, $o opens that brought their data"
[ "$r" -eq 20 ] && [ "$g" -eq 0 ] && [ "$o" -eq 20 ] ||
	fail "openread: expected 20 READs and no GETATTR"
cmp "$exp/small/empty" "$mnt/small/empty" || fail "openread: empty file"
cmp "$exp/small/big" "$mnt/small/big" || fail "openread: a file above the inline size"
printf 'changed on the server' >"$exp/small/f3"
cmp "$exp/small/f3" "$mnt/small/f3" || fail "openread: a change on the server was not seen at open"
mount -o remount,noopenread "$mnt"
grep -q " $mnt orfs .*,noopenread[, ]" /proc/mounts || fail "noopenread not shown"
echo 3 >/proc/sys/vm/drop_caches
ls -l "$mnt/small" >/dev/null
g0=$(count getattr) r0=$(count read)
for i in 1 2 4 5; do cmp "$exp/small/f$i" "$mnt/small/f$i" || fail "noopenread: f$i differs"; done
g=$(( $(count getattr) - g0 )) r=$(( $(count read) - r0 ))
[ "$r" -eq 4 ] && [ "$g" -eq 4 ] || fail "noopenread: $r READs and $g GETATTRs for 4 files"
mount -o remount,openread "$mnt"

# Bare READ replies (bareread, the default): an inline READ that gets all
# it asked for comes back as its data alone, one SEND with immediate data;
# one that ends short at end of file gets a normal reply.  Random 4 KiB
# reads must see the server's bytes either way, and with nobareread no
# READ asks for a bare reply.
bare_check() {	# on|off
	local b0 r0 bad0 b r
	echo 3 >/proc/sys/vm/drop_caches
	b0=$(orfs_sysfs "$mnt" counters bare_replies) r0=$(count read)
	bad0=$(orfs_sysfs "$mnt" counters bad_replies)
	python3 - "$mnt/seq" "$ORFS_WORK/src" <<'PY' || fail "bare ($1): random reads differ"
import os, random, sys
f = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(f, 0, 0, os.POSIX_FADV_RANDOM)
ref = open(sys.argv[2], "rb").read()
for _ in range(200):
    off = random.randrange(len(ref) // 4096) * 4096
    if os.pread(f, 4096, off) != ref[off:off + 4096]:
        sys.exit("differs at %d" % off)
PY
	b=$(( $(orfs_sysfs "$mnt" counters bare_replies) - b0 )) r=$(( $(count read) - r0 ))
	note "bareread $1: $r READs for 200 random 4 KiB reads, $b bare replies"
	[ "$r" -ge 100 ] || fail "bare ($1): random reads took only $r READs"
	case $1 in
	on) [ "$b" -eq "$r" ] || fail "bare: $b of $r full inline READs came back bare" ;;
	off) [ "$b" -eq 0 ] || fail "nobareread: $b bare replies" ;;
	esac
	[ "$(orfs_sysfs "$mnt" counters bad_replies)" -eq "$bad0" ] ||
		fail "bare ($1): malformed replies"
}
grep -q " $mnt orfs .*,bareread[, ]" /proc/mounts || fail "bareread not shown"
bare_check on
# The last page of a file: short (a normal reply) or exactly full (bare).
# Files above a page, so that openread does not read them at open.
head -c 7000 /dev/urandom >"$exp/tail7000"
head -c 8192 /dev/urandom >"$exp/exact8k"
last_page() {	# NAME: read its second page alone, compare with the server
	python3 - "$mnt/$1" "$exp/$1" <<'PY' || fail "bare: the last page of $1 differs"
import os, sys
f = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(f, 0, 0, os.POSIX_FADV_RANDOM)
sys.exit(os.pread(f, 4096, 4096) != open(sys.argv[2], "rb").read()[4096:])
PY
}
echo 3 >/proc/sys/vm/drop_caches
b0=$(orfs_sysfs "$mnt" counters bare_replies)
last_page tail7000
[ "$(orfs_sysfs "$mnt" counters bare_replies)" -eq "$b0" ] ||
	fail "bare: a READ that ended short at end of file came back bare"
last_page exact8k
[ "$(orfs_sysfs "$mnt" counters bare_replies)" -eq $((b0 + 1)) ] ||
	fail "bare: a READ that ended exactly at end of file did not come back bare"
mount -o remount,nobareread "$mnt"
grep -q " $mnt orfs .*,nobareread[, ]" /proc/mounts || fail "nobareread not shown"
bare_check off
mount -o remount,bareread "$mnt"

# tar x's order: write, then futimens, fchown and fchmod through the open
# file, then close.  The dirty data goes out before the SETATTRs, so the
# server keeps the times and the mode set, and every byte; also for a user
# who makes the file read-only before closing it.
cat >"$ORFS_WORK/setattr.py" <<'PY'
import os, sys
m, e = sys.argv[1:3]
data = os.urandom(5000)
fd = os.open(m, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
os.write(fd, data)
os.utime(fd, ns=(1000000000123456789, 1234567890987654321))
os.fchown(fd, os.getuid(), os.getgid())
os.fchmod(fd, 0o444)
os.close(fd)
for where in (e, m):
    st = os.stat(where)
    if st.st_mtime_ns != 1234567890987654321 or st.st_mode & 0o7777 != 0o444:
        sys.exit("%s: mtime %d mode %o" % (where, st.st_mtime_ns, st.st_mode))
    with open(where, "rb") as f:
        if f.read() != data:
            sys.exit("%s: data differs" % where)
PY
mkdir -m 0777 "$mnt/sa"
python3 "$ORFS_WORK/setattr.py" "$mnt/sa/root" "$exp/sa/root" ||
	fail "write, then setattr through the open file (root)"
setpriv --reuid=1000 --regid=1000 --clear-groups \
	python3 "$ORFS_WORK/setattr.py" "$mnt/sa/user" "$exp/sa/user" ||
	fail "write, then setattr through the open file (user 1000)"
echo 3 >/proc/sys/vm/drop_caches
[ "$(stat -c %Y.%a "$mnt/sa/user")" = 1234567890.444 ] ||
	fail "write, then setattr: the times or the mode did not stay"
umount "$mnt"
exit 0
