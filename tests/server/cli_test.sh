#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# orfsd's command line and startup errors, run against the real binary.
# Prints TAP.  Usage: ORFSD=path/to/orfsd sh cli_test.sh
#
# Without an RDMA device (the build host) it checks the "no RDMA device"
# error; with one (the test VM) it starts a server and checks the
# "address in use" error, the pidfile and a clean exit on SIGTERM.

ORFSD=${ORFSD:-$(dirname "$0")/../../server/orfsd}
T=$(mktemp -d /tmp/orfs-cli-XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -f "$T/err" ] && sed 's/^/# stderr: /' "$T/err"
}

# check NAME EXPECTED_STATUS STDERR_SUBSTRING -- ARGS...
check() {
	name=$1 want=$2 msg=$3
	shift 4
	# A server that unexpectedly starts is stopped after 10 s (status 124).
	timeout -s TERM 10 "$ORFSD" "$@" >"$T/out" 2>"$T/err" </dev/null
	st=$?
	if [ "$st" -ne "$want" ]; then
		not_ok "$name (exit $st, want $want)"
	elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$T/err"; then
		not_ok "$name (no '$msg' on stderr)"
	else
		ok "$name"
	fi
}

has_rdma() {
	[ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]
}

# --help lists every option.
"$ORFSD" --help >"$T/out" 2>"$T/err"
st=$?
missing=
for o in --export --listen --port --foreground -f --inline --credits \
	 --drc-entries --drc-per-client --log-level --pidfile --help --version \
	 --config --allow --read-only --cache-size --grant-size --grants \
	 --staging-size --cache-block-size --io-engine --direct-io --poll --control \
	 --secret-file --fh-key-file SIGUSR1 "config file"; do
	grep -qF -- "$o" "$T/out" || missing="$missing $o"
done
if [ "$st" -eq 0 ] && [ -z "$missing" ]; then
	ok "--help lists every option"
else
	not_ok "--help (exit $st, missing:$missing)"
fi

# --help=markdown: the admin guide's list (tools/gen-docs.sh).
"$ORFSD" --help=markdown >"$T/out" 2>"$T/err"
st=$?
if [ "$st" -eq 0 ] && grep -q '^| `--export DIR` | (required) |' "$T/out"; then
	ok "--help=markdown lists the options"
else
	not_ok "--help=markdown (exit $st)"
fi
check "bad --help value" 1 "invalid --help 'man' (markdown)" -- --help=man

check "--version" 0 "" -- --version
grep -q "^orfsd " "$T/out" && ok "--version prints the version" ||
	not_ok "--version output"
check "no arguments" 1 "orfsd: --export DIR is required" --
check "unknown option" 1 "unrecognized option '--frobnicate'" -- --export /tmp --frobnicate
check "bad --credits" 1 "invalid --credits" -- --export /tmp --credits 0
check "bad --inline" 1 "invalid --inline" -- --export /tmp --inline 100
check "bad --log-level" 1 "invalid --log-level" -- --export /tmp --log-level loud
check "bad --listen" 1 "cannot resolve listen address" -- --export /tmp --listen 999.1.1.1 -f
check "missing export (foreground)" 1 \
	"orfsd: export directory /nonexistent/orfs: No such file or directory" \
	-- --export /nonexistent/orfs -f
check "missing export (daemon)" 1 \
	"orfsd: export directory /nonexistent/orfs: No such file or directory" \
	-- --export /nonexistent/orfs
# The config file and the allow-list.
printf 'export = /tmp\n# comment\ncredits = 8\nfrobnicate = 1\n' >"$T/bad.conf"
check "bad config line" 1 "orfsd: $T/bad.conf:4: unknown key 'frobnicate'" \
	-- --config "$T/bad.conf"
printf 'export = /tmp\ncredits = 0\n' >"$T/bad2.conf"
check "bad config value" 1 "orfsd: $T/bad2.conf:2: invalid credits '0' (1..256)" \
	-- --config "$T/bad2.conf"
printf 'export = /tmp\nallow = 10.0.0.1, 10.0.0.0/40\n' >"$T/bad3.conf"
check "bad allow in config" 1 "orfsd: $T/bad3.conf:2: invalid allow '10.0.0.0/40'" \
	-- --config "$T/bad3.conf"
check "missing --config file" 1 \
	"orfsd: config file $T/none.conf: No such file or directory" \
	-- --config "$T/none.conf" --export /tmp
check "bad --allow" 1 "orfsd: invalid --allow '192.0.2.0/33'" \
	-- --export /tmp --allow 10.0.0.1 --allow 192.0.2.0/33
check "bad --allow (host name)" 1 "orfsd: invalid --allow 'localhost'" \
	-- --export /tmp --allow 10.0.0.1,localhost
# The command line overrides the file: the file's export does not exist,
# the command line's is a file, and that is what the error names.
printf 'export = /nonexistent/orfs\nread-only = yes\n' >"$T/ovr.conf"
echo x >"$T/file"
check "command line overrides the file" 1 \
	"orfsd: export directory $T/file: Not a directory" \
	-- --config "$T/ovr.conf" --export "$T/file" -f
check "config file is read" 1 \
	"orfsd: export directory /nonexistent/orfs: No such file or directory" \
	-- --config "$T/ovr.conf" -f
printf 'export = /tmp\ncredits = 0\n' >"$T/ovr2.conf"
check "bad file value is an error even when overridden" 1 \
	"$T/ovr2.conf:2: invalid credits" -- --config "$T/ovr2.conf" --credits 4

check "bad --cache-size" 1 "invalid --cache-size '12X'" -- --export /tmp --cache-size 12X
check "bad --grant-size" 1 "invalid --grant-size '5000'" -- --export /tmp --grant-size 5000
check "bad --grants" 1 "invalid --grants '0'" -- --export /tmp --grants 0
check "bad --cache-block-size" 1 "invalid --cache-block-size '48K'" \
	-- --export /tmp --cache-block-size 48K
check "bad --io-engine" 1 "invalid --io-engine 'aio'" -- --export /tmp --io-engine aio
check "bad --staging-size" 1 "invalid --staging-size '1Q'" -- --export /tmp --staging-size 1Q
check "bad --poll" 1 "invalid --poll 'spin'" -- --export /tmp --poll spin
check "bad --direct-io" 1 "invalid --direct-io 'maybe'" -- --export /tmp --direct-io=maybe
# Fault injection (tests only) is named in the environment; a bad name is
# refused before anything else starts.
ORFSD_FAULT=read-long check "bad ORFSD_FAULT" 1 \
	"orfsd: ORFSD_FAULT=read-long: not a fault" -- --export /tmp -f
ORFSD_FAULT=read-short:0 check "bad ORFSD_FAULT count" 1 \
	"orfsd: ORFSD_FAULT=read-short:0: not a fault" -- --export /tmp -f
mkdir "$T/export"
printf '0123456789abcdef0123\n' >"$T/secret"
chmod 644 "$T/secret"
check "secret file readable by others" 1 "orfsd: secret file $T/secret: group or others may access it (mode 0644); chmod 600 it" \
	-- --export "$T/export" --secret-file "$T/secret"
chmod 600 "$T/secret"
printf 'short\n' >"$T/short"
chmod 600 "$T/short"
check "secret file too short" 1 "orfsd: secret file $T/short: 5 bytes; a secret needs at least 16" \
	-- --export "$T/export" --secret-file "$T/short"
check "missing secret file" 1 "orfsd: secret file $T/none: No such file or directory" \
	-- --export "$T/export" --secret-file "$T/none"
check "cache too large for memory" 1 "cache too large for memory" \
	-- --export "$T/export" -f --cache-size 900G
check "cache smaller than a staging buffer" 1 "cannot hold one" \
	-- --export "$T/export" -f --cache-size 64K

check "export is a file" 1 "orfsd: export directory $T/file: Not a directory" \
	-- --export "$T/file" -f
# The file handle key: a key file others may read, a key attribute that is
# no key (trusted.* attributes need root).
printf '00112233445566778899aabbccddeeff\n' >"$T/fh.key"
chmod 644 "$T/fh.key"
check "key file readable by others" 1 "must belong to orfsd's user and be readable by it alone" \
	-- --export "$T/export" -f --fh-key-file "$T/fh.key"
printf 'not a key\n' >"$T/fh.key"
chmod 600 "$T/fh.key"
check "key file without a key" 1 "not 32 hex digits" \
	-- --export "$T/export" -f --fh-key-file "$T/fh.key"
mkdir "$T/badkey"
if python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.orfsd.fh_key", b"abc")' \
	"$T/badkey" 2>/dev/null; then
	check "key attribute that is no key" 1 "trusted.orfsd.fh_key is not a key of 16 bytes" \
		-- --export "$T/badkey" -f
fi

if ! has_rdma; then
	check "no RDMA device (foreground)" 1 \
		"orfsd: no RDMA device found; load a driver (e.g. rdma_rxe) first" \
		-- --export "$T/export" -f
	printf 'export = %s\nallow = 192.0.2.0/24\nread-only = yes\n' \
		"$T/export" >"$T/good.conf"
	check "good config file (no RDMA device)" 1 \
		"orfsd: no RDMA device found" -- --config "$T/good.conf" -f
	# Daemon mode: the child's error still reaches the terminal, exit 1.
	check "no RDMA device (daemon)" 1 \
		"orfsd: no RDMA device found; load a driver (e.g. rdma_rxe) first" \
		-- --export "$T/export" --pidfile "$T/pid"
	[ ! -e "$T/pid" ] && ok "no pidfile after a failed start" ||
		not_ok "pidfile left behind"
	# The disk engine is chosen (and logged) before the device check.
	check "--io-engine sync" 1 "backing-file I/O: synchronous" \
		-- --export "$T/export" -f --io-engine sync
	check "--cache-size 0: no block cache" 1 "no block cache" \
		-- --export "$T/export" -f --cache-size 0
	# The open-file cache keeps at most half of the descriptor limit.
	# (A subshell for the limit: it prints the TAP line; its status says
	# whether that line was "not ok".)
	(f0=$failed
	 ulimit -n 200 && check "--open-files above the descriptor limit" 1 \
		"--open-files 4096: the descriptor limit (RLIMIT_NOFILE 200) leaves room for 100" \
		-- --export "$T/export" -f --open-files 4096
	 [ "$failed" = "$f0" ]) || failed=$((failed + 1))
	n=$((n + 1))
	check "bad --open-files" 1 "invalid --open-files '4097' (0..4096)" \
		-- --export "$T/export" --open-files 4097
	# io_uring refused (an LD_PRELOAD stand-in for seccomp or an old
	# kernel): auto falls back to the synchronous engine and says so;
	# --io-engine io_uring is a startup error.
	cat >"$T/nouring.c" <<'EOF2'
#include <errno.h>
struct io_uring;
struct io_uring_params;
int io_uring_queue_init_params(unsigned int e, struct io_uring *r,
			       struct io_uring_params *p)
{
	return -ENOSYS;
}
EOF2
	if ${CC:-cc} -shared -fPIC -o "$T/nouring.so" "$T/nouring.c" 2>/dev/null; then
		LD_PRELOAD=$T/nouring.so check "no io_uring: synchronous fallback" 1 \
			"io_uring is not available (Function not implemented): backing-file I/O is synchronous" \
			-- --export "$T/export" -f
		LD_PRELOAD=$T/nouring.so check "no io_uring: --io-engine io_uring" 1 \
			"cannot set up io_uring: Function not implemented" \
			-- --export "$T/export" -f --io-engine io_uring
	else
		ok "no io_uring fallback # SKIP no C compiler"
	fi
else
	port=$((21000 + $$ % 1000))
	"$ORFSD" --export "$T/export" -f --port $port --pidfile "$T/pid" \
		2>"$T/srv.err" &
	pid=$!
	i=0
	while [ ! -s "$T/pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$T/pid" 2>/dev/null)" = "$pid" ] && ok "pidfile written" ||
		not_ok "pidfile written"
	check "port in use" 1 "orfsd: address 0.0.0.0:$port already in use" \
		-- --export "$T/export" -f --port $port
	if [ -n "$ORFS_SRV_ADDR" ]; then
		check "port in use (specific address)" 1 \
			"orfsd: address $ORFS_SRV_ADDR:$port already in use" \
			-- --export "$T/export" -f --listen "$ORFS_SRV_ADDR:$port"
	fi
	check "non-local address" 1 "not a local address" \
		-- --export "$T/export" -f --listen 198.51.100.77 --port $port
	kill -TERM $pid
	wait $pid
	st=$?
	[ $st -eq 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit $st"
	[ ! -e "$T/pid" ] && ok "pidfile removed" || not_ok "pidfile removed"

	# Daemon mode: the parent returns 0 once listening.
	"$ORFSD" --export "$T/export" --port $port --pidfile "$T/pid" 2>"$T/err"
	st=$?
	dpid=$(cat "$T/pid" 2>/dev/null)
	[ $st -eq 0 ] && [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null &&
		ok "daemonized" || not_ok "daemonized (exit $st)"
	[ -n "$dpid" ] && kill -TERM "$dpid"
	i=0
	while [ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ ! -e "$T/pid" ] && ok "daemon exits on SIGTERM" ||
		not_ok "daemon exits on SIGTERM"
fi

echo "1..$n"
[ $failed -eq 0 ]
