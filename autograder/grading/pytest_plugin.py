"""pytest plugin for the hidden graders (loaded with ``-p autograder.grading.pytest_plugin``).

- ``@pytest.mark.points(n)``: what a test is worth; every grader test must carry one.
- ``@pytest.mark.request_timeout(seconds)``: the time limit of each request that test sends to
  the student's process (default ``--grade-timeout``).
- fixtures: ``student`` (a :class:`~autograder.grading.student.Student` for the assignment under
  test), ``rng`` (a ``torch.Generator`` seeded from the run's seed and the test's id, so
  inputs change every run but any run can be replayed with ``--grade-seed``) and
  ``course_data`` (the fixtures in source_data/).
- ``--grade-report FILE``: one JSON record per test, written by this process, which has
  never imported the submission. Failure output is the checks' own message only: a
  grader's source never appears in it.
- ``--submission`` given several times: every test runs once per submission, each
  submission with its own student process (started when its first test needs it, stopped
  before the next one's starts); the report holds one entry per submission, in order.
  This process only ever sees plain data from them, so one cannot affect another's verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from .. import course
from ..settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT, pin_torch_threads
from . import rules
from .checks import CheckFailure
from .student import Student

_RESULTS = pytest.StashKey[dict]()  # nodeid -> (submission index, record)
_PEAK = pytest.StashKey[dict]()  # submission index -> its worker's peak memory, measured by this process
_SLOWEST = pytest.StashKey[dict]()  # submission index -> the answered call closest to its limit, timed here


def pytest_addoption(parser):
    group = parser.getgroup("course grading")
    group.addoption("--submission", action="append", default=[],
                    help="folder laid out like assignments/ to grade (repeatable: each is graded apart)")
    group.addoption("--assignment", help="assignment under test, e.g. a1_attention")
    group.addoption("--grade-seed", type=int, default=0, help="seed of the randomised inputs")
    group.addoption("--grade-seeds", default="",
                    help="comma-separated seeds: every grader that draws random inputs runs once per seed")
    group.addoption("--grade-report", help="write per-test results to this JSON file")
    group.addoption("--grade-timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per request")
    group.addoption("--grade-memory", type=float, default=DEFAULT_MEMORY_GIB,
                    help="GiB of address space for student code")
    group.addoption("--grade-budget", type=float, default=DEFAULT_BUDGET,
                    help="seconds of start-ups and calls for student code, for the whole assignment")
    group.addoption("--isolation", default="none", choices=("namespace", "none"))
    group.addoption("--hide", action="append", default=[], help="another folder to hide from student code")


def pytest_configure(config):
    config.addinivalue_line("markers", "points(n): points the test is worth")
    config.addinivalue_line("markers", "request_timeout(seconds): limit on each request to the student's code "
                            "(named apart from pytest-timeout's whole-test timeout marker)")
    config.stash[_RESULTS] = {}
    config.stash[_PEAK] = {}
    config.stash[_SLOWEST] = {}
    # Graders replay small reference computations (a decoding, a training step) here.
    pin_torch_threads()


def pytest_collection_modifyitems(session, config, items):
    missing = [item.nodeid for item in items if item.get_closest_marker("points") is None]
    if missing:
        raise pytest.UsageError(f"grader tests without @pytest.mark.points: {', '.join(missing)}")


@pytest.fixture(scope="session")
def student(request):
    config = request.config
    name = config.getoption("--assignment")
    submissions = config.getoption("--submission")
    if not name or not submissions:
        raise pytest.UsageError("the graders need --submission and --assignment")
    index = getattr(request, "param", 0)
    handle = Student(
        course.get(name),
        Path(submissions[index]),
        isolation=config.getoption("--isolation"),
        timeout=config.getoption("--grade-timeout"),
        hidden=[Path(p) for p in config.getoption("--hide")],
        references=course.solutions_dir(),
        memory_gib=config.getoption("--grade-memory"),
        budget=config.getoption("--grade-budget"),
    )
    yield handle
    handle.close()
    peak = getattr(handle.transport, "peak_kib", None)
    if peak:
        config.stash[_PEAK][index] = peak
    slowest = getattr(handle.transport, "slowest_call", None)
    if slowest:
        config.stash[_SLOWEST][index] = slowest


@pytest.fixture(autouse=True)
def _request_timeout(request):
    marker = request.node.get_closest_marker("request_timeout")
    if marker is None or "student" not in request.fixturenames:
        yield
        return
    handle = request.getfixturevalue("student")
    before = handle.timeout
    handle.timeout = float(marker.args[0])
    yield
    handle.timeout = before


def _seeds(config) -> list[int]:
    text = config.getoption("--grade-seeds")
    return [int(s) for s in text.split(",") if s.strip()] if text else []


def pytest_generate_tests(metafunc):
    seeds = _seeds(metafunc.config)
    if seeds and "grade_seed" in metafunc.fixturenames:
        metafunc.parametrize("grade_seed", seeds, indirect=True, ids=[f"seed{s}" for s in seeds])
    count = len(metafunc.config.getoption("--submission"))
    if count > 1 and "student" in metafunc.fixturenames:
        # Session scope: pytest groups the tests by submission, so each student process
        # serves all of one submission's tests and is stopped before the next one starts.
        metafunc.parametrize("student", range(count), indirect=True, scope="session",
                             ids=[_submission_id(i) for i in range(count)])


def _submission_id(index: int) -> str:
    return f"submission{index}"


def _submission(item) -> tuple[int, str]:
    """The submission an item grades, and the item's id as it reads with one submission
    (the id the results name, whether or not submissions are graded together)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "student" not in callspec.params:
        return 0, item.nodeid
    index, token = callspec.params["student"], _submission_id(callspec.params["student"])
    nodeid = item.nodeid
    for old, new in ((f"[{token}]", ""), (f"[{token}-", "["), (f"-{token}]", "]"), (f"-{token}-", "-")):
        nodeid = nodeid.replace(old, new)
    return index, nodeid


@pytest.fixture
def grade_seed(request) -> int:
    """The run's seed: ``--grade-seed``, or this item's one of ``--grade-seeds``."""
    return getattr(request, "param", request.config.getoption("--grade-seed"))


@pytest.fixture
def rng(request, grade_seed):
    # The test's id without the seed parameter: seed N of a several-seed run draws the
    # same inputs as a run with --grade-seed N.
    seed = rules.derive_seed(grade_seed, request.node.nodeid.split("[")[0])
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="session")
def course_data():
    return rules.course_data


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when == "teardown" or (call.when == "setup" and report.passed):
        return
    results = item.config.stash[_RESULTS]
    if item.nodeid in results:
        return
    points = float(item.get_closest_marker("points").args[0])
    seed = getattr(item, "callspec", None) and item.callspec.params.get("grade_seed")
    title = rules.first_line(item.function)
    name = title if seed is None else f"{title} [seed {seed}]"
    index, grader = _submission(item)
    record = {"id": grader, "name": name, "max_score": points, "score": 0.0,
              "output": "", "internal_error": False,
              "seed": seed if seed is not None else item.config.getoption("--grade-seed")}
    if report.passed:
        record["score"] = points
    elif call.excinfo is not None and isinstance(call.excinfo.value, CheckFailure):
        failure = call.excinfo.value
        handle = item.funcargs.get("student") if hasattr(item, "funcargs") else None
        shorten = handle.shorten_quotes if isinstance(handle, Student) else (lambda text: text)
        record["output"] = shorten(str(failure))[:2000]
        record["output_en"], record["output_es"] = shorten(failure.en)[:1000], shorten(failure.es)[:1000]
        if failure.diagnosis:
            record["diagnosis"] = failure.diagnosis
    else:
        kind = call.excinfo.typename if call.excinfo is not None else report.outcome
        record["output"] = rules.internal_error(kind)
        record["output_en"], record["output_es"] = record["output"].split("\n", 1)
        record["internal_error"] = True
    results[item.nodeid] = (index, record)


def pytest_sessionfinish(session, exitstatus):
    path = session.config.getoption("--grade-report")
    if path:
        stash = session.config.stash
        entries = [{"tests": [], "worker_peak_kib": stash[_PEAK].get(i), "slowest_call": stash[_SLOWEST].get(i)}
                   for i in range(len(session.config.getoption("--submission")))]
        for index, record in stash[_RESULTS].values():
            entries[index]["tests"].append(record)
        Path(path).write_text(json.dumps({"submissions": entries}, indent=1), encoding="utf-8")
