#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""orfsd's statistics, from its control socket (orfsd --control PATH).

  orfsd_stats.py CTL KEY...
      the values of statistics KEY... from one reading, space-separated;
      exits with an error naming the keys that are missing.

As a module (tests/vm/tools/fileops.py): read(CTL) gives one reading as a
dict of strings.  tests/vm/lib.sh (orfsd_stat) and tests/server/vm_smoke.sh
call it as a command.
"""
import socket
import sys


def read(ctl):
    """One reading of the statistics at control socket CTL, as a dict."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(ctl)
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    return dict(l.split(" ", 1) for l in data.decode().splitlines() if " " in l)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: orfsd_stats.py CTL KEY...")
    st = read(sys.argv[1])
    missing = [k for k in sys.argv[2:] if k not in st]
    if missing:
        sys.exit("no key " + " ".join(missing))
    print(" ".join(st[k] for k in sys.argv[2:]))


if __name__ == "__main__":
    main()
