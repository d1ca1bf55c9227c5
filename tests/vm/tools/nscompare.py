#!/usr/bin/env python3
"""Run POSIX namespace scenarios in a directory and print one line per step:
the call, its result (or errno name) and the stat fields that must agree
between file systems.  Run it on an ORFS mount and on tmpfs and diff the
outputs.  Usage: nscompare.py ROOT [--user]"""
import ctypes
import errno
import os
import stat
import sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2


def renameat2(a, b, flags):
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def desc(path):
    try:
        st = os.lstat(path)
    except OSError as e:
        return "-" + errno.errorcode[e.errno]
    kind = stat.S_IFMT(st.st_mode)
    size = st.st_size if stat.S_ISREG(kind) or stat.S_ISLNK(kind) else "-"
    return "%o %o n%d s%s u%d g%d" % (kind >> 12, stat.S_IMODE(st.st_mode),
                                      st.st_nlink, size, st.st_uid, st.st_gid)


def step(name, fn, *args, **kwargs):
    try:
        r = fn(*args, **kwargs)
        out = "ok" if r is None or isinstance(r, int) and r >= 0 else repr(r)
        if isinstance(r, (str, bytes)):
            out = "ok " + repr(r)
    except OSError as e:
        out = errno.errorcode.get(e.errno, str(e.errno))
    print("%-40s %s" % (name, out))


def create(p, excl=True, mode=0o644):
    fd = os.open(p, os.O_CREAT | os.O_WRONLY | (os.O_EXCL if excl else 0), mode)
    os.close(fd)


def write(p, data, off=0):
    fd = os.open(p, os.O_WRONLY)
    try:
        os.pwrite(fd, data, off)
    finally:
        os.close(fd)


def read(p):
    with open(p, "rb") as f:
        return f.read().hex()[:64] + ":%d" % os.path.getsize(p)


def listing(d):
    return " ".join(sorted(os.listdir(d)))


def scenarios_root():
    step("mkdir a", os.mkdir, "a")
    step("mkdir a again", os.mkdir, "a")
    step("rmdir a", os.rmdir, "a")
    step("rmdir a again", os.rmdir, "a")
    step("create f excl", create, "f")
    step("create f excl again", create, "f")
    step("create f no excl", create, "f", False)
    step("open missing", os.open, "missing", os.O_RDONLY)
    step("open f/x", os.open, "f/x", os.O_RDONLY)
    step("mkdir f/x", os.mkdir, "f/x")
    step("write f", write, "f", b"hello world")
    step("write f at 100", write, "f", b"tail", 100)
    step("read f", read, "f")
    step("stat f", lambda: desc("f"))
    step("truncate f 5", os.truncate, "f", 5)
    step("read f", read, "f")
    step("truncate f 9000", os.truncate, "f", 9000)
    step("read f", read, "f")
    step("mkdir d", os.mkdir, "d", 0o755)
    step("create d/x", create, "d/x")
    step("rmdir d nonempty", os.rmdir, "d")
    step("unlink d", os.unlink, "d")
    step("rmdir f", os.rmdir, "f")
    step("unlink missing", os.unlink, "missing")
    step("rename f g", os.rename, "f", "g")
    step("stat f", lambda: desc("f"))
    step("stat g", lambda: desc("g"))
    step("rename missing", os.rename, "missing", "z")
    step("create h", create, "h")
    step("rename noreplace g h", renameat2, "g", "h", RENAME_NOREPLACE)
    step("write h", write, "h", b"HHH")
    step("rename exchange g h", renameat2, "g", "h", RENAME_EXCHANGE)
    step("read g", read, "g")
    step("read h", read, "h")
    step("rename g h (replace)", os.rename, "g", "h")
    step("mkdir e", os.mkdir, "e")
    step("rename e d (nonempty)", os.rename, "e", "d")
    step("rename d d/sub", os.rename, "d", "d/sub")
    step("rename d h (dir on file)", os.rename, "d", "h")
    step("rename h d (file on dir)", os.rename, "h", "d")
    step("link h h2", os.link, "h", "h2")
    step("stat h", lambda: desc("h"))
    step("link d d2", os.link, "d", "d2")
    step("link h2 h (exists)", os.link, "h2", "h")
    step("symlink l", os.symlink, "h", "l")
    step("readlink l", os.readlink, "l")
    step("stat l", lambda: desc("l"))
    step("read through l", read, "l")
    step("symlink dangling", os.symlink, "nowhere", "dl")
    step("open dangling", os.open, "dl", os.O_RDONLY)
    step("symlink loop1", os.symlink, "loop2", "loop1")
    step("symlink loop2", os.symlink, "loop1", "loop2")
    step("open loop", os.open, "loop1", os.O_RDONLY)
    step("mkfifo p", os.mkfifo, "p", 0o640)
    step("stat p", lambda: desc("p"))
    step("mknod sock", os.mknod, "s", stat.S_IFSOCK | 0o600)
    step("stat s", lambda: desc("s"))
    step("chmod h 0600", os.chmod, "h", 0o600)
    step("chown h", os.chown, "h", 1234, 5678)
    step("stat h", lambda: desc("h"))
    step("utime h", os.utime, "h", ns=(1000000000123456789, 999999999987654321))
    step("mtime h", lambda: "%d" % os.stat("h").st_mtime_ns)
    step("long name", create, "x" * 256)
    step("255 name", create, "y" * 255)
    step("unlink 255 name", os.unlink, "y" * 255)
    step("mkdir sticky", os.mkdir, "t", 0o1777)
    step("chmod sticky", os.chmod, "t", 0o1777)
    step("stat t", lambda: desc("t"))
    step("mkdir g+s", os.mkdir, "sg", 0o2775)
    step("chmod g+s", os.chmod, "sg", 0o2775)
    step("chown sg", os.chown, "sg", 0, 4321)
    step("mkdir sg/sub", os.mkdir, "sg/sub")
    step("stat sg/sub", lambda: desc("sg/sub"))
    step("create sg/f", create, "sg/f")
    step("stat sg/f", lambda: desc("sg/f"))
    step("mkdir priv", os.mkdir, "priv", 0o700)
    step("create ro", create, "ro", True, 0o444)
    step("create secret", create, "secret", True, 0o600)
    step("mkdir rodir", os.mkdir, "rodir", 0o755)
    step("chmod rodir", os.chmod, "rodir", 0o755)
    step("create rodir/exists", create, "rodir/exists")
    step("mkdir rodir/sub", os.mkdir, "rodir/sub")
    step("listing", listing, ".")
    step("listing d", listing, "d")


def scenarios_user():
    step("read secret", read, "secret")
    step("write ro", write, "ro", b"x")
    step("create in priv", create, "priv/x")
    step("list priv", listing, "priv")
    step("chmod secret", os.chmod, "secret", 0o666)
    step("unlink in d (not owner)", os.unlink, "d/x")
    step("mkdir in t", os.mkdir, "t/mine")
    step("stat t/mine", lambda: desc("t/mine"))
    step("create in t", create, "t/file")
    step("chown own file", os.chown, "t/file", 0, -1)
    step("utime ro (not owner)", os.utime, "ro", (1, 1))
    step("truncate ro", os.truncate, "ro", 0)
    step("rmdir t/mine", os.rmdir, "t/mine")
    step("listing t", listing, "t")
    # Exclusive creates where the user may not write: an existing name is
    # EEXIST, a new one EACCES (the client must not skip its lookup here).
    step("create excl existing (rodir)", create, "rodir/exists")
    step("create excl new (rodir)", create, "rodir/new")
    step("create no excl existing (rodir)", create, "rodir/exists", False)
    step("mkdir existing (rodir)", os.mkdir, "rodir/sub")
    step("mkdir new (rodir)", os.mkdir, "rodir/sub2")
    step("symlink over existing (rodir)", os.symlink, "x", "rodir/exists")
    step("create excl in priv", create, "priv/y")


def main():
    os.chdir(sys.argv[1])
    if "--user" in sys.argv:
        scenarios_user()
    else:
        scenarios_root()


main()
