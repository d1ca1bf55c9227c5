#!/bin/bash
# File features of the buffered I/O issue: sparse files and their
# SEEK_DATA/SEEK_HOLE maps, fallocate (allocate, keep size, punch hole,
# zero range; EOPNOTSUPP for what ORFS or the server's file system lacks),
# copy_file_range done by the server (the per-mount byte counters prove
# the data stayed there), SEEK_END after a change on the server, data
# past 4 GiB, a long fallocate that does not stop the server, and one
# whose retransmissions wait for it instead of running it again.  Every
# compared scenario runs on the ORFS mount and on a local directory of the
# very file system orfsd exports, and the two must agree (tests/vm/tools/fileops.py): first with a tmpfs export (tmpfs has
# no ZERO_RANGE: its EOPNOTSUPP must come through), then with ext4 on a
# loop device (which has it).
. "$(dirname "$0")/lib.sh"
set -e
tool() { python3 "$ORFS_TOP/tests/vm/tools/fileops.py" "$@"; }
mnt=$ORFS_WORK/mnt
mnt2=$ORFS_WORK/mnt2
ctl=$ORFS_WORK/orfsd.ctl
sysfs() { echo "/sys/fs/orfs/$(stat -c '%Hd:%Ld' "$1")"; }

# run_fs NAME: the scenarios against $ORFS_WORK/NAME/{export,local}.
run_fs() {
	local fs=$ORFS_WORK/$1
	mkdir -p "$fs/export" "$fs/local"
	orfs_server_start "$fs/export" --control "$ctl"
	orfs_mount "$mnt"
	orfs_mount "$mnt2" / actimeo=0
	note "$1: ORFS against the local $1"
	tool compare "$mnt" "$fs/local" "$fs/export" || fail "$1: compare"
	tool refused "$mnt" "$(sysfs "$mnt")" || fail "$1: refused modes"
	tool seekend "$mnt2" "$fs/export" || fail "$1: SEEK_END"
	tool big-write "$mnt" || fail "$1: writing past 4 GiB"
	umount "$mnt"
	echo 3 >/proc/sys/vm/drop_caches
	orfs_mount "$mnt"
	tool big-verify "$mnt" || fail "$1: reading past 4 GiB after a remount"
	local a b view='import os,sys
f = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(f, 0, os.SEEK_DATA), os.lseek(f, 5 << 30, os.SEEK_DATA),
      os.lseek(f, 6 << 30, os.SEEK_HOLE), os.fstat(f).st_size)'
	a=$(python3 -c "$view" "$mnt/over4g")
	b=$(python3 -c "$view" "$fs/export/over4g")
	[ "$a" = "$b" ] ||
		fail "$1: the client's ($a) and the server's ($b) view of over4g differ"
	note "$1: over4g as the client and the server see it: $a"
}

orfs_insmod
modprobe loop

# tmpfs: the export the other VM tests use.
mkdir -p "$ORFS_WORK/tmpfs"
mount -t tmpfs -o size=1g orfs-fileops "$ORFS_WORK/tmpfs"
run_fs tmpfs
# --io-engine auto on a memory file system: system calls in the event loop
# (io_uring would hand each one to a worker thread).
grep -q "backing-file I/O: synchronous (the export is on a memory file system)" \
	"$ORFS_WORK/orfsd.log" || fail "tmpfs export: $(grep 'backing-file' "$ORFS_WORK/orfsd.log")"
tool bigcopy "$mnt" "$ORFS_WORK/tmpfs/export" "$(sysfs "$mnt")" 64 ||
	fail "tmpfs: server-side copy"
tool crossmount "$mnt" "$mnt2" "$(sysfs "$mnt")" "$(sysfs "$mnt2")" ||
	fail "tmpfs: copy across mounts"
# ALLOCATE off the event loop: a READ is served while tmpfs zeroes pages.
tool offload "$mnt" "$mnt2" "$ORFS_WORK/tmpfs/export" "$ctl" ||
	fail "tmpfs: a long fallocate stopped the server"
# A retransmission of an ALLOCATE that still runs waits for its reply:
# a third mount whose timeo (0.5 s) the fallocate outlasts.
orfs_mount "$ORFS_WORK/mnt3" / timeo=5
tool retransmit "$ORFS_WORK/mnt3" "$(sysfs "$ORFS_WORK/mnt3")" "$ORFS_WORK/tmpfs/export" "$ctl" ||
	fail "tmpfs: a retransmitted ALLOCATE ran twice"
umount "$ORFS_WORK/mnt3"
umount "$mnt2"
umount "$mnt"
orfs_server_stop

# ext4: ZERO_RANGE, block-granular holes.
truncate -s 512M "$ORFS_WORK/ext4.img"
mkfs.ext4 -q -F -b 4096 "$ORFS_WORK/ext4.img"
mkdir -p "$ORFS_WORK/ext4"
mount -t ext4 -o loop "$ORFS_WORK/ext4.img" "$ORFS_WORK/ext4"
run_fs ext4
tool bigcopy "$mnt" "$ORFS_WORK/ext4/export" "$(sysfs "$mnt")" 32 ||
	fail "ext4: server-side copy"
umount "$mnt2"
umount "$mnt"
orfs_server_stop
umount "$ORFS_WORK/ext4"
umount "$ORFS_WORK/tmpfs"
! grep -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$ORFS_WORK/orfsd.log" ||
	fail "sanitizer report in the orfsd log"
exit 0
