#!/usr/bin/env python3
"""ci/layers.py [SRC [BUILD]]: the floors (docs/architecture.md) hold - no C file
(kernels/, include/, harness/, fuzzers/) includes a header of a later floor,
no Python module of python/ imports one of a later floor, and no two folders
or modules include each other; no C function is longer than 100 lines; and,
given a BUILD folder, no two of the harness's C files call each other (read
from their objects' symbols with nm; the link itself stops a call up:
harness/CMakeLists.txt's floor checks, ci/floors-test.sh). Prints each
violation; exit 1 if any. docs_test runs it."""
import collections
import glob
import os
import re
import subprocess
import sys

# The C floors, first to last; folders on one line are side by side. kernels/
# and fuzzers/ are one floor each, their subfolders with them.
FLOORS = ["kernels", "include", "harness/base", "harness/model/case", "harness/model/bytes harness/model/spec",
          "harness/io/dump", "harness/io/load", "harness/runtime/backend",
          "harness/runtime/guard harness/runtime/under_test", "harness/runtime/workers harness/runtime/api",
          "harness/oracle", "harness/losses", "harness/tools/minimize", "harness/tools/campaign", "harness/tools/cli harness/tools/bench",
          "fuzzers"]
WHOLE = ("kernels", "include", "fuzzers")  # a floor with its subfolders
C_FILES = (".c", ".h", ".def", ".inc", ".cu")

# The Python floors of python/: the PyTorch worker's modules, then the package.
PY_FLOORS = ["lossfuzz_triton_compat lossfuzz_torch lossfuzz_llm lossfuzz_export_runtime", "lossfuzz_kernel", "lossfuzz_ranks",
             "lossfuzz_worker", "lossfuzz_zygote lossfuzz_export", "lossfuzz"]


def unit_of(rel):
    """The floor's folder a C file's folder belongs to, or None for tests."""
    parts = rel.split("/")
    if "tests" in parts:
        return None
    return parts[0] if parts[0] in WHOLE else rel


def check(edges, rank, what):
    """edges: (from unit, file, included name, to unit); the violations."""
    bad, pairs = [], set()
    for frm, path, name, to in edges:
        if to == frm:
            continue
        pairs.add((frm, to))
        if rank[to] > rank[frm]:
            bad.append("%s %s %s of a later floor (%s)" % (path, what, name, to))
    bad += ["%s and %s include each other" % p for p in sorted(pairs) if p[0] < p[1] and p[::-1] in pairs]
    return bad


def c_floors(src):
    rank = {folder: i for i, line in enumerate(FLOORS) for folder in line.split()}
    where, bad = {}, []
    for top in ("kernels", "include", "harness", "fuzzers"):
        for d, _, files in os.walk(os.path.join(src, top)):
            rel = os.path.relpath(d, src)
            unit = unit_of(rel)
            if unit is None or not any(f.endswith(C_FILES) for f in files):
                continue
            if unit not in rank:
                bad.append("%s is on no floor (ci/layers.py's FLOORS, docs/architecture.md)" % rel)
                continue
            for f in files:
                if f.endswith(C_FILES):
                    where.setdefault(f, (unit, os.path.join(rel, f)))
    edges = []
    for f, (unit, path) in where.items():
        with open(os.path.join(src, path), errors="replace") as fh:
            for inc in re.findall(r'#include "([^"]+)"', fh.read()):
                to = where.get(os.path.basename(inc))
                if to:
                    edges.append((unit, path, inc, to[0]))
    return bad + check(edges, rank, "includes")


def py_floors(src):
    rank = {m: i for i, line in enumerate(PY_FLOORS) for m in line.split()}
    root = os.path.join(src, "python")
    bad, edges = [], []
    for d, _, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if "tests" in rel.split("/"):
            continue
        for f in files:
            if not f.endswith(".py"):
                continue
            unit = rel.split("/")[0] if rel != "." else f[:-3]
            path = os.path.join("python", rel, f) if rel != "." else os.path.join("python", f)
            if unit not in rank:
                bad.append("%s is on no floor (ci/layers.py's PY_FLOORS)" % path)
                continue
            with open(os.path.join(d, f), errors="replace") as fh:
                for name in re.findall(r"^\s*(?:from|import)\s+(lossfuzz\w*)", fh.read(), re.M):
                    if name in rank:
                        edges.append((unit, path, name, name))
    return bad + check(edges, rank, "imports")


MAX_FUNCTION_LINES = 100


def long_functions(src):
    """C functions (signature to closing brace, clang-format's layout) longer than MAX_FUNCTION_LINES."""
    bad = []
    for top in ("kernels", "include", "harness", "fuzzers", "examples"):
        for d, _, files in os.walk(os.path.join(src, top)):
            for f in files:
                if not f.endswith((".c", ".cu", ".h", ".inc")):
                    continue
                path = os.path.join(d, f)
                with open(path, errors="replace") as fh:
                    lines = fh.read().split("\n")
                depth, start = 0, None
                for i, line in enumerate(lines):
                    if depth == 0 and line == "{":
                        start = i - 1
                        while start > 0 and lines[start - 1].strip() and not lines[start - 1].startswith("#") \
                                and not lines[start - 1].rstrip().endswith((";", "}", "*/")):
                            start -= 1
                    depth += line.count("{") - line.count("}")
                    if depth == 0 and line == "}" and start is not None:
                        n = i - start + 1
                        name = (re.findall(r"(\w+)\s*\(", lines[start]) or ["?"])[0]
                        if n > MAX_FUNCTION_LINES:
                            bad.append("%s: %s is %d lines (at most %d)" % (os.path.relpath(path, src), name, n,
                                                                            MAX_FUNCTION_LINES))
                        start = None
    return bad


def call_cycles(build):
    """Pairs of the harness's and kernels' C files that call each other, from BUILD's objects."""
    try:  # the targets of today's CMakeLists (a target since removed leaves its objects behind)
        with open(os.path.join(build, "CMakeFiles", "TargetDirectories.txt")) as fh:
            targets = [t.strip() for t in fh if "/harness/" in t or "/kernels/" in t]
    except OSError:
        return ["%s is not a CMake build folder" % build]
    objs = [o for t in targets for o in glob.glob(os.path.join(t, "**", "*.o"), recursive=True)
            if "/tests/" not in o and "lf_floor_check" not in o]
    if not objs:
        return ["%s has no objects: build first (ci/build.sh)" % build]
    defined, wanted = {}, collections.defaultdict(set)
    name = lambda o: os.path.basename(o).split(".")[0]  # noqa: E731 (lf_x.c.o: lf_x)
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
        for fields in (line.split() for line in out.splitlines()):
            if len(fields) == 3 and fields[1] in "TDBRC":
                defined.setdefault(fields[2], name(o))
            elif len(fields) == 2 and fields[0] == "U":
                wanted[name(o)].add(fields[1])
    calls = {(f, defined[s]) for f, syms in wanted.items() for s in syms if s in defined and defined[s] != f}
    return ["%s.c and %s.c call each other" % p for p in sorted(calls) if p[0] < p[1] and p[::-1] in calls]


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = c_floors(src) + py_floors(src) + long_functions(src)
    if len(sys.argv) > 2:
        bad += call_cycles(sys.argv[2])
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
