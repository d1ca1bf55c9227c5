#!/bin/bash
# What the memory manager does to page-cache pages behind the file
# system's back (tests/vm/tools/mm_events.c):
#  - migration (->migrate_folio): every page of a file, dirty (written
#    through a shared mapping, or with write()) or clean, moves to a new
#    page frame (MADV_SOFT_OFFLINE migrates it as compaction, NUMA
#    balancing and memory hot-unplug do).  Without ->migrate_folio the
#    kernel could move a dirty page only by writing it out with
#    ->writepage, which ORFS does not have.  The dirty pages stay dirty,
#    and their bytes reach the server;
#  - a memory error (->error_remove_folio, ->error_remove_page before
#    6.8): a poisoned dirty page is dropped, never sent, and the next fsync
#    reports EIO, while the rest of the file reaches the server; a
#    poisoned clean page is dropped and read again from the server.
#    Whether the poisoning process gets SIGBUS too depends on the kernel
#    (6.12 sends it, 6.1 does not); mm_events catches it.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
ev=$ORFS_WORK/mm_events
pages=256
mkdir -p "$exp"
gcc -O2 -Wall -o "$ev" "$ORFS_TOP/tests/vm/tools/mm_events.c" || fail "cannot build mm_events"
orfs_insmod
orfs_server_start "$exp"
# No write-behind: pages written with write() stay dirty until fsync.
orfs_mount "$mnt" / nowritebehind

# Nor does the flusher write dirty pages back while the test looks at them.
expire=$(cat /proc/sys/vm/dirty_expire_centisecs)
trap 'echo "$expire" >/proc/sys/vm/dirty_expire_centisecs' EXIT
echo 360000 >/proc/sys/vm/dirty_expire_centisecs

# run NAME ARGS...: mm_events ARGS, its output kept in $out and shown.
run() {
	local name=$1
	shift
	out=$("$ev" "$@" 2>&1) || fail "$name: $out"
	note "$name: $(echo "$out" | tr '\n' ';')"
}
has() { grep -qx "$2" <<<"$out" || fail "$1: no \"$2\" in: $out"; }

for mode in mmap write; do
	run "migrate $mode" migrate "$mode" "$mnt/$mode" "$pages"
	has "migrate $mode" "dirty before the move: $pages of $pages pages"
	has "migrate $mode" "moved $pages of $pages pages"
	has "migrate $mode" "dirty after the move: $pages of $pages pages"
	"$ev" verify "$exp/$mode" "$pages" >/dev/null || fail "migrate $mode: the server's copy differs"
done
echo 3 >/proc/sys/vm/drop_caches
run "migrate clean" migrate clean "$mnt/mmap" "$pages"
has "migrate clean" "dirty before the move: 0 of $pages pages"
has "migrate clean" "moved $pages of $pages pages"
"$ev" verify "$mnt/write" "$pages" >/dev/null || fail "migrate write: read back differs"

dmesg_mark
run "poison dirty" poison dirty "$mnt/dirty" 16 5
has "poison dirty" "first fsync: Input/output error"
dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
	grep -qE "recovery action for dirty .*: Recovered" ||
	fail "poison dirty: the kernel did not drop the page: $(dmesg | tail -n 5)"
# The poisoned page's new bytes were never sent: the server has the old ones.
"$ev" verify "$exp/dirty" 16 5 >/dev/null || fail "poison dirty: the server's copy is not as expected"
echo 3 >/proc/sys/vm/drop_caches
"$ev" verify "$mnt/dirty" 16 5 >/dev/null || fail "poison dirty: read back is not as expected"
run "poison clean" poison clean "$mnt/clean" 16 7
"$ev" verify "$exp/clean" 16 >/dev/null || fail "poison clean: the server's copy differs"
umount "$mnt"
exit 0
