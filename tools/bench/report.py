#!/usr/bin/env python3
"""ORFS benchmark report (tools/bench/run.sh runs it on the host).

  report.py OUTDIR

Reads OUTDIR/raw/results.tsv (written in the guest by tools/bench/lib.sh),
raw/info.txt and raw/steps.tsv; writes OUTDIR/results.csv, results.txt (and
prints it), chart.dat, chart.gp and chart.png (gnuplot).  Repetitions are
reduced to medians; retry counters are summed over repetitions.
Exit status 0 when the files were written, even when figures are "error".
"""
import csv
import os
import statistics
import subprocess
import sys

# rxe hardware counters that mean "something was lost or retransmitted"
# (both devices summed).  A figure with any of these non-zero measured
# recovery as well as the file system.
RETRY_COUNTERS = [
    "completer_retry_err",   # requester timed out waiting for an ACK, resent
    "duplicate_request",     # responder saw a retransmitted request
    "out_of_seq_request",    # responder saw a PSN gap (lost packet)
    "rcvd_seq_err",          # requester got a sequence-error NAK
    "retry_exceeded_err",    # retries exhausted: the QP broke
    "rcvd_rnr_err",          # requester got receiver-not-ready NAKs
    "send_rnr_err",          # responder sent RNR NAKs (no receive posted)
    "retry_rnr_exceeded_err",
]
SHORT = {
    "completer_retry_err": "cmpl_retry",
    "duplicate_request": "dup_req",
    "out_of_seq_request": "oos_req",
    "rcvd_seq_err": "seq_nak",
    "retry_exceeded_err": "retry_exc",
    "rcvd_rnr_err": "rnr_rcvd",
    "send_rnr_err": "rnr_sent",
    "retry_rnr_exceeded_err": "rnr_exc",
}
EXTRA_COUNTERS = ["sent_pkts", "lo_tx_bytes"]
# The host's CPU time during a measurement, and the part other processes
# than this VM used (hostmon.py, lib.sh ctr_read_host).  The guest's vCPUs
# are host threads: a repetition where others took more than NOISE_SHARE
# of the host measured the host too, and is marked "~".
HOST_TOTAL, HOST_OTHER = "host_total_ms", "host_other_ms"
NOISE_SHARE = 0.10
# The ORFS mount's own counter (lib.sh ctr_read_orfs): buffered data orfsd
# moved by trusted_fabric page list; > 0 on orfstf shows the mode was used.
PAGE_LIST = "orfs_bytes_page_list"
# ... and what went inline in requests and replies (trusted_fabric does not
# change that path: I/O at or below the mount's inline size).
INLINE = ["orfs_bytes_inline_in", "orfs_bytes_inline_out"]
# orfstf: the orfs server and export mounted again with trusted_fabric.
SYSTEMS = ["orfs", "orfstf", "nfs"]
SYSNAME = {"orfs": "ORFS", "orfstf": "ORFS-TF", "nfs": "NFS/RDMA", "raw": "raw"}


def read_info(path):
    info = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                if k:
                    info[k] = v
    except OSError:
        pass
    return info


class Result:
    """One (metric, system) over all repetitions."""

    def __init__(self, job, system):
        self.job, self.system = job, system
        self.values, self.errors, self.nas = [], [], []
        self.unit = self.better = ""
        self.rawrefs = []
        self.counters = {}
        self.ok_counters = []   # each successful repetition's own deltas
        self.notes = []
        self.reps = 0
        self.host_shares = []   # each successful repetition's, None: not recorded

    def add(self, status, value, unit, better, rawrefs, counters, note):
        self.reps += 1
        if status == "ok":
            try:
                self.values.append(float(value))
            except ValueError:
                status, note = "error", "unparsable value %r" % value
        if status == "ok":
            self.unit, self.better = unit, better
            if rawrefs:
                self.rawrefs = [r for r in rawrefs.split(",") if r]
            if note:
                self.notes.append(note)
        elif status == "na":
            self.nas.append(note)
        else:
            self.errors.append(note)
        mine = {}
        for kv in counters.split(","):
            k, _, v = kv.partition("=")
            if k:
                try:
                    mine[k] = int(v)
                except ValueError:
                    pass
        for k, v in mine.items():
            self.counters[k] = self.counters.get(k, 0) + v
        if status == "ok":
            self.ok_counters.append(mine)
            total = mine.get(HOST_TOTAL, 0)
            self.host_shares.append(mine.get(HOST_OTHER, 0) / total if total > 0 else None)

    @property
    def status(self):
        if self.values:
            return "ok"
        if self.nas and not self.errors:
            return "na"
        return "error"

    @property
    def value(self):
        return statistics.median(self.values) if self.values else None

    def retries(self):
        return {k: self.counters.get(k, 0) for k in RETRY_COUNTERS if self.counters.get(k, 0)}

    def noisy(self):
        """True if other work took more than NOISE_SHARE of the host during
        a successful repetition."""
        return any(x is not None and x > NOISE_SHARE for x in self.host_shares)

    def host_max(self):
        """The largest share of the host other work took, None if unknown."""
        known = [x for x in self.host_shares if x is not None]
        return max(known) if known else None


def load(outdir):
    results, order = {}, []
    path = os.path.join(outdir, "raw", "results.tsv")
    with open(path, errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 10:
                continue
            rep, job, system, status, value, unit, better, rawrefs, counters, note = p[:10]
            key = (job, system)
            if key not in results:
                results[key] = Result(job, system)
                order.append(key)
            results[key].add(status, value, unit, better, rawrefs, counters, note)
    return results, order


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 100:
        return "%.1f" % v
    if a >= 10:
        return "%.2f" % v
    return "%.3f" % v


def fmt_ratio(v):
    return "-" if v is None else "%.2f" % v


def shown(r):
    """A result as a table cell: the value, "error" or "n/a"; "*" marks
    retries during the measurement, "~" a busy host."""
    if r is None:
        return "-"
    if r.status == "ok":
        s = fmt(r.value)
        if r.errors:
            s += "?"       # some repetitions failed
        if r.retries():
            s += "*"
        if r.noisy():
            s += "~"
        return s
    return "n/a" if r.status == "na" else "error"


def ratio(a, b):
    if a is None or b is None or a.status != "ok" or b.status != "ok" or not b.value:
        return None
    return a.value / b.value


def retry_text(r):
    if r is None:
        return "-"
    rt = r.retries()
    return str(sum(rt.values())) if rt else "0"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    outdir = argv[1]
    info = read_info(os.path.join(outdir, "raw", "info.txt"))
    info.update(read_info(os.path.join(outdir, "host.txt")))
    results, order = load(outdir)
    raw = {job: r for (job, system), r in results.items() if system == "raw"}
    fs_jobs = []
    for job, system in order:
        if system != "raw" and job not in fs_jobs:
            fs_jobs.append(job)

    def get(job, system):
        return results.get((job, system))

    def refs_of(job):
        for s in SYSTEMS:
            r = get(job, s)
            if r is not None and r.rawrefs:
                return r.rawrefs
        return []

    # --- CSV: one row per (job, system) ------------------------------------
    cols = ["job", "system", "value", "unit", "better", "status", "ratio_to_raw", "raw_ref",
            "ratio_to_raw_alt", "raw_ref_alt", "ratio_to_nfs", "reps", "reps_ok",
            "retries"] + RETRY_COUNTERS + EXTRA_COUNTERS + [
                "ratio_to_orfs", PAGE_LIST, "host_other_max_pct", "note"]
    rows = []
    for job, system in order:
        r = results[(job, system)]
        refs = r.rawrefs or (refs_of(job) if system != "raw" else [])
        row = {
            "job": job, "system": system, "status": r.status,
            "value": "" if r.value is None else "%g" % r.value,
            "unit": r.unit, "better": r.better, "reps": r.reps, "reps_ok": len(r.values),
            "retries": sum(r.retries().values()),
        }
        for i, ref in enumerate(refs[:2]):
            sfx = "" if i == 0 else "_alt"
            row["raw_ref" + sfx] = ref
            q = ratio(r, raw.get(ref))
            row["ratio_to_raw" + sfx] = "" if q is None else "%.4f" % q
        if system in ("orfs", "orfstf"):
            q = ratio(r, get(job, "nfs"))
            row["ratio_to_nfs"] = "" if q is None else "%.4f" % q
        if system == "orfstf":
            q = ratio(r, get(job, "orfs"))
            row["ratio_to_orfs"] = "" if q is None else "%.4f" % q
        for k in RETRY_COUNTERS + EXTRA_COUNTERS:
            row[k] = r.counters.get(k, 0)
        # Empty where not measured (NFS, raw, or a module without it).
        row[PAGE_LIST] = r.counters.get(PAGE_LIST, "")
        hm = r.host_max()
        row["host_other_max_pct"] = "" if hm is None else "%.1f" % (100 * hm)
        notes = r.errors if r.status == "error" else (r.nas if r.status == "na" else r.notes)
        row["note"] = " | ".join(dict.fromkeys(n for n in notes if n))
        rows.append(row)
    with open(os.path.join(outdir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow(row)

    # --- the table ------------------------------------------------------------
    L = []
    L.append("ORFS benchmark, %s, kernel %s, %s vCPUs, %s MB, clocksource %s "
             "(soft-RoCE rxe1 -> rxe0, emulated)"
             % (info.get("started", "?"), info.get("kernel", "?"), info.get("cpus", "?"),
                info.get("mem_mb", "?"), info.get("clocksource", "?")))
    size = int(info.get("size_bytes", "0") or 0)
    reps = info.get("repeat", "?")
    if info.get("boots", "1") != "1":
        reps = "%s (%s boots of %s)" % (reps, info["boots"], info.get("passes", "?"))
    L.append("file %d MiB, %s files, tar of %s (%s entries), %s repetition(s), medians"
             % (size >> 20, info.get("files", "?"), info.get("tar_dir", "?"),
                info.get("tar_entries", "?"), reps))
    if "order" in info or "warmup_job" in info:
        warmup = "none"
        if "warmup_job" in info:
            warmup = ("%s once on each system per boot, not measured (raw/warmup.tsv)"
                      % info["warmup_job"])
        L.append("order of the systems: %s; warm-up: %s" % (info.get("order", "?"), warmup))
    L.append("host: %s CPUs, load average %s at the start, %s at the end, %s other VM(s) running"
             % (info.get("host_cpus", "?"), info.get("host_load_start", "?"),
                info.get("host_load_end", "?"), info.get("host_other_vms", "?")))
    L.append("ORFS:     %s" % info.get("orfs_mount", "not run"))
    L.append("NFS/RDMA: %s" % info.get("nfs_mount", "not run"))
    if "orfstf_mount" in info:
        L.append("ORFS-TF:  %s" % info["orfstf_mount"])
    L.append("Only ratios within this run mean anything: the VM is emulated and rxe copies on its CPU.")
    L.append("")
    L.append("Raw rxe limits (perftest, server rxe0, client rxe1)")
    for job, system in order:
        if system != "raw":
            continue
        r = results[(job, system)]
        L.append("  %-18s %10s %-6s retries %s" % (job, shown(r), r.unit, retry_text(r)))
    L.append("")
    hdr = ("%-12s %-7s %-6s %10s %10s %9s  %-16s %9s %9s %9s  %s"
           % ("job", "unit", "better", "ORFS", "NFS/RDMA", "ORFS/NFS", "raw limit", "raw",
              "ORFS/raw", "NFS/raw", "retries ORFS/NFS"))
    L.append(hdr)
    L.append("-" * len(hdr))
    for job in fs_jobs:
        o, n = get(job, "orfs"), get(job, "nfs")
        any_r = o if o is not None and o.status == "ok" else n
        unit = any_r.unit if any_r is not None and any_r.unit else ""
        better = any_r.better if any_r is not None and any_r.better else ""
        refs = refs_of(job) or [None]
        for i, ref in enumerate(refs):
            rr = raw.get(ref) if ref else None
            if i == 0:
                head = "%-12s %-7s %-6s %10s %10s %9s" % (
                    job, unit, better, shown(o), shown(n), fmt_ratio(ratio(o, n)))
                tail = "  %s/%s" % (retry_text(o), retry_text(n))
            else:
                head = " " * (12 + 1 + 7 + 1 + 6 + 1 + 10 + 1 + 10 + 1 + 9)
                tail = ""
            if ref:
                L.append("%s  %-16s %9s %9s %9s%s" % (
                    head, ref, shown(rr), fmt_ratio(ratio(o, rr)), fmt_ratio(ratio(n, rr)), tail))
            else:
                L.append("%s  %-16s %9s %9s %9s%s" % (head, "", "", "", "", tail))
    L.append("")
    L.append("ORFS/NFS and ORFS/raw are plain quotients of the two figures: for \"better: higher\"")
    L.append("above 1 means ORFS is ahead; for \"better: lower\" (latencies) below 1 does.")
    L.append("* = rxe counted retries or losses during that measurement (it measured recovery too);")
    L.append("~ = in some repetition, other processes used more than %d %% of the host's CPU (the" % (
        100 * NOISE_SHARE))
    L.append("    guest's vCPUs are host threads, so that measured the host too: see below);")
    L.append("? = some repetitions failed (median of the others).  raw_rtt_2b = 2 x ib_send_lat 2 B;")
    L.append("raw_rtt_rate_4k = 1e6 / (2 x ib_send_lat 4 KiB): ib_send_lat reports half a round trip.")
    L.append("rpc_*: an O_DIRECT 4 KiB read's or write's messages (request SEND, server RDMA WRITE or")
    L.append("READ of a registered buffer, reply SEND) between two busy-polling processes (rpcbench).")
    L.extend(tf_table(fs_jobs, get, raw, refs_of))

    width = max([len(job) for job, _ in order] + [12])

    def listing(title, pred, cells):
        """Under TITLE, a line per result PRED picks: job, system, CELLS(r)."""
        picked = [(k, results[k]) for k in order if pred(results[k])]
        if picked:
            L.append("")
            L.append(title)
            for (job, system), r in picked:
                L.append("  %-*s %-8s %s" % (width, job, SYSNAME.get(system, system), cells(r)))

    listing("rxe retry/loss counters that moved (summed over both devices and repetitions):",
            lambda r: r.retries(),
            lambda r: " ".join("%s=%d" % (SHORT.get(k, k), v) for k, v in r.retries().items()))
    listing("host CPU used by other processes during each repetition (share of all its CPU time):",
            Result.noisy,
            lambda r: " ".join("-" if x is None else "%.0f%%" % (100 * x) for x in r.host_shares))

    def error_cells(r):
        why = r.errors if r.errors else r.nas
        msg = " | ".join(dict.fromkeys(w for w in why if w)) or "(no reason recorded)"
        return "%-5s %s" % ("error" if r.errors else "n/a", msg[:160])

    listing("errors and n/a:", lambda r: r.errors or r.status == "na", error_cells)
    if info.get("kernel_warnings", "0") not in ("0", ""):
        L.append("")
        L.append("kernel log: %s warning line(s) during the jobs, see raw/logs/dmesg.txt"
                 % info["kernel_warnings"])
    L.append("")
    L.append("setup %s s, jobs and setup %s s in the guest"
             % (info.get("setup_s", "?"), info.get("jobs_s", "?")))
    text = "\n".join(L) + "\n"
    with open(os.path.join(outdir, "results.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)

    chart(outdir, fs_jobs, get, raw, refs_of)
    return 0


def page_list_mib(r):
    """The MiB orfsd moved by page list in R's successful repetitions:
    (median, smallest), or (None, None) when the counter was not recorded."""
    v = [c[PAGE_LIST] for c in (r.ok_counters if r is not None else []) if PAGE_LIST in c]
    if not v:
        return None, None
    return statistics.median(v) / 1048576.0, min(v) / 1048576.0


def tf_table(fs_jobs, get, raw, refs_of):
    """The orfstf rows, as lines: trusted_fabric against ORFS's default mode
    (TF/ORFS), NFS/RDMA and the raw limits, and the page-list MiB that show
    the mode was used.  Nothing when orfstf did not run."""
    jobs = [job for job in fs_jobs if get(job, "orfstf") is not None]
    if not jobs:
        return []
    L = ["", "ORFS-TF: the same orfsd and export as ORFS, mounted again with trusted_fabric "
         "(buffered jobs only)"]
    hdr = ("%-12s %-7s %-6s %10s %10s %9s %9s  %-16s %9s %9s  %13s  %s"
           % ("job", "unit", "better", "ORFS-TF", "ORFS", "TF/ORFS", "TF/NFS", "raw limit", "raw",
              "TF/raw", "page-list MiB", "retries TF"))
    L.append(hdr)
    L.append("-" * len(hdr))
    unused, inline = [], []
    for job in jobs:
        t, o, n = get(job, "orfstf"), get(job, "orfs"), get(job, "nfs")
        any_r = t if t.status == "ok" else o
        unit = any_r.unit if any_r is not None and any_r.unit else ""
        better = any_r.better if any_r is not None and any_r.better else ""
        mib, least = page_list_mib(t)
        if t.status == "ok" and not least:
            if all(any(c.get(k, 0) for k in INLINE) for c in t.ok_counters):
                inline.append(job)
            else:
                unused.append(job)
        for i, ref in enumerate(refs_of(job) or [None]):
            rr = raw.get(ref) if ref else None
            if i == 0:
                head = "%-12s %-7s %-6s %10s %10s %9s %9s" % (
                    job, unit, better, shown(t), shown(o), fmt_ratio(ratio(t, o)),
                    fmt_ratio(ratio(t, n)))
                tail = "  %13s  %s" % (fmt(mib), retry_text(t))
            else:
                head, tail = " " * (12 + 1 + 7 + 1 + 6 + 1 + 10 + 1 + 10 + 1 + 9 + 1 + 9), ""
            if ref:
                L.append("%s  %-16s %9s %9s%s" % (head, ref, shown(rr), fmt_ratio(ratio(t, rr)),
                                                  tail))
            else:
                L.append("%s  %-16s %9s %9s%s" % (head, "", "", "", tail))
    L.append("")
    L.append("TF/ORFS, TF/NFS and TF/raw are quotients as above: for \"better: higher\" above 1")
    L.append("means trusted_fabric is ahead.  page-list MiB: buffered data orfsd moved by page list")
    L.append("(the mount's bytes_page_list counter; median of the repetitions): 0 or - means the")
    L.append("mode was not used.")
    if inline:
        L.append("%s: no page lists, as the data went inline (at or below the inline size),"
                 % ", ".join(inline))
        L.append("which trusted_fabric does not change (orfs_bytes_inline_in/out in the CSV).")
    if unused:
        L.append("WARNING: ORFS-TF moved nothing by page list in %s (in at least one repetition):"
                 % ", ".join(unused))
        L.append("the server declined page lists (dmesg: \"server does not take page lists\"),")
        L.append("or the counter was not recorded.")
    return L


def goodness(a, b, better):
    """a relative to b, as "higher is better"."""
    if a is None or b is None or a.status != "ok" or b.status != "ok" or not a.value or not b.value:
        return None
    return a.value / b.value if better != "lower" else b.value / a.value


COLOR = {"orfs": "#1f77b4", "orfstf": "#9467bd", "nfs": "#ff7f0e"}
COLOR_VS_NFS = {"orfs": "#2ca02c", "orfstf": "#8c564b"}


def bar_slots(n, width):
    """Offsets from the job's x of N bars sharing WIDTH, and the box width."""
    slot = width / n
    return [round((i - (n - 1) / 2.0) * slot, 3) for i in range(n)], (
        slot if n == 1 else round(slot * 0.95, 3))


def gp_using(dx, col, first):
    """A gnuplot "using" for one bar series at offset DX of column COL."""
    x = "1" if dx == 0 else "($1%+g)" % dx
    return "%s:%d%s" % (x, col, ":xtic(2)" if first else "")


def chart(outdir, fs_jobs, get, raw, refs_of):
    """Two panels, both "higher is better" (latencies inverted): each system
    as a fraction of the raw limit (jobs that have one), and ORFS (and
    ORFS-TF, when it ran) relative to NFS/RDMA (every job).  Missing figures
    are labelled error or n/a; a job a system did not run has no bar."""
    def label(r):
        if r is None:
            return "-"
        return {"ok": "", "na": "n/a"}.get(r.status, "error")

    def num(v):
        return "NaN" if v is None else "%.4f" % v

    tf = any(get(job, "orfstf") is not None for job in fs_jobs)
    left = [s for s in SYSTEMS if s != "orfstf" or tf]
    right = ["orfs", "orfstf"] if tf else ["orfs"]
    dx_a, box_a = bar_slots(len(left), 0.8)
    dx_b, box_b = bar_slots(len(right), 0.6)
    lines_a, lines_b, labels_a, labels_b = [], [], [], []
    vals_a, vals_b = [], []
    for job in fs_jobs:
        rs = {s: get(job, s) for s in SYSTEMS}
        n = rs["nfs"]
        ref = (refs_of(job) or [None])[0]
        better = next((r.better for r in rs.values() if r is not None and r.better), "higher")
        if ref and ref in raw:
            x = len(lines_a)
            gs = [goodness(rs[s], raw[ref], better) for s in left]
            lines_a.append('%d "%s\\n/ %s" %s' % (x, job, ref, " ".join(num(g) for g in gs)))
            for dx, g, s in zip(dx_a, gs, left):
                if g is not None:
                    vals_a.append(g)
                elif rs[s] is not None:
                    labels_a.append((x + dx, label(rs[s])))
        x = len(lines_b)
        gs = [goodness(rs[s], n, better) for s in right]
        lines_b.append('%d "%s" %s' % (x, job, " ".join(num(g) for g in gs)))
        for dx, g, s in zip(dx_b, gs, right):
            if g is not None:
                vals_b.append(g)
            elif rs[s] is not None:
                name = "ORFS" if s == "orfs" else SYSNAME[s]
                labels_b.append((x + dx, "%s %s" % (name, label(rs[s])) if label(rs[s])
                                 else "NFS %s" % label(n)))
    with open(os.path.join(outdir, "chart.dat"), "w") as f:
        f.write("# x job %s (higher is better)\n" % " ".join("%s_vs_raw" % s for s in left))
        f.write("\n".join(lines_a or ['0 "none"' + " NaN" * len(left)]) + "\n\n\n")
        f.write("# x job %s (higher is better)\n" % " ".join("%s_vs_nfs" % s for s in right))
        f.write("\n".join(lines_b or ['0 "none"' + " NaN" * len(right)]) + "\n")
    # Head room above the tallest bar for the key.
    ymax_a = max([1.0] + vals_a) * 1.25
    ymax_b = max([1.0] + vals_b) * 1.3

    def set_labels(labels, ymax):
        return "".join('set label "%s" at %.2f,%.4f rotate left front tc rgb "#a00000"\n'
                       % (t, x, ymax * 0.03) for x, t in labels if t)

    plot_a = ", \\\n     ".join(
        '%s index 0 using %s with boxes lc rgb "%s" title "%s"'
        % ('"chart.dat"' if i == 0 else '""', gp_using(dx, 3 + i, i == 0), COLOR[s], SYSNAME[s])
        for i, (dx, s) in enumerate(zip(dx_a, left)))
    plot_b = ", \\\n     ".join(
        '%s index 1 using %s with boxes lc rgb "%s" title "%s / NFS"'
        % ('"chart.dat"' if i == 0 else '""', gp_using(dx, 3 + i, i == 0), COLOR_VS_NFS[s],
           "ORFS" if s == "orfs" else SYSNAME[s])
        for i, (dx, s) in enumerate(zip(dx_b, right)))
    if len(right) > 1:
        title = "ORFS, ORFS-TF (trusted_fabric) vs NFS/RDMA on soft-RoCE, one run"
        title_b = "ORFS and ORFS-TF relative to NFS/RDMA (above 1: ahead of NFS)"
    else:
        title = "ORFS vs NFS/RDMA on soft-RoCE, one run"
        title_b = "ORFS relative to NFS/RDMA (above 1: ORFS ahead)"
    gp = """# gnuplot script written by tools/bench/report.py
set terminal pngcairo size 1400,600 font "sans,10" noenhanced
set output "chart.png"
set multiplot layout 1,2 title "%s (higher is better; latencies inverted)"
set style fill solid 0.8 border -1
set boxwidth %g
set grid ytics
set xtics nomirror scale 0
set key top center horizontal
set bmargin 5
set title "Fraction of the raw rxe limit (figure / raw)"
set xrange [-0.6:%.1f]
set yrange [0:%.3f]
%splot %s
unset label
set title "%s"
set xrange [-0.6:%.1f]
set yrange [0:%.3f]
set xtics rotate by -30
set boxwidth %g
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black" front
%splot %s
unset multiplot
""" % (title, box_a, max(len(lines_a), 1) - 0.4, ymax_a, set_labels(labels_a, ymax_a), plot_a,
       title_b, max(len(lines_b), 1) - 0.4, ymax_b, box_b, set_labels(labels_b, ymax_b), plot_b)
    with open(os.path.join(outdir, "chart.gp"), "w") as f:
        f.write(gp)
    try:
        p = subprocess.run(["gnuplot", "chart.gp"], cwd=outdir, capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0:
            sys.stderr.write("report: gnuplot failed:\n" + p.stderr)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.stderr.write("report: gnuplot: %s\n" % e)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
