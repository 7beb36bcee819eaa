#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Turns freednn-bench --vs text output into a markdown table (ours, NVIDIA's, speedup, GB/s, % of copy bw).

Usage: tools/bench_txt_to_md.py RUN.txt [RUN.txt ...]  (one table per file, then a geomean line each)."""
import math
import re
import sys

LINE = re.compile(r"^(\d+):(\w+) (.*?) \| \S+ ([0-9.e+-]+) ms \(min [^)]*\)(?: [0-9.e+-]+ TFLOP/s [0-9.]+% peak)?"
                  r" ([0-9.e+-]+) GB/s ([0-9.]+)% bw \| vs: (.*)$")


def main():
    for path in sys.argv[1:]:
        print(f"### {path.split('/')[-1]}\n")
        print("| # | problem | ours (ms) | NVIDIA (ms) | NVIDIA/ours | GB/s | % copy bw | max diff |")
        print("|---|---|---|---|---|---|---|---|")
        speedups = []
        for line in open(path):
            m = LINE.match(line.strip())
            if not m:
                continue
            idx, _status, prob, ours, gbs, bw, vs = m.groups()
            prob = re.sub(r"(\w+)=([a-z0-9]+):([0-9x]+):[0-9x]+", r"\1=\2:\3", prob)
            vm = re.match(r"([0-9.e+-]+) ms ratio=([0-9.]+) diff=(\S+)", vs)
            if vm:
                theirs, diff = vm.group(1), vm.group(3)
                sp = float(theirs) / float(ours)
                speedups.append(sp)
                print(f"| {idx} | `{prob}` | {float(ours):.4g} | {float(theirs):.4g} | {sp:.2f} | {gbs} | {bw} | {diff} |")
            else:
                print(f"| {idx} | `{prob}` | {float(ours):.4g} | {vs.strip()} | | {gbs} | {bw} | |")
        if speedups:
            g = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
            worst = min(speedups)
            print(f"\ngeomean NVIDIA/ours = {g:.2f} over {len(speedups)} cases; worst {worst:.2f}; "
                  f"{sum(s >= 1 for s in speedups)} of {len(speedups)} cases at or faster than NVIDIA\n")


if __name__ == "__main__":
    main()
