"""Gradescope: ``python -m autograder gradescope --out autograder.zip`` writes the
autograder zip, and ``run_autograder`` (inside Gradescope's container) grades one upload.

Gradescope's specification (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
the zip's contents are extracted into ``/autograder/source``; ``setup.sh`` runs once, as
root, when the image is built; ``run_autograder`` is copied to ``/autograder/run_autograder``
and runs for every upload with ``/autograder`` as its working directory, the upload in
``/autograder/submission``, the results expected in ``/autograder/results/results.json``.
So everything sits at the zip's root:

- ``setup.sh``: Python's venv from the distribution (3.10 on Ubuntu 22.04, 3.12 on 24.04),
  torch's CPU wheel, ``requirements.txt`` (version ranges, no pins from the building machine)
  and this package, into ``/autograder/venv``; a failing step says which;
- ``run_autograder``: runs :func:`run` on its own folder (or ``$GRADESCOPE_ROOT``);
- the package, the graders of the chosen assignments, the reference solutions they need
  (as prerequisites and as the graders' oracle), ``source_data/`` and ``gradescope.json``
  (which assignments, visibility, limits).

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
from ..grading import reports
from ..intake import batch
from ..settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT

CONFIG = "gradescope.json"
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
# The torch release CI grades with (constraints.txt pins the same); it has wheels for
# Python 3.10 to 3.14, so for both of Gradescope's Ubuntu images (3.10 and 3.12).
TORCH_VERSION = "2.13.0"
PYTHON_MIN = (3, 10)  # pyproject's requires-python

SETUP_SH = f"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image; the zip's
# contents are in /autograder/source. Everything goes into /autograder/venv, where
# run_autograder looks for it. A failing step stops the build and says which it was.
set -Eeuo pipefail
trap 'echo "setup.sh FAILED at line $LINENO (exit $?): ${{BASH_COMMAND%%$'"'\\n'"'*}}" >&2' ERR
step() {{ echo "setup.sh: $*"; }}

source_dir="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"   # /autograder/source
root="$(dirname "$source_dir")"                               # /autograder
python="${{COURSE_PYTHON:-python3}}"

if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
    step "installing the distribution's python3 and python3-venv"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv python3-pip
fi
"$python" - <<'CHECK'
import sys
if sys.version_info < {PYTHON_MIN}:
    sys.exit("setup.sh FAILED: Python {PYTHON_MIN[0]}.{PYTHON_MIN[1]} or newer is needed and this image has "
             + sys.version.split()[0] + "; choose an Ubuntu 22.04 or 24.04 base image in the autograder settings")
CHECK
step "virtual environment $root/venv ($("$python" --version))"
"$python" -m venv "$root/venv"
pip="$root/venv/bin/python -m pip"
$pip install -q --upgrade pip
step "torch {TORCH_VERSION}, CPU build (a CUDA build would add gigabytes the container cannot use)"
$pip install -q --index-url "${{TORCH_INDEX_URL:-{CPU_WHEELS}}}" "torch=={TORCH_VERSION}"
step "the grading requirements ($source_dir/requirements.txt)"
$pip install -q -r "$source_dir/requirements.txt"
step "the course package ($source_dir)"
$pip install -q --no-deps -e "$source_dir"
"$root/venv/bin/python" -c 'import autograder, torch; print("setup.sh: done; torch", torch.__version__)'
"""

# Gradescope copies this to /autograder/run_autograder and runs it there for every upload.
RUN_AUTOGRADER = """#!/usr/bin/env bash
# Grades /autograder/submission into /autograder/results/results.json. GRADESCOPE_ROOT (default:
# this script's folder) and GRADESCOPE_PYTHON (default: the venv setup.sh made) are for trying
# the autograder outside Gradescope.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -f "$here/gradescope.json" ] && here="$(dirname "$here")"   # run from source/ itself
root="${GRADESCOPE_ROOT:-$here}"
python="${GRADESCOPE_PYTHON:-$root/venv/bin/python}"
cd "$root/source" || exit 1
exec "$python" -m autograder gradescope-run --root "$root"
"""


def requirements() -> str:
    """The package's own dependency ranges (pyproject.toml) with torch at TORCH_VERSION:
    nothing from the machine that builds the zip, so pip picks what the image's Python
    takes. setup.sh installs torch from the CPU index first; its pin here keeps the second
    install from replacing it."""
    lines = []
    for req in importlib.metadata.requires("transformer-course") or []:
        if "extra ==" in req:
            continue
        name = re.split(r"[<>=!~ \[;]", req, maxsplit=1)[0]
        lines.append(f"torch=={TORCH_VERSION}" if name == "torch" else req)
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

    add_tree(course.PACKAGE_DIR, "autograder", keep=graded)
    for name in _needed(only):
        add_tree(root / "solutions" / name, f"solutions/{name}")
        if (root / "source_data" / name).is_dir():
            add_tree(root / "source_data" / name, f"source_data/{name}")
    for extra in ("conftest.py",):
        if (root / "solutions" / extra).is_file():
            files[f"solutions/{extra}"] = (root / "solutions" / extra).read_bytes()
    files["pyproject.toml"] = (root / "pyproject.toml").read_bytes()
    files["README.md"] = b"Gradescope autograder of the Transformer course; see setup.sh and run_autograder.\n"
    files["requirements.txt"] = requirements().encode()
    files[CONFIG] = json.dumps({"only": only, "visibility": visibility, "memory_gib": memory_gib,
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
    print(instructor_summary(results / "results.json"))
    return 0


def instructor_summary(results_json: Path) -> str:
    """What run_autograder prints once graded: Gradescope shows its stdout to instructors
    only, and the seed is what they need to regrade the same inputs (`grade --seed`)."""
    try:
        data = json.loads(results_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"no readable {results_json}"
    per: dict[str, list[float]] = {}
    seeds = set()
    for test in data.get("tests", []):
        extra = test.get("extra_data") or {}
        got = per.setdefault(extra.get("assignment", "?"), [0.0, 0.0])
        got[0] += test.get("score", 0)
        got[1] += test.get("max_score", 0)
        if "seed" in extra:
            seeds.add(extra["seed"])
    lines = [f"graded with seed {', '.join(map(str, sorted(seeds))) or '?'}"]
    lines += [f"  {name}: {score:g}/{top:g}" for name, (score, top) in per.items()]
    lines.append(f"  total: {data.get('score', sum(s for s, _ in per.values())):g}/"
                 f"{sum(t for _, t in per.values()):g}")
    return "\n".join(lines)
