#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Fits the _v7 cost model's per-implementation factors to what Find measured.

Input: files written with FREEDNN_FIND_LOG=<file> (one line per timed implementation: problem, algorithm,
implementation, measured ms, uncalibrated estimate ms), e.g. from a freednn-bench --algo=any run on the GPU.
Output: src/dispatch/conv_calibration_table.inc (--write) with the geometric mean of measured / estimated per
(implementation, class), for two levels of class: the data class ("f16", "f32fma", ...) and the data class with
the direction and the filter shape ("f16/bwd_w/k_s2": a k x k filter with k > 1 and a stride > 1; "1x1_s1", ...).
The library takes the finer factor when the table has it, else the data class's (dispatch/conv_calibration.cpp).
Also a report of how well _v7's first choice matches Find's best, uncalibrated, with the library's current table
and calibrated on the logs given, and (--holdout)
the same with factors fitted on half of the problems and tested on the other half.

Usage: tools/calibrate_conv.py LOG... [--write] [--source="2026-11-29 H200 run 7, command ..."]
"""
import argparse
import collections
import math
import os
import random
import re
import sys

TABLE = os.path.join(os.path.dirname(__file__), "..", "src", "dispatch", "conv_calibration_table.inc")


def data_class(problem):
    dt = problem.split()[2]
    return "f32fma" if dt == "f32" and "math=fma" in problem else dt


def shape_class(problem):
    """The data class with the direction and the filter shape, as calibration_class_fine() in the library: the
    shape word (benchdnn style, "...kd3kh3kw3sd2sh2sw2...") says whether the filter is 1x1 and the stride 1."""
    words = problem.split()
    shape = next((w for w in words if "mb" in w and "kh" in w), "")
    ks = [int(v) for v in re.findall(r"k[dhw](\d+)", shape)] or [1]
    ss = [int(v) for v in re.findall(r"s[dhw](\d+)", shape)] or [1]
    kernel = "1x1" if all(k == 1 for k in ks) else "k"
    stride = "s1" if all(v == 1 for v in ss) else "s2"
    return f"{data_class(problem)}/{words[1]}/{kernel}_{stride}"


def factor_of(factors, impl, problem):
    """The factor the library uses: the finer class's when fitted, else the data class's; None without either."""
    f = factors.get((impl, shape_class(problem)))
    return f if f is not None else factors.get((impl, data_class(problem)))


def load(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) != 5:
                    continue
                prob, algo, impl, ms, est = parts
                ms, est = float(ms), float(est)
                if ms > 0 and est > 0:
                    rows.append((prob, algo, impl, ms, est))
    return rows


def current_table():
    """The factors the library has now (TABLE), to judge them on new logs before a refit replaces them."""
    factors = {}
    if os.path.exists(TABLE):
        for impl, cls, fac in re.findall(r'\{"([^"]+)", "([^"]+)", ([0-9.eE+-]+)\}', open(TABLE).read()):
            factors[(impl, cls)] = float(fac)
    return factors


def fit(rows):
    """Factors for both class levels. On run 8's logs (8 half/half splits) the finer classes took _v7's first
    choice from 1.090x to 1.066x Find's best (geomean over the held-out problems); requiring 3 or more timings
    per finer factor lost that gain, so every fitted one is kept."""
    logs = collections.defaultdict(list)
    for prob, _, impl, ms, est in rows:
        logs[(impl, data_class(prob))].append(math.log(ms / est))
        logs[(impl, shape_class(prob))].append(math.log(ms / est))
    return {k: math.exp(sum(v) / len(v)) for k, v in logs.items()}, {k: len(v) for k, v in logs.items()}


def v7_quality(rows, factors):
    """Per problem: the (algorithm, implementation) _v7 puts first against Find's fastest, with the library's policy
    (dispatch/conv_registry.h) when nothing was found: an algorithm runs its accepting implementation with the lowest
    calibrated estimate when every one has a factor, else the registry's first (the first one Find logged for it:
    Find times the candidates in registry order); _v7 ranks the algorithms by that implementation's estimate.
    Returns (problems, picks within 10 % of the fastest, geomean slowdown)."""
    cands = collections.defaultdict(lambda: collections.defaultdict(list))  # problem -> algo -> [(ms, est, has)]
    fastest = {}
    for prob, algo, impl, ms, est in rows:
        f = factor_of(factors, impl, prob)
        cands[prob][algo].append((ms, est * (f if f is not None else 1.0), f is not None))
        fastest[prob] = min(ms, fastest.get(prob, ms))
    within, logs = 0, []
    for prob, algos in cands.items():
        runs = [min(c, key=lambda v: v[1]) if all(v[2] for v in c) else c[0] for c in algos.values()]
        pick = min(runs, key=lambda v: v[1])[0]
        within += pick <= 1.1 * fastest[prob]
        logs.append(math.log(pick / fastest[prob]))
    n = len(cands)
    return n, within, math.exp(sum(logs) / n) if n else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--write", action="store_true", help="rewrite src/dispatch/conv_calibration_table.inc")
    ap.add_argument("--source", default="", help="where the measurements came from (kept in the table)")
    ap.add_argument("--holdout", type=int, default=0, metavar="N",
                    help="also N random half/half splits: factors fitted on one half of the problems, tested on the other")
    a = ap.parse_args()
    rows = load(a.logs)
    if not rows:
        sys.exit("no measurements in " + ", ".join(a.logs))
    factors, counts = fit(rows)
    for (impl, cls), f in sorted(factors.items()):
        print(f"{impl:28s} {cls:7s} factor {f:9.3g}  ({counts[(impl, cls)]} timings)")
    # "calibrated": the factors fitted on these logs (tools/bench/find_log_test.cmake expects that line)
    for name, fac in (("uncalibrated", {}), ("library's current table", current_table()), ("calibrated", factors)):
        n, within, slow = v7_quality(rows, fac)
        print(f"_v7 first choice, {name}: within 10% of Find's best for {within} of {n} problems, "
              f"geomean time {slow:.3f}x the best")
    problems = sorted({r[0] for r in rows})
    for seed in range(a.holdout):
        random.Random(seed).shuffle(problems)
        train = set(problems[: len(problems) // 2])
        held, _ = fit([r for r in rows if r[0] in train])
        n, within, slow = v7_quality([r for r in rows if r[0] not in train], held)
        print(f"held-out split {seed}: within 10% for {within} of {n} problems, geomean {slow:.3f}x the best")
    if a.write:
        with open(TABLE, "w") as f:
            f.write("// SPDX-License-Identifier: Apache-2.0\n// Generated by tools/calibrate_conv.py: do not edit.\n")
            f.write("// Measured / estimated time per (implementation, data class): geometric mean over "
                    f"{len(rows)} Find timings.\n")
            if a.source:
                f.write("// Source: " + re.sub(r"\s+", " ", a.source) + "\n")
            for (impl, cls), fac in sorted(factors.items()):
                f.write(f'{{"{impl}", "{cls}", {fac:.4g}}},  // {counts[(impl, cls)]} timings\n')
        print("wrote", os.path.normpath(TABLE))


if __name__ == "__main__":
    main()
