#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The option lists of Documentation/admin-guide.md are generated from the
# tables the code itself parses with:
#
#   orfsd options   server/options.c  (orfsd --help=markdown)
#   mount options   fs/mount_opts.h   (tools/mount-options)
#
# Each list sits between the lines
#   <!-- BEGIN generated: NAME (make docs) -->
#   <!-- END generated: NAME -->
# and is not edited by hand: change the table, then run "make docs".
#
# Usage: tools/gen-docs.sh [--check] [--no-build]
#   (none)      rewrite the lists in the admin guide (make docs)
#   --check     change nothing; print the difference and exit 1 if the
#               admin guide's lists are not what the tables give
#   --no-build  use server/orfsd and tools/mount-options as they are
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
doc=$top/Documentation/admin-guide.md
check=0
build=1
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	--no-build) build=0 ;;
	*) sed -n 's/^# Usage: //p' "$0" >&2; exit 2 ;;
	esac
	shift
done

if [ $build -eq 1 ]; then
	make -s -C "$top/server" "$top/server/orfsd"
	make -s -C "$top/tools" mount-options
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/orfs-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$top/server/orfsd" --help=markdown >"$tmp/orfsd options"
"$top/tools/mount-options" --markdown >"$tmp/mount options"

# Copy the guide, each generated list replaced by its file in $tmp (with a
# blank line on either side); fail on an unknown, unclosed or missing list.
awk -v dir="$tmp" '
function fail(msg) { print FILENAME ":" FNR ": " msg >"/dev/stderr"; bad = 1; exit 1 }
/^<!-- BEGIN generated: / {
	if (name != "")
		fail("list \"" name "\" is not closed")
	name = $0
	sub(/^<!-- BEGIN generated: /, "", name)
	sub(/ \(make docs\) -->$/, "", name)
	file = dir "/" name
	if ((getline line <file) <= 0)
		fail("no generated list is called \"" name "\"")
	print
	print ""
	do
		print line
	while ((getline line <file) > 0)
	close(file)
	print ""
	seen[name] = 1
	next
}
/^<!-- END generated/ {
	if ($0 != "<!-- END generated: " name " -->")
		fail("expected <!-- END generated: " name " -->")
	name = ""
}
name == "" { print }
END {
	if (bad)
		exit 1
	if (name != "")
		fail("list \"" name "\" is not closed")
	if (!seen["orfsd options"] || !seen["mount options"])
		fail("the orfsd options and mount options lists must both be there")
}' "$doc" >"$tmp/admin-guide.md"

if [ $check -eq 1 ]; then
	if ! diff -u --label "$doc" --label "generated" "$doc" "$tmp/admin-guide.md"; then
		echo "$doc: the option lists differ from the tables; run 'make docs'" >&2
		exit 1
	fi
	exit 0
fi
if cmp -s "$doc" "$tmp/admin-guide.md"; then
	echo "$doc: up to date"
else
	cp "$tmp/admin-guide.md" "$doc"
	echo "$doc: option lists rewritten"
fi
