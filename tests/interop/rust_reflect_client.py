"""The Python side of test_rust_reflect_e2e.py, run in a process whose
tvm_ffi runs on xffi (PYTHONPATH = the overlay of scripts/tvm-ffi-on-xffi.sh).
argv[1] is the Rust library (examples/reflect-python). Prints one line per
check; any failure raises."""
import sys

import tvm_ffi

lib = tvm_ffi.load_module(sys.argv[1])


@tvm_ffi.register_object("rustdemo.Point")
class Point(tvm_ffi.Object):
    """rustdemo.Point, defined in Rust."""


p = Point(3, 4, "origin")  # __ffi_init__, exported from Rust
assert (p.x, p.y, p.label) == (3, 4, "origin"), (p.x, p.y, p.label)
assert p.weight == 1.0 and p.note == ""
print("constructed and read: ok")

p.weight = 2.0
p.note = "from python"
assert p.weight == 2.0 and p.note == "from python"
try:
    p.x = 5
except AttributeError:  # read-only in Rust: a property without a setter
    pass
else:
    raise AssertionError("assigning a read-only field succeeded")
try:
    p.weight = "heavy"
except TypeError as e:
    assert "weight" in str(e) and "float" in str(e), str(e)
else:
    raise AssertionError("a str went into a float field")
assert p.weight == 2.0 and p.x == 3
print("written, and refused: ok")

assert p.norm() == 10.0
q = p.scaled(2)
assert isinstance(q, Point) and (q.x, q.y, q.note) == (6, 8, "from python")
assert Point.rust_name() == "Point"
print("methods: ok")

text = repr(p)
expected = 'rustdemo.Point(x=3, y=4, label="origin", weight=2, note="from python")'
assert text == expected, text
print("repr: ok")

names = [f.name for f in Point.__tvm_ffi_type_info__.fields]
assert names == ["x", "y", "label", "weight", "note"], names
print("type info: ok")


@tvm_ffi.register_object("rustdemo.Tree")
class Tree(tvm_ffi.Object):
    """rustdemo.Tree, defined in Rust with #[xffi(default)]: creatable."""


from tvm_ffi.serialization import from_json_graph_str, to_json_graph_str  # noqa: E402

t = Tree.sample()
text = Tree.sample_graph()
assert to_json_graph_str(t) == text, (to_json_graph_str(t), text)  # Python writes what Rust writes
v = from_json_graph_str(text)  # Python makes the Rust objects from Rust's text
assert isinstance(v, Tree) and (v.name, v.weight, v.left.name) == ("root", 2.0, "leaf")
assert v.left.same_as(v.right) and not v.same_as(t), "sharing kept, a new object"
assert tvm_ffi.structural_equal(v, t)
assert Tree.equals_sample(to_json_graph_str(v))  # Rust reads what Python writes
bad = text.replace('"weight":0.5', '"weight":"heavy"')
assert bad != text
try:
    from_json_graph_str(bad)
except (TypeError, ValueError) as e:
    assert "rustdemo.Tree" in str(e), str(e)
else:
    raise AssertionError("a str went into a float field of a Rust object")
print("json graph both ways: ok")
