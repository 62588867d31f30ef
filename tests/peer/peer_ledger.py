"""pytest plugin of the peer-suite driver (tests/peer/run.py): records what
happened to each test of one pytest process, so that the driver can compare
the same suite on two runtimes and attribute a crash to the test that caused it.

Enabled with `-p peer_ledger` (this directory on PYTHONPATH). Options:
  --peer-outcomes=FILE  one JSON object per line, appended and flushed as
                        soon as it is known (a crash loses nothing already
                        finished): {"kind": "collected", "ids": [...]},
                        {"kind": "collect_error", "id", "message"},
                        {"kind": "test", "id", "outcome", "message", "duration"}
  --peer-current=FILE   holds the id of the test running now (written and
                        fsync'd before it starts, emptied after it ends)
  --peer-skip=FILE      ids (one a line, the whole line) to leave out; exact
                        matches, unlike pytest's --deselect, which matches
                        prefixes (test_a would also drop test_ab)
  --peer-known=FILE     for a person reading pytest's output (run.py does not
                        use it; it judges from the outcomes): each test of the
                        known-failures list gets a strict xfail mark with its
                        reason, ahead of its own marks, so a listed test that
                        fails shows as x and one that passes fails the run
                        ([XPASS(strict)]); listed ids of the files run that
                        were not collected fail the run too

Outcomes: passed (call passed, setup and teardown did not error; a test of
its own xfail mark that passes non-strictly counts as passed), failed,
error (setup or teardown failed), skipped, xfailed."""
import json
import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("peer_ledger", "peer-suite ledger (tests/peer)")
    group.addoption("--peer-outcomes", default=None, help="append per-test outcomes (JSON lines) to this file")
    group.addoption("--peer-current", default=None, help="write the running test's id to this file")
    group.addoption("--peer-skip", default=None, help="file of exact test ids to leave out")
    group.addoption("--peer-known", default=None, help="known-failures list: mark its tests strict xfail")


def _first_error_line(report):
    """The line a person reads first: pytest's first `E ` line, else the last
    line of the report (a skip reason, a crash message)."""
    text = getattr(report, "longreprtext", "") or ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E "):
            return line[1:].strip()
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2])
    return lines[-1] if lines else ""


class Ledger:
    def __init__(self, config):
        self.outcomes_path = config.getoption("peer_outcomes")
        self.current_path = config.getoption("peer_current")
        skip = config.getoption("peer_skip")
        self.skip = set()
        if skip:
            with open(skip, encoding="utf-8") as f:
                self.skip = {line.rstrip("\n") for line in f if line.strip()}
        self.tests = {}
        self.known, self.known_missing = {}, []
        known = config.getoption("peer_known")
        if known:
            import known_failures  # this directory is on PYTHONPATH with the plugin

            self.known, errors = known_failures.load(known)
            if errors:
                raise pytest.UsageError(f"{known}: " + "; ".join(errors))

    def write(self, record):
        if not self.outcomes_path:
            return
        with open(self.outcomes_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def set_current(self, nodeid):
        if not self.current_path:
            return
        with open(self.current_path, "w", encoding="utf-8") as f:
            f.write(nodeid)
            f.flush()
            os.fsync(f.fileno())

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        self.write({"kind": "collected", "ids": [item.nodeid for item in items]})
        if self.known:
            collected = {item.nodeid for item in items}
            files = {item.nodeid.split("::", 1)[0] for item in items}
            for item in items:
                if item.nodeid in self.known:
                    item.add_marker(pytest.mark.xfail(reason=self.known[item.nodeid], strict=True), append=False)
            self.known_missing = sorted(i for i in self.known if i.split("::", 1)[0] in files and i not in collected)
        if self.skip:
            kept = [item for item in items if item.nodeid not in self.skip]
            dropped = [item for item in items if item.nodeid in self.skip]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept

    def pytest_collectreport(self, report):
        if report.failed:
            self.write({"kind": "collect_error", "id": report.nodeid, "message": _first_error_line(report)})

    def pytest_runtest_logstart(self, nodeid, location):
        self.tests[nodeid] = {"outcome": None, "message": "", "duration": 0.0}
        self.set_current(nodeid)

    def pytest_runtest_logreport(self, report):
        state = self.tests.setdefault(report.nodeid, {"outcome": None, "message": "", "duration": 0.0})
        state["duration"] += report.duration
        xfail = hasattr(report, "wasxfail")
        if report.when in ("setup", "teardown") and report.failed:
            state["outcome"], state["message"] = "error", f"{report.when}: {_first_error_line(report)}"
        elif report.skipped and state["outcome"] is None:
            state["outcome"] = "xfailed" if xfail else "skipped"
            state["message"] = str(report.wasxfail) if xfail else _first_error_line(report)
        elif report.when == "call" and state["outcome"] is None:
            state["outcome"] = "passed" if report.passed else "failed"
            if report.failed:
                state["message"] = _first_error_line(report)

    def pytest_runtest_logfinish(self, nodeid, location):
        state = self.tests.pop(nodeid, {"outcome": None, "message": "", "duration": 0.0})
        self.write({"kind": "test", "id": nodeid, "outcome": state["outcome"] or "error",
                    "message": state["message"], "duration": round(state["duration"], 3)})
        self.set_current("")


    def pytest_sessionfinish(self, session, exitstatus):
        if self.known_missing:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        for test_id in self.known_missing:
            terminalreporter.write_line(f"listed in the known-failures list but not collected: {test_id}")


def pytest_configure(config):
    config.pluginmanager.register(Ledger(config), "peer_ledger_state")
