# Helpers for VM tests (sourced).  The VM harness has loaded rdma_rxe and
# set up rxe0 on 192.0.2.1 (server side) and rxe1 on 192.0.2.2 (client).
ORFS_TOP=${ORFS_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
ORFS_SRV_ADDR=${ORFS_SRV_ADDR:-192.0.2.1}
ORFS_PORT=${ORFS_PORT:-20050}
ORFS_WORK=${ORFS_WORK:-/tmp/orfs-test}
# The server binary (ORFS_ORFSD overrides it, e.g. to test a saved build).
ORFS_ORFSD=${ORFS_ORFSD:-$ORFS_TOP/server/orfsd}
# orfsd's default is root squash, but most tests act as root on the client
# (chown, mknod, files of any owner), so orfs_server_start passes these
# options first.  A test that wants orfsd's own defaults sets
# ORFS_SERVER_IDENT= (empty) before starting it; options given to
# orfs_server_start come later and win (--root-squash, --all-squash ...).
ORFS_SERVER_IDENT=${ORFS_SERVER_IDENT---no-root-squash}
ORFSD_PID=

fail() { echo "FAILED: $*" >&2; exit 1; }
note() { echo "  $*"; }

# Runs a command and fails the test with its output if it fails.
must() { "$@" || fail "command failed ($?): $*"; }

# expect_fail ERRTEXT CMD...: CMD must fail and print ERRTEXT.
expect_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "expected failure: $*"
	fi
	echo "$out" | grep -q -- "$want" || fail "'$*' failed, but without '$want': $out"
}

orfs_insmod() {
	modprobe rdma_cm || fail "modprobe rdma_cm"
	grep -q '^orfs ' /proc/modules || insmod "$ORFS_TOP/orfs.ko" || fail "insmod orfs.ko"
}

# orfs_server_start EXPORT [orfsd args...]: starts orfsd in the foreground
# (backgrounded) with $ORFS_SERVER_IDENT, waits until it listens.
orfs_server_start() {
	local export=$1 i
	shift
	mkdir -p "$ORFS_WORK"
	# shellcheck disable=SC2086 # ORFS_SERVER_IDENT is a list of options
	"$ORFS_ORFSD" --export "$export" --listen "$ORFS_SRV_ADDR:$ORFS_PORT" \
		--foreground $ORFS_SERVER_IDENT "$@" >>"$ORFS_WORK/orfsd.log" 2>&1 3>&- 4>&- 5>&- </dev/null &
	ORFSD_PID=$!
	for i in $(seq 1 100); do
		if rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr $ORFS_SRV_ADDR:$ORFS_PORT"; then
			return 0
		fi
		kill -0 "$ORFSD_PID" 2>/dev/null || { cat "$ORFS_WORK/orfsd.log"; fail "orfsd exited"; }
		sleep 0.1
	done
	cat "$ORFS_WORK/orfsd.log"
	fail "orfsd did not start listening"
}

orfs_server_stop() {
	[ -n "$ORFSD_PID" ] || return 0
	kill "$ORFSD_PID" 2>/dev/null
	wait "$ORFSD_PID" 2>/dev/null
	ORFSD_PID=
}

# orfsd_stat CTL KEY...: the values of statistics KEY... from one reading
# of orfsd's control socket CTL (--control), space-separated; fails if the
# socket or a key is missing (tests/vm/tools/orfsd_stats.py).
orfsd_stat() {
	python3 "$ORFS_TOP/tests/vm/tools/orfsd_stats.py" "$@"
}

# orfs_mount MNT [PATH] [OPTS]
orfs_mount() {
	local mnt=$1 path=${2:-/} opts=${3:-}
	mkdir -p "$mnt"
	mount -t orfs ${opts:+-o "$opts"} "$ORFS_SRV_ADDR:$path" "$mnt"
}

# orfs_sysfs MNT FILE NAME: the value of NAME in the mount's
# /sys/fs/orfs/<dev>/FILE ("requests": by opcode, "counters"), empty if none.
# The device comes from mountinfo (the topmost mount on MNT), not from a
# stat of MNT, which would send a GETATTR the test may be counting or
# failing on purpose; stat is the fallback for a path not listed there.
orfs_sysfs() {
	local dev
	dev=$(awk -v m="$1" '$5 == m { d = $3 } END { print d }' /proc/self/mountinfo)
	[ -n "$dev" ] || dev=$(stat -c '%Hd:%Ld' "$1")
	awk -v k="$3" '$1 == k { print $2 }' "/sys/fs/orfs/$dev/$2"
}

# Unmounts every ORFS mount (while orfsd still runs), stops orfsd, then
# unmounts whatever else the test mounted under $ORFS_WORK, and unloads the
# module.
orfs_cleanup() {
	local m ok=0
	# A test that failed may leave a hard mount whose server is gone: a
	# plain umount would wait for it forever, so it gets a minute.
	for m in $(awk '$3 == "orfs" { print $2 }' /proc/mounts | tac); do
		timeout -k 5 60 umount "$m" || umount -f "$m" || ok=1
	done
	pkill -x orfsd 2>/dev/null && sleep 0.2
	pkill -9 -x orfsd 2>/dev/null
	for m in $(awk -v w="$ORFS_WORK" 'index($2, w) == 1 { print $2 }' /proc/mounts | tac); do
		umount "$m" || ok=1
	done
	if grep -q '^orfs ' /proc/modules; then
		rmmod orfs || ok=1
	fi
	rm -rf "$ORFS_WORK"
	return $ok
}

# dmesg_mark / dmesg_check: fail on kernel warnings logged in between.
dmesg_mark() { ORFS_DMESG_LINES=$(dmesg | wc -l); }
dmesg_check() {
	local bad
	bad=$(dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" |
		grep -E 'WARNING:|BUG:|BUG |Oops|general protection|scheduling while atomic|unreferenced object|still has objects|leak|Call Trace|refcount_t:|list_(add|del) corruption')
	if [ -n "$bad" ]; then
		echo "kernel log shows a problem:"
		dmesg | tail -n +"$((ORFS_DMESG_LINES + 1))" | tail -n 60
		return 1
	fi
	return 0
}
