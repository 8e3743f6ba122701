"""GitHub Classroom: the student repository's autograding workflow (``release --classroom``)
and the instructor's class-grading workflow.

Students' repositories hold the public tests only, so the workflow that runs on every
push (``.github/workflows/classroom.yml``) reports their points: one step per assignment
runs ``.github/classroom/points.py`` (1 point per public test, partial credit per test)
and GitHub Classroom's reporter (``classroom-resources/autograding-grading-reporter``)
adds them up. The hidden graders never go there: the instructor grades from a private
copy of this checkout with ``grade-class.yml`` (copied by ``python -m autograder
classroom-instructor``): a job matrix, one job per student repository (``max-parallel``
jobs at once), each cloning that repository and running ``grade-class`` on it; a last job
collects the artifacts into ``grades.csv`` (and ``canvas.csv`` with a roster).

This module imports nothing heavy: the instructor workflow's first job runs
``python -m autograder.platforms.classroom matrix`` before anything is installed.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

FILES = Path(__file__).with_name("classroom_files")
POINTS_SCRIPT = ".github/classroom/points.py"
STUDENT_WORKFLOW = ".github/workflows/classroom.yml"
INSTRUCTOR_WORKFLOW = "grade-class.yml"
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
_GITHUB_USER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")


def public_test_counts(release: Path, assignments: list[str]) -> dict[str, int]:
    """assignment -> number of public tests pytest collects in the release (the stubs import
    fine, so collection never depends on a solution)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "assignments"], cwd=release, capture_output=True, text=True, timeout=600)
    counts = dict.fromkeys(assignments, 0)
    for line in proc.stdout.splitlines():
        parts = line.split("/")
        if len(parts) > 2 and parts[0] == "assignments" and parts[1] in counts and "::" in line:
            counts[parts[1]] += 1
    empty = [a for a, n in counts.items() if not n]
    if proc.returncode != 0 or empty:
        raise RuntimeError(f"could not count the public tests of {', '.join(empty) or 'the release'}:\n"
                           + proc.stdout[-2000:] + proc.stderr[-2000:])
    return counts


def student_workflow(counts: dict[str, int], python: str = "3.11") -> str:
    """``classroom.yml``: install, one points step per assignment, the reporter."""
    steps = []
    for name, count in counts.items():
        steps.append(f"""      - name: {name} ({count} public tests)
        id: {name}
        run: python {POINTS_SCRIPT} {name} --max-score {count}
""")
    env = "".join(f"          {name.upper()}_RESULTS: ${{{{ steps.{name}.outputs.result }}}}\n" for name in counts)
    return f"""# Written by `python -m autograder release --classroom`. On every push, the public tests of
# each assignment give 1 point each; GitHub Classroom shows the sum. This is feedback, not the
# grade: the instructor grades with hidden graders that are not in this repository.
# En cada push, cada prueba pública da 1 punto; la nota la ponen correctores ocultos.
name: Autograding Tests
"on":
  push:
  workflow_dispatch:
  repository_dispatch:
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    # The reporter looks for the check run called "Autograding Tests".
    name: Autograding Tests
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 45
    steps:
      - name: Check out
        uses: actions/checkout@v4
        with:
          persist-credentials: false
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "{python}"
          cache: pip
      - name: Install (CPU torch)
        run: python -m pip install -r requirements.txt -c constraints.txt --extra-index-url {CPU_WHEELS}
{"".join(steps)}      - name: Autograding reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}        with:
          runners: {",".join(counts)}
"""


def write_student_files(release: Path, assignments: list[str]) -> list[str]:
    """The workflow and its points script, in a written release; returns their paths."""
    (release / POINTS_SCRIPT).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FILES / "points.py", release / POINTS_SCRIPT)
    (release / STUDENT_WORKFLOW).parent.mkdir(parents=True, exist_ok=True)
    (release / STUDENT_WORKFLOW).write_text(student_workflow(public_test_counts(release, assignments)),
                                            encoding="utf-8")
    return [POINTS_SCRIPT, STUDENT_WORKFLOW]


def write_instructor_files(out: Path) -> list[str]:
    """``.github/workflows/grade-class.yml`` and an example roster, in ``out`` (the root of
    the instructor's private copy of this checkout)."""
    written = []
    target = out / ".github" / "workflows" / INSTRUCTOR_WORKFLOW
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FILES / INSTRUCTOR_WORKFLOW, target)
    written.append(str(target.relative_to(out)))
    roster = out / "classroom" / "roster.csv"
    if not roster.exists():
        roster.parent.mkdir(parents=True, exist_ok=True)
        roster.write_text("student,Student,ID,SIS User ID,SIS Login ID,Section\n"
                          "octocat,\"Cat, Octo\",1001,S1001,octo@example.edu,A\n", encoding="utf-8")
        written.append(str(roster.relative_to(out)))
    return written


def roster_students(path: Path) -> list[str]:
    """The ``student`` column (GitHub user names) of a roster CSV, checked."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        raise SystemExit(f"cannot read the roster {path}: {exc}") from None
    if not rows or "student" not in rows[0]:
        raise SystemExit(f"the roster {path} needs a 'student' column of GitHub user names")
    names = [row["student"].strip() for row in rows]
    bad = [n for n in names if not _GITHUB_USER.fullmatch(n)]
    if bad:
        raise SystemExit(f"the roster {path} has names that are not GitHub user names: {', '.join(bad[:5])}")
    return list(dict.fromkeys(names))


def main(argv: list[str] | None = None) -> int:
    """``matrix ROSTER``: the GitHub Actions output line ``students=[...]`` for the job matrix."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] != "matrix":
        print("usage: python -m autograder.platforms.classroom matrix ROSTER.csv", file=sys.stderr)
        return 2
    print("students=" + json.dumps(roster_students(Path(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
