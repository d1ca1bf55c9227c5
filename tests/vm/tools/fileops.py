#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""File features of the buffered I/O issue, run on an ORFS mount and on a
local directory of the file system the server exports, and compared
(tests/vm/t-fileops.sh).

  fileops.py compare ORFS_DIR LOCAL_DIR
      sparse files and their SEEK_DATA/SEEK_HOLE maps (with dirty pages
      that only the client has), fallocate modes (size, st_blocks, maps,
      contents, with clean cached and dirty pages in the range),
      copy_file_range (contents, errors), data past 4 GiB.  Every result
      of ORFS must be the local one; contents are also checked against
      what was written.
  fileops.py refused ORFS_DIR SYSFS_DIR
      modes ORFS refuses without asking the server: EOPNOTSUPP, and no
      ALLOCATE request counted.
  fileops.py bigcopy ORFS_DIR EXPORT_DIR SYSFS_DIR MiB
      copy_file_range and cp of a large file: done by the server (the
      per-mount byte counters barely move), contents right (compared on
      the server's side, which does not cross the network either).
  fileops.py crossmount ORFS_DIR ORFS2_DIR SYSFS_DIR SYSFS2_DIR
      copy_file_range between two mounts: the VFS's splice copy, data
      through the client; and ORFS to a local file.
  fileops.py seekend ORFS2_DIR EXPORT_DIR
      SEEK_END revalidates a size the server changed (ORFS2 has actimeo=0).
  fileops.py big-write DIR / big-verify DIR
      data at 5 GiB and 17 GiB, written, then (after a remount) read back.
  fileops.py offload ORFS_DIR ORFS2_DIR EXPORT_DIR CTL
      a long fallocate (tmpfs zeroing hundreds of MiB) does not stop the
      server: while its ALLOCATE is in flight, a READ through the second
      mount is served (orfsd's statistics over its control socket CTL).
"""
import ctypes
import errno
import hashlib
import os
import random
import subprocess
import sys
import time

import orfsd_stats    # beside this file

G = 1 << 30
M = 1 << 20
KEEP, PUNCH, NO_HIDE_STALE, COLLAPSE, ZERO, INSERT, UNSHARE = (
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40)

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64,
                           ctypes.c_int64]
libc.fallocate.restype = ctypes.c_int

_B = random.Random(20250726).randbytes(M)


def pat(off, n):
    """The test pattern: @n bytes as they belong at file offset @off."""
    out = bytearray()
    while n:
        i = off % len(_B)
        k = min(n, len(_B) - i)
        out += _B[i:i + k]
        off += k
        n -= k
    return bytes(out)


def falloc(fd, mode, off, ln):
    """fallocate(2): 0 or the errno."""
    return 0 if libc.fallocate(fd, mode, off, ln) == 0 else ctypes.get_errno()


def err_of(fn, *a):
    """fn(*a), or -errno if it raises OSError."""
    try:
        return fn(*a)
    except OSError as e:
        return -e.errno


def dmap(fd):
    """The data map: [(data, hole), ...] walked with SEEK_DATA/SEEK_HOLE."""
    m, pos = [], 0
    while True:
        d = err_of(os.lseek, fd, pos, os.SEEK_DATA)
        if d == -errno.ENXIO:
            return m
        assert d >= pos, (d, pos)
        h = os.lseek(fd, d, os.SEEK_HOLE)
        assert h > d, (d, h)
        m.append((d, h))
        pos = h


def probes(fd, offs):
    return [(o, err_of(os.lseek, fd, o, os.SEEK_DATA),
             err_of(os.lseek, fd, o, os.SEEK_HOLE)) for o in offs]


def check_pattern(fd, off, n, zero_from=None, zero_to=None):
    """@n bytes at @off read back as the pattern, zeros in [from, to)."""
    got = os.pread(fd, n, off)
    want = bytearray(pat(off, n))
    if zero_from is not None:
        a, b = max(zero_from, off), min(zero_to, off + n)
        if a < b:
            want[a - off:b - off] = bytes(b - a)
    assert len(got) == n, (off, n, len(got))
    if got != want:
        bad = next(i for i in range(n) if got[i] != want[i])
        raise AssertionError("byte %d differs: %#x, want %#x"
                             % (off + bad, got[bad], want[bad]))


def digest(fd, extra=()):
    """Size, map and the bytes of the data regions and of @extra ranges."""
    st = os.fstat(fd)
    h = hashlib.sha256()
    m = dmap(fd)
    for a, b in list(m) + list(extra):
        b = min(b, st.st_size)
        pos = a
        while pos < b:
            k = min(b - pos, 4 * M)
            h.update(os.pread(fd, k, pos))
            pos += k
    return (st.st_size, m, h.hexdigest())


def cfr_all(src, dst, n, soff, doff):
    """copy_file_range until @n bytes are done or the source ends."""
    done = 0
    while done < n:
        k = os.copy_file_range(src, dst, n - done, soff + done, doff + done)
        if k == 0:
            break
        done += k
    return done


def drop_caches():
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def uncache(fd, also=None):
    """Take the pages of @fd, and of the file at path @also, out of the
    page cache.  drop_caches alone can miss a page that was just read: a
    page still in a per-CPU LRU batch holds a reference, and invalidation
    skips it.  POSIX_FADV_DONTNEED drains those batches on every CPU and
    tries again."""
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    if also is not None:
        f = os.open(also, os.O_RDONLY)
        try:
            os.posix_fadvise(f, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(f)
    drop_caches()


def newfile(path):
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)


# ---- compared scenarios: each returns what it saw, on either side ----

def sc_sparse(d):
    obs = []
    fd = newfile(d + "/sparse")
    os.pwrite(fd, pat(0, 4096), 0)
    os.pwrite(fd, pat(M, 65536), M)
    os.pwrite(fd, pat(5 * G + 100, 5000), 5 * G + 100)
    os.pwrite(fd, pat(17 * G, 100), 17 * G)
    # No fsync: ORFS has all this only in the client's page cache.
    obs.append(("map", dmap(fd)))
    offs = [0, 1, 4095, 4096, 65536, M - 1, M, M + 65535, M + 65536,
            5 * G, 5 * G + 100, 5 * G + 5099, 5 * G + 8192, 16 * G,
            17 * G, 17 * G + 99, 17 * G + 100, 17 * G + 4096, 18 * G]
    obs.append(("probes", probes(fd, offs)))
    obs.append(("size", os.fstat(fd).st_size))
    # Dirty again, below data the server already has.
    os.pwrite(fd, pat(9 * M + 10, 10), 9 * M + 10)
    obs.append(("dirty-data", err_of(os.lseek, fd, 2 * M, os.SEEK_DATA)))
    os.ftruncate(fd, 17 * G + M)
    obs.append(("map-extended", dmap(fd)))
    os.fsync(fd)
    obs.append(("blocks", os.fstat(fd).st_blocks))
    check_pattern(fd, 0, 4096)
    check_pattern(fd, M, 65536)
    check_pattern(fd, 9 * M + 10, 10)
    check_pattern(fd, 5 * G + 100, 5000)
    check_pattern(fd, 17 * G, 100)
    assert os.pread(fd, 100, 17 * G + 100) == bytes(100)
    os.close(fd)

    # A new file whose data only the client has: the server's file is
    # empty, the answer must not be ENXIO.
    fd = newfile(d + "/fresh")
    os.pwrite(fd, pat(0, 8192), 0)
    obs.append(("fresh", probes(fd, [0, 100, 8191, 8192])))
    os.close(fd)
    fd = newfile(d + "/empty")
    obs.append(("empty", probes(fd, [0, 1]), dmap(fd)))
    os.close(fd)
    return obs


# name, writes [(off, len)], sync before, mode, off, len, zeroed range or None
FALLOC_CASES = [
    ("alloc-extend", [(0, 10000)], True, 0, 8192, 100000, None),
    ("alloc-keep", [(0, 10000)], True, KEEP, 0, M, None),
    ("alloc-keep-past-eof", [(0, 4096)], True, KEEP, 65536, 65536, None),
    ("punch-cached", [(0, 131072)], True, PUNCH | KEEP, 4096, 16384,
     (4096, 20480)),
    ("punch-dirty-unaligned", [(0, 131072)], False, PUNCH | KEEP, 1000,
     10000, (1000, 11000)),
    ("punch-dirty-edges", [(0, 65536)], False, PUNCH | KEEP, 8192, 40000,
     (8192, 48192)),
    ("punch-past-eof", [(0, 5000)], True, PUNCH | KEEP, 8192, 4096, None),
    ("punch-all", [(0, 65536)], True, PUNCH | KEEP, 0, 65536, (0, 65536)),
    ("zero-extend", [(0, 65536)], False, ZERO, 3000, 100000, (3000, 65536)),
    ("zero-keep", [(0, 65536)], True, ZERO | KEEP, 60000, 100000,
     (60000, 65536)),
    ("alloc-5g", [(0, 4096)], True, KEEP, 5 * G, 65536, None),
    ("alloc-17g", [(0, 4096)], True, 0, 17 * G, 4096, None),
    ("punch-5g", [(5 * G, 65536)], False, PUNCH | KEEP, 5 * G + 4096, 8192,
     (5 * G + 4096, 5 * G + 12288)),
    ("zero-5g", [(5 * G, 65536)], True, ZERO | KEEP, 5 * G + 100, 1000,
     (5 * G + 100, 5 * G + 1100)),
]


def sc_falloc(d, srv=None):
    obs = []
    for name, writes, sync, mode, off, ln, zeroed in FALLOC_CASES:
        fd = newfile(d + "/fa-" + name)
        for a, n in writes:
            os.pwrite(fd, pat(a, n), a)
        if sync:
            os.fsync(fd)
            for a, n in writes:       # clean pages in the cache
                check_pattern(fd, a, n)
        e = falloc(fd, mode, off, ln)
        if e == 0:
            # Read before anything else: stale cached pages would show.
            for a, n in writes:
                if zeroed:
                    check_pattern(fd, a, n, *zeroed)
                else:
                    check_pattern(fd, a, n)
        st = os.fstat(fd)
        size_now = st.st_size
        os.fsync(fd)
        # ext4 reports an unwritten extent (allocated, zeroed) as data
        # where the page cache holds pages of it, as a hole elsewhere:
        # what is cached must not decide the map, on either side (the
        # server's copy, @srv, is in this same kernel).
        uncache(fd, srv and srv + "/fa-" + name)
        st = os.fstat(fd)
        obs.append((name, e, size_now, st.st_size, st.st_blocks,
                    digest(fd, [(off, min(off + ln, off + 8 * M))])))
        os.close(fd)
    return obs


def sc_copy(d):
    obs = []
    src = newfile(d + "/c-src")
    dst = newfile(d + "/c-dst")
    os.pwrite(src, pat(0, 300000), 0)          # dirty, not yet written
    n = cfr_all(src, dst, 1 << 24, 0, 0)
    obs.append(("all", n, digest(dst)))
    check_pattern(dst, 0, 300000)
    # The destination's pages are cached now; overwrite some by copy.
    os.pwrite(src, pat(5000, 20000), 5000)     # same bytes, dirty
    n = cfr_all(src, dst, 20000, 1000, 7000)
    got = os.pread(dst, 40000, 0)
    want = bytearray(pat(0, 40000))
    want[7000:27000] = pat(1000, 20000)
    assert got == want, "copy did not replace cached destination pages"
    obs.append(("over-cached", n, digest(dst)))
    # Past the destination's end, a hole before.
    n = cfr_all(src, dst, 50000, 100, 3 * M + 5)
    obs.append(("past-end", n, digest(dst)))
    # At and past the source's end.
    obs.append(("src-eof", os.copy_file_range(src, dst, 4096, 300000, 0)))
    obs.append(("src-far", os.copy_file_range(src, dst, 4096, 5 * G, 0)))
    # Within one file: apart, then overlapping.
    obs.append(("same-apart", cfr_all(src, src, 1000, 0, 400000),
                digest(src)))
    obs.append(("same-overlap",
                err_of(os.copy_file_range, src, src, 1000, 0, 500)))
    os.close(src)
    os.close(dst)
    # From a hole below the client's size, where only a dirty page further
    # on makes the source that long: the server must see that page too.
    src = newfile(d + "/c-hole")
    dst = newfile(d + "/c-hole-dst")
    os.pwrite(src, pat(0, 4096), 0)
    os.fsync(src)
    os.pwrite(src, pat(M, 4096), M)            # dirty, extends the file
    n = cfr_all(src, dst, 8192, 8192, 0)
    obs.append(("hole-dirty-end", n, digest(dst)))
    os.close(src)
    os.close(dst)
    # Beyond 4 GiB on both sides.
    src = newfile(d + "/c-5g")
    dst = newfile(d + "/c-17g")
    os.pwrite(src, pat(5 * G, 65536), 5 * G)
    os.fsync(src)
    n = cfr_all(src, dst, 65536, 5 * G, 17 * G)
    obs.append(("beyond-4g", n, os.fstat(dst).st_size))
    got = os.pread(dst, 65536, 17 * G)
    assert got == pat(5 * G, 65536), "copied data past 17 GiB differs"
    os.fsync(dst)
    obs.append(("beyond-4g-map", dmap(dst)))
    os.close(src)
    os.close(dst)
    return obs


def sc_dirty_stat(d):
    """stat of a file whose data only the client's page cache has.

    Size, blocks and the data map must be what the local file system
    shows at once, without an fsync: stat writes the dirty pages back
    and asks the server (write-back's WRITE replies may come in any
    order).
    """
    obs = []
    fd = newfile(d + "/dirty-stat")
    # At most four extents: a fifth costs ext4 an index block, which its
    # delayed allocation does not count before write-back.
    for i in range(3):
        os.pwrite(fd, pat(i * 3 * 65536, 65536), i * 3 * 65536)
        st = os.fstat(fd)
        obs.append(("extent", i, st.st_size, st.st_blocks))
    os.pwrite(fd, pat(5 * G, 12345), 5 * G)
    st = os.fstat(fd)
    obs.append(("far", st.st_size, st.st_blocks, dmap(fd)))
    os.close(fd)
    return obs


def compare(orfs, local, export=None):
    """Run the scenarios on the ORFS mount @orfs and in the local directory
    @local; @export is the directory orfsd exports as @orfs (the server's
    copies, whose pages some scenarios drop)."""
    for sc in (sc_sparse, sc_falloc, sc_copy, sc_dirty_stat):
        a = sc(orfs, export) if sc is sc_falloc else sc(orfs)
        b = sc(local)
        if a != b:
            for x, y in zip(a, b):
                if x != y:
                    print("ORFS :", x)
                    print("local:", y)
            raise AssertionError("%s: ORFS and the local file system differ"
                                 % sc.__name__)
        print("  %s: %d observations agree" % (sc.__name__, len(a)))


# ---- ORFS only ----

def counters(sysfs):
    c = {}
    with open(sysfs + "/counters") as f:
        for line in f:
            k, v = line.split()
            c[k] = int(v)
    with open(sysfs + "/requests") as f:
        for line in f:
            k, v = line.split()
            c["req_" + k] = c.get("req_" + k, 0) + int(v)
    return c


def moved(a, b):
    """File bytes moved over the network between two counter snapshots."""
    keys = ("bytes_inline_out", "bytes_inline_in", "bytes_client_rdma_read",
            "bytes_client_rdma_write", "bytes_server_rdma")
    return sum(b[k] - a[k] for k in keys)


def refused(orfs, sysfs):
    fd = newfile(orfs + "/refused")
    os.pwrite(fd, pat(0, 65536), 0)
    os.fsync(fd)
    before = counters(sysfs)
    for mode in (COLLAPSE, INSERT, UNSHARE, UNSHARE | KEEP, PUNCH,
                 NO_HIDE_STALE, PUNCH | NO_HIDE_STALE | KEEP):
        e = falloc(fd, mode, 4096, 4096)
        assert e == errno.EOPNOTSUPP, (mode, errno.errorcode.get(e, e))
    after = counters(sysfs)
    assert after["req_allocate"] == before["req_allocate"], \
        "a refused mode reached the server"
    check_pattern(fd, 0, 65536)
    os.close(fd)
    print("  refused modes: EOPNOTSUPP, %d ALLOCATE requests sent"
          % (after["req_allocate"] - before["req_allocate"]))


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(4 * M)
            if not b:
                return h.hexdigest()
            h.update(b)


def bigcopy(orfs, export, sysfs, mib):
    size = mib * M
    # Made on the server's side: the client never moves these bytes.
    with open(export + "/big-src", "wb") as f:
        for i in range(mib):
            f.write(os.urandom(M))
    want = sha(export + "/big-src")
    src = os.open(orfs + "/big-src", os.O_RDONLY)
    dst = newfile(orfs + "/big-dst")
    before = counters(sysfs)
    done = 0
    while done < size:
        n = os.copy_file_range(src, dst, size - done)
        assert n > 0, n
        done += n
    after = counters(sysfs)
    os.close(src)
    os.close(dst)
    net = moved(before, after)
    ncopy = after["req_copy"] - before["req_copy"]
    print("  copy_file_range of %d MiB: %d COPY requests, %d bytes of file "
          "data over the network" % (mib, ncopy, net))
    assert ncopy >= size // (16 * M), ncopy
    assert net < 64 * 1024, "the data crossed the network (%d bytes)" % net
    assert os.stat(orfs + "/big-dst").st_size == size
    assert sha(export + "/big-dst") == want, "copied data differs"

    # cp (coreutils 9.1 uses copy_file_range).
    before = counters(sysfs)
    rc = os.system("cp '%s/big-src' '%s/big-cp'" % (orfs, orfs))
    after = counters(sysfs)
    assert rc == 0, rc
    net = moved(before, after)
    ncopy = after["req_copy"] - before["req_copy"]
    print("  cp of %d MiB: %d COPY requests, %d bytes over the network"
          % (mib, ncopy, net))
    assert ncopy >= 1 and net < 64 * 1024, (ncopy, net)
    assert sha(export + "/big-cp") == want, "cp's copy differs"


def crossmount(orfs, orfs2, sysfs, sysfs2):
    fd = newfile(orfs + "/x-src")
    os.pwrite(fd, pat(0, 3 * M + 17), 0)
    os.close(fd)
    drop_caches()                     # the source's pages come from the server
    src = os.open(orfs + "/x-src", os.O_RDONLY)
    dst = newfile(orfs2 + "/x-dst")
    before, before2 = counters(sysfs), counters(sysfs2)
    done = 0
    while True:
        n = os.copy_file_range(src, dst, 8 * M)
        if n == 0:
            break
        done += n
    os.close(src)
    os.close(dst)
    after, after2 = counters(sysfs), counters(sysfs2)
    assert done == 3 * M + 17, done
    assert after["req_copy"] == before["req_copy"], "COPY across mounts"
    assert after2["req_copy"] == before2["req_copy"], "COPY across mounts"
    # The splice copy reads through one mount and writes through the other.
    assert moved(before, after) >= done and moved(before2, after2) >= done, \
        (moved(before, after), moved(before2, after2))
    fd = os.open(orfs + "/x-dst", os.O_RDONLY)
    check_pattern(fd, 0, 3 * M + 17)
    os.close(fd)
    # ORFS to a local file: the VFS says EXDEV, cp copies by reading.
    local = "/tmp/orfs-fileops-local-copy"
    src = os.open(orfs + "/x-src", os.O_RDONLY)
    dst = newfile(local)
    e = err_of(os.copy_file_range, src, dst, 4096)
    assert e in (-errno.EXDEV, 4096), e
    os.close(src)
    os.close(dst)
    assert os.system("cp '%s/x-src' %s" % (orfs, local)) == 0
    fd = os.open(local, os.O_RDONLY)
    check_pattern(fd, 0, 3 * M + 17)
    os.close(fd)
    os.unlink(local)
    print("  across mounts: %d bytes by splice; to a local file: %s"
          % (done, "EXDEV, cp ok" if e < 0 else "copied"))


def seekend(orfs2, export):
    with open(export + "/grows", "wb") as f:
        f.write(b"x" * 1000)
    fd = os.open(orfs2 + "/grows", os.O_RDONLY)
    assert os.lseek(fd, 0, os.SEEK_END) == 1000
    os.truncate(export + "/grows", 123456)
    got = os.lseek(fd, 0, os.SEEK_END)
    os.close(fd)
    assert got == 123456, "SEEK_END gave the old size %d" % got
    print("  SEEK_END sees the server's new size")


def big_write(d):
    fd = newfile(d + "/over4g")
    for off in (5 * G - 4096, 17 * G + 12345):
        os.pwrite(fd, pat(off, M), off)
    os.fsync(fd)
    os.close(fd)


def big_verify(d):
    fd = os.open(d + "/over4g", os.O_RDONLY)
    size = os.fstat(fd).st_size
    assert size == 17 * G + 12345 + M, size
    check_pattern(fd, 5 * G - 4096, M)
    check_pattern(fd, 17 * G + 12345, M)
    assert os.pread(fd, 4096, 10 * G) == bytes(4096)
    m = dmap(fd)
    assert m[0][0] <= 5 * G - 4096 and m[-1][1] == size, m
    assert os.lseek(fd, 5 * G + M, os.SEEK_DATA) <= 17 * G + 12345
    os.close(fd)
    return m


def stat_int(st, key):
    return int(st.get(key, "0"))


def offload(orfs, orfs2, export, ctl):
    """fallocate(1) of SIZE MiB on ORFS_DIR; once orfsd shows it in flight
    (disk_inflight), a READ of an uncached file through ORFS2_DIR, then one
    reading of the statistics: the READ done (disk_reads up) while the
    ALLOCATE is not (op_allocate unchanged, disk_inflight still 1).  When
    orfsd's event loop made the call itself, neither the statistics nor
    the READ were served before it returned.  A size that does not outlast
    the READ on this machine is retried larger."""
    with open(os.path.join(orfs, "offload-warm"), "wb") as f:
        os.posix_fallocate(f.fileno(), 0, 4096)    # op_allocate exists
    for n, mib in enumerate((256, 512, 768)):
        name = "offload-src%d" % n
        with open(os.path.join(export, name), "wb") as f:
            f.write(os.urandom(M))
        before = orfsd_stats.read(ctl)
        target = os.path.join(orfs, "offload%d" % n)
        proc = subprocess.Popen(["fallocate", "-l", "%dM" % mib, target])
        seen = None
        while proc.poll() is None:
            st = orfsd_stats.read(ctl)
            if stat_int(st, "disk_inflight") >= 1:
                seen = st
                break
            time.sleep(0.005)
        if seen is None:
            proc.wait()
            sys.exit("offload: the %d MiB ALLOCATE was never seen in flight"
                     " (it ran %s)" % (mib, "and failed" if proc.returncode
                                       else "to its end first"))
        with open(os.path.join(orfs2, name), "rb") as f:
            got = f.read()
        after = orfsd_stats.read(ctl)
        assert proc.wait() == 0, "fallocate -l %dM failed" % mib
        assert os.stat(os.path.join(export, "offload%d" % n)).st_size == mib * M
        os.unlink(target)
        with open(os.path.join(export, name), "rb") as f:
            assert got == f.read(), "the READ during the ALLOCATE read wrong data"
        reads = (stat_int(before, "disk_reads"), stat_int(after, "disk_reads"))
        assert reads[1] > reads[0], "the READ was not served from disk: %s" % (reads,)
        allocs = (stat_int(before, "op_allocate"), stat_int(after, "op_allocate"))
        if allocs[1] == allocs[0] and stat_int(after, "disk_inflight") >= 1:
            calls = stat_int(orfsd_stats.read(ctl), "disk_calls")
            assert calls > stat_int(before, "disk_calls"), \
                "the ALLOCATE was not an offload call (disk_calls %d)" % calls
            print("  offload: a READ was served while a %d MiB ALLOCATE ran"
                  " (disk_reads %d -> %d, op_allocate still %d)"
                  % (mib, reads[0], reads[1], allocs[0]))
            for i in range(n + 1):
                os.unlink(os.path.join(export, "offload-src%d" % i))
            os.unlink(os.path.join(orfs, "offload-warm"))
            return
        print("  offload: the %d MiB ALLOCATE ended before the READ was;"
              " larger" % mib)
    sys.exit("offload: no ALLOCATE outlasted a READ")


def retransmit(orfs, sysdir, export, ctl):
    """fallocate(1) through ORFS_DIR, a mount whose timeo is shorter than
    the ALLOCATE: the client gives up waiting, replaces its connection and
    sends the request again while orfsd still runs the first one.  The
    retransmissions must wait for that run's reply (drc_joins) and never
    run the call again (op_allocate up by one).  A size the
    server finishes within timeo is retried larger."""
    for n, mib in enumerate((256, 512, 768)):
        target = os.path.join(orfs, "retransmit%d" % n)
        before = orfsd_stats.read(ctl)
        tmo = counters(sysdir)["timeouts"]
        subprocess.run(["fallocate", "-l", "%dM" % mib, target], check=True)
        after = orfsd_stats.read(ctl)
        size = os.stat(os.path.join(export, "retransmit%d" % n)).st_size
        assert size == mib * M, "retransmit: size %d after fallocate -l %dM" % (size, mib)
        os.unlink(target)
        d = {k: stat_int(after, k) - stat_int(before, k)
             for k in ("disk_calls", "op_allocate", "drc_joins", "drc_misses")}
        timeouts = counters(sysdir)["timeouts"] - tmo
        if not timeouts:
            print("  retransmit: the %d MiB ALLOCATE ended within timeo; larger" % mib)
            continue
        # op_allocate counts the ALLOCATEs executed; disk_calls counts every
        # offload call, the wipes of the staging buffers of the connections
        # the timeouts replaced among them, so it only shows one ran.
        assert d["op_allocate"] == 1 and d["disk_calls"] >= 1, \
            "retransmit: one fallocate -l %dM ran %d ALLOCATEs (%s)" % (mib, d["op_allocate"], d)
        assert d["drc_joins"] >= 1, "retransmit: no retransmission joined (%s)" % d
        print("  retransmit: %d MiB ALLOCATE, %d client timeouts, %d retransmissions"
              " waited for it, 1 call ran (%s)" % (mib, timeouts, d["drc_joins"], d))
        return
    sys.exit("retransmit: no ALLOCATE outlasted timeo")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "compare":
        compare(*args)
    elif cmd == "refused":
        refused(*args)
    elif cmd == "bigcopy":
        bigcopy(args[0], args[1], args[2], int(args[3]))
    elif cmd == "crossmount":
        crossmount(*args)
    elif cmd == "seekend":
        seekend(*args)
    elif cmd == "big-write":
        big_write(*args)
    elif cmd == "big-verify":
        print("  past 4 GiB:", big_verify(args[0]))
    elif cmd == "offload":
        offload(*args)
    elif cmd == "retransmit":
        retransmit(*args)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
