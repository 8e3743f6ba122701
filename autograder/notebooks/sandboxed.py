"""nbgrader's grades from the sandbox: the verdict of a notebook is the module form's.

``nbgrader autograde`` still runs each submitted notebook (the student's outputs and the
instructor's view stay as nbgrader makes them), but what its kernel reports decides
nothing. For every submission this module:

1. turns the submitted notebook into the module form (:mod:`.extract`; in one thread:
   CPython 3.11's ``ast.parse`` is not safe to run in several at once) and grades that
   with ``python -m autograder grade``'s runner: the same graders, seed, prerequisites
   and sandbox as a module submission;
2. writes each hidden test cell's score into nbgrader's gradebook (``auto_score``), for
   every cell, so nothing a kernel wrote there survives;
3. replaces each hidden test cell's output in the autograded notebook with that grader's
   bilingual message, so the feedback page shows the sandbox's verdict;
4. removes any output that quotes reference or grader code (:func:`scrub_outputs`): the
   kernel nbgrader runs is no sandbox, so a cell could read those files and print them.

Written answers (the narratives' ``<!-- answer: ... -->``, nbgrader's manually graded
Markdown cells) are the instructor's to grade in formgrader. Their gradebook rows follow
nbgrader's own rule, decided here from the notebook as handed in, not from what a kernel
may have written into the gradebook: an answer left as released scores 0, any other needs
a manual grade; a manual score and extra credit given before this run are kept
(:func:`instructor_marks` reads them before any kernel runs).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import course
from ..course import Assignment
from ..grading import rules
from ..grading.runner import grade_many
from . import sources


@dataclass
class CellVerdict:
    score: float
    max_score: float
    output: str  # the grader's message (empty when it passed)


def grade_modules(submissions: list[dict[str, str]], assignment: Assignment, seed: int) -> list[dict]:
    """Grade notebooks' module forms (:func:`extract.module_form`), each as ``python -m
    autograder grade`` would grade those files, in one run (a grading process for all, a
    student process each); returns their results in order."""
    with tempfile.TemporaryDirectory(prefix="course-notebook-") as tmp:
        folders = []
        for n, modules in enumerate(submissions):
            folder = Path(tmp) / f"submission{n}" / assignment.name
            folder.mkdir(parents=True)
            for name, text in modules.items():
                (folder / name).write_text(text, encoding="utf-8")
            folders.append(folder.parent)
        return grade_many(folders, Path(tmp) / "out", seed=seed, only=[assignment.name], jobs=1,
                          echo=lambda *a, **k: None)


def verdicts(data: dict) -> dict[str, CellVerdict]:
    """Hidden test cell id -> its verdict, from a grading's results."""
    found = {}
    for test in data["tests"]:
        cell = rules.cell_id(test["extra_data"]["grader"])
        found[cell] = CellVerdict(test["score"], test["max_score"], test["output"])
    return found


def refusal_verdicts(path: Path, message: str) -> dict[str, CellVerdict]:
    """Every test cell of the notebook at ``path`` failed with ``message`` (a refused notebook)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return {meta["grade_id"]: CellVerdict(0, float(meta.get("points", 0)), message)
            for cell in nb.get("cells", []) if (meta := cell.get("metadata", {}).get("nbgrader", {})).get("grade")
            and cell.get("cell_type") == "code"}


Marks = dict[str, tuple]  # grade id -> (manual score, extra credit) an instructor gave


def instructor_marks(gb, assignment: str, students: list[str]) -> dict[str, Marks]:
    """student -> their submission's manual scores and extra credit, as the gradebook holds
    them now (before this run's kernels, which could write there); {} for a new submission."""
    from nbgrader.api import MissingEntry

    found = {}
    for student in students:
        try:
            submission = gb.find_submission(assignment, student)
        except MissingEntry:
            continue
        found[student] = {g.name: (g.manual_score, g.extra_credit) for nb in submission.notebooks for g in nb.grades}
    return found


def answers_given(submitted: dict, released: dict) -> set[str]:
    """Grade ids of the written answers ``submitted`` changed from ``released`` (both
    notebooks as JSON data): nbgrader's "a response was given" (it compares checksums)."""
    def answers(nb):
        found = {}
        for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
            meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
            if isinstance(meta, dict) and meta.get("grade") and meta.get("solution"):
                source = cell.get("source", "")
                found[str(meta.get("grade_id"))] = "".join(source) if isinstance(source, list) else str(source)
        return found

    released_answers = answers(released)
    return {grade_id for grade_id, text in answers(submitted).items()
            if grade_id in released_answers and text.strip() and text.strip() != released_answers[grade_id].strip()}


def write_gradebook(gb, assignment: str, student: str, cells: dict[str, CellVerdict],
                    answered: set[str] | None = None, kept: Marks | None = None) -> list[str]:
    """Set every autograded (code) cell of this submission from ``cells`` (0 for a cell with
    no verdict) and every written answer by nbgrader's rule: ``answered`` holds the answers
    the student changed (None: a refused notebook, every answer 0), ``kept`` the manual
    scores and extra credit given before this run. Returns the test cells that had no
    verdict (a build and graders out of step)."""
    missing = []
    kept = kept or {}
    submission = gb.find_submission(assignment, student)
    for notebook in submission.notebooks:
        for grade_row in notebook.grades:
            manual, extra = kept.get(grade_row.name, (None, None)) if answered is not None else (None, None)
            grade_row.extra_credit = extra  # whatever a kernel wrote there is undone
            if grade_row.cell_type != "code":  # a written answer: the instructor grades it
                grade_row.auto_score = None if answered and grade_row.name in answered else 0
                grade_row.manual_score = manual
                grade_row.needs_manual_grade = manual is not None or grade_row.auto_score is None
                continue
            verdict = cells.get(grade_row.name)
            if verdict is None:
                missing.append(grade_row.name)
            grade_row.auto_score = verdict.score if verdict else 0
            grade_row.manual_score = None
            grade_row.needs_manual_grade = False
    gb.db.commit()
    return missing


def pending_manual(gb, assignment: str, student: str) -> float:
    """Points of this submission's written answers the instructor has not graded yet (one
    graded in an earlier run is flagged for review again, by nbgrader's rule, but counts)."""
    submission = gb.find_submission(assignment, student)
    return sum(g.max_score for nb in submission.notebooks for g in nb.grades
               if g.cell_type != "code" and g.needs_manual_grade and g.manual_score is None)


def rewrite_outputs(path: Path, cells: dict[str, CellVerdict], notes: list[str], seed: int | None = None) -> None:
    """Each hidden test cell of the autograded notebook at ``path`` shows its verdict; the
    first of them also the seed to replay and the conversion's notes."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = True
    for cell in nb.get("cells", []):
        cell_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") != "code" or cell_id not in cells:
            continue
        verdict = cells[cell_id]
        head = f"{verdict.score:g} / {verdict.max_score:g}"
        lines = [("PASSED / SUPERADO: " if verdict.score == verdict.max_score else "FAILED / NO SUPERADO: ") + head]
        if verdict.output:
            lines.append(verdict.output)
        if first and seed is not None:
            lines += ["", f"Seed / semilla: {seed} (replay / repetir: python -m autograder nbgrader autograde "
                          f"--seed {seed})"]
        if first and notes:
            lines += ["", *notes]
        first = False
        text = "\n".join(lines) + "\n"
        if verdict.score == verdict.max_score:
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": text}]
        else:
            cell["outputs"] = [{"output_type": "error", "ename": "GradingFailure",
                                "evalue": verdict.output.splitlines()[0] if verdict.output else head,
                                "traceback": text.splitlines()}]
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def autograded_notebook(course_dir: Path, student: str, assignment: Assignment) -> Path:
    return course_dir / "autograded" / student / assignment.name / sources.notebook_name(assignment)


REMOVED = ("[output removed: it quoted the course's hidden material / salida eliminada: citaba material "
           "oculto del curso]\n")


def hidden_lines() -> set[str]:
    """Lines that must never reach a student: distinctive solution code, grader code
    (lines of 25 characters or more that no public test, stub or given code also holds) and
    the written answers' model answers."""
    from ..stubs import code_lines, distinctive_solution_lines

    public = set()
    for path in course.assignments_dir().rglob("*.py"):
        public |= {line.strip() for line in path.read_text(encoding="utf-8").split("\n")}
    graders = set()
    for path in course.GRADERS_DIR.rglob("*.py"):
        graders |= {line.strip() for line in code_lines(path.read_text(encoding="utf-8")).split("\n")}
    return (distinctive_solution_lines(course.solutions_dir()) | {line for line in graders - public if len(line) >= 25}
            | sources.model_answer_lines())


def _output_text(output: dict) -> str:
    parts = [output.get("text", ""), output.get("evalue", ""), *output.get("traceback", [])]
    parts += [v for v in output.get("data", {}).values()]
    return "\n".join("".join(p) if isinstance(p, list) else str(p) for p in parts)


def scrub_outputs(path: Path, secrets: set[str]) -> int:
    """Replace every output of the notebook at ``path`` that quotes ``secrets`` (a kernel can
    read and print files the sandbox would have hidden); returns how many were replaced."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    removed = 0
    for cell in nb.get("cells", []):
        outputs = cell.get("outputs", [])
        for i, output in enumerate(outputs):
            text = _output_text(output)
            if any(secret in text for secret in secrets):
                outputs[i] = {"output_type": "stream", "name": "stdout", "text": REMOVED}
                removed += 1
    if removed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return removed
