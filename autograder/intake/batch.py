"""Grade a whole class: ``python -m autograder grade-class SUBMISSIONS --out DIR``.

Each entry of SUBMISSIONS is one student: a folder, a ``.zip`` or a git bundle
(``.bundle``), named after the student. Each is turned into the module form
(:mod:`~autograder.intake.uploads`) and graded as ``python -m autograder grade`` grades it,
into::

    DIR/<student>/results.json, junit.xml, summary.md (the student's feedback)
    DIR/grades.csv           student, points per assignment, total, status
    DIR/canvas.csv           with --roster: Canvas's gradebook import format
    DIR/class-report.html    what the class got wrong, at a glance (and class-report.json;
                             see :mod:`autograder.classreport`)

Students are graded in groups (``--group``, up to :data:`GROUP`): one grading process per
assignment serves a whole group, each student in a student process (a fresh sandbox) of
their own, as ``grade`` grades several folders (:func:`~autograder.grading.runner.grade_many`):
the same verdicts as grading each alone, without a grading process's start-up (pytest,
torch, the graders' searches for telling inputs) per student. ``--jobs`` groups run at once.
A group whose grading fails as a whole (a grading process that crashed or ran out of time,
a test that failed inside a grader) is graded again one student at a time, so that one
student's failure is only theirs.

A student whose upload fingerprint (a hash of its files) and grading settings match the
ones recorded with their results is skipped, so a run stopped with Ctrl-C resumes where it was (``--force``
regrades everyone). A submission that cannot be graded (empty, broken zip, a grader
failure) gets a results.json with a visible test saying why and 0 points; it never stops
the class run, and the summary lists it.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .. import classreport, course
from ..grading import reports
from ..grading.runner import GradingError, default_jobs, grade, grade_many
from . import gradebook, sources, uploads
from .gradebook import ClassError, Outcome, read_roster

FINGERPRINT = "fingerprint.txt"
# Students per grading process at most. A grading process's start-up (pytest, torch, the
# graders' set-up, a5's searches for telling inputs) cost about 20 CPU-seconds over the six
# assignments (measured on a busy 2-core machine); a group of 8 pays it once for 8, 16 would
# save about 1 s more per student and lose twice the work to Ctrl-C (a group's results are
# written when its last assignment is graded).
GROUP = 8
_NORMALIZE = threading.Lock()


def students(folder: Path) -> list[tuple[str, Path]]:
    """(student, entry) for every folder, .zip or .bundle in ``folder``, sorted by name."""
    if not folder.is_dir():
        raise ClassError(f"{folder} is not a folder of submissions (one sub-folder, .zip or .bundle per student)")
    found = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        if entry.is_dir():
            found.append((entry.name, entry))
        elif entry.suffix in (".zip", ".bundle"):
            found.append((entry.stem, entry))
    names = [name for name, _ in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ClassError(f"two submissions for {', '.join(twice)} (a folder and a .zip?); keep one each")
    return found


def fingerprint(entry: Path) -> str:
    """sha256 over the names and bytes of the regular files of ``entry`` (or its bytes)."""
    digest = hashlib.sha256()
    paths = [entry] if entry.is_file() else sorted(p for p in entry.rglob("*")
                                                   if p.is_file() and not p.is_symlink() and ".git" not in p.parts)
    for path in paths:
        digest.update(str(path.relative_to(entry.parent if entry.is_file() else entry)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def stamp(entry: Path, only: list[str], seed: int, options: dict) -> str:
    """What a student's results were graded from: the upload's fingerprint and the grading
    settings (another seed, assignment list or limit means grading again)."""
    settings = json.dumps({"only": only, "seed": seed, **options}, sort_keys=True, default=str)
    return f"{fingerprint(entry)} {hashlib.sha256(settings.encode()).hexdigest()[:16]}"


def failure_results(message_en: str, message_es: str, seed: int, lang: str = "both") -> dict:
    """A results.json for a submission that could not be graded: one visible test at 0."""
    message = reports.in_language(f"{message_en}\n{message_es}", message_en, message_es, lang)
    return {
        "score": 0,
        "execution_time": 0,
        "output": message,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"seed": seed, "max_score": 0, "graded": False, "problem": message_en},
        "tests": [{"name": "Submission could not be graded / No se pudo calificar la entrega", "number": "0",
                   "score": 0, "max_score": 0, "status": "failed", "output": message,
                   "output_format": "text", "visibility": "visible",
                   "extra_data": {"assignment": "submission", "seed": seed}}],
    }


def grade_upload(src: Path, work: Path, out: Path, *, only: list[str], seed: int, lang: str = "both",
                 **options) -> tuple[dict, str]:
    """Grade what a student handed in (any shape :func:`uploads.normalize` takes, turned into
    the module form under ``work``) into ``out``, as ``python -m autograder grade`` would. An
    upload that cannot be graded gets results with one visible test at 0 saying why.
    Returns the results and that reason ("" when graded)."""
    try:
        upload = _normalize(src, work / "submission", only)
        data = grade(work / "submission", out, seed=seed, only=only, jobs=1, lang=lang, echo=lambda *a, **k: None,
                     **options)
        data["output"] += "\n" + upload.describe()
        problem = ""
    except uploads.UploadError as exc:
        data, problem = failure_results(exc.en, exc.es, seed, lang), exc.en
    except GradingError as exc:
        data, problem = failure_results(f"grading failed: {exc}", f"la calificación falló: {exc}", seed, lang), str(exc)
    reports.write_all(out, data)
    return data, problem


def grade_student(student: str, entry: Path, out: Path, *, only: list[str], seed: int, **options) -> Outcome:
    out.mkdir(parents=True, exist_ok=True)
    (out / FINGERPRINT).unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="course-class-") as tmp:
        data, problem = grade_upload(entry, Path(tmp), out, only=only, seed=seed, **options)
    (out / FINGERPRINT).write_text(stamp(entry, only, seed, options) + "\n", encoding="utf-8")
    return Outcome(student, data, problem)


def _normalize(src: Path, dst: Path, only: list[str]) -> uploads.Upload:
    """``src`` in the module form under ``dst``; an upload with none of the course's modules
    is an :class:`uploads.UploadError`."""
    with _NORMALIZE:  # it parses notebooks, and CPython 3.11's ast.parse is not thread-safe
        upload = uploads.normalize(src, dst)
    if not upload.assignments:
        expected = ", ".join(f"{m}.py" for a in only for m in course.get(a).modules)
        raise uploads.UploadError(f"no module of the course's assignments was found in the upload ({expected})",
                                  "no se encontró ningún módulo de las tareas del curso en la entrega")
    return upload


def group_size(count: int, jobs: int, group: int | None = None) -> int:
    """Students per group for ``count`` students and ``jobs`` groups at once: ``group`` when
    given; otherwise up to :data:`GROUP`, and small enough for three groups per job, so that a
    small class keeps every job busy, reports progress as it goes and loses little to Ctrl-C."""
    if group is not None:
        return max(1, group)
    return max(1, min(GROUP, math.ceil(count / (3 * jobs))))


def split(todo: list, size: int) -> list[list]:
    """``todo`` in as few groups of at most ``size`` as it takes, of sizes that differ by one
    at most: 32 students in groups of up to 6 are four of 5 and two of 6, not five of 6 and one
    of 2, whose small group would leave a core idle while the other job grades six."""
    count = math.ceil(len(todo) / size) if todo else 0
    bounds = [len(todo) * k // count for k in range(count + 1)] if count else [0]
    return [todo[a:b] for a, b in zip(bounds, bounds[1:])]


def grade_group(members: list[tuple[str, Path]], out: Path, *, only: list[str], seed: int,
                stop: threading.Event | None = None, **options) -> list[Outcome]:
    """Grade several students in one grading process per assignment (``grade_many``), each
    into ``out/<student>/`` as :func:`grade_student` would; a group whose grading fails as a
    whole is graded again one student at a time, so that a failure is only its student's.
    Once ``stop`` is set (Ctrl-C) nobody more is graded: the outcomes returned are those of
    the students graded, who may be fewer than ``members``."""
    stop = stop or threading.Event()
    if len(members) == 1:
        student, entry = members[0]
        return [grade_student(student, entry, out / student, only=only, seed=seed, **options)]
    lang = options.get("lang", "both")
    outcomes: dict[str, Outcome] = {}

    def done(student: str, entry: Path, data: dict, problem: str) -> None:
        reports.write_all(out / student, data)
        (out / student / FINGERPRINT).write_text(stamp(entry, only, seed, options) + "\n", encoding="utf-8")
        outcomes[student] = Outcome(student, data, problem)

    with tempfile.TemporaryDirectory(prefix="course-class-") as tmp:
        ready = []  # (student, entry, upload, folder): graded together
        for student, entry in members:
            (out / student).mkdir(parents=True, exist_ok=True)
            (out / student / FINGERPRINT).unlink(missing_ok=True)
            # grade_many names each submission's results folder after its folder: the student's.
            folder = Path(tmp) / str(len(ready)) / student  # a parent each: a zip unpacks beside it
            try:
                ready.append((student, entry, _normalize(entry, folder, only), folder))
            except uploads.UploadError as exc:
                done(student, entry, failure_results(exc.en, exc.es, seed, lang), exc.en)
        graded = None
        if len(ready) > 1:
            try:
                # grade_many hides its ``out`` from student code: here the whole class's results.
                graded = grade_many([folder for *_, folder in ready], out, seed=seed, only=only, jobs=1,
                                    echo=lambda *a, **k: None, **options)
            except GradingError:
                graded = None  # or interrupted: Ctrl-C reaches the grading processes too
        for n, (student, entry, upload, _) in enumerate(ready):
            if graded is None and stop.is_set():
                continue  # no stamp: the next run grades them
            if graded is None:  # one student, or a group that failed as a whole
                outcomes[student] = grade_student(student, entry, out / student, only=only, seed=seed, **options)
            else:
                data = graded[n]
                data["output"] += "\n" + upload.describe()
                done(student, entry, data, "")
    return [outcomes[student] for student, _ in members if student in outcomes]


def _already_graded(student: str, entry: Path, out: Path, expected: str) -> Outcome | None:
    try:
        if (out / FINGERPRINT).read_text(encoding="utf-8").strip() == expected:
            data = reports.read_json(out / "results.json")
            return Outcome(student, data, data["extra_data"].get("problem", ""), skipped=True)
    except (OSError, ValueError, KeyError):
        pass
    return None


def class_report(out: Path, entries: list[tuple[str, Path]], outcomes: list[Outcome], only: list[str], *,
                 echo=print, **run) -> list[Path]:
    """The class report from the results just written (and each upload's code, for the
    similarity check); a failure to write it is said in one line and never loses a grade."""
    students_ = [classreport.Student(o.student, o.data, f"{o.student}/summary.md",
                                     [f"not graded / no calificado: {o.problem}"] if o.problem else [])
                 for o in outcomes]
    try:
        return classreport.write(out, students_, only, run=run, sources=sources.from_uploads(entries, only),
                                 lang=run.get("lang", "both"))
    except Exception as exc:  # the grades are written; the report is a view of them
        echo(f"  class report not written: {type(exc).__name__}: {exc}")
        return []


def grade_class(submissions: Path, out: Path, *, jobs: int | None = None, only: list[str] | None = None,
                seed: int = 0, force: bool = False, roster: Path | None = None, group: int | None = None,
                echo=print, **options) -> list[Outcome]:
    """Grade every student of ``submissions`` into ``out`` (see the module's docstring):
    ``jobs`` groups at once (default: one per core, at most two), each of ``group`` students
    (default: :func:`group_size`)."""
    jobs = jobs or default_jobs()
    entries = students(submissions)
    only = only or [a.name for a in course.ASSIGNMENTS]
    if roster is not None:
        read_roster(roster)  # a broken roster stops the run before any grading
    if not entries:
        raise ClassError(f"{submissions} holds no submissions (one sub-folder, .zip or .bundle per student)")
    out.mkdir(parents=True, exist_ok=True)
    outcomes: dict[str, Outcome] = {}
    todo = []
    for student, entry in entries:
        earlier = None if force else _already_graded(student, entry, out / student,
                                                     stamp(entry, only, seed, options))
        if earlier is not None:
            outcomes[student] = earlier
        else:
            todo.append((student, entry))
    size = group_size(len(todo), jobs, group)
    at_once = max(1, min(jobs, math.ceil(len(todo) / size)))  # no more jobs than groups
    echo(f"Grading {len(entries)} submission(s) from {submissions}, {at_once} group(s) of up to {size} at a time "
         f"(seed {seed})")
    if outcomes:
        echo(f"  {len(outcomes)} already graded with the same files and settings (skipped; --force regrades them)")
    started, lock, done, stop = time.monotonic(), threading.Lock(), [0], threading.Event()

    def some(members: list[tuple[str, Path]]) -> list[Outcome]:
        if stop.is_set():
            return []
        graded = grade_group(members, out, only=only, seed=seed, stop=stop, **options)
        with lock:
            for o in graded:
                done[0] += 1
                spent = time.monotonic() - started
                eta = spent / done[0] * (len(todo) - done[0])
                points = f"{o.data['score']:g}/{o.data['extra_data']['max_score']:g}"
                status = f"not graded: {o.problem}" if o.problem else points
                echo(f"  [{done[0]}/{len(todo)}] {o.student}: {status}  (left about {eta / 60:.0f} min)", flush=True)
        return graded

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(some, members) for members in split(todo, size)]
        for future in as_completed(futures):
            for o in future.result():
                outcomes[o.student] = o
    except KeyboardInterrupt:
        stop.set()  # the groups being graded finish (at exit), and no other starts
        pool.shutdown(wait=False, cancel_futures=True)
        echo(f"\ninterrupted: {len(outcomes)} of {len(entries)} graded; run the same command again to go on")
        raise
    pool.shutdown()
    ordered = [outcomes[student] for student, _ in entries]
    written = gradebook.write(out, ordered, only, roster, echo=echo)
    written += class_report(out, entries, ordered, only, seed=seed, jobs=jobs, echo=echo, **options)
    failed = [o for o in ordered if o.problem]
    echo(f"\n{len(ordered) - len(failed)} graded, {len(failed)} could not be graded; wrote "
         + ", ".join(str(p) for p in written))
    for o in failed:
        echo(f"  {o.student}: {o.problem}")
    return ordered
