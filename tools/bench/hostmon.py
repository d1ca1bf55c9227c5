#!/usr/bin/env python3
"""ORFS benchmark, the host side: how much of the host's CPU went to
something other than the benchmark's own VM while it ran.

Usage: hostmon.py OUTDIR

The VM is emulated (TCG): each vCPU is a host thread, and on a 2-core host
any other busy process slows the guest's CPUs, which the guest cannot see
(there is no steal time under TCG).  A job measured while the host was busy
with something else measured the host, not ORFS or NFS.

Every half second this adds up, from /proc/stat, the CPU time the host
spent busy, and from /proc/PID/stat, the time used by the benchmark's qemu
(the qemu-system processes whose command line names OUTDIR, its 9p share).
It keeps the totals, in milliseconds, in OUTDIR/raw/host_cpu:

    host_total_ms N     CPU time that passed (all CPUs)
    host_other_ms N     CPU time other processes used

rewritten in place (written to a temporary file and renamed).  The guest
reads that file as it reads its own counters (lib.sh ctr_read), so each
result's counters hold the deltas over its own measurement, and report.py
marks a result where other work took a noticeable share of the host.

It runs until it is killed (run.sh kills it when the VM is gone).
"""

import os
import signal
import sys
import time

INTERVAL = 0.5
TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")


def host_ticks():
    """(busy, total) jiffies of all CPUs together, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    vals = [int(x) for x in fields[:8]]   # user nice system idle iowait irq softirq steal
    total = sum(vals)
    busy = total - vals[3] - vals[4]
    return busy, total


def vm_ticks(marker):
    """CPU jiffies (user + system, all threads) of the qemu processes whose
    command line contains MARKER."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            if not cmd.startswith(b"qemu-system") and b"/qemu-system" not in cmd.split(b"\0")[0]:
                continue
            if marker not in cmd:
                continue
            with open("/proc/%s/stat" % pid) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        n += int(rest[11]) + int(rest[12])    # utime, stime (fields 14, 15)
    return n


def main(argv):
    if len(argv) != 2:
        print("usage: hostmon.py OUTDIR", file=sys.stderr)
        return 2
    outdir = argv[1]
    raw = os.path.join(outdir, "raw")
    os.makedirs(raw, exist_ok=True)
    path = os.path.join(raw, "host_cpu")
    tmp = path + ".tmp"
    marker = ("path=" + outdir.replace(",", ",,")).encode()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    def own():
        t = os.times()
        return (t.user + t.system) * 1000.0

    busy0, total0 = host_ticks()
    vm0, own0 = vm_ticks(marker), own()
    total_ms = other_ms = 0.0
    while True:
        time.sleep(INTERVAL)
        busy, total = host_ticks()
        vm, me = vm_ticks(marker), own()
        # A qemu that exited takes its ticks with it: count no negative
        # time, and start again from what is there.  This monitor's own
        # time is not the host's noise.
        d_vm = max(vm - vm0, 0)
        total_ms += (total - total0) * TICK_MS
        other_ms += max((busy - busy0 - d_vm) * TICK_MS - (me - own0), 0)
        busy0, total0, vm0, own0 = busy, total, vm, me
        with open(tmp, "w") as f:
            f.write("host_total_ms %d\nhost_other_ms %d\n" % (total_ms, other_ms))
        os.replace(tmp, path)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(0)
