#!/bin/bash
# orfsd against clients that break the rules (issue 37, defects 4 and 5),
# with tests/hostile/peer.c (server/build/orfs-peer) as the misbehaving userspace client:
#  - privileged source ports: root's mount connects from ports below 1024,
#    also when it reconnects after a server restart (the kernel worker);
#    an unprivileged user's rdma_cm client cannot bind one, and its
#    connection is refused with a reject reason it can print, as is root's
#    from an ordinary port and a noresvport mount (EACCES and a kernel log
#    line); orfsd --insecure admits them; a range of min_resvport..
#    max_resvport that is used up fails the next mount with EADDRINUSE and
#    a kernel log line;
#  - connection limits: a flood from the mount's address stops at
#    --max-connections-per-address, one from another address at
#    --max-connections, each with its reject reason, a log line and a
#    counter, and a new mount meanwhile fails with EUSERS; every connection
#    the limit admits gets its part of the staging buffers; the mount
#    already there keeps reading and writing correct data throughout;
#  - the handshake deadline: a client that connects and sends nothing, and
#    one that never completes the connection, are dropped after
#    --handshake-timeout; an idle mount, even one whose connection was
#    just re-opened with keepalive=0, never is;
#  - stalled connections: a client that stops posting receive buffers
#    with replies on their way is disconnected after --stall-timeout, and
#    its staging buffers, pinned cache blocks and connection come back; a
#    busy mount on a CPU-starved client is not touched.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mnt2=$ORFS_WORK/mnt2
ctl=$ORFS_WORK/orfsd.ctl
log=$ORFS_WORK/orfsd.log
cli=${ORFS_CLI_ADDR:-192.0.2.2}
peer=$ORFS_WORK/orfs_peer
mkdir -p "$exp/d" "$mnt" "$mnt2" "$ORFS_WORK/mnt3"
chmod 755 "$ORFS_WORK"
head -c 1048576 /dev/urandom >"$exp/file"
chmod 644 "$exp/file"
# A copy that user 65534 may run (the build tree's directories may not be
# open to it).
cp "$ORFS_TOP/server/build/orfs-peer" "$peer" || fail "no server/build/orfs-peer (make -C server)"
chmod 755 "$peer"
orfs_insmod

stat_of() { orfsd_stat "$ctl" "$@"; }
# On a failure or a timeout, what orfsd said last.
dump_log() {
	local rc=$?
	[ "$rc" -eq 0 ] || { echo "orfsd log:"; tail -n 25 "$log"; dmesg | tail -n 20; }
}
trap 'exit 1' TERM
trap dump_log EXIT
# mount_orfs MNT [-o OPTS]: mount.orfs, which says strerror() of a failure.
mount_orfs() { local m=$1; shift; "$ORFS_TOP/tools/mount.orfs" "$ORFS_SRV_ADDR:/" "$m" "$@"; }
# as_nobody CMD...: CMD as uid and gid 65534 without groups.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# The source ports of the connections orfsd logged as connected after log
# line $1, from the client's address.
conn_ports() {
	tail -n +"$(( $1 + 1 ))" "$log" | sed -n "s/.*$cli:\([0-9]*\): connected .*/\1/p"
}
restart_orfsd() {
	orfs_server_stop
	orfs_server_start "$exp" --control "$ctl" "$@"
}
logmark() { wc -l <"$log"; }

# ---- defect 4: privileged source ports ----

orfs_server_start "$exp" --control "$ctl"
grep -q "clients must connect from a privileged source port" "$log" ||
	fail "orfsd does not say it wants privileged ports"
m=$(logmark)
orfs_mount "$mnt" / nconnect=2
echo data >"$mnt/d/f"
[ "$(cat "$exp/d/f")" = data ] || fail "root's mount does not work"
ports=$(conn_ports "$m")
[ -n "$ports" ] || fail "no connection logged: $(tail -n 20 "$log")"
for p in $ports; do
	[ "$p" -ge 665 ] && [ "$p" -le 1023 ] || fail "the mount connected from port $p"
done
note "the mount's connections come from ports $(tr '\n' ' ' <<<"$ports")"

# An unprivileged user cannot bind a privileged port, and is refused.
out=$(as_nobody "$peer" -p "$ORFS_PORT" connect 1 0 "$ORFS_SRV_ADDR") ||
	fail "orfs_peer as nobody: $out"
echo "$out" | grep -q "cannot bind a privileged port: Permission denied" ||
	fail "nobody could bind a privileged port: $out"
echo "$out" | grep -q "conn 0: rejected: source port not privileged .*(reason 6)" ||
	fail "nobody's connection was not refused for its port: $out"
grep -q "$cli:[0-9]*: rejected: source port not privileged" "$log" ||
	fail "orfsd did not log the refused port"
# root from an ordinary port: the same, so the port is what counts.
out=$("$peer" -U -p "$ORFS_PORT" connect 1 0 "$ORFS_SRV_ADDR")
echo "$out" | grep -q "conn 0: rejected: source port not privileged" ||
	fail "root's connection from an ordinary port was accepted: $out"
[ "$(stat_of connections_insecure)" -eq 2 ] || fail "connections_insecure: $(stat_of connections_insecure)"
# root from a privileged one is accepted.
out=$("$peer" -p "$ORFS_PORT" connect 1 0 "$ORFS_SRV_ADDR")
echo "$out" | grep -q "conn 0: accepted from port [0-9]* " || fail "root's peer refused: $out"
# A noresvport mount: EACCES and the reason in the kernel log.
expect_fail "Permission denied" mount_orfs "$mnt2" -o noresvport
dmesg | tail -n 5 | grep -q "orfs: server rejected the connection: source port not privileged.*noresvport" ||
	fail "no kernel log line for the refused port: $(dmesg | tail -n 5)"

# orfsd restarted under the mount: the reconnections (made by the kernel's
# worker) bind privileged ports too, or the new orfsd would refuse them.
m=$(logmark)
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
orfs_server_start "$exp" --control "$ctl"
echo again >"$mnt/d/g"
[ "$(cat "$exp/d/g")" = again ] || fail "no I/O after the restart"
[ "$(orfs_sysfs "$mnt" counters reconnects)" -ge 1 ] || fail "no reconnect counted"
for p in $(conn_ports "$m"); do
	[ "$p" -le 1023 ] || fail "a reconnection came from port $p"
done
[ "$(stat_of connections_insecure)" -eq 0 ] || fail "a reconnection was refused"

# --insecure admits all of them.
restart_orfsd --insecure
grep -q "insecure: clients may connect from any source port" "$log" || fail "no --insecure log line"
out=$(as_nobody "$peer" -p "$ORFS_PORT" connect 1 0 "$ORFS_SRV_ADDR")
echo "$out" | grep -q "conn 0: accepted" || fail "--insecure refused nobody: $out"
mount -t orfs -o noresvport "$ORFS_SRV_ADDR:/" "$mnt2"
grep " $mnt2 orfs " /proc/mounts | grep -q noresvport || fail "noresvport not in /proc/mounts"
[ "$(cat "$mnt2/d/g")" = again ] || fail "the noresvport mount does not read"
umount "$mnt2"

# A range of privileged ports that runs out: a clear error.  (600-601 is
# outside the default range, so the first mount holds none of them.)
echo 600 >/sys/module/orfs/parameters/min_resvport
echo 601 >/sys/module/orfs/parameters/max_resvport
! echo 1024 >/sys/module/orfs/parameters/max_resvport 2>/dev/null || fail "max_resvport took 1024"
orfs_mount "$mnt2" / nconnect=2
expect_fail "Address already in use" mount_orfs "$ORFS_WORK/mnt3" -o nconnect=1
dmesg | tail -n 5 | grep -q "orfs: no free privileged source port in 600-601" ||
	fail "no kernel log line for the used-up port range: $(dmesg | tail -n 5)"
umount "$mnt2"
echo 665 >/sys/module/orfs/parameters/min_resvport
echo 1023 >/sys/module/orfs/parameters/max_resvport

# ---- defect 5: connection limits, handshake deadline, stalls ----

# A 32 MiB arena: 16 staging buffers, of which each of the 5 connections
# the limit admits is owed 3 (without the limit the first would take 16).
restart_orfsd --max-connections 5 --max-connections-per-address 4 \
	--handshake-timeout 3 --stall-timeout 4 --cache-size 32M
# The mount reconnects to the restarted orfsd by itself (its reconnect
# worker counts each reconnection before the connection is up): count
# from when both its connections are up again, or a late one counts as a
# cut below.
mount_up() {
	[ "$(orfs_sysfs "$mnt" connections 0)" = up ] &&
		[ "$(orfs_sysfs "$mnt" connections 1)" = up ]
}
for _ in $(seq 1 100); do
	mount_up && break
	sleep 0.2
done
mount_up || fail "the mount did not reconnect to the restarted orfsd within 20 s"
# grants_ok: every connection accepted in the input got at least 3, and
# there was one.
grants_ok() {
	sed -n 's/.*accepted from port [0-9]* (\([0-9]*\) staging buffers)$/\1/p' |
		awk '$1 < 3 { bad = 1 } END { exit bad || !NR }'
}
# The mount's I/O goes on, checked, through everything below.
stop=$ORFS_WORK/stop
head -c $((2 * 1048576)) /dev/urandom >"$ORFS_WORK/src"
( i=0
  while [ ! -e "$stop" ]; do
	cp "$ORFS_WORK/src" "$mnt/d/io" && cmp "$ORFS_WORK/src" "$mnt/d/io" || exit 1
	i=$((i + 1))
  done
  echo "$i" >"$ORFS_WORK/rounds" ) &
io=$!
reconnects=$(orfs_sysfs "$mnt" counters reconnects)
sleep 1
[ "$(stat_of connections)" -eq 2 ] || fail "the mount has $(stat_of connections) connections"

# A flood from the mount's address stops at the per-address limit.
out=$("$peer" -p "$ORFS_PORT" connect 6 2 "$ORFS_SRV_ADDR")
note "$(echo "$out" | tail -n 1) from $cli"
echo "$out" | grep -q "^accepted 2 rejected 4$" || fail "flood from $cli: $out"
grants_ok <<<"$out" || fail "a connection got fewer than 3 staging buffers: $out"
echo "$out" | grep -q "rejected: too many connections from this client's address (reason 8)" ||
	fail "no per-address reject reason: $out"
grep -q "$cli:[0-9]*: rejected: its address has 4 connections" "$log" ||
	fail "orfsd did not log the per-address limit"
sleep 1	# its accepted connections gone
# One from another address stops at the total; a new mount meanwhile fails.
"$peer" -p "$ORFS_PORT" -b "$ORFS_SRV_ADDR" connect 6 6 "$ORFS_SRV_ADDR" >"$ORFS_WORK/flood" &
flood=$!
for i in $(seq 1 50); do
	grep -q "^conn 5:" "$ORFS_WORK/flood" && break
	sleep 0.2
done
expect_fail "Too many users" mount_orfs "$mnt2" -o nconnect=1
dmesg | tail -n 5 | grep -q "orfs: server rejected the connection: server has too many connections" ||
	fail "no kernel log line for the total limit: $(dmesg | tail -n 5)"
ls "$mnt/d" >/dev/null || fail "the mount stopped working during the flood"
wait $flood || fail "flood from $ORFS_SRV_ADDR: $(cat "$ORFS_WORK/flood")"
note "$(tail -n 1 "$ORFS_WORK/flood") from $ORFS_SRV_ADDR"
grep -q "^accepted 3 rejected 3$" "$ORFS_WORK/flood" || fail "flood from $ORFS_SRV_ADDR: $(cat "$ORFS_WORK/flood")"
grants_ok <"$ORFS_WORK/flood" || fail "a connection got fewer than 3 staging buffers: $(cat "$ORFS_WORK/flood")"
[ "$(stat_of staging_buffers)" -eq 16 ] || fail "staging_buffers: $(stat_of staging_buffers)"
grep -q "rejected: server has too many connections (reason 7)" "$ORFS_WORK/flood" ||
	fail "no total reject reason: $(cat "$ORFS_WORK/flood")"
grep -q "rejected: the server has 5 connections" "$log" || fail "orfsd did not log the total limit"
[ "$(stat_of connections_over_limit)" -ge 7 ] || fail "connections_over_limit: $(stat_of connections_over_limit)"
sleep 1
[ "$(stat_of connections)" -eq 2 ] || fail "$(stat_of connections) connections after the floods"

# The handshake deadline: silent clients are dropped, the mount is not.
out=$("$peer" -p "$ORFS_PORT" silent "$ORFS_SRV_ADDR")
ms=$(echo "$out" | sed -n 's/^disconnected after \([0-9]*\) ms$/\1/p')
[ -n "$ms" ] && [ "$ms" -ge 2000 ] && [ "$ms" -le 6000 ] ||
	fail "a client that sent nothing: $out"
note "a silent client was dropped after $ms ms"
grep -q "the client sent no request within 3 s of connecting" "$log" ||
	fail "orfsd did not log the silent client"
"$peer" -p "$ORFS_PORT" norts 8 "$ORFS_SRV_ADDR" >/dev/null &
norts=$!
sleep 6
grep -q "the client did not complete the connection within 3 s" "$log" ||
	fail "orfsd did not drop the client that never completed the connection"
[ "$(stat_of connections)" -eq 2 ] || fail "$(stat_of connections) connections with the half-open one gone"
wait $norts
[ "$(stat_of connections_handshake_timeouts)" -eq 2 ] ||
	fail "connections_handshake_timeouts: $(stat_of connections_handshake_timeouts)"

# A stalled client: disconnected, and what it held comes back.
touch "$stop"
wait $io || fail "the mount's I/O failed"
rm -f "$stop"
sync
sleep 1
free0=$(stat_of staging_buffers_free)
pinned0=$(stat_of cache_pinned_blocks)
"$peer" -p "$ORFS_PORT" stall file 25 "$ORFS_SRV_ADDR" >"$ORFS_WORK/stall" &
stall=$!
for i in $(seq 1 50); do
	grep -q "^stalled" "$ORFS_WORK/stall" && break
	sleep 0.2
done
grep -q "^stalled: 6 READs" "$ORFS_WORK/stall" || fail "stall: $(cat "$ORFS_WORK/stall")"
read -r nconn free pinned <<<"$(stat_of connections staging_buffers_free cache_pinned_blocks)"
note "stalled client: $nconn connections, $free staging buffers free (of $free0), $pinned cache blocks pinned (of $pinned0)"
[ "$nconn" -eq 3 ] || fail "the stalled client is not connected ($nconn connections)"
[ "$free" -lt "$free0" ] || fail "the stalled client holds no staging buffer"
# Meanwhile a busy mount on a loaded client (a CPU spun) is left alone.
( while [ ! -e "$stop" ]; do :; done ) &
hog=$!
t0=$(date +%s)
for r in 1 2 3 4; do
	timeout 120 cp "$ORFS_WORK/src" "$mnt/d/busy$r" ||
		fail "the busy mount's write failed (round $r)"
	timeout 120 cmp "$ORFS_WORK/src" "$mnt/d/busy$r" ||
		fail "the busy mount's read failed (round $r)"
done
note "the busy mount copied 4 x 2 MiB in $(( $(date +%s) - t0 )) s meanwhile"
deadline=$(( $(date +%s) + 20 ))
while [ "$(stat_of connections)" -ne 2 ] && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 0.5
done
touch "$stop"
wait $hog
kill $stall 2>/dev/null || true
for i in $(seq 1 50); do
	kill -0 $stall 2>/dev/null || break
	sleep 0.2
done
if kill -0 $stall 2>/dev/null; then
	fail "the stalled client does not exit: $(ps -o pid,stat,wchan:32,cmd -p $stall; cat /proc/$stall/stack)"
fi
wait $stall || true
read -r nconn free pinned stalled <<<"$(stat_of connections staging_buffers_free cache_pinned_blocks connections_stalled)"
note "after the stall: $nconn connections, $free staging buffers free, $pinned cache blocks pinned, $stalled stalled"
[ "$nconn" -eq 2 ] || fail "the stalled client was not disconnected"
[ "$free" -eq "$free0" ] || fail "its staging buffers did not come back ($free of $free0)"
[ "$pinned" -le "$pinned0" ] || fail "its cache blocks stay pinned ($pinned, $pinned0 before)"
[ "$stalled" -eq 1 ] || fail "connections_stalled is $stalled"
grep -q "has taken none of [0-9]* replies for 4 s (it posts no receive buffers); disconnecting" "$log" ||
	fail "orfsd did not log the stall"
grep -q "no answer to the disconnect; releasing the connection" "$log" ||
	fail "orfsd did not release the connection that ignored the disconnect"

# The mount, busy or idle through all of it, was never cut: no reconnect.
[ "$(orfs_sysfs "$mnt" counters reconnects)" -eq "$reconnects" ] ||
	fail "the mount reconnected ($(orfs_sysfs "$mnt" counters reconnects), $reconnects before)"
sleep 12	# idle past the handshake and stall timeouts and a keepalive
[ "$(orfs_sysfs "$mnt" counters reconnects)" -eq "$reconnects" ] || fail "the idle mount was cut"
umount "$mnt"

# A connection re-opened for an idle mount without keepalives says hello
# at once, so the handshake deadline does not cut it either.
orfs_mount "$mnt" / nconnect=1,keepalive=0
ls "$mnt/d" >/dev/null
kill -9 "$ORFSD_PID"
wait "$ORFSD_PID" 2>/dev/null || true
orfs_server_start "$exp" --control "$ctl" --handshake-timeout 3
for i in $(seq 1 50); do
	[ "$(stat_of connections)" -eq 1 ] && break
	sleep 0.2
done
[ "$(stat_of connections)" -eq 1 ] || fail "the idle mount did not reconnect"
sleep 6
[ "$(stat_of connections_handshake_timeouts)" -eq 0 ] || fail "the re-opened idle connection was dropped"
[ "$(stat_of connections)" -eq 1 ] || fail "$(stat_of connections) connections"
[ "$(cat "$mnt/d/g")" = again ] || fail "the mount does not read after the restart"
umount "$mnt"
orfs_server_stop
