#!/usr/bin/env python3
"""Turn criterion's JSON output and the other bench results into the tables
of BENCHMARKS.md and the SVG plots under docs/ (standard library only).

    python3 benches/report.py [CRITERION_DIR] [--results DIR] [--out FILE] [--docs DIR]

CRITERION_DIR defaults to target/criterion; --results (machine.txt,
instructions.txt, compile_time.txt, written by benches/run_all.sh) defaults
to CRITERION_DIR/../bench-results. BENCHMARKS.md keeps its hand-written text:
only the blocks between `<!-- BEGIN name -->` and `<!-- END name -->` are
replaced (a missing file is created from a skeleton).
"""

import json
import math
import os
import re
import sys

# ------------------------------------------------------------------ input


def load_criterion(root):
    """full_id -> {median, mean, lo, hi (ns per iteration), tput: (kind, n)}."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "estimates.json" not in files:
            continue
        try:
            with open(os.path.join(dirpath, "benchmark.json")) as f:
                bench = json.load(f)
            with open(os.path.join(dirpath, "estimates.json")) as f:
                est = json.load(f)
        except (OSError, ValueError):
            continue
        tput = None
        if bench.get("throughput"):
            (kind, n), = bench["throughput"].items()
            tput = ("bytes" if kind.startswith("Bytes") else "elements", float(n))
        med = est["median"]
        out[bench["full_id"]] = {
            "median": med["point_estimate"],
            "lo": med["confidence_interval"]["lower_bound"],
            "hi": med["confidence_interval"]["upper_bound"],
            "mean": est["mean"]["point_estimate"],
            "tput": tput,
        }
    return out


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def read_kv(path):
    text = read_text(path) or ""
    kv = {}
    for line in text.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            kv[k.strip()] = v.strip()
    return kv


# ------------------------------------------------------------------ formatting

GIB = float(1 << 30)


def fmt_time(ns):
    if ns is None:
        return "n/a"
    if ns < 1e3:
        return "%.0f ns" % ns
    if ns < 1e6:
        return "%.2f µs" % (ns / 1e3)
    if ns < 1e9:
        return "%.2f ms" % (ns / 1e6)
    return "%.2f s" % (ns / 1e9)


def fmt_size(b):
    b = int(b)
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return "%d %s" % (b >> shift, unit)
    return "%d B" % b


def gibps(entry):
    """Bytes per second (GiB/s) at the median."""
    kind, n = entry["tput"]
    assert kind == "bytes"
    return n / (entry["median"] * 1e-9) / GIB


def per_sec(entry):
    kind, n = entry["tput"]
    return n / (entry["median"] * 1e-9)


def verdict(ok):
    return "met" if ok else "**missed**"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------ SVG plots


def nice_ticks(lo, hi, n=6):
    span = max(hi - lo, 1e-12)
    raw = span / n
    p = 10 ** math.floor(math.log10(raw))
    step = next(m * p for m in (1, 2, 2.5, 5, 10) if m * p >= raw)
    start = math.floor(lo / step) * step
    ticks = [round(start, 10)]
    while ticks[-1] < hi:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def log_ticks(lo, hi):
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return [m * 10.0 ** k for k in range(k0, k1 + 1) for m in (1, 2, 5)
            if 10.0 ** k0 <= m * 10.0 ** k <= 10.0 ** k1]


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


COLORS = ["#2b6cb0", "#dd6b20", "#2f855a", "#805ad5"]


def line_plot(path, title, xlabel, ylabel, series, xlabels, log2x=False, logy=False, note=None):
    """series: [(name, [(x, y)])]; xlabels: {x: text}."""
    W, H = 720, 420
    L, R, T, B = 80, 50, 50, 90
    pw, ph = W - L - R, H - T - B
    xs = sorted({x for _, pts in series for x, _ in pts})
    ys = [y for _, pts in series for _, y in pts]
    if not xs or not ys:
        return False
    fx = (lambda x: math.log2(x)) if log2x else (lambda x: x)
    x0, x1 = fx(xs[0]), fx(xs[-1])
    if x1 == x0:
        x1 = x0 + 1
    if logy:
        yt = log_ticks(min(ys), max(ys))
        ly0, ly1 = math.log10(yt[0]), math.log10(yt[-1])

        def py(y):
            return T + ph - (math.log10(y) - ly0) / (ly1 - ly0) * ph
    else:
        yt = nice_ticks(0, max(ys) * 1.05)
        y1 = yt[-1]

        def py(y):
            return T + ph - y / y1 * ph

    def px(x):
        return L + (fx(x) - x0) / (x1 - x0) * pw

    o = []
    o.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
             'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">' % (W, H, W, H))
    o.append('<rect width="100%" height="100%" fill="white"/>')
    o.append('<text x="%d" y="28" font-size="16" font-weight="bold">%s</text>' % (L, esc(title)))
    for t in yt:
        y = py(t)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e2e8f0"/>' % (L, y, L + pw, y))
        o.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>'
                 % (L - 6, y + 4, ("%g" % t)))
    for x in xs:
        X = px(x)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#edf2f7"/>' % (X, T, X, T + ph))
        o.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>'
                 % (X, T + ph + 16, esc(xlabels.get(x, "%g" % x))))
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#2d3748"/>' % (L, T, pw, ph))
    o.append('<text x="%.1f" y="%d" font-size="12" text-anchor="middle">%s</text>'
             % (L + pw / 2, T + ph + 36, esc(xlabel)))
    o.append('<text x="18" y="%.1f" font-size="12" text-anchor="middle" transform="rotate(-90 18 %.1f)">%s</text>'
             % (T + ph / 2, T + ph / 2, esc(ylabel)))
    for i, (name, pts) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        pts = sorted(pts)
        d = " ".join("%s%.1f,%.1f" % ("M" if j == 0 else "L", px(x), py(y)) for j, (x, y) in enumerate(pts))
        o.append('<path d="%s" fill="none" stroke="%s" stroke-width="2.2"/>' % (d, c))
        for x, y in pts:
            o.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s = %.3g</title></circle>'
                     % (px(x), py(y), c, esc(name), esc(xlabels.get(x, "%g" % x)), y))
        lx = L + i * 260
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                 % (lx, H - 26, lx + 24, H - 26, c))
        o.append('<text x="%d" y="%d" font-size="12">%s</text>' % (lx + 30, H - 22, esc(name)))
    if note:
        o.append('<text x="%d" y="%d" font-size="10" fill="#4a5568">%s</text>' % (L, H - 6, esc(note)))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")
    return True


# ------------------------------------------------------------------ sections

OVERHEAD = [
    ("stream_create_destroy", "stream create + destroy"),
    ("event_record_synchronize", "event record + synchronize"),
    ("memcpy_sync_4k", "sync 4 KiB copy (H2D)"),
    ("memcpy_async_4k_synchronize", "async 4 KiB copy + synchronize"),
    ("context_switch_copy_4k", "two 4 KiB copies, switching contexts"),
]


def section_overhead(c, results, missed):
    rows = []
    for gid, what in OVERHEAD:
        s, r = c.get(gid + "/safe"), c.get(gid + "/raw")
        if not s or not r:
            rows.append([what, "n/a", "n/a", "n/a", "not measured"])
            missed.append("zero-cost `%s`: not measured (bench `overhead` did not run)" % gid)
            continue
        ratio = s["median"] / r["median"]
        ok = ratio <= 1.05
        if not ok:
            missed.append("zero-cost `%s`: safe/raw = %.3f (target ≤ 1.05)" % (gid, ratio))
        rows.append([what, fmt_time(s["median"]), fmt_time(r["median"]), "%.3f" % ratio, verdict(ok)])
    # The async row again, measured in alternating blocks (bench
    # `interleaved`): robust to a slow period of the machine that criterion,
    # measuring one side after the other, may give to one side only.
    kv = read_kv(os.path.join(results, "interleaved.txt"))
    what = "async 4 KiB copy + synchronize, interleaved (bench `interleaved`: %s rounds × %s per side, median of per-round ratios)" % (
        kv.get("rounds", "?"), kv.get("block", "?"))
    if "async_ratio_median" in kv:
        ratio = float(kv["async_ratio_median"])
        ok = ratio <= 1.05
        if not ok:
            missed.append("zero-cost async round trip, interleaved: safe/raw = %.3f (target ≤ 1.05)" % ratio)
        rows.append([what,
                     "%s ns (blocks %s)" % (kv.get("async_safe_median_ns"), kv.get("async_safe_range_ns")),
                     "%s ns (blocks %s)" % (kv.get("async_raw_median_ns"), kv.get("async_raw_range_ns")),
                     "%.3f" % ratio, verdict(ok)])
    else:
        rows.append([what, "n/a", "n/a", "n/a", "not measured"])
        missed.append("zero-cost async round trip, interleaved: not measured (interleaved.txt missing)")
    # The service loop of issue 25 (bench `service_loop`): the safe loop of
    # `examples/21_service_loop.rs` against the same loop in raw C calls with
    # one event per batch, with a simulated kernel time, in alternating blocks.
    kv = read_kv(os.path.join(results, "service_loop.txt"))
    what = "service loop (bench `service_loop`: %s batches over %s streams, %s µs kernels, %s rounds, median of per-round ratios) vs the C loop" % (
        kv.get("batches", "?"), kv.get("streams", "?"), kv.get("kernel_us", "?"), kv.get("rounds", "?"))
    if "service_ratio_median" in kv:
        ratio = float(kv["service_ratio_median"])
        ok = ratio <= 1.05
        if not ok:
            missed.append("service loop: safe/C = %.3f (target ≤ 1.05)" % ratio)
        rows.append([what,
                     "%s ns/batch" % kv.get("service_safe_median_ns_per_batch"),
                     "%s ns/batch (ratios %s)" % (kv.get("service_raw_median_ns_per_batch"), kv.get("service_ratio_range")),
                     "%.3f" % ratio, verdict(ok)])
    else:
        rows.append([what, "n/a", "n/a", "n/a", "not measured"])
        missed.append("service loop: not measured (service_loop.txt missing)")
    # The same loop collecting each result with a checked wait (a stream
    # synchronisation: a faulted batch is known at collection), which the C
    # loop with one event per batch has no counterpart of (it never learns
    # a fault): reported, no target.
    if "service_checked_ratio_median" in kv:
        rows.append(["service loop, results collected with a checked wait (`Fence::wait`) vs the same C loop (which never learns a device fault)",
                     "%s ns/batch" % kv.get("service_checked_median_ns_per_batch"),
                     "%s ns/batch (ratios %s)" % (kv.get("service_raw_median_ns_per_batch"), kv.get("service_checked_ratio_range")),
                     "%.3f" % float(kv["service_checked_ratio_median"]), "no target (see below)"])
    return table(["operation (bench `overhead`)", "safe (median)", "raw (median)", "safe/raw", "target ≤ 1.05"], rows)


def section_sim(c, missed):
    rows = []

    def add(what, value, target, ok, source):
        if ok is None:
            missed.append("%s: not measured (%s did not run)" % (what, source))
            rows.append([what, "n/a", target, "not measured", source])
        else:
            if not ok:
                missed.append("%s: %s (target %s)" % (what, value, target))
            rows.append([what, value, target, verdict(ok), source])

    a, b = c.get("memcpy_64mib/aclrtMemcpy_d2d"), c.get("memcpy_64mib/copy_from_slice")
    if a and b:
        r = b["median"] / a["median"]
        add("64 MiB copy bandwidth / `copy_from_slice`",
            "%.3f (%.2f vs %.2f GiB/s)" % (r, gibps(a), gibps(b)), "≥ 0.9", r >= 0.9, "`sim_throughput`")
    else:
        add("64 MiB copy bandwidth / `copy_from_slice`", None, "≥ 0.9", None, "`sim_throughput`")
    a, b = c.get("scale_copy_size/aclrtMemcpy_d2d/67108864"), c.get("scale_copy_size/copy_from_slice/67108864")
    if a and b:
        r = b["median"] / a["median"]
        add("64 MiB copy bandwidth / `copy_from_slice` (second measurement)",
            "%.3f (%.2f vs %.2f GiB/s)" % (r, gibps(a), gibps(b)), "≥ 0.9", r >= 0.9, "`sim_scaling`")
    e = c.get("enqueue/memset_async_4B_then_sync/1000")
    if e:
        rate = per_sec(e)
        add("async enqueue rate, one stream (1000 × 4 B memset + sync)", "%.0f /s" % rate,
            "≥ 1,000,000 /s", rate >= 1e6, "`sim_throughput`")
    else:
        add("async enqueue rate, one stream", None, "≥ 1,000,000 /s", None, "`sim_throughput`")
    e = c.get("scale_enqueue/streams/1")
    if e:
        rate = per_sec(e)
        add("async enqueue rate, one stream (8000 tasks, second measurement)", "%.0f /s" % rate,
            "≥ 1,000,000 /s", rate >= 1e6, "`sim_scaling`")
    e = c.get("event_round_trip/record_then_synchronize_idle_stream")
    if e:
        add("event round trip (record + synchronize), median", fmt_time(e["median"]),
            "≤ 10 µs", e["median"] <= 10e3, "`sim_throughput`")
    else:
        add("event round trip, median", None, "≤ 10 µs", None, "`sim_throughput`")
    floor = c.get("round_trip/condvar_floor")
    for gid, what in (("memcpy_async_4k_then_sync", "async round trip (4 KiB copy + synchronize) / condvar floor"),
                      ("memset_record_sync_event", "event round trip (memset + record + synchronize event) / condvar floor")):
        e = c.get("round_trip/" + gid)
        if e and floor:
            r = e["median"] / floor["median"]
            add(what, "%.3f (%s vs %s)" % (r, fmt_time(e["median"]), fmt_time(floor["median"])),
                "≤ 1.2", r <= 1.2, "`sim_throughput`")
        else:
            add(what, None, "≤ 1.2", None, "`sim_throughput`")
    e = c.get("scale_launch/empty_kernel/1")
    if e:
        rate = per_sec(e)
        add("kernel launch rate, raw `aclrtLaunchKernelWithConfig` of an empty kernel, one stream",
            "%.0f /s" % rate, "≥ 1,000,000 /s", rate >= 1e6, "`sim_scaling`")
    else:
        add("kernel launch rate (raw)", None, "≥ 1,000,000 /s", None, "`sim_scaling`")
    e, raw = c.get("scale_launch/empty_kernel_safe/1"), c.get("scale_launch/empty_kernel/1")
    if e and raw:
        r = e["median"] / raw["median"]
        add("kernel launch, safe / raw (time)", "%.3f" % r, "≤ 1.02", r <= 1.02, "`sim_scaling`")
    # Otherwise the safe launch is measured in instructions (the kernel row
    # of the instruction table and the compute section), not in time here.
    a, b = c.get("two_streams_64mib/concurrent"), c.get("two_streams_64mib/one_after_the_other")
    if a and b:
        r = a["median"] / b["median"]
        add("two streams × 64 MiB copy: concurrent / serial", "%.3f (%s vs %s)"
            % (r, fmt_time(a["median"]), fmt_time(b["median"])), "≤ 0.6", r <= 0.6, "`sim_throughput`")
    else:
        add("two streams concurrent / serial", None, "≤ 0.6", None, "`sim_throughput`")
    a, b = c.get("overlap_baseline/two_threads"), c.get("overlap_baseline/serial")
    if a and b:
        rows.append(["baseline without the simulator: two 64 MiB `copy_from_slice` on two threads / serial",
                     "%.3f (%s vs %s)" % (a["median"] / b["median"], fmt_time(a["median"]), fmt_time(b["median"])),
                     "(bound for the line above)", "", "`sim_scaling`"])
    return table(["figure", "measured", "target", "verdict", "bench"], rows)


ENQUEUE_TARGETS = {8: 0.8, 64: 0.5}


def section_scaling(c, docs, rel_docs, missed):
    out = []
    rows, enq, bw = [], [], []
    one = c.get("scale_enqueue/streams/1")
    for k, t in ENQUEUE_TARGETS.items():
        e = c.get("scale_enqueue/streams/%d" % k)
        if not e or not one:
            missed.append("enqueue rate with %d streams: not measured (bench `sim_scaling` did not run)" % k)
        elif per_sec(e) / per_sec(one) < t:
            missed.append("enqueue rate with %d streams: %.2f× one stream (target ≥ %.1f×)"
                          % (k, per_sec(e) / per_sec(one), t))
    ks = sorted({int(k.rsplit("/", 1)[1]) for k in c
                 if k.startswith("scale_enqueue/streams/") or k.startswith("scale_copy_streams/streams/")})
    for k in ks:
        e = c.get("scale_enqueue/streams/%d" % k)
        b = c.get("scale_copy_streams/streams/%d" % k)
        if not e and not b:
            continue
        if e:
            enq.append((k, per_sec(e) / 1e6))
        if b:
            bw.append((k, gibps(b)))
        rows.append([k,
                     "%.2f M/s" % (per_sec(e) / 1e6) if e else "n/a",
                     ("%.2f" % (per_sec(e) / per_sec(one))) + (" (target ≥ %.1f)" % ENQUEUE_TARGETS[k] if k in ENQUEUE_TARGETS else "") if e and one else "n/a",
                     "%.2f GiB/s" % gibps(b) if b else "n/a",
                     "%.2f" % (gibps(b) / gibps(c["scale_copy_streams/streams/1"])) if b and c.get("scale_copy_streams/streams/1") else "n/a"])
    out.append(table(["streams", "enqueue rate (tasks/s)", "vs 1 stream", "aggregate copy bandwidth (16 MiB per stream)", "vs 1 stream"], rows))
    if enq:
        line_plot(os.path.join(docs, "enqueue_vs_streams.svg"),
                  "Simulator: async enqueue rate vs. streams",
                  "streams (one host thread, round-robin)", "million tasks per second",
                  [("4 B aclrtMemsetAsync, 8000 tasks + sync", enq)], {k: str(k) for k, _ in enq},
                  log2x=True, note="median of criterion samples; shared 2-core VM")
        out.append("\n![enqueue rate vs. streams](%s/enqueue_vs_streams.svg)" % rel_docs)
    if bw:
        line_plot(os.path.join(docs, "copy_bandwidth_vs_streams.svg"),
                  "Simulator: aggregate D2D copy bandwidth vs. streams",
                  "streams (one 16 MiB aclrtMemcpyAsync each)", "GiB/s",
                  [("aggregate bandwidth", bw)], {k: str(k) for k, _ in bw},
                  log2x=True, note="median of criterion samples; shared 2-core VM")
        out.append("\n![copy bandwidth vs. streams](%s/copy_bandwidth_vs_streams.svg)" % rel_docs)

    sizes = sorted({int(k.rsplit("/", 1)[1]) for k in c if k.startswith("scale_copy_size/")})
    rows, acl_pts, cfs_pts = [], [], []
    for s in sizes:
        a, b = c.get("scale_copy_size/aclrtMemcpy_d2d/%d" % s), c.get("scale_copy_size/copy_from_slice/%d" % s)
        if not a or not b:
            continue
        acl_pts.append((s, gibps(a)))
        cfs_pts.append((s, gibps(b)))
        rows.append([fmt_size(s), fmt_time(a["median"]), "%.2f GiB/s" % gibps(a),
                     "%.2f GiB/s" % gibps(b), "%.3f" % (b["median"] / a["median"])])
    out.append("")
    out.append(table(["size", "aclrtMemcpy D2D (median)", "aclrtMemcpy bandwidth", "copy_from_slice bandwidth", "ratio"], rows))
    if acl_pts:
        line_plot(os.path.join(docs, "bandwidth_vs_size.svg"),
                  "Simulator: synchronous D2D aclrtMemcpy vs. copy_from_slice",
                  "copy size", "GiB/s (log scale)",
                  [("aclrtMemcpy (D2D, simulator)", acl_pts), ("copy_from_slice", cfs_pts)],
                  {s: fmt_size(s) for s in sizes}, log2x=True, logy=True,
                  note="median of criterion samples; shared 2-core VM")
        out.append("\n![bandwidth vs. size](%s/bandwidth_vs_size.svg)" % rel_docs)
    return "\n".join(out)


def section_scale(c, results, missed):
    """Time per operation at scale, and memory per live resource."""
    rows = []
    for group, what, base, big, label, has_target in (
            ("scale_queued/memset_enqueue", "one `aclrtMemsetAsync`", 0, 1600, "1,600 tasks already queued", False),
            ("scale_alloc/malloc_free", "one `aclrtMalloc` + `aclrtFree`", 0, 100000, "10^5 other allocations live", True)):
        a, b = c.get("%s/%d" % (group, base)), c.get("%s/%d" % (group, big))
        if not a or not b:
            missed.append("%s with %s: not measured (bench `sim_scaling` did not run)" % (what, label))
            rows.append([what, label, "n/a", "n/a", "n/a", "not measured"])
            continue
        r = b["median"] / a["median"]
        # O(log n) from ~1 to 10^5..10^6 is a small constant factor; a
        # linear search would be 10^4 times slower or worse.
        ok = r <= 2.0
        if has_target and not ok:
            missed.append("%s with %s: %.2f× the time with none (target ≤ 2×)" % (what, label, r))
        rows.append([what, label, fmt_time(b["median"]), fmt_time(a["median"]), "%.2f" % r,
                     verdict(ok) if has_target else "(no target: reported)"])
    out = [table(["operation", "at scale", "time (median)", "time with nothing else live", "ratio",
                  "target: allocation table O(log n), ratio ≤ 2"], rows)]
    text = read_text(os.path.join(results, "memory.txt"))
    mem_rows = []
    names = {"stream": "idle stream (`aclrtCreateStream`)",
             "stream+task": "stream that executed one task",
             "event": "event, recorded (`aclrtCreateEvent` + `aclrtRecordEvent`)",
             "malloc32": "32-byte `aclrtMalloc` (64 simulated bytes included)"}
    for line in (text or "").splitlines():
        if "=" not in line:
            continue
        k, v = line.split("=", 1)
        n, per = v.split(",")
        mem_rows.append([names.get(k, k), n, "%.0f KiB" % (float(per) / 1024), "%.0f B" % (float(per) / 1000)])
    out.append("")
    if mem_rows:
        out.append(table(["resource", "live at once", "RSS growth per 1,000", "per resource"], mem_rows))
    else:
        out.append("_memory per resource not measured (memory.txt missing: run `benches/run_all.sh`)_")
        missed.append("memory per live resource: not measured")
    return "\n".join(out)


def section_machine(results):
    kv = read_kv(os.path.join(results, "machine.txt"))
    if not kv:
        return "_machine.txt not found: run `bash benches/run_all.sh`._"
    rows = [[k, v] for k, v in kv.items()]
    return table(["", ""], rows)


def section_instructions(results, missed):
    text = read_text(os.path.join(results, "instructions.txt"))
    if not text:
        return "_not measured (instructions.txt missing: valgrind not installed?)_"
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] != "op":
            ok = float(parts[3]) <= 1.02
            if not ok:
                missed.append("instructions `%s`: safe/raw = %s (target ≤ 1.02)" % (parts[0], parts[3]))
            rows.append(["`%s`" % parts[0], parts[1], parts[2], parts[3], verdict(ok)])
    if not rows:
        return "```\n" + text.strip() + "\n```"
    return table(["operation", "safe instructions/call", "raw instructions/call", "safe/raw", "target ≤ 1.02"], rows)


def section_compile(results, missed):
    kv = read_kv(os.path.join(results, "compile_time.txt"))
    if not kv:
        return "_not measured (compile_time.txt missing)_"

    def f(k):
        try:
            return float(kv[k])
        except (KeyError, ValueError):
            return None

    rows = []
    for key, what in (("build_dev_clean", "`cargo build -p aclrt` (dev) from clean, dependencies included"),
                      ("build_release_clean", "`cargo build -p aclrt --release` from clean, dependencies included"),
                      ("build_dev_crate", "`cargo build -p aclrt` (dev), only `aclrt` rebuilt"),
                      ("build_release_crate", "`cargo build -p aclrt --release`, only `aclrt` rebuilt")):
        if f(key) is not None:
            rows.append([what, "%.1f s" % f(key), ""])
    s, r = f("check_safe"), f("check_raw")
    if s is not None and r is not None:
        rows.append(["`cargo check --example compile_cost` (typestate API, %s lines)" % kv.get("lines_safe", "?"),
                     "%.2f s" % s, ""])
        rows.append(["`cargo check --example compile_cost_raw` (raw `aclrt::sys`, %s lines)" % kv.get("lines_raw", "?"),
                     "%.2f s" % r, ""])
        rows.append(["type-check ratio, typestate / raw", "", "**%.2f**" % (s / r)])
    s, r = f("build_safe"), f("build_raw")
    if s is not None and r is not None:
        rows.append(["`cargo build --example compile_cost` (dev)", "%.2f s" % s, ""])
        rows.append(["`cargo build --example compile_cost_raw` (dev)", "%.2f s" % r, ""])
        rows.append(["build ratio, typestate / raw", "", "**%.2f**" % (s / r)])
    note = kv.get("note")
    out = table(["what", "seconds", "ratio"], rows)
    if note:
        out += "\n\n" + note
    return out


def section_kernel(c, results, missed):
    """Kernel launch: safe/raw instructions (from instructions.txt) and the
    simulator's launch rate on one stream (`kernel_launch` bench)."""
    rows = []
    text = read_text(os.path.join(results, "instructions.txt")) or ""
    ratio = None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "kernel":
            ratio = float(parts[3])
            ok = ratio <= 1.02
            rows.append(["empty-kernel launch, safe `Lane::launch` / raw C sequence, instructions",
                         "%.3f (%s vs %s per launch)" % (ratio, parts[1], parts[2]), "≤ 1.02",
                         verdict(ok), "`icount` (callgrind)"])
            if not ok:
                missed.append("kernel launch safe/raw instructions = %.3f (target ≤ 1.02)" % ratio)
    if ratio is None:
        rows.append(["empty-kernel launch, safe / raw, instructions", "n/a", "≤ 1.02", "not measured",
                     "`icount` (callgrind)"])
        missed.append("kernel launch safe/raw instructions: not measured (valgrind missing?)")
    for bench, what in (("raw_c_abi", "raw C ABI"), ("safe_lane_launch", "safe `Lane::launch`")):
        e = None
        for k, v in c.items():
            if k.startswith("kernel_launch/%s/" % bench):
                e = v
        if e:
            rate = per_sec(e)
            target = "≥ 1,000,000 /s" if bench == "raw_c_abi" else "(for comparison)"
            ok = rate >= 1e6 if bench == "raw_c_abi" else None
            if ok is False:
                missed.append("simulator kernel launch rate, one stream: %.0f /s (target ≥ 1,000,000 /s)" % rate)
            rows.append(["simulator launch rate, one stream, empty kernel, %s (launches + one sync)" % what,
                         "%.0f /s" % rate, target, "" if ok is None else verdict(ok), "`kernel_launch`"])
        elif bench == "raw_c_abi":
            missed.append("simulator kernel launch rate: not measured (kernel_launch did not run)")
            rows.append(["simulator launch rate, one stream, empty kernel", "n/a", "≥ 1,000,000 /s",
                         "not measured", "`kernel_launch`"])
    return table(["figure", "measured", "target", "verdict", "bench"], rows)


def section_missed(missed):
    if not missed:
        return "Every target was met in this run."
    return "\n".join("* " + m for m in missed)


SKELETON = """# Benchmarks

<!-- BEGIN machine -->
<!-- END machine -->

<!-- BEGIN overhead -->
<!-- END overhead -->

<!-- BEGIN instructions -->
<!-- END instructions -->

<!-- BEGIN sim -->
<!-- END sim -->

<!-- BEGIN scaling -->
<!-- END scaling -->

<!-- BEGIN scale -->
<!-- END scale -->

<!-- BEGIN compile -->
<!-- END compile -->

<!-- BEGIN kernel -->
<!-- END kernel -->

<!-- BEGIN missed -->
<!-- END missed -->
"""


def main(argv):
    args = list(argv)
    opts = {"--results": None, "--out": "BENCHMARKS.md", "--docs": "docs"}
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            pos.append(a)
    crit = pos[0] if pos else os.path.join("target", "criterion")
    results = opts["--results"] or os.path.join(os.path.dirname(os.path.abspath(crit)), "bench-results")
    out, docs = opts["--out"], opts["--docs"]
    os.makedirs(docs, exist_ok=True)
    rel_docs = os.path.relpath(docs, os.path.dirname(os.path.abspath(out)) or ".")
    c = load_criterion(crit)
    if not c:
        print("report.py: no criterion results under %s" % crit, file=sys.stderr)
    missed = []
    blocks = {
        "machine": section_machine(results),
        "overhead": section_overhead(c, results, missed),
        "instructions": section_instructions(results, missed),
        "sim": section_sim(c, missed),
        "scaling": section_scaling(c, docs, rel_docs, missed),
        "scale": section_scale(c, results, missed),
        "compile": section_compile(results, missed),
        "kernel": section_kernel(c, results, missed),
    }
    blocks["missed"] = section_missed(missed)
    text = read_text(out) or SKELETON
    for name, body in blocks.items():
        pat = re.compile(r"(<!-- BEGIN %s -->\n).*?(<!-- END %s -->)" % (name, name), re.S)
        if not pat.search(text):
            text += "\n<!-- BEGIN %s -->\n<!-- END %s -->\n" % (name, name)
        text = pat.sub(lambda m: m.group(1) + body.rstrip() + "\n" + m.group(2), text)
    with open(out, "w") as f:
        f.write(text)
    print("report.py: wrote %s and plots under %s (%d criterion results)" % (out, docs, len(c)))
    for m in missed:
        print("  missed: " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
