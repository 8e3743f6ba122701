"""Turn what a student hands in into a submission folder laid out like ``assignments/``.

Accepted shapes (the ones platforms really deliver):

- a folder laid out like ``assignments/`` (``a1_attention/attention.py``, ...), also one or
  two levels down (an upload zipped with its parent folder);
- module files of one or more assignments, flat or in any folders (``attention.py``,
  ``masks.py``, ``layernorm.py``): each course module goes to the assignment that owns it;
  other ``.py`` files beside them (the student's helpers) go to every assignment found;
- a notebook of this course (``.ipynb``): its solution cells become the module form
  (:mod:`autograder.notebooks.extract`); module files of the same assignment win over it;
- a ``.zip`` of any of these (links, absolute paths, ``..`` and oversized archives refused),
  or a git bundle of a repository holding them.

Only regular ``.py`` and ``.ipynb`` files are taken; everything else is listed in the
report. Nothing is executed or imported here.
"""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import course
from ..notebooks import extract
from ..stubs import released_code

MAX_FILES = 200  # .py files in one upload
MAX_FILE_BYTES = 1 << 20  # a bigger .py file is not a solution to these exercises
MAX_ZIP_BYTES = 50 << 20  # uncompressed size of an uploaded zip
SKIPPED_DIRS = {"__pycache__", ".git", ".ipynb_checkpoints", "__MACOSX", ".venv", "venv", "node_modules"}


class UploadError(Exception):
    """An upload that cannot be graded at all; the message says why (English / Spanish)."""

    def __init__(self, en: str, es: str):
        super().__init__(f"{en} / {es}")
        self.en, self.es = en, es


@dataclass
class Upload:
    assignments: list[str] = field(default_factory=list)  # assignment folders written, course order
    ignored: list[str] = field(default_factory=list)  # paths not taken, with the reason
    notes: list[str] = field(default_factory=list)  # what a notebook's conversion left out

    def describe(self) -> str:
        found = ", ".join(self.assignments) or "none / ninguna"
        lines = [f"assignments found / tareas encontradas: {found}"]
        if self.ignored:
            lines.append("not graded / no calificado: " + "; ".join(self.ignored[:10])
                         + (f" (+{len(self.ignored) - 10})" if len(self.ignored) > 10 else ""))
        lines += self.notes
        return "\n".join(lines)


def _regular_files(root: Path, report: Upload):
    """(relative path, path) of every regular file under ``root``, never following links."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            rel = path.relative_to(root)
            mode = os.lstat(path).st_mode
            if not stat.S_ISREG(mode):
                report.ignored.append(f"{rel} (not a regular file / no es un archivo normal)")
                continue
            yield rel, path


def extract_zip(archive: Path, dst: Path) -> None:
    """Unpack ``archive`` into ``dst``, refusing anything that could escape it or fill the disk."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise UploadError(f"{archive.name} unpacks to more than {MAX_ZIP_BYTES >> 20} MB",
                                  f"{archive.name} ocupa más de {MAX_ZIP_BYTES >> 20} MB al descomprimir")
            for m in members:
                name = m.filename
                parts = Path(name).parts
                is_link = stat.S_ISLNK(m.external_attr >> 16)
                if name.startswith(("/", "\\")) or ".." in parts or is_link or ":" in name:
                    raise UploadError(f"{archive.name}: unsafe entry {name!r} (absolute path, '..' or link)",
                                      f"{archive.name}: entrada insegura {name!r} (ruta absoluta, '..' o enlace)")
                if m.is_dir():
                    continue
                target = dst / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(m) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
    except zipfile.BadZipFile:
        raise UploadError(f"{archive.name} is not a valid zip file", f"{archive.name} no es un zip válido") from None


def clone_bundle(bundle: Path, clone: Path) -> Path:
    """A clone of a git bundle (``git bundle create alice.bundle --all``), checked out in ``clone``."""
    shutil.rmtree(clone, ignore_errors=True)
    proc = subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(bundle), str(clone)],
                          capture_output=True, text=True, timeout=120,
                          env={"GIT_TERMINAL_PROMPT": "0", "PATH": "/usr/bin:/bin"})
    if proc.returncode != 0:
        raise UploadError(f"{bundle.name} is not a git bundle git can clone", f"git no puede clonar {bundle.name}")
    return clone


def normalize(src: Path, dst: Path) -> Upload:
    """Write the submission held in ``src`` (a folder, a .zip or a git bundle) to ``dst`` as
    ``dst/<assignment>/<module>.py``; returns what was found and what was left out."""
    dst.mkdir(parents=True, exist_ok=True)
    report = Upload()
    if src.is_file() and src.suffix == ".zip":
        unpacked = dst.parent / (dst.name + "-unzipped")
        shutil.rmtree(unpacked, ignore_errors=True)
        unpacked.mkdir()
        extract_zip(src, unpacked)
        src = unpacked
    elif src.is_file() and src.suffix == ".bundle":
        src = clone_bundle(src, dst.parent / (dst.name + "-repository"))
    elif not src.is_dir():
        raise UploadError(f"{src.name} is neither a folder, a .zip nor a git bundle",
                          f"{src.name} no es una carpeta, un .zip ni un bundle de git")
    owners = course.module_owners()
    names = {a.name for a in course.ASSIGNMENTS}
    placed: dict[str, dict[str, Path]] = {}  # assignment -> file name -> source
    helpers: dict[str, Path] = {}
    count = 0
    notebooks = []
    for rel, path in _regular_files(src, report):
        if path.suffix == ".ipynb":
            notebooks.append((rel, path))
            continue
        if path.suffix != ".py":
            report.ignored.append(f"{rel} (not a .py file / no es un archivo .py)")
            continue
        count += 1
        if count > MAX_FILES:
            raise UploadError(f"more than {MAX_FILES} .py files", f"más de {MAX_FILES} archivos .py")
        if path.stat().st_size > MAX_FILE_BYTES:
            report.ignored.append(f"{rel} (larger than 1 MB / mayor de 1 MB)")
            continue
        folder = next((p for p in reversed(rel.parts[:-1]) if p in names), None)
        owner = owners.get(path.stem)
        if path.name.startswith("test_") or path.name == "conftest.py":
            report.ignored.append(f"{rel} (a test file / un archivo de pruebas)")
        elif folder is not None:
            _place(placed, folder, path, rel, report)
        elif owner is not None:
            _place(placed, owner.name, path, rel, report)
        else:
            helpers.setdefault(path.name, path)
    for name in placed:
        for file_name, path in helpers.items():
            placed[name].setdefault(file_name, path)
    for rel, path in notebooks:
        _place_notebook(placed, rel, path, dst.parent / (dst.name + "-notebooks"), report)
    if helpers and not placed:
        report.ignored += [f"{name} (no course module beside it / ningún módulo del curso a su lado)"
                           for name in helpers]
    for a in course.ASSIGNMENTS:
        if a.name in placed:
            (dst / a.name).mkdir(exist_ok=True)
            for file_name, path in placed[a.name].items():
                shutil.copyfile(path, dst / a.name / file_name, follow_symlinks=False)
            _add_released(a, dst / a.name, report)
            report.assignments.append(a.name)
    return report


def _add_released(assignment, folder: Path, report: Upload) -> None:
    """Modules of the assignment the upload left out, as released (given code such as a5's
    incremental.py, or an exercise module still a stub): the others can import them."""
    added = []
    for file_name, text in released_code(course.solutions_dir() / assignment.name).items():
        if not (folder / file_name).exists():
            (folder / file_name).write_text(text, encoding="utf-8")
            added.append(file_name)
    if added:
        report.notes.append(f"{assignment.name}: not handed in, used as released / no entregados, se usan tal "
                            f"como se publicaron: {', '.join(added)}")


def _place(placed: dict, assignment: str, path: Path, rel: Path, report: Upload) -> None:
    files = placed.setdefault(assignment, {})
    if path.name in files:
        report.ignored.append(f"{rel} (a second {path.name} for {assignment} / un segundo {path.name})")
    else:
        files[path.name] = path


def _untouched(assignment, files: dict[str, Path]) -> bool:
    """Whether every module of ``assignment`` handed in is its stub as released (comments and
    hints aside): then a notebook of the same assignment is what the student worked on."""
    for file_name, stub in released_code(course.solutions_dir() / assignment.name).items():
        path = files.get(file_name)
        if path is None:
            continue
        try:
            mine = ast.dump(ast.parse(path.read_text(encoding="utf-8")))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return False
        if mine != ast.dump(ast.parse(stub)):
            return False
    return True


def _place_notebook(placed: dict, rel: Path, path: Path, work: Path, report: Upload) -> None:
    """The module form of a course notebook, unless module files of its assignment came too."""
    try:
        nb = extract.read(path.read_bytes(), rel.name)
    except extract.NotebookUploadError as exc:
        report.ignored.append(f"{rel} ({exc})")
        return
    assignment = extract.assignment_of(nb, rel.name)
    if assignment is None:
        report.ignored.append(f"{rel} (not a notebook of this course / no es un cuaderno de este curso)")
        return
    if assignment.name in placed and not _untouched(assignment, placed[assignment.name]):
        report.ignored.append(f"{rel} (module files of {assignment.name} were handed in too; they are graded / "
                              f"se entregaron también módulos de {assignment.name}; se califican ellos)")
        return
    if assignment.name in placed:  # the release's stubs beside the notebook the student worked in
        report.notes.append(f"{rel}: the module files of {assignment.name} are as released, so the notebook is "
                            f"graded / los módulos de {assignment.name} están sin tocar: se califica el cuaderno")
    result = extract.module_form(nb, assignment)
    folder = work / assignment.name
    folder.mkdir(parents=True, exist_ok=True)
    placed[assignment.name] = {}
    for file_name, text in result.modules.items():
        (folder / file_name).write_text(text, encoding="utf-8")
        placed[assignment.name][file_name] = folder / file_name
    report.notes += [f"{rel}: {note}" for note in result.notes]
