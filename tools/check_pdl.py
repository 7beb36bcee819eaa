#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Checks that every kernel launched by launch_pdl (src/cuda/common/pdl.cuh), or with the attribute set by hand, starts
with pdl_wait().

A kernel launched as a programmatic dependent may start while the kernel before it on the stream still runs; it must
call pdl_wait() before its first global memory access, or it reads stale data (docs/developing.md, "Launch overlap
across calls"). This scans src/cuda for launch_pdl(...) calls, takes the kernel argument (a kernel name, a ?: of
kernel names, or a local variable / lambda parameter bound to kernel names a few lines above), and requires each
kernel's body to call pdl_wait() among its first statements.

    tools/check_pdl.py [--root DIR] [--verbose]

Exits 0 when every launched kernel waits, 1 otherwise (naming the kernel and the launch); a launch whose kernel it
cannot name is reported as a failure too, so that the check cannot pass by not looking.
"""
import argparse
import pathlib
import re
import sys

KERNEL_DEF = re.compile(r"__global__[^;{]*?\b([A-Za-z_]\w*)\s*\(", re.S)
IDENT = re.compile(r"[A-Za-z_]\w*")
FIRST_LINES = 6  # pdl_wait() must come within the body's first lines (after guards, shared declarations)


def body_of(text, open_paren):
    """The kernel body's text, from the '(' of its parameter list; None for a declaration."""
    i, depth = open_paren + 1, 1
    while depth and i < len(text):
        depth += (text[i] == "(") - (text[i] == ")")
        i += 1
    rest = text[i:].lstrip()
    if not rest.startswith("{"):
        return None
    j = text.index("{", i)
    k, depth = j + 1, 1
    while depth:
        depth += (text[k] == "{") - (text[k] == "}")
        k += 1
    return text[j + 1:k - 1]


def blank_launch_bounds(text):
    """text with each __launch_bounds__(...) blanked out (same length), so that the kernel's name is the identifier
    before the parameter list."""
    out, pos = [], 0
    for m in re.finditer(r"__launch_bounds__\s*\(", text):
        if m.start() < pos:
            continue
        i, depth = m.end(), 1
        while depth and i < len(text):
            depth += (text[i] == "(") - (text[i] == ")")
            i += 1
        out.append(text[pos:m.start()])
        out.append(" " * (i - m.start()))
        pos = i
    out.append(text[pos:])
    return "".join(out)


def kernels(files):
    """name -> True when every definition of it calls pdl_wait() early."""
    waits = {}
    for f in files:
        text = blank_launch_bounds(f.read_text())
        for m in KERNEL_DEF.finditer(text):
            body = body_of(text, m.end() - 1)
            if body is None:
                continue
            lines = [ln.strip() for ln in body.split("\n")]
            lines = [ln for ln in lines if ln and not ln.startswith("//")]
            ok = any("pdl_wait();" in ln for ln in lines[:FIRST_LINES])
            waits[m.group(1)] = waits.get(m.group(1), True) and ok
    return waits


def call_args(text, start):
    """The top-level comma-separated arguments of the call whose '(' is at start."""
    args, depth, cur, i = [], 0, [], start + 1
    angle = 0
    while True:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur))
                return args
            depth -= 1
        elif c == "<" and depth == 0:
            angle += 1
        elif c == ">" and depth == 0 and angle > 0:
            angle -= 1
        if c == "," and depth == 0 and angle == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1


def declared(before, marker, span, waits):
    """The kernels a comment "// <marker> a, b" in the last `span` lines of `before` names."""
    names = []
    for ln in before[-span:]:
        decl = re.search(marker + r"\s*(.*)", ln)
        if decl:
            names += [w for w in IDENT.findall(decl.group(1)) if w in waits]
    return names


def judge(bad, where, names, waits, verbose, unnamed, launched_as):
    """Appends to bad a launch that names no kernel (unnamed) and each named kernel that does not wait first."""
    if not names:
        bad.append(f"{where}: {unnamed}")
    for n in sorted(set(names)):
        if not waits[n]:
            bad.append(f"{where}: {n} is launched {launched_as} but does not start with pdl_wait()")
        elif verbose:
            print(f"ok  {where}: {n}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    src = pathlib.Path(a.root) / "src" / "cuda"
    files = sorted(p for p in src.rglob("*") if p.suffix in (".cu", ".cuh", ".h", ".cpp"))
    waits = kernels(files)
    bad, launches = [], 0
    for f in files:
        text = f.read_text()
        for m in re.finditer(r"\blaunch_pdl\s*\(", text):
            line = text.count("\n", 0, m.start()) + 1
            if text[max(0, m.start() - 40):m.start()].rstrip().endswith("cudaError_t"):
                continue  # the definition in pdl.cuh
            args = call_args(text, m.end() - 1)
            if len(args) < 2:
                continue
            names = [w for w in IDENT.findall(args[1]) if w in waits]
            before = text[:m.start()].split("\n")
            var = IDENT.findall(args[1])
            if not names and var:  # a variable: the kernel names bound to it in the lines above
                for ln in before[-60:]:
                    if re.search(r"\b%s\b" % re.escape(var[0]), ln):
                        names += [w for w in IDENT.findall(ln) if w in waits]
            if not names and var:  # a lambda's parameter: the kernels its calls below pass
                for ln in reversed(before[-8:]):
                    lam = re.search(r"auto\s+(\w+)\s*=\s*\[[^\]]*\]\s*\(\s*auto\s+%s\s*\)" % re.escape(var[0]), ln)
                    if lam:
                        after = text[m.start():].split("\n")[:40]
                        for a2 in after:
                            if re.search(r"\b%s\s*\(" % lam.group(1), a2):
                                names += [w for w in IDENT.findall(a2) if w in waits]
                        break
            if not names:  # declared by a comment: "// launch_pdl kernels: a, b"
                names = declared(before, "launch_pdl kernels:", 3, waits)
            launches += 1
            judge(bad, f"{f.relative_to(a.root)}:{line}", names, waits, a.verbose,
                  f"cannot tell which kernel launch_pdl launches ({args[1].strip()})", "by launch_pdl")
    # Launches that set the attribute themselves (outside pdl.cuh) name their kernels in a comment within the lines
    # above it: "// pdl kernels: a, b".
    attrs = 0
    for f in files:
        if f.name == "pdl.cuh":
            continue
        text = f.read_text()
        for m in re.finditer(r"cudaLaunchAttributeProgrammaticStreamSerialization", text):
            line = text.count("\n", 0, m.start()) + 1
            attrs += 1
            names = declared(text[:m.start()].split("\n"), "pdl kernels:", 6, waits)
            judge(bad, f"{f.relative_to(a.root)}:{line}", names, waits, a.verbose,
                  "a programmatic-dependent launch attribute without a '// pdl kernels:' comment",
                  "as a programmatic dependent")
    for b in bad:
        print(b)
    print(f"{launches} launch_pdl calls and {attrs} other programmatic-dependent launches checked, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
