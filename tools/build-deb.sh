#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# make deb: the Debian packages orfs-dkms, orfsd and orfs-client (debian/),
# built by dpkg-buildpackage from a copy of the tree, then checked by
# lintian at its default level: any error or warning fails.
#
# Usage: tools/build-deb.sh [--no-lintian]
#   Writes build/deb/*.deb (and the .changes, .buildinfo); the copy it
#   builds in is build/deb/src/, so the tree itself stays clean.  The
#   copy holds the files git knows (tracked, or new and not ignored), or,
#   outside a git checkout, everything but build/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
lint=1
case ${1:-} in
'') ;;
--no-lintian) lint=0 ;;
*) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
esac

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
# One release number: orfsd --version's, DKMS's and the packages'.
orfsd_version=$(sed -n 's/^#define ORFSD_VERSION[[:space:]]*"\(.*\)"$/\1/p' "$top/server/config.h")
if [ "$version" != "$orfsd_version" ]; then
	echo "make deb: debian/changelog says $version, server/config.h's ORFSD_VERSION $orfsd_version" >&2
	exit 1
fi
out=$top/build/deb
src=$out/src/orfs-$version
rm -rf "$out"
mkdir -p "$src"
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi

cd "$src"
dpkg-buildpackage -b -us -uc -j"${ORFS_DEB_JOBS:-2}" >"$out/build.log" 2>&1 || {
	tail -n 60 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
mv ../*.deb ../*.changes ../*.buildinfo "$out/"
cd "$out"
rm -rf "$out/src"
ls -1 "$out"/*.deb
if [ $lint -eq 1 ]; then
	# --fail-on warning: a warning fails as well as an error.
	lintian --fail-on error,warning "$out"/*.changes || {
		echo "make deb: lintian found errors or warnings" >&2
		exit 1
	}
	echo "make deb: lintian clean"
fi
