#!/usr/bin/env python3
"""table.py RESULTS_DIR: the table of make bench (tools/bench.sh).

Reads RESULTS_DIR/meta.tsv (what ran where) and rows.tsv (one row per
comparison, tab-separated, written by bench.sh) with the hyperfine JSON,
/usr/bin/time and wrk files they name, and prints one Markdown table:
what, logdown, peer, ratio, target, result.  A time ratio is the peer's
median over logdown's: above 1, logdown is faster."""
import json
import os
import re
import sys

res = sys.argv[1]


def medians(name):
    """command -> median wall time; cpu[command] -> mean user + system time."""
    with open(os.path.join(res, name + ".json")) as f:
        results = json.load(f)["results"]
    for r in results:
        cpu[r["command"]] = r["user"] + r["system"]
    return {r["command"]: r["median"] for r in results}


cpu = {}


def rss_kb(name):
    path = os.path.join(res, name)
    vals = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.isdigit():
                vals.append(int(line))
    if not vals:
        raise ValueError("no peak RSS in " + path)
    return max(vals)


def wrk(name):
    with open(os.path.join(res, name)) as f:
        t = f.read()
    m = re.search(r"Requests/sec:\s+([\d.]+)", t)
    rps = float(m.group(1)) if m else 0.0
    errs = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
    if m:
        errs += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    if m:
        errs += int(m.group(1))
    if not re.search(r"\d+ requests in", t):
        errs = -1  # wrk did not run
    return rps, errs


def secs(s):
    if s < 1:
        return "%.0f ms" % (s * 1000)
    return "%.2f s" % s


def wall_cpu(command, wall):
    """The wall time, and the CPU time when the machine was busy enough
    for the two to differ by more than a third."""
    c = cpu.get(command)
    if c is None or abs(c - wall) < wall / 3:
        return secs(wall)
    return "%s (CPU %s)" % (secs(wall), secs(c))


def mib(kb):
    return "%.1f MiB" % (kb / 1024)


def kbytes(b):
    if b >= 10**6:
        return "%.1f MB" % (b / 1e6)
    return "%.0f kB" % (b / 1e3)


def ratio(x):
    return "%.1fx" % x if x >= 10 else "%.2fx" % x


def judge(ok, short=""):
    if ok:
        return "met"
    return "**missed**" + (" (" + short + ")" if short else "")


lines = []
for raw in open(os.path.join(res, "rows.tsv")):
    f = raw.rstrip("\n").split("\t")
    kind, rid, what = f[0], f[1], f[2]
    cells = None
    try:
        if kind == "skip":
            cells = ["—", "—", "—", "—", "skipped: " + f[3]]
        elif kind == "time":
            med = medians(f[3])
            ld, peer = med[f[4]], med[f[5]]
            r = peer / ld
            target, result = "—", "—"
            if f[6].startswith(">="):
                want = float(f[6][2:])
                target = "≥ %gx" % want
                less = 100 * (1 - r / want)
                result = judge(r >= want, "logdown needs %s%% less time" %
                               ("%.1f" % less if less < 10 else "%.0f" % less))
            cells = [wall_cpu(f[4], ld), wall_cpu(f[5], peer), ratio(r), target, result]
        elif kind == "rate":
            ld = medians(f[3])[f[4]]
            gbs = int(f[5]) / ld / 1e9
            want = float(f[6]) / 1e9
            cells = ["%.2f GB/s" % gbs, "—", "—", "≥ %g GB/s (aim)" % want,
                     judge(gbs >= want, "%.0f%% of the aim" % (100 * gbs / want))]
        elif kind == "rss":
            ld, other = rss_kb(f[3]), rss_kb(f[4])
            if f[5] == "flat":
                r = ld / other
                cells = [mib(ld), mib(other) + " (small log)", "%.2fx" % r,
                         "flat (≤ 1.25x for 10x the bytes)",
                         judge(r <= 1.25, "grows %.2fx" % r)]
            else:
                cells = [mib(ld), mib(other), ratio(other / ld), "—", "—"]
        elif kind == "rssmax":
            # a peak RSS against an absolute bound in MiB ("-": none)
            ld = rss_kb(f[3])
            if f[4] == "-":
                cells = [mib(ld), "—", "—", "—", "—"]
            else:
                want = float(f[4])
                cells = [mib(ld), "—", "—", "≤ %g MiB" % want,
                         judge(ld / 1024 <= want, "%.1fx over" % (ld / 1024 / want))]
        elif kind == "size":
            ld, peer = int(f[3]), int(f[4])
            if ld and peer:
                cells = [kbytes(ld), kbytes(peer), ratio(peer / ld), "—", "—"]
            else:
                cells = ["—", "—", "—", "—", "error: %s wrote no file" %
                         ("logdown" if not ld else "the peer")]
        elif kind == "rps":
            (ld, lerr), (py, perr) = wrk(f[3]), wrk(f[4])
            want = float(f[5])
            r = ld / py if py else float("inf")
            ok = r >= want and lerr == 0
            why = []
            if r < want:
                why.append("needs %.1fx more requests/s" % (want / r))
            if lerr != 0:
                why.append("%s errors" % ("wrk failed:" if lerr < 0 else lerr))
            cells = ["%.0f req/s, %d errors" % (ld, max(lerr, 0)),
                     "%.0f req/s, %d errors" % (py, max(perr, 0)), ratio(r),
                     "≥ %gx, 0 errors" % want, judge(ok, ", ".join(why))]
        elif kind == "under":
            ld = medians(f[3])[f[4]]
            want = float(f[5])
            cells = [wall_cpu(f[4], ld), "—", "—", "< %s" % secs(want),
                     judge(ld < want, "%.1fx over" % (ld / want))]
        elif kind == "overhead":
            # judged on CPU time (user + system, every thread): the work
            # added, which a busy machine's waits do not blur
            med = medians(f[3])
            full, plain = med[f[4]], med[f[5]]
            want = float(f[6])
            more = cpu[f[4]] / cpu[f[5]] - 1
            cells = [wall_cpu(f[4], full), wall_cpu(f[5], plain) + " (without)",
                     "%+.0f%% CPU" % (100 * more), "≤ +%.0f%%" % (100 * want),
                     judge(more <= want, "adds %.0f%%" % (100 * more))]
        elif kind == "abs":
            ld = medians(f[3])[f[4]]
            clean = medians(f[5])[f[6]]
            # "-": no target, the row says what it costs
            want = None if f[7] == "-" else float(f[7])
            cells = [wall_cpu(f[4], ld), wall_cpu(f[6], clean) + " (clean)", ratio(clean / ld),
                     "—" if want is None else "< %s" % secs(want),
                     "—" if want is None else judge(ld < want, "%.1fx over" % (ld / want))]
        else:
            raise ValueError("unknown row kind " + kind)
    except FileNotFoundError as e:
        what_failed = os.path.basename(e.filename or "")
        if what_failed.endswith(".json"):
            msg = "error: a command failed, see the log above"
        else:
            msg = "error: no %s" % what_failed
        cells = ["—", "—", "—", "—", msg]
    except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
        cells = ["—", "—", "—", "—", "error: %s" % e]
    lines.append("| %s | %s | %s |" % (rid, what, " | ".join(cells)))

meta = [l.rstrip("\n").split("\t", 1) for l in open(os.path.join(res, "meta.tsv")) if "\t" in l]
loads = [v for k, v in meta if k == "load"]
for k, v in meta:
    if k == "load":
        continue
    if k == "peers":
        v = v.rstrip("; ")
    print("- %s: %s" % (k, v))
if loads:
    print("- load average: %s" % "; ".join(loads))
print()
print("| | comparison | logdown | peer | ratio | target | result |")
print("|---|---|---:|---:|---:|---|---|")
for l in lines:
    print(l)
print()
print("Times are hyperfine medians of wall time (with the mean user + system "
      "CPU time where the two differ by a third: a busy machine, or more than one "
      "thread); a ratio is the peer's time (or memory, or bytes) over logdown's, so "
      "above 1 logdown is faster or smaller; for serve it is logdown's requests/s "
      "over python's.")
