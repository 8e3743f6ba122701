"""Grading an nbgrader course (:mod:`.nbgrader_course`) from the sandbox.

``python -m autograder nbgrader autograde --course DIR`` grades everything under
``DIR/submitted/<student>/<assignment>/<assignment>.ipynb`` with ``nbgrader autograde``
(students are added to the gradebook as they are found), writes per-student feedback
with ``nbgrader generate_feedback`` and the grade table with ``nbgrader export``
(``DIR/grades.csv``, plus a ``note`` column), and the class report beside it
(``DIR/class-report.html``, :mod:`autograder.classreport`).

Verdicts come from the sandbox (:mod:`.sandboxed`): nbgrader still runs every notebook,
so the student's outputs and the instructor's view are nbgrader's, but each submitted
notebook is also turned into the module form (:mod:`.extract`) and graded like ``python -m
autograder grade`` grades modules (same graders, seed, prerequisites, sandbox), before any
student's kernel runs. Once every kernel has run, those scores replace whatever the kernels
gave in the gradebook, for every test cell, and each
hidden test cell of the autograded notebook (hence the feedback page) shows its grader's
bilingual message. What the conversion left out (an edited given-code cell, a cell that
does not parse) is printed and goes to ``grades.csv``'s ``note``.

Written answers (manually graded Markdown cells) are left to the instructor: their
gradebook rows follow nbgrader's rule (0 for an answer left as released, else "needs
manual grade"), read from the handed-in notebook before any kernel runs, with the manual
scores given in an earlier run kept (:func:`.sandboxed.write_gradebook`). ``grades.csv``
is nbgrader's export: its ``max_score`` counts those points, its ``score`` the ones graded
so far; the printed line says how many points still wait for formgrader.

Refused notebooks: nbgrader still runs a notebook's cells in a kernel, and that run makes
the outputs and feedback, so before grading every submitted notebook is scanned
(:mod:`autograder.notebooks.scan`) for code that tampers with that kernel (an IPython input
transformer, a patched ``torch``, an import of ``autograder``, magics...). ``submitted/``
is never modified: nbgrader reads a staging copy (``DIR/.autograde-staging/submitted/``,
removed afterwards) holding, per submission, the notebook and its ``timestamp.txt`` only (a
``.py`` file or a package handed in next to the notebook would be importable from the
kernel, shadowing what it imports). For a refused notebook that copy is the released
notebook with every exercise cell replaced by one that raises the refusal, so none of the
student's code runs; its grades are set to 0 in the gradebook and every hidden test cell
shows the refusal. The printed line, ``grades.csv`` (``note``) and the feedback say why, in
English and Spanish.

Over 350 lines: one command's steps in order (stage, scan, grade, autograde, scores, feedback, export).
"""

from __future__ import annotations

import csv
import json
import secrets
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import classreport, course
from ..grading.runner import default_jobs
from . import extract, sandboxed, scan, selfcheck, sources
from .nbgrader_course import CELL_TIMEOUT, CONFIG, COURSE_ID, NbgraderError, kernel_env, require_nbgrader, run_nbgrader

STAGING = ".autograde-staging"  # DIR/STAGING/submitted: what `nbgrader autograde` reads
NOTE = "note"  # the column grades.csv gets: why a submission was refused
MAX_LISTED = 10


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


def _not_run_notebook(nb: dict, trusted: frozenset[str], cell_timeout: int) -> dict:
    """``nb`` with every cell the build did not lock turned into comments: shown in the
    feedback as written, never run again."""
    header = [f"# Not run: this notebook did not finish in nbgrader's kernel (a cell ran past {cell_timeout} s,",
              "# or the kernel stopped). Your code below is graded in the sandbox, as for everyone.",
              f"# No ejecutado: el cuaderno no terminó en el kernel de nbgrader (una celda pasó de {cell_timeout} s",
              "# o el kernel se detuvo). Tu código se califica en el sandbox, como el de todos."]
    return _replace_student_cells(nb, trusted, lambda source: "\n".join(
        header + ["# " + line for line in source.split("\n")]))


def _replace_student_cells(nb: dict, trusted: frozenset[str], replace) -> dict:
    """A copy of ``nb`` whose code cells the build did not write (the student's) hold
    ``replace(their source)``, without outputs."""
    nb = json.loads(json.dumps(nb))
    for cell in nb.get("cells", []):
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "code" and scan.normalize(source) not in trusted:
            cell.update(source=replace(source), outputs=[], execution_count=None)
    return nb


def _refused_notebook(release: dict, trusted: frozenset[str], message: str) -> dict:
    """The released notebook with every cell the build did not lock (the exercise cells)
    replaced by one that raises ``message``; nbgrader restores the locked cells (hidden
    tests included)."""
    stub = "\n".join([
        "# Not run: this notebook was refused before grading.",
        "# No ejecutado: este cuaderno se rechazó antes de corregirlo.",
        f"{scan.REFUSED_NAME} = {message!r}",
        f"raise RuntimeError({scan.REFUSED_NAME})",
    ])
    return _replace_student_cells(release, trusted, lambda source: stub)


def _built(course_dir: Path, assignment: course.Assignment) -> tuple[dict, frozenset[str]]:
    """The released notebook, and the cell sources the build wrote (source and release):
    what a submitted notebook may hold without being the student's own code."""
    notebook = sources.notebook_name(assignment)
    builds = [scan.read_notebook(course_dir / folder / assignment.name / notebook) for folder in ("source", "release")]
    if builds[1] is None:
        raise NbgraderError(f"{course_dir / 'release' / assignment.name / notebook} cannot be read; run build again")
    return builds[1], scan.trusted_sources(*[nb for nb in builds if nb is not None])


def _stage(course_dir: Path, assignment: course.Assignment, students: list[str], log) -> dict[str, str]:
    """Write ``STAGING/submitted/<student>/<assignment>/`` for ``students``: the notebook
    (or, for a refused one, the refusal notebook) and ``timestamp.txt``. Returns the
    refused students and why."""
    name, notebook = assignment.name, sources.notebook_name(assignment)
    release, trusted = _built(course_dir, assignment)
    given = {p.name for p in (course_dir / "source" / name).iterdir()}
    refused = {}
    for student in students:
        folder = course_dir / "submitted" / student / name
        target = course_dir / STAGING / "submitted" / student / name
        path = folder / notebook
        if not path.is_file():
            log(f"{name}  {student}: skipped, no {notebook} in {folder}")
            continue
        target.mkdir(parents=True)
        extra = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                       if p.name not in given | {"timestamp.txt", ".ipynb_checkpoints", "__pycache__", "feedback"})
        if extra:
            listed = ", ".join(extra[:MAX_LISTED])
            if len(extra) > MAX_LISTED:
                listed += f" (+{len(extra) - MAX_LISTED})"
            log(f"{name}  {student}: only {notebook} is graded; not given to the kernel: {listed}")
        if (folder / "timestamp.txt").is_file():
            (target / "timestamp.txt").write_bytes((folder / "timestamp.txt").read_bytes())
        findings = scan.scan_file(path, trusted)
        if not findings:
            (target / notebook).write_bytes(path.read_bytes())
            continue
        refused[student] = scan.refusal(findings)
        log(f"{name}  {student}: {refused[student]}")
        shown = path.relative_to(course_dir).as_posix()
        for finding in findings[:MAX_LISTED]:
            log(f"    {shown}:{finding}")
        if len(findings) > MAX_LISTED:
            log(f"    ... {len(findings) - MAX_LISTED} more")
        nb = _refused_notebook(release, trusted, refused[student])
        (target / notebook).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return refused


def _autograde_kernels(course_dir: Path, env: dict, assignment: course.Assignment, cell_timeout: int,
                       verdicts: dict[str, tuple[dict, list[str]]], log) -> None:
    """``nbgrader autograde`` on the staged notebooks. One whose kernel died or outlasted
    the cell timeout (nbgrader then drops it) is run again as its not-run copy, with a note
    in its verdicts; the other students are never held up by it."""
    args = ["autograde", assignment.name, "--force", f"--Execute.timeout={cell_timeout}",
            f"--CourseDirectory.submitted_directory={STAGING}/submitted"]
    failed: list[str] = []
    run_nbgrader(course_dir, env, *args, failed_students=failed)
    if not failed:
        return
    notebook = sources.notebook_name(assignment)
    _, trusted = _built(course_dir, assignment)
    en = (f"the notebook did not finish in nbgrader's kernel (a cell ran past {cell_timeout} s or the kernel "
          "stopped): it is shown without running it, graded in the sandbox as always")
    es = (f"el cuaderno no terminó en el kernel de nbgrader (una celda pasó de {cell_timeout} s o el kernel se "
          "detuvo): se muestra sin ejecutar y se califica en el sandbox como siempre")
    for student in failed:
        staged = course_dir / STAGING / "submitted" / student / assignment.name / notebook
        if student not in verdicts or not staged.is_file():
            raise NbgraderError(f"`nbgrader autograde` failed on {student!r}, which was not staged for grading")
        log(f"{assignment.name}  {student}: {en}")
        nb = _not_run_notebook(json.loads(staged.read_text(encoding="utf-8")), trusted, cell_timeout)
        staged.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        run_nbgrader(course_dir, env, *args, f"--student={student}")
        verdicts[student][1].append(f"{en} / {es}")


def _record_refusals(course_dir: Path, assignment: course.Assignment, refused: dict[str, str]) -> None:
    """Every grade of these submissions 0 (as nbgrader does for a missing notebook), and each
    test cell of their autograded notebooks showing the refusal."""
    if not refused:
        return
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", COURSE_ID) as gb:
        for student, message in refused.items():
            autograded = sandboxed.autograded_notebook(course_dir, student, assignment)
            cells = sandboxed.refusal_verdicts(autograded, message) if autograded.is_file() else {}
            try:
                sandboxed.write_gradebook(gb, assignment.name, student, cells)  # a cell without a verdict gets 0
            except MissingEntry:
                raise NbgraderError(f"`nbgrader autograde` recorded no submission of {assignment.name} "
                                    f"by {student}") from None
            if autograded.is_file():
                sandboxed.rewrite_outputs(autograded, cells, [])


def _sandbox_grades(course_dir: Path, assignment: course.Assignment, students: list[str],
                    seed: int, keep: dict | None = None) -> dict[str, tuple[dict, list[str]]]:
    """student -> (hidden test cell -> verdict, the conversion's notes): each submitted
    notebook in module form, graded in the sandbox (:mod:`.sandboxed`). Run before any
    student's kernel, so no notebook run by nbgrader can touch what is graded or how.
    ``keep`` gets student -> (results, module form) for the class report."""
    notebook = sources.notebook_name(assignment)
    converted = {}  # student -> (module files, notes); ast.parse is run in this thread only
    for student in students:
        path = course_dir / "submitted" / student / assignment.name / notebook
        if path.is_file():
            try:
                result = extract.module_form(extract.read(path.read_bytes(), path.name), assignment)
                converted[student] = (result.modules, result.notes)
            except extract.NotebookUploadError as exc:
                converted[student] = ({}, [str(exc)])

    found = {student: ({}, conversion) for student, (modules, conversion) in converted.items() if not modules}
    graded = [student for student in converted if student not in found]
    # One grading process per share of the students (each with a student process), a share per core.
    shares = max(1, min(default_jobs(), len(graded)))

    def share(part: list[str]) -> list[tuple[str, dict]]:
        return list(zip(part, sandboxed.grade_modules([converted[s][0] for s in part], assignment, seed)))

    with ThreadPoolExecutor(max_workers=shares) as pool:
        for part in pool.map(share, [graded[i::shares] for i in range(shares)] if graded else []):
            found.update({student: (sandboxed.verdicts(data), converted[student][1]) for student, data in part})
            if keep is not None:
                keep.update({student: (data, converted[student][0]) for student, data in part})
    return {student: found[student] for student in converted}


def _answers(course_dir: Path, assignment: course.Assignment, students: list[str]) -> dict[str, set[str]]:
    """student -> the written answers their handed-in notebook changed from the release
    (read from submitted/, before any kernel runs)."""
    release, _ = _built(course_dir, assignment)
    found = {}
    for student in students:
        path = course_dir / "submitted" / student / assignment.name / sources.notebook_name(assignment)
        submitted = scan.read_notebook(path) if path.is_file() else None
        found[student] = sandboxed.answers_given(submitted or {}, release)
    return found


def _instructor_marks(course_dir: Path, assignment: course.Assignment, students: list[str]) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", COURSE_ID) as gb:
        return sandboxed.instructor_marks(gb, assignment.name, students)


def _record_verdicts(course_dir: Path, assignment: course.Assignment, graded: dict[str, tuple[dict, list[str]]],
                     seed: int, log, answered: dict[str, set[str]] | None = None,
                     marks: dict | None = None) -> dict[tuple[str, str], str]:
    """Write the sandbox's verdicts into the gradebook and the autograded notebooks (after
    every kernel has run), and the written answers' rows (``answered``: student -> the
    answers they gave; ``marks``: the instructor's earlier manual scores); returns notes
    for grades.csv (what a conversion left out)."""
    from nbgrader.api import Gradebook, MissingEntry

    notes = {}
    answered, marks = answered or {}, marks or {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", COURSE_ID) as gb:
        for student, (cells, conversion) in graded.items():
            try:
                missing = sandboxed.write_gradebook(gb, assignment.name, student, cells,
                                                    answered.get(student, set()), marks.get(student))
            except MissingEntry:
                log(f"{assignment.name}  {student}: nbgrader recorded no submission; not graded")
                continue
            if conversion:
                notes[(assignment.name, student)] = "; ".join(conversion)
            if not cells:  # the notebook could not be read: nothing of it is graded
                log(f"{assignment.name}  {student}: {'; '.join(conversion)}; 0 points")
                continue
            if missing:
                raise NbgraderError(f"{assignment.name}: no grader for the test cells {', '.join(missing)}; "
                                    "rebuild the course (`nbgrader build`)")
            autograded = sandboxed.autograded_notebook(course_dir, student, assignment)
            if autograded.is_file():
                sandboxed.rewrite_outputs(autograded, cells, conversion, seed)
            log(f"{assignment.name}  {student}: graded in the sandbox, {sum(c.score for c in cells.values()):g} / "
                f"{sum(c.max_score for c in cells.values()):g}")
    return notes


def _add_notes(csv_path: Path, notes: dict[tuple[str, str], str]) -> None:
    rows = read_grades(csv_path)
    fields = list(rows[0]) if rows else ["assignment", "student_id", "score", "max_score"]
    if NOTE not in fields:
        fields.append(NOTE)
    for row in rows:
        row[NOTE] = notes.get((row.get("assignment"), row.get("student_id")), "")
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def _pending_manual(course_dir: Path, found: dict[str, list[str]]) -> dict[tuple[str, str], float]:
    """(assignment, student) -> points of written answers that wait for the instructor."""
    from nbgrader.api import Gradebook, MissingEntry

    pending = {}
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", COURSE_ID) as gb:
        for name, students in found.items():
            for student in students:
                try:
                    pending[(name, student)] = sandboxed.pending_manual(gb, name, student)
                except MissingEntry:
                    continue
    return pending


def class_report(course_dir: Path, graded: dict[str, dict], notes: dict[tuple[str, str], str],
                 refused: dict[str, dict[str, str]], run: dict, lang: str, log) -> list[Path]:
    """``class-report.html`` beside grades.csv, from the sandbox's results (``graded``:
    assignment -> student -> (results, module form)); a refused submission counts 0 there,
    as in the gradebook. A failure to write it is said in one line, never loses a grade."""
    data: dict[str, dict] = {}
    code: dict[str, dict] = {}
    for name, per_student in graded.items():
        notebook = sources.notebook_name(course.get(name))
        for student, (results, modules) in per_student.items():
            tests = results["tests"]
            if student in refused.get(name, {}):
                tests = [{**t, "score": 0, "status": "failed", "output": refused[name][student]} for t in tests]
            else:
                code.setdefault(student, {})[name] = {Path(m).stem: text for m, text in modules.items()}
            entry = data.setdefault(student, {"score": 0, "tests": [], "extra_data": {"seed": run.get("seed")},
                                              "feedback": f"feedback/{student}/{name}/{Path(notebook).stem}.html"})
            entry["tests"] += tests
            entry["score"] += sum(t["score"] for t in tests)
    students = [classreport.Student(s, d, d.pop("feedback"), [f"{a}: {n}" for (a, who), n in sorted(notes.items())
                                                              if who == s]) for s, d in sorted(data.items())]
    try:
        return classreport.write(course_dir, students, [a.name for a in course.ASSIGNMENTS if a.name in graded],
                                 run=run, sources=code, lang=lang)
    except Exception as exc:  # the grades are written; the report is a view of them
        log(f"class report not written: {type(exc).__name__}: {exc}")
        return []


def autograde(course_dir: Path, seed: int | None = None, log=print, cell_timeout: int = CELL_TIMEOUT,
              lang: str = "both") -> Path:
    """Autograde every submission, write feedback and ``grades.csv`` (and the class report,
    in ``lang``, beside it); returns the CSV's path."""
    require_nbgrader()
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
    notes: dict[tuple[str, str], str] = {}
    staging = course_dir / STAGING
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as tmp:
        env = kernel_env(Path(tmp)) | {selfcheck.SKIP_VARIABLE: "off"}  # grades never come from kernels
        graded = [name for name in known if name in found]
        verdicts, kept, answered, marks = {}, {}, {}, {}
        for name in graded:
            log(f"{name}: grading {len(found[name])} notebook(s) in the sandbox")
            kept[name] = {}
            verdicts[name] = _sandbox_grades(course_dir, course.get(name), found[name], seed, kept[name])
            # The written answers and the instructor's earlier marks, read before any kernel runs too.
            answered[name] = _answers(course_dir, course.get(name), found[name])
            marks[name] = _instructor_marks(course_dir, course.get(name), found[name])
        refused: dict[str, dict[str, str]] = {}
        try:
            for name in graded:
                log(f"{name}: autograding {len(found[name])} submission(s): {', '.join(found[name])}")
                shutil.rmtree(staging, ignore_errors=True)
                refused[name] = _stage(course_dir, course.get(name), found[name], log)
                if (staging / "submitted").is_dir():
                    _autograde_kernels(course_dir, env, course.get(name), cell_timeout, verdicts[name], log)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        # Only now, once every kernel has run: the gradebook and the notebooks the feedback is made from.
        hidden = sandboxed.hidden_lines()
        for name in graded:
            a = course.get(name)
            for student in found[name]:  # first, so the verdicts written next are never touched
                autograded = sandboxed.autograded_notebook(course_dir, student, a)
                if autograded.is_file() and sandboxed.scrub_outputs(autograded, hidden):
                    log(f"{name}  {student}: outputs that quoted hidden course material were removed")
            _record_refusals(course_dir, a, refused[name])
            notes.update({(name, student): message for student, message in refused[name].items()})
            notes.update(_record_verdicts(course_dir, a, {s: v for s, v in verdicts[name].items()
                                                          if s not in refused[name]}, seed, log,
                                          answered[name], marks[name]))
        log("writing feedback")
        run_nbgrader(course_dir, env, "generate_feedback", "*", "--force")
        csv_path = course_dir / "grades.csv"
        run_nbgrader(course_dir, env, "export", "--to", str(csv_path))
    _add_notes(csv_path, notes)
    pending = _pending_manual(course_dir, {name: found[name] for name in graded})
    for row in read_grades(csv_path):
        if row["assignment"] in graded and row["student_id"] in found.get(row["assignment"], []):
            note = row.get(NOTE) or ""
            waiting = pending.get((row["assignment"], row["student_id"]), 0)
            log(f"{row['assignment']}  {row['student_id']}  {float(row['score']):g} / {float(row['max_score']):g}"
                + (f"  {note}" if note else "")
                + (f"  (+ {waiting:g} to grade by hand in formgrader / por corregir a mano)" if waiting else ""))
    report = class_report(course_dir, kept, notes, refused, {"seed": seed, "cell_timeout": cell_timeout}, lang, log)
    log(f"grades: {csv_path}; feedback: {course_dir / 'feedback'}/<student>/<assignment>/"
        + (f"; class report: {report[0]}" if report else ""))
    return csv_path
