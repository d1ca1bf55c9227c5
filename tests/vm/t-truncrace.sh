#!/bin/bash
# Truncation racing with reads: one thread truncates (shrinking and growing,
# inside pages and across them) and rewrites a pattern while three threads
# pread and one reads through a shared mapping.  Every byte seen must be
# the pattern or zero (tests/vm/tools/trunc_race.c).  Runs on one mount
# with the default caching and on one with actimeo=0, then checks the
# quiet file against the server's copy after dropping the client's cache.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mkdir -p "$exp"
gcc -O2 -Wall -pthread -o "$ORFS_WORK/trunc_race" "$ORFS_TOP/tests/vm/tools/trunc_race.c" ||
	fail "cannot build trunc_race"
orfs_insmod
orfs_server_start "$exp"
for opts in "" actimeo=0; do
	mnt=$ORFS_WORK/mnt${opts:+-$opts}
	orfs_mount "$mnt" / "$opts" || fail "mount ${opts:-(defaults)}"
	out=$("$ORFS_WORK/trunc_race" "$mnt/race" 20) || fail "trunc_race ${opts:-(defaults)}: $out"
	note "${opts:-defaults}: $out"
	echo "$out" | grep -q "^[1-9][0-9]* truncates, [1-9][0-9]* preads" ||
		fail "the race did not run: $out"
	echo 3 >/proc/sys/vm/drop_caches
	cmp "$mnt/race" "$exp/race" || fail "client and server copies differ after the race"
	umount "$mnt"
done
exit 0
