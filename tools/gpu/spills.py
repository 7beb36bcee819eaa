#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# Which kernels spill registers, without a GPU: reads the log of a build compiled with nvcc --resource-usage (ptxas
# prints each entry function's registers, stack frame and spill bytes) and lists the kernels that spill, most spill
# bytes first, demangled. Spills in a hot kernel are a place to look before a GPU call; ptxas -v of one file is the
# quick form (see docs/perf/conv-h200.md, run 37).
# Build and read (about 20 min on 2 cores, a separate build folder so that the main build's ccache stays warm):
#   cmake -S . -B /tmp/regs -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
#     -DCMAKE_CUDA_FLAGS=--resource-usage && cmake --build /tmp/regs --target cudnn > /tmp/regs.log 2>&1
#   tools/gpu/spills.py /tmp/regs.log [--match SUBSTRING] [--most N]
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description="kernels that spill, from an nvcc --resource-usage build log")
    ap.add_argument("log")
    ap.add_argument("--match", default="", help="only kernels whose demangled name contains this")
    ap.add_argument("--most", type=int, default=40, help="rows at most")
    a = ap.parse_args()
    entry = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
    usage = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
    regs = re.compile(r"Used (\d+) registers")
    rows, cur, seen = [], None, set()
    for line in open(a.log, errors="replace"):
        m = entry.search(line)
        if m:
            cur = [m.group(1), m.group(2), 0, 0, 0, 0]
            continue
        if cur is None:
            continue
        m = usage.search(line)
        if m:
            cur[2:5] = map(int, m.groups())
            continue
        m = regs.search(line)
        if m:
            cur[5] = int(m.group(1))
            key = (cur[0], cur[1])
            if key not in seen:  # a header compiled into several objects reports the same kernel again
                seen.add(key)
                rows.append(cur)
            cur = None
    names = subprocess.run(["c++filt"], input="\n".join(r[0] for r in rows), capture_output=True, text=True).stdout
    for r, n in zip(rows, names.split("\n")):
        r[0] = n
    spilling = [r for r in rows if (r[3] or r[4]) and a.match in r[0]]
    spilling.sort(key=lambda r: -(r[3] + r[4]))
    print(f"{len(rows)} kernels, {sum(1 for r in rows if r[3] or r[4])} spill"
          + (f", {len(spilling)} of them matching '{a.match}'" if a.match else ""))
    print("arch     regs  stack  spill-st  spill-ld  kernel")
    for name, arch, stack, st, ld, nreg in spilling[:a.most]:
        print(f"{arch:8} {nreg:4} {stack:6} {st:9} {ld:9}  {name[:160]}")
    if len(spilling) > a.most:
        print(f"(+{len(spilling) - a.most} more)")


if __name__ == "__main__":
    sys.exit(main())
