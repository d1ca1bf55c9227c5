#!/bin/bash
# A directory far larger than one READDIR reply is listed completely, each
# name exactly once, with the right d_type.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
n=3000
mkdir -p "$exp/big"
for i in $(seq 1 $n); do
	: >"$exp/big/file-with-a-rather-long-name-to-fill-replies-$i"
done
mkdir "$exp/big/adir"
ln -s nowhere "$exp/big/alink"

orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt" / inline=4096

(cd "$exp/big" && ls -1a | LC_ALL=C sort) >"$ORFS_WORK/want"
(cd "$mnt/big" && ls -1a | LC_ALL=C sort) >"$ORFS_WORK/got"
diff -q "$ORFS_WORK/want" "$ORFS_WORK/got" || fail "listings differ"
[ "$(LC_ALL=C sort "$ORFS_WORK/got" | uniq -d | wc -l)" -eq 0 ] || fail "duplicate names"
[ "$(wc -l <"$ORFS_WORK/got")" -eq $((n + 4)) ] || fail "wrong count"
# d_type without stat: find -type uses it when the file system fills it in.
[ "$(find "$mnt/big" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] || fail "d_type dir"
[ "$(find "$mnt/big" -mindepth 1 -maxdepth 1 -type l | wc -l)" -eq 1 ] || fail "d_type link"
note "$n entries listed once each"
exit 0
