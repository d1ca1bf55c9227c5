#!/usr/bin/env python3
"""telldir()/seekdir() through libc: read part of a directory, remember the
position, read the rest, seek back, and check that the rest comes again.
Usage: seekdir.py DIR SKIP"""
import ctypes
import ctypes.util
import sys

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class Dirent(ctypes.Structure):
    _fields_ = [("d_ino", ctypes.c_uint64), ("d_off", ctypes.c_int64),
                ("d_reclen", ctypes.c_ushort), ("d_type", ctypes.c_ubyte),
                ("d_name", ctypes.c_char * 256)]


libc.opendir.restype = ctypes.c_void_p
libc.opendir.argtypes = [ctypes.c_char_p]
libc.readdir.restype = ctypes.POINTER(Dirent)
libc.readdir.argtypes = [ctypes.c_void_p]
libc.telldir.restype = ctypes.c_long
libc.telldir.argtypes = [ctypes.c_void_p]
libc.seekdir.argtypes = [ctypes.c_void_p, ctypes.c_long]
libc.closedir.argtypes = [ctypes.c_void_p]


def read_all(d):
    names = []
    while True:
        ent = libc.readdir(d)
        if not ent:
            return names
        names.append(ent.contents.d_name.decode())


def main():
    path, skip = sys.argv[1].encode(), int(sys.argv[2])
    d = libc.opendir(path)
    if not d:
        sys.exit("opendir failed")
    head = []
    for _ in range(skip):
        head.append(libc.readdir(d).contents.d_name.decode())
    pos = libc.telldir(d)
    rest = read_all(d)
    libc.seekdir(d, pos)
    again = read_all(d)
    libc.closedir(d)
    if rest != again:
        sys.exit("seekdir: %d entries after the mark, %d after seeking back"
                 % (len(rest), len(again)))
    if len(set(head + rest)) != len(head + rest):
        sys.exit("duplicate entries")
    print("seekdir ok: %d + %d entries" % (len(head), len(rest)))


main()
