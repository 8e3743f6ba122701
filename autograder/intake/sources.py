"""What each student wrote, as text, for the similarity check: read from the uploads as
grade-class found them (the same conversion, :func:`uploads.normalize`), never run."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .. import course
from . import uploads

MAX_BYTES = 200_000  # a module larger than this is not code a student typed


def read_modules(folder: Path, assignments: list[str]) -> dict[str, dict[str, str]]:
    """assignment -> module stem -> code, from a folder laid out like ``assignments/``."""
    found: dict[str, dict[str, str]] = {}
    for a in assignments:
        for m in course.get(a).modules:
            path = folder / a / f"{m}.py"
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_BYTES:
                found.setdefault(a, {})[m] = path.read_text(encoding="utf-8", errors="replace")
    return found


def from_uploads(entries: list[tuple[str, Path]], assignments: list[str]) -> dict[str, dict[str, dict[str, str]]]:
    """student -> assignment -> module -> code for grade-class's entries (folders, zips,
    bundles); an upload that cannot be read has no code to compare."""
    found = {}
    with tempfile.TemporaryDirectory(prefix="course-report-") as tmp:
        for n, (student, entry) in enumerate(entries):
            dst = Path(tmp) / str(n) / "submission"
            try:
                uploads.normalize(entry, dst)
            except uploads.UploadError:
                continue
            found[student] = read_modules(dst, assignments)
    return found
