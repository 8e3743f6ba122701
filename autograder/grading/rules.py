"""The rules of a hidden grader test, read in one place for the pytest plugin (which runs
it) and the notebook build (which writes a test cell per grader, worth its points).

A grader test is a function ``test_*`` in ``autograder/graders/<assignment>/test_*.py``:

- ``@pytest.mark.points(n)``: what it is worth (required);
- ``@pytest.mark.request_timeout(seconds)``: the limit of each request it sends to the
  student's code (default: the grading command's ``--timeout``);
- its docstring's first line: the question, ``"English? / ¿Español?"``;
- its ``rng`` is seeded from the run's seed and its id (:func:`derive_seed`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass
from pathlib import Path

from .. import course


@dataclass(frozen=True)
class GraderTest:
    nodeid: str  # "a1_attention/test_masks.py::test_causal_mask", as pytest names it
    points: float
    timeout: float | None  # per request, when the test sets its own
    question_en: str
    question_es: str
    parametrized: bool  # @pytest.mark.parametrize: several cases, so no single notebook cell


def derive_seed(run_seed: int, nodeid: str) -> int:
    """The seed of one test's ``rng``: fresh inputs every run, any run replayable."""
    digest = hashlib.sha256(f"{run_seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


def cell_id(nodeid: str) -> str:
    """The nbgrader test cell of a grader in the course notebooks (its ``grade_id``):
    "a1_attention/test_masks.py::test_causal_mask" (a parameter suffix allowed) ->
    "test_masks-test_causal_mask"."""
    file, _, function = nodeid.partition("::")
    return f"{Path(file).name.removesuffix('.py')}-{function.split('[')[0]}"


def internal_error(kind: str) -> str:
    """What a student reads when a grader could not run (never its traceback)."""
    return (f"internal grader error ({kind}); this is not your fault, please report it\n"
            f"error interno del corrector ({kind}); no es culpa tuya, por favor avisa")


def course_data(relative: str):
    """A JSON fixture of source_data/ (the ``course_data`` of a grader test)."""
    return json.loads((course.data_dir() / relative).read_text(encoding="utf-8"))


def first_line(fn) -> str:
    """The docstring's first line, both languages: the test's name in results.json."""
    doc = (fn.__doc__ or "").strip().splitlines()
    return doc[0].strip() if doc else fn.__name__


def marks(fn) -> dict:
    """The function's own pytest marks by name (``@pytest.mark.x`` decorators)."""
    return {m.name: m for m in getattr(fn, "pytestmark", [])}


def describe(nodeid: str, fn) -> GraderTest:
    """The rules of the grader function ``fn`` whose pytest id is ``nodeid``."""
    found = marks(fn)
    if "points" not in found:
        raise ValueError(f"{nodeid} has no @pytest.mark.points(n)")
    timeout = found.get("request_timeout")
    en, _, es = first_line(fn).partition(" / ")
    return GraderTest(nodeid, float(found["points"].args[0]), float(timeout.args[0]) if timeout else None,
                      en.strip(), (es or en).strip(), "parametrize" in found)


def grader_tests(assignment: course.Assignment) -> dict[str, GraderTest]:
    """The assignment's grader tests in file and source order, by pytest id."""
    found = {}
    for path in sorted((course.GRADERS_DIR / assignment.name).glob("test_*.py")):
        module = importlib.import_module(f"autograder.graders.{assignment.name}.{path.stem}")
        functions = [fn for name, fn in vars(module).items()
                     if name.startswith("test") and callable(fn) and getattr(fn, "__module__", "") == module.__name__]
        for fn in sorted(functions, key=lambda f: f.__code__.co_firstlineno):
            nodeid = f"{assignment.name}/{path.name}::{fn.__name__}"
            found[nodeid] = describe(nodeid, fn)
    return found
