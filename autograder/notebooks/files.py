"""The files that go next to a notebook: its data, the self-check with the public tests, the errata.

A notebook reads ``source_data/<assignment>/*`` from its own folder, and its ``check("masks")``
cells run ``selfcheck.py`` on ``public_tests/`` (the assignment's public tests as released).
The nbgrader course and the student release both copy :func:`notebook_files` beside each
notebook.
"""

from __future__ import annotations

from pathlib import Path

from .. import course
from ..course import Assignment
from ..stubs import is_public_test, released_modules
from .sources import NotebookError


def data_files(assignment: Assignment) -> list[Path]:
    """The fixtures a notebook reads, copied next to it: ``source_data/<assignment>/*``."""
    folder = course.data_dir() / assignment.name
    return (sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
            if folder.is_dir() else [])


def public_tests(assignment: Assignment) -> dict[str, str]:
    """The public tests of ``assignment`` as released (``test_masks.py`` -> source)."""
    released = released_modules(course.solutions_dir() / assignment.name)
    return {name: text for name, text in released.items() if is_public_test(name)}


def notebook_files(assignment: Assignment) -> dict[Path, bytes]:
    """Every file that goes next to the notebook (path relative to its folder -> bytes):
    its data files, the self-check (``selfcheck.py``, ``public_tests/``) and the lectures'
    errata (``errata.md``, docs/errata.md), which every narrative links by that relative name."""
    from . import selfcheck

    data = course.data_dir() / assignment.name
    files = {path.relative_to(data): path.read_bytes() for path in data_files(assignment)}
    template = Path(selfcheck.__file__).read_text(encoding="utf-8")
    blank = "COURSE_MODULES: tuple[str, ...] = ()"
    if template.count(blank) != 1:
        raise NotebookError(f"{selfcheck.__file__} must hold exactly one line starting with {blank!r}")
    modules = tuple(sorted(course.module_owners()))
    files[Path("selfcheck.py")] = template.replace(blank, f"COURSE_MODULES: tuple[str, ...] = {modules!r}").encode()
    folder = Path(selfcheck.TESTS.name)
    files[folder / "pytest.ini"] = b"[pytest]\n# the self-check's own settings, apart from any repository's\n"
    for name, text in public_tests(assignment).items():
        files[folder / name] = text.encode("utf-8")
    # A released notebook has no docs/ beside it: the page travels with it, so the link works.
    files[Path("errata.md")] = (course.course_root() / "docs" / "errata.md").read_bytes()
    return files
