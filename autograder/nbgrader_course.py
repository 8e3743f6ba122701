"""An nbgrader course generated from the single source.

``python -m autograder nbgrader build --course DIR [--lang es|en]`` writes the course
directory nbgrader expects::

    DIR/nbgrader_config.py                      (written by build, rewritten every time)
    DIR/source/<assignment>/<assignment>.ipynb  (generated from solutions/, see notebooks.py)
    DIR/source/<assignment>/<data files>        (source_data/<assignment>/)
    DIR/release/<assignment>/...                (nbgrader generate_assignment: hand this out)
    DIR/gradebook.db                            (nbgrader's sqlite gradebook)

and runs the real ``nbgrader generate_assignment`` for every assignment. Re-running it
regenerates ``source/`` and ``release/`` and leaves ``submitted/``, ``autograded/``,
``feedback/`` and the gradebook alone.

``python -m autograder nbgrader autograde --course DIR`` grades everything under
``DIR/submitted/<student>/<assignment>/<assignment>.ipynb`` with ``nbgrader autograde``
(students are added to the gradebook as they are found), writes per-student feedback
with ``nbgrader generate_feedback`` and the grade table with ``nbgrader export``
(``DIR/grades.csv``).

Both shell out to the nbgrader of this interpreter (``python -m nbgrader``); notebooks run
on a ``python3`` kernel of this interpreter, where the ``autograder`` package that the
hidden test cells import is installed.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

from . import course, notebooks

CONFIG = "nbgrader_config.py"
CONFIG_MARK = "# Written by `python -m autograder nbgrader build`"
CELL_TIMEOUT = 300  # seconds per cell when autograding; each grader call has its own limit
STEP_TIMEOUT = 3600  # seconds for one nbgrader command
SEED_VARIABLE = "COURSE_GRADE_SEED"  # the hidden tests' seed, read in the kernels

CONFIG_TEXT = f'''{CONFIG_MARK}; every build rewrites it.
# Assignments come from the course's single source: edit solutions/<assignment>/ and the
# narratives there, then build again.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "transformer-course"

# A hidden test cell runs pytest graders against the notebook: allow for it.
c.Execute.timeout = {CELL_TIMEOUT}

# Feedback: nbgrader 0.9.6 copies the autograded notebook, hidden tests included, into the
# feedback HTML. Remove the hidden test regions there too; the output of a failed hidden
# cell is the check's message only (autograder.notebook_grading.GradingFailure).
c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, ClearHiddenTests]
'''


class NbgraderError(Exception):
    """A step of the nbgrader workflow could not run; the message is for the instructor."""


def _require_nbgrader() -> None:
    for module in ("nbgrader", "ipykernel"):
        if importlib.util.find_spec(module) is None:
            raise NbgraderError(
                f"{module} is not installed in this Python ({sys.executable}); "
                f"install the course with `pip install -c constraints.txt -e .` (it pins nbgrader==0.9.6)"
            )


def _kernel_env(tmp: Path, seed: int | None = None) -> dict:
    """Environment for nbgrader: a ``python3`` kernelspec of this interpreter comes first
    on JUPYTER_PATH, so notebooks run where ``autograder`` is installed."""
    spec = tmp / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python",
    }), encoding="utf-8")
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join([str(tmp)] + [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p])
    env.pop("COURSE_TARGET", None)
    # nbgrader starts helper commands by name (`alembic` for the gradebook): find them
    # beside this interpreter even when its virtual environment is not activated.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # One thread per kernel, as in the module form's workers: on a busy machine torch's
    # default thread pool can make a notebook many times slower.
    env.setdefault("OMP_NUM_THREADS", "1")
    if seed is not None:
        env[SEED_VARIABLE] = str(seed)  # read by autograder.notebook_grading in the kernels
    return env


def _nbgrader(course_dir: Path, env: dict, *args: str) -> str:
    command = "nbgrader " + " ".join(args)
    try:
        proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, env=env,
                              capture_output=True, text=True, timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise NbgraderError(f"`{command}` ran past {STEP_TIMEOUT} s") from None
    output = (proc.stdout + proc.stderr).strip()
    failed = proc.returncode != 0 or "[ERROR]" in output or "| ERROR]" in output
    if failed:
        last = output.splitlines()[-12:] or ["no output"]
        raise NbgraderError(f"`{command}` failed (exit {proc.returncode}); its last lines:\n    " + "\n    ".join(last))
    return output


def _write_config(course_dir: Path) -> None:
    path = course_dir / CONFIG
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        if text == CONFIG_TEXT:
            return
        if not text.startswith(CONFIG_MARK):
            raise NbgraderError(f"{path} was not written by this command; move it away (build writes its own)")
    path.write_text(CONFIG_TEXT, encoding="utf-8")


def _sync_folder(folder: Path, files: dict[str, bytes]) -> None:
    """Make ``folder`` hold exactly ``files`` (relative name -> bytes), touching only what changed."""
    folder.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = folder / rel
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    for path in sorted(folder.rglob("*"), reverse=True):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and rel not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def source_files(assignment: course.Assignment, lang: str) -> dict[str, bytes]:
    """``source/<assignment>/`` of a course in ``lang``: the notebook and its data files."""
    import nbformat

    nb = notebooks.build(assignment, lang)
    files = {notebooks.notebook_name(assignment): (nbformat.writes(nb) + "\n").encode("utf-8")}
    data = course.data_dir() / assignment.name
    for path in notebooks.data_files(assignment):
        files[path.relative_to(data).as_posix()] = path.read_bytes()
    return files


def _points(assignment: course.Assignment) -> float:
    return sum(t.points for t in notebooks.grader_tests(assignment).values())


def build(course_dir: Path, lang: str = "es", log=print) -> list[str]:
    """Write the course and release every assignment; returns the assignments released."""
    _require_nbgrader()
    if lang not in notebooks.LANGS:
        raise NbgraderError(f"unknown language {lang!r}; choose one of {', '.join(notebooks.LANGS)}")
    course_dir = course_dir.resolve()
    if course_dir.exists() and not course_dir.is_dir():
        raise NbgraderError(f"{course_dir} is a file; give a folder for the course")
    course_dir.mkdir(parents=True, exist_ok=True)
    _write_config(course_dir)
    released = []
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as tmp:
        env = _kernel_env(Path(tmp))
        for assignment in course.ASSIGNMENTS:
            if not notebooks.has_narrative(assignment, lang):
                path = notebooks.narrative_path(assignment, lang).relative_to(course.course_root())
                log(f"skip {assignment.name}: no narrative in {lang!r} yet ({path})")
                continue
            _sync_folder(course_dir / "source" / assignment.name, source_files(assignment, lang))
            _nbgrader(course_dir, env, "generate_assignment", assignment.name, "--force")
            released.append(assignment.name)
            log(f"{assignment.name}: {_points(assignment):g} points, "
                f"release/{assignment.name}/{notebooks.notebook_name(assignment)}")
    log(f"course in {course_dir} ({lang}); hand out release/")
    return released


def submissions(course_dir: Path) -> dict[str, list[str]]:
    """Assignment -> students with a submission, in course order."""
    root = course_dir / "submitted"
    found: dict[str, list[str]] = {}
    if root.is_dir():
        for student in sorted(p for p in root.iterdir() if p.is_dir()):
            for folder in sorted(p for p in student.iterdir() if p.is_dir()):
                found.setdefault(folder.name, []).append(student.name)
    return found


def read_grades(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def autograde(course_dir: Path, seed: int | None = None, log=print) -> Path:
    """Autograde every submission, write feedback and ``grades.csv``; returns the CSV's path."""
    _require_nbgrader()
    course_dir = course_dir.resolve()
    if not (course_dir / CONFIG).is_file() or not (course_dir / "source").is_dir():
        raise NbgraderError(f"{course_dir} is not a course built by `python -m autograder nbgrader build`")
    found = submissions(course_dir)
    if not found:
        raise NbgraderError(f"nothing to grade: put notebooks in {course_dir / 'submitted'}/<student>/<assignment>/")
    seed = secrets.randbits(31) if seed is None else seed
    log(f"random inputs seed {seed} (replay with --seed {seed})")
    known = [a.name for a in course.ASSIGNMENTS if (course_dir / "release" / a.name).is_dir()]
    for name in sorted(set(found) - set(known)):
        log(f"skip submitted/*/{name}: not an assignment released in this course")
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as tmp:
        env = _kernel_env(Path(tmp), seed)
        graded = [name for name in known if name in found]
        for name in graded:
            log(f"{name}: autograding {len(found[name])} submission(s): {', '.join(found[name])}")
            _nbgrader(course_dir, env, "autograde", name, "--force")
        log("writing feedback")
        _nbgrader(course_dir, env, "generate_feedback", "*", "--force")
        csv_path = course_dir / "grades.csv"
        _nbgrader(course_dir, env, "export", "--to", str(csv_path))
    for row in read_grades(csv_path):
        if row["assignment"] in graded and row["student_id"] in found.get(row["assignment"], []):
            log(f"{row['assignment']}  {row['student_id']}  {float(row['score']):g} / {float(row['max_score']):g}")
    log(f"grades: {csv_path}; feedback: {course_dir / 'feedback'}/<student>/<assignment>/")
    return csv_path
