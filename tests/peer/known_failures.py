"""The known-failures list of the peer suite (tests/peer/known-failures.txt)
and the verdict rules that use it (docs/one-runtime/peer-suite.md §4).

Format: a line starting with `#`, or blank, is ignored. `reason: TEXT` sets
the reason of the ids that follow, up to the next `reason:` line. Any other
line is one pytest node id, the whole line (ids hold spaces and `|`). Format
errors: an id before any reason, an empty reason, an id not of the form
`tests/python/...::...`, an id listed twice, ids not sorted within a section.

    python3 tests/peer/known_failures.py [FILE]   checks FILE (default: the
                                                  checked-in list); exit 1 on errors
"""
import os
import re
import sys

DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known-failures.txt")
ID_FORM = re.compile(r"^tests/python/\S[^:]*\.py::\S.*$")
REASON_PREFIX = "reason:"


def parse(text, id_form=ID_FORM, id_shape="tests/python/FILE.py::NAME"):
    """Returns (known, errors): known maps each id to its reason; errors are
    messages naming the line. id_form is the pattern every id must match
    (other lists of this format pass their own: tests/clients/tvm_ffi_rust/),
    id_shape how an error message describes it."""
    known, errors = {}, []
    reason, previous = None, None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith(REASON_PREFIX):
            reason = line[len(REASON_PREFIX):].strip()
            previous = None
            if not reason:
                errors.append(f"line {number}: empty reason")
            continue
        if reason is None:
            errors.append(f"line {number}: id before any `reason:` line: {line}")
        if not id_form.match(line):
            errors.append(f"line {number}: not a test id of the form {id_shape}: {line}")
        if line in known:
            errors.append(f"line {number}: listed twice: {line}")
        if previous is not None and line < previous:
            errors.append(f"line {number}: not sorted within its section (after {previous}): {line}")
        known[line] = reason or ""
        previous = line
    return known, errors


def load(path=DEFAULT_PATH):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())


def render(reasons, header):
    """The text of a list: header lines (each gets a `# `), then one section
    per reason (sorted), ids sorted. reasons maps each id to its reason."""
    by_reason = {}
    for test_id, reason in reasons.items():
        by_reason.setdefault(" ".join(reason.split()) or "unknown", []).append(test_id)
    out = [f"# {line}".rstrip() for line in header]
    for reason in sorted(by_reason):
        out.append("")
        out.append(f"{REASON_PREFIX} {reason}")
        out.extend(sorted(by_reason[reason]))
    return "\n".join(out) + "\n"


def verdict(wheel, xffi, known):
    """Applies the rules of peer-suite.md §4.2. wheel and xffi are Runs
    (outcomes: id -> (outcome, message); collected: set of ids;
    collect_errors: list of (where, message)); known maps id -> reason.
    Returns a dict of lists, each a failure of the run when not empty."""
    passed_on_wheel = {i for i, (o, _) in wheel.outcomes.items() if o == "passed"}
    result = {"regressions": [], "listed_but_passing": [], "stale": [], "collection": []}

    def file_of(test_id):
        return test_id.split("::", 1)[0]

    # A file that fails to collect on xffi runs none of its tests: each of them
    # fails there. Its collection error is known when every test of the file
    # that passes on the wheel is listed; otherwise it fails the run.
    broken_on_xffi = {where for where, _ in xffi.collect_errors}
    known_broken = {
        f for f in broken_on_xffi if all(i in known for i in passed_on_wheel if file_of(i) == f)
    }
    for test_id in sorted(passed_on_wheel):
        outcome = xffi.outcomes.get(test_id, ("not run", ""))
        if outcome[0] != "passed" and test_id not in known:
            result["regressions"].append((test_id, outcome))
    for test_id in sorted(known):
        if test_id not in passed_on_wheel:
            result["stale"].append((test_id, "does not pass on the wheel's runtime"))
        elif test_id not in xffi.collected and file_of(test_id) not in broken_on_xffi:
            result["stale"].append((test_id, "not collected on xffi's runtime"))
        elif xffi.outcomes.get(test_id, ("",))[0] == "passed":
            result["listed_but_passing"].append((test_id, known[test_id]))
    for side, run in (("wheel", wheel), ("xffi", xffi)):
        for where, message in run.collect_errors:
            if side == "xffi" and where in known_broken:
                continue
            result["collection"].append(f"{side}: collection error in {where}: {message}")
    for test_id in sorted(wheel.collected - xffi.collected):
        if file_of(test_id) not in broken_on_xffi:
            result["collection"].append(f"collected on the wheel but not on xffi: {test_id}")
    return result


def main(argv):
    path = argv[1] if len(argv) > 1 else DEFAULT_PATH
    known, errors = load(path)
    for e in errors:
        print(f"{path}: {e}")
    reasons = len(set(known.values()))
    print(f"{path}: {len(known)} ids under {reasons} reasons, {len(errors)} format errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
