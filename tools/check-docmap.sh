#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tools/check-docmap.sh - every source file appears in the folder map.
#
# Documentation/architecture.md's "Layers and folders" map names each file
# of the client, the server, the wire protocol and the tools, so that a
# reader finds every mechanism by its file name.  This check lists the files
# git tracks under fs/, net/, include/, kcompat/, server/ and tools/ (C
# sources and headers, the kernel probes, and the tools' scripts) and fails,
# naming them, if any is missing from the map.  A file counts as named when the map holds its base name
# (`jobs.sh`) or its path below its top-level folder (`bench/jobs.sh`) as
# a word of its own.
#
# Usage: tools/check-docmap.sh
# Exit status: 0 if every file is in the map, 1 otherwise.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
map=$top/Documentation/architecture.md
cd "$top"

# The map is the fenced block under "## Layers and folders".
block=$(awk '/^## Layers and folders/ { on = 1; next }
	on && /^```/ { n++; if (n == 2) exit; next }
	on && n == 1 { print }' "$map")
[ -n "$block" ] || { echo "check-docmap: no folder map in $map" >&2; exit 1; }

missing=0
while IFS= read -r f; do
	rel=${f#*/}
	base=${f##*/}
	# Word match: the relative path, or the base name, as a whole token.
	# (a here-string, not a pipe: grep -q exiting early would make the
	# writer's SIGPIPE fail the pipeline under pipefail, at random)
	if grep -qE "(^|[[:space:],(/])(${rel//./\\.}|${base//./\\.})([[:space:],):;]|$)" <<<"$block"; then
		continue
	fi
	echo "check-docmap: $f is not in Documentation/architecture.md's folder map" >&2
	missing=1
done < <(git ls-files -- 'fs/*.[ch]' 'net/*.[ch]' 'include/*.h' 'server/*.[ch]' \
	'kcompat/*' 'tools/*.c' 'tools/*.sh' 'tools/*.py' 'tools/vm/*' 'tools/bench/*' |
	grep -vE '\.(md|fio)$')
exit $missing
