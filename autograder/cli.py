"""Command line: ``python -m autograder {sync,grade,release,nbgrader} ...``."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path

from . import course
from .authoring import release
from .authoring.sync import SyncRefused, differences, sync
from .grading import reports
from .grading.runner import GradingError, grade_many
from .intake import batch
from .notebooks import nbgrader_autograde, nbgrader_course
from .notebooks.nbgrader_course import NbgraderError
from .notebooks.sources import LANGS, NotebookError
from .platforms import classroom, gradescope, gradescope_try
from .settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT
from .stubs import MarkerError


def _sync(args) -> int:
    src, dst = course.solutions_dir(), course.assignments_dir()
    if args.check:
        problems = differences(src, dst)
        for line in problems:
            print(f"stale assignments/: {line}")
        if problems:
            print("run `python -m autograder sync` to regenerate assignments/ from solutions/")
        return 1 if problems else 0
    try:
        changed = sync(src, dst, force=args.force)
    except SyncRefused as exc:
        print(f"sync: nothing written; these files in {dst} are not as sync wrote them (a student's work?), and "
              "sync would overwrite or remove them:", file=sys.stderr)
        for rel in exc.files:
            print(f"  {rel}", file=sys.stderr)
        print("To keep working on exercises, use a release (python -m autograder release --out ../my-course) and "
              "work there. To discard these changes and regenerate: python -m autograder sync --force",
              file=sys.stderr)
        return 1
    print("\n".join(changed) if changed else "assignments/ is up to date")
    return 0


def _grade(args) -> int:
    grade_many([Path(p) for p in args.path], Path(args.out), seed=args.seed, only=args.only or None,
               isolation=args.isolation, timeout=args.timeout, debug=args.debug, jobs=args.jobs,
               memory_gib=args.memory, budget=args.budget, seeds=args.seeds or [], visibility=args.visibility,
               lang=args.lang)
    return 0


def _grade_class(args) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    roster = Path(args.roster) if args.roster else None
    outcomes = batch.grade_class(Path(args.submissions), Path(args.out), jobs=args.jobs, only=args.only,
                                     seed=seed, force=args.force, roster=roster, group=args.group,
                                     isolation=args.isolation,
                                     timeout=args.timeout, memory_gib=args.memory, budget=args.budget,
                                     seeds=args.seeds or [], visibility=args.visibility, lang=args.lang)
    return 1 if any(o.problem for o in outcomes) else 0


def _gradescope(args) -> int:
    names = gradescope.build(Path(args.out), only=args.only, visibility=args.visibility, memory_gib=args.memory,
                             timeout=args.timeout, budget=args.budget, lang=args.lang)
    print(f"wrote {args.out}: {len(names)} files; upload it as the autograder of a Gradescope programming "
          "assignment (setup.sh and run_autograder at its root)")
    return 0


def _gradescope_run(args) -> int:
    return gradescope.run(Path(args.root))


def _gradescope_try(args) -> int:
    try:
        trial = gradescope_try.run(Path(args.zip), Path(args.submission), keep=Path(args.keep) if args.keep else None,
                                   python=args.python)
    except gradescope_try.TryError as exc:
        print(f"gradescope-try: {exc}", file=sys.stderr)
        return 2
    if args.verbose:
        print(trial.stdout.rstrip())
    print(f"score {trial.score:g} / {trial.max_score:g}  (run_autograder exit {trial.returncode})")
    print(f"results: {trial.results}")
    print(f"the whole folder, laid out as on Gradescope: {trial.results.parent.parent}")
    return 0 if trial.returncode == 0 else 1


def _classroom_instructor(args) -> int:
    written = classroom.write_instructor_files(Path(args.out))
    print("wrote " + ", ".join(written) + f" in {Path(args.out).resolve()}; add the secret CLASSROOM_TOKEN and "
          "your roster, then run 'Grade a class' from the Actions tab")
    return 0


def _seed_list(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seeds separated by commas, e.g. 1,2,3; got {text!r}") from None
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"each seed once, please: {text!r}")
    return seeds


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be a positive {kind.__name__}, got {text!r}")
        return value
    return parse


def _release(args) -> int:
    out = Path(args.out).resolve()
    written = release.build(out, lang=args.lang, classroom=args.classroom, publish_url=args.publish_url)
    print(f"wrote {len(written)} files to {out}; scanned: no solution or grader material")
    if args.publish_url:
        print(f"and {release.zip_path(out)}: publish it (or the release's repository) at {args.publish_url}, "
              "where a notebook opened alone (Colab, Kaggle) fetches its folder in its first cell")
    else:
        print(f"and {release.zip_path(out)}: without --publish-url, a student who opens a notebook alone "
              "(Colab, Kaggle) uploads this zip next to it")
    return 0


def _nbgrader(args) -> int:
    if args.action == "build":
        nbgrader_course.build(Path(args.course), lang=args.lang)
    else:
        nbgrader_autograde.autograde(Path(args.course), seed=args.seed, cell_timeout=args.cell_timeout,
                                     lang=args.report_lang)
    return 0


def _result_options(p: argparse.ArgumentParser) -> None:
    """What is graded, the limits on student code and how results read: shared by `grade`,
    `grade-class` and the `gradescope` zip."""
    p.add_argument("--only", action="append", choices=[a.name for a in course.ASSIGNMENTS],
                   help="grade only this assignment (repeatable; default: all)")
    p.add_argument("--timeout", type=_positive(float), default=DEFAULT_TIMEOUT,
                   help=f"seconds allowed per call into student code (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--memory", type=_positive(float), default=DEFAULT_MEMORY_GIB, metavar="GIB",
                   help="address space allowed to each process of student code, in GiB "
                        f"(default {DEFAULT_MEMORY_GIB:g})")
    p.add_argument("--budget", type=_positive(float), default=DEFAULT_BUDGET, metavar="SECONDS",
                   help="seconds allowed to student code per assignment, worker start-ups and calls together "
                        f"(default {DEFAULT_BUDGET:g})")
    p.add_argument("--visibility", choices=reports.VISIBILITIES, default="visible",
                   help="Gradescope visibility of every graded test in results.json (default: visible; "
                        "after_published or after_due_date hide them until then)")
    p.add_argument("--lang", choices=reports.LANGS, default="both",
                   help="language of the feedback in the results: both (English then Spanish, the default), en or es")


def _grading_options(p: argparse.ArgumentParser) -> None:
    """Options shared by `grade` and `grade-class`."""
    p.add_argument("--seed", type=int, default=None, help="seed of the randomised inputs (default: a new one)")
    p.add_argument("--seeds", type=_seed_list, default=None, metavar="N,N,...",
                   help="run every grader once per seed (to check that a submission's verdict does not depend on "
                        "the seed); results list each test per seed")
    p.add_argument("--isolation", choices=("auto", "namespace", "none"), default="auto",
                   help="run student code in Linux namespaces that hide the course checkout (auto: when available)")
    _result_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Transformer course tooling.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("sync", help="regenerate assignments/ (stubs + public tests) from solutions/")
    p.add_argument("--check", action="store_true", help="only report whether assignments/ is stale (exit 1 if so)")
    p.add_argument("--force", action="store_true", help="overwrite files of assignments/ that were edited since sync "
                   "wrote them (without it, sync refuses and names them)")
    p.set_defaults(func=_sync)

    p = sub.add_parser("grade", help="grade a submission folder laid out like assignments/")
    p.add_argument("path", nargs="+", help="the submission, e.g. a student's assignments/ copy, or solutions; "
                   "several (an instructor's variants): one grading process per assignment serves them all, "
                   "each in its own student process, and OUT/<folder name>/ gets each one's results")
    p.add_argument("--out", default="results", help="folder for results.json (default: results)")
    _grading_options(p)
    p.add_argument("--jobs", type=_positive(int), default=None,
                   help="assignments graded at once (default: one per core, at most 2)")
    p.add_argument("--debug", action="store_true",
                   help="keep the graders' pytest output in OUT/grader-log.txt (instructors only)")
    p.set_defaults(func=_grade)
    p = sub.add_parser("grade-class", help="grade a folder of submissions (one folder, .zip or .bundle per "
                       "student) into per-student results and a class grades.csv")
    p.add_argument("submissions", help="the folder that holds one entry per student")
    p.add_argument("--out", required=True, help="folder for <student>/results.json, grades.csv (and canvas.csv)")
    _grading_options(p)
    p.add_argument("--jobs", type=_positive(int), default=None,
                   help="groups of students graded at once, one core each (default: one per core, at most 2)")
    p.add_argument("--group", type=_positive(int), default=None, metavar="N",
                   help="students per group: one grading process per assignment serves a group, each student "
                        f"in a fresh sandboxed process of their own (default: up to {batch.GROUP}, fewer for a small "
                        "class so that each job gets three groups)")
    p.add_argument("--force", action="store_true", help="regrade students already graded with the same files")
    p.add_argument("--roster", help="CSV with a student column and Canvas's Student, ID, SIS User ID, "
                   "SIS Login ID (Section optional): also write canvas.csv for Canvas's gradebook import")
    p.set_defaults(func=_grade_class)

    p = sub.add_parser("gradescope", help="write a Gradescope autograder zip (setup.sh, run_autograder, graders)")
    p.add_argument("--out", required=True, help="the zip to write, e.g. autograder.zip")
    _result_options(p)
    p.set_defaults(func=_gradescope)
    p = sub.add_parser("gradescope-run", help="what run_autograder runs: grade ROOT/submission into "
                       "ROOT/results/results.json (always written)")
    p.add_argument("--root", default=os.environ.get("GRADESCOPE_ROOT", "/autograder"),
                   help="Gradescope's folder (default: $GRADESCOPE_ROOT or /autograder)")
    p.set_defaults(func=_gradescope_run)
    p = sub.add_parser("gradescope-try", help="grade one submission with a built autograder zip in a folder laid "
                       "out as Gradescope lays it out (source/, submission/, results/); prints the score")
    p.add_argument("zip", help="the autograder zip that `gradescope --out` wrote")
    p.add_argument("submission", help="what a student would upload: a folder, a zip or a notebook (.ipynb)")
    p.add_argument("--keep", help="lay the folder out here (a new folder) instead of a temporary one")
    p.add_argument("--python", default=sys.executable,
                   help="the Python that stands for setup.sh's venv; it needs the requirements (default: this one)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print what run_autograder printed: the seed and each assignment's points (what "
                   "Gradescope shows instructors)")
    p.set_defaults(func=_gradescope_try)

    p = sub.add_parser("release",
                       help="write the student repository (stubs, public tests, data; no solutions or graders)")
    p.add_argument("--out", required=True, help="a new or empty folder, or an earlier release to replace")
    p.add_argument("--lang", choices=LANGS, default="es", help="language of the notebooks in notebooks/ (default: es)")
    p.add_argument("--classroom", action="store_true",
                   help="add .github/workflows/classroom.yml: GitHub Classroom points from the public tests "
                        "on every push")
    p.add_argument("--publish-url", metavar="URL",
                   help="where you will publish the release's zip (OUT.zip, written beside OUT) or its GitHub "
                        "repository (https://github.com/ORG/REPO/archive/refs/heads/main.zip): a notebook opened "
                        "alone (Colab, Kaggle) fetches its folder from there in its first cell; a path or file:// "
                        "URL to try it out locally")
    p.set_defaults(func=_release)
    p = sub.add_parser("classroom-instructor", help="write the instructor's GitHub Actions workflow that grades every "
                       "student repository of an assignment with the hidden graders (a job per student)")
    p.add_argument("--out", default=".", help="root of the instructor's private course repository (default: .)")
    p.set_defaults(func=_classroom_instructor)

    p = sub.add_parser("nbgrader", help="an nbgrader course generated from the single source (build, autograde)")
    actions = p.add_subparsers(dest="action", required=True)
    q = actions.add_parser("build", help="write DIR (nbgrader_config.py, source/) and run nbgrader generate_assignment")
    q.add_argument("--course", required=True, help="the course directory (created if missing)")
    q.add_argument("--lang", choices=LANGS, default="es", help="language of the notebooks (default: es)")
    q.set_defaults(func=_nbgrader)
    q = actions.add_parser("autograde", help="autograde DIR/submitted/, write feedback and DIR/grades.csv")
    q.add_argument("--course", required=True, help="a course directory written by `nbgrader build`")
    q.add_argument("--seed", type=int, default=None,
                   help="seed of the hidden tests' random inputs (default: a new one)")
    q.add_argument("--cell-timeout", type=_positive(int), default=nbgrader_course.CELL_TIMEOUT, metavar="SECONDS",
                   help="how long one cell of a student's notebook may run in nbgrader's kernel before it is "
                        "interrupted; grades never depend on that run "
                        f"(default: {nbgrader_course.CELL_TIMEOUT})")
    q.add_argument("--lang", dest="report_lang", choices=reports.LANGS, default="both",
                   help="language of the class report (class-report.html): both (the default), en or es")
    q.set_defaults(func=_nbgrader)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (GradingError, batch.ClassError, MarkerError, release.ReleaseError, FileNotFoundError,
            NotebookError, NbgraderError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
