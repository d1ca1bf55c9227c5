# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# One of the generated Markdown option tables (orfsd --help=markdown,
# tools/mount-options --markdown) as a man page's list of options, in roff:
# a .TP paragraph per row, the option in bold, then its meaning, default
# and values.  tools/gen-docs.sh puts the result into Documentation/man/.
#
# Variables (awk -v):
#   mode=options   one entry per option, as written in the table
#   mode=conf      orfsd.conf(5): one "key = VALUE" entry per option that
#                  the config file takes, i.e. all but those of skip
#   skip="a b"     mode=conf: the long options the config file does not take
#
# Input: the table, header row first (| option | default | values | meaning |).

# s in roff: backslashes, hyphens (\- is a minus, what options are typed
# with), the en dash of ranges, a control character at a line's start.
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	gsub(/\xe2\x80\x93/, "\\(en", s)
	return s
}

# A Markdown cell in roff: `code` in bold, the rest as text.
function cell(s,    n, seg, i, out) {
	n = split(s, seg, "`")
	out = ""
	for (i = 1; i <= n; i++)
		out = out (i % 2 == 0 ? "\\fB" esc(seg[i]) "\\fR" : esc(seg[i]))
	return out
}

# A line of text, safe from being read as a request.
function line(s) {
	if (s ~ /^[.']/)
		s = "\\&" s
	print s
}

# The cells of a table row, in c[1..n]; "\|" is a literal bar.
function cells(row, c,    n, i) {
	gsub(/\\\|/, "\001", row)
	sub(/^[ \t]*\|/, "", row)
	sub(/\|[ \t]*$/, "", row)
	n = split(row, c, "|")
	for (i = 1; i <= n; i++) {
		gsub(/\001/, "|", c[i])
		gsub(/^[ \t]+|[ \t]+$/, "", c[i])
	}
	return n
}

function ucfirst(s) { return toupper(substr(s, 1, 1)) substr(s, 2) }

BEGIN {
	if (mode != "options" && mode != "conf") {
		print "md-table-to-man.awk: mode must be options or conf" >"/dev/stderr"
		exit 2
	}
	nskip = split(skip, sk, " ")
	for (i = 1; i <= nskip; i++)
		skipped[sk[i]] = 0
}

NR == 1 {
	if (cells($0, hdr) != 4 || hdr[1] != "option") {
		print "md-table-to-man.awk: not an option table: " $0 >"/dev/stderr"
		bad = 1
		exit 1
	}
	next
}
NR == 2 { next }

{
	if (cells($0, c) != 4) {
		print "md-table-to-man.awk: row " NR " has not 4 cells: " $0 >"/dev/stderr"
		bad = 1
		exit 1
	}
	if (mode == "conf") {
		# `-f`, `--foreground[=yes|no]` -> key foreground, value yes|no
		opt = c[1]
		sub(/^`-[A-Za-z]`, /, "", opt)
		gsub(/`/, "", opt)
		if (opt !~ /^--[a-z]/) {
			print "md-table-to-man.awk: row " NR ": no long option: " c[1] >"/dev/stderr"
			bad = 1
			exit 1
		}
		key = substr(opt, 3)
		val = ""
		if (match(key, /[ [=]/)) {
			val = substr(key, RSTART)
			key = substr(key, 1, RSTART - 1)
		}
		if (key in skipped) {
			skipped[key] = 1
			next
		}
		if (val ~ /^\[=.*\]$/)		# [=yes|no]: optional on the command line
			val = substr(val, 3, length(val) - 3)
		sub(/^ /, "", val)
		print ".TP"
		line("\\fB" esc(key) "\\fR = " (val == "" ? "" : "\\fI" esc(val) "\\fR"))
	} else {
		print ".TP"
		line(cell(c[1]))
	}
	line(cell(c[4]) ".")
	if (c[2] == "(required)")
		line("Required.")
	else if (c[2] != "")
		line(ucfirst(hdr[2]) ": " cell(c[2]) ".")
	if (c[3] != "")
		line(ucfirst(hdr[3]) ": " cell(c[3]) ".")
}

END {
	if (bad)
		exit 1
	for (k in skipped)
		if (!skipped[k]) {
			print "md-table-to-man.awk: no option --" k " in the table" >"/dev/stderr"
			exit 1
		}
}
