#!/bin/bash
# ORFS_IOC_XFER (fs/bench.c), the benchmark of the transport's data
# primitives: READ and WRITE requests between kernel pages and the server.
# What a WRITE run stores is the documented pattern, on the server; a READ
# run with verification finds it, and fails when the server's bytes differ;
# the bytes move by client RDMA (primitives 2 and 3) above the inline
# threshold and inline below it, with no registration; cached pages of the
# range are dropped; bad arguments get their errno.
. "$(dirname "$0")/lib.sh"
set -e
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
bin=$ORFS_WORK/xferbench
mkdir -p "$exp"
gcc -O2 -Wall -I"$ORFS_TOP/include" -o "$bin" "$ORFS_TOP/tools/bench/xferbench.c" ||
	fail "cannot build xferbench"
orfs_insmod
orfs_server_start "$exp"
orfs_mount "$mnt"
ctr() { orfs_sysfs "$mnt" counters "$1"; }

# pattern_ok FILE LEN: every LEN-byte chunk of FILE holds the pattern.
pattern_ok() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
path, ln = sys.argv[1], int(sys.argv[2])
magic = 0x6f7266735f786672
want = b"".join(struct.pack("<Q", magic ^ p) for p in range(0, ln, 8))
data = open(path, "rb").read()
if not data or len(data) % ln:
    sys.exit("%s: %d bytes, not a multiple of %d" % (path, len(data), ln))
for off in range(0, len(data), ln):
    if data[off:off + ln] != want:
        sys.exit("%s: the chunk at %d is not the pattern" % (path, off))
PY
}

# 1 MiB requests, 4 in flight, over 4 MiB: client RDMA WRITE into staging
# buffers, client RDMA READ from the server's cache blocks.
w0=$(ctr bytes_client_rdma_write)
out=$(must "$bin" write "$mnt/big" 1m 16 4 4m)
note "write: $out"
[ "$(stat -c %s "$exp/big")" = 4194304 ] || fail "the server's file is not 4 MiB"
pattern_ok "$exp/big" 1048576 || fail "the server's file does not hold the pattern"
[ $(( $(ctr bytes_client_rdma_write) - w0 )) -ge $((16 << 20)) ] ||
	fail "the 1 MiB WRITEs did not move by client RDMA WRITE"
[ "$(stat -c %s "$mnt/big")" = 4194304 ] || fail "the client's size is not 4 MiB"
r0=$(ctr bytes_client_rdma_read)
out=$(must "$bin" verify "$mnt/big" 1m 32 4 4m)
note "verify: $out"
[ $(( $(ctr bytes_client_rdma_read) - r0 )) -ge $((32 << 20)) ] ||
	fail "the 1 MiB READs did not move by client RDMA READ"
[ "$(ctr mr_registrations)" -eq 0 ] || fail "the primitives registered memory"

# A byte changed on the server: verification fails, and says so.
printf 'X' | dd of="$exp/big" bs=1 seek=3000000 conv=notrunc status=none
expect_fail "Invalid or incomplete multibyte" "$bin" verify "$mnt/big" 1m 4 1 4m
note "a changed byte on the server fails the verification (EILSEQ)"

# At the inline threshold (4 KiB): inline data both ways.
i0=$(ctr bytes_inline_out)
must "$bin" write "$mnt/small" 4k 64 8 64k >/dev/null
must "$bin" verify "$mnt/small" 4k 64 8 64k >/dev/null
pattern_ok "$exp/small" 4096 || fail "4 KiB requests: the server's file does not hold the pattern"
[ $(( $(ctr bytes_inline_out) - i0 )) -ge $((64 << 12)) ] ||
	fail "the 4 KiB WRITEs did not go inline"

# Cached pages of the range are dropped: a buffered reader sees the run's
# bytes, not the ones it had read before.
head -c 1048576 /dev/urandom >"$mnt/cached"
cat "$mnt/cached" >/dev/null
must "$bin" write "$mnt/cached" 1m 1 1 >/dev/null
pattern_ok "$mnt/cached" 1048576 || fail "stale cached pages after a WRITE run"

# Bad arguments.
expect_fail "Invalid argument" "$bin" read "$mnt/big" 1000 1 1
expect_fail "Invalid argument" "$bin" read "$mnt/big" 2m 1 1
expect_fail "Invalid argument" "$bin" read "$mnt/big" 1m 1 0
expect_fail "Invalid argument" "$bin" read "$mnt/big" 1m 1 17
expect_fail "Invalid argument" "$bin" read "$mnt/big" 1m 1 1 1536k
expect_fail "No data available" "$bin" read "$mnt/big" 1m 8 2 8m
expect_fail "Inappropriate ioctl" "$bin" read "$ORFS_WORK/xferbench" 4k 1 1
expect_fail "Operation not permitted" setpriv --bounding-set=-sys_admin \
	"$bin" read "$mnt/big" 1m 1 1
python3 - "$mnt/big" <<'PY' || fail "ORFS_IOC_XFER on a read-only file, or an unknown ioctl"
import errno, fcntl, os, struct, sys
IOC = (3 << 30) | (56 << 16) | (0xf5 << 8) | 1          # _IOWR(0xf5, 1, 56 bytes)
def call(fd, cmd, op):
    buf = bytearray(struct.pack("<6I4Q", op, 0, 4096, 1, 1, 0, 0, 0, 0, 0))
    try:
        fcntl.ioctl(fd, cmd, buf)
    except OSError as e:
        return e.errno
    return 0
fd = os.open(sys.argv[1], os.O_RDONLY)
assert call(fd, IOC, 2) == errno.EBADF, "WRITE on a read-only file"
assert call(fd, IOC, 3) == errno.EINVAL, "unknown operation"
assert call(fd, IOC + 1, 1) == errno.ENOTTY, "unknown ioctl"
assert call(fd, IOC, 1) == 0, "a valid READ"
fa = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
assert call(fa, IOC, 2) == errno.EINVAL, "WRITE on a file open with O_APPEND"
PY
note "bad arguments: EINVAL (also O_APPEND), ENODATA, ENOTTY, EPERM, EBADF"
exit 0
