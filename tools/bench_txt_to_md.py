#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Turns freednn-bench results into markdown tables for docs/perf: per case ours and NVIDIA's time, NVIDIA/ours,
TFLOP/s and % of the GEMM peak (convolutions), and both bandwidth figures with their % of the copy bandwidth:
"must" counts the bytes that must move (inputs read once, outputs written once), "moved" the bytes freednn's
kernels move (each pass over memory), with the passes.

Usage: tools/bench_txt_to_md.py RUN.txt|RUN.json [...] [--torch=TORCH.json]
  RUN.txt   freednn-bench's stdout; RUN.json its --json (either, one table per file, then a geomean line)
  a bench_torch.py JSON alone gives a table of PyTorch's times; --torch adds a "PyTorch (ms)" column to the
  tables, matched by case index (run both on the same batch with the same --dt / --layout).
"""
import argparse
import json
import math
import re
import sys

NUM = r"[0-9.eE+-]+"
LINE = re.compile(rf"^(\d+):(\w+) (.*?) \| \S+ ({NUM}) ms \(min [^)]*\)"
                  rf"(?: ({NUM}) TFLOP/s(?: ([0-9.]+)% peak)?)?"
                  rf" ({NUM}) GB/s ([0-9.]+)% bw"
                  rf"(?: moved ({NUM}) GB/s ([0-9.]+)% bw passes=(\d+))?"
                  rf"(?: same-size copy ([0-9.]+)%)?"
                  rf"(?: \| vs: (.*))?$")
VS = re.compile(rf"(?:({NUM}) ms ratio={NUM})?(?: impl=\S+)?(?: diff=(\S+))?")


def short_problem(p):
    return re.sub(r"(\w+)=([a-z0-9]+):([0-9x]+):[0-9x]+", r"\1=\2:\3", p)


def rows_from_text(path):
    rows = []
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        idx, _verdict, prob, ours, tflops, peak, gbs, bw, gbs_m, bw_m, passes, copy, vs = m.groups()
        prob = re.sub(r" (impl|err|tol)=\S+", "", prob)  # what ran and the check, not the problem
        r = dict(index=int(idx), problem=prob, ours=float(ours), tflops=tflops, peak=peak, gbs=gbs, bw=bw,
                 gbs_moved=gbs_m, bw_moved=bw_m, passes=passes, copy=copy, theirs=None, diff=None, vs_note=None)
        if vs is not None:
            vm = VS.match(vs.strip())
            if vm and vm.group(1):
                r["theirs"], r["diff"] = float(vm.group(1)), vm.group(2)
            else:
                r["vs_note"] = vs.strip()
        rows.append(r)
    return rows


def fmt(v, f="{:.4g}"):
    return "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f.format(v)


def rows_from_json(run):
    rows = []
    for c in run.get("cases", []):
        lib = c.get("lib") or {}
        if not lib.get("t_med_ms"):
            continue
        vs = c.get("vs") or {}
        pct = lambda v: fmt(100 * v, "{:.1f}") if isinstance(v, (int, float)) else ""
        rows.append(dict(index=c.get("index"), problem=c.get("problem", ""), ours=lib["t_med_ms"],
                         tflops=fmt(lib.get("tflops")) if c.get("flops") else None,
                         peak=pct(lib.get("peak_frac")) if c.get("flops") and lib.get("peak_tflops") else None,
                         gbs=fmt(lib.get("gbs")), bw=pct(lib.get("bw_frac")),
                         gbs_moved=fmt(lib.get("gbs_moved")), bw_moved=pct(lib.get("bw_frac_moved")),
                         passes=fmt(c.get("passes"), "{:.0f}"), copy=pct(lib.get("copy_same_frac")),
                         theirs=vs.get("t_med_ms"),
                         diff=fmt(c.get("diff"), "{:.3g}"), vs_note=vs.get("status") if vs and not vs.get("t_med_ms")
                         else None))
    return rows


def torch_key(problem):
    """A conv problem as bench_torch.py and freednn-bench both name it: the shape without the output size, the
    unit dilation and the trailing options (bench_torch.py writes a shorter string), and without the data type and
    layout (one table is one configuration; bench_torch.py before 2026-12-01 named every case by the batch file's
    data type whatever --dt said)."""
    p = problem.split(" mode=")[0].split(" alpha=")[0]
    w = p.split()
    if len(w) >= 5 and w[0] == "conv":
        p = " ".join(w[:2] + w[4:])
    p = re.sub(r"oh\d+ow\d+", "", p)
    return re.sub(r"dh1dw1$", "", p.strip())


def table(title, rows, torch_times, vs_label="NVIDIA"):
    print(f"### {title}\n")
    cols = ["#", "problem", "ours (ms)", f"{vs_label} (ms)", f"{vs_label}/ours"]
    if torch_times is not None:
        cols += ["PyTorch (ms)", "PyTorch/ours"]
    cols += ["TFLOP/s", "% peak", "GB/s must", "% bw", "passes", "GB/s moved", "% bw moved"]
    with_copy = any(r.get("copy") for r in rows)
    if with_copy:
        cols += ["% same-size copy"]
    cols += ["max diff"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    speedups, tspeed = [], []
    for r in rows:
        theirs, ours = r["theirs"], r["ours"]
        sp = theirs / ours if theirs and ours else None
        if sp:
            speedups.append(sp)
        cells = [str(r["index"]), f"`{short_problem(r['problem'])}`", fmt(ours),
                 fmt(theirs) if theirs else (r["vs_note"] or ""), fmt(sp, "{:.2f}")]
        if torch_times is not None:
            t = torch_times.get(torch_key(r["problem"]))
            ts = t / ours if t and ours else None
            if ts:
                tspeed.append(ts)
            cells += [fmt(t), fmt(ts, "{:.2f}")]
        cells += [r["tflops"] or "", r["peak"] or "", r["gbs"] or "", r["bw"] or "", r["passes"] or "",
                  r["gbs_moved"] or "", r["bw_moved"] or ""]
        if with_copy:
            cells += [r.get("copy") or ""]
        cells += [r["diff"] or ""]
        print("| " + " | ".join(cells) + " |")
    for name, s in ((vs_label, speedups), ("PyTorch", tspeed)):
        if s:
            g = math.exp(sum(math.log(v) for v in s) / len(s))
            print(f"\ngeomean {name}/ours = {g:.2f} over {len(s)} cases; worst {min(s):.2f}; "
                  f"{sum(v >= 1 for v in s)} of {len(s)} cases at or faster than {name}")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--torch", help="a bench_torch.py JSON: adds PyTorch's times, matched by problem")
    args = ap.parse_args()
    torch_times = None
    if args.torch:
        run = json.load(open(args.torch))
        torch_times = {torch_key(c.get("problem", "")): (c.get("lib") or {}).get("t_med_ms")
                       for c in run.get("cases", [])}
    for path in args.runs:
        name = path.split("/")[-1]
        if path.endswith(".json"):
            run = json.load(open(path))
            if run.get("tool") == "bench_torch.py":
                print(f"### {name} ({run.get('lib', 'torch')})\n")
                print("| # | problem | PyTorch (ms) | TFLOP/s | GB/s must | note |")
                print("|---|---|---|---|---|---|")
                for c in run.get("cases", []):
                    lib = c.get("lib") or {}
                    print(f"| {c.get('index')} | `{short_problem(c.get('problem', ''))}` | {fmt(lib.get('t_med_ms'))} | "
                          f"{fmt(lib.get('tflops')) if c.get('flops') else ''} | {fmt(lib.get('gbs'))} | "
                          f"{c.get('reason', '')} |")
                print()
                continue
            table(name, rows_from_json(run), torch_times)
        else:
            table(name, rows_from_text(path), torch_times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
