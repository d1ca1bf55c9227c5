#!/bin/bash
# Malformed replies from the server reach the client (orfsd's ORFSD_FAULT,
# server/fault.h), for both forms of a READ reply: bare (the default) and
# normal (nobareread).
#  - read-short: a reply one byte short fails its request with EIO (the
#    read(2) that needed it too); the kernel logs it, bad_replies counts
#    it, and the connection, whose server can no longer be trusted, is
#    replaced: the next reads get the server's bytes on a new one.
#  - read-garbage: a reply that names no request is dropped; the request
#    times out (timeo), goes again on a new connection, and gets the
#    server's bytes.
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

# short_case MODE OPTS KLOG: two short replies, for the two READs one
# read(2) of a page makes (readahead, then read_folio): that read gets EIO.
short_case() {
	local mode=$1 opts=$2 klog=$3 bad0 b0 r
	session read-short:2 "$opts"
	bad0=$(ctr bad_replies) b0=$(ctr bare_replies)
	dmesg_mark
	r=$(read_page 5)
	[ "$r" = EIO ] || fail "$mode read-short: read gave '$r', not EIO"
	[ "$(ctr bad_replies)" -eq $((bad0 + 2)) ] ||
		fail "$mode read-short: bad_replies $(ctr bad_replies), expected $((bad0 + 2))"
	dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" | grep -q "orfs: $klog" ||
		fail "$mode read-short: no kernel log line '$klog'"
	[ "$(grep -c "fault injection: $mode READ reply one byte short" "$ORFS_WORK/orfsd.log")" -eq 2 ] ||
		fail "$mode read-short: orfsd did not damage 2 $mode replies"
	# The faults are spent: the same page, then another, read correctly,
	# on a new connection.
	r=$(read_page 5)
	[ "$r" = ok ] || fail "$mode read-short: the read after gave '$r'"
	r=$(read_page 77)
	[ "$r" = ok ] || fail "$mode read-short: another page gave '$r'"
	[ "$(ctr reconnects)" -ge 1 ] || fail "$mode read-short: the connection was kept"
	[ "$(ctr bad_replies)" -eq $((bad0 + 2)) ] || fail "$mode read-short: more bad replies"
	case $mode in
	bare) [ "$(ctr bare_replies)" -gt "$b0" ] || fail "bare read-short: no bare reply after" ;;
	normal) [ "$(ctr bare_replies)" -eq 0 ] || fail "normal read-short: bare replies" ;;
	esac
	note "$mode read-short: EIO, 2 bad replies counted and logged, $(ctr reconnects) reconnects," \
		"then the server's bytes"
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
	[ "$(ctr timeouts)" -ge 1 ] && [ "$(ctr reconnects)" -ge 1 ] ||
		fail "$mode read-garbage: timeouts $(ctr timeouts), reconnects $(ctr reconnects)"
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
