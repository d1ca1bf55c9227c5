#!/bin/bash
# The kernel orfs.ko builds for (KVER), and what follows from it.
#
# kdir.sh [KVER]            print the kernel build directory (its headers):
#     KVER unset or empty   the default kernel: the running kernel's, if its
#                           build directory exists; else the distribution's
#                           default (the release linux-headers-<arch>
#                           depends on: Debian 12's 6.1); else the newest
#                           installed 6.1
#     a series: 6.1, 6.12   the newest installed release of that series, of
#                           the plain flavour (6.12.117+deb12-amd64, not
#                           -cloud-amd64 or -rt-amd64)
#     a release             that release's, e.g. 6.12.117+deb12-amd64
#   Prints nothing and exits 1 when those headers are not installed
#   (tools/install-deps.sh KVER installs them).
# kdir.sh --release [KDIR]  print the release KDIR builds modules for (the
#                           vermagic), e.g. 6.1.0-56-amd64; KDIR defaults to
#                           the default kernel's
# kdir.sh --series [KVER]   print KVER's series (6.12.117+deb12-amd64 ->
#                           6.12), or the default kernel's (6.1 if none is
#                           installed)
#
# Whatever headers are installed, the default stays the one kernel
# generation: installing 6.12's next to 6.1's does not change what a plain
# `make` builds for.
set -uo pipefail

DEFAULT_SERIES=6.1
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)

# release_of DIR: the release a kernel build directory builds for.
release_of() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null
}

# series_of RELEASE-OR-SERIES: 6.1.0-56-amd64 -> 6.1
series_of() {
	echo "$1" | sed -n 's/^\([0-9]\+\.[0-9]\+\)\([.+-].*\)\{0,1\}$/\1/p'
}

# dir_of RELEASE: its build directory, if installed.
dir_of() {
	local d
	for d in "/lib/modules/$1/build" "/usr/src/linux-headers-$1"; do
		if [ "$(release_of "$d")" = "$1" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# newest_of SERIES: the newest installed plain-flavour release of SERIES.
newest_of() {
	local d r base
	for d in /lib/modules/*/build /usr/src/linux-headers-*; do
		r=$(release_of "$d")
		if [ -z "$r" ] || [ "$(series_of "$r")" != "$1" ]; then
			continue
		fi
		case $r in *-"$arch") ;; *) continue ;; esac
		base=${r%-"$arch"}
		# A flavour (cloud, rt) is a word of letters before -<arch>.
		[[ ${base##*-} =~ ^[a-z]+$ ]] && continue
		echo "$r"
	done | sort -uV | tail -n 1
}

default_dir() {
	local d r
	d=/lib/modules/$(uname -r)/build
	if [ -n "$(release_of "$d")" ]; then
		echo "$d"
		return 0
	fi
	r=$(dpkg-query -W -f='${Depends}' "linux-headers-$arch" 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	if [ -n "$r" ] && dir_of "$r"; then
		return 0
	fi
	r=$(newest_of "$DEFAULT_SERIES")
	[ -n "$r" ] && dir_of "$r"
}

# kdir KVER: the build directory of KVER (see the top).
kdir() {
	local r
	case $1 in
	'') default_dir ;;
	*-*) dir_of "$1" ;;
	*)
		[ -n "$(series_of "$1")" ] || { echo "kdir.sh: KVER=$1: not a series (6.12) or a release" >&2; return 1; }
		r=$(newest_of "$1")
		[ -n "$r" ] && dir_of "$r" ;;
	esac
}

case ${1:-} in
--release)
	k=${2:-$(kdir "")} || exit 1
	release_of "$k"
	;;
--series)
	if [ -n "${2:-}" ]; then
		series_of "$2"
	elif k=$(kdir ""); then
		series_of "$(release_of "$k")"
	else
		echo "$DEFAULT_SERIES"
	fi
	;;
*)
	kdir "${1:-}"
	;;
esac
