#!/bin/bash
# The duplicate-request cache answers a retransmission only for the identity
# that sent the original (issue 37, defect 6): orfs-smoke -R (server/build,
# tests/server/rdma_smoke.c) shares one client id between a connection from
# the client's usual address (192.0.2.2) and one from the server's own
# (192.0.2.1, another host as far as orfsd can tell), against an orfsd that
# keeps 4 replies per owner.  The other address's replay of a CREATE is not
# answered from the cache (it runs: EEXIST), nor is a replay from the usual
# address under another uid, and neither pushes the original's reply out:
# the original's retransmission on a new connection (a reconnect, another
# port) gets it.  orfsd's drc_* counters agree.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
ctl=$ORFS_WORK/orfsd.ctl
mkdir -p "$exp"
smoke=$ORFS_TOP/server/build/orfs-smoke
[ -x "$smoke" ] || fail "no $smoke (make -C server)"
orfs_server_start "$exp" --drc-per-client 4 --control "$ctl"
out=$("$smoke" -p "$ORFS_PORT" -R "$ORFS_SRV_ADDR" "$ORFS_SRV_ADDR" 2>&1) && rc=0 || rc=$?
echo "$out" | sed 's/^/  /'
[ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok' || fail "orfs-smoke -R (exit status $rc)"
read -r hits misses clients <<<"$(orfsd_stat "$ctl" drc_hits drc_misses drc_clients)"
# Hits: E's own retransmission and A's after the reconnect; misses: the two
# replays.  Owners: A's address and E's.
[ "$hits" -eq 2 ] && [ "$misses" -eq 2 ] && [ "$clients" -eq 2 ] ||
	fail "drc_hits $hits, drc_misses $misses, drc_clients $clients; expected 2, 2, 2"
note "replays from another address or uid ran; the reconnected original got its reply" \
	"(drc_hits $hits, drc_misses $misses, $clients owners)"
orfs_server_stop
exit 0
