#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Checks freednn-bench --vs runs of the ops batch against issue 5's bars.

    tools/ops_bars.py ops_f32_nchw.json ops_f16_nhwc.json ops_bf16_nhwc.json [--bw 0.85] [--geomean 1.3]

Per file (one data type and layout), and over every file together:
  - time: each case timed by both libraries at or below NVIDIA's time (our median over NVIDIA's median);
  - geomean of NVIDIA / ours over those cases at least --geomean;
  - bandwidth: each case's passes move their bytes at --bw or more of the copy bandwidth measured in the same run
    (bw_frac_moved: bytes_moved over our time, over the run's copy bandwidth).
Prints each bar's verdict and the cases that miss it, and for reference how many cases reach --bw of a copy of the
same bytes (copy_same_frac) and the cases below --bw of it; exits 0 when every bar holds, 1 otherwise.
"""
import argparse
import json
import math
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def med(side):
    v = (side or {}).get("t_med_ms")
    return v if isinstance(v, (int, float)) and v > 0 else None


def short(problem, width=90):
    return problem if len(problem) <= width else problem[: width - 3] + "..."


def check(name, cases, bw_bar, gm_bar):
    """Prints the bars for one set of cases; returns whether all three hold."""
    timed = [(c, med(c.get("lib")), med(c.get("vs"))) for c in cases]
    both = [(c, ours, nv) for c, ours, nv in timed if ours is not None and nv is not None]
    slower = [(nv / ours, c) for c, ours, nv in both if ours > nv]
    gm = math.exp(sum(math.log(nv / ours) for _, ours, nv in both) / len(both)) if both else float("nan")
    bw = [((c.get("lib") or {}).get("bw_frac_moved"), c) for c, ours, _ in timed if ours is not None]
    bw = [(f, c) for f, c in bw if isinstance(f, (int, float)) and f > 0]
    low = sorted(((f, c) for f, c in bw if f < bw_bar), key=lambda x: x[0])  # ties: never compare the cases
    ok_time, ok_gm, ok_bw = not slower, both and gm >= gm_bar, not low
    print(f"== {name}: {len(both)} cases timed by both, {len(bw)} with a bandwidth model")
    print(f"  time     {'PASS' if ok_time else 'FAIL'}: {len(both) - len(slower)} of {len(both)} at or below NVIDIA's")
    for r, c in sorted(slower, key=lambda x: x[0]):
        print(f"           {r:.2f}  {short(c['problem'])}")
    print(f"  geomean  {'PASS' if ok_gm else 'FAIL'}: NVIDIA/ours {gm:.2f} (bar {gm_bar})")
    print(f"  bw       {'PASS' if ok_bw else 'FAIL'}: {len(bw) - len(low)} of {len(bw)} at >= {bw_bar:.0%} of copy bw")
    for f, c in low:
        print(f"           {f:.1%}  {short(c['problem'])}")
    # For reference, not a bar: against a copy of the same bytes timed the same way (small tensors cannot reach the
    # large copy's bandwidth; neither can a copy of their size).
    same = [((c.get("lib") or {}).get("copy_same_frac"), c) for c, ours, _ in timed if ours is not None]
    same = [(f, c) for f, c in same if isinstance(f, (int, float)) and f > 0]
    if same:
        n_ok = sum(1 for f, _ in same if f >= bw_bar)
        print(f"  (same-size copy: {n_ok} of {len(same)} at >= {bw_bar:.0%} of its speed, bytes as the pass model counts)")
        for f, c in sorted(((f, c) for f, c in same if f < bw_bar), key=lambda x: x[0]):
            print(f"           {f:.1%} of a same-size copy  {short(c['problem'])}")
    return bool(ok_time and ok_gm and ok_bw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="freednn-bench --json outputs of --vs runs over the ops batch")
    ap.add_argument("--bw", type=float, default=0.85, help="fraction of the copy bandwidth each case must reach")
    ap.add_argument("--geomean", type=float, default=1.3, help="geomean NVIDIA / ours each file must reach")
    a = ap.parse_args()
    ok = True
    every = []
    for path in a.files:
        cases = load(path)["cases"]
        every += cases
        ok = check(path, cases, a.bw, a.geomean) and ok
    if len(a.files) > 1:
        ok = check("all files", every, a.bw, a.geomean) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
