"""Unit tests of upload normalisation (autograder/intake/uploads.py), without a grading:
each shape a student hands in (a folder laid out like assignments/, flat module files, a
zip, a git bundle) becomes the same module form, and unsafe or useless uploads are refused
or listed. The whole gradings of these shapes are in test_grade_class.py and
test_gradescope.py."""

import os
import stat
import subprocess
import zipfile
from pathlib import Path

import pytest

from autograder.intake import uploads
from autograder.intake.uploads import UploadError
from helpers import ASSIGNMENTS, SOLUTIONS

A1, A2 = "a1_attention", "a2_layernorm"


def _modules(base: Path, assignment: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((base / assignment).glob("*.py")) if not p.name.startswith("test_")}


def _write(folder: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def _zip(path: Path, files: dict[str, bytes], link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_shape_gives_the_same_module_form(tmp_path):
    """Do a nested folder, flat files, a zip and a git bundle of the same a1 give the same
    ``<assignment>/<module>.py`` tree, with files that are not .py listed as not graded?"""
    a1 = _modules(SOLUTIONS, A1)
    shapes = {
        "folder": _write(tmp_path / "folder", {f"my-work/{A1}/{n}": d for n, d in a1.items()} | {"notes.txt": b"x"}),
        "flat": _write(tmp_path / "flat", {f"src/{n}": d for n, d in a1.items()}),
        "zip": _zip(tmp_path / "upload.zip", {f"my-work/{A1}/{n}": d for n, d in a1.items()}),
    }
    repo = _write(tmp_path / "repo", {f"{A1}/{n}": d for n, d in a1.items()})
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "work"], ["bundle", "create", "-q",
                                                                           str(tmp_path / "alice.bundle"), "--all"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True)
    shapes["bundle"] = tmp_path / "alice.bundle"
    trees = {}
    for name, src in shapes.items():
        report = uploads.normalize(src, tmp_path / f"out-{name}")
        assert report.assignments == [A1], (name, report.describe())
        trees[name] = _tree(tmp_path / f"out-{name}")
    assert trees["folder"] == trees["flat"] == trees["zip"] == trees["bundle"]
    assert {f"{A1}/{n}" for n in a1} <= set(trees["folder"])
    report = uploads.normalize(shapes["folder"], tmp_path / "again")
    assert "notes.txt (not a .py file / no es un archivo .py)" in report.ignored


def test_flat_files_go_to_their_assignments_with_the_helpers(tmp_path):
    """Do flat modules of two assignments go to the assignments that own them, a helper
    module beside them to both, and test files and a second copy to the ignored list?"""
    files = _modules(SOLUTIONS, A1) | {"layernorm.py": _modules(SOLUTIONS, A2)["layernorm.py"]}
    files |= {"my_helpers.py": b"X = 1\n", "test_mine.py": b"", "conftest.py": b"", "old/masks.py": b"# again\n"}
    report = uploads.normalize(_write(tmp_path / "in", files), tmp_path / "out")
    assert report.assignments == [A1, A2]
    out = tmp_path / "out"
    assert (out / A1 / "my_helpers.py").is_file() and (out / A2 / "my_helpers.py").is_file()
    assert (out / A1 / "masks.py").read_bytes() == files["masks.py"]
    assert any(line.startswith("test_mine.py (a test file") for line in report.ignored)
    assert any(line.startswith("conftest.py (a test file") for line in report.ignored)
    assert any(line.startswith("old/masks.py (a second masks.py") for line in report.ignored)


def test_modules_left_out_are_added_as_released(tmp_path):
    """Is a module of the assignment that the upload left out written as released, with a note?"""
    report = uploads.normalize(_write(tmp_path / "in", {"masks.py": _modules(SOLUTIONS, A1)["masks.py"]}),
                               tmp_path / "out")
    assert (tmp_path / "out" / A1 / "attention.py").is_file()
    assert any(note.startswith(f"{A1}: not handed in, used as released") and "attention.py" in note
               for note in report.notes)


def test_helpers_alone_and_links_are_not_graded(tmp_path):
    """Is an upload of helper modules only left with no assignment, and a symbolic link
    to a reference module listed as not a regular file, never followed?"""
    report = uploads.normalize(_write(tmp_path / "helpers", {"mine.py": b"X = 1\n"}), tmp_path / "out1")
    assert report.assignments == [] and any("no course module beside it" in line for line in report.ignored)
    linked = tmp_path / "linked"
    linked.mkdir()
    os.symlink(SOLUTIONS / A1 / "attention.py", linked / "attention.py")
    report = uploads.normalize(linked, tmp_path / "out2")
    assert report.assignments == []
    assert report.ignored == ["attention.py (not a regular file / no es un archivo normal)"]
    assert "assignments found / tareas encontradas: none / ninguna" in report.describe()


@pytest.mark.parametrize("entry", ["../escape.py", "/abs.py", "c:attention.py", "link"])
def test_unsafe_zip_entries_are_refused(tmp_path, entry):
    """Is a zip with a '..' path, an absolute path, a drive letter or a symbolic link refused whole?"""
    files = {"attention.py": b"x = 1\n"}
    archive = _zip(tmp_path / "bad.zip", files | ({} if entry == "link" else {entry: b""}),
                   link="attention_link.py" if entry == "link" else None)
    with pytest.raises(UploadError, match="unsafe entry"):
        uploads.normalize(archive, tmp_path / "out")
    assert not (tmp_path / "escape.py").exists()


def test_what_cannot_be_graded_at_all_is_one_bilingual_error(tmp_path, monkeypatch):
    """Are a broken zip, a bundle git cannot clone, a plain file, a zip that unpacks too big
    and too many .py files each refused with an English / Spanish message?"""
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    (tmp_path / "broken.bundle").write_bytes(b"not a bundle")
    (tmp_path / "essay.pdf").write_bytes(b"%PDF")
    cases = {"broken.zip": "is not a valid zip file / broken.zip no es un zip válido",
             "broken.bundle": "is not a git bundle git can clone",
             "essay.pdf": "is neither a folder, a .zip nor a git bundle"}
    for name, message in cases.items():
        with pytest.raises(UploadError, match=message):
            uploads.normalize(tmp_path / name, tmp_path / f"out-{name}")
    monkeypatch.setattr(uploads, "MAX_ZIP_BYTES", 10)
    with pytest.raises(UploadError, match="unpacks to more than"):
        uploads.normalize(_zip(tmp_path / "big.zip", {"attention.py": b"x = 1\n" * 10}), tmp_path / "out-big")
    monkeypatch.setattr(uploads, "MAX_FILES", 3)
    many = _write(tmp_path / "many", {f"m{i}.py": b"" for i in range(4)})
    with pytest.raises(UploadError) as caught:
        uploads.normalize(many, tmp_path / "out-many")
    assert caught.value.en == "more than 3 .py files" and caught.value.es == "más de 3 archivos .py"


def test_stubs_and_a_big_file(tmp_path, monkeypatch):
    """Is the untouched release taken as it is, and a .py file over the size limit listed, not copied?"""
    report = uploads.normalize(_write(tmp_path / "in", {f"{A1}/{n}": d for n, d in _modules(ASSIGNMENTS, A1).items()}),
                               tmp_path / "out")
    assert report.assignments == [A1]
    monkeypatch.setattr(uploads, "MAX_FILE_BYTES", 10)
    report = uploads.normalize(_write(tmp_path / "big", {"attention.py": b"x = 1\n" * 10}), tmp_path / "out-big")
    assert report.ignored == ["attention.py (larger than 1 MB / mayor de 1 MB)"]
