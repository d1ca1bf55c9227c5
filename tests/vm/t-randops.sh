#!/bin/bash
# Random file operations checked against a model (tests/vm/tools/randops.c):
# pwrite, pread, mapped writes and reads, truncate, fallocate (allocate,
# keep size, punch, zero range), copy_file_range, fsync, dropping the
# cached pages, reopen, SEEK_DATA/SEEK_HOLE and fstat, in a random mix that
# a seed fixes.  Every run has a second mount of the same export, through
# which the file is now and then checked whole and written between a close
# and an open (close-to-open coherence between two mounts).  The variants,
# each with its own seed:
#   - defaults, on a tmpfs export;
#   - rsize=wsize=64K, so that reads and write-back split into many
#     requests, with every offset above 4 GiB;
#   - trusted_fabric (the server moves the data);
#   - O_DIRECT reads and writes mixed in (the pin-down cache's path and
#     the page cache on one file);
#   - an ext4 export (ZERO_RANGE, block-granular holes), with O_DIRECT.
# Each run ends by reading the file back after dropping the cached pages;
# the test then compares it with the server's copy.  The tool runs first on
# the guest's tmpfs, to show that the model agrees with a local file system.
# RANDOPS_OPS (default 3000) sets the operations per run.
. "$(dirname "$0")/lib.sh"
set -e
ops=${RANDOPS_OPS:-3000}
mkdir -p "$ORFS_WORK/tmpfs" "$ORFS_WORK/local"
gcc -O2 -Wall -Werror -o "$ORFS_WORK/randops" "$ORFS_TOP/tests/vm/tools/randops.c" ||
	fail "cannot build randops"
ro=$ORFS_WORK/randops

out=$("$ro" -n "$ops" -s 7 "$ORFS_WORK/local/f" 2>&1) || fail "randops on tmpfs: $out"
note "local tmpfs: $out"

# run EXPORT LABEL OPTS BASE RANDOPS-ARGS...: mounts EXPORT's server with
# OPTS on mnt and mnt2, runs randops with its offsets BASE bytes into the
# file, compares the file from BASE on (below it is a hole that cmp would
# read for minutes) with the server's copy, unmounts.
run() {
	local exp=$1 label=$2 opts=$3 base=$4 mnt=$ORFS_WORK/mnt mnt2=$ORFS_WORK/mnt2 out start
	shift 4
	orfs_mount "$mnt" / "$opts" || fail "$label: mount -o ${opts:-(defaults)}"
	orfs_mount "$mnt2" / "$opts" || fail "$label: second mount"
	start=$SECONDS
	out=$("$ro" -n "$ops" -b "$base" "$@" -c "$mnt2/$label" "$mnt/$label" 2>&1) ||
		fail "$label (mount -o ${opts:-defaults}): $out"
	note "$label: $out ($((SECONDS - start)) s)"
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(stat -c %s "$mnt/$label")" = "$(stat -c %s "$exp/$label")" ] ||
		fail "$label: the client and the server see different sizes"
	cmp -i "$base" "$mnt/$label" "$exp/$label" ||
		fail "$label: the client's copy differs from the server's"
	umount "$mnt2"
	umount "$mnt"
}

orfs_insmod
orfs_server_start "$ORFS_WORK/tmpfs"
run "$ORFS_WORK/tmpfs" defaults "" 0 -s 1
run "$ORFS_WORK/tmpfs" small rsize=65536,wsize=65536 $((5 << 30)) -s 2
run "$ORFS_WORK/tmpfs" trusted trusted_fabric 0 -s 3
run "$ORFS_WORK/tmpfs" direct "" 0 -s 4 -d
orfs_server_stop

modprobe loop
truncate -s 256M "$ORFS_WORK/ext4.img"
mkfs.ext4 -q -F -b 4096 "$ORFS_WORK/ext4.img"
mkdir -p "$ORFS_WORK/ext4"
mount -t ext4 -o loop "$ORFS_WORK/ext4.img" "$ORFS_WORK/ext4"
orfs_server_start "$ORFS_WORK/ext4"
run "$ORFS_WORK/ext4" ext4 "" 0 -s 5 -d
orfs_server_stop
umount "$ORFS_WORK/ext4"
exit 0
