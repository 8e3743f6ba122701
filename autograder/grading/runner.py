"""Grade a submission: ``python -m autograder grade PATH --out DIR``.

For each assignment, the hidden graders run in their own pytest process (the grading
process), which never imports the submission: it sends requests to a separate student
process (``sandbox/process.py``) and checks the plain data that comes back. That process writes
a per-test report; this one merges the reports into ``DIR/results.json`` (Gradescope's
format) and prints a score table. What pytest prints, which can quote grader source, is
never copied into the results.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import course
from ..course import Assignment
from ..sandbox import zygote
from ..sandbox.isolation import hidden_paths, limits_summary, resolve_isolation, worker_env
from ..settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT
from . import console, reports

GRADER_OVERHEAD = 600  # seconds the grading process may take beyond the student's budget
# What the grading process inherits from this one: nothing else (no secrets, no PYTHON*).
KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "HOME", "COURSE_ROOT", "SYSTEMROOT", "COURSE_ZYGOTE")


class GradingError(Exception):
    """Grading itself could not run (bad path, broken grader); one line for the user."""


@dataclass
class AssignmentResult:
    assignment: Assignment
    tests: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""
    missing: bool = False  # the submission has no folder of this assignment
    peak_kib: dict = field(default_factory=dict)  # the worker's peak address space and resident memory
    slowest_call: dict = field(default_factory=dict)  # the answered call closest to its limit: seconds, limit, target

    @property
    def score(self) -> float:
        return sum(t["score"] for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t["max_score"] for t in self.tests)


def check_submission(path: Path, names: list[str]) -> None:
    if not path.exists():
        raise GradingError(f"submission folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise GradingError(f"{str(path)!r} is a file; give the folder that holds {names[0]}/, {names[-1]}/ ...")
    if path.name in course.BY_NAME:
        raise GradingError(f"{str(path)!r} is one assignment; give the folder above it, laid out like assignments/")
    if not any((path / name).is_dir() for name in names):
        raise GradingError(
            f"{str(path)!r} holds none of the course's assignment folders ({', '.join(names)}); "
            "give a folder laid out like assignments/"
        )


def grading_env() -> dict[str, str]:
    """The grading process's environment: a few variables, and no third-party pytest
    plugins (only the course's own, named on the command line)."""
    env = {k: os.environ[k] for k in KEPT_VARIABLES if k in os.environ}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env | zygote.served()


def run_graders(assignment: Assignment, submissions: list[Path], *, seed: int, isolation: str,
                timeout: float, hide: list[Path], memory_gib: float = DEFAULT_MEMORY_GIB,
                budget: float = DEFAULT_BUDGET, seeds: list[int] = (), log=None) -> list[AssignmentResult]:
    """Run one assignment's hidden graders in a fresh grading process, for each submission
    (each with its own student process); one result per submission, in order.

    ``python -I``: neither its working folder (a private one) nor PYTHON* variables reach
    its import path, so no file anybody writes can be imported into it.
    """
    start = time.monotonic()
    limit = len(submissions) * budget + GRADER_OVERHEAD
    with tempfile.TemporaryDirectory(prefix="course-graders-") as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable, "-I", "-m", "pytest", str(course.GRADERS_DIR / assignment.name),
            "-c", str(course.GRADERS_DIR / "pytest.ini"), "--rootdir", str(course.GRADERS_DIR),
            "-p", "autograder.grading.pytest_plugin", "-q", "--no-header", "--assignment", assignment.name,
            "--grade-seed", str(seed), "--grade-report", str(report),
            "--grade-timeout", str(timeout), "--isolation", isolation,
            "--grade-memory", str(memory_gib), "--grade-budget", str(budget),
            "--grade-seeds", ",".join(map(str, seeds)),
        ]
        for submission in submissions:
            cmd += ["--submission", str(submission)]
        for path in hide:
            cmd += ["--hide", str(path)]
        try:
            proc = subprocess.run(cmd, cwd=tmp, env=grading_env(), capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            raise GradingError(f"the graders of {assignment.name} ran past {limit:g} s") from None
        if log is not None:
            log.write(f"===== graders of {assignment.name} (exit {proc.returncode})\n{proc.stdout}{proc.stderr}\n")
        if proc.returncode not in (0, 1) or not report.is_file():
            last = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["no output"]
            raise GradingError(f"the graders of {assignment.name} could not run "
                               f"(pytest exit {proc.returncode}): {last[0]}")
        entries = json.loads(report.read_text(encoding="utf-8"))["submissions"]
    seconds = (time.monotonic() - start) / len(submissions)
    results = []
    for submission, entry in zip(submissions, entries, strict=True):
        result = AssignmentResult(assignment, entry["tests"], seconds, peak_kib=entry.get("worker_peak_kib") or {},
                                  slowest_call=entry.get("slowest_call") or {})
        if not (submission / assignment.name).is_dir():
            result.missing, result.note = True, "missing from the submission / no está en la entrega"
        elif assignment.requires:
            short = ", ".join(name.split("_")[0] for name in assignment.requires)
            result.note = f"with reference {short} / con {short} de referencia"
        results.append(result)
    return results


def results_json(results: list[AssignmentResult], seed: int, isolation: str, seconds: float, *,
                 visibility: str = "visible", seeds: list[int] = (), lang: str = "both") -> dict:
    """The run in Gradescope's format (see :mod:`autograder.grading.reports`)."""
    tests = [reports.test_entry(result.assignment.name, f"{n}.{m}", t, visibility=visibility, seed=seed, lang=lang)
             for n, result in enumerate(results, 1) for m, t in enumerate(result.tests, 1)]
    return {
        "score": sum(r.score for r in results),
        "execution_time": round(seconds, 2),
        "output": reports.in_language(*_run_output(seed, isolation), lang),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"seed": seed, "seeds": list(seeds), "isolation": isolation,
                       "max_score": sum(r.max_score for r in results),
                       "worker_peak_mib": {r.assignment.name: {k: round(v / 1024) for k, v in r.peak_kib.items()}
                                           for r in results if r.peak_kib},
                       "slowest_call": {r.assignment.name: r.slowest_call for r in results if r.slowest_call}},
        "tests": tests,
    }


def _run_output(seed: int, isolation: str) -> tuple[str, str, str]:
    en = (f"Random inputs seed {seed} (replay with --seed {seed}). Student code ran in a separate "
          f"process, isolation: {isolation}.")
    es = (f"Semilla de las entradas aleatorias: {seed}. El código del estudiante se ejecutó en un "
          f"proceso aparte, aislamiento: {isolation}.")
    return f"{en}\n{es}", en, es


def default_jobs() -> int:
    """Assignments graded at once: each grading process is single-threaded work, so one per
    core, at most two (the course's reference machine has two)."""
    return max(1, min(2, os.cpu_count() or 1))


def grade(submission: Path, out: Path, **options) -> dict:
    """Grade ``submission`` into ``out/results.json`` (with ``junit.xml`` and ``summary.md``
    beside it); returns that dict. The options are :func:`grade_many`'s."""
    return grade_many([submission], out, **options)[0]


def grade_many(submissions: list[Path], out: Path, *, seed: int | None = None, only: list[str] | None = None,
               isolation: str = "auto", timeout: float = DEFAULT_TIMEOUT, debug: bool = False,
               jobs: int | None = None, memory_gib: float = DEFAULT_MEMORY_GIB, budget: float = DEFAULT_BUDGET,
               seeds: list[int] = (), visibility: str = "visible", lang: str = "both", echo=print) -> list[dict]:
    """Grade each submission: one alone into ``out/``, several each into ``out/<folder
    name>/``; returns their results.json dicts in order. ``visibility``: Gradescope's for
    every graded test; ``lang``: the feedback's language ("both", "en", "es").

    Several submissions share one grading process per assignment, each with its own student
    process: the same verdicts as grading them one by one, without a grading process's
    start-up per submission (an instructor checking the graders against many variants).

    ``seeds``: run every grader that draws random inputs once per seed, in one grading
    process per assignment (a check that the same code gets the same verdict at every
    seed); each such test appears once per seed in the results.
    """
    started = time.monotonic()
    assignments = [course.get(name) for name in only] if only else list(course.ASSIGNMENTS)
    submissions = [path.resolve() for path in submissions]
    for submission in submissions:
        check_submission(submission, [a.name for a in course.ASSIGNMENTS])
    several = len(submissions) > 1
    names = [path.name for path in submissions]
    if len(set(names)) < len(names):
        raise GradingError("the submissions' folder names must differ: each names its results folder under --out")
    try:
        isolation = resolve_isolation(isolation)
    except (ValueError, RuntimeError) as exc:
        raise GradingError(str(exc)) from None
    seed = secrets.randbelow(2**31) if seed is None else seed
    if isolation == "namespace":
        zygote.serve(worker_env(isolation))  # one zygote for all the grading processes below
    out.mkdir(parents=True, exist_ok=True)
    hide = hidden_paths([out.resolve()])
    what = f"{len(submissions)} submissions" if several else str(submissions[0])
    echo(f"Grading {what} (seed {seed}, student code isolation: {isolation})")
    if isolation == "none":
        echo("warning: no namespace sandbox on this machine; student code can read files by absolute path")
    echo("  limits on student code: " + "; ".join(limits_summary(isolation, memory_gib, budget)))
    jobs = jobs or default_jobs()
    logs = {a.name: io.StringIO() for a in assignments} if debug else {}
    echo(f"  grading {len(assignments)} assignment(s), {jobs} at a time")

    def run(a: Assignment) -> list[AssignmentResult]:
        results = run_graders(a, submissions, seed=seed, isolation=isolation, timeout=timeout, hide=hide,
                              memory_gib=memory_gib, budget=budget, seeds=seeds, log=logs.get(a.name))
        if several:
            echo(f"  {a.name}: {len(results)} submissions in {sum(r.seconds for r in results):.1f} s", flush=True)
        else:
            echo(f"  {a.name}: {results[0].score:g}/{results[0].max_score:g} in {results[0].seconds:.1f} s",
                 flush=True)
        return results

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        by_assignment = list(pool.map(run, assignments))  # course order, whatever finishes first
    if debug:
        (out / "grader-log.txt").write_text("".join(log.getvalue() for log in logs.values()), encoding="utf-8")
    seconds = (time.monotonic() - started) / len(submissions)
    graded = []
    for i, submission in enumerate(submissions):
        results = [per_submission[i] for per_submission in by_assignment]
        data = results_json(results, seed, isolation, seconds, visibility=visibility, seeds=seeds, lang=lang)
        folder = out / submission.name if several else out
        folder.mkdir(exist_ok=True)
        reports.write_all(folder, data)
        graded.append(data)
        if several:
            echo(f"  {submission.name}: " + ", ".join(
                f"{r.assignment.name.split('_')[0]} {r.score:g}/{r.max_score:g}" for r in results))
        else:
            console.report(results, out, data, memory_gib, lang, echo)
    if several:
        echo(f"\nResults: {out}/<submission>/results.json ({time.monotonic() - started:.1f} s)")
    internal = sum(t["internal_error"] for per_submission in by_assignment for r in per_submission for t in r.tests)
    if internal:
        raise GradingError(f"{internal} test(s) failed inside the grader itself, not the submission; see the results")
    return graded
