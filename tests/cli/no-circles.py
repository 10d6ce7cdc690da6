#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No two files of the project call each other, directly or round a longer
loop: from each object's defined and undefined symbols (nm), the calls
between source files, and their strongly connected components.  Each file
of a folder should be readable knowing only the files it calls.

Usage: no-circles.py SOURCE_ROOT BUILDDIR"""
import json, os, subprocess, sys
from collections import defaultdict

FOLDERS = ("lib/", "cli/", "common/", "preload/", "outside/", "mpi/")

def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSVW":
            defined.add(parts[2])
    return defined, undefined

def libc_names():
    """What the C library defines: the shim defines read, close ... too, and
    a call to those is to the C library, not to the shim's file."""
    names = set()
    for lib in ("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib/libc.so.6"):
        if os.path.exists(lib):
            out = subprocess.run(["nm", "-D", "--defined-only", lib],
                                 capture_output=True, text=True, check=True).stdout
            names.update(l.split()[-1].split("@")[0] for l in out.splitlines() if l.strip())
            break
    return names

def shim_names(root):
    """What the shim exports (its version script): other libraries' names
    (libc's, liburing's), which a call reaches in those libraries."""
    names, inside = set(), False
    for line in open(os.path.join(root, "preload", "libpagecliff-preload.map")):
        line = line.split("#")[0].strip()
        if line.startswith("global:"):
            inside = True
            line = line[len("global:"):].strip()
        elif line.startswith("local:"):
            inside = False
        if inside:
            names.update(n.strip() for n in line.split(";") if n.strip() and n.strip() != "*")
    return names

def objects(root, build):
    seen = {}
    for cmd in json.load(open(os.path.join(build, "compile_commands.json"))):
        src = os.path.relpath(os.path.join(cmd["directory"], cmd["file"]), root)
        if not src.startswith(FOLDERS) or src in seen:
            continue
        obj = os.path.join(cmd["directory"], cmd["output"])
        if os.path.exists(obj):
            seen[src] = obj
    return seen

def components(graph):
    """Tarjan's strongly connected components, those of two files or more."""
    index, low, stack, on, out = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out

def main():
    root, build = sys.argv[1], sys.argv[2]
    objs = objects(root, build)
    if len(objs) < 20:
        print("no-circles: only %d of the project's objects in %s: build it first" % (len(objs), build))
        return 1
    syms = {src: symbols(obj) for src, obj in objs.items()}
    libc = libc_names() | shim_names(root)
    if not libc:
        print("no-circles: no C library found to tell its names from ours")
        return 1
    owner = defaultdict(set)
    for src, (defined, _) in syms.items():
        for s in defined - libc:
            owner[s].add(src)
    graph = {src: set() for src in syms}
    why = {}
    for src, (_, undefined) in syms.items():
        for s in undefined:
            for o in owner.get(s, ()):
                if o != src:
                    graph[src].add(o)
                    why.setdefault((src, o), s)
    bad = components(graph)
    for comp in bad:
        print("circle: " + " <-> ".join(comp))
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    print("  %s calls %s (%s)" % (a, b, why[(a, b)]))
    print("%d files, %d calls between them, %d circles" %
          (len(graph), sum(len(v) for v in graph.values()), len(bad)))
    return 1 if bad else 0

sys.exit(main())
