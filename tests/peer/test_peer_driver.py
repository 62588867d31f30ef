"""Tests of the peer-suite driver's own logic (tests/peer/run.py,
known_failures.py, peer_ledger.py) on a small fake suite; fast, no sdist.

    python3 -m pytest -q -p no:cacheprovider tests/peer/test_peer_driver.py"""
import os
import subprocess
import sys
import textwrap

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import known_failures  # noqa: E402
import run  # noqa: E402

FAKE_SUITE = '''
import os, time

def test_a_passes():
    pass

def test_ab_passes():
    pass

def test_b_aborts():
    os.abort()

def test_c_fails():
    assert 1 == 2, "one is not two"

def test_d_hangs():
    time.sleep(60)

def test_e_passes_after_crashes():
    pass
'''


@pytest.fixture
def fake_tree(tmp_path):
    tests = tmp_path / "tree" / "tests" / "python"
    tests.mkdir(parents=True)
    (tests / "test_fake.py").write_text(textwrap.dedent(FAKE_SUITE))
    (tmp_path / "side" / "tmp").mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=run.HERE)
    return str(tmp_path / "tree"), str(tmp_path / "side"), env


def outcomes_of(records):
    return {r["id"]: (r["outcome"], r["message"]) for r in records if r["kind"] == "test"}


def test_crash_and_timeout_are_attributed_and_the_file_completes(fake_tree):
    tree, side, env = fake_tree
    records = run.run_file(tree, side, env, "tests/python/test_fake.py", set(), timeout=8)
    got = outcomes_of(records)
    prefix = "tests/python/test_fake.py::"
    assert got[prefix + "test_a_passes"][0] == "passed"
    assert got[prefix + "test_ab_passes"][0] == "passed"
    assert got[prefix + "test_b_aborts"] == ("crashed", "crashed (exit status -6)")
    assert got[prefix + "test_c_fails"][0] == "failed"
    assert "one is not two" in got[prefix + "test_c_fails"][1]
    assert got[prefix + "test_d_hangs"] == ("timed out", "timed out after 8 s")
    assert got[prefix + "test_e_passes_after_crashes"][0] == "passed"


def test_skip_is_exact_not_a_prefix(fake_tree):
    tree, side, env = fake_tree
    prefix = "tests/python/test_fake.py::"
    skip = {prefix + "test_a_passes", prefix + "test_b_aborts", prefix + "test_d_hangs"}
    got = outcomes_of(run.run_file(tree, side, env, "tests/python/test_fake.py", skip, timeout=30))
    assert prefix + "test_a_passes" not in got
    assert got[prefix + "test_ab_passes"][0] == "passed"  # pytest's --deselect would drop it too


def test_list_format_errors_are_reported():
    text = "\n".join([
        "# comment",
        "tests/python/test_x.py::test_before_reason",
        "reason:",
        "reason: crashes",
        "tests/python/test_x.py::test_b",
        "tests/python/test_x.py::test_a",
        "tests/python/test_x.py::test_b",
        "test_x.py::test_c",
        "tests/python/test_x.py::test_d[a b|c]",
    ])
    known, errors = known_failures.parse(text)
    joined = "\n".join(errors)
    assert "line 2: id before any `reason:`" in joined
    assert "line 3: empty reason" in joined
    assert "line 6: not sorted" in joined
    assert "line 7: listed twice" in joined
    assert "line 8: not a test id" in joined
    assert known["tests/python/test_x.py::test_d[a b|c]"] == "crashes"  # the whole line is the id
    assert "line 8: not sorted" in joined  # "test_" sorts before "tests"
    assert len(errors) == 6


def test_rendered_list_parses_back_clean():
    reasons = {"tests/python/test_b.py::t[x y]": "b: failed: E", "tests/python/test_a.py::t": "a: crashed",
               "tests/python/test_a.py::s": "a: crashed"}
    text = known_failures.render(reasons, ["header"])
    known, errors = known_failures.parse(text)
    assert errors == [] and known == reasons


def make_run(outcomes, collected=None, errors=()):
    r = run.Run()
    r.outcomes = {k: (v, "") for k, v in outcomes.items()}
    r.collected = set(collected if collected is not None else outcomes)
    r.collect_errors = list(errors)
    return r


def test_verdict_rules():
    p = "tests/python/test_v.py::"
    wheel = make_run({p + "ok": "passed", p + "regress": "passed", p + "listed": "passed",
                      p + "listed_passes": "passed", p + "skip_w": "skipped", p + "gone": "passed",
                      "tests/python/test_w.py::t": "passed"})
    xffi = make_run({p + "ok": "passed", p + "regress": "crashed", p + "listed": "failed",
                     p + "listed_passes": "passed", p + "skip_w": "failed"},
                    errors=[("tests/python/test_w.py", "boom")])
    known = {p + "listed": "r", p + "listed_passes": "r", p + "skip_w": "r", p + "gone": "r"}
    v = known_failures.verdict(wheel, xffi, known)
    assert [i for i, _ in v["regressions"]] == [p + "regress", "tests/python/test_w.py::t"]
    assert [i for i, _ in v["listed_but_passing"]] == [p + "listed_passes"]
    assert sorted(i for i, _ in v["stale"]) == [p + "gone", p + "skip_w"]
    assert any("boom" in line for line in v["collection"])
    assert any(line.endswith(p + "gone") for line in v["collection"])
    # A failure on xffi of a test that does not pass on the wheel is ignored.
    assert p + "skip_w" not in [i for i, _ in v["regressions"]]


def test_a_file_that_fails_to_collect_is_known_only_when_all_its_passes_are_listed():
    b, c = "tests/python/test_b.py::", "tests/python/test_c.py::"
    wheel = make_run({b + "one": "passed", b + "two": "passed", b + "skipped": "skipped",
                      c + "one": "passed", c + "two": "passed"})
    xffi = make_run({}, errors=[("tests/python/test_b.py", "ImportError: x"),
                                ("tests/python/test_c.py", "ImportError: y")])
    known = {b + "one": "r", b + "two": "r", c + "one": "r"}
    v = known_failures.verdict(wheel, xffi, known)
    # test_b.py: every pass listed, so its error is known and its ids are not stale.
    assert v["stale"] == [] and v["listed_but_passing"] == []
    assert not any("test_b.py" in line for line in v["collection"])
    # test_c.py: one pass unlisted: a regression, and the collection error fails the run.
    assert [i for i, _ in v["regressions"]] == [c + "two"]
    assert any("collection error in tests/python/test_c.py" in line for line in v["collection"])


def test_checked_in_list_is_well_formed():
    _, errors = known_failures.load()
    assert errors == []


def test_known_list_marks_listed_tests_strict_xfail(fake_tree, tmp_path):
    tree, side, env = fake_tree
    p = "tests/python/test_fake.py::"
    known = tmp_path / "known.txt"
    known.write_text(f"reason: fails\n{p}test_c_fails\nreason: passes now\n{p}test_a_passes\n{p}test_zz_gone\n")
    out = subprocess.run([sys.executable, "-m", "pytest", *run.PYTEST_FLAGS, f"--peer-known={known}",
                          "-k", "test_a_passes or test_c_fails", "tests/python/test_fake.py"],
                         cwd=tree, env=env, capture_output=True, text=True)
    assert out.returncode == 1, out.stdout
    assert "XPASS(strict)" in out.stdout and "passes now" in out.stdout
    assert "1 xfailed" in out.stdout
    assert f"not collected: {p}test_zz_gone" in out.stdout
