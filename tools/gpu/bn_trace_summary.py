#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
# bn_cluster's phase stamps (a library from tools/gpu/prebuilt.sh trace NAME, lines "bntrace ..." on stdout) -> per
# phase the median and maximum over the blocks of the last launch in each file.
# Usage: tools/gpu/bn_trace_summary.py FILE...
import sys, statistics as st
# the intervals between thread 0's stamps (bn_cluster.cuh); with FREEDNN_BN_CLUSTER_PIPE=1 the second one ends at
# the first batch's copies and the third holds the later batches' waits and sums
names = ["issue stash copies", "wait for copies", "sum stash", "block partials", "cluster/grid barrier",
         "finalize", "apply + stores issued"]
for f in sys.argv[1:]:
    rows = []
    for line in open(f):
        if not line.startswith("bntrace"):
            continue
        v = line.split()[1:]
        rows.append([int(x) for x in v])
    if not rows:
        print(f, "no trace"); continue
    rows.sort(key=lambda r: r[2])
    # launches: split where the start times jump by > 20 us
    groups, cur = [], [rows[0]]
    for r in rows[1:]:
        if r[2] - cur[-1][2] > 20000: groups.append(cur); cur = [r]
        else: cur.append(r)
    groups.append(cur)
    g = groups[-1]
    t0 = min(r[2] for r in g)
    ghz = st.median([r[9] / r[10] for r in g if r[10] > 0])  # cycles per ns
    print(f"{f}: {len(groups)} launches, last has {len(g)} blocks; SM clock ~{ghz:.2f} GHz")
    starts = [(r[2] - t0) / 1000 for r in g]
    ends = [(r[2] - t0 + r[10]) / 1000 for r in g]
    print(f"  block starts: min 0, median {st.median(starts):.2f}, max {max(starts):.2f} us; "
          f"ends (stores issued): median {st.median(ends):.2f}, max {max(ends):.2f} us")
    prev = [0] * len(g)
    for k, n in enumerate(names):
        cur = [r[3 + k] for r in g]
        d = [(c - p) / ghz / 1000 for c, p in zip(cur, prev)]
        print(f"  {n:24s} median {st.median(d):6.2f}  max {max(d):6.2f} us")
        prev = cur
