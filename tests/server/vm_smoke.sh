#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# End-to-end test of orfsd over soft-RoCE without orfs.ko: run inside the
# test VM, e.g.
#
#	make -C server && tools/vm/run tests/server/vm_smoke.sh
#	make -C server asan && ORFS_ORFSD=$PWD/server/build/orfsd-asan \
#		tools/vm/run tests/server/vm_smoke.sh
#
# Starts orfsd on a tmpfs export, runs server/build/orfs-smoke against it
# (several connections at once, each also doing REMOTE (O_DIRECT) I/O where
# orfsd moves the data by RDMA READ and WRITE, then one that vanishes without
# disconnecting), forges handles of a file outside the export (orfs-smoke
# -F), checks the server survived, runs cli_test.sh (which, with a
# device present, checks "address in use", the pidfile and SIGTERM), then
# stops the server with SIGTERM and expects exit status 0.  Then the DEMOTE
# scenario (orfs-smoke -D) against a second orfsd with a small block cache,
# and its statistics.  Prints TAP.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
ORFSD=${ORFSD:-${ORFS_ORFSD:-$repo/server/orfsd}}
SMOKE=${SMOKE:-$repo/server/build/orfs-smoke}
ADDR=${ORFS_SRV_ADDR:-127.0.0.1}
PORT=${ORFS_TEST_PORT:-20050}
T=$(mktemp -d /tmp/orfs-vm-smoke-XXXXXX)
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

mkdir -p "$T/export/dir/sub"
for i in $(seq 1 300); do : >"$T/export/dir/file-$i"; done
echo hello >"$T/export/hello.txt"
ln -s /etc "$T/export/link-out"

# LSan: report leaks of our own code, not those of the verbs libraries.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# orfs-smoke's requests carry root's credential and create files in the
# root-owned export: no root squash.
"$ORFSD" --export "$T/export" --foreground --listen "$ADDR" --port "$PORT" \
	--log-level debug --credits 8 --no-root-squash 2>"$T/orfsd.log" &
srv=$!
# Wait for the listener (slow under TCG, slower with ASan).
for i in $(seq 1 100); do
	grep -q "listening on" "$T/orfsd.log" 2>/dev/null && break
	kill -0 $srv 2>/dev/null || break
	sleep 0.2
done
if ! kill -0 $srv 2>/dev/null || ! grep -q "listening on" "$T/orfsd.log"; then
	not_ok "orfsd started"
	cat "$T/orfsd.log"
	echo "1..$n"
	exit 1
fi
ok "orfsd started"

if "$SMOKE" -p "$PORT" -c 4 "$ADDR" >"$T/smoke1" 2>&1; then
	ok "orfs-smoke, 4 connections"
else
	not_ok "orfs-smoke, 4 connections"
fi
sed 's/^/# /' "$T/smoke1"

if "$SMOKE" -p "$PORT" -m /dir "$ADDR" >"$T/smoke2" 2>&1; then
	ok "orfs-smoke, MOUNT /dir"
else
	not_ok "orfs-smoke, MOUNT /dir"
	sed 's/^/# /' "$T/smoke2"
fi

# A client that exits without disconnecting.
"$SMOKE" -p "$PORT" -c 2 -k "$ADDR" >"$T/smoke3" 2>&1
sleep 2
if kill -0 $srv 2>/dev/null && "$SMOKE" -p "$PORT" "$ADDR" >"$T/smoke4" 2>&1; then
	ok "server still serves after an abrupt client exit"
else
	not_ok "server still serves after an abrupt client exit"
	sed 's/^/# /' "$T/smoke3" "$T/smoke4"
fi

# Many clients at once.
if "$SMOKE" -p "$PORT" -c 32 "$ADDR" >"$T/smoke5" 2>&1; then
	ok "orfs-smoke, 32 connections"
else
	not_ok "orfs-smoke, 32 connections"
	grep -v '^ok' "$T/smoke5" | sed 's/^/# /'
fi

# No descriptors leak across connections.
fds() { ls /proc/$srv/fd | wc -l; }
before=$(fds)
for i in $(seq 1 20); do
	"$SMOKE" -p "$PORT" "$ADDR" >/dev/null 2>&1 || echo "# run $i failed"
	[ $((i % 5)) -eq 0 ] && "$SMOKE" -p "$PORT" -k "$ADDR" >/dev/null 2>&1
done
sleep 2
after=$(fds)
[ "$before" -eq "$after" ] && ok "no fd leak over 24 connections ($before fds)" ||
	not_ok "fd leak: $before fds before, $after after"

# Forged handles of a file outside the export, which is a subdirectory of
# its filesystem: refused (ESTALE) and logged with the client's address; the
# file is untouched.  The export root got its file handle key.
echo secret >"$T/secret.txt"
chmod 600 "$T/secret.txt"
if "$SMOKE" -p "$PORT" -F "$T/secret.txt" "$ADDR" >"$T/smoke7" 2>&1; then
	ok "orfs-smoke -F: forged handles of a file outside the export refused"
else
	not_ok "orfs-smoke -F: forged handles of a file outside the export refused"
fi
sed 's/^/# /' "$T/smoke7"
[ "$(cat "$T/secret.txt")" = secret ] && [ "$(stat -c %a:%h "$T/secret.txt")" = 600:1 ] &&
	ok "the file outside the export is unchanged" ||
	not_ok "the file outside the export changed: $(stat -c %a:%h "$T/secret.txt") $(cat "$T/secret.txt")"
grep -qE "[0-9a-f.:]+:[0-9]+: refused a file handle export .* did not issue" "$T/orfsd.log" &&
	ok "refused handles logged with the client's address" ||
	not_ok "refused handles logged with the client's address"
python3 -c 'import os, sys; sys.exit(len(os.getxattr(sys.argv[1], "trusted.orfsd.fh_key")) != 16)' "$T/export" &&
	ok "the export root holds a 16-byte file handle key" ||
	not_ok "the export root holds a 16-byte file handle key"

if ORFSD=$ORFSD timeout 120 bash "$here/cli_test.sh" 2>&1 | tee "$T/cli" | sed 's/^/# /'; [ "${PIPESTATUS[0]}" -eq 0 ]; then
	ok "cli_test.sh with a device"
else
	not_ok "cli_test.sh with a device"
fi

kill -TERM $srv
wait $srv
st=$?
[ $st -eq 0 ] && ok "SIGTERM: orfsd exits 0" || not_ok "SIGTERM: orfsd exit $st"
grep -q "ERROR: \(Address\|Leak\)Sanitizer\|runtime error" "$T/orfsd.log" &&
	not_ok "sanitizer report in the orfsd log" || ok "no sanitizer report"
grep -q "connected" "$T/orfsd.log" && ok "connects logged" || not_ok "connects logged"
grep -q "disconnected" "$T/orfsd.log" && ok "disconnects logged" || not_ok "disconnects logged"
# orfs-smoke's REMOTE (O_DIRECT) requests: orfsd moved data both ways.
grep -q "server RDMA: [1-9][0-9]* bytes read from the client for [1-9][0-9]* WRITEs, [1-9][0-9]* bytes written to it for [1-9][0-9]* READs" "$T/orfsd.log" &&
	ok "server RDMA READ and WRITE bytes counted" ||
	not_ok "server RDMA READ and WRITE bytes counted"
echo "# --- orfsd log (warnings, errors, last 20 lines) ---"
grep -v ": debug: " "$T/orfsd.log" | grep -iv "connected\|mounted" | sed 's/^/# /'
tail -n 20 "$T/orfsd.log" | sed 's/^/# /'

# DEMOTE exclusive caching, against a second orfsd whose block cache holds
# 32 blocks of 64 KiB (6 MiB arena, 4 MiB of it staging buffers): orfs-smoke
# -D, then orfsd's statistics must show the demoted blocks taken in, hit
# by READs, and the cached and stale ones declined.
stat_of() {
	python3 "$repo/tests/vm/tools/orfsd_stats.py" "$T/ctl" "$1" 2>/dev/null || echo -1
}
PORT2=$((PORT + 1))
mkdir -p "$T/export2"
"$ORFSD" --export "$T/export2" --foreground --listen "$ADDR" --port "$PORT2" \
	--log-level debug --cache-size 6M --staging-size 4M --grant-size 1M \
	--control "$T/ctl" --no-root-squash 2>"$T/orfsd2.log" &
srv2=$!
for i in $(seq 1 100); do
	grep -q "listening on" "$T/orfsd2.log" 2>/dev/null && break
	kill -0 $srv2 2>/dev/null || break
	sleep 0.2
done
if "$SMOKE" -p "$PORT2" -D "$ADDR" >"$T/smoke6" 2>&1; then
	ok "orfs-smoke -D: DEMOTE_META and DEMOTE"
else
	not_ok "orfs-smoke -D: DEMOTE_META and DEMOTE"
fi
sed 's/^/# /' "$T/smoke6"
dh=$(stat_of cache_hits_demote)
dt=$(stat_of demote_taken)
dc=$(stat_of demote_declined_cached)
ds=$(stat_of demote_declined_stale)
di=$(stat_of bytes_demote_inline)
dg=$(stat_of bytes_demote_grant)
dw=$(stat_of bytes_demote_window)
rw=$(stat_of bytes_read_window)
echo "# demote: $dh demoted hits ($(stat_of cache_hit_percent_demote)% of lookups), $dt taken, $dc declined cached, $ds stale, $di bytes inline, $dg through staging buffers, $dw through memory windows; $rw bytes read through windows"
[ "$dh" -ge 3 ] && [ "$dt" -ge 3 ] && [ "$dc" -ge 2 ] && [ "$ds" -ge 2 ] &&
	[ "$di" -gt 0 ] && [ "$dg" -gt 0 ] && [ "$dw" -ge 65536 ] && [ "$rw" -gt 0 ] &&
	ok "orfsd statistics: demoted hits, blocks taken (inline, staging buffer, memory window), declines" ||
	not_ok "orfsd statistics: demoted hits, blocks taken (inline, staging buffer, memory window), declines"
kill -TERM $srv2
wait $srv2
st=$?
[ $st -eq 0 ] && ok "SIGTERM: second orfsd exits 0" || not_ok "SIGTERM: second orfsd exit $st"
grep -q "ERROR: \(Address\|Leak\)Sanitizer\|runtime error" "$T/orfsd2.log" &&
	not_ok "sanitizer report in the second orfsd log" || ok "no sanitizer report (second orfsd)"
grep -v ": debug: " "$T/orfsd2.log" | grep -iv "connected\|mounted" | sed 's/^/# /'
rm -rf "$T"
echo "1..$n"
[ $failed -eq 0 ]
