#!/usr/bin/env python3
"""Metadata rates for the ORFS benchmark (tools/bench).

  meta.py create DIR N   create N empty files DIR/f0000000... (O_CREAT|O_EXCL)
  meta.py stat   DIR N   stat each of them
  meta.py unlink DIR N   unlink each of them

Prints "ops=N seconds=S rate=R" (R in operations per second) and exits 0,
or prints the error and exits 1 at the first failing call.  Only the loop is
timed: no interpreter start-up, no cache dropping.
"""
import os
import sys
import time


def main(argv):
    if len(argv) != 4 or argv[1] not in ("create", "stat", "unlink"):
        sys.stderr.write(__doc__)
        return 2
    op, d, n = argv[1], argv[2], int(argv[3])
    names = [os.path.join(d, "f%07d" % i) for i in range(n)]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    i = 0
    t0 = time.monotonic()
    try:
        if op == "create":
            for i, p in enumerate(names):
                os.close(os.open(p, flags, 0o644))
        elif op == "stat":
            for i, p in enumerate(names):
                os.stat(p)
        else:
            for i, p in enumerate(names):
                os.unlink(p)
    except OSError as e:
        print("%s failed at file %d of %d: %s" % (op, i, n, e))
        return 1
    s = time.monotonic() - t0
    print("ops=%d seconds=%.3f rate=%.1f" % (n, s, n / s if s > 0 else 0.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
