#!/bin/bash
# Build (or reuse) the busybox initramfs that boots the ORFS test VM.
#
# Usage: mkinitramfs.sh KVER OUTDIR
# Prints the path of the initramfs image on stdout.
#
# The image holds a static busybox, tools/vm/init, and the virtio / 9p /
# overlay modules of kernel KVER (with their dependencies, in load order).
# It is cached as OUTDIR/initramfs-KVER-KEY.cpio, where KEY hashes every
# input, so it is rebuilt only when one of them changes.  The image is written
# to a temporary name and renamed, so concurrent runs never see half a file.
set -euo pipefail

kver=$1
outdir=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
busybox=$(command -v busybox)
# The initramfs has no libraries: busybox must be the static one.
if ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi

# Modules stage 1 needs, in dependency order ("insmod PATH" lines, deduplicated).
mods=$(modprobe -S "$kver" --show-depends -a virtio_pci 9pnet_virtio 9p overlay |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
[ -n "$mods" ] || { echo "mkinitramfs: no modules found for $kver" >&2; exit 1; }

# Cache key: our own sources, busybox, and the module files.
key=$( {
	cat "$here/mkinitramfs.sh" "$here/init"
	echo "$kver"
	# shellcheck disable=SC2086 # $mods is a list of paths without spaces
	stat -L -c '%n %s %Y' "$busybox" $mods
} | sha256sum | cut -c1-16)
out=$outdir/initramfs-$kver-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$outdir"
stage=$(mktemp -d "$outdir/.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,dev,proc,sys,modules,lower,upper,newroot}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init" "$stage/bin/busybox"
for m in $mods; do
	cp "$m" "$stage/modules/"
	basename "$m" >>"$stage/modules/order"
done

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --quiet -o -0 -H newc -R 0:0) >"$stage.cpio"
mv -f "$stage.cpio" "$out"
# Drop stale images, but only old ones: a run that started a moment ago may
# not have opened its image yet.
find "$outdir" -maxdepth 1 -name 'initramfs-*.cpio' ! -newer "$out" ! -path "$out" -mmin +10 -delete
echo "$out"
