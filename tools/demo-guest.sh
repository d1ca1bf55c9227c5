#!/bin/bash
# Inside the VM: the demo proper (see tools/demo.sh).  Argument: a directory
# tree to copy (default: this repository's sources and some system headers).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/vm/lib.sh"
ORFS_WORK=/tmp/orfs-demo
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
src=$ORFS_WORK/src
out=$ORFS_WORK/out
mkdir -p "$exp" "$src" "$out"

# The tree to copy: given, or an embedded default.
if [ -n "${1:-}" ]; then
	cp -a "$1/." "$src/"
else
	# This repository's sources, and the rdma-core and Linux UAPI headers.
	git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar xf - -C "$src"
	cp -a /usr/include/rdma "$src/rdma-headers"
	cp -a /usr/include/linux "$src/linux-headers"
fi
files=$(find "$src" -type f | wc -l)
bytes=$(du -sb "$src" | cut -f1)

step() { printf 'demo: %s\n' "$*"; }
step "loading orfs.ko"
orfs_insmod
step "starting orfsd on $ORFS_SRV_ADDR, exporting $exp"
orfs_server_start "$exp"
step "mounting $ORFS_SRV_ADDR:/ on $mnt (soft-RoCE rxe1 -> rxe0)"
orfs_mount "$mnt"
grep " $mnt " /proc/mounts

t0=$(date +%s.%N)
step "copying $files files ($bytes bytes) into the mount"
cp -a "$src" "$mnt/tree"
sync
t1=$(date +%s.%N)
step "checking the server's copy in the export"
diff -r "$src" "$exp/tree"
step "dropping the client's caches and copying the tree back out"
echo 3 >/proc/sys/vm/drop_caches
cp -a "$mnt/tree" "$out/tree"
t2=$(date +%s.%N)
step "comparing byte for byte"
diff -r "$src" "$out/tree"
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums "$src" >"$ORFS_WORK/src.sha256"
sums "$out/tree" >"$ORFS_WORK/out.sha256"
cmp "$ORFS_WORK/src.sha256" "$ORFS_WORK/out.sha256"
df -h "$mnt" | tail -n 1
umount "$mnt"
orfs_server_stop
rmmod orfs
printf 'demo: OK: %s files, %s bytes copied in (%.1f s) and back out (%.1f s) over ORFS; identical.\n' \
	"$files" "$bytes" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
