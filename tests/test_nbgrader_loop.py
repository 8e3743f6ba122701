"""The instructor's loop with the real nbgrader CLI: build (generate_assignment), three
submissions per assignment, autograde, generate_feedback, export; grades and leaks.

Every assignment is built and released; the three submissions go in for every assignment in
the full tier (``pytest --full``) and for the first in the fast tier."""

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import helpers
from autograder import course
from autograder.authoring import release
from autograder.notebooks import build as notebooks
from autograder.notebooks import files, nbgrader_autograde, nbgrader_course, sources
from autograder.stubs import code_lines, distinctive_solution_lines, solution_texts
from helpers import ROOT, SOLUTIONS, run_grade

pytestmark = pytest.mark.xdist_group("nbgrader_loop")  # one worker builds its costly fixture (conftest.py)

LANG = "es"
SEED = "7"
ASSIGNMENTS = [a for a in course.ASSIGNMENTS if sources.has_narrative(a, LANG)]
TRACEBACK_LINE = re.compile(r"^[ \t]*(?:-*>[ \t]*)?\d+[ \t]", re.MULTILINE)
STUDENTS = ("solved", "blank", "partial")  # the solution notebook, the untouched release, one gap filled


def manual_points(a) -> float:
    """The points of ``a``'s written answers (graded by hand in formgrader, never by autograde)."""
    return sum(c.metadata["nbgrader"]["points"] for c in notebooks.answer_cells(notebooks.build(a, LANG)))


def graded_assignments():
    """The assignments the students hand in: all in the full tier, the first in the fast one."""
    return list(ASSIGNMENTS) if helpers.FULL else ASSIGNMENTS[:1]


def _cli(*args, timeout=900):
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_TARGET", "COURSE_ROOT", "PYTEST_ADDOPTS")}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _fill_first_gap(stub: str, code: str) -> str:
    """``stub`` with its first ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` replaced by ``code``."""
    lines = stub.split("\n")
    i = next(i for i, line in enumerate(lines) if line.strip() == "# YOUR CODE HERE")
    assert lines[i + 1].strip() == "raise NotImplementedError()"
    return "\n".join(lines[:i] + [code] + lines[i + 2:])


@dataclass
class Loop:
    course: Path
    build: subprocess.CompletedProcess
    autograde: subprocess.CompletedProcess
    grades: dict = field(default_factory=dict)  # (assignment, student) -> (score, max)
    filled: dict = field(default_factory=dict)  # assignment -> the solution code the partial one filled in
    seconds: dict = field(default_factory=dict)


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    course_dir = tmp_path_factory.mktemp("nbgrader") / "course"
    start = time.monotonic()
    built = _cli("nbgrader", "build", "--course", str(course_dir), "--lang", LANG)
    assert built.returncode == 0, built.stdout + built.stderr
    result = Loop(course_dir, built, None)
    result.seconds["build"] = time.monotonic() - start
    for a in graded_assignments():
        name = sources.notebook_name(a)
        source = json.loads((course_dir / "source" / a.name / name).read_text(encoding="utf-8"))
        released = json.loads((course_dir / "release" / a.name / name).read_text(encoding="utf-8"))
        by_id = {c["metadata"]["nbgrader"]["grade_id"]: c for c in source["cells"]}
        partial = json.loads(json.dumps(released))
        own = [c for c in partial["cells"] if c["metadata"].get("nbgrader", {}).get("solution")
               and c["metadata"]["nbgrader"]["grade_id"].startswith("code-")]
        grade_id = own[0]["metadata"]["nbgrader"]["grade_id"]
        result.filled[a.name] = solution_texts("".join(by_id[grade_id]["source"]))[:1]
        own[0]["source"] = _fill_first_gap("".join(own[0]["source"]), result.filled[a.name][0])
        for student, nb in zip(STUDENTS, (source, released, partial)):
            target = course_dir / "submitted" / student / a.name / name
            target.parent.mkdir(parents=True)
            target.write_text(json.dumps(nb), encoding="utf-8")
    start = time.monotonic()
    result.autograde = _cli("nbgrader", "autograde", "--course", str(course_dir), "--seed", SEED)
    result.seconds["autograde"] = time.monotonic() - start
    assert result.autograde.returncode == 0, result.autograde.stdout + result.autograde.stderr
    handed_in = {a.name for a in graded_assignments()}
    for row in nbgrader_autograde.read_grades(course_dir / "grades.csv"):
        if row["assignment"] not in handed_in:  # the fast tier: released, nobody handed it in
            continue
        result.grades[(row["assignment"], row["student_id"])] = (float(row["score"]), float(row["max_score"]))
    return result


def test_build_writes_the_course_and_releases_every_assignment(loop):
    """Does build write the config, source notebooks with their data, a gradebook and nbgrader's release?"""
    c = loop.course
    assert ASSIGNMENTS and (c / "nbgrader_config.py").is_file() and (c / "gradebook.db").is_file()
    for a in ASSIGNMENTS:
        name = sources.notebook_name(a)
        assert (c / "source" / a.name / name).is_file() and (c / "release" / a.name / name).is_file()
        for rel, data in files.notebook_files(a).items():  # data files and the self-check
            assert (c / "release" / a.name / rel).read_bytes() == data
        assert f"{a.name}: " in loop.build.stdout
        written = f" (+ {manual_points(a):g} for written answers, graded by hand)"
        assert (written in loop.build.stdout) == (manual_points(a) > 0), a.name
    skipped = [a for a in course.ASSIGNMENTS if a not in ASSIGNMENTS]
    for a in skipped:
        assert f"skip {a.name}: no narrative" in loop.build.stdout


def test_export_grades_solution_full_release_zero_partial_between(loop):
    """In the exported CSV, does the solution score full automatic points, the untouched
    release 0 and the partial one in between, out of the automatic points plus the written
    answers' (which wait for the instructor)?"""
    assert manual_points(course.get("a1_attention")) == 2
    for a in graded_assignments():
        points = sum(t.points for t in notebooks.grader_tests(a).values())
        total = points + manual_points(a)
        assert loop.grades[(a.name, "solved")] == (points, total), a.name
        assert loop.grades[(a.name, "blank")] == (0, total), a.name
        score, most = loop.grades[(a.name, "partial")]
        assert 0 < score < points and most == total, (a.name, score)


def test_autograde_prints_progress_and_writes_feedback(loop):
    """Does autograde print the seed and one line per assignment and student, and write every feedback page?"""
    out = loop.autograde.stdout
    assert f"random inputs seed {SEED}" in out
    for a in graded_assignments():
        for student in STUDENTS:
            score, total = loop.grades[(a.name, student)]
            assert f"{a.name}  {student}  {score:g} / {total:g}" in out
            waiting = f"{a.name}  {student}  {score:g} / {total:g}  (+ {manual_points(a):g} to grade by hand"
            assert (waiting in out) == (student == "solved" and manual_points(a) > 0), (student, out)
            page = loop.course / "feedback" / student / a.name / sources.notebook_name(a).replace(".ipynb", ".html")
            assert page.is_file()
    blank = release.readable_text(loop.course / "feedback" / "blank" / "a1_attention" / "a1_attention.html")
    # Each hidden test cell shows the sandbox's verdict, whatever the kernel printed there.
    assert "FAILED / NO SUPERADO: 0 / 1" in blank and "not implemented yet: masks.causal_mask" in blank
    assert "aún sin implementar: masks.causal_mask" in blank
    assert f"Seed / semilla: {SEED} (replay / repetir: python -m autograder nbgrader autograde --seed {SEED})" in blank
    for student in STUDENTS:
        assert f"a1_attention  {student}: graded in the sandbox" in out
    # The self-check cells run no checks in the graded kernels (nbgrader copies selfcheck.py there).
    assert "Self-check masks skipped while grading / autocomprobación omitida durante la calificación" in blank


def _hidden_lines(loop):
    lines = set()
    for a in ASSIGNMENTS:
        import nbformat

        nb = nbformat.read(loop.course / "source" / a.name / sources.notebook_name(a), as_version=4)
        lines.update(notebooks.hidden_sources(nb))
    return lines


def test_no_hidden_test_or_solution_code_in_release_or_feedback(loop):
    """Are hidden-test source, solution code and the written answers' model answers absent
    from release/ and feedback/ (bar a student's own code and answers)?"""
    from autograder.notebooks.sources import model_answer_lines

    hidden = _hidden_lines(loop)
    answers = model_answer_lines()
    assert answers
    assert any("graded in the sandbox" in line for line in hidden)
    secrets = distinctive_solution_lines(SOLUTIONS)
    assert release.scan(loop.course / "release") == []
    for folder in ("release", "feedback"):
        pages = [p for p in sorted((loop.course / folder).rglob("*")) if p.suffix in (".ipynb", ".html")]
        assert pages
        for page in pages:
            text = release.readable_text(page)
            assert not [line for line in hidden if line in text], page
            # Hints may quote code on purpose; IPython tracebacks number the lines they quote.
            code = code_lines(TRACEBACK_LINE.sub("", text))
            assert "### BEGIN HIDDEN TESTS" not in text, page
            student = page.relative_to(loop.course / folder).parts[0]
            if folder == "feedback" and student == "solved":
                continue  # it shows the student's own code, which is the solution
            if page.suffix == ".ipynb":  # Markdown as written (a feedback page renders it)
                assert not [line for line in answers if line in text], page
            assert "YOUR ANSWER HERE" in text or "a1_attention" not in page.parts, page
            allowed = set()
            if folder == "feedback" and student == "partial":
                own = "\n".join(loop.filled[page.relative_to(loop.course / folder).parts[1]])
                allowed = {line for line in secrets if line in own}
            leaked = sorted(line for line in secrets - allowed if line in code)
            assert not leaked, f"{page}: {leaked[:3]}"


def test_rebuild_is_idempotent_and_keeps_submissions_grades_and_feedback(loop):
    """Does a second build leave source/ and release/ byte-identical and submitted/, autograded/,
    feedback/ and grades alone?"""
    from nbgrader.api import Gradebook

    before = {name: _tree(loop.course / name) for name in ("source", "release", "submitted", "autograded", "feedback")}
    again = _cli("nbgrader", "build", "--course", str(loop.course), "--lang", LANG)
    assert again.returncode == 0, again.stdout + again.stderr
    for name, tree in before.items():
        assert _tree(loop.course / name) == tree, name
    with Gradebook(f"sqlite:///{loop.course / 'gradebook.db'}") as gb:
        for (assignment, student), (score, _) in loop.grades.items():
            assert gb.find_submission(assignment, student).score == score


def test_manual_grades_of_written_answers_reach_feedback_and_export(loop, tmp_path):
    """In a copy of the course, does a written answer graded by hand (as formgrader stores
    it) count in the export and show in the feedback, with the commands docs/instructors.md
    gives (`nbgrader generate_feedback <assignment> --force`, `nbgrader export`)?"""
    from nbgrader.api import Gradebook

    a = course.get("a1_attention")
    course_dir = tmp_path / "course"
    shutil.copytree(loop.course, course_dir)
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        grade = gb.find_grade("answer-softmax-axis", a.name, a.name, "solved")
        assert grade.needs_manual_grade and grade.auto_score is None
        grade.manual_score, grade.needs_manual_grade = 1, False
        gb.db.commit()
    env = nbgrader_course.kernel_env(tmp_path / "kernel")
    nbgrader_course.run_nbgrader(course_dir, env, "generate_feedback", a.name, "--force")
    nbgrader_course.run_nbgrader(course_dir, env, "export", "--to", "grades-final.csv")
    rows = {(r["assignment"], r["student_id"]): r
            for r in nbgrader_autograde.read_grades(course_dir / "grades-final.csv")}
    points = sum(t.points for t in notebooks.grader_tests(a).values())
    assert float(rows[(a.name, "solved")]["score"]) == points + 1
    assert float(rows[(a.name, "blank")]["score"]) == 0
    page = release.readable_text(course_dir / "feedback" / "solved" / a.name / f"{a.name}.html")
    assert f"{a.name} (Score: {points + 1:.1f} / {points + manual_points(a):.1f})" in page


@pytest.mark.filterwarnings("ignore:Object of type")  # nbgrader's add_submission, on SQLAlchemy 2
def test_written_answer_rows_follow_nbgrader_not_the_kernel(tmp_path):
    """In a real nbgrader gradebook, does writing the verdicts leave each written answer to
    the instructor by nbgrader's rule (0 if left as released, else "needs manual grade"),
    keep a manual score and extra credit given before the run, undo what a kernel wrote
    (manual scores, extra credit on any cell), and give a refused notebook 0 everywhere?"""
    from nbgrader.api import Gradebook

    from autograder.notebooks import sandboxed

    def released(text):
        return {"cells": [{"cell_type": "markdown", "source": text, "metadata": {"nbgrader": {
            "grade": True, "solution": True, "grade_id": "answer-x", "points": 1}}}]}

    assert sandboxed.answers_given(released("Mine."), released("YOUR ANSWER HERE")) == {"answer-x"}
    assert sandboxed.answers_given(released("YOUR ANSWER HERE\n"), released("YOUR ANSWER HERE")) == set()
    assert sandboxed.answers_given({"cells": []}, released("YOUR ANSWER HERE")) == set()
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        gb.add_assignment("a1")
        gb.add_notebook("a1", "a1")
        gb.add_grade_cell("test-x", "a1", "a1", max_score=2, cell_type="code")
        gb.add_grade_cell("answer-x", "a1", "a1", max_score=1, cell_type="markdown")
        gb.add_solution_cell("answer-x", "a1", "a1")
        for student in ("ana", "bea", "eva", "rita"):
            gb.add_student(student)
            gb.add_submission("a1", student)

        def rows(student):
            return {g.name: g for nb in gb.find_submission("a1", student).notebooks for g in nb.grades}

        marks = sandboxed.instructor_marks(gb, "a1", ["ana", "bea", "eva", "rita", "nobody"])
        assert set(marks) == {"ana", "bea", "eva", "rita"}
        rows("eva")["answer-x"].manual_score, rows("eva")["test-x"].extra_credit = 0.5, 1  # the instructor, earlier
        marks["eva"] = sandboxed.instructor_marks(gb, "a1", ["eva"])["eva"]
        for student in ("ana", "bea", "eva", "rita"):  # a kernel writes into the gradebook
            for row in rows(student).values():
                row.manual_score, row.extra_credit = 99, 99
        gb.db.commit()
        verdict = {"test-x": sandboxed.CellVerdict(2, 2, "")}
        assert sandboxed.write_gradebook(gb, "a1", "ana", verdict, set(), marks["ana"]) == []
        sandboxed.write_gradebook(gb, "a1", "bea", verdict, {"answer-x"}, marks["bea"])
        sandboxed.write_gradebook(gb, "a1", "eva", verdict, {"answer-x"}, marks["eva"])
        sandboxed.write_gradebook(gb, "a1", "rita", {}, None, marks["rita"])  # refused
        for student, auto, manual, needs, score in (("ana", 0, None, False, 2), ("bea", None, None, True, 2),
                                                    ("eva", None, 0.5, True, 3.5), ("rita", 0, None, False, 0)):
            answer = rows(student)["answer-x"]
            assert (answer.auto_score, answer.manual_score, answer.needs_manual_grade) == (auto, manual, needs), student
            assert gb.find_submission("a1", student).score == score, student
            assert sandboxed.pending_manual(gb, "a1", student) == (1 if needs and manual is None else 0)
        assert rows("eva")["test-x"].extra_credit == 1 and rows("ana")["test-x"].extra_credit is None


def test_errors_are_one_clear_line(tmp_path):
    """Do a folder that is no course, a missing nbgrader and a failing nbgrader step end in one `error:` line?"""
    proc = _cli("nbgrader", "autograde", "--course", str(tmp_path), timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "not a course built by" in proc.stderr
    without = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['nbgrader'] = None; from autograder.cli import main; "
         f"sys.exit(main(['nbgrader', 'build', '--course', {str(tmp_path / 'c')!r}]))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert without.returncode == 2 and without.stderr.startswith("error: nbgrader is not installed"), without.stderr
    with pytest.raises(nbgrader_course.NbgraderError, match=r"`nbgrader autograde nothing` failed .*\n"):
        nbgrader_course.run_nbgrader(tmp_path, dict(os.environ), "autograde", "nothing")
    # `--course ../course` run from a checkout that is itself named course: refused, nothing written.
    for inside in (ROOT, ROOT / "course"):
        proc = _cli("nbgrader", "build", "--course", str(inside), timeout=120)
        assert proc.returncode == 2 and "is inside the course checkout" in proc.stderr, proc.stderr
    assert not (ROOT / "course").exists() and not (ROOT / nbgrader_course.CONFIG).exists()


def test_loop_timing(loop):
    """How long do build and autograde take? (printed, not asserted: shared machines are noisy)"""
    print(f"build {loop.seconds['build']:.0f} s, autograde {loop.seconds['autograde']:.0f} s "
          f"for {len(graded_assignments())} assignments x {len(STUDENTS)} submissions")


def _partial_modules(loop, folder: Path) -> Path:
    """The stubs with, in each assignment, the definition the partial notebook filled in
    replaced by that notebook cell's code: the same code in module form."""
    shutil.copytree(ROOT / "assignments", folder, ignore=shutil.ignore_patterns("test_*", "conftest.py", "__pycache__"))
    for a in graded_assignments():
        name = sources.notebook_name(a)
        nb = json.loads((loop.course / "submitted" / "partial" / a.name / name).read_text(encoding="utf-8"))
        cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution")
                    and c["metadata"]["nbgrader"]["grade_id"].startswith("code-"))
        code = "".join(cell["source"])
        defined = {n.name for n in ast.parse(code).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for module in (folder / a.name).glob("*.py"):
            text = module.read_text(encoding="utf-8")
            tree = ast.parse(text)
            nodes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in defined]
            if not nodes:
                continue
            lines = text.split("\n")
            first = min(min([n.lineno] + [d.lineno for d in n.decorator_list]) for n in nodes)
            last = max(n.end_lineno for n in nodes)
            module.write_text("\n".join(lines[:first - 1] + code.split("\n") + lines[last:]), encoding="utf-8")
    return folder


def test_grades_equal_the_module_form_at_the_same_seed(loop, tmp_path):
    """Does every hidden test cell of the solved, untouched and partial notebooks get
    exactly the score its grader gives the same code as modules (`grade`, same seed)?"""
    from nbgrader.api import Gradebook

    from autograder.grading.rules import cell_id

    forms = {"solved": SOLUTIONS, "blank": ROOT / "assignments",
             "partial": _partial_modules(loop, tmp_path / "partial")}
    table = []
    with Gradebook(f"sqlite:///{loop.course / 'gradebook.db'}") as gb:
        for student, folder in forms.items():
            graded = run_grade(folder, tmp_path / f"out-{student}", "--seed", SEED,
                               *[x for a in graded_assignments() for x in ("--only", a.name)])
            assert graded.rc == 0, graded.stdout + graded.stderr
            module = {(t["extra_data"]["assignment"], cell_id(t["extra_data"]["grader"])): t["score"]
                      for t in graded.results["tests"]}
            for a in graded_assignments():
                grades = [g for nb in gb.find_submission(a.name, student).notebooks for g in nb.grades]
                cells = {(a.name, g.name): g.score for g in grades if g.cell_type == "code"}
                # The written answers wait for the instructor where given, else score 0 (nbgrader's rule).
                answers = {g.name: (g.auto_score, g.needs_manual_grade) for g in grades if g.cell_type != "code"}
                assert len(answers) == len(notebooks.answer_cells(notebooks.build(a, LANG))), a.name
                expected = (None, True) if student == "solved" else (0, False)
                assert all(value == expected for value in answers.values()), (a.name, student, answers)
                mine = {key: score for key, score in module.items() if key[0] == a.name}
                assert cells == mine, (a.name, student, {k: (cells.get(k), mine.get(k)) for k in cells | mine
                                                         if cells.get(k) != mine.get(k)})
                table.append(f"{a.name:<16} {student:<8} notebook {sum(cells.values()):g}  "
                             f"module {sum(mine.values()):g}")
    print("\n".join(table))
