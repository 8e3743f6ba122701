"""A submission's modules, taken in for a worker: read, refused or copied into a scratch folder.

The grading process never imports student code, and never follows a link in it: it reads
the modules of one submission folder as bytes (:func:`read_modules`), refuses a folder that
a worker should not run (a link, a device, a module that shadows one the grader needs),
and writes what it read, with the worker's own code, into a fresh scratch folder
(:func:`make_scratch`), which :mod:`.process` runs a worker over.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from .isolation import interpreter_paths

CHILD_DIR = Path(__file__).with_name("child")  # copied whole into every scratch folder
CHILD_FILES = tuple(sorted(p.name for p in CHILD_DIR.glob("*.py") if p.name != "__init__.py"))
MAX_SUBMISSION_FILE = 1 << 20  # bytes; a bigger .py file is not copied
# Module names the worker itself imports before any student code.
HARNESS_MODULES = frozenset(Path(name).stem for name in CHILD_FILES)


class SubmissionRefused(Exception):
    """A submission folder that is not graded at all; the message says what to fix."""

    def __init__(self, en: str, es: str):
        super().__init__(en)
        self.en, self.es = en, es


def read_modules(folder: Path) -> dict[str, bytes]:
    """``{"attention.py": bytes}`` for the Python modules of one submission folder.

    Every entry is checked with ``lstat`` before anything is read, and files are opened
    without following links: a symbolic link (to a reference solution, to
    ``/proc/self/environ``), a device or a pipe is refused whole, never followed.
    Sub-folders (``__pycache__``) and other files are ignored.
    """
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise SubmissionRefused(
            f"{folder.name}/ is not a regular folder (a symbolic link?); submit the folder itself",
            f"{folder.name}/ no es una carpeta normal (¿un enlace simbólico?); entrega la carpeta misma",
        )
    files = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            continue
        if not stat.S_ISREG(mode):
            raise SubmissionRefused(
                f"{folder.name}/{entry.name} is not a regular file (a symbolic link, device or pipe); "
                "submit plain files only",
                f"{folder.name}/{entry.name} no es un archivo normal (un enlace simbólico, dispositivo o "
                "tubería); entrega solo archivos normales",
            )
        if not entry.name.endswith(".py"):
            continue
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the lstat
                raise SubmissionRefused(f"{folder.name}/{entry.name} is not a regular file",
                                        f"{folder.name}/{entry.name} no es un archivo normal")
            data = os.read(fd, MAX_SUBMISSION_FILE + 1)
        finally:
            os.close(fd)
        if len(data) <= MAX_SUBMISSION_FILE:
            files[entry.name] = data
    return files


def shadowed_modules(names: list[str], taken: set[str] = frozenset()) -> list[str]:
    """The module names in ``names`` that would hide a standard-library, installed or
    course module (``taken``) from code that imports it, the harness's own included."""
    found = []
    for name in names:
        if not name.isidentifier():
            continue
        if (name in sys.stdlib_module_names or name in sys.builtin_module_names or name in HARNESS_MODULES
                or name in taken or installed(name)):
            found.append(name)
    return found


def installed(name: str) -> bool:
    """Whether ``name`` is a package the worker can import: one in the interpreter's own
    folders or an editable install's finder. The grading process's working directory and
    whatever pytest put on its ``sys.path`` are not the worker's and do not count (a
    student grading from inside their own folder would otherwise be refused)."""
    roots = [Path(p).resolve() for p in interpreter_paths()]
    paths = [p for p in sys.path if p and any(r == Path(p).resolve() or r in Path(p).resolve().parents
                                              for r in roots)]
    if importlib.machinery.PathFinder.find_spec(name, paths) is not None:
        return True
    editable = [f for f in sys.meta_path if type(f).__module__.startswith("__editable__")
                or getattr(f, "__module__", "").startswith("__editable__")]
    return any(f.find_spec(name, None) is not None for f in editable)


def refuse_shadowing(folder: str, files: dict[str, bytes], taken: set[str] = frozenset()) -> None:
    shadows = shadowed_modules([Path(name).stem for name in files], taken)
    if shadows:
        names = ", ".join(f"{folder}/{name}.py" for name in shadows)
        raise SubmissionRefused(
            f"{names} shadows a module of the same name (Python's, an installed package's or the "
            "course's) that the grader needs; rename the file and its imports",
            f"{names} oculta un módulo del mismo nombre (de Python, de un paquete instalado o del curso) "
            "que el corrector necesita; cambia el nombre del archivo y sus imports",
        )


def make_scratch(folders: dict[str, dict[str, bytes]]) -> Path:
    """A scratch copy: ``{"a1_attention": {"attention.py": b"..."}}`` -> scratch/a1_attention/*.py.

    The contents were read already (``read_modules``), so nothing here follows a link; a
    folder mapped to ``{}`` is created empty, so imports from it fail the ordinary way.
    """
    scratch = Path(tempfile.mkdtemp(prefix="course-grade-"))
    harness = scratch / "_harness"
    harness.mkdir()
    for name in CHILD_FILES:
        shutil.copyfile(CHILD_DIR / name, harness / name)
    for name, files in folders.items():
        dst = scratch / name
        dst.mkdir()
        for file_name, data in files.items():
            (dst / file_name).write_bytes(data)
    return scratch
