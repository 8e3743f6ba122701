"""`python -m autograder grade-class`: a class of 22 mixed uploads (folders, flat files,
zips, a git bundle, empty, broken and hostile ones, a memory hog and a fork bomb among them)
graded into per-student results and CSVs, resumable after Ctrl-C."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import attack_sources as src
import gradescope_spec
import pytest

from helpers import ASSIGNMENTS, ROOT, SOLUTIONS, interruptible

A1 = "a1_attention"
pytestmark = pytest.mark.xdist_group("grade_class")


def _cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900, **kwargs)


def _zip(path: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)


def _a1(base: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((base / A1).glob("*.py")) if not p.name.startswith("test_")}


def make_class(folder: Path) -> dict[str, str]:
    """Write one upload per student; returns student -> what we expect of them."""
    folder.mkdir()
    solved, stubs = _a1(SOLUTIONS), _a1(ASSIGNMENTS)
    expect = {}
    (folder / "alice" / A1).mkdir(parents=True)
    for name, data in solved.items():
        (folder / "alice" / A1 / name).write_bytes(data)
    expect["alice"] = "full"
    (folder / "bob" / A1).mkdir(parents=True)
    for name, data in stubs.items():
        (folder / "bob" / A1 / name).write_bytes(data)
    expect["bob"] = "zero"
    (folder / "carol" / "src").mkdir(parents=True)  # flat module files, in a folder of her own
    for name, data in solved.items():
        (folder / "carol" / "src" / name).write_bytes(data)
    (folder / "carol" / "notes.txt").write_text("hola", encoding="utf-8")
    expect["carol"] = "full"
    _zip(folder / "dave.zip", {f"my-work/{A1}/{name}": data for name, data in solved.items()})
    expect["dave"] = "full"
    (folder / "erin").mkdir()
    expect["erin"] = "not graded"
    (folder / "frank.zip").write_bytes(b"this is not a zip")
    expect["frank"] = "not graded"
    _zip(folder / "gina.zip", {"../escape.py": b"x = 1\n", **solved})
    expect["gina"] = "not graded"
    repo = folder.parent / "hank-repo"
    (repo / A1).mkdir(parents=True)
    for name, data in solved.items():
        (repo / A1 / name).write_bytes(data)
    git = ["git", "-c", "user.email=h@example.com", "-c", "user.name=h"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "a1"], check=True)
    subprocess.run(["git", "-C", str(repo), "bundle", "create", "-q", str(folder / "hank.bundle"), "--all"],
                   check=True, capture_output=True)
    expect["hank"] = "full"
    hostile = dict(solved)
    hostile["attention.py"] = solved["attention.py"].replace(
        b"    d_k = q.size(-1)\n", b"    d_k = q.size(-1)\n    import os\n    os._exit(0)\n")
    (folder / "ivan" / A1).mkdir(parents=True)
    for name, data in hostile.items():
        (folder / "ivan" / A1 / name).write_bytes(data)
    expect["ivan"] = "partial"
    # Resource attacks: only the tests that call target_mask may fail, with the limit named.
    for student, body in (("judy", src.MEMORY_HOG.format(chunks=96)),  # 6 GiB touched, --memory 1
                          ("kim", src.FORK_BOMB.format(children=1000, tag="course-class-fork"))):
        files = dict(solved)
        files["masks.py"] = solved["masks.py"].replace(src.TARGET_MASK_BEGIN.encode(),
                                                       (body + src.TARGET_MASK_BEGIN).encode())
        assert files["masks.py"] != solved["masks.py"]
        (folder / student / A1).mkdir(parents=True)
        for name, data in files.items():
            (folder / student / A1 / name).write_bytes(data)
        expect[student] = "limit"
    # The rest of a class of 22: solved, untouched and half-done uploads in every shape.
    half = {**solved, "masks.py": stubs["masks.py"]}
    for n in range(11):
        student, kind = f"student{n:02d}", ("full", "zero", "partial")[n % 3]
        files = {"full": solved, "zero": stubs, "partial": half}[kind]
        if n % 2:
            _zip(folder / f"{student}.zip", {f"{A1}/{name}": data for name, data in files.items()})
        else:
            (folder / student).mkdir()
            for name, data in files.items():
                (folder / student / name).write_bytes(data)
        expect[student] = kind
    return expect


def _rows(path: Path) -> dict[str, dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


@pytest.mark.full_only  # the fast tier: test_uploads.py (every shape) and the Ctrl-C test below
def test_a_mixed_class_is_graded_and_resumed(tmp_path):
    """Does every upload shape get its due score, the broken ones a visible reason and 0,
    grades.csv and canvas.csv list the class, and a second run regrade nobody?"""
    expect = make_class(tmp_path / "class")
    roster = tmp_path / "roster.csv"
    roster.write_text("student,Student,ID,SIS User ID,SIS Login ID,Section\n"
                      + "".join(f"{s},{s.title()} X,{100 + i},S{i},{s}@uni,A\n" for i, s in enumerate(expect)),
                      encoding="utf-8")
    out = tmp_path / "out"
    run = _cli("grade-class", str(tmp_path / "class"), "--out", str(out), "--only", A1, "--jobs", "2",
               "--seed", "5", "--roster", str(roster), "--memory", "1")
    assert len(expect) >= 20
    assert run.returncode == 1, run.stdout + run.stderr  # some could not be graded
    rows = _rows(out / "grades.csv")
    assert set(rows) == set(expect)
    full = max(float(r[A1]) for r in rows.values())
    assert full > 0
    for student, kind in expect.items():
        row, data = rows[student], json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        assert gradescope_spec.problems((out / student / "results.json").read_text(encoding="utf-8")) == []
        assert (out / student / "summary.md").is_file() and (out / student / "junit.xml").is_file()
        if kind == "full":
            assert float(row[A1]) == full and row["status"] == "graded", (student, row)
        elif kind == "zero":
            assert float(row[A1]) == 0 and row["status"] == "graded"
        elif kind == "partial":
            assert 0 < float(row[A1]) < full, (student, row)
        elif kind == "limit":
            hit = [t for t in data["tests"] if "target_mask" in t["name"]]
            assert hit and all(t["score"] == 0 for t in hit), (student, hit)
            assert all(t["score"] == t["max_score"] for t in data["tests"] if t not in hit), student
            limit = "memory limit (1 GiB)" if student == "judy" else "limit on processes and threads"
            assert all(limit in t["output"] for t in hit), (student, [t["output"] for t in hit])
        else:
            assert row["status"].startswith("not graded") and float(row["total"]) == 0, (student, row)
            assert data["tests"][0]["visibility"] == "visible" and data["tests"][0]["output"]
    assert "could not be graded" in run.stdout and "frank" in run.stdout and "gina" in run.stdout
    assert not (tmp_path / "escape.py").exists() and not (out / "escape.py").exists()
    with open(out / "canvas.csv", newline="", encoding="utf-8") as f:
        canvas = list(csv.reader(f))
    assert canvas[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert canvas[1][0] == "Points Possible" and float(canvas[1][5]) == full
    assert {r[1] for r in canvas[2:]} == {str(100 + i) for i in range(len(expect))}

    stamps = {s: (out / s / "results.json").stat().st_mtime_ns for s in expect}
    again = _cli("grade-class", str(tmp_path / "class"), "--out", str(out), "--only", A1, "--seed", "5",
                 "--memory", "1")
    assert f"{len(expect)} already graded" in again.stdout, again.stdout
    assert {s: (out / s / "results.json").stat().st_mtime_ns for s in expect} == stamps
    assert _rows(out / "grades.csv") == rows


def test_ctrl_c_keeps_what_was_graded(tmp_path):
    """After Ctrl-C in the middle of a class, does the next run skip the students already
    graded and grade only the rest?"""
    folder = tmp_path / "class"
    folder.mkdir()
    for n in range(6):
        shutil.copytree(SOLUTIONS / A1, folder / f"s{n}" / A1, ignore=shutil.ignore_patterns("test_*", "__pycache__"))
    out = tmp_path / "out"
    options = ["--only", A1, "--seed", "5"]
    proc = subprocess.Popen(interruptible([sys.executable, "-m", "autograder", "grade-class", folder, "--out", out,
                                          *options]), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "[2/6]" in line:
            assert proc.poll() is None, "".join(lines)
            proc.send_signal(signal.SIGINT)
            break
    rest, _ = proc.communicate(timeout=600)
    assert proc.returncode == 130, "".join(lines) + rest
    graded = [s for s in sorted(os.listdir(out)) if (out / s / "fingerprint.txt").is_file()]
    assert 2 <= len(graded) < 6, graded
    assert not (out / "grades.csv").exists()
    again = _cli("grade-class", str(folder), "--out", str(out), *options)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{len(graded)} already graded" in again.stdout
    assert f"[{6 - len(graded)}/{6 - len(graded)}]" in again.stdout
    assert len(_rows(out / "grades.csv")) == 6


def test_bad_class_folder_and_roster_are_refused(tmp_path):
    """Are a missing folder and a roster without Canvas's columns refused with a message
    that says what to give?"""
    missing = _cli("grade-class", str(tmp_path / "nope"), "--out", str(tmp_path / "o"))
    assert missing.returncode == 2 and "one sub-folder, .zip or .bundle per student" in missing.stderr
    (tmp_path / "class" / "x" / A1).mkdir(parents=True)
    roster = tmp_path / "r.csv"
    roster.write_text("student,name\nx,X\n", encoding="utf-8")
    bad = _cli("grade-class", str(tmp_path / "class"), "--out", str(tmp_path / "o"), "--roster", str(roster))
    assert bad.returncode == 2 and "SIS User ID" in bad.stderr, bad.stderr


def _small_class(folder: Path) -> None:
    """Six uploads for a group: solved (a folder and a zip), untouched, empty (not graded),
    one that kills its own process mid-call and one that forks without end."""
    folder.mkdir()
    solved, stubs = _a1(SOLUTIONS), _a1(ASSIGNMENTS)
    crashes = {**solved, "attention.py": solved["attention.py"].replace(
        b"    d_k = q.size(-1)\n", b"    d_k = q.size(-1)\n    import os\n    os._exit(0)\n")}
    bomb = {**solved, "masks.py": solved["masks.py"].replace(src.TARGET_MASK_BEGIN.encode(), (
        src.FORK_BOMB.format(children=1000, tag="course-group-fork") + src.TARGET_MASK_BEGIN).encode())}
    for student, files in (("alice", solved), ("bob", stubs), ("ivan", crashes), ("kim", bomb)):
        (folder / student / A1).mkdir(parents=True)
        for name, data in files.items():
            (folder / student / A1 / name).write_bytes(data)
    _zip(folder / "dave.zip", {f"{A1}/{name}": data for name, data in solved.items()})
    (folder / "erin").mkdir()


def _verdicts(out: Path) -> dict[str, dict]:
    """Each student's results.json without what depends on timing (seconds, peak memory)."""
    found = {}
    for path in sorted(out.glob("*/results.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data.pop("execution_time")
        for timed in ("worker_peak_mib", "slowest_call"):
            data["extra_data"].pop(timed, None)
        found[path.parent.name] = data
    return found


@pytest.mark.full_only  # about 90 s: eleven gradings; the fast tier grades in groups in the Ctrl-C test
def test_a_group_gets_the_verdicts_each_student_gets_alone(tmp_path):
    """Does a class graded in one group (one grading process per assignment for all) get,
    student by student, exactly the results.json of grading each alone, the crashing and
    fork-bombing students beside correct ones included; and does a run after an
    interruption inside a group grade only the students without results?"""
    from autograder.intake import batch

    _small_class(tmp_path / "class")
    lines = []
    grouped = batch.grade_class(tmp_path / "class", tmp_path / "grouped", only=[A1], seed=5, group=6,
                                echo=lambda *a, **k: lines.append(" ".join(map(str, a))))
    alone = batch.grade_class(tmp_path / "class", tmp_path / "alone", only=[A1], seed=5, group=1,
                              echo=lambda *a, **k: None)
    assert "1 group(s) of up to 6 at a time" in lines[0], lines
    assert sum("] " in line and "left about" in line for line in lines) == 6, lines  # a progress line each
    assert [(o.student, o.data["score"], o.problem) for o in grouped] == \
        [(o.student, o.data["score"], o.problem) for o in alone]
    by_group, by_one = _verdicts(tmp_path / "grouped"), _verdicts(tmp_path / "alone")
    assert set(by_group) == {"alice", "bob", "dave", "erin", "ivan", "kim"}
    assert by_group == by_one
    full = by_group["alice"]["extra_data"]["max_score"]
    assert by_group["alice"]["score"] == by_group["dave"]["score"] == full > 0
    assert by_group["bob"]["score"] == 0 and by_group["erin"]["extra_data"]["graded"] is False
    assert 0 < by_group["ivan"]["score"] < full and 0 < by_group["kim"]["score"] < full
    assert "limit on processes and threads" in json.dumps(by_group["kim"]["tests"])
    assert (tmp_path / "grouped" / "grades.csv").is_file() and (tmp_path / "grouped" / "class-report.html").is_file()

    # An interrupted group: results written for some students, not yet stamped for others.
    for student in ("bob", "ivan"):
        (tmp_path / "grouped" / student / "fingerprint.txt").unlink()
    lines.clear()
    again = batch.grade_class(tmp_path / "class", tmp_path / "grouped", only=[A1], seed=5, group=6,
                              echo=lambda *a, **k: lines.append(" ".join(map(str, a))))
    assert "  4 already graded with the same files and settings" in lines[1], lines
    assert [line.split(":")[0].strip() for line in lines if "left about" in line] == ["[1/2] bob", "[2/2] ivan"]
    assert [o.skipped for o in again] == [True, False, True, True, False, True]  # alice bob dave erin ivan kim
    assert _verdicts(tmp_path / "grouped") == by_one


def test_a_group_that_fails_as_a_whole_is_graded_one_by_one(tmp_path, monkeypatch):
    """When a group's grading fails as a whole (here: grade_many raises, as for a grading
    process that crashed), is each student graded again alone, so that nobody loses a grade
    to another student's failure?"""
    from autograder.intake import batch

    _small_class(tmp_path / "class")
    for student in ("bob", "erin", "ivan", "kim"):
        path = tmp_path / "class" / student
        shutil.rmtree(path)
    calls = []

    def broken(submissions, *args, **kwargs):
        calls.append([p.name for p in submissions])
        raise batch.GradingError("the graders of a1_attention could not run (pytest exit 3): boom")

    monkeypatch.setattr(batch, "grade_many", broken)
    graded = batch.grade_class(tmp_path / "class", tmp_path / "out", only=[A1], seed=5, group=2,
                               echo=lambda *a, **k: None)
    assert calls == [["alice", "dave"]]
    assert [(o.student, o.problem) for o in graded] == [("alice", ""), ("dave", "")]
    assert graded[0].data["score"] == graded[1].data["score"] == graded[0].data["extra_data"]["max_score"] > 0


@pytest.mark.parametrize("count, size, sizes", [(32, 6, [5, 5, 6, 5, 5, 6]), (22, 8, [7, 7, 8]), (5, 2, [1, 2, 2]),
                                                (8, 8, [8]), (9, 8, [4, 5]), (0, 3, [])])
def test_groups_are_as_even_as_their_size_allows(count, size, sizes):
    """Are the students split into as few groups of at most the size as it takes, in order,
    with sizes that differ by one at most (no small last group leaving a core idle)?"""
    from autograder.intake import batch

    students = [f"s{i}" for i in range(count)]
    groups = batch.split(students, size)
    assert [len(g) for g in groups] == sizes
    assert sum(groups, []) == students
