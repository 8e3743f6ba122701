"""Gradescope's results.json specification, as a checker for the tests.

From https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format"):
every key optional except that a score must be given at the top or on every test;
``status`` is "passed" or "failed"; ``visibility`` and ``stdout_visibility`` take
"hidden", "after_due_date", "after_published" or "visible"; ``output_format`` (and
``test_output_format``) "text", "html", "simple_format", "md" or "ansi"; ``extra_data``
is an object stored as it is. The file is read by a JSON parser that has no NaN or
Infinity, and nothing else may be written into it.
"""

from __future__ import annotations

import json
import math

TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
            "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
             "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}
STATUS = {"passed", "failed"}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def problems(text: str) -> list[str]:
    """What in the text of a results.json breaks the specification (empty: nothing)."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        return [f"not one strict JSON document: {exc}"]
    if not isinstance(data, dict):
        return ["the top level is not an object"]
    found = [f"unknown top-level key {k!r}" for k in sorted(set(data) - TOP_KEYS)]
    checks = {
        "score": _number, "execution_time": _number, "output": lambda v: isinstance(v, str),
        "output_format": FORMATS.__contains__, "test_output_format": FORMATS.__contains__,
        "visibility": VISIBILITY.__contains__, "stdout_visibility": VISIBILITY.__contains__,
        "extra_data": lambda v: isinstance(v, dict), "tests": lambda v: isinstance(v, list),
    }
    found += [f"bad {k}: {data[k]!r}" for k, ok in checks.items() if k in data and not ok(data[k])]
    tests = data.get("tests") if isinstance(data.get("tests"), list) else []
    if "score" not in data and not all(isinstance(t, dict) and "score" in t for t in tests):
        found.append("no top-level score and a test without one")
    test_checks = {
        "score": _number, "max_score": _number, "status": STATUS.__contains__,
        "name": lambda v: isinstance(v, str), "number": lambda v: isinstance(v, str),
        "output": lambda v: isinstance(v, str), "output_format": FORMATS.__contains__,
        "visibility": VISIBILITY.__contains__, "extra_data": lambda v: isinstance(v, dict),
        "tags": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    }
    for n, test in enumerate(tests):
        if not isinstance(test, dict):
            found.append(f"test {n} is not an object")
            continue
        found += [f"test {n}: unknown key {k!r}" for k in sorted(set(test) - TEST_KEYS)]
        found += [f"test {n}: bad {k}: {test[k]!r}" for k, ok in test_checks.items() if k in test and not ok(test[k])]
    return found
