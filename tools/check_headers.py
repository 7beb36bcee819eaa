#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The freednn Authors
"""Check freednn's public headers against the cuDNN 8.2 signature facts.

Usage:
  check_headers.py                      run all checks (exit 1 on any failure)
  check_headers.py --list               print the 263 function names, one a line
  check_headers.py --emit-stubs OUT.cpp --defined FILE...
                                        write stubs for functions not defined
                                        in FILE...
  check_headers.py --emit-names OUT.h   write a C array of the 263 names
  check_headers.py --emit-null-calls OUT.cpp [--defined FILE...]
                                        write a gtest file that calls every
                                        function with all-zero/NULL arguments
                                        (see NULL_CALL_* below)

Options: --signatures PATH (default /work/shared/reference/cudnn-8.2-signatures.md),
         --api PATH (default /work/shared/reference/cudnn-8.2-api.md),
         --include DIR (default <repo>/include), --cuda-include DIR
         (default /usr/local/cuda/include), --cxx g++, --cc gcc, -j N.

What the checks do
  1. parse the signatures file: 263 distinct names, 49 deprecated;
  2. textual: every function is declared exactly once (as
     `... CUDNNWINAPI cudnnFoo(`) in the header of its section, no other
     cudnn* function is declared, every deprecated one carries
     CUDNN_DEPRECATED and no other one does;
  3. per header, a C++ TU that includes only that header and
     static_asserts that `decltype(&cudnnFoo)` is exactly the function
     pointer type built from the fact (names stripped, `[]` -> `*`);
  4. enum values of api.md section 2.1 are static_asserted, and the values
     that api.md says v9 added must not appear in our headers; struct
     sizes are checked on LP64;
  5. warning matrix: every header alone (and twice) compiles with no
     warning as C99 (gcc -std=c99 -Wall -Wextra -pedantic -Werror) and as
     C++11 / C++20 (g++ -Wall -Wextra -pedantic -Werror), each with and
     without -I<cuda include> after -I<our include>, and with and without
     -DCUDNN_WARN_DEPRECATED.

Rule used by --emit-stubs to decide that a function is *defined* in a source
file (stubs are emitted only for functions not defined anywhere):
  The convention is that an implemented function is written with its name on
  a line of the form
        cudnnStatus_t CUDNNWINAPI cudnnFoo(
  i.e. a line matching  ^\\s*[\\w\\s\\*"]*?\\bCUDNNWINAPI\\s+(cudnn\\w+)\\s*\\(
  (optionally prefixed by `extern "C"`, a return type spread over words and
  `*`), or, without CUDNNWINAPI, a line that starts in column 0 matching
        ^[A-Za-z_][\\w\\s\\*]*?\\b(cudnn\\w+)\\s*\\(
  In both cases the candidate only counts if the parameter list's closing
  parenthesis (found by balancing parentheses, across lines, ignoring
  comments and string literals) is followed by `{` (a body) rather than `;`
  (a declaration).  Calls, declarations, and names inside comments are
  therefore never mistaken for definitions.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_SIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "facts", "cudnn-8.2-signatures.md")
DEFAULT_API = os.path.join(os.path.dirname(os.path.abspath(__file__)), "facts", "cudnn-8.2-api.md")
DEFAULT_CUDA_INC = "/usr/local/cuda/include"

HEADERS = [
    "cudnn_version.h",
    "cudnn_ops_infer.h",
    "cudnn_ops_train.h",
    "cudnn_cnn_infer.h",
    "cudnn_cnn_train.h",
    "cudnn_adv_infer.h",
    "cudnn_adv_train.h",
    "cudnn_backend.h",
    "cudnn.h",
    "freednn.h",
]

# --------------------------------------------------------------------------
# parsing of the signature facts
# --------------------------------------------------------------------------

_FUNC_RE = re.compile(
    r"^- `(?P<name>cudnn\w+)` \u2192 `(?P<ret>[^`]+)`(?P<dep> \(dep\))?: (?P<params>.*)$")
_SECTION_RE = re.compile(r"^## (?P<header>cudnn\w*\.h) \((?P<count>\d+)\)")


def _split_param(text):
    """'const int dimA[]' -> ('const int *', 'dimA'); 'void **states' ->
    ('void **', 'states')."""
    text = text.strip()
    m = re.match(r"^(.*?)(\w+)\s*(\[\s*\])?$", text)
    if not m:
        raise ValueError("cannot parse parameter %r" % text)
    base, name, arr = m.group(1), m.group(2), m.group(3)
    base = base.strip()
    # normalise pointer spelling: 'void **' , 'const int *'
    stars = ""
    while base.endswith("*"):
        stars += "*"
        base = base[:-1].rstrip()
    if arr:
        stars += "*"
    ctype = base + (" " + stars if stars else "")
    if not base:
        raise ValueError("parameter without type: %r" % text)
    return ctype, name


def parse_signatures(path=DEFAULT_SIGS):
    """Parse the signature facts file.

    Returns a list (file order) of dicts:
      name:       function name
      ret:        return type as written ('cudnnStatus_t', 'size_t', 'const char *')
      params:     list of (type, name); the type has `[]` turned into `*`
                  ('const int *') and keeps top-level const as written
      raw_params: the parameter texts as written in the facts ('const int dimA[]')
      header:     the header of the function's section ('cudnn_ops_infer.h')
      deprecated: True for `(dep)` entries
    """
    out = []
    header = None
    counts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = _SECTION_RE.match(line)
            if m:
                header = m.group("header")
                counts[header] = int(m.group("count"))
                continue
            m = _FUNC_RE.match(line)
            if not m:
                continue
            if header is None:
                raise ValueError("function before any section: %s" % line)
            ptext = m.group("params").strip()
            raw = [] if ptext == "void" else [p.strip() for p in ptext.split(";")]
            out.append({
                "name": m.group("name"),
                "ret": m.group("ret").strip(),
                "params": [_split_param(p) for p in raw],
                "raw_params": raw,
                "header": header,
                "deprecated": bool(m.group("dep")),
            })
    for h, n in counts.items():
        got = sum(1 for d in out if d["header"] == h)
        if got != n:
            raise ValueError("section %s announces %d functions, parsed %d" % (h, n, got))
    return out


# --------------------------------------------------------------------------
# api.md enum facts
# --------------------------------------------------------------------------

_ENUM_LINE_RE = re.compile(r"^- \*\*(?P<type>\w+)\*\* \(`(?P<prefix>\w*)\*`\): (?P<body>.*)$")


def _parse_pairs(text):
    pairs = []
    for item in text.split(","):
        item = item.strip()
        m = re.match(r"^(\w+)\s*=\s*(-?\d+)$", item)
        if m:
            pairs.append((m.group(1), int(m.group(2))))
    return pairs


def parse_api_enums(path=DEFAULT_API):
    """Returns list of (enum type, {enumerator: value}, [v9-only enumerators])."""
    res = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = _ENUM_LINE_RE.match(line.rstrip("\n"))
            if not m:
                continue
            prefix = m.group("prefix")
            parts = m.group("body").split(" \u2014 ")
            vals = dict((prefix + k, v) for k, v in _parse_pairs(parts[0]))
            v9_only = []
            for extra in parts[1:]:
                extra = extra.strip()
                if extra.startswith("v9 adds:"):
                    v9_only += [prefix + k for k, _ in _parse_pairs(extra[len("v9 adds:"):])]
            res.append((m.group("type"), vals, v9_only))
    return res


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def fn_pointer_type(d):
    params = ", ".join(t for t, _ in d["params"]) or "void"
    return "%s (CUDNNWINAPI *)(%s)" % (d["ret"], params)


def _strip_comments(text):
    # keep newlines / offsets roughly: replace comments and strings by spaces
    def repl(m):
        s = m.group(0)
        if s.startswith("/"):
            return re.sub(r"[^\n]", " ", s)
        return s[0] + " " * (len(s) - 2) + s[-1]
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  repl, text, flags=re.S)


_DEF_RULE1 = re.compile(r'^[ \t]*[\w \t\*"]*?\bCUDNNWINAPI\s+(cudnn\w+)\s*\(', re.M)
_DEF_RULE2 = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(cudnn\w+)\s*\(", re.M)


def defined_functions(path):
    """Names of cudnn* functions defined (with a body) in a source file."""
    return set(defined_function_offsets(path))


def defined_function_offsets(path):
    """{name: offset of the start of the defining line} for the cudnn* functions defined in a file
    (the offsets index the file's text as read with utf-8, errors=replace)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        raw = f.read()
    text = _strip_comments(raw)
    found = {}
    for rx in (_DEF_RULE1, _DEF_RULE2):
        for m in rx.finditer(text):
            pos = m.end() - 1  # at '('
            depth = 0
            i = pos
            n = len(text)
            while i < n:
                c = text[i]
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            if i >= n:
                continue
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            # allow trailing qualifiers such as noexcept / throw()
            rest = text[j:j + 64]
            mq = re.match(r"(?:noexcept\s*(?:\([^)]*\))?|throw\s*\(\s*\))\s*", rest)
            if mq:
                j += mq.end()
            if j < n and text[j] == "{":
                found.setdefault(m.group(1), m.start())
    return found


def declared_in_headers(include_dir):
    """{function name: [(header, deprecated_marked)]} from our headers."""
    decl = {}
    rx = re.compile(r"(CUDNN_DEPRECATED\s+)?([\w \t\*]*?)\bCUDNNWINAPI\s+(cudnn\w+)\s*\(")
    for h in HEADERS:
        p = os.path.join(include_dir, h)
        if not os.path.exists(p):
            continue
        with open(p, encoding="utf-8") as f:
            text = _strip_comments(f.read())
        # drop preprocessor lines (macro definitions mention CUDNNWINAPI)
        text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
        for m in rx.finditer(text):
            decl.setdefault(m.group(3), []).append((h, bool(m.group(1))))
    return decl


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------

class Checker:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.notes = []

    def fail(self, msg):
        self.failures.append(msg)

    def compile(self, compiler, flags, src_text, suffix, label):
        with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
            f.write(src_text)
            path = f.name
        try:
            cmd = [compiler] + flags + ["-fsyntax-only", path]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if r.returncode != 0:
                return (label, " ".join(cmd[:-1]), r.stdout)
            return None
        finally:
            os.unlink(path)

    def run(self):
        a = self.args
        sigs = parse_signatures(a.signatures)
        names = [d["name"] for d in sigs]
        if len(names) != 263:
            self.fail("expected 263 functions, parsed %d" % len(names))
        if len(set(names)) != len(names):
            self.fail("duplicate function names in the facts")
        ndep = sum(d["deprecated"] for d in sigs)
        if ndep != 49:
            self.fail("expected 49 deprecated functions, parsed %d" % ndep)

        # ---- textual placement check
        decl = declared_in_headers(a.include)
        for h in HEADERS:
            if not os.path.exists(os.path.join(a.include, h)):
                self.fail("missing header %s" % h)
        for d in sigs:
            where = decl.get(d["name"], [])
            if not where:
                self.fail("%s: not declared in any header" % d["name"])
                continue
            if len(where) != 1:
                self.fail("%s: declared %d times: %s" % (d["name"], len(where),
                                                         ", ".join(w[0] for w in where)))
            if where[0][0] != d["header"]:
                self.fail("%s: declared in %s, expected %s" % (d["name"], where[0][0],
                                                                d["header"]))
            if where[0][1] != d["deprecated"]:
                self.fail("%s: CUDNN_DEPRECATED marker %s, expected %s" % (
                    d["name"], where[0][1], d["deprecated"]))
        for n in sorted(set(decl) - set(names)):
            self.fail("%s: declared in %s but is not a cuDNN 8.2 function" % (n, decl[n][0][0]))

        jobs = []  # (compiler, flags, text, suffix, label)
        base_cxx = ["-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I" + a.include]

        # ---- per-header exact-type check
        by_header = {}
        for d in sigs:
            by_header.setdefault(d["header"], []).append(d)
        for h, fns in by_header.items():
            lines = ["#include \"%s\"" % h, "#include <type_traits>", ""]
            for d in fns:
                lines.append("static_assert(std::is_same<decltype(&%s), %s>::value, \"%s\");"
                             % (d["name"], fn_pointer_type(d), d["name"]))
            text = "\n".join(lines) + "\n"
            for cuda in (False, True):
                flags = list(base_cxx) + (["-I" + a.cuda_include] if cuda else [])
                jobs.append((a.cxx, flags, text, ".cpp",
                             "exact types of %s functions (%s)" % (h, "cuda" if cuda else "nocuda")))

        # ---- all functions through cudnn.h, with deprecation attributes on
        lines = ["#include \"cudnn.h\"", "#include <type_traits>", ""]
        for d in sigs:
            lines.append("static_assert(std::is_same<decltype(&%s), %s>::value, \"%s\");"
                         % (d["name"], fn_pointer_type(d), d["name"]))
        all_text = "\n".join(lines) + "\n"
        jobs.append((a.cxx, base_cxx + ["-DCUDNN_WARN_DEPRECATED", "-Wno-deprecated-declarations"],
                     all_text, ".cpp", "exact types via cudnn.h (deprecation on)"))
        jobs.append((a.cxx, ["-std=c++20"] + base_cxx[1:] + ["-I" + a.cuda_include],
                     all_text, ".cpp", "exact types via cudnn.h (c++20, cuda)"))

        # ---- enum values / struct sizes
        enums = parse_api_enums(a.api)
        lines = ["#include \"cudnn.h\"", "#include <stddef.h>", ""]
        v9_only = []
        for etype, vals, v9 in enums:
            v9_only += v9
            for k, v in vals.items():
                lines.append("static_assert((long long)%s == %dLL && sizeof(%s) == sizeof(int), "
                             "\"%s\");" % (k, v, etype, k))
        lines.append("static_assert((int)MAJOR_VERSION == 0 && (int)MINOR_VERSION == 1 && "
                     "(int)PATCH_LEVEL == 2, \"libraryPropertyType\");")
        lines.append("static_assert(CUDNN_VERSION == 8200, \"CUDNN_VERSION\");")
        lines.append("static_assert(CUDNN_DIM_MAX == 8 && CUDNN_SEQDATA_DIM_COUNT == 4 && "
                     "CUDNN_ATTN_WKIND_COUNT == 8, \"limits\");")
        lines.append("static_assert(sizeof(cudnnAlgorithm_t) == sizeof(int), \"cudnnAlgorithm_t\");")
        lines.append("#if defined(__LP64__)")
        for s in ("Fwd", "BwdData", "BwdFilter"):
            lines.append("static_assert(sizeof(cudnnConvolution%sAlgoPerf_t) == 48 && "
                         "offsetof(cudnnConvolution%sAlgoPerf_t, memory) == 16 && "
                         "offsetof(cudnnConvolution%sAlgoPerf_t, reserved) == 32, \"%s perf\");"
                         % (s, s, s, s))
        lines.append("static_assert(sizeof(cudnnDebug_t) == 120 && offsetof(cudnnDebug_t, handle) == 24 "
                     "&& offsetof(cudnnDebug_t, cudaDeviceId) == 56, \"cudnnDebug_t\");")
        lines.append("#endif")
        lines.append("static_assert(std::is_same<cudnnCallback_t, void (*)(cudnnSeverity_t, void *, "
                     "const cudnnDebug_t *, const char *)>::value, \"cudnnCallback_t\");")
        lines.insert(1, "#include <type_traits>")
        text = "\n".join(lines) + "\n"
        for cuda in (False, True):
            jobs.append((a.cxx, base_cxx + (["-I" + a.cuda_include] if cuda else []), text, ".cpp",
                         "enum values / struct layout (%s)" % ("cuda" if cuda else "nocuda")))
        alltext = ""
        for h in HEADERS:
            p = os.path.join(a.include, h)
            if os.path.exists(p):
                with open(p, encoding="utf-8") as f:
                    alltext += f.read()
        for n in v9_only:
            if re.search(r"\b%s\b" % re.escape(n), alltext):
                self.fail("%s: v9-only enumerator present in our headers" % n)

        # ---- attribute names: 131 in 8.2
        m = re.search(r"\}\s*cudnnBackendAttributeName_t\s*;", alltext)
        if m:
            body = alltext[:m.start()]
            body = body[body.rfind("typedef enum"):]
            cnt = len(re.findall(r"\bCUDNN_ATTR_\w+\s*=", body))
            if cnt != 131:
                self.fail("cudnnBackendAttributeName_t has %d values, expected 131" % cnt)
        else:
            self.fail("cudnnBackendAttributeName_t not found")

        # ---- warning matrix
        modes = [
            (a.cc, ["-std=c99"], ".c", "c99"),
            (a.cxx, ["-std=c++11"], ".cpp", "c++11"),
            (a.cxx, ["-std=c++20"], ".cpp", "c++20"),
        ]
        for compiler, std, suffix, mlabel in modes:
            for cuda in (False, True):
                for dep in (False, True):
                    flags = std + ["-Wall", "-Wextra", "-pedantic", "-Werror", "-I" + a.include]
                    if cuda:
                        flags.append("-I" + a.cuda_include)
                    if dep:
                        flags.append("-DCUDNN_WARN_DEPRECATED")
                    for h in HEADERS:
                        text = ("#include \"%s\"\n#include \"%s\"\n"
                                "int freednn_check_dummy(void);\n" % (h, h))
                        jobs.append((compiler, flags, text, suffix,
                                     "warnings: %s %s%s%s" % (h, mlabel,
                                                              " +cuda" if cuda else "",
                                                              " +WARN_DEPRECATED" if dep else "")))
        # a C TU that uses the types (struct members, callback)
        ctext = ("#include \"cudnn.h\"\n#include \"freednn.h\"\n"
                 "static void cb(cudnnSeverity_t s, void *u, const cudnnDebug_t *d, const char *m)\n"
                 "{ (void)s; (void)u; (void)d; (void)m; }\n"
                 "int freednn_use(void);\n"
                 "int freednn_use(void) {\n"
                 "  cudnnConvolutionFwdAlgoPerf_t p; cudnnAlgorithm_t al; cudnnDebug_t dbg;\n"
                 "  cudnnCallback_t f = cb;\n"
                 "  p.algo = CUDNN_CONVOLUTION_FWD_ALGO_GEMM; al.algo.convFwdAlgo = p.algo;\n"
                 "  dbg.cudaDeviceId = 0; (void)f;\n"
                 "  return (int)al.algo.convFwdAlgo + dbg.cudaDeviceId + "
                 "(int)sizeof(cudaStream_t) + (int)CUDNN_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS;\n"
                 "}\n")
        for cuda in (False, True):
            flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I" + a.include]
            if cuda:
                flags.append("-I" + a.cuda_include)
            jobs.append((a.cc, flags, ctext, ".c", "C99 use of types%s" % (" +cuda" if cuda else "")))

        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            results = list(ex.map(lambda j: self.compile(*j), jobs))
        nfail = 0
        for r in results:
            if r is not None:
                nfail += 1
                label, cmd, out = r
                lines = out.strip().splitlines()
                self.fail("%s\n    $ %s\n    %s" % (label, cmd, "\n    ".join(lines[:20])))
        self.notes.append("%d compile jobs, %d failed" % (len(jobs), nfail))
        self.notes.append("%d functions (%d deprecated) in %d headers; %d enum types / %d v9-only "
                          "names checked" % (len(sigs), ndep, len(by_header), len(enums),
                                             len(v9_only)))
        return not self.failures


# --------------------------------------------------------------------------
# emitters
# --------------------------------------------------------------------------

def emit_stubs(sigs, out_path, defined_files):
    defined = set()
    for p in defined_files:
        defined |= defined_functions(p)
    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// Copyright 2026 The freednn Authors",
        "// Generated by tools/check_headers.py --emit-stubs; do not edit.",
        "#include \"cudnn.h\"",
        "",
        "namespace fd { cudnnStatus_t not_implemented(const char* fn); }",
        "",
    ]
    nstub = 0
    for d in sigs:
        if d["name"] in defined:
            continue
        params = ", ".join(t for t, _ in d["params"]) or "void"
        head = "%s CUDNNWINAPI %s(%s)" % (d["ret"], d["name"], params)
        if d["ret"] == "cudnnStatus_t":
            body = "{ return ::fd::not_implemented(\"%s\"); }" % d["name"]
        else:
            sys.stderr.write("warning: %s (returns %s) is not implemented; emitting a trivial stub\n"
                             % (d["name"], d["ret"]))
            body = "{ return %s; }" % ("\"\"" if "char" in d["ret"] else "0")
        lines.append(head + " " + body)
        nstub += 1
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    sys.stderr.write("%d of %d functions stubbed (%d defined in given files)\n"
                     % (nstub, len(sigs), len(sigs) - nstub))


def emit_names(sigs, out_path):
    lines = [
        "/* SPDX-License-Identifier: Apache-2.0 */",
        "/* Copyright 2026 The freednn Authors */",
        "/* Generated by tools/check_headers.py --emit-names; do not edit. */",
        "#ifndef FREEDNN_CUDNN_FUNCTION_NAMES_H",
        "#define FREEDNN_CUDNN_FUNCTION_NAMES_H",
        "",
        "#define FREEDNN_CUDNN_FUNCTION_COUNT %d" % len(sigs),
        "static const char* const kCudnnFunctionNames[%d] = {" % len(sigs),
    ]
    lines += ["    \"%s\"," % d["name"] for d in sigs]
    lines += ["};", "", "#endif", ""]
    with open(out_path, "w") as f:
        f.write("\n".join(lines))


# --------------------------------------------------------------------------
# null-call robustness test
# --------------------------------------------------------------------------

# Every function is called with each argument value-initialized (NULL handles, descriptors and pointers,
# zero counts and sizes, the enumerator 0, an all-zero cudnnAlgorithm_t). It must not crash and, when it
# returns cudnnStatus_t, must report an error: nothing useful can be done with NULL everywhere. Exceptions:
#
# NULL_CALL_SUCCESS: SUCCESS is the correct answer for these arguments, and it is required once the
#   function is implemented (defined in one of the --defined files; stubs answer NOT_SUPPORTED):
#   - cudnnDestroy<X>Descriptor(NULL): like free(NULL), the freednn convention (docs/developing.md);
#   - cudnnSetCallback(0, NULL, NULL): mask 0 and a NULL function restore the default logger;
#   - the six cudnn<Sub>VersionCheck(): one library, the versions always agree.
NULL_CALL_SUCCESS_RE = re.compile(r"^cudnnDestroy\w+Descriptor$|^cudnn\w+VersionCheck$|^cudnnSetCallback$")
NULL_CALL_SUCCESS_EXCLUDE = {"cudnnBackendDestroyDescriptor"}
# NULL_CALL_ANY: SUCCESS and errors are both defensible; only "no crash and a valid status" is checked.
#   - cudnnBackendDestroyDescriptor(NULL): the cuDNN documentation only lists SUCCESS (destroyed) and
#     ALLOC_FAILED; it does not say what a NULL descriptor gives;
#   - cudnnDestroyAlgorithmPerformance(NULL, 0): destroys nothing, like free(NULL);
#   - cudnnDestroyFusedOpsConstParamPack / VariantParamPack / Plan(NULL), cudnnDestroyPersistentRNNPlan(NULL):
#     destructors of non-descriptor objects; NULL is a no-op in the same spirit, but undocumented.
NULL_CALL_ANY = {
    "cudnnBackendDestroyDescriptor",
    "cudnnDestroyAlgorithmPerformance",
    "cudnnDestroyFusedOpsConstParamPack",
    "cudnnDestroyFusedOpsVariantParamPack",
    "cudnnDestroyFusedOpsPlan",
    "cudnnDestroyPersistentRNNPlan",
}


def null_call_expectation(name, ret, implemented):
    """'success', 'any', 'error' (cudnnStatus_t functions) or 'value' (others)."""
    if ret != "cudnnStatus_t":
        return "value"
    if name in NULL_CALL_ANY:
        return "any"
    if NULL_CALL_SUCCESS_RE.match(name) and name not in NULL_CALL_SUCCESS_EXCLUDE:
        return "success" if implemented else "any"
    return "error"


def emit_null_calls(sigs, out_path, defined_files):
    defined = set()
    for p in defined_files:
        defined |= defined_functions(p)
    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// Copyright 2026 The freednn Authors",
        "// Generated by tools/check_headers.py --emit-null-calls; do not edit.",
        "// Every cuDNN 8.2 function called with all-zero / NULL arguments: no crash, and an error status",
        "// except where SUCCESS is right (see NULL_CALL_SUCCESS / NULL_CALL_ANY in the script).",
        "#include <cudnn.h>",
        "#include <gtest/gtest.h>",
        "",
        "#include <cstring>",
        "#include <type_traits>",
        "",
        "namespace {",
        "template <class T>",
        "std::remove_cv_t<T> zero() {",
        "  std::remove_cv_t<T> v{};",
        "  return v;",
        "}",
        "bool known_status(cudnnStatus_t s) {",
        "  return std::strcmp(cudnnGetErrorString(s), \"CUDNN_UNKNOWN_STATUS\") != 0;",
        "}",
        "}  // namespace",
        "",
    ]
    counts = {}
    for d in sigs:
        name, ret = d["name"], d["ret"]
        exp = null_call_expectation(name, ret, name in defined)
        counts[exp] = counts.get(exp, 0) + 1
        args = ", ".join("zero<%s>()" % t for t, _ in d["params"])
        call = "%s(%s)" % (name, args)
        lines.append("TEST(NullCall, %s) {" % name)
        if exp == "value":
            lines.append("  const auto r = %s;" % call)
            if "char" in ret:
                lines.append("  EXPECT_NE(r, nullptr);")
            else:
                lines.append("  (void)r;")
        else:
            lines.append("  const cudnnStatus_t st = %s;" % call)
            lines.append("  EXPECT_TRUE(known_status(st)) << \"not a cudnnStatus_t: \" << static_cast<int>(st);")
            if exp == "error":
                lines.append("  EXPECT_NE(st, CUDNN_STATUS_SUCCESS) << \"%s accepted all-zero arguments\";"
                             % name)
            elif exp == "success":
                lines.append("  EXPECT_EQ(st, CUDNN_STATUS_SUCCESS) << cudnnGetErrorString(st);")
            else:
                lines.append("  (void)st;  // either answer is acceptable")
        lines.append("}")
        lines.append("")
    with open(out_path, "w") as f:
        f.write("\n".join(lines))
    sys.stderr.write("null-call tests: %d functions (%s)\n" % (
        len(sigs), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items()))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--signatures", default=DEFAULT_SIGS)
    ap.add_argument("--api", default=DEFAULT_API)
    ap.add_argument("--include", default=os.path.join(REPO, "include"))
    ap.add_argument("--cuda-include", default=DEFAULT_CUDA_INC)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--emit-stubs", metavar="OUT.cpp")
    ap.add_argument("--defined", nargs="*", default=[], metavar="FILE")
    ap.add_argument("--emit-names", metavar="OUT.h")
    ap.add_argument("--emit-null-calls", metavar="OUT.cpp")
    ap.add_argument("--no-check", action="store_true", help="only emit; skip the header checks")
    a = ap.parse_args(argv)

    sigs = parse_signatures(a.signatures)
    if a.list:
        try:
            for d in sigs:
                print(d["name"])
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. piped into head
            pass
        return 0
    if a.emit_stubs or a.emit_names or a.emit_null_calls:
        if a.emit_stubs:
            emit_stubs(sigs, a.emit_stubs, a.defined)
        if a.emit_names:
            emit_names(sigs, a.emit_names)
        if a.emit_null_calls:
            emit_null_calls(sigs, a.emit_null_calls, a.defined)
        return 0

    c = Checker(a)
    ok = c.run()
    for n in c.notes:
        print(n)
    if not ok:
        print("FAILED (%d problems):" % len(c.failures))
        for f in c.failures:
            print("  - " + f)
        return 1
    print("OK: all header checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
