"""Regenerate assignments/ from solutions/ (``python -m autograder sync``).

Every ``.py`` file goes through :func:`autograder.stubs.make_stub`; other files are copied
as they are, except the notebook narratives (``notebook.<lang>.md``, the source of the
nbgrader notebooks, see ``autograder/notebooks/build.py``). Files in assignments/ that no longer come from
solutions/ are removed.

assignments/ is also where students of this checkout write their code, so sync never
overwrites or removes a file it did not write as it is now: ``assignments/.sync-manifest.json``
holds the SHA-256 of every file it wrote, and a file that matches neither that nor what
sync would write (a student's filled-in stub, a helper of their own) makes it refuse,
naming the files, unless ``force``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ..filetree import files_in, mirror
from ..stubs import released_modules

NARRATIVE = re.compile(r"notebook\.[a-z]+\.md")  # notebook narratives stay in solutions/
MANIFEST = Path(".sync-manifest.json")  # in assignments/: what sync wrote there


class SyncRefused(Exception):
    """sync would overwrite or remove files it did not write as they are now; ``files``
    lists them (relative to assignments/)."""

    def __init__(self, files: list[Path]):
        super().__init__(", ".join(map(str, files)))
        self.files = files


def expected_tree(src: Path) -> dict[Path, bytes]:
    """Relative path -> bytes of every file assignments/ should hold: each folder's
    released modules (:func:`autograder.stubs.released_modules`), other files as they are."""
    tree: dict[Path, bytes] = {}
    sources = files_in(src)
    for folder in sorted({path.parent for path in sources if path.suffix == ".py"}):
        for name, text in released_modules(folder).items():
            tree[(folder / name).relative_to(src)] = text.encode("utf-8")
    for path in sources:
        if path.suffix != ".py" and not NARRATIVE.fullmatch(path.name):
            tree[path.relative_to(src)] = path.read_bytes()
    return dict(sorted(tree.items()))


def manifest(tree: dict[Path, bytes]) -> bytes:
    """The manifest sync writes beside ``tree``: relative path -> SHA-256 of its bytes."""
    digests = {rel.as_posix(): hashlib.sha256(data).hexdigest() for rel, data in sorted(tree.items())}
    return (json.dumps(digests, indent=1) + "\n").encode("utf-8")


def with_manifest(tree: dict[Path, bytes]) -> dict[Path, bytes]:
    return {**tree, MANIFEST: manifest(tree)}


def edited(dst: Path, want: dict[Path, bytes]) -> list[Path]:
    """Files in ``dst`` that sync would overwrite or remove and did not write as they are
    now: neither what it would write, nor what its manifest says it wrote. Without a
    manifest, every file that differs from what it would write."""
    try:
        written = json.loads((dst / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        written = {}
    found = []
    for path in files_in(dst) if dst.is_dir() else []:
        rel = path.relative_to(dst)
        data = path.read_bytes()
        if rel == MANIFEST or want.get(rel) == data:
            continue
        if written.get(rel.as_posix()) != hashlib.sha256(data).hexdigest():
            found.append(rel)
    return found


def differences(src: Path, dst: Path) -> list[str]:
    """What differs between assignments/ and what solutions/ generates ("stale: ..." lines)."""
    want = with_manifest(expected_tree(src))
    have = {p.relative_to(dst): p for p in files_in(dst)} if dst.is_dir() else {}
    problems = []
    for rel, data in want.items():
        if rel not in have:
            problems.append(f"missing: {rel}")
        elif have[rel].read_bytes() != data:
            problems.append(f"out of date: {rel}")
    problems += [f"not generated from solutions/: {rel}" for rel in sorted(set(have) - set(want))]
    return problems


def sync(src: Path, dst: Path, *, force: bool = False) -> list[str]:
    """Write assignments/ and its manifest; return the "wrote"/"removed" lines. Raises
    :class:`SyncRefused` (nothing written) if that would overwrite or remove a file sync
    did not write as it is now, unless ``force``."""
    want = expected_tree(src)
    if not force:
        found = edited(dst, want)
        if found:
            raise SyncRefused(found)
    return mirror(dst, with_manifest(want))
