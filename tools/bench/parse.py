#!/usr/bin/env python3
"""Parsers for the ORFS benchmark (tools/bench), run in the guest.

  parse.py fio JSON          fio --output-format=json -> key=value lines
  parse.py perftest FILE bw|lat
                             perftest client output -> key=value lines
  parse.py ping TEXT         /sys/fs/orfs/<dev>/ping contents -> key=value

Prints nothing and exits 1 if the input has no result.
"""
import json
import math
import sys

MIB = 1024 * 1024


def fio(path):
    with open(path, errors="replace") as f:
        text = f.read()
    # fio may print warnings before the JSON document.
    start = text.find("{")
    if start < 0:
        return 1
    doc = json.loads(text[start:])
    jobs = doc.get("jobs") or []
    if not jobs:
        return 1
    out = {"error": 0, "jobs": len(jobs)}
    for ddir in ("read", "write"):
        io = bw = iops = 0
        runtime_ms = 0
        for j in jobs:
            d = j.get(ddir) or {}
            io += d.get("io_bytes", 0)
            bw += d.get("bw_bytes", 0)
            iops += d.get("iops", 0.0)
            runtime_ms = max(runtime_ms, d.get("runtime", 0))
        if io:
            out[ddir + "_bytes"] = io
            out[ddir + "_mibs"] = "%.2f" % (bw / MIB)
            out[ddir + "_iops"] = "%.1f" % iops
            out[ddir + "_runtime_s"] = "%.3f" % (runtime_ms / 1000.0)
            lat = [(j.get(ddir) or {}).get("lat_ns", {}).get("mean", 0.0) for j in jobs]
            if any(lat):
                out[ddir + "_lat_us"] = "%.1f" % (sum(lat) / len(lat) / 1000.0)
    for j in jobs:
        if j.get("error"):
            out["error"] = j["error"]
    out["job_runtime_s"] = "%.3f" % (max(j.get("job_runtime", 0) for j in jobs) / 1000.0)
    for k, v in out.items():
        print("%s=%s" % (k, v))
    return 0


def perftest(path, kind):
    """Last result line of a perftest client: the rows whose first field is
    the message size."""
    row = None
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5 and fields[0].isdigit() and fields[1].isdigit():
                try:
                    vals = [float(x) for x in fields[2:5]]
                except ValueError:
                    continue
                # perftest prints "inf" when its clock calibration failed.
                if not all(math.isfinite(v) for v in vals):
                    continue
                row = fields
    if row is None:
        return 1
    if kind == "bw":
        # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
        print("bytes=%s" % row[0])
        print("iters=%s" % row[1])
        print("bw_peak=%s" % row[2])
        print("bw_avg=%s" % row[3])
        print("msg_rate_mpps=%s" % row[4])
    else:
        # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
        if len(row) < 7:
            return 1
        print("bytes=%s" % row[0])
        print("iters=%s" % row[1])
        print("t_min=%s" % row[2])
        print("t_max=%s" % row[3])
        print("t_typical=%s" % row[4])
        print("t_avg=%s" % row[5])
        print("t_stdev=%s" % row[6])
    return 0


def ping(text):
    """'count N mean_us X [median_us M] min_us Y max_us Z' -> key=value lines."""
    f = text.split()
    vals = dict(zip(f[0::2], f[1::2]))
    if "mean_us" not in vals:
        return 1
    for k, v in vals.items():
        print("%s=%s" % (k, v))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "fio":
        return fio(argv[2])
    if len(argv) >= 4 and argv[1] == "perftest":
        return perftest(argv[2], argv[3])
    if len(argv) >= 3 and argv[1] == "ping":
        return ping(" ".join(argv[2:]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
