"""Session fixtures: the reference solutions and the untouched stubs, each graded once per
test session, also when pytest-xdist splits the session over several workers (the README's
``pytest -n auto --dist loadgroup``): the first worker grades and the others read its result.

Test modules whose module-scoped fixture is expensive (a trained checkpoint, a built
nbgrader course) mark themselves ``xdist_group``, so that fixture is built on one worker.
Each worker, and every process it starts, gets its share of the cores as torch threads.

``--full`` chooses the full tier (docs/testing.md): without it, tests marked ``full_only``
are skipped ("full tier only: run pytest --full") and the sets of cases run at one seed.
"""

import json
import os
from dataclasses import asdict

from autograder.settings import passive_waiting

# Before torch is imported anywhere in the session: the tests share two cores among their
# own processes, where spinning OpenMP threads cost several times the work (settings.py).
passive_waiting()

import pytest
from filelock import FileLock

import helpers
from helpers import ASSIGNMENTS, SOLUTIONS, Graded, run_grade


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="the full test tier (every seed, every case; what .ci/run runs); "
                          "without it, the fast tier (docs/testing.md)")


def pytest_configure(config):
    helpers.FULL = bool(config.getoption("full"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        # Two workers on two cores that each train with two torch threads spin against each
        # other: a 50-second training took 8 minutes that way, and 80 seconds on one thread.
        threads = str(max(1, (os.cpu_count() or 1) // workers))
        os.environ["OMP_NUM_THREADS"] = threads  # the processes the tests start
        import torch

        torch.set_num_threads(int(threads))


def pytest_collection_modifyitems(config, items):
    if config.getoption("full"):
        return
    skip = pytest.mark.skip(reason=helpers.FULL_ONLY)
    for item in items:
        if item.get_closest_marker("full_only"):
            item.add_marker(skip)


def pytest_report_header(config):
    return "test tier: " + ("full (--full)" if config.getoption("full") else "fast (pytest --full for the full tier)")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    if node.config.getvalue("dist") != "loadgroup":
        return
    # pytest-xdist marks a grouped test by a "@group" suffix on its id; some pytest versions
    # silently drop it (pytest-xdist#1386), and every worker would build the costly fixtures.
    grouped = {nodeid.split("::")[0] for nodeid in ids if "@" in nodeid}
    files = {nodeid.split("::")[0] for nodeid in ids} - grouped
    lost = sorted(f for f in files if "xdist_group" in (node.config.rootpath / f).read_text(encoding="utf-8"))
    if lost:
        pytest.exit(f"pytest-xdist ignores the xdist_group of {', '.join(lost)} with pytest {pytest.__version__} "
                    "(pytest-xdist#1386): install with -c constraints.txt, which keeps pytest below 9.2", returncode=4)


def _once(tmp_path_factory, name: str, submission) -> Graded:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this session
    out = base / name
    with FileLock(f"{out}.lock"):
        cached = base / f"{name}.json"
        if cached.is_file():
            return Graded(**json.loads(cached.read_text(encoding="utf-8")))
        graded = run_grade(submission, out, "--seed", "1234")
        cached.write_text(json.dumps(asdict(graded)), encoding="utf-8")
        return graded


@pytest.fixture(scope="session")
def graded_solutions(tmp_path_factory) -> Graded:
    return _once(tmp_path_factory, "solutions-results", SOLUTIONS)


@pytest.fixture(scope="session")
def graded_stubs(tmp_path_factory) -> Graded:
    return _once(tmp_path_factory, "stubs-results", ASSIGNMENTS)
