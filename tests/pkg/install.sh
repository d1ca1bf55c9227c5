#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The three packages of `make deb` installed with dpkg -i on a "fresh
# machine" with one kernel, on the host but without changing it: a chroot
# into an overlay of the host's root file system (its writes in a scratch
# directory), in a private mount namespace; /lib/modules there holds only
# KVER's release (the other kernels hidden in the overlay), so that
# orfs-dkms's postinst, which builds for the running kernel (the host's,
# not installed there) or else for every installed one, builds for KVER.
#
#   pkg/install   dpkg -i: DKMS builds and installs the production orfs.ko
#                 for KVER (depmod knows it); orfsd.service is installed
#                 but not enabled; /etc/orfsd.conf is a conffile and alone
#                 starts no server; mount.orfs and the man pages are there;
#                 dpkg --purge takes the module, DKMS's entry and the
#                 conffile away again
#
# It does not load the module or mount (the host cannot): t-packages does,
# in the VM.  Needs build/deb/ (make deb).
#
# Usage: tests/pkg/install.sh [KVER]   (default 6.1)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
unset MAKEFLAGS MAKELEVEL MFLAGS
if [ "${ORFS_PKG_NS:-}" != 1 ]; then
	ORFS_PKG_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

bad() { echo "$*"; echo "FAIL pkg/install"; exit 1; }
d=$(tools/kdir.sh "${1:-6.1}") && k=$(tools/kdir.sh --release "$d") || bad "no headers for '${1:-6.1}'"
shopt -s nullglob
debs=(build/deb/orfs-dkms_*_all.deb build/deb/orfsd_*_amd64.deb build/deb/orfs-client_*_amd64.deb)
[ ${#debs[@]} -eq 3 ] || bad "no packages in build/deb: run make deb"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/orfs-install.XXXXXX")
r=$scratch/root
trap 'umount -R "$r" 2>/dev/null; umount "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
# The overlay's upper layer on a tmpfs of this namespace: an overlayfs (a
# container's root, /tmp on it) cannot be one.
mount -t tmpfs -o mode=0700 tmpfs "$scratch" || bad "cannot mount a tmpfs on $scratch"
mkdir -p "$scratch/up" "$scratch/work" "$r"
mount -t overlay -o "lowerdir=/,upperdir=$scratch/up,workdir=$scratch/work" overlay "$r" ||
	bad "cannot overlay /"
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount --rbind /sys "$r/sys"
mount -t tmpfs tmpfs "$r/tmp"
mount -t tmpfs tmpfs "$r/run"	# no /run/systemd: maintainer scripts do not call systemctl
[ -d "$r/lib/modules/$k/build/include" ] || bad "$k's headers are not on the root file system"
for m in "$r"/lib/modules/*; do
	[ "${m##*/}" = "$k" ] || rm -rf "$m"
done
mkdir -p "$r/tmp/boot" "$r/tmp/deb"
cp "/boot/config-$k" "$r/tmp/boot/" 2>/dev/null
mount --bind "$r/tmp/boot" "$r/boot"
cp "${debs[@]}" "$r/tmp/deb/"
inroot() { chroot "$r" env DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }
if inroot dpkg-query -W -f='${Status}' orfs-dkms 2>/dev/null | grep -q installed; then
	bad "orfs-dkms is installed on the host already"
fi

log=$scratch/log
inroot sh -c 'dpkg -i /tmp/deb/*.deb' >"$log" 2>&1 || { cat "$log"; bad "dpkg -i"; }
for p in orfs-dkms orfsd orfs-client; do
	[ "$(inroot dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ] || bad "$p is not installed"
done
ko=$(inroot modinfo -k "$k" -n orfs 2>/dev/null)
case $ko in
"/lib/modules/$k/updates/dkms/orfs.ko"*) ;;
*) cat "$log"; bad "modinfo -k $k orfs: '$ko', not DKMS's module" ;;
esac
[ "$(inroot modinfo -F vermagic "$ko" | awk '{ print $1 }')" = "$k" ] || bad "vermagic of $ko"
parms=$(inroot modinfo -F parm "$ko")
if echo "$parms" | grep -qE '^(ogr|direct_inline|direct_push):'; then
	bad "$ko has benchmark-only parts"
fi
[ -f "$r/lib/systemd/system/orfsd.service" ] || bad "no orfsd.service"
[ ! -e "$r/etc/systemd/system/multi-user.target.wants/orfsd.service" ] || bad "orfsd.service is enabled"
grep -qx /etc/orfsd.conf "$r/var/lib/dpkg/info/orfsd.conffiles" || bad "/etc/orfsd.conf is not a conffile"
out=$(inroot /usr/sbin/orfsd --foreground 2>&1) && bad "orfsd started with the packaged config"
echo "$out" | grep -q 'export DIR is required' || bad "orfsd with the packaged config: $out"
for f in /sbin/mount.orfs /usr/share/man/man8/mount.orfs.8.gz /usr/share/man/man8/orfsd.8.gz \
	/usr/share/man/man5/orfsd.conf.5.gz; do
	[ -s "$r$f" ] || bad "no $f"
done

inroot dpkg --purge orfs-client orfsd orfs-dkms >"$log" 2>&1 || { cat "$log"; bad "dpkg --purge"; }
[ -z "$(ls "$r/lib/modules/$k/updates/dkms/" 2>/dev/null)" ] || bad "orfs.ko left after purge"
[ ! -e "$r/var/lib/dkms/orfs" ] || bad "DKMS still has orfs after purge"
[ ! -e "$r/etc/orfsd.conf" ] || bad "/etc/orfsd.conf left after purge"
echo "PASS pkg/install ($k)"
