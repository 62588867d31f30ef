"""The client of test_same_surface.py, run once on each runtime: prints, as
JSON, every registered global function's name and what an error leaving
each structural walk records (ffi.VisitErrorContext) and where
ffi.VisitErrorContext.FindAccessPaths finds it. Values are named by role
(root, mid, leaf, ...), never by address, so both runtimes' reports compare
equal when they behave alike."""
import json
from typing import Any

import tvm_ffi
import tvm_ffi.structural as structural
from tvm_ffi.dataclasses import py_class


@py_class("xffi_test.SurfaceNode")
class Node(tvm_ffi.Object):
    a: Any
    b: Any


def main():
    find = tvm_ffi.get_global_func("ffi.VisitErrorContext.FindAccessPaths")
    leaf = Node(1, 2)
    items = tvm_ffi.convert([3, leaf])
    mid = Node(leaf, items)
    deep = Node(5, 6)  # only inside a Map: its record names the Map too
    entries = tvm_ffi.convert({"k": leaf, "d": deep})
    root = Node(mid, entries)
    roles = {"root": root, "mid": mid, "leaf": leaf, "items": items, "entries": entries, "deep": deep}
    failing = [1]  # the field a of the Node whose callback raises

    def role(value):
        return next((name for name, known in roles.items() if known.same_as(value)), type(value).__name__)

    def walk_fail(value):
        if isinstance(value, Node) and value.a == failing[0]:
            raise ValueError("fails here")

    def map_fail(value):
        walk_fail(value)
        return value

    def mutate_fail(value, mutator):
        walk_fail(value)
        return mutator.default_mutate(value)

    def visit_fail(value, visitor):
        walk_fail(value)
        return visitor.default_visit(value)

    walks = {
        "walk pre": lambda: structural.structural_walk(root, walk_fail, order="pre"),
        "walk post": lambda: structural.structural_walk(root, walk_fail, order="post"),
        "visit": lambda: structural.structural_visit(root, (Node, visit_fail)),
        "map pre": lambda: structural.structural_map(root, (Node, map_fail), order="pre"),
        "map post": lambda: structural.structural_map(root, (Node, map_fail), order="post"),
        "mutate": lambda: structural.structural_mutate(root, (Node, mutate_fail)),
    }
    report = {"globals": sorted(tvm_ffi.registry.list_global_func_names())}
    for (name, walk), at in [(item, at) for at in (1, 5) for item in walks.items()]:
        name = f"{name}, failing at {role(leaf if at == 1 else deep)}"
        failing[0] = at
        try:
            walk()
            report[name] = "no error"
            continue
        except ValueError as error:
            context = error.__tvm_ffi_error__.extra_context
        report[name] = {
            "context": type(context).__name__,
            "pattern": [role(value) for value in context.reverse_visit_pattern],
            "prev": context.prev_error_context,
            "paths": [str(path) for path in find(root, context, False)],
            "prefix paths": [str(path) for path in find(root, context, True)],
            "paths from mid": [str(path) for path in find(mid, context, True)],
        }
    print(json.dumps(report))


main()
