"""Client of test_walk_callback_changes.py: maps Lists with callbacks that
change them and prints a JSON report of each outcome."""
import json

import tvm_ffi

structural_map = tvm_ffi.get_global_func("ffi.StructuralMap")


def run(change, order, moved=False):
    lst = tvm_ffi.List([1, 2, 3, 4])
    seen = []

    def stash(x):  # a moved root is the walk's alone until a callback keeps it
        seen.append(x)
        return x

    def callback(x):
        if x == 2:
            if change == "clear":
                (seen[0] if moved else lst).clear()
            elif change == "pop":
                lst.pop()
            elif change == "append":
                lst.append(99)
            elif change == "set":
                lst[3] = 77
        return x + 10

    entries = [(1, tvm_ffi.convert(callback)), (75, tvm_ffi.convert(stash))]  # kTVMFFIInt, kTVMFFIList
    try:
        result = structural_map(lst._move() if moved else lst, entries, [], order)
        return [int(v) for v in result]
    except Exception as error:  # the outcome is the report
        return [type(error).__name__, str(error)]


report = {}
for order_name, order in (("pre", 0), ("post", 1)):
    for change in ("clear", "pop", "append", "set"):
        report[f"{change} {order_name}"] = run(change, order)
report["clear moved"] = run("clear", 0, moved=True)
print(json.dumps(report))
