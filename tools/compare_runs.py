#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""freednn's own times in two freednn-bench --json runs over the same cases (e.g. two calls, two trees): per case
the old and new median time, their ratio and the implementation each chose; per direction the geomean ratio.
Two machines are not a clean A/B (tools/gpu/ab.sh is); this shows what moved and which choices changed.
Usage: tools/compare_runs.py OLD.json NEW.json"""
import json
import math
import re
import sys


def times(path):
    out = {}
    for case in json.load(open(path))["cases"]:
        lib = case.get("lib") or {}
        if lib.get("t_med_ms"):
            out[case["problem"]] = lib
    return out


def short(problem):
    m = re.search(r"(ic\d+ih\d+)\S*?(oc\d+)\S*?(kh\d+)\S*?(sh\d+)", problem)
    return "".join(m.groups()) if m else problem[:60]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = times(sys.argv[1]), times(sys.argv[2])
    logs = {}
    for problem, o in old.items():
        n = new.get(problem)
        if n is None:
            continue
        direction = problem.split()[1]
        ratio = n["t_med_ms"] / o["t_med_ms"]
        logs.setdefault(direction, []).append(math.log(ratio))
        print(f"{direction:6s} {o['t_med_ms']:.4f} -> {n['t_med_ms']:.4f} {ratio:.2f} "
              f"{o.get('impl', '')[-20:]:20s} -> {n.get('impl', '')[-20:]:20s} {short(problem)}")
    for direction, v in logs.items():
        print(f"{direction} geomean new/old {math.exp(sum(v) / len(v)):.3f} over {len(v)} cases")


if __name__ == "__main__":
    main()
