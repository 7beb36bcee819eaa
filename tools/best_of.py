#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Compares freednn against the fastest time NVIDIA's libraries showed over several calls.

NVIDIA's legacy Find and PyTorch's cudnn.benchmark pick their engines per process, and on the H200 their time for
one layer can differ 2x from call to call (conv-h200.md run 16). A bar that must hold "against NVIDIA" should hold
against its best showing, so this takes, per case, the smallest median time of the reference side over every
file given, and freednn's median from the first freednn-bench file (the run being judged).

    tools/best_of.py ours.json --vs a.json b.json [--torch t1.json t2.json] [--ours-from part.json ...]

ours.json, a.json, b.json: freednn-bench --json outputs of --vs runs over one batch ("vs" is NVIDIA's side);
t*.json: tools/bench_torch.py outputs over the same batch. Cases are matched by index and checked by their
problem's shape word. Prints the per-direction geomeans and worst cases of NVIDIA/ours and PyTorch/ours.
part.json: freednn-bench --json outputs of a later --vs run over some of the cases (e.g. the layers a change
touched), matched by problem: their times replace ours.json's (the last file wins), and their NVIDIA times join
the references.
"""
import argparse
import json
import math
import re
import sys


def cases(path):
    with open(path) as f:
        return json.load(f)["cases"]


def shape(problem):
    words = problem.split()
    return next((w for w in words if "mb" in w), ""), words[1] if len(words) > 1 else ""


def t_med(side):
    v = (side or {}).get("t_med_ms")
    return v if isinstance(v, (int, float)) and v > 0 else None


def best(files, key, n):
    """Per case index, the smallest positive t_med of side `key` over the files (None where none has one)."""
    out = [None] * n
    for path in files:
        for i, c in enumerate(cases(path)[:n]):
            t = t_med(c.get(key))
            if t is not None and (out[i] is None or t < out[i]):
                out[i] = t
    return out


def key(problem):
    """Direction and the shape word's input, filter and stride fields (bench_torch.py leaves out oh / ow)."""
    word, direction = shape(problem)
    fields = re.findall(r"(g|mb|ic|id|ih|iw|oc|kd|kh|kw|sd|sh|sw|pd|ph|pw)(\d+)", word)
    return direction, tuple(fields)


def check_same(ours, path):
    for a, b in zip(ours, cases(path)):
        if key(a["problem"]) != key(b["problem"]):
            sys.exit(f"{path}: case {a['index']} is {b['problem']!r}, not {a['problem']!r}")


def report(name, ours, ref, per_case=False):
    groups = {}
    for c, r in zip(ours, ref):
        t = t_med(c.get("lib"))
        if t is None or r is None:
            continue
        groups.setdefault(shape(c["problem"])[1], []).append((r / t, c["problem"]))
        if per_case:
            print(f"  {r / t:5.2f}  ours {t:.4f} ms  {name} {r:.4f} ms  {' '.join(shape(c['problem'])[::-1])}")
    for direction, rows in groups.items():
        gm = math.exp(sum(math.log(x) for x, _ in rows) / len(rows))
        worst = min(rows)
        print(f"{name}/ours {direction:7} geomean {gm:.2f} over {len(rows)} cases; worst {worst[0]:.2f} "
              f"({shape(worst[1])[0]}); {sum(x < 0.8 for x, _ in rows)} below 0.8, {sum(x < 1 for x, _ in rows)} below 1")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ours", help="freednn-bench --json of the run being judged")
    ap.add_argument("--vs", nargs="*", default=[], help="freednn-bench --json files whose 'vs' side is NVIDIA")
    ap.add_argument("--torch", nargs="*", default=[], help="tools/bench_torch.py --json files")
    ap.add_argument("--cases", action="store_true", help="also print every case's ratio and times")
    ap.add_argument("--ours-from", nargs="*", default=[],
                    help="freednn-bench --json files of a later --vs run over some of the cases")
    a = ap.parse_args()
    ours = cases(a.ours)
    for path in a.vs + a.torch:
        check_same(ours, path)
    later = {}  # problem key -> the latest re-run of it
    for path in a.ours_from:
        for c in cases(path):
            later[key(c["problem"])] = c
    replaced = 0
    for c in ours:
        again = later.get(key(c["problem"]))
        if again is not None and t_med(again.get("lib")) is not None:
            c["lib"] = again["lib"]
            replaced += 1
    if a.ours_from:
        print(f"ours: {replaced} of {len(ours)} cases from {' '.join(a.ours_from)}")
    if a.vs:
        ref = best([a.ours] + a.vs, "vs", len(ours))
        for i, c in enumerate(ours):
            again = t_med((later.get(key(c["problem"])) or {}).get("vs"))
            if again is not None and (ref[i] is None or again < ref[i]):
                ref[i] = again
        report("NVIDIA(best)", ours, ref, a.cases)
    if a.torch:
        report("PyTorch(best)", ours, best(a.torch, "lib", len(ours)), a.cases)


if __name__ == "__main__":
    main()
