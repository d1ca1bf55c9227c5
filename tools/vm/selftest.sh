#!/bin/bash
# Self-test of the VM harness, run inside the guest:
#   tools/vm/run tools/vm/selftest.sh
# Checks the environment, the routing over the veth pair, rping (rdma_cm) and
# perftest (verbs) between rxe1 and rxe0, that lo carried no traffic and that
# rxe counted no retries; writes a summary CSV into $ORFS_VM_SHARE.
set -euo pipefail

fail() { echo "selftest: FAIL: $*" >&2; exit 1; }
counter() { cat "/sys/class/net/$1/statistics/tx_bytes"; }
hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
retries() { echo $(($(hw rxe0 completer_retry_err) + $(hw rxe1 completer_retry_err) +
	$(hw rxe0 duplicate_request) + $(hw rxe1 duplicate_request))); }

[ "${ORFS_VM:-}" = 1 ] || fail "not inside the VM (ORFS_VM unset)"
[ "$(hostname)" = orfs-vm ] || fail "hostname $(hostname)"
[ -w "$ORFS_VM_SHARE" ] || fail "share $ORFS_VM_SHARE not writable"
route=$(ip route get "$ORFS_SRV_ADDR" from "$ORFS_CLI_ADDR")
[[ $route == *"dev v1"* ]] || fail "route: $route"
route=$(ip route get "$ORFS_CLI_ADDR" from "$ORFS_SRV_ADDR")
[[ $route == *"dev v0"* ]] || fail "route: $route"

lo0=$(counter lo) v10=$(counter v1) r0=$(retries)

# rdma_cm: rping server on rxe0's address, client routed out of v1 (rxe1).
rping -s -a "$ORFS_SRV_ADDR" -C 5 >/dev/null 2>&1 &
sleep 1
rping -c -a "$ORFS_SRV_ADDR" -C 5 -v >/dev/null 2>&1 || fail "rping"
wait $! || fail "rping server"

# verbs: latency and bandwidth, server on rxe0, client on rxe1.
perf() { # perf TOOL ARGS...: prints the client's result line
	"$1" -d rxe0 -F "${@:2}" >/dev/null 2>&1 &
	sleep 1
	"$1" -d rxe1 -F "${@:2}" "$ORFS_SRV_ADDR" | awk '$1 ~ /^[0-9]+$/ && NF >= 5 { line = $0 } END { print line }'
	wait $! || fail "$1 server"
}
lat=$(perf ib_send_lat -n 200) || fail "ib_send_lat"
bw=$(perf ib_write_bw -n 500 -s 65536) || fail "ib_write_bw"
echo "ib_send_lat: $lat"
echo "ib_write_bw: $bw"

lo_delta=$(($(counter lo) - lo0)) v1_delta=$(($(counter v1) - v10)) r_delta=$(($(retries) - r0))
echo "lo tx +$lo_delta bytes, v1 tx +$v1_delta bytes, rxe retries/duplicates +$r_delta"
[ "$lo_delta" -eq 0 ] || fail "traffic went over lo"
[ "$v1_delta" -gt 30000000 ] || fail "too little traffic on v1"

read -r _ _ _ _ lat_typ _ <<<"$lat"
read -r _ _ _ bw_avg _ <<<"$bw"
{
	echo "lat_typical_us,write_bw_MBps,lo_bytes,v1_bytes,retries"
	echo "$lat_typ,$bw_avg,$lo_delta,$v1_delta,$r_delta"
} >"$ORFS_VM_SHARE/vm-selftest.csv"
echo "selftest: OK"
