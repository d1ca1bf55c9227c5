#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The option lists of Documentation/admin-guide.md and of the man pages
# (Documentation/man/) are generated from the tables the code itself
# parses with:
#
#   orfsd options   server/options.c  (orfsd --help=markdown)
#   mount options   fs/mount_opts.h   (tools/mount-options)
#
# The admin guide gets them as Markdown tables; orfsd(8), orfsd.conf(5) and
# mount.orfs(8) as roff (tools/md-table-to-man.awk), orfsd.conf(5) with the
# config file's keys (all options but those orfsd --help says the file does
# not take).  Each list sits between the lines
#   <!-- BEGIN generated: NAME (make docs) -->       (Markdown)
#   .\" BEGIN generated: NAME (make docs)            (roff)
# and the matching END line, and is not edited by hand: change the table,
# then run "make docs".  --check also runs man(1) over the man pages, as
# lintian does: a roff warning fails.
#
# Usage: tools/gen-docs.sh [--check] [--no-build]
#   (none)      rewrite the lists in the admin guide and the man pages
#               (make docs)
#   --check     change nothing; print the difference and exit 1 if a list
#               is not what the tables give, or a man page has warnings
#   --no-build  use server/orfsd and tools/mount-options as they are
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
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
	make -s -C "$top/tools" mount-options orfsstat
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/orfs-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/md" "$tmp/man" "$tmp/out"
"$top/server/orfsd" --help=markdown >"$tmp/md/orfsd options"
"$top/tools/mount-options" --markdown >"$tmp/md/mount options"

# The options the config file does not take, as orfsd --help names them:
# "every option above except --config, --help and --version may also be
# given in the config file".
cmdline_only=$("$top/server/orfsd" --help | tr '\n' ' ' |
	sed -n 's/.*every option above except \(.*\) may also be given in the config file.*/\1/p' |
	sed 's/,/ /g; s/ and / /g' | tr ' ' '\n' | sed -n 's/^--\([a-z-]*\)$/\1/p' | tr '\n' ' ')
if [ -z "$cmdline_only" ]; then
	echo "gen-docs: orfsd --help no longer says which options the config file does not take" >&2
	exit 1
fi
man() { awk -f "$top/tools/md-table-to-man.awk" "$@"; }
man -v mode=options <"$tmp/md/orfsd options" >"$tmp/man/orfsd options"
man -v mode=conf -v skip="$cmdline_only" <"$tmp/md/orfsd options" >"$tmp/man/orfsd.conf keys"
man -v mode=options <"$tmp/md/mount options" >"$tmp/man/mount options"

# fill FILE DIR PAD BEGIN END TAIL REQUIRED...: FILE with each generated
# list replaced by DIR/NAME, PAD: with a blank line on either side; BEGIN
# and END are the markers' heads ("<!-- BEGIN generated: "), TAIL their
# end (" -->"); fails on an unknown, unclosed or missing list.
fill() {
	local file=$1 dir=$2 pad=$3 begin=$4 end=$5 tail=$6
	shift 6
	# (the markers through the environment: awk -v would eat a backslash)
	M_BEGIN=$begin M_END=$end M_TAIL=$tail M_REQUIRED="$*" \
		awk -v dir="$dir" -v pad="$pad" '
BEGIN { begin = ENVIRON["M_BEGIN"]; end = ENVIRON["M_END"]; tail = ENVIRON["M_TAIL"]; required = ENVIRON["M_REQUIRED"] }
function fail(msg) { print FILENAME ":" FNR ": " msg >"/dev/stderr"; bad = 1; exit 1 }
function starts(s, p) { return substr(s, 1, length(p)) == p }
starts($0, begin) {
	if (name != "")
		fail("list \"" name "\" is not closed")
	name = substr($0, length(begin) + 1)
	if (substr(name, length(name) - length(" (make docs)" tail) + 1) != " (make docs)" tail)
		fail("expected " begin "NAME (make docs)" tail)
	name = substr(name, 1, length(name) - length(" (make docs)" tail))
	file = dir "/" name
	if ((getline line <file) <= 0)
		fail("no generated list is called \"" name "\"")
	print
	if (pad)
		print ""
	do
		print line
	while ((getline line <file) > 0)
	close(file)
	if (pad)
		print ""
	seen[name] = 1
	next
}
starts($0, end) {
	if ($0 != end name tail)
		fail("expected " end name tail)
	name = ""
}
name == "" { print }
END {
	if (bad)
		exit 1
	if (name != "")
		fail("list \"" name "\" is not closed")
	n = split(required, req, ",")
	for (i = 1; i <= n; i++)
		if (!(req[i] in seen))
			fail("the list \"" req[i] "\" must be there")
}' "$file"
}

# Each file, its lists, and where its generated copy goes.
docs=("$top/Documentation/admin-guide.md"
	"$top/Documentation/man/orfsd.8"
	"$top/Documentation/man/orfsd.conf.5"
	"$top/Documentation/man/mount.orfs.8")
fill "${docs[0]}" "$tmp/md" 1 '<!-- BEGIN generated: ' '<!-- END generated: ' ' -->' \
	'orfsd options,mount options' >"$tmp/out/0"
fill "${docs[1]}" "$tmp/man" 0 '.\" BEGIN generated: ' '.\" END generated: ' '' \
	'orfsd options' >"$tmp/out/1"
fill "${docs[2]}" "$tmp/man" 0 '.\" BEGIN generated: ' '.\" END generated: ' '' \
	'orfsd.conf keys' >"$tmp/out/2"
fill "${docs[3]}" "$tmp/man" 0 '.\" BEGIN generated: ' '.\" END generated: ' '' \
	'mount options' >"$tmp/out/3"

status=0
for i in "${!docs[@]}"; do
	doc=${docs[i]}
	if [ $check -eq 1 ]; then
		if ! diff -u --label "$doc" --label "generated" "$doc" "$tmp/out/$i"; then
			echo "$doc: the option lists differ from the tables; run 'make docs'" >&2
			status=1
		fi
	elif cmp -s "$doc" "$tmp/out/$i"; then
		echo "$doc: up to date"
	else
		cp "$tmp/out/$i" "$doc"
		echo "$doc: option lists rewritten"
	fi
done

# orfsstat(8) is written by hand; its options must be those of
# orfsstat --help, both ways.
oman=$top/Documentation/man/orfsstat.8
if [ $check -eq 1 ]; then
	if [ ! -x "$top/tools/orfsstat" ]; then
		echo "$oman: no tools/orfsstat to check it against (make tools)" >&2
		status=1
	else
		"$top/tools/orfsstat" --help | grep -oE '^ +-[a-zA-Z], --[a-z-]+' |
			sed 's/.*--//' | sort -u >"$tmp/ohelp"
		# Every \-\-option the page names, but orfsd's --control.
		grep -oE '\\-\\-[a-z][a-z\\-]*' "$oman" | sed 's/\\//g; s/^--//' |
			grep -vx control | sort -u >"$tmp/oman"
		if ! diff -u --label "orfsstat --help" --label "$oman" "$tmp/ohelp" "$tmp/oman"; then
			echo "$oman: its options differ from orfsstat --help" >&2
			status=1
		fi
	fi
fi

# The man pages format without a warning (what lintian runs on them).
if [ $check -eq 1 ]; then
	for doc in "${docs[@]:1}" "$oman"; do
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 command man --warnings -E UTF-8 -l -Tutf8 -Z "$doc" 2>&1 >/dev/null) ||
			w="${w:-man failed}"
		if [ -n "$w" ]; then
			echo "$doc: man(1) warns:" >&2
			echo "$w" >&2
			status=1
		fi
	done
fi
exit $status
