"""A generated folder as data: the files below it, and making it hold exactly a given set.

``sync`` (assignments/), ``release`` (the student repository) and ``nbgrader build`` (a
course's source/ folder) write generated trees this way, touching only what changed.
A leaf: it imports nothing from the package.
"""

from __future__ import annotations

from pathlib import Path

_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


def files_in(src: Path) -> list[Path]:
    """Every file below ``src``, caches aside, sorted."""
    return sorted(
        p for p in src.rglob("*")
        if p.is_file() and not _SKIP_DIRS.intersection(p.relative_to(src).parts) and p.suffix != ".pyc"
    )


def mirror(folder: Path, files: dict[Path, bytes]) -> list[str]:
    """Make ``folder`` hold exactly ``files`` (relative path -> bytes; caches aside),
    touching only what changed; returns the "wrote <path>" and "removed <path>" lines."""
    changed = []
    for rel, data in files.items():
        target = folder / rel
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            changed.append(f"wrote {rel}")
    for path in files_in(folder) if folder.is_dir() else []:
        rel = path.relative_to(folder)
        if rel not in files:
            path.unlink()
            changed.append(f"removed {rel}")
            if not any(path.parent.iterdir()) and path.parent != folder:
                path.parent.rmdir()
    return changed
