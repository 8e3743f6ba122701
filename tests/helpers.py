"""Helpers for the project tests: build submission variants, grade them with the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
ASSIGNMENTS = ROOT / "assignments"


# The two tiers (docs/testing.md). `pytest` runs the fast tier: every test file, the sets of cases
# (mutants, correct submissions, attacks) at one seed or a fixed subset; `pytest --full`
# runs every seed and every case (what .ci/run runs). Both collect the same tests:
# the entries outside the subset are marked `full_only`, and the fast tier skips them.
FULL = False  # set by conftest.py from --full before any test module is collected
FULL_ONLY = "full tier only: run pytest --full"
# The fast tier's correct submission (tests/correct_submissions/): torch.nn.functional on raw
# parameters (the forbidden-call check must let it through); the full tier grades all eight.
CORRECT_FAST = ("functional",)


def tier_seeds(seeds):
    """``seeds`` in the full tier; their first one in the fast tier."""
    return tuple(seeds) if FULL else tuple(seeds)[:1]


def tiered(values, fast=None, ids=None, marks=()) -> list:
    """``values`` as pytest parameters, every one outside ``fast`` (default: the first
    value) marked ``full_only``; ``ids`` and ``marks`` (per value, a callable) as pytest's."""
    values = list(values)
    fast = values[:1] if fast is None else list(fast)
    assert all(v in values for v in fast), "the fast subset must be part of the values"
    params = []
    for i, value in enumerate(values):
        extra = list(marks(value)) if callable(marks) else list(marks)
        if value not in fast:
            extra.append(pytest.mark.full_only)
        params.append(pytest.param(value, marks=extra, id=None if ids is None else ids[i]))
    return params


@dataclass
class Graded:
    rc: int
    stdout: str
    stderr: str
    results: dict | None
    out: str = ""  # the --out folder: results.json, junit.xml, summary.md

    def tests(self, assignment: str) -> dict[str, dict]:
        """name -> test record for one assignment."""
        prefix = f"{assignment} · "
        return {t["name"][len(prefix):]: t for t in self.results["tests"] if t["name"].startswith(prefix)}

    def score(self, assignment: str) -> tuple[float, float]:
        tests = self.tests(assignment).values()
        return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests)

    def failed(self, assignment: str) -> set[str]:
        return {name for name, t in self.tests(assignment).items() if t["score"] < t["max_score"]}


def interruptible(cmd: list[str]) -> list[str]:
    """``cmd`` started with SIGINT at its default, as a shell in a terminal starts it, so that
    Ctrl-C (``send_signal(SIGINT)``) reaches it. A script that runs pytest in the background
    (``pytest ... &``) starts it with SIGINT ignored, and every child inherits that; Python
    then never raises KeyboardInterrupt. ``exec`` keeps the process id."""
    reset = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
    return [sys.executable, "-c", reset, *map(str, cmd)]


def run_grade(submission: Path, out: Path, *args: str, env: dict | None = None, timeout: float = 600) -> Graded:
    return run_grade_many([submission], out, *args, env=env, timeout=timeout)[0]


def run_grade_many(submissions: list[Path], out: Path, *args: str, env: dict | None = None,
                   timeout: float = 600) -> list[Graded]:
    """``python -m autograder grade`` on the submissions in one run (each gets its own results
    under ``out``, as the command writes them); one ``Graded`` per submission, in order."""
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", *map(str, submissions), "--out", str(out), *args],
        capture_output=True, text=True, timeout=timeout * len(submissions), env={**os.environ, **(env or {})},
        cwd=ROOT,
    )
    graded = []
    for submission in submissions:
        folder = out / submission.name if len(submissions) > 1 else out
        path = folder / "results.json"
        results = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        graded.append(Graded(proc.returncode, proc.stdout, proc.stderr, results, str(folder)))
    return graded


def make_submission(dest: Path, edits: dict[str, list[tuple[str, str]]] | None = None,
                    files: dict[str, str] | None = None, base: Path = SOLUTIONS) -> Path:
    """Copy ``base`` (the reference solutions) to ``dest`` and change it.

    ``edits``: "a1_attention/attention.py" -> [(old, new), ...] text replacements; each
    ``old`` must occur, so a test never silently grades an unchanged copy.
    ``files``: "a1_attention/attention.py" -> whole new content.
    """
    shutil.copytree(base, dest, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, replacements in (edits or {}).items():
        path = dest / rel
        text = path.read_text(encoding="utf-8")
        for old, new in replacements:
            assert old in text, f"{old!r} not found in {rel}; update this test's edit"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    for rel, content in (files or {}).items():
        (dest / rel).write_text(content, encoding="utf-8")
    return dest


def course_notebook(assignment: str, lang: str = "es", solved: bool = True,
                    edit=None) -> bytes:
    """The notebook a student hands in: the released version of ``assignment`` with its
    solution cells holding the reference code (``solved``) or left as released; ``edit``
    (cell source -> new source, or None to keep) changes any code cell after that."""
    import nbformat

    from autograder import course
    from autograder.markers import BEGIN_SOLUTION, END_SOLUTION
    from autograder.notebooks import build

    reference = build.build(course.get(assignment), lang)
    nb = build.student_version(reference)
    for ref, cell in zip(reference.cells, nb.cells):
        if solved and cell.cell_type == "code" and ref.metadata.get("nbgrader", {}).get("solution"):
            cell.source = "\n".join(line for line in ref.source.split("\n")
                                    if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))
        if edit is not None and cell.cell_type == "code":
            cell.source = edit(cell.source) or cell.source
    return nbformat.writes(nb).encode("utf-8")


def run_release(out: Path, *args: str) -> Path:
    """``python -m autograder release --out OUT ARGS`` (it must succeed); returns OUT."""
    proc = subprocess.run([sys.executable, "-m", "autograder", "release", "--out", str(out), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out
