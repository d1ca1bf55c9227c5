#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# DKMS on a fresh machine, for both kernel generations, without touching
# the host: `make dkms` and DKMS's kernel hook, run in a private mount
# namespace where /usr/src, /var/lib/dkms and /lib/modules are overlays
# over scratch directories (the host's stay as they were; the namespace and
# its scratch go away at the end).  The host's /var/lib/dkms is empty of
# orfs (a fresh machine for ORFS; refused otherwise).
#
#   pkg/dkms-make      `make dkms KVER=<first>`: source in /usr/src/orfs-V,
#                      dkms.conf, built (configure step included) and
#                      installed for that kernel; depmod knows it
#   pkg/dkms-upgrade   a kernel installed later: DKMS's header_postinst.d
#                      hook (what installing its headers runs) builds and
#                      installs orfs.ko for it too (AUTOINSTALL)
#   pkg/dkms-remove    `dkms remove` takes both away again
#
# Each installed orfs.ko must be for its kernel (vermagic), be the
# production module (no benchmark-only part), and have been configured for
# that kernel (the build's orfs_config.h names its release).
#
# Usage: tests/pkg/dkms.sh [KVER-FIRST [KVER-UPGRADE]]  (default 6.1 6.12;
#        with one KVER, no pkg/dkms-upgrade)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# No make flags of a caller (make check): DKMS's make.log must show the
# commands, as on an admin's machine.
unset MAKEFLAGS MAKELEVEL MFLAGS
if [ "${ORFS_PKG_NS:-}" != 1 ]; then
	ORFS_PKG_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

# release KVER: the release of KVER's installed headers, or nothing.
release() { local d; d=$(tools/kdir.sh "$1") && tools/kdir.sh --release "$d"; }
k1=$(release "${1-6.1}") || k1=
k2=
if [ $# -ne 1 ]; then
	k2=$(release "${2-6.12}") || k2=
	if [ -z "$k2" ] || [ "$k2" = "$k1" ]; then
		echo "tests/pkg/dkms.sh: no headers of a second kernel '${2-6.12}' (tools/install-deps.sh 6.12)"
		echo "FAIL pkg/dkms-upgrade"
		exit 1
	fi
fi
[ -n "$k1" ] || { echo "tests/pkg/dkms.sh: no headers of '${1-6.1}'"; echo "FAIL pkg/dkms-make"; exit 1; }
version=$(sed -n 's/^#define ORFSD_VERSION[[:space:]]*"\(.*\)"$/\1/p' server/config.h)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/orfs-dkms.XXXXXX")
trap 'umount -R /lib/modules /usr/src /var/lib/dkms 2>/dev/null; umount "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT
# The overlays' upper layers on a tmpfs of this namespace: an overlayfs (a
# container's root, /tmp on it) cannot be one.
mount -t tmpfs -o mode=0700 tmpfs "$scratch" ||
	{ echo "tests/pkg/dkms.sh: cannot mount a tmpfs on $scratch"; echo "FAIL pkg/dkms-make"; exit 1; }
# overlay DIR: DIR's writes land in $scratch from now on.
overlay() {
	local n
	n=$(echo "$1" | tr / _)
	mkdir -p "$scratch/$n.up" "$scratch/$n.work"
	mount -t overlay -o "lowerdir=$1,upperdir=$scratch/$n.up,workdir=$scratch/$n.work" overlay "$1"
}
for d in /lib/modules /usr/src /var/lib/dkms; do
	overlay "$d" || { echo "tests/pkg/dkms.sh: cannot overlay $d"; echo "FAIL pkg/dkms-make"; exit 1; }
done
if [ -e "/var/lib/dkms/orfs" ] || [ -e "/usr/src/orfs-$version" ]; then
	echo "tests/pkg/dkms.sh: this machine has orfs in DKMS already; not a fresh machine"
	echo "FAIL pkg/dkms-make"
	exit 1
fi
log=$scratch/log

# check_installed KREL: orfs.ko from DKMS is installed for KREL, built for
# it, configured for it, and the production module.
check_installed() {
	local k=$1 dir="/lib/modules/$1/updates/dkms" ko mlog parms syms st
	ko=$(ls "$dir"/orfs.ko* 2>/dev/null | head -n 1)	# .ko.xz where the kernel's are
	[ -n "$ko" ] || { echo "no $dir/orfs.ko*"; return 1; }
	[ "$(modinfo -k "$k" -n orfs 2>/dev/null)" = "$ko" ] ||
		{ echo "modinfo -k $k orfs does not find $ko (depmod)"; return 1; }
	[ "$(modinfo -F vermagic "$ko" | awk '{ print $1 }')" = "$k" ] ||
		{ echo "$ko: vermagic $(modinfo -F vermagic "$ko"), not $k"; return 1; }
	case $ko in
	*.xz) xz -dc "$ko" >"$scratch/orfs.ko" ;;
	*) cp "$ko" "$scratch/orfs.ko" ;;
	esac
	# (Here-strings, not pipes: grep -q ends a pipe early, and under
	# pipefail the writer's SIGPIPE would fail the test at random.)
	parms=$(modinfo -F parm "$ko")
	syms=$(nm --defined-only "$scratch/orfs.ko")
	if grep -qE '^(ogr|direct_inline|direct_push):' <<<"$parms" ||
		! grep -qw __this_module <<<"$syms" || grep -qw orfs_xfer <<<"$syms"; then
		echo "$ko is not the production module"
		return 1
	fi
	# DKMS cleans the build tree: its log shows the configure step ran
	# against this kernel's headers before kbuild.
	mlog=/var/lib/dkms/orfs/$version/$k/$(uname -m)/log/make.log
	grep -q "^kcompat/probe.sh /lib/modules/$k/build build/kcompat/$k/orfs_config.h" "$mlog" ||
		{ echo "no configure step for $k in $mlog"; return 1; }
	st=$(dkms status "orfs/$version" -k "$k" 2>/dev/null)
	echo "$st" | grep -q ': installed' || { echo "dkms status: $st"; return 1; }
}

rc=0
if make dkms KVER="$k1" >"$log" 2>&1 && out=$(check_installed "$k1"); then
	[ -f "/usr/src/orfs-$version/dkms.conf" ] &&
		grep -qx "PACKAGE_VERSION=\"$version\"" "/usr/src/orfs-$version/dkms.conf" &&
		echo "PASS pkg/dkms-make ($k1)" ||
		{ echo "dkms.conf not installed with version $version"; echo "FAIL pkg/dkms-make"; rc=1; }
else
	tail -n 40 "$log"
	echo "${out:-}"
	echo "FAIL pkg/dkms-make ($k1)"
	rc=1
fi

# The new kernel's headers arrive: Debian's linux-headers-<k> postinst runs
# the hooks of /etc/kernel/header_postinst.d with the release.
if [ -z "$k2" ]; then
	:	# one kernel asked for: no upgrade to test
elif /etc/kernel/header_postinst.d/dkms "$k2" >"$log" 2>&1 && out=$(check_installed "$k2") &&
	out=$(check_installed "$k1"); then
	echo "PASS pkg/dkms-upgrade ($k2)"
else
	tail -n 40 "$log"
	tail -n 20 /var/lib/dkms/orfs/"$version"/build/make.log 2>/dev/null
	echo "${out:-}"
	echo "FAIL pkg/dkms-upgrade ($k2)"
	rc=1
fi

if dkms remove "orfs/$version" --all >"$log" 2>&1 &&
	[ -z "$(ls "/lib/modules/$k1/updates/dkms/" 2>/dev/null)" ] &&
	{ [ -z "$k2" ] || [ -z "$(ls "/lib/modules/$k2/updates/dkms/" 2>/dev/null)" ]; } &&
	[ -z "$(modinfo -k "$k1" -n orfs 2>/dev/null)" ]; then
	echo "PASS pkg/dkms-remove"
else
	cat "$log"
	echo "FAIL pkg/dkms-remove"
	rc=1
fi
exit $rc
