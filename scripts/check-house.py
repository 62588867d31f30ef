#!/usr/bin/env python3
"""House rules that a compiler does not check.

Fails (exit status 1) when
  (a) the #include graph of the library's own headers and sources (c/ and
      include/) has a cycle: each cycle is printed as a chain of files;
  (b) a source file of the repository (C, headers, Rust, Python, shell,
      CMake) is over MAX_LINES lines: each is printed with its count.
Vendored and generated files are left out (VENDORED, and any file whose
first lines say it is generated). Only files tracked by git count, so build
trees never do.

Usage: scripts/check-house.py [repository root, default: this script's parent]
"""
import os
import re
import subprocess
import sys

MAX_LINES = 800

# Copied from elsewhere as they are: not ours to split.
VENDORED = {"include/xffi/dlpack.h"}

SOURCE_SUFFIXES = (".c", ".h", ".rs", ".py", ".sh", ".cmake")
SOURCE_NAMES = ("CMakeLists.txt",)

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
GENERATED = re.compile(r"generated (by|with|from)|do not edit", re.IGNORECASE)


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def is_source(path):
    return path.endswith(SOURCE_SUFFIXES) or os.path.basename(path) in SOURCE_NAMES


def is_generated(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        head = "".join(f.readline() for _ in range(5))
    return bool(GENERATED.search(head))


def include_graph(root, files):
    """Edges from each file of c/ and include/ to the files of c/ and
    include/ it includes (system headers are not nodes)."""
    nodes = {p for p in files if p.startswith(("c/", "include/")) and p.endswith((".c", ".h"))}
    graph = {}
    for path in sorted(nodes):
        edges = []
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(2)
                # "x.h" is looked up next to the includer first, then like <x.h>.
                candidates = [os.path.normpath(os.path.join(os.path.dirname(path), name))] if m.group(1) == '"' else []
                candidates += ["include/" + name, "c/" + name]
                target = next((c for c in candidates if c in nodes), None)
                if target and target != path:
                    edges.append(target)
        graph[path] = edges
    return graph


def find_cycles(graph):
    """Every elementary cycle reachable by depth-first search, once each
    (rotated to start at its smallest file)."""
    cycles, seen = set(), []
    state = {}  # node -> 1 while on the stack, 2 when done

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):]
                i = cycle.index(min(cycle))
                key = tuple(cycle[i:] + cycle[:i])
                if key not in cycles:
                    cycles.add(key)
                    seen.append(key)
            elif state.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [])
    return seen


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = [p for p in tracked_files(root) if os.path.isfile(os.path.join(root, p))]
    ok = True

    cycles = find_cycles(include_graph(root, files))
    for cycle in cycles:
        print("include cycle: " + " -> ".join(cycle + (cycle[0],)))
    ok &= not cycles

    too_long = []
    for path in sorted(files):
        if not is_source(path) or path in VENDORED or is_generated(root, path):
            continue
        with open(os.path.join(root, path), "rb") as f:
            lines = f.read().count(b"\n")
        if lines > MAX_LINES:
            too_long.append((path, lines))
    for path, lines in too_long:
        print(f"over {MAX_LINES} lines: {path} ({lines})")
    ok &= not too_long

    if ok:
        print(f"house rules hold: no include cycle in c/ and include/, no source file over {MAX_LINES} lines")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
