"""Gradescope: ``python -m autograder gradescope --out autograder.zip`` writes the
autograder zip, and ``run_autograder`` (inside Gradescope's container) grades one upload.

The zip holds, at its root (Gradescope's layout, https://gradescope-autograders.readthedocs.io/en/latest/specs/):

- ``setup.sh``: installs the pinned requirements (``requirements.txt``, CPU torch wheel)
  and this package (editable, so it finds the solutions and graders beside it);
- ``run_autograder``: runs :func:`run` on ``$GRADESCOPE_ROOT`` (default ``/autograder``);
- ``source/``: the package, the graders, the reference solutions the graded assignments
  need (as prerequisites and as the graders' oracle), ``source_data/``, and
  ``gradescope.json`` (which assignments, visibility, limits).

:func:`run` always writes ``results/results.json``: also for an empty or unreadable upload,
or when grading itself fails (one visible test at 0 that says why). Student code runs in
the sandbox; without namespaces (Gradescope's containers run as root) it runs as the
unprivileged uid of its own (``sandbox/isolation.py``, ``UidSlot``).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import secrets
import sys
import tempfile
import traceback
import zipfile
from pathlib import Path

from .. import course
from ..grading import batch, reports
from ..settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT

CONFIG = "gradescope.json"
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image.
set -euo pipefail
apt-get update -q && apt-get install -y -q python3 python3-venv python3-pip git
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --upgrade pip
/autograder/venv/bin/pip install -q -r /autograder/source/requirements.txt
/autograder/venv/bin/pip install -q --no-deps -e /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; results go to $GRADESCOPE_ROOT/results/results.json.
root="${GRADESCOPE_ROOT:-/autograder}"
python="${GRADESCOPE_PYTHON:-$root/venv/bin/python}"
cd "$root/source"
exec "$python" -m autograder gradescope-run --root "$root"
"""


def requirements() -> str:
    """The project's dependencies pinned to the versions grading runs with here, with the
    CPU wheel index for torch (a CUDA wheel would be gigabytes in a CPU container)."""
    lines = [f"--extra-index-url {CPU_WHEELS}"]
    for req in importlib.metadata.requires("transformer-course") or []:
        if "extra ==" in req:
            continue
        name = re.split(r"[<>=!~ \[;]", req, maxsplit=1)[0]
        version = importlib.metadata.version(name).split("+")[0]  # 2.13.0+cpu -> 2.13.0
        lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"


def _needed(only: list[str]) -> list[str]:
    names = set(only)
    for name in only:
        names |= set(course.get(name).requires)
    return [a.name for a in course.ASSIGNMENTS if a.name in names]


def build(out: Path, *, only: list[str] | None = None, visibility: str = "visible",
          memory_gib: float = DEFAULT_MEMORY_GIB, timeout: float = DEFAULT_TIMEOUT,
          budget: float = DEFAULT_BUDGET, lang: str = "both") -> list[str]:
    """Write the autograder zip to ``out``; returns the names it holds. ``lang``: the
    feedback's language ("both": English then Spanish)."""
    only = only or [a.name for a in course.ASSIGNMENTS]
    root = course.course_root()
    files: dict[str, bytes] = {}

    def add_tree(folder: Path, prefix: str, keep=lambda p: True) -> None:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc" and keep(path):
                files[f"{prefix}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()

    def graded(path: Path) -> bool:  # graders of other assignments stay out
        parts = path.relative_to(course.PACKAGE_DIR).parts
        return parts[0] != "graders" or len(parts) == 2 or parts[1] in only

    add_tree(course.PACKAGE_DIR, "source/autograder", keep=graded)
    for name in _needed(only):
        add_tree(root / "solutions" / name, f"source/solutions/{name}")
        if (root / "source_data" / name).is_dir():
            add_tree(root / "source_data" / name, f"source/source_data/{name}")
    for extra in ("conftest.py",):
        if (root / "solutions" / extra).is_file():
            files[f"source/solutions/{extra}"] = (root / "solutions" / extra).read_bytes()
    files["source/pyproject.toml"] = (root / "pyproject.toml").read_bytes()
    files["source/README.md"] = b"Gradescope autograder of the Transformer course; see setup.sh and run_autograder.\n"
    files["source/requirements.txt"] = requirements().encode()
    files[f"source/{CONFIG}"] = json.dumps({"only": only, "visibility": visibility, "memory_gib": memory_gib,
                                            "timeout": timeout, "budget": budget, "lang": lang}, indent=2).encode()
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in (("setup.sh", SETUP_SH.encode()), ("run_autograder", RUN_AUTOGRADER.encode())):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100755 << 16  # executable, as Gradescope requires
            zf.writestr(info, data)
        for name, data in files.items():
            zf.writestr(name, data)
    os.replace(tmp, out)
    return ["setup.sh", "run_autograder", *files]


def _lock_hidden(root: Path) -> None:
    """Reference solutions and graders readable by root only: without namespaces, student
    code runs as another uid and could otherwise read them by absolute path. (The grading
    process runs as root and copies what the worker needs into its scratch folder.)"""
    if os.geteuid() != 0:
        return
    for folder in (root / "source" / "solutions", root / "source" / "autograder" / "graders"):
        if folder.is_dir():
            folder.chmod(0o700)


def run(root: Path) -> int:
    """Grade ``root/submission`` into ``root/results/results.json``; never leaves it unwritten."""
    _lock_hidden(root)
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    seed = secrets.randbelow(2**31)
    try:
        config = json.loads((root / "source" / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = {}
    only = config.get("only") or [a.name for a in course.ASSIGNMENTS]
    lang = config.get("lang", "both")
    try:
        with tempfile.TemporaryDirectory(prefix="course-gradescope-") as tmp:
            batch.grade_upload(root / "submission", Path(tmp), results, only=only, seed=seed, lang=lang,
                               visibility=config.get("visibility", "visible"),
                               memory_gib=config.get("memory_gib", DEFAULT_MEMORY_GIB),
                               timeout=config.get("timeout", DEFAULT_TIMEOUT),
                               budget=config.get("budget", DEFAULT_BUDGET))
    except BaseException as exc:  # grading itself failed: the student still gets a result
        traceback.print_exc(file=sys.stdout)  # Gradescope shows stdout to instructors only
        reports.write_all(results, batch.failure_results(
            f"the autograder failed ({type(exc).__name__}); this is not your fault, please tell your instructor",
            f"el corrector falló ({type(exc).__name__}); no es culpa tuya, avisa a tu docente", seed, lang))
        if isinstance(exc, KeyboardInterrupt):
            raise
    return 0
