#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Runs freednn-bench batch files through PyTorch on the GPU, timed the way freednn-bench times them (CUDA events
around back-to-back calls after warm-up, input sets rotated past the L2 and the L2 flushed before each sample,
median and minimum per call), and writes the JSON of freednn-bench --json, so that tools/plot and
tools/bench_txt_to_md.py put PyTorch's path (cuDNN v9 through its graph API, or PyTorch's own kernels) beside
NVIDIA's legacy API and freednn.

    python3 tools/bench_torch.py --batch=tools/bench/batches/resnet50.txt [--dt=f16 --layout=nhwc] --json=out.json

Convolutions: fwd F.conv2d / F.conv3d, bwd_d and bwd_w torch.ops.aten.convolution_backward (the cuDNN backward
calls PyTorch's autograd makes), torch.backends.cudnn.benchmark = True (PyTorch's own algorithm choice, like
--algo=any), channels_last(_3d) for nhwc. f32: TF32 is allowed unless the problem (or --math) says math=fma, as
cuDNN's default math type allows it. Every tensor is created with the problem's strides (torch.empty_strided).

A problem PyTorch cannot express as the same call (mixed data types, an explicit algorithm, blending with beta,
fused bias+activation, int8, an f16 convolution with math=fma ...) is a FAILED case with the reason, printed on
stderr, and makes the exit status 1 (--allow-unsupported: 0).
"""
import argparse
import json
import math
import re
import statistics
import sys

DT_NAMES = ("f32", "f16", "bf16", "f64")


class Unsupported(Exception):
    """The problem has no faithful PyTorch equivalent."""


def torch_dtype(name):
    import torch
    table = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}
    if name not in table:
        raise Unsupported(f"data type {name} (PyTorch path covers {', '.join(DT_NAMES)})")
    return table[name]


# --- problem text ---------------------------------------------------------------------------------------------

def parse(line):
    tok = line.split("#")[0].split()
    if tok and tok[0] == "freednn-bench":
        tok = tok[1:]
    if not tok:
        return None
    fam = tok[0]
    d = tok[1] if len(tok) > 1 and "=" not in tok[1] else ""
    rest = tok[2:] if d else tok[1:]
    pos = [t for t in rest if "=" not in t]
    kv = dict(t.split("=", 1) for t in rest if "=" in t)
    return fam, d, pos, kv


def packed_strides(dims, layout):
    n = len(dims)
    s = [1] * n
    if layout == "nhwc" and n >= 3:
        acc = dims[1]
        for i in range(n - 1, 1, -1):
            s[i] = acc
            acc *= dims[i]
        s[0] = acc
    else:
        acc = 1
        for i in range(n - 1, -1, -1):
            s[i] = acc
            acc *= dims[i]
    return s


class Spec:
    """A tensor spec of the problem syntax: <dt>:<dims>:<strides>, <dt>:<dims> (packed NCHW order) or
    <dt>:<nchw|nhwc>:<dims>; --dt / --layout applied as freednn-bench applies them."""

    def __init__(self, text, args, main_dt=None):
        f = text.split(":")
        if len(f) < 2 or f[0] not in DT_NAMES + ("s8", "u8", "s32", "s64", "s8x4", "u8x4", "s8x32"):
            raise Unsupported(f"tensor spec {text}")
        self.dt = f[0]
        if f[1] in ("nchw", "nhwc", "nchw_vect_c"):
            if f[1] == "nchw_vect_c":
                raise Unsupported("nchw_vect_c layout")
            self.dims = [int(v) for v in f[2].split("x")]
            self.strides = packed_strides(self.dims, f[1])
        else:
            self.dims = [int(v) for v in f[1].split("x")]
            self.strides = [int(v) for v in f[2].split("x")] if len(f) == 3 else packed_strides(self.dims, "nchw")
        if args.dt and (main_dt is None or self.dt == main_dt):
            self.dt = args.dt
        if args.layout and len(self.dims) >= 4:
            self.strides = packed_strides(self.dims, args.layout)

    def bytes(self):
        import torch
        return math.prod(self.dims) * torch.empty((), dtype=torch_dtype(self.dt)).element_size()

    def make(self, lo=-1.0, hi=1.0, grad=False):
        import torch
        t = torch.empty_strided(self.dims, self.strides, dtype=torch_dtype(self.dt), device="cuda")
        t.uniform_(lo, hi)
        return t.requires_grad_(grad)

    def is_nhwc(self):
        return len(self.dims) >= 3 and self.strides[1] == 1 and self.dims[1] > 1

    def like(self, dims):
        """Packed, of the given dims, in this tensor's layout."""
        s = Spec.__new__(Spec)
        s.dt, s.dims = self.dt, list(dims)
        s.strides = packed_strides(s.dims, "nhwc" if self.is_nhwc() else "nchw")
        return s


def num(kv, k, default):
    return float(kv[k]) if k in kv else default


def need_plain_scales(kv, *names):
    """cuDNN's alpha / beta blending has no PyTorch equivalent in one call: only alpha = 1, beta = 0."""
    for k in names:
        default = 0.0 if k.startswith("beta") else 1.0
        if k in kv and float(kv[k]) != default:
            raise Unsupported(f"{k}={kv[k]} (PyTorch has no blended form of this call)")


class Case:
    """make() -> one input set (a tuple); call(*set) runs the operation once; flops / bytes for the rates."""

    def __init__(self, make, call, flops=0.0, nbytes=0.0, note=""):
        self.make, self.call, self.flops, self.bytes, self.note = make, call, flops, nbytes, note


# --- convolutions ---------------------------------------------------------------------------------------------

def set_tf32(on):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def conv_case(d, pos, kv, args):
    import torch
    import torch.nn.functional as F
    if d not in ("fwd", "bwd_d", "bwd_w"):
        raise Unsupported(f"conv {d} (bwd_b and the rest are not convolution calls in PyTorch)")
    for k in ("post", "op", "x", "w", "y"):
        if k in kv:
            raise Unsupported(f"conv with {k}= (fused bias+activation, im2col, explicit tensor specs)")
    if "alg" in kv:
        raise Unsupported(f"alg={kv['alg']}: PyTorch picks its own algorithm (cudnn.benchmark)")
    need_plain_scales(kv, "alpha", "beta")
    if len(pos) < 3:
        raise Unsupported("conv needs <dtypes> <layout> <shape>")
    if ":" in pos[0]:
        raise Unsupported(f"mixed data types {pos[0]}")
    dt = args.dt or pos[0]
    dtype = torch_dtype(dt)
    layout = args.layout or pos[1]
    if layout not in ("nchw", "nhwc"):
        raise Unsupported(f"layout {layout}")
    nhwc = layout == "nhwc"
    default_ct = "f32" if dt in ("f16", "bf16") else dt
    if kv.get("ct", default_ct) != default_ct:
        raise Unsupported(f"ct={kv['ct']} for {dt} data (PyTorch accumulates {dt} in {default_ct})")
    mth = (args.math or kv.get("math", "default")).lower()
    mth = {"tensor": "tensor_op", "allow_conversion": "tensor_op_allow_conversion"}.get(mth, mth)
    if mth not in ("default", "tensor_op", "tensor_op_allow_conversion", "fma"):
        raise Unsupported(f"math={mth}")
    if mth == "fma" and dt in ("f16", "bf16"):
        raise Unsupported(f"math=fma for {dt}: PyTorch cannot keep cuDNN off the tensor cores")
    tf32 = dt == "f32" and mth != "fma"
    set_tf32(tf32)

    m = dict((k, int(v)) for k, v in re.findall(r"([a-z]+)(\d+)", pos[2]))
    d3 = any(k in m for k in ("id", "kd", "od"))
    sp = ["d", "h", "w"] if d3 else ["h", "w"]
    g, mb, ic, oc = m.get("g", 1), m.get("mb", 2), m["ic"], m["oc"]
    first = {"i": m.get("ih"), "k": m.get("kh", 3), "s": m.get("sh", 1), "p": m.get("ph", 0), "d": m.get("dh", 1)}
    ins = [m.get("i" + s, first["i"]) for s in sp]
    ks = [m.get("k" + s, first["k"] if s == "w" else 3) for s in sp]
    st = [m.get("s" + s, first["s"] if s == "w" else 1) for s in sp]
    pd = [m.get("p" + s, first["p"] if s == "w" else 0) for s in sp]
    dl = [m.get("d" + s, first["d"] if s == "w" else 1) for s in sp]
    if any(v is None for v in ins):
        raise Unsupported("conv shape without input sizes")
    osz = [(i + 2 * p - ((k - 1) * dd + 1)) // s + 1 for i, k, s, p, dd in zip(ins, ks, st, pd, dl)]
    for s, o in zip(sp, osz):
        if "o" + s in m and m["o" + s] != o:
            raise Unsupported(f"o{s}={m['o' + s]} but the shape gives {o}")
    flip = kv.get("mode", "xcorr") == "conv"  # a true convolution: cross-correlation with the flipped filter
    fmt = (torch.channels_last_3d if d3 else torch.channels_last) if nhwc else torch.contiguous_format

    def make(shape):
        return (torch.rand(shape, device="cuda", dtype=dtype) * 2 - 1).contiguous(memory_format=fmt)

    xs, ws, ys = [mb, ic] + ins, [oc, ic // g] + ks, [mb, oc] + osz
    esize = torch.empty((), dtype=dtype).element_size()
    nbytes = esize * (math.prod(xs) + math.prod(ws) + math.prod(ys))
    flops = 2.0 * mb * oc * (ic // g) * math.prod(osz) * math.prod(ks)
    conv = F.conv3d if d3 else F.conv2d
    note = ("tf32" if tf32 else "") + (" flipped filter" if flip else "")

    def weight():
        w = make(ws)
        return w.flip(list(range(2, 2 + len(sp)))).contiguous(memory_format=fmt) if flip else w

    if d == "fwd":
        return Case(lambda: (make(xs), weight()), lambda x, w: conv(x, w, None, st, pd, dl, g), flops, nbytes, note)
    cb = torch.ops.aten.convolution_backward
    zeros = [0] * len(sp)
    if d == "bwd_d":
        x_tmpl = make(xs)  # shape and memory format of dx only: never read
        return Case(lambda: (make(ys), weight()),
                    lambda dy, w: cb(dy, x_tmpl, w, None, st, pd, dl, False, zeros, g, [True, False, False])[0],
                    flops, nbytes, note)
    w_tmpl = weight()  # shape and memory format of dw only
    return Case(lambda: (make(ys), make(xs)),
                lambda dy, x: cb(dy, x, w_tmpl, None, st, pd, dl, False, zeros, g, [False, True, False])[1],
                flops, nbytes, note)


# --- the other families ---------------------------------------------------------------------------------------

def first_spec(kv, roles, args):
    for r in roles:
        if r in kv:
            return Spec(kv[r], args)
    raise Unsupported(f"no tensor among {', '.join(roles)}")


def act_case(d, kv, args):
    import torch
    import torch.nn.functional as F
    need_plain_scales(kv, "alpha", "beta")
    x = first_spec(kv, ("x",), args)
    mode = kv.get("mode", "relu")
    coef = num(kv, "coef", 6.0 if mode == "clipped_relu" else 1.0)
    if mode == "swish" and num(kv, "swish_beta", 1.0) != 1.0:
        raise Unsupported("swish with swish_beta != 1 (PyTorch's SiLU is beta = 1)")
    fwd = {"relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "elu": lambda t: F.elu(t, coef),
           "swish": F.silu, "clipped_relu": lambda t: F.hardtanh(t, 0.0, coef), "identity": lambda t: t.clone()}
    if mode not in fwd:
        raise Unsupported(f"activation mode {mode}")
    ops = torch.ops.aten
    nb = 2 * x.bytes()
    if d == "fwd":
        return Case(lambda: (x.make(-2, 2),), fwd[mode], 0, nb)
    bwd = {"relu": lambda dy, xx, y: ops.threshold_backward(dy, y, 0),
           "sigmoid": lambda dy, xx, y: ops.sigmoid_backward(dy, y),
           "tanh": lambda dy, xx, y: ops.tanh_backward(dy, y),
           "elu": lambda dy, xx, y: ops.elu_backward(dy, coef, 1, 1, False, xx),
           "swish": lambda dy, xx, y: ops.silu_backward(dy, xx),
           "clipped_relu": lambda dy, xx, y: ops.hardtanh_backward(dy, xx, 0.0, coef),
           "identity": lambda dy, xx, y: dy.clone()}

    def make():
        xx = x.make(-2, 2)
        return x.make(), xx, fwd[mode](xx)
    return Case(make, bwd[mode], 0, 3 * x.bytes())


def pool_case(d, kv, args):
    import torch
    import torch.nn.functional as F
    need_plain_scales(kv, "alpha", "beta")
    x = first_spec(kv, ("x",), args)
    ns = len(x.dims) - 2
    if ns not in (2, 3):
        raise Unsupported("pooling of a tensor that is not 4-D or 5-D")
    vec = lambda k, dflt: [int(v) for v in kv[k].split("x")] if k in kv else [dflt] * ns
    win, pad, st = vec("win", 2), vec("pad", 0), vec("stride", 2)
    mode = kv.get("mode", "max")
    if any(2 * p > w for p, w in zip(pad, win)):
        raise Unsupported("padding above half the window (PyTorch refuses it)")
    out = [x.dims[0], x.dims[1]] + [(i + 2 * p - w) // s + 1 for i, w, p, s in zip(x.dims[2:], win, pad, st)]
    ops = torch.ops.aten
    y = x.like(out)
    if mode in ("max", "max_det"):
        fwd = (lambda t: F.max_pool2d(t, win, st, pad)) if ns == 2 else (lambda t: F.max_pool3d(t, win, st, pad))
        if d == "fwd":
            return Case(lambda: (x.make(),), fwd, 0, x.bytes() + y.bytes())
        fwi = F.max_pool2d if ns == 2 else F.max_pool3d
        back = ops.max_pool2d_with_indices_backward if ns == 2 else ops.max_pool3d_with_indices_backward

        def make():
            xx = x.make()
            _, idx = fwi(xx, win, st, pad, return_indices=True)
            return y.make(), xx, idx
        return Case(make, lambda dy, xx, idx: back(dy, xx, win, st, pad, [1] * ns, False, idx), 0,
                    2 * x.bytes() + y.bytes())
    if mode not in ("avg_incl", "avg_excl"):
        raise Unsupported(f"pooling mode {mode}")
    incl = mode == "avg_incl"
    fwd = (lambda t: F.avg_pool2d(t, win, st, pad, False, incl)) if ns == 2 else \
          (lambda t: F.avg_pool3d(t, win, st, pad, False, incl))
    if d == "fwd":
        return Case(lambda: (x.make(),), fwd, 0, x.bytes() + y.bytes())
    back = ops.avg_pool2d_backward if ns == 2 else ops.avg_pool3d_backward
    xt = x.make()  # shape / format of dx only
    return Case(lambda: (y.make(),), lambda dy: back(dy, xt, win, st, pad, False, incl, None), 0,
                x.bytes() + y.bytes())


def softmax_case(d, kv, args):
    import torch
    need_plain_scales(kv, "alpha", "beta")
    t = first_spec(kv, ("x", "y", "dy", "dx"), args)
    log = kv.get("algo", "accurate") == "log"
    if kv.get("mode", "channel") == "instance" and any(v != 1 for v in t.dims[2:]):
        raise Unsupported("softmax mode=instance over C x H x W (PyTorch's softmax takes one dim)")
    sm = torch.log_softmax if log else torch.softmax
    dtype = torch_dtype(t.dt)
    if d == "fwd":
        return Case(lambda: (t.make(-3, 3),), lambda x: sm(x, 1), 0, 2 * t.bytes())
    back = torch.ops.aten._log_softmax_backward_data if log else torch.ops.aten._softmax_backward_data
    return Case(lambda: (t.make(), sm(t.make(-3, 3), 1)), lambda dy, y: back(dy, y, 1, dtype), 0, 3 * t.bytes())


def bn_case(d, kv, args):
    import torch
    import torch.nn.functional as F
    need_plain_scales(kv, "alpha", "beta", "alpha_param", "beta_param")
    mode = kv.get("mode", "spatial")
    if mode not in ("spatial", "spatial_persistent", "per_channel"):
        raise Unsupported(f"batch norm mode {mode} (PyTorch normalizes per channel)")
    if kv.get("ops", "norm") != "norm":
        raise Unsupported(f"ops={kv['ops']} (no fused batch norm + activation in PyTorch)")
    x = first_spec(kv, ("x",), args)
    c, eps, factor = x.dims[1], num(kv, "eps", 1e-5), num(kv, "factor", 0.1)
    dev = dict(device="cuda", dtype=torch.float64 if x.dt == "f64" else torch.float32)
    w, b = torch.rand(c, **dev) + 0.5, torch.rand(c, **dev) - 0.5
    rm, rv = torch.zeros(c, **dev), torch.ones(c, **dev)
    if d == "infer":
        return Case(lambda: (x.make(-2, 2),), lambda xx: F.batch_norm(xx, rm, rv, w, b, False, factor, eps), 0,
                    2 * x.bytes())
    if d == "train":
        return Case(lambda: (x.make(-2, 2),), lambda xx: F.batch_norm(xx, rm, rv, w, b, True, factor, eps), 0,
                    2 * x.bytes())
    if d != "bwd":
        raise Unsupported(f"bn {d}")
    wg, bg = w.clone().requires_grad_(True), b.clone().requires_grad_(True)

    def make():  # PyTorch's own backward (cuDNN's where it uses cuDNN) through autograd
        xx = x.make(-2, 2, grad=True)
        return x.make(), xx, F.batch_norm(xx, rm, rv, wg, bg, True, factor, eps)
    return Case(make, lambda dy, xx, y: torch.autograd.grad(y, (xx, wg, bg), dy, retain_graph=True), 0,
                3 * x.bytes(), "autograd")


def optensor_case(kv, args):
    import torch
    a = Spec(kv["a"], args)
    b = Spec(kv["b"], args, a.dt) if "b" in kv else a
    cspec = Spec(kv["c"], args, a.dt) if "c" in kv else a
    op = kv.get("op", "add")
    binary = {"add": torch.add, "mul": torch.mul, "min": torch.minimum, "max": torch.maximum}
    unary = {"sqrt": torch.sqrt}
    need_plain_scales(kv, "alpha1", "beta", *(("alpha2",) if op in binary else ()))
    if op in binary:
        return Case(lambda: (a.make(), b.make(), cspec.make()), lambda x, y, out: binary[op](x, y, out=out), 0,
                    a.bytes() + b.bytes() + cspec.bytes())
    if op in unary:
        return Case(lambda: (a.make(0.1, 1.0), cspec.make()), lambda x, out: unary[op](x, out=out), 0,
                    a.bytes() + cspec.bytes())
    raise Unsupported(f"optensor op={op}")


def addtensor_case(kv, args):
    import torch
    a, cs = Spec(kv["a"], args), Spec(kv["c"], args)
    if num(kv, "beta", 1.0) != 1.0:
        raise Unsupported("addtensor with beta != 1 (two passes in PyTorch)")
    alpha = num(kv, "alpha", 1.0)
    return Case(lambda: (a.make(), cs.make()), lambda x, c: c.add_(x, alpha=alpha), 0, a.bytes() + 2 * cs.bytes())


def reduce_case(kv, args):
    import torch
    need_plain_scales(kv, "alpha", "beta")
    if kv.get("indices", "none") != "none":
        raise Unsupported("reduction with indices")
    a = Spec(kv["a"], args)
    cs = Spec(kv["c"], args, a.dt)
    dims = [i for i, (p, q) in enumerate(zip(a.dims, cs.dims)) if q == 1 and p != 1]
    op = kv.get("op", "add")
    fns = {"add": lambda t: torch.sum(t, dims, keepdim=True), "avg": lambda t: torch.mean(t, dims, keepdim=True),
           "max": lambda t: torch.amax(t, dims, keepdim=True), "min": lambda t: torch.amin(t, dims, keepdim=True),
           "amax": lambda t: torch.amax(t.abs(), dims, keepdim=True),
           "norm1": lambda t: torch.linalg.vector_norm(t, 1, dims, keepdim=True),
           "norm2": lambda t: torch.linalg.vector_norm(t, 2, dims, keepdim=True),
           "mul": lambda t: torch.prod(t, dims[0], keepdim=True) if len(dims) == 1 else None}
    if op not in fns or (op == "mul" and len(dims) != 1):
        raise Unsupported(f"reduce op={op}")
    return Case(lambda: (a.make(),), fns[op], 0, a.bytes() + cs.bytes())


def transform_case(d, kv, args):
    need_plain_scales(kv, "alpha", "beta")
    if d != "fwd":
        raise Unsupported(f"transform {d} (padding / folding have no one-call PyTorch form)")
    x = Spec(kv["x"], args)
    if "y" in kv:
        y = Spec(kv["y"], args, x.dt)
    else:  # freednn-bench's default: the other packed layout (the usual use, a layout change)
        y = x.like(x.dims)
        y.strides = packed_strides(y.dims, "nchw" if x.is_nhwc() else "nhwc")
    return Case(lambda: (x.make(), y.make()), lambda xx, yy: yy.copy_(xx), 0, x.bytes() + y.bytes())


def dropout_case(d, kv, args):
    import torch
    p = num(kv, "p", 0.5)
    t = first_spec(kv, ("x", "dy"), args)
    ops = torch.ops.aten
    if d == "fwd":
        return Case(lambda: (t.make(),), lambda x: ops.native_dropout(x, p, True), 0, 2 * t.bytes())

    def make():
        _, mask = ops.native_dropout(t.make(), p, True)
        return t.make(), mask
    return Case(make, lambda dy, mask: ops.native_dropout_backward(dy, mask, 1.0 / (1.0 - p)), 0, 2 * t.bytes())


def lrn_case(d, kv, args):
    import torch
    import torch.nn.functional as F
    need_plain_scales(kv, "alpha", "beta")
    x = first_spec(kv, ("x",), args)
    n, a, b, k = int(num(kv, "n", 5)), num(kv, "lrn_alpha", 1e-4), num(kv, "lrn_beta", 0.75), num(kv, "lrn_k", 2.0)
    fwd = lambda t: F.local_response_norm(t, n, a, b, k)
    if d == "fwd":
        return Case(lambda: (x.make(),), fwd, 0, 2 * x.bytes(), "composite")

    def make():
        xx = x.make(grad=True)
        return x.make(), xx, fwd(xx)
    return Case(make, lambda dy, xx, y: torch.autograd.grad(y, xx, dy, retain_graph=True), 0, 3 * x.bytes(),
                "autograd")


def stn_case(d, kv, args):
    import torch
    import torch.nn.functional as F
    st = Spec(kv["st"], args)
    n, c, h, w = st.dims
    dtype = torch_dtype(st.dt)
    theta = lambda grad=False: (torch.rand(n, 2, 3, device="cuda", dtype=dtype) - 0.5).requires_grad_(grad)
    grid = lambda grad=False: (torch.rand(n, h, w, 2, device="cuda", dtype=dtype) * 2.2 - 1.1).requires_grad_(grad)
    size = [n, c, h, w]
    if d == "grid_fwd":
        return Case(lambda: (theta(),), lambda t: F.affine_grid(t, size, align_corners=True), 0, st.bytes() / c * 2)
    if d == "grid_bwd":
        def make():
            t = theta(True)
            return grid(), t, F.affine_grid(t, size, align_corners=True)
        return Case(make, lambda dg, t, g: torch.autograd.grad(g, t, dg, retain_graph=True), 0, st.bytes() / c * 2,
                    "autograd")
    need_plain_scales(kv, "alpha", "beta", "alpha_dgrid", "beta_dgrid")
    x = Spec(kv["x"], args, st.dt) if "x" in kv else st
    sample = lambda xx, g: F.grid_sample(xx, g, "bilinear", "zeros", align_corners=True)
    if d == "sampler_fwd":
        return Case(lambda: (x.make(), grid()), sample, 0, x.bytes() + 2 * st.bytes() / c + st.bytes())
    if d == "sampler_bwd":
        def make():
            xx, g = x.make(grad=True), grid(True)
            return st.make(), xx, g, sample(xx, g)
        return Case(make, lambda dy, xx, g, y: torch.autograd.grad(y, (xx, g), dy, retain_graph=True), 0,
                    2 * x.bytes() + 4 * st.bytes() / c + st.bytes(), "autograd")
    raise Unsupported(f"stn {d}")


def build(fam, d, pos, kv, args):
    if fam == "conv":
        return conv_case(d, pos, kv, args)
    if fam == "act":
        return act_case(d, kv, args)
    if fam == "pool":
        return pool_case(d, kv, args)
    if fam == "softmax":
        return softmax_case(d, kv, args)
    if fam in ("bn", "bnorm", "norm"):
        return bn_case(d, kv, args)
    if fam == "optensor":
        return optensor_case(kv, args)
    if fam == "addtensor":
        return addtensor_case(kv, args)
    if fam == "reduce":
        return reduce_case(kv, args)
    if fam == "transform":
        return transform_case(d, kv, args)
    if fam == "dropout":
        return dropout_case(d, kv, args)
    if fam == "lrn":
        return lrn_case(d, kv, args)
    if fam == "stn":
        return stn_case(d, kv, args)
    raise Unsupported(f"family {fam} has no PyTorch path in bench_torch.py")


# --- timing ---------------------------------------------------------------------------------------------------

def time_case(case, iters, max_ms, l2_bytes, flush):
    """freednn-bench's method: input sets rotated (their total above the L2), two warm-up calls, a first estimate,
    then samples of back-to-back calls between two CUDA events, the L2 flushed before each sample."""
    import torch
    cache = 128 << 20
    sets_n = max(1, min(16, -(-cache // max(int(case.bytes), 1))))
    if case.bytes * sets_n > 8e9:
        sets_n = 1
    sets = [case.make() for _ in range(sets_n)]
    for w in range(2):
        case.call(*sets[w % sets_n])  # (the first call also runs cudnn.benchmark's search)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for k in range(sets_n):
        case.call(*sets[k])
    e.record()
    torch.cuda.synchronize()
    t1 = max(s.elapsed_time(e) / sets_n, 1e-4)
    reps = min(10000, max(sets_n, math.ceil(1.0 / t1)))
    samples = max(1, min(iters, int(max_ms / (reps * t1))))
    times = []
    for _ in range(samples):
        flush.zero_()
        s.record()
        for k in range(reps):
            case.call(*sets[k % sets_n])
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / reps)
    del sets
    return statistics.median(times), min(times)


def profile_case(case):
    """--profile: the algorithm search and warm-up outside, one call inside an NVTX range 'prof'; its wall time."""
    import time
    import torch
    one = case.make()
    for _ in range(3):
        case.call(*one)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    torch.cuda.nvtx.range_push("prof")
    case.call(*one)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    return ms, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", action="append", required=True)
    ap.add_argument("--dt", choices=DT_NAMES)
    ap.add_argument("--layout", choices=("nchw", "nhwc"))
    ap.add_argument("--math", help="convolution math type for every case (default, tensor_op, fma ...)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--max-ms", type=float, default=2000.0, help="timing budget per case (freednn-bench's --max-ms)")
    ap.add_argument("--json", required=True)
    ap.add_argument("--allow-unsupported", action="store_true", help="exit 0 even when some problem is unsupported")
    ap.add_argument("--profile", action="store_true",
                    help="no timing: per case three warm-up calls (cudnn.benchmark's search), then one call inside "
                         "an NVTX range named 'prof' for a profiler to filter on (tools/gpu/torch_kernels.sh)")
    args = ap.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("bench_torch.py: no CUDA device visible to PyTorch", file=sys.stderr)
        return 2
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.benchmark = True  # PyTorch's own best choice, like --algo=any
    l2 = torch.cuda.get_device_properties(0).L2_cache_size or (64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    cases, index, failed = [], 0, 0
    for path in args.batch:
        for line in open(path):
            p = parse(line)
            if p is None:
                continue
            fam, d, pos, kv = p
            problem = " ".join(line.split("#")[0].split())
            if fam == "conv" and d and len(pos) >= 2 and problem.startswith("conv "):  # name the case by the data type and layout it ran in
                words = problem.split()
                words[2] = args.dt or words[2]
                words[3] = args.layout or words[3]
                problem = " ".join(words)
            case = {"index": index, "verdict": "TIMED", "problem": problem, "reason": "", "flops": 0, "bytes": None}
            index += 1
            try:
                c = build(fam, d, pos, kv, args)
                med, mn = profile_case(c) if args.profile else time_case(c, args.iters, args.max_ms, l2, flush)
                case.update(flops=c.flops, bytes=c.bytes or None, reason=c.note)
                case["lib"] = {"status": "SUCCESS", "impl": "torch" + (f" ({c.note})" if c.note else ""),
                               "t_med_ms": med, "t_min_ms": mn, "tflops": c.flops / (med * 1e-3) / 1e12,
                               "gbs": c.bytes / (med * 1e-3) / 1e9 if c.bytes else None}
                torch.cuda.empty_cache()
            except Unsupported as ex:
                failed += 1
                case.update(verdict="FAILED", reason=f"not expressible in PyTorch: {ex}")
                print(f"bench_torch.py: case {case['index']} ({problem}): {case['reason']}", file=sys.stderr)
            except Exception as ex:  # noqa: BLE001 - a PyTorch error: report it with the case, go on
                failed += 1
                case.update(verdict="FAILED", reason=f"{type(ex).__name__}: {str(ex)[:300]}")
                print(f"bench_torch.py: case {case['index']} ({problem}): {case['reason']}", file=sys.stderr)
                torch.cuda.empty_cache()
            lib = case.get("lib")
            tail = ""
            if lib:
                tail = f" | torch {lib['t_med_ms']:.4g} ms (min {lib['t_min_ms']:.4g})"
                if case["flops"]:
                    tail += f" {lib['tflops']:.3g} TFLOP/s"
                if lib["gbs"]:
                    tail += f" {lib['gbs']:.4g} GB/s"
            else:
                tail = f" ({case['reason']})"
            print(f"{case['index']}:{case['verdict']} {problem}{tail}", flush=True)
            cases.append(case)
    out = {"tool": "bench_torch.py", "device": torch.cuda.get_device_name(0), "mode": "P",
           "lib": f"torch {torch.__version__} (cuDNN {torch.backends.cudnn.version()})", "vs": "",
           "timing": "cuda_events", "copy_gbs": None, "cases": cases}
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    print(f"tests:{len(cases)} timed:{len(cases) - failed} failed:{failed}")
    return 1 if failed and not args.allow_unsupported else 0


if __name__ == "__main__":
    sys.exit(main())
