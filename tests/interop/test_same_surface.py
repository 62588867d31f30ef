"""xffi's runtime serves the same tvm-ffi surface as the wheel's own, seen
from the tvm_ffi package (issue 17 closed the last gap): the same registered
global functions by name, and the same ffi.VisitErrorContext for an error
leaving each structural walk (StructuralWalk pre and post order,
StructuralVisit, StructuralMap pre and post order, StructuralMutate), failing
once under reflected objects only and once inside a Map, with the same
paths from ffi.VisitErrorContext.FindAccessPaths, with and without prefix
matches. tests/interop/same_surface_client.py makes both reports.

    python3 -m pytest -q -p no:cacheprovider tests/interop/test_same_surface.py
"""
import pathlib

import client_runner
import pytest

CLIENT = pathlib.Path(__file__).resolve().parent / "same_surface_client.py"


@pytest.fixture(scope="module")
def reports(overlay):
    return {"wheel": client_runner.run_client(CLIENT, None), "xffi": client_runner.run_client(CLIENT, overlay)}


def test_the_same_global_functions_are_registered(reports):
    wheel, xffi = set(reports["wheel"]["globals"]), set(reports["xffi"]["globals"])
    assert "ffi.VisitErrorContext.FindAccessPaths" in wheel
    assert sorted(wheel - xffi) == [], "registered on the wheel's runtime only"
    assert sorted(xffi - wheel) == [], "registered on xffi's runtime only"


def test_walk_errors_record_the_same_visit_error_context(reports):
    walks = [name for name in reports["wheel"] if name != "globals"]
    assert len(walks) == 12
    for name in walks:
        wheel, xffi = reports["wheel"][name], reports["xffi"][name]
        assert wheel != "no error" and wheel["context"] == "VisitErrorContext", (name, wheel)
        assert xffi == wheel, name
    # The record is innermost first; a full match needs every recorded object
    # on one path, so a record naming a Map (never matched) finds none.
    assert reports["xffi"]["walk pre, failing at leaf"]["pattern"] == ["leaf", "mid", "root"]
    assert reports["xffi"]["walk pre, failing at leaf"]["paths"] == ["<root>.a.a", "<root>.a.b[1]"]
    assert reports["xffi"]["walk pre, failing at deep"]["pattern"] == ["deep", "entries", "root"]
    assert reports["xffi"]["walk pre, failing at deep"]["paths"] == []
