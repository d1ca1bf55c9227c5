#!/bin/bash
# Malformed replies from the server reach the client (orfsd's ORFSD_FAULT,
# server/fault.h), for both forms of a READ reply: bare (the default) and
# normal (nobareread).
#  - read-short: a reply one byte short is not taken; the kernel logs it,
#    bad_replies counts it, and the connection, whose server can no longer
#    be trusted, is replaced.  The request goes again on the new one, at
#    most twice (bad_reply_retries): the read gets the server's bytes, or
#    EIO if all three replies were damaged.
#  - write-short: the same for a WRITE's reply; fsync reports EIO only if
#    all three were damaged.
#  - commit-bad-length: a COMMIT's reply whose header claims a body it
#    does not carry, handled the same way; fsync reports EIO only if all
#    three were damaged, and the next fsync commits.
#  - read-garbage: a reply that names no request is dropped; the request
#    times out (timeo), goes again on a new connection, and gets the
#    server's bytes.
#  - attr-bad-mode, readdir-loop, readdir-cycle and listxattr-unterminated:
#    well-formed replies whose content is wrong (below).
# Nothing else is lost: a file written through the mount meanwhile is whole
# on the server.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp" "$mnt"
head -c 1048576 /dev/urandom >"$exp/f"
orfs_insmod

ctr() { orfs_sysfs "$mnt" counters "$1"; }

# ctr_is NAME WANT WHAT: counter NAME is WANT, or the test fails for WHAT.
ctr_is() {
	[ "$(ctr "$1")" -eq "$2" ] || fail "$3: $1 $(ctr "$1"), expected $2"
}

# read_page N: read page N of f alone (no readahead around it); prints
# "ok" if it holds the server's bytes, "EIO", or fails the test.
read_page() {
	python3 - "$mnt/f" "$exp/f" "$1" <<'PY'
import errno, os, sys
f = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(f, 0, 0, os.POSIX_FADV_RANDOM)
off = int(sys.argv[3]) * 4096
try:
    got = os.pread(f, 4096, off)
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(0)
with open(sys.argv[2], "rb") as ref:
    ref.seek(off)
    print("ok" if got == ref.read(4096) else "differs")
PY
}

# session FAULT MOUNT_OPTS: orfsd with ORFSD_FAULT=FAULT, a fresh mount.
session() {
	orfs_server_stop
	: >"$ORFS_WORK/orfsd.log"
	ORFSD_FAULT=$1 orfs_server_start "$exp"
	grep -q "ORFSD_FAULT=$1: fault injection for testing" "$ORFS_WORK/orfsd.log" ||
		fail "orfsd did not log ORFSD_FAULT=$1"
	orfs_mount "$mnt" / "nconnect=1${2:+,$2}"
}

# short_case MODE OPTS KLOG: replies one byte short.  One read(2) of a page
# makes two READs (readahead, then read_folio), and each is sent at most
# three times (the first time and ORFS_BAD_REPLY_RETRIES more).
#  - read-short:2: the readahead's READ is damaged twice and answered the
#    third time: the read gets the server's bytes.
#  - read-short:6: both READs are damaged three times: the read gets EIO.
# Every damaged reply is counted, logged, and replaces the connection.
short_case() {
	local mode=$1 opts=$2 klog=$3 bad0 retr0 b0 r
	session read-short:2 "$opts"
	bad0=$(ctr bad_replies) retr0=$(ctr bad_reply_retries) b0=$(ctr bare_replies)
	dmesg_mark
	r=$(read_page 5)
	[ "$r" = ok ] || fail "$mode read-short:2: read gave '$r', not the server's bytes"
	ctr_is bad_replies $((bad0 + 2)) "$mode read-short:2"
	ctr_is bad_reply_retries $((retr0 + 2)) "$mode read-short:2"
	[ "$(ctr reconnects)" -ge 2 ] ||
		fail "$mode read-short:2: $(ctr reconnects) reconnects, expected 2"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" | grep -q "orfs: $klog" ||
		fail "$mode read-short:2: no kernel log line '$klog'"
	[ "$(grep -c "fault injection: $mode READ reply one byte short" "$ORFS_WORK/orfsd.log")" -eq 2 ] ||
		fail "$mode read-short:2: orfsd did not damage 2 $mode replies"
	case $mode in
	bare) [ "$(ctr bare_replies)" -gt "$b0" ] || fail "bare read-short: no bare reply after" ;;
	normal) [ "$(ctr bare_replies)" -eq 0 ] || fail "normal read-short: bare replies" ;;
	esac
	note "$mode read-short:2: the server's bytes after 2 retransmissions" \
		"($(ctr bad_replies) bad replies, $(ctr reconnects) reconnects)"
	umount "$mnt"

	session read-short:6 "$opts"
	bad0=$(ctr bad_replies) retr0=$(ctr bad_reply_retries)
	r=$(read_page 5)
	[ "$r" = EIO ] || fail "$mode read-short:6: read gave '$r', not EIO"
	ctr_is bad_replies $((bad0 + 6)) "$mode read-short:6"
	ctr_is bad_reply_retries $((retr0 + 4)) "$mode read-short:6"
	# The faults are spent: the same page, then another, read correctly.
	r=$(read_page 5)
	[ "$r" = ok ] || fail "$mode read-short:6: the read after gave '$r'"
	r=$(read_page 77)
	[ "$r" = ok ] || fail "$mode read-short:6: another page gave '$r'"
	ctr_is bad_replies $((bad0 + 6)) "$mode read-short:6, the reads after"
	note "$mode read-short:6: EIO after 3 attempts of each READ, then the server's bytes"
	umount "$mnt"
}

# write_fsyncs SRC DST N: write SRC's bytes to the new file DST on the
# mount, then fsync it N times; prints each fsync's result ("ok" or the
# errno's name), space-separated.
write_fsyncs() {
	python3 - "$1" "$2" "$3" <<'PY'
import errno, os, sys
data = open(sys.argv[1], "rb").read()
f = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(f, data)
out = []
for _ in range(int(sys.argv[3])):
    try:
        os.fsync(f)
        out.append("ok")
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, str(e.errno)))
try:
    os.close(f)
except OSError:
    pass
print(" ".join(out))
PY
}

# write_case: a 4 KiB write and fsync make one WRITE, whose replies come
# back one byte short.  write-short:2: the WRITE goes again and fsync
# succeeds; write-short:3: fsync reports EIO (the WRITE was sent three
# times).  Either way the server has the bytes (each WRITE reached the file
# before its reply), and the next write through the mount works.
write_case() {
	local n retr0 r
	for n in 2 3; do
		session write-short:$n ""
		retr0=$(ctr bad_reply_retries)
		head -c 4096 /dev/urandom >"$ORFS_WORK/w4k"
		r=$(write_fsyncs "$ORFS_WORK/w4k" "$mnt/w$n" 1)
		case $n in
		2) [ "$r" = ok ] || fail "write-short:2: fsync gave '$r'" ;;
		3) [ "$r" = EIO ] || fail "write-short:3: fsync gave '$r', not EIO" ;;
		esac
		ctr_is bad_reply_retries $((retr0 + 2)) "write-short:$n"
		[ "$(grep -c "fault injection: WRITE reply one byte short" "$ORFS_WORK/orfsd.log")" -eq "$n" ] ||
			fail "write-short:$n: orfsd did not damage $n WRITE replies"
		cmp "$ORFS_WORK/w4k" "$exp/w$n" || fail "write-short:$n: the server's file differs"
		head -c 65536 /dev/urandom >"$ORFS_WORK/w64k"
		dd if="$ORFS_WORK/w64k" of="$mnt/after$n" bs=64k conv=fsync status=none ||
			fail "write-short:$n: the next write failed"
		cmp "$ORFS_WORK/w64k" "$exp/after$n" || fail "write-short:$n: the next write differs"
		note "write-short:$n: fsync $r, the server has the bytes, the next write works"
		umount "$mnt"
	done
}

# commit_case: a 4 KiB write and fsync make one WRITE and one COMMIT, whose
# replies claim 8 bytes of body they do not carry.  commit-bad-length:2:
# the COMMIT goes again and fsync succeeds; commit-bad-length:3: fsync
# reports EIO (the COMMIT was sent three times), and the next fsync, whose
# COMMIT gets a good reply, succeeds.  The server has the bytes either way.
commit_case() {
	local n retr0 r
	for n in 2 3; do
		session commit-bad-length:$n ""
		retr0=$(ctr bad_reply_retries)
		head -c 4096 /dev/urandom >"$ORFS_WORK/c4k"
		r=$(write_fsyncs "$ORFS_WORK/c4k" "$mnt/c$n" 2)
		case $n in
		2) [ "$r" = "ok ok" ] || fail "commit-bad-length:2: fsyncs gave '$r'" ;;
		3) [ "$r" = "EIO ok" ] || fail "commit-bad-length:3: fsyncs gave '$r', not EIO then ok" ;;
		esac
		ctr_is bad_reply_retries $((retr0 + 2)) "commit-bad-length:$n"
		[ "$(grep -c "fault injection: COMMIT reply claims a body" "$ORFS_WORK/orfsd.log")" -eq "$n" ] ||
			fail "commit-bad-length:$n: orfsd did not damage $n COMMIT replies"
		cmp "$ORFS_WORK/c4k" "$exp/c$n" || fail "commit-bad-length:$n: the server's file differs"
		note "commit-bad-length:$n: fsyncs $r, the server has the bytes"
		umount "$mnt"
	done
}

# stats PATH...: stat each path in turn (os.stat, one process); prints
# "reg SIZE", "dir" or the errno name for each.
stats() {
	python3 - "$@" <<'PY'
import errno, os, stat, sys
out = []
for p in sys.argv[1:]:
    try:
        st = os.stat(p)
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, str(e.errno)))
        continue
    if stat.S_ISREG(st.st_mode):
        out.append("reg %d" % st.st_size)
    elif stat.S_ISDIR(st.st_mode):
        out.append("dir")
    else:
        out.append("mode %o" % st.st_mode)
print(",".join(out))
PY
}

# attr_case: GETATTR and LOOKUP replies whose attributes name no file type
# (attr-bad-mode:3), with actimeo=0 so that every stat asks the server.
# The root's inode exists from the mount (MOUNT is never damaged): its
# GETATTR fails with EIO, and the inode keeps its type.  f has no inode
# yet: its LOOKUPs fail with EIO and build none.  Then both work.  Every
# damaged reply is counted in bad_replies and logged; nothing is retried
# (the reply was well formed), and the kernel logs no warning.
attr_case() {
	local bad0 retr0 r want
	session attr-bad-mode:3 "actimeo=0"
	bad0=$(ctr bad_replies) retr0=$(ctr bad_reply_retries)
	dmesg_mark
	r=$(stats "$mnt" "$mnt/f" "$mnt/f" "$mnt/f" "$mnt")
	want="EIO,EIO,EIO,reg 1048576,dir"
	[ "$r" = "$want" ] || fail "attr-bad-mode:3: stats gave '$r', not '$want'"
	ctr_is bad_replies $((bad0 + 3)) "attr-bad-mode:3"
	ctr_is bad_reply_retries "$retr0" "attr-bad-mode:3"
	[ "$(grep -c "fault injection: [A-Z]* reply's attributes name no file type" \
		"$ORFS_WORK/orfsd.log")" -eq 3 ] ||
		fail "attr-bad-mode:3: orfsd did not damage 3 replies"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" | grep -q "orfs: .*server sent invalid attributes" ||
		fail "attr-bad-mode:3: no kernel log line 'server sent invalid attributes'"
	dmesg_check || fail "attr-bad-mode:3: the kernel logged a warning"
	cmp "$mnt/f" "$exp/f" || fail "attr-bad-mode:3: f read back differs from the server's"
	note "attr-bad-mode:3: stats $r; bad_replies +3, nothing retried"
	umount "$mnt"
}

# ls_eio WHAT: ls -f of $mnt/dir must end (within 60 s) with EIO, and
# bad_replies must rise; sets ls_out (what ls printed) and ls_st (its
# status).  The caller ran session and dmesg_mark.
ls_eio() {
	local what=$1 bad0
	bad0=$(ctr bad_replies)
	ls_st=0
	ls_out=$(timeout 60 ls -f "$mnt/dir" 2>&1) || ls_st=$?
	[ $ls_st -ne 124 ] || fail "$what: ls did not end within 60 s"
	[ $ls_st -ne 0 ] ||
		fail "$what: ls succeeded with $(echo "$ls_out" | wc -l) names: $(echo $ls_out | head -c 200) ..."
	echo "$ls_out" | grep -q "Input/output error" ||
		fail "$what: ls gave '$(echo $ls_out | head -c 200)', not EIO"
	[ "$(ctr bad_replies)" -gt "$bad0" ] ||
		fail "$what: bad_replies $(ctr bad_replies), was $bad0"
	ls_bad=$(( $(ctr bad_replies) - bad0 ))
}

# readdir_case: READDIR replies whose cookies lead back to where they
# started, and which never say the directory ended (readdir-loop:1000).
# Followed, a listing would repeat the same entries for ever.  The client
# fails it with EIO once a reply leads back to the cookie it was asked
# from: ls ends with "Input/output error" (it had 60 s), bad_replies
# counts the replies, and the kernel logs them, with no WARNING or BUG.
# From a server without the fault, the listing is whole.
readdir_case() {
	local i
	mkdir -p "$exp/dir"
	for i in 1 2 3 4 5; do : >"$exp/dir/e$i"; done
	session readdir-loop:1000 ""
	dmesg_mark
	ls_eio readdir-loop
	grep -q "fault injection: READDIR reply from cookie [0-9]* leads back" \
		"$ORFS_WORK/orfsd.log" || fail "readdir-loop: orfsd damaged no READDIR reply"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
		grep -q "orfs: READDIR reply (from cookie [0-9]*) carries malformed entries or loops" ||
		fail "readdir-loop: the kernel did not log the looping reply"
	dmesg_check || fail "readdir-loop: the kernel logged a warning"
	note "readdir-loop: ls ended with EIO (exit $ls_st) after $(echo "$ls_out" | grep -c '^e') names;" \
		"bad_replies +$ls_bad"
	umount "$mnt"
	orfs_server_stop
	orfs_server_start "$exp"
	orfs_mount "$mnt" / nconnect=1
	[ "$(ls "$mnt/dir" | tr '\n' ' ')" = "e1 e2 e3 e4 e5 " ] ||
		fail "readdir: without the fault, ls gave '$(ls "$mnt/dir" | tr '\n' ' ')'"
	umount "$mnt"
}

# cycle_case: READDIR replies whose cookies go round a loop of two requests
# (readdir-cycle:1000): no reply leads back to its own request's cookie,
# so each passes the reply check; the open directory's loop detector
# (fs/dirwalk.h) fails the listing with EIO when it asks from a cookie
# a second time.  The kernel logs it, bad_replies counts it, and a listing
# from a server without the fault is whole (readdir_case checked).
cycle_case() {
	local n
	session readdir-cycle:1000 ""
	dmesg_mark
	ls_eio readdir-cycle
	n=$(echo "$ls_out" | grep -c '^e')
	[ "$n" -le 20 ] || fail "readdir-cycle: ls listed $n names before the EIO"
	grep -q "fault injection: READDIR reply from cookie [0-9]* leads back" \
		"$ORFS_WORK/orfsd.log" || fail "readdir-cycle: orfsd led no READDIR back"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
		grep -q "orfs: READDIR cookies of directory [0-9]* lead back to cookie [0-9]*, asked from before" ||
		fail "readdir-cycle: the kernel did not log the loop"
	dmesg_check || fail "readdir-cycle: the kernel logged a warning"
	note "readdir-cycle: ls ended with EIO (exit $ls_st) after $n names," \
		"$(grep -c "fault injection: READDIR" "$ORFS_WORK/orfsd.log") damaged replies;" \
		"bad_replies +$ls_bad"
	umount "$mnt"
}

# lsx PATH: listxattr(2) of PATH: its names, sorted, space-separated, or
# the errno's name.
lsx() {
	python3 - "$1" <<'PY'
import errno, os, sys
try:
    print(" ".join(sorted(os.listxattr(sys.argv[1]))))
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
PY
}

# listxattr_case: a LISTXATTR reply whose list lost its final NUL
# (listxattr-unterminated:1), so that its last name would run past the
# list.  listxattr(2) fails with EIO, the reply is counted in bad_replies
# and logged, and nothing is retried (the reply was well formed); the
# kernel logs no warning.  The next listxattr(2) lists the names.
listxattr_case() {
	local bad0 retr0 r
	python3 -c 'import os, sys
os.setxattr(sys.argv[1], "trusted.orfs-t1", b"1")
os.setxattr(sys.argv[1], "trusted.orfs-t2", b"22")' "$exp/f"
	session listxattr-unterminated:1 ""
	bad0=$(ctr bad_replies) retr0=$(ctr bad_reply_retries)
	dmesg_mark
	r=$(lsx "$mnt/f")
	[ "$r" = EIO ] || fail "listxattr-unterminated: listxattr gave '$r', not EIO"
	ctr_is bad_replies $((bad0 + 1)) "listxattr-unterminated"
	ctr_is bad_reply_retries "$retr0" "listxattr-unterminated"
	grep -q "fault injection: LISTXATTR reply's last name loses its NUL" "$ORFS_WORK/orfsd.log" ||
		fail "listxattr-unterminated: orfsd damaged no LISTXATTR reply"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
		grep -q "orfs: LISTXATTR reply of inode [0-9]* carries a malformed name list" ||
		fail "listxattr-unterminated: the kernel did not log the malformed list"
	dmesg_check || fail "listxattr-unterminated: the kernel logged a warning"
	r=$(lsx "$mnt/f")
	[ "$r" = "trusted.orfs-t1 trusted.orfs-t2" ] ||
		fail "listxattr-unterminated: the listxattr after gave '$r'"
	note "listxattr-unterminated: EIO, bad_replies +1, nothing retried; then the names"
	umount "$mnt"
}

# garbage_case MODE OPTS: a reply naming no request; the read waits for
# timeo (2 s), then the request goes again on a new connection.
garbage_case() {
	local mode=$1 opts=$2 t0 t1 r ctr_name
	session read-garbage:1 "timeo=20,$opts"
	t0=$(date +%s%N)
	r=$(read_page 9)
	t1=$(date +%s%N)
	[ "$r" = ok ] || fail "$mode read-garbage: read gave '$r'"
	[ $(( (t1 - t0) / 1000000 )) -ge 1500 ] ||
		fail "$mode read-garbage: answered in $(( (t1 - t0) / 1000000 )) ms, before the timeout"
	if [ "$(ctr timeouts)" -lt 1 ] || [ "$(ctr reconnects)" -lt 1 ]; then
		fail "$mode read-garbage: timeouts $(ctr timeouts), reconnects $(ctr reconnects)"
	fi
	# A bare reply with a wrong sequence number is stale; a normal one
	# without its magic is malformed (and its xid is not trusted).
	case $mode in
	bare) ctr_name=stale_replies ;;
	normal) ctr_name=bad_replies ;;
	esac
	[ "$(ctr $ctr_name)" -ge 1 ] || fail "$mode read-garbage: $ctr_name not counted"
	grep -q "fault injection: $mode READ reply unmatchable" "$ORFS_WORK/orfsd.log" ||
		fail "$mode read-garbage: orfsd did not damage a $mode reply"
	note "$mode read-garbage: dropped, the read answered after $(( (t1 - t0) / 1000000 )) ms" \
		"($(ctr timeouts) timeout, $(ctr reconnects) reconnect)"
	umount "$mnt"
}

short_case bare bareread "malformed bare reply (4095 bytes)"
short_case normal nobareread "malformed reply"
write_case
commit_case
attr_case
readdir_case
cycle_case
listxattr_case
garbage_case bare bareread
garbage_case normal nobareread

# Writes meanwhile: whole on the server, under a fault that damages reads.
session read-short:1000 ""
head -c 3000000 /dev/urandom >"$ORFS_WORK/w"
cp "$ORFS_WORK/w" "$mnt/w"
sync "$mnt/w"
cmp "$ORFS_WORK/w" "$exp/w" || fail "a file written under read faults differs on the server"
umount "$mnt"
orfs_server_stop
note "a 3 MB file written under read faults is whole on the server"
