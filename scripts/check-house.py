#!/usr/bin/env python3
"""House rules that a compiler does not check.

Fails (exit status 1) when
  (a) the #include graph of the library's own headers and sources (c/ and
      include/) has a cycle: each cycle is printed as a chain of files;
  (b) a source file of the repository (C, headers, Rust, Python, shell,
      CMake) is over MAX_LINES lines: each is printed with its count;
  (c) the layer rule is broken. c/README.md lists the folders of c/ bottom
      up, in a table whose first column is each folder (`c/...`); a file may
      include the private headers and call the functions of its own folder
      and of the folders listed before it, never of one listed after it:
        - includes are read from the sources;
        - calls are read from the compiled objects (--objects BUILD_DIR: the
          undefined symbols of each object of c/ against the symbols each
          defines, with nm), so a call made through a macro or an inline
          function counts in the file that expands it;
      and C files must sit in a listed folder. The few upward references
      the runtime needs are EXCEPTIONS below, each with its reason; one that
      is no longer used is reported too, so the list only shrinks.
  (d) a TVMFFI* function (tvm-ffi's C ABI) is defined outside c/compat/ or
      called from outside it: xffi's own code calls its own names, which
      another runtime loaded in the process cannot interpose (needs
      --objects).
Vendored and generated files are left out (VENDORED, and any file whose
first lines say it is generated). Only files tracked by git count, so build
trees never do.

Usage: scripts/check-house.py [--objects BUILD_DIR] [repository root, default: this script's parent]
"""
import argparse
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
LAYER_ROW = re.compile(r"^\|\s*`(c/[^`]*?)/?`\s*\|")

# Upward references allowed by name: (folder of the caller, symbol) -> why.
# The runtime is complete without the compatibility layer except for what
# tvm-ffi's own runtime holds from the start (c/runtime/seeds.h).
EXCEPTIONS = {
    ("c/runtime", "xffi_builtin_tables"): "the registry finds the built-in ffi.* globals in the compatibility "
    "layer's static tables on first use, so loading the library runs and allocates nothing (c/runtime/seeds.h)",
    ("c/runtime", "xffi_builtin_table_count"): "the length of xffi_builtin_tables (c/runtime/seeds.h)",
    ("c/runtime", "xffi_type_runtime_ensure"): "the registry registers the types tvm-ffi's runtime owns on its "
    "first use, in tvm-ffi's order, so dynamic type indices number as tvm-ffi's (c/runtime/seeds.h)",
}


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


def read_layers(root):
    """The folders of c/ bottom up, as c/README.md's table lists them."""
    path = os.path.join(root, "c", "README.md")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [m.group(1) for m in map(LAYER_ROW.match, f) if m]


def layer_problems(files, graph, layers):
    """Files outside the listed folders, and includes that go up."""
    rank = {folder: i for i, folder in enumerate(layers)}
    problems = []
    for path in sorted(p for p in files if p.startswith("c/") and p.endswith((".c", ".h"))):
        if os.path.dirname(path) not in rank:
            problems.append(f"not in a folder that c/README.md lists: {path}")
    for path, targets in sorted(graph.items()):
        here = rank.get(os.path.dirname(path))
        for target in targets:
            there = rank.get(os.path.dirname(target))
            if here is not None and there is not None and there > here:
                problems.append(f"upward include: {path} includes {target} ({os.path.dirname(target)} comes after "
                                f"{os.path.dirname(path)} in c/README.md's bottom-up list)")
    return problems


def object_symbols(build_dir):
    """{source path: (defined symbols, undefined symbols)} for every object
    of a c/ source under build_dir (CMake names them <source>.o)."""
    table = {}
    for base, _, names in os.walk(build_dir):
        for name in names:
            if not name.endswith(".c.o"):
                continue
            obj = os.path.join(base, name)
            rel = obj.replace(os.sep, "/")
            at = rel.rfind("/c/")
            if at < 0 or "/xffi_objects.dir/" not in rel:
                continue
            source = rel[at + 1:-2]
            out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
            defined, undefined = set(), set()
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined.add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBRVWCG":
                    defined.add(parts[2])
            table[source] = (defined, undefined)
    return table


def call_problems(root, objects, layers):
    """Calls (and data references) that go up, TVMFFI* names outside the
    compatibility layer, and exceptions no longer used."""
    rank = {folder: i for i, folder in enumerate(layers)}
    # Objects of sources that no longer exist (a stale build tree) are left out.
    objects = {s: v for s, v in objects.items() if os.path.exists(os.path.join(root, s))}
    owner = {sym: source for source, (defined, _) in objects.items() for sym in defined}
    problems, used = [], set()
    for source, (defined, undefined) in sorted(objects.items()):
        folder = os.path.dirname(source)
        for sym in sorted(defined):
            if sym.startswith("TVMFFI") and not folder.startswith("c/compat"):
                problems.append(f"TVMFFI* defined outside c/compat/: {sym} in {source}")
        for sym in sorted(undefined):
            if sym.startswith("TVMFFI") and not folder.startswith("c/compat"):
                problems.append(f"TVMFFI* called outside c/compat/: {source} calls {sym}")
            target = owner.get(sym)
            if not target or folder not in rank or os.path.dirname(target) not in rank:
                continue
            if rank[os.path.dirname(target)] > rank[folder]:
                if (folder, sym) in EXCEPTIONS:
                    used.add((folder, sym))
                else:
                    problems.append(f"upward call: {source} calls {sym} ({target}; {os.path.dirname(target)} comes "
                                    f"after {folder} in c/README.md's bottom-up list)")
    for folder, sym in sorted(set(EXCEPTIONS) - used):
        if folder in rank:  # a tree without the folder has nothing to except
            problems.append(f"exception no longer needed (remove it from scripts/check-house.py): {folder} -> {sym}")
    return problems


def main():
    parser = argparse.ArgumentParser(description="House rules that a compiler does not check.")
    parser.add_argument("--objects", help="a CMake build directory of xffi: check calls against its objects")
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    files = [p for p in tracked_files(root) if os.path.isfile(os.path.join(root, p))]
    ok = True

    graph = include_graph(root, files)
    cycles = find_cycles(graph)
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

    layers = read_layers(root)
    problems = layer_problems(files, graph, layers) if layers else []
    if args.objects:
        objects = object_symbols(args.objects)
        if not objects:
            problems.append(f"no objects of c/ found under {args.objects}")
        problems += call_problems(root, objects, layers)
    for problem in problems:
        print(problem)
    ok &= not problems

    if ok:
        checked = "includes and calls" if args.objects else "includes"
        print(f"house rules hold: no include cycle in c/ and include/, no source file over {MAX_LINES} lines, "
              f"{checked} follow the {len(layers)} folders of c/README.md ({len(EXCEPTIONS)} named exceptions)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
