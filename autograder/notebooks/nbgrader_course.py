"""An nbgrader course generated from the single source.

``python -m autograder nbgrader build --course DIR [--lang es|en]`` writes the course
directory nbgrader expects::

    DIR/nbgrader_config.py                      (written by build, rewritten every time)
    DIR/source/<assignment>/<assignment>.ipynb  (generated from solutions/, see build.py)
    DIR/source/<assignment>/<data files>        (source_data/<assignment>/)
    DIR/release/<assignment>/...                (nbgrader generate_assignment: hand this out)
    DIR/gradebook.db                            (nbgrader's sqlite gradebook)

and runs the real ``nbgrader generate_assignment`` for every assignment. Re-running it
regenerates ``source/`` and ``release/`` and leaves ``submitted/``, ``autograded/``,
``feedback/`` and the gradebook alone.

Grading that course is :mod:`.nbgrader_autograde`. Both shell out to the nbgrader of this
interpreter (``python -m nbgrader``); notebooks run on a ``python3`` kernel of this
interpreter, where torch and the course's other requirements are installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import course
from ..filetree import mirror
from ..settings import thread_env
from . import build as notebooks
from . import sources
from .files import notebook_files

CONFIG = "nbgrader_config.py"
CONFIG_MARK = "# Written by `python -m autograder nbgrader build`"
# Seconds a cell may run in nbgrader's kernel when autograding (then it is interrupted and
# the next cell runs). Grades come from the sandbox, so this only bounds the instructor's wait.
CELL_TIMEOUT = 60
STEP_TIMEOUT = 3600  # seconds for one nbgrader command
COURSE_ID = "transformer-course"
# How nbgrader names a submission it could not run ("There was an error processing assignment
# 'a1_attention' for student 'ana'"): a kernel that died or a cell that outlasted its timeout.
_FAILED_STUDENT = re.compile(r"error processing assignment '[^']*' for student '([^']+)'")

CONFIG_TEXT = f'''{CONFIG_MARK}; every build rewrites it.
# Assignments come from the course's single source: edit solutions/<assignment>/ and the
# narratives there, then build again.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "{COURSE_ID}"

# Seconds a cell may run in nbgrader's kernel (autograde passes its --cell-timeout).
c.Execute.timeout = {CELL_TIMEOUT}

# Feedback: nbgrader 0.9.6 copies the autograded notebook, hidden tests included, into the
# feedback HTML. Remove the hidden test regions there too; the output of a failed hidden
# cell is its grader's message only (autograder.notebooks.sandboxed).
c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, ClearHiddenTests]
'''


class NbgraderError(Exception):
    """A step of the nbgrader workflow could not run; the message is for the instructor."""


def require_nbgrader() -> None:
    for module in ("nbgrader", "ipykernel"):
        if importlib.util.find_spec(module) is None:
            raise NbgraderError(
                f"{module} is not installed in this Python ({sys.executable}); "
                f"install the course with `pip install -c constraints.txt -e .` (it pins nbgrader==0.9.6)"
            )


def kernel_env(tmp: Path) -> dict:
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
    for name, value in thread_env().items():  # as in the module form's workers
        env.setdefault(name, value)
    return env


def run_nbgrader(course_dir: Path, env: dict, *args: str, failed_students: list[str] | None = None) -> str:
    """Run one nbgrader command; raise :class:`NbgraderError` if it fails. With
    ``failed_students`` (a list to fill), a failure that nbgrader attributes to some
    students only (their notebook stopped its kernel or outlasted the cell timeout) fills
    it with their ids instead of raising."""
    command = "nbgrader " + " ".join(args)
    try:
        proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, env=env,
                              capture_output=True, text=True, timeout=STEP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise NbgraderError(f"`{command}` ran past {STEP_TIMEOUT} s") from None
    output = (proc.stdout + proc.stderr).strip()
    failed = proc.returncode != 0 or "[ERROR]" in output or "| ERROR]" in output
    students = sorted(set(_FAILED_STUDENT.findall(output)))
    if failed and failed_students is not None and students:
        failed_students += students
    elif failed:
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


def source_files(assignment: course.Assignment, lang: str) -> dict[Path, bytes]:
    """``source/<assignment>/`` of a course in ``lang``: the notebook, its data files and its self-check."""
    import nbformat

    nb = notebooks.build(assignment, lang)
    files = {Path(sources.notebook_name(assignment)): (nbformat.writes(nb) + "\n").encode("utf-8")}
    return files | notebook_files(assignment)


def _points(assignment: course.Assignment) -> float:
    return sum(t.points for t in notebooks.grader_tests(assignment).values())


def _manual_points(path: Path) -> float:
    """The points of the written answers (manually graded Markdown cells) of the notebook at ``path``."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return sum(float(meta.get("points", 0)) for cell in nb["cells"]
               if cell["cell_type"] == "markdown" and (meta := cell["metadata"].get("nbgrader", {})).get("grade"))


def build(course_dir: Path, lang: str = "es", log=print) -> list[str]:
    """Write the course and release every assignment; returns the assignments released."""
    require_nbgrader()
    if lang not in sources.LANGS:
        raise NbgraderError(f"unknown language {lang!r}; choose one of {', '.join(sources.LANGS)}")
    course_dir = course_dir.resolve()
    root = course.course_root()
    if course_dir == root or root in course_dir.parents:
        raise NbgraderError(f"{course_dir} is inside the course checkout ({root}); write the nbgrader course "
                            "outside it, e.g. --course ../nbgrader-course")
    if course_dir.exists() and not course_dir.is_dir():
        raise NbgraderError(f"{course_dir} is a file; give a folder for the course")
    course_dir.mkdir(parents=True, exist_ok=True)
    _write_config(course_dir)
    released = []
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as tmp:
        env = kernel_env(Path(tmp))
        for assignment in course.ASSIGNMENTS:
            if not sources.has_narrative(assignment, lang):
                path = sources.narrative_path(assignment, lang).relative_to(course.course_root())
                log(f"skip {assignment.name}: no narrative in {lang!r} yet ({path})")
                continue
            mirror(course_dir / "source" / assignment.name, source_files(assignment, lang))
            run_nbgrader(course_dir, env, "generate_assignment", assignment.name, "--force")
            released.append(assignment.name)
            manual = _manual_points(course_dir / "source" / assignment.name / sources.notebook_name(assignment))
            log(f"{assignment.name}: {_points(assignment):g} points"
                + (f" (+ {manual:g} for written answers, graded by hand)" if manual else "")
                + f", release/{assignment.name}/{sources.notebook_name(assignment)}")
    log(f"course in {course_dir} ({lang}); hand out release/")
    return released
