"""Tests of bench/perf_guard.py, the guard against performance drift.

The comparison is tested on made-up counts; the whole guard is tested on a
real program of a Release build (XFFI_PERF_GUARD_BUILD, default
build/release): against the checked-in table it passes, and with one row of
the table lowered by 10 % (the same as that row rising 10 %) it fails and
names the row.

  XFFI_PERF_GUARD_BUILD=build/release python3 -m pytest -q bench/test_perf_guard.py
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perf_guard  # noqa: E402

ROOT = perf_guard.ROOT
GUARD = os.path.join(HERE, "perf_guard.py")
ROW = ("bench_reflection", "get int field by name, 3 fields (last)", "xffi")


def test_a_row_more_than_the_tolerance_above_the_table_fails_naming_it():
    table = {("p", "op a", "xffi"): 100.0, ("p", "op b", "xffi"): 50.0}
    failures, _ = perf_guard.compare(table, {("p", "op a", "xffi"): 103.5, ("p", "op b", "xffi"): 50.0}, 3.0)
    assert len(failures) == 1
    assert failures[0].startswith("p / op a / xffi: 103.5 instructions per op, the table says 100.0 (+3.5 %")


def test_a_row_within_the_tolerance_passes():
    table = {("p", "op", "xffi"): 100.0}
    assert perf_guard.compare(table, {("p", "op", "xffi"): 103.0}, 3.0) == ([], [])


def test_one_instruction_more_on_a_small_row_fails():
    failures, _ = perf_guard.compare({("p", "call", "xffi"): 24.0}, {("p", "call", "xffi"): 25.0}, 3.0)
    assert failures and "+4.2 %" in failures[0]


def test_a_row_missing_from_the_run_or_from_the_table_fails():
    failures, _ = perf_guard.compare({("p", "old name", "xffi"): 10.0}, {("p", "new name", "xffi"): 10.0}, 3.0)
    assert sorted(failures) == [
        "p / new name / xffi: 10.0 instructions, not in the table (a new row: run --update)",
        "p / old name / xffi: in the table but not measured (renamed or removed: run --update)",
    ]


def test_a_row_that_fell_is_a_note_not_a_failure():
    failures, notes = perf_guard.compare({("p", "op", "xffi"): 100.0}, {("p", "op", "xffi"): 80.0}, 3.0)
    assert failures == []
    assert notes == ["p / op / xffi: 80.0 instructions per op, the table says 100.0 (-20.0 %): --update keeps the gain"]


def test_the_table_reads_back_what_was_written(tmp_path):
    rows = {("bench_core", "string 32 B create + free", "xffi"): 234.0, ("bench_map_xffi", "Map lookup, 10 int keys", "xffi"): 147.5}
    path = tmp_path / "table.tsv"
    perf_guard.write_table(str(path), rows, "cc 12; Release")
    assert perf_guard.read_table(str(path)) == (rows, "cc 12; Release")


def test_a_malformed_table_line_is_named(tmp_path):
    path = tmp_path / "table.tsv"
    path.write_text("program\top\timpl\tinstructions\nbench_core\tinc-ref\txffi\tmany\n")
    with pytest.raises(perf_guard.GuardError, match=r"table.tsv:2: instructions must be a number, got 'many'"):
        perf_guard.read_table(str(path))


def build_dir():
    build = os.environ.get("XFFI_PERF_GUARD_BUILD", os.path.join(ROOT, "build", "release"))
    assert os.path.exists(os.path.join(build, "CMakeCache.txt")), (
        f"{build} is not a build tree: configure and build a Release tree there "
        "(or set XFFI_PERF_GUARD_BUILD to one)")
    return build


def run_guard(table, *extra):
    return subprocess.run([sys.executable, GUARD, "--build", build_dir(), "--table", str(table),
                           "--program", ROW[0]] + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def checked_in_table():
    rows, toolchain = perf_guard.read_table(perf_guard.DEFAULT_TABLE)
    assert ROW in rows, f"{ROW} is no longer a row of the table: pick another one here"
    return rows, toolchain


def test_the_guard_passes_on_the_checked_in_table(tmp_path):
    rows, toolchain = checked_in_table()
    table = tmp_path / "table.tsv"
    perf_guard.write_table(str(table), rows, toolchain)
    done = run_guard(table)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 failed" in done.stdout


def test_the_guard_fails_on_a_row_ten_percent_slower_than_the_table(tmp_path):
    rows, toolchain = checked_in_table()
    rows[ROW] = round(rows[ROW] / 1.10, 1)
    table = tmp_path / "table.tsv"
    perf_guard.write_table(str(table), rows, toolchain)
    done = run_guard(table)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED:")]
    assert len(failed) == 1, done.stdout
    assert failed[0].startswith("FAILED: bench_reflection / get int field by name, 3 fields (last) / xffi: ")
    assert "(+10.0 %, more than +3 %)" in failed[0]


def test_update_writes_the_measured_row_back_and_keeps_the_others(tmp_path):
    rows, toolchain = checked_in_table()
    measured = rows[ROW]
    rows[ROW] = measured / 2
    other = next(k for k in rows if k[0] != ROW[0])
    table = tmp_path / "table.tsv"
    perf_guard.write_table(str(table), rows, toolchain)
    done = run_guard(table, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    updated, _ = perf_guard.read_table(str(table))
    assert updated[ROW] == measured
    assert updated[other] == rows[other]
    assert run_guard(table).returncode == 0
