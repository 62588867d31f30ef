"""ffi.StructuralMap from Python on xffi's runtime, with a callback that
clears, shrinks or grows the List being mapped: a ValueError naming the
change, never a crash (the wheel's runtime reads past the cleared List and
returns a result built from freed items, or crashes: not compared). Writing
an item ahead of the walk is allowed, and the walk sees it.

    python3 -m pytest -q -p no:cacheprovider tests/interop/test_walk_callback_changes.py
"""
import pathlib

import client_runner

CLIENT = pathlib.Path(__file__).resolve().parent / "walk_callback_changes_client.py"


def test_map_callbacks_that_change_the_list_being_mapped(overlay):
    report = client_runner.run_client(CLIENT, overlay)
    for order in ("pre", "post"):
        for change in ("clear", "pop", "append"):
            kind, message = report[f"{change} {order}"]
            assert kind == "ValueError", (change, order, message)
            assert "StructuralMap: a callback changed the size of the ffi.List being mapped from 4" in message
        assert report[f"set {order}"] == [11, 12, 13, 87]
    assert report["clear moved"][0] == "ValueError"
