#!/bin/bash
# Mount failures: each gives the right errno and a clear message, and
# leaves nothing behind.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
mkdir -p "$exp/sub" "$mnt"
echo x >"$exp/plain"

orfs_insmod

# Nobody listening on that port: refused, and fast.
start=$(date +%s)
expect_fail "" mount -t orfs -o port=20099 "$ORFS_SRV_ADDR:/" "$mnt"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "refusal took too long"
dmesg | tail -n 5 | grep -q "orfs: connection rejected\|orfs: cannot connect" ||
	fail "no kernel log line for the refused connection"

orfs_server_start "$exp"

# Bad options: EINVAL before anything touches the network.
# One bad value of each option, plus unknown options and wrong types; each
# must leave a kernel log line naming the option.
for o in port=0 port=70000 port=abc inline=100 inline=1000000 credits=0 credits=100000 \
	 timeo=0 timeo=x actimeo=99999 acregmin=4000 acregmax=-1 acdirmin=x acdirmax=99999 \
	 rsize=100 rsize=8000000 wsize=5000 cto=1 nocto=yes writebehind=1 openread=1 rdirplus=1 statahead=1000001 statahead=-1 nconnect=0 nconnect=17 retrans=0 \
	 keepalive=99999 busy_poll=1001 busy_poll=x busy_poll=autox busy_poll=-5 soft=1 hard=yes bogus=1; do
	expect_fail "" mount -t orfs -o "$o" "$ORFS_SRV_ADDR:/" "$mnt"
	key=${o%%=*}
	dmesg | tail -n 2 | grep -q "orfs: .*$key" || fail "no kernel log line for $o"
done
expect_fail "" mount -t orfs "nocolon" "$mnt"
expect_fail "" mount -t orfs "not-an-ip:/" "$mnt"
expect_fail "" mount -t orfs "$ORFS_SRV_ADDR:relative" "$mnt"

# Paths the server refuses.
# mount(8) words ENOENT as "does not exist".
expect_fail "does not exist" mount -t orfs "$ORFS_SRV_ADDR:/missing" "$mnt"
dmesg | tail -n 3 | grep -q "server refused to mount /missing: error -2" ||
	fail "no kernel log line for the missing path"
expect_fail "Not a directory" mount -t orfs "$ORFS_SRV_ADDR:/plain" "$mnt"
expect_fail "" mount -t orfs "$ORFS_SRV_ADDR:/../.." "$mnt"
mountpoint -q "$mnt" && fail "something got mounted"

# Options in effect show in /proc/mounts; the helper resolves host names.
expect_fail "" mount -t orfs -o acregmin=10,acregmax=5 "$ORFS_SRV_ADDR:/" "$mnt"
dmesg | tail -n 1 | grep -q "acregmin=10 is above acregmax=5" || fail "no log for acregmin > acregmax"
orfs_mount "$mnt" / nconnect=2,soft,timeo=20,retrans=4,actimeo=7,keepalive=0,nocto,rsize=65536
opts() { grep " $mnt orfs " /proc/mounts; }
for want in nconnect=2 soft timeo=20 retrans=4 keepalive=0 nocto rsize=65536 wsize=1048576 statahead=16384 \
	    busy_poll=auto acregmin=7 acregmax=7 acdirmin=7 acdirmax=7; do
	opts | grep -q "[ ,]$want[, ]" || fail "option $want not shown: $(opts)"
done
# The readahead window follows rsize; the BDI is named after the mount's
# device number, where an admin can change the window.
bdi=/sys/class/bdi/orfs-$(mountpoint -d "$mnt")
[ -e "$bdi/read_ahead_kb" ] || fail "no $bdi: $(ls /sys/class/bdi)"
ra=$(cat "$bdi/read_ahead_kb")
[ "$ra" = 64 ] || fail "readahead window ${ra} KiB, want 64 (rsize=65536)"

# busy_poll=auto (the default): small requests' reply times are sampled
# (srtt_us), and a caller spins for 1.5 x that, unless that would pass
# 1000 us; connections shows both.
dev=$(mountpoint -d "$mnt")
spins() {
	echo $(( $(orfs_sysfs "$mnt" counters poll_hits) + $(orfs_sysfs "$mnt" counters poll_misses) ))
}
conn_field() { awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' \
	"/sys/fs/orfs/$dev/connections"; }
echo 20 >"/sys/fs/orfs/$dev/ping"
srtt=$(conn_field srtt_us | sort -n | tail -n 1)
spin=$(conn_field spin_us | sort -n | tail -n 1)
[ "${srtt:-0}" -gt 0 ] || fail "busy_poll=auto: no reply time sampled: $(cat "/sys/fs/orfs/$dev/connections")"
s0=$(spins)
echo 20 >"/sys/fs/orfs/$dev/ping"
s1=$(spins)
if [ "$spin" -gt 0 ]; then
	[ "$spin" -le 1000 ] || fail "busy_poll=auto: spins $spin us, more than 1000"
	[ "$s1" -gt "$s0" ] || fail "busy_poll=auto, spin_us $spin: 20 pings did not spin"
else
	# A machine too slow for it: auto must be sleeping for the right
	# reason (it may start spinning during the pings, as srtt comes down).
	[ "$srtt" -gt 666 ] || fail "busy_poll=auto: srtt $srtt us but no spin"
fi
echo "busy_poll=auto: srtt ${srtt} us, spin ${spin} us, $((s1 - s0)) spins for 20 pings"
mount -o remount,busy_poll=0 "$mnt"
opts | grep -q ",busy_poll=0," || fail "busy_poll=0 not shown: $(opts)"
s0=$(spins)
echo 20 >"/sys/fs/orfs/$dev/ping"
[ "$(spins)" = "$s0" ] || fail "busy_poll=0: pings spun"
[ "$(conn_field spin_us | sort -n | tail -n 1)" = 0 ] || fail "busy_poll=0: spin_us not 0"

# Remount: caching and timeouts change; the connection's shape cannot.
mount -o remount,acregmax=30,hard,timeo=50,cto,busy_poll=40,statahead=64 "$mnt"
for want in acregmin=7 acregmax=30 hard timeo=50 cto nconnect=2 busy_poll=40 statahead=64; do
	opts | grep -q "[ ,]$want[, ]" || fail "after remount, $want not shown: $(opts)"
done
# busy_poll now applies to the live connection: waits spin first.
dev=$(mountpoint -d "$mnt")
echo 20 >"/sys/fs/orfs/$dev/ping"	# 20 NULL round trips
spins=$(awk '$1 == "poll_hits" || $1 == "poll_misses" { n += $2 } END { print n + 0 }' \
	"/sys/fs/orfs/$dev/counters")
[ "$spins" -gt 0 ] || fail "busy_poll=40 after remount: no request spun"
expect_fail "" mount -o remount,port=1 "$mnt"
dmesg | tail -n 1 | grep -q "cannot change on remount" || fail "no log for a refused remount"
opts | grep -q ",port=$ORFS_PORT," || fail "port changed"
umount "$mnt"
echo "$ORFS_SRV_ADDR orfs-server.test" >>/etc/hosts
"$ORFS_TOP/tools/mount.orfs" orfs-server.test:/ "$mnt" -o port=$ORFS_PORT
grep -q " $mnt orfs .*addr=$ORFS_SRV_ADDR," /proc/mounts || fail "mount.orfs did not resolve the name"
umount "$mnt"

# A sub-directory of the export mounts, and sees only itself.
orfs_mount "$mnt" /sub
[ -z "$(ls -A "$mnt")" ] || fail "sub-directory mount is not empty"
umount "$mnt"
exit 0
