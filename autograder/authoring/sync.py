"""Regenerate assignments/ from solutions/ (``python -m autograder sync``).

Every ``.py`` file goes through :func:`autograder.authoring.stubs.make_stub`; other files are copied
as they are, except the notebook narratives (``notebook.<lang>.md``, the source of the
nbgrader notebooks, see ``autograder/notebooks/build.py``). Files in assignments/ that no longer come from
solutions/ are removed.
"""

from __future__ import annotations

import re
from pathlib import Path

from .stubs import make_stub

_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
NARRATIVE = re.compile(r"notebook\.[a-z]+\.md")  # notebook narratives stay in solutions/


def _sources(src: Path) -> list[Path]:
    return sorted(
        p for p in src.rglob("*")
        if p.is_file() and not _SKIP_DIRS.intersection(p.relative_to(src).parts) and p.suffix != ".pyc"
    )


def expected_tree(src: Path) -> dict[Path, bytes]:
    """Relative path -> bytes of every file assignments/ should hold."""
    tree: dict[Path, bytes] = {}
    for path in _sources(src):
        rel = path.relative_to(src)
        if NARRATIVE.fullmatch(path.name):
            continue
        if path.suffix == ".py":
            tree[rel] = make_stub(path.read_text(encoding="utf-8"), str(path)).encode("utf-8")
        else:
            tree[rel] = path.read_bytes()
    return tree


def differences(src: Path, dst: Path) -> list[str]:
    """What differs between assignments/ and what solutions/ generates ("stale: ..." lines)."""
    want = expected_tree(src)
    have = {p.relative_to(dst): p for p in _sources(dst)} if dst.is_dir() else {}
    problems = []
    for rel, data in want.items():
        if rel not in have:
            problems.append(f"missing: {rel}")
        elif have[rel].read_bytes() != data:
            problems.append(f"out of date: {rel}")
    problems += [f"not generated from solutions/: {rel}" for rel in sorted(set(have) - set(want))]
    return problems


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
    for path in _sources(folder) if folder.is_dir() else []:
        rel = path.relative_to(folder)
        if rel not in files:
            path.unlink()
            changed.append(f"removed {rel}")
            if not any(path.parent.iterdir()) and path.parent != folder:
                path.parent.rmdir()
    return changed


def sync(src: Path, dst: Path) -> list[str]:
    """Write assignments/; return the relative paths written or removed."""
    return mirror(dst, expected_tree(src))
