#!/bin/bash
# orfsstat on a live mount with traffic: its per-operation counts,
# errors, retransmissions and latency histograms are sysfs's
# (/sys/fs/orfs/<dev>/requests and ops/<op>), its registration cache and
# connections too; -i gives the change over an interval of known traffic
# (N GETATTRs of the mount root with actimeo=0) and nothing else; --json
# parses (python3 -m json.tool); -s reads orfsd's control socket, as
# orfsd_stat does, and refuses a non-root user with a clear message.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
ctl=$ORFS_WORK/orfsd.ctl
st=$ORFS_TOP/tools/orfsstat
j=$ORFS_WORK/orfsstat.json
mkdir -p "$exp/d"
for i in $(seq 10); do echo "$i" >"$exp/d/f$i"; done

orfs_insmod
orfs_server_start "$exp" --control "$ctl"
orfs_mount "$mnt" / actimeo=0

# Traffic of many kinds, errors included (LOOKUPs of missing names).
ls -l "$mnt/d" >/dev/null
cat "$mnt"/d/f* >/dev/null
for i in $(seq 5); do ! stat "$mnt/nothing$i" 2>/dev/null; done
dd if=/dev/urandom of="$mnt/big" bs=64k count=32 status=none conv=fsync
dd if="$mnt/big" of=/dev/null bs=64k iflag=direct status=none
mkdir "$mnt/newdir" && rmdir "$mnt/newdir"
dev=$(awk -v m="$mnt" '$5 == m { d = $3 } END { print d }' /proc/self/mountinfo)
sys=/sys/fs/orfs/$dev
[ "$(cat "$sys/stats_version")" = 1 ] || fail "stats_version is not 1"

sync
sleep 1
# 1. The counts are sysfs's.  A keepalive NULL may come between the two
# readings: NULL is left out.
must "$st" -m "$mnt" --json >"$j"
python3 -m json.tool "$j" >/dev/null || fail "orfsstat --json is not JSON: $(cat "$j")"
python3 - "$j" "$sys" <<'PY' || fail "orfsstat disagrees with sysfs"
import json, os, sys
j = json.load(open(sys.argv[1]))
d = sys.argv[2]
assert len(j["mounts"]) == 1, j["mounts"]
m = j["mounts"][0]
req = dict(l.split() for l in open(d + "/requests"))
assert set(m["ops"]) == set(req), (sorted(m["ops"]), sorted(req))
for name, o in m["ops"].items():
    if name == "null":
        continue
    f = open(d + "/ops/" + name).read().split()
    kv = dict(zip(f[0:8:2], map(int, f[1:8:2])))
    assert f[8] == "buckets" and len(f) == 9 + 24, f
    want = (int(req[name]), kv["calls"], kv["errors"], kv["retrans"], kv["time_ns"],
            list(map(int, f[9:])))
    got = (o["sent"], o["calls"], o["errors"], o["retrans"], o["time_ns"], o["buckets"])
    assert got == want, (name, got, want)
    assert sum(o["buckets"]) == o["calls"], (name, o)
    if o["calls"]:
        assert o["mean_us"] > 0 and 0 <= o["p50_us"] <= o["p90_us"] <= o["p99_us"], (name, o)
for op in ("getattr", "lookup", "read", "write", "mkdir", "rmdir"):
    assert m["ops"][op]["calls"] > 0, (op, m["ops"][op])
assert m["ops"]["lookup"]["errors"] >= 5, m["ops"]["lookup"]
ctr = dict(l.split() for l in open(d + "/counters"))
for k in ("hits", "misses", "invalidations", "dereg_batches", "pinned_pages"):
    assert m["regcache"][k] == int(ctr["regcache_" + k]), (k, m["regcache"], ctr)
conns = [l.split() for l in open(d + "/connections")]
assert len(m["connections"]) == len(conns) >= 1, (m["connections"], conns)
for c, l in zip(m["connections"], conns):
    assert c["id"] == int(l[0]) and c["up"] == (l[1] == "up"), (c, l)
    assert c["stats"]["cpu"] == int(l[l.index("cpu") + 1]), (c, l)
print("  ops: %d, getattr %d calls, mean %.1f us, p99 %.1f us" % (
    len(m["ops"]), m["ops"]["getattr"]["calls"], m["ops"]["getattr"]["mean_us"],
    m["ops"]["getattr"]["p99_us"]))
PY
out=$("$st" -m "$mnt")
echo "$out" | grep -Eq "^  lookup +[0-9]+ +[0-9]+ +[1-9][0-9]* " || fail "text output lacks lookup's errors: $out"
echo "$out" | grep -q "^  connections:" || fail "text output lacks the connections: $out"
echo "$out" | grep -q "^$mnt  $ORFS_SRV_ADDR:/  server $ORFS_SRV_ADDR:$ORFS_PORT  device $dev$" ||
	fail "text output lacks the mount's line: $out"
# No -m: every ORFS mount, this one.
"$st" | grep -q "^$mnt " || fail "orfsstat without -m does not find $mnt"

# 2. -i: the change over an interval of known traffic.  The interval
# report starts with the first reading (orfsstat's start) and ends 8 s
# later; the N stats run in between, from one process (a stat(1) each
# would take longer than the interval in an emulated VM), and nothing
# else touches the mount.
n=40
"$st" -m "$mnt" -i 8 -c 1 --json >"$j" &
stp=$!
sleep 2
g0=$(orfs_sysfs "$mnt" requests getattr)
python3 -c 'import os, sys
for _ in range(int(sys.argv[2])):
    os.stat(sys.argv[1])' "$mnt" $n
g1=$(orfs_sysfs "$mnt" requests getattr)
kill -0 "$stp" 2>/dev/null || fail "the stats took longer than orfsstat's interval"
wait "$stp" || fail "orfsstat -i 8 -c 1 failed"
[ $((g1 - g0)) -eq $n ] || fail "$n stats of the root sent $((g1 - g0)) GETATTRs (actimeo=0: want $n)"
python3 -m json.tool "$j" >/dev/null || fail "orfsstat -i --json is not JSON: $(cat "$j")"
python3 - "$j" $n <<'PY' || fail "orfsstat -i does not give the interval's traffic"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
n = int(sys.argv[2])
assert 7.5 < j["interval_s"] < 10, j["interval_s"]
ops = j["mounts"][0]["ops"]
g = ops["getattr"]
assert (g["sent"], g["calls"], g["errors"], g["retrans"], sum(g["buckets"])) == (n, n, 0, 0, n), g
for name, o in ops.items():
    if name not in ("getattr", "null"):
        assert o["calls"] == 0 and o["sent"] == 0, (name, o)
print("  -i: %d GETATTRs in %.2f s, mean %.1f us, p50 %.1f us, p99 %.1f us" % (
    g["calls"], j["interval_s"], g["mean_us"], g["p50_us"], g["p99_us"]))
PY
# Text interval mode: COUNT reports, each with ops/s.
out=$("$st" -m "$mnt" -i 0.5 -c 3)
[ "$(echo "$out" | grep -c '^--- ')" -eq 3 ] || fail "-i 0.5 -c 3 did not give 3 reports: $out"
echo "$out" | grep -q "ops/s" || fail "interval reports lack ops/s: $out"
out=$("$st" -m "$mnt" -i 0.2 -c 3 --json)
[ "$(echo "$out" | wc -l)" -eq 3 ] || fail "-i 0.2 -c 3 --json did not give 3 lines"
echo "$out" | python3 -m json.tool --json-lines >/dev/null || fail "interval JSON lines do not parse"

# 3. The server, from its control socket.
must "$st" -m "$mnt" -s "$ctl" --json >"$j"
python3 -m json.tool "$j" >/dev/null || fail "orfsstat -s --json is not JSON"
read -r want_get want_conns <<<"$(orfsd_stat "$ctl" op_getattr connections)"
python3 - "$j" "$want_get" "$want_conns" <<'PY' || fail "orfsstat -s disagrees with the control socket"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["server"]
assert s["ops"]["getattr"] == int(sys.argv[2]), (s["ops"]["getattr"], sys.argv[2])
assert s["stats"]["connections"] == int(sys.argv[3]) >= 1, s["stats"]["connections"]
for k in ("offered", "wanted", "blocks", "taken"):
    assert isinstance(s["demote"][k], int), s["demote"]
assert isinstance(s["stats"]["disk_engine"], str)
assert len(j["mounts"]) == 1
PY
out=$("$st" -S -s "$ctl")
echo "$out" | grep -q "^orfsd  control socket $ctl" || fail "orfsstat -S -s: $out"
echo "$out" | grep -Eq "^  getattr +[0-9]+ " || fail "orfsstat -S lacks the server's ops: $out"
echo "$out" | grep -q "^  DEMOTE:" || fail "orfsstat -S lacks the DEMOTE counters: $out"
echo "$out" | grep -q "^/" && fail "orfsstat -S reported a mount: $out"
# The control socket is root's (a copy of the tool that nobody may run).
install -m 0755 "$st" "$ORFS_WORK/orfsstat"
chmod 0755 "$ORFS_WORK"
expect_fail "Permission denied (it is root's" setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$ORFS_WORK/orfsstat" -S -s "$ctl"
expect_fail "is orfsd running with --control" "$st" -S -s "$ORFS_WORK/no.ctl"
expect_fail "not an ORFS mount" "$st" -m "$exp"

umount "$mnt"
expect_fail "no ORFS mount" "$st"
orfs_server_stop
