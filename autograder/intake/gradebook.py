"""The class gradebook from per-student results: ``grades.csv`` (student, points per
assignment, total, status) and, with a roster, ``canvas.csv`` (Canvas's gradebook import).

``grade-class`` writes both at the end of a run; ``python -m autograder.intake.gradebook
RESULTS [--roster R] [--only A ...]`` writes them from folders of results alone (the last
job of the GitHub Classroom workflow, whose grading jobs each uploaded one student's
folder). Standard library only: that job installs nothing.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import course
from ..grading import reports


class ClassError(Exception):
    """The class run cannot start (no such folder, a broken roster); the message says why."""


@dataclass
class Outcome:
    student: str
    data: dict  # results.json
    problem: str = ""  # why it could not be graded, if so
    skipped: bool = False  # graded by an earlier run with the same files


def _points(data: dict, assignment: str) -> float:
    return sum(t["score"] for t in data["tests"] if t.get("extra_data", {}).get("assignment") == assignment)


def grades_csv(outcomes: list[Outcome], only: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["student", *only, "total", "status"])
    for o in outcomes:
        writer.writerow([o.student, *(f"{_points(o.data, a):g}" for a in only), f"{o.data['score']:g}",
                         f"not graded: {o.problem}" if o.problem else "graded"])
    return buf.getvalue()


ROSTER_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """student (the submission's name) -> Canvas's identifying columns, from a CSV with a
    ``student`` column and Canvas's ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``
    (and optionally ``Section``)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError) as exc:
        raise ClassError(f"cannot read the roster {path}: {exc}") from None
    if not rows:
        raise ClassError(f"the roster {path} has no rows")
    missing = [c for c in ("student", *ROSTER_COLUMNS[:4]) if c not in rows[0]]
    if missing:
        raise ClassError(f"the roster {path} lacks the column(s) {', '.join(missing)} "
                         f"(needed: student, {', '.join(ROSTER_COLUMNS[:4])}; optional: Section)")
    return {row["student"]: {c: row.get(c) or "" for c in ROSTER_COLUMNS} for row in rows}


def canvas_csv(outcomes: list[Outcome], roster: dict[str, dict[str, str]], title: str, max_score: float) -> str:
    """Canvas's gradebook import: its identifying columns, then one column of points, with
    the "Points Possible" row Canvas expects first."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*ROSTER_COLUMNS, title])
    writer.writerow(["Points Possible", "", "", "", "", f"{max_score:g}"])
    for o in outcomes:
        if o.student in roster:
            writer.writerow([*(roster[o.student][c] for c in ROSTER_COLUMNS), f"{o.data['score']:g}"])
    return buf.getvalue()



def collect(results: Path) -> list[Outcome]:
    """An Outcome per ``results/<student>/results.json``, sorted by student."""
    if not results.is_dir():
        raise ClassError(f"{results} is not a folder of per-student results")
    outcomes = []
    for path in sorted(results.glob("*/results.json")):
        try:
            data = reports.read_json(path)
            problem = data["extra_data"].get("problem", "")
        except (OSError, ValueError, KeyError) as exc:
            data, problem = {"score": 0, "tests": [], "extra_data": {"max_score": 0}}, f"unreadable results ({exc})"
        outcomes.append(Outcome(path.parent.name, data, problem))
    if not outcomes:
        raise ClassError(f"{results} holds no <student>/results.json")
    return outcomes


def write(out: Path, outcomes: list[Outcome], only: list[str], roster: Path | None = None, echo=print) -> list[Path]:
    """grades.csv (and canvas.csv with ``roster``) in ``out``; returns the paths written."""
    reports.write_text(out / "grades.csv", grades_csv(outcomes, only))
    written = [out / "grades.csv"]
    if roster is not None:
        names = read_roster(roster)
        best = max((o.data["extra_data"].get("max_score", 0) for o in outcomes if not o.problem), default=0)
        reports.write_text(out / "canvas.csv", canvas_csv(outcomes, names, "Transformer course (autograder)", best))
        written.append(out / "canvas.csv")
        unknown = sorted(o.student for o in outcomes if o.student not in names)
        if unknown:
            echo(f"  not in the roster (left out of canvas.csv): {', '.join(unknown)}")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.intake.gradebook",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="folder of <student>/results.json")
    parser.add_argument("--roster", help="roster CSV (student + Canvas's columns): also write canvas.csv")
    parser.add_argument("--only", action="append", choices=[a.name for a in course.ASSIGNMENTS],
                        help="assignment columns of grades.csv (repeatable; default: all)")
    args = parser.parse_args(argv)
    try:
        outcomes = collect(Path(args.results))
        paths = write(Path(args.results), outcomes, args.only or [a.name for a in course.ASSIGNMENTS],
                      Path(args.roster) if args.roster else None)
    except ClassError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(outcomes)} student(s); wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
