#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Runs freednn-bench batch files through PyTorch on the GPU, timed the same way (CUDA events around many
back-to-back calls after warm-up, inputs rotated past the L2, median and minimum), and writes the same JSON
as freednn-bench --json, so a report can show PyTorch's path (cuDNN v9 graph API / its own kernels) beside
NVIDIA's legacy API and freednn.

    python3 tools/bench_torch.py --batch=tools/bench/batches/resnet50.txt [--dt=f16 --layout=nhwc] --json=out.json
"""
import argparse
import json
import re
import statistics
import sys

import torch
import torch.nn.functional as F

DT = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}


def tensor_spec(v):
    """'<dt>:<dims>[:<strides>]' or '<dt>:<nchw|nhwc>:<dims>' -> (dtype, dims, nhwc)."""
    f = v.split(":")
    if f[1] in ("nchw", "nhwc"):
        return f[0], [int(d) for d in f[2].split("x")], f[1] == "nhwc"
    dims = [int(d) for d in f[1].split("x")]
    nhwc = len(f) == 3 and len(dims) >= 3 and int(f[2].split("x")[1]) == 1 and dims[1] > 1
    return f[0], dims, nhwc


def make(dt, dims, nhwc, grad=False):
    t = torch.rand(dims, device="cuda", dtype=DT[dt]) * 2 - 1
    if nhwc and len(dims) == 4:
        t = t.to(memory_format=torch.channels_last)
    if nhwc and len(dims) == 5:
        t = t.to(memory_format=torch.channels_last_3d)
    return t.requires_grad_(grad)


def parse(line, args):
    tok = line.split("#")[0].split()
    if tok and tok[0] == "freednn-bench":
        tok = tok[1:]
    if not tok:
        return None
    fam, d = tok[0], tok[1]
    pos = [t for t in tok[2:] if "=" not in t]
    kv = dict(t.split("=", 1) for t in tok[2:] if "=" in t)
    return fam, d, pos, kv


def conv_case(d, pos, kv, args):
    dt = args.dt or pos[0].split(":")[0]
    nhwc = (args.layout or pos[1]) == "nhwc"
    m = dict((k, int(v)) for k, v in re.findall(r"([a-z]+)(\d+)", pos[2]))
    d3 = "id" in m or "kd" in m
    sp = ["d", "h", "w"] if d3 else ["h", "w"]
    g, mb, ic, oc = m.get("g", 1), m.get("mb", 2), m["ic"], m["oc"]
    ins = [m.get("i" + s, m.get("ih")) for s in sp]
    ks = [m.get("k" + s, m.get("kh", 3)) for s in sp]
    st = [m.get("s" + s, m.get("sh", 1)) for s in sp]
    pd = [m.get("p" + s, m.get("ph", 0)) for s in sp]
    dl = [m.get("d" + s, m.get("dh", 1)) for s in sp]
    x = make(dt, [mb, ic] + ins, nhwc, grad=(d == "bwd_w"))
    w = make(dt, [oc, ic // g] + ks, nhwc, grad=(d == "bwd_d"))
    conv = F.conv3d if d3 else F.conv2d
    fwd = lambda xx, ww: conv(xx, ww, None, st, pd, dl, g)
    osz = [(i + 2 * p - ((k - 1) * dd + 1)) // s + 1 for i, k, s, p, dd in zip(ins, ks, st, pd, dl)]
    flops = 2.0 * mb * oc * (ic // g) * prod(osz) * prod(ks)
    if d == "fwd":
        return (lambda: fwd(x, w)), flops
    dy = make(dt, [mb, oc] + osz, nhwc)
    if d == "bwd_d":
        return (lambda: torch.nn.grad.conv2d_input(x.shape, w, dy, st, pd, dl, g) if not d3 else
                torch.nn.grad.conv3d_input(x.shape, w, dy, st, pd, dl, g)), flops
    return (lambda: torch.nn.grad.conv2d_weight(x, w.shape, dy, st, pd, dl, g) if not d3 else
            torch.nn.grad.conv3d_weight(x, w.shape, dy, st, pd, dl, g)), flops


def prod(v):
    r = 1
    for a in v:
        r *= a
    return r


def other_case(fam, d, kv, args):
    role = "x" if "x" in kv else "a" if "a" in kv else "y" if "y" in kv else "dy"
    dt, dims, nhwc = tensor_spec(kv[role])
    dt = args.dt or dt
    nhwc = nhwc if not args.layout else args.layout == "nhwc"
    x = make(dt, dims, nhwc, grad=(d == "bwd"))
    if fam == "act":
        fn = {"relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "elu": F.elu, "swish": F.silu}[kv.get("mode", "relu")]
        if d == "fwd":
            return lambda: fn(x)
        y = fn(x)
        g = torch.ones_like(y)
        return lambda: torch.autograd.grad(y, x, g, retain_graph=True)
    if fam == "pool":
        win = [int(v) for v in kv.get("win", "2x2").split("x")]
        pad = [int(v) for v in kv.get("pad", "0x0").split("x")]
        st = [int(v) for v in kv.get("stride", "2x2").split("x")]
        fn = (lambda t: F.max_pool2d(t, win, st, pad)) if kv.get("mode", "max").startswith("max") else \
             (lambda t: F.avg_pool2d(t, win, st, pad, count_include_pad=kv.get("mode") == "avg_incl"))
        if d == "fwd":
            return lambda: fn(x)
        y = fn(x)
        g = torch.ones_like(y)
        return lambda: torch.autograd.grad(y, x, g, retain_graph=True)
    if fam == "softmax":
        fn = F.log_softmax if kv.get("algo") == "log" else F.softmax
        if d == "fwd":
            return lambda: fn(x, dim=1)
        y = fn(x, dim=1)
        g = torch.ones_like(y)
        return lambda: torch.autograd.grad(y, x, g, retain_graph=True)
    if fam in ("bn", "bnorm"):
        c = dims[1]
        w = torch.ones(c, device="cuda", requires_grad=(d == "bwd"))
        b = torch.zeros(c, device="cuda", requires_grad=(d == "bwd"))
        rm, rv = torch.zeros(c, device="cuda"), torch.ones(c, device="cuda")
        if d == "infer":
            return lambda: F.batch_norm(x, rm, rv, w, b, False)
        if d == "train":
            return lambda: F.batch_norm(x, rm, rv, w, b, True)
        y = F.batch_norm(x, rm, rv, w, b, True)
        g = torch.ones_like(y)
        return lambda: torch.autograd.grad(y, (x, w, b), g, retain_graph=True)
    if fam == "optensor":
        bdt, bdims, _ = tensor_spec(kv.get("b", kv["a"]))
        other = make(dt, bdims, nhwc)
        op = kv.get("op", "add")
        return {"add": lambda: x + other, "mul": lambda: x * other, "max": lambda: torch.maximum(x, other),
                "min": lambda: torch.minimum(x, other)}[op]
    if fam == "addtensor":
        _, cdims, _ = tensor_spec(kv["c"])
        c = make(dt, cdims, nhwc)
        return lambda: c.add_(x)
    if fam == "reduce":
        _, cdims, _ = tensor_spec(kv["c"])
        red = [i for i, (a, b) in enumerate(zip(dims, cdims)) if b == 1 and a != 1]
        fn = torch.mean if kv.get("op") == "avg" else torch.sum
        return lambda: fn(x, dim=red, keepdim=True)
    if fam == "transform":
        fmt = torch.contiguous_format if nhwc else torch.channels_last
        return lambda: x.contiguous(memory_format=fmt)
    return None


def time_it(fn, iters, device_bytes):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    flush = torch.empty(2 * device_bytes, dtype=torch.uint8, device="cuda")
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    torch.cuda.synchronize()
    t1 = max(s.elapsed_time(e), 1e-4)
    reps = max(1, min(10000, int(1.0 / t1)))
    times = []
    for _ in range(iters):
        flush.zero_()
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / reps)
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", action="append", required=True)
    ap.add_argument("--dt")
    ap.add_argument("--layout")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True  # PyTorch's own best choice, like --algo=any
    l2 = torch.cuda.get_device_properties(0).L2_cache_size or (64 << 20)
    cases = []
    index = 0
    for path in args.batch:
        for line in open(path):
            p = parse(line, args)
            if p is None:
                continue
            fam, d, pos, kv = p
            case = {"index": index, "problem": " ".join(line.split("#")[0].split()), "reason": "", "flops": 0,
                    "bytes": None}
            index += 1
            try:
                if fam == "conv" and d in ("fwd", "bwd_d", "bwd_w"):
                    fn, case["flops"] = conv_case(d, pos, kv, args)
                else:
                    fn = other_case(fam, d, kv, args)
                if fn is None:
                    case.update(verdict="NOT_SUPPORTED", reason="no PyTorch equivalent in bench_torch.py")
                else:
                    med, mn = time_it(fn, args.iters, l2)
                    tflops = case["flops"] / (med * 1e-3) / 1e12
                    case.update(verdict="TIMED", lib={"status": "SUCCESS", "impl": "torch", "t_med_ms": med,
                                                      "t_min_ms": mn, "tflops": tflops})
            except Exception as ex:  # noqa: BLE001 - report and go on
                case.update(verdict="NOT_SUPPORTED", reason=str(ex)[:200])
            print(f"{case['index']}:{case['verdict']} {case['problem']} "
                  f"{case.get('lib', {}).get('t_med_ms', '')}", flush=True)
            cases.append(case)
    out = {"tool": "bench_torch.py", "device": torch.cuda.get_device_name(0), "mode": "P",
           "lib": f"torch {torch.__version__} (cuDNN {torch.backends.cudnn.version()})", "vs": "",
           "timing": "cuda_events", "cases": cases}
    json.dump(out, open(args.json, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
