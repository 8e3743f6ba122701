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
