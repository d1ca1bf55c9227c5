#!/bin/bash
# Host tests of the userspace tools, no kernel or RDMA needed:
#  - tests/tools/test_orfsstat.c, orfsstat's parsing and arithmetic
#    (tools/orfsstat_lib.c), one PASS/FAIL line per case;
#  - tools/orfsstat itself against a made-up /sys/fs/orfs and mountinfo
#    (ORFSSTAT_SYSFS, ORFSSTAT_MOUNTINFO) and a made-up control socket:
#    its text and JSON agree with the files and the socket's text, and it
#    refuses an unknown statistics format, a missing or malformed file, a
#    path that is no ORFS mount, with a clear message.
# Prints "PASS tools/<name>" or "FAIL tools/<name>" lines; exit status 0
# only if all passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/orfs-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rc=0

pass() { echo "PASS tools/$1"; }
failt() { echo "FAIL tools/$1${2:+ ($2)}"; rc=1; }

if ! make -s -C "$top/tools" orfsstat; then
	echo "FAIL tools/build"
	exit 1
fi
if ${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top/tools" -o "$tmp/test_orfsstat" \
	"$top/tests/tools/test_orfsstat.c" "$top/tools/orfsstat_lib.c" -lm; then
	"$tmp/test_orfsstat" || rc=1
else
	echo "FAIL tools/orfsstat/build-unit-test"
	rc=1
fi

# A mount 0:45 on "/mnt/o x" (a space, escaped in mountinfo as the kernel does).
sys=$tmp/sys
d=$sys/0:45
mkdir -p "$d/ops"
echo 1 >"$d/stats_version"
echo 192.0.2.1:20050 >"$d/server"
printf 'null 0\ngetattr 12\nlookup 3\nread 0\n' >"$d/requests"
zeros="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
echo "calls 0 errors 0 retrans 0 time_ns 0 buckets $zeros" >"$d/ops/null"
echo "calls 0 errors 0 retrans 0 time_ns 0 buckets $zeros" >"$d/ops/read"
echo "calls 12 errors 1 retrans 2 time_ns 360000 buckets 0 0 0 0 0 10 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" >"$d/ops/getattr"
echo "calls 3 errors 3 retrans 0 time_ns 30000 buckets 0 0 0 0 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" >"$d/ops/lookup"
printf 'timeouts 1\nregcache_hits 5\nregcache_misses 2\nregcache_invalidations 4\nregcache_dereg_batches 3\nregcache_pinned_pages 64\n' >"$d/counters"
printf '0 up requests 15 inflight 0 credits 32 grants 4 srtt_us 20 spin_us 0 cpu 1\n1 down requests 0 inflight 0 credits 0 grants 0 srtt_us 0 spin_us 0 cpu -1\n' >"$d/connections"
mi=$tmp/mountinfo
printf '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n36 22 0:45 / /mnt/o\\040x rw,relatime shared:1 - orfs 192.0.2.1:/ rw,addr=192.0.2.1\n' >"$mi"
export ORFSSTAT_SYSFS=$sys ORFSSTAT_MOUNTINFO=$mi
st=$top/tools/orfsstat

out=$("$st" 2>&1)
if echo "$out" | grep -q '^/mnt/o x .*server 192.0.2.1:20050 .*device 0:45' &&
	echo "$out" | grep -Eq '^  getattr +12 +12 +1 +2 +30\.0 +25\.6 +44\.8 +62\.1$' &&
	echo "$out" | grep -Eq '^  lookup +3 +3 +3 +0 +10\.0 ' &&
	! echo "$out" | grep -q '^  read ' &&
	echo "$out" | grep -q 'regcache: hits 5 misses 2 invalidations 4 dereg_batches 3 pinned_pages 64' &&
	echo "$out" | grep -Eq '^ +0 up +1 +15 +0 +32 +4 +20 +0$'; then
	pass orfsstat/text
else
	failt orfsstat/text "$out"
fi

if "$st" --json >"$tmp/j" && python3 - "$tmp/j" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = j["mounts"][0]
g = m["ops"]["getattr"]
assert m["mountpoint"] == "/mnt/o x" and m["device"] == "0:45", m
assert (g["sent"], g["calls"], g["errors"], g["retrans"], g["time_ns"]) == (12, 12, 1, 2, 360000), g
assert abs(g["mean_us"] - 30) < 1e-6 and abs(g["p50_us"] - 25.6) < 1e-6, g
assert len(g["buckets"]) == 24 and g["buckets"][5] == 10
assert m["ops"]["read"]["p99_us"] is None
assert m["regcache"]["hits"] == 5 and m["regcache"]["pinned_pages"] == 64
assert m["connections"][1] == {"id": 1, "up": False, "stats": {"requests": 0, "inflight": 0, "credits": 0, "grants": 0, "srtt_us": 0, "spin_us": 0, "cpu": -1}}, m["connections"]
assert j["interval_s"] is None and "server" not in j
PY
then
	pass orfsstat/json
else
	failt orfsstat/json
fi

# expect NAME TEXT CMD...: CMD fails with status 1 and says TEXT.
expect() {
	local name=$1 want=$2 out st
	shift 2
	out=$("$@" 2>&1)
	st=$?
	if [ "$st" -eq 1 ] && echo "$out" | grep -q -- "$want"; then
		pass "orfsstat/$name"
	else
		failt "orfsstat/$name" "status $st: $out"
	fi
}
expect not-orfs "/tmp: not an ORFS mount" "$st" -m /tmp
echo 2 >"$d/stats_version"
expect version "unknown statistics format version 2" "$st"
rm "$d/stats_version"
expect no-version "stats_version is missing" "$st"
echo 1 >"$d/stats_version"
echo "calls 1 errors 0 buckets 1" >"$d/ops/read"
expect bad-op "ops/read: unexpected format" "$st" -m "/mnt/o x"
echo "calls 0 errors 0 retrans 0 time_ns 0 buckets $zeros" >"$d/ops/read"
ORFSSTAT_SYSFS=$tmp/none expect no-sysfs "no statistics directory" "$st"
printf '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n' >"$tmp/mi-none"
ORFSSTAT_MOUNTINFO=$tmp/mi-none expect no-mount "no ORFS mount" "$st"
expect no-socket "is orfsd running with --control" "$st" -s "$tmp/nosock"
# A control socket that answers as orfsd does: the text, then EOF; twice.
sock=$tmp/ctl
python3 - "$sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(4)
s.settimeout(20)
for _ in range(2):
    c, _ = s.accept()
    c.sendall(b"uptime_seconds 7\nconnections 2\nrequests 50\nerrors 1\nop_getattr 40\n"
              b"op_getattr_usec 400\nop_read 10\nop_read_usec 1000\ndemote_offered 0\n"
              b"demote_taken 3\ncache_hit_percent 12.5\ndisk_engine io_uring\n")
    c.close()
PY
srv=$!
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
out=$("$st" -S -s "$sock" 2>&1)
if echo "$out" | grep -q "^orfsd  control socket $sock$" &&
	echo "$out" | grep -Eq '^  getattr +40 +10\.0$' &&
	echo "$out" | grep -Eq '^  read +10 +100\.0$' &&
	echo "$out" | grep -q '^  DEMOTE: offered 0 taken 3$' &&
	echo "$out" | grep -q 'counters: uptime_seconds 7 connections 2 requests 50 errors 1' &&
	echo "$out" | grep -q '^    cache_hit_percent 12.5 disk_engine io_uring$' &&
	! echo "$out" | grep -q '^/'; then
	pass orfsstat/server-text
else
	failt orfsstat/server-text "$out"
fi
if "$st" -S -s "$sock" --json >"$tmp/js" && python3 - "$tmp/js" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["server"]
assert j["mounts"] == [] and s["ops"]["getattr"] == 40 and s["ops"]["read_usec"] == 1000, j
assert s["demote"] == {"offered": 0, "taken": 3}, s["demote"]
assert s["stats"]["cache_hit_percent"] == 12.5 and s["stats"]["disk_engine"] == "io_uring", s
PY
then
	pass orfsstat/server-json
else
	failt orfsstat/server-json
fi
wait "$srv"

out=$("$st" -c 2 2>&1)
if [ $? -eq 2 ] && echo "$out" | grep -q -- "-c needs -i"; then pass orfsstat/usage; else failt orfsstat/usage "$out"; fi
if "$st" --help | grep -q -- "--interval SECONDS" && "$st" -V | grep -q 'format 1'; then
	pass orfsstat/help
else
	failt orfsstat/help
fi
exit $rc
