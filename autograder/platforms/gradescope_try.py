"""Trying a Gradescope autograder zip before uploading it:
``python -m autograder gradescope-try autograder.zip SUBMISSION``.

Lays a temporary folder out as Gradescope's specification says
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): the zip's contents in
``ROOT/source``, ``run_autograder`` copied to ``ROOT``, the upload in ``ROOT/submission``
(a zip upload unpacked there, as Gradescope unpacks it), an empty ``ROOT/results``; then
runs ``ROOT/run_autograder`` with ``ROOT`` as working directory and reads
``ROOT/results/results.json``. The zip's own package grades, not the one installed here.

``setup.sh`` is not run (it builds a virtual environment from the network, minutes of
work): the Python given, by default this one, stands for the one it makes, so it needs
the course's requirements.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .gradescope import CONFIG


class TryError(Exception):
    """The zip or the submission cannot be tried; the message says what to give instead."""


@dataclass
class Trial:
    score: float  # the score Gradescope would record
    max_score: float  # the sum of the tests' max_score
    results: Path  # ROOT/results/results.json
    stdout: str  # what run_autograder printed (Gradescope shows it to instructors only)
    returncode: int


def lay_out(autograder_zip: Path, submission: Path, root: Path) -> None:
    """Make ``root`` what Gradescope makes of /autograder for one upload."""
    try:
        with zipfile.ZipFile(autograder_zip) as zf:
            names = zf.namelist()
            if "run_autograder" not in names or "setup.sh" not in names:
                raise TryError(f"{autograder_zip} has no setup.sh and run_autograder at its root; "
                               "build it with `python -m autograder gradescope --out autograder.zip`")
            zf.extractall(root / "source")
            for info in zf.infolist():  # zipfile does not restore permissions
                mode = info.external_attr >> 16
                if mode & stat.S_IXUSR:
                    (root / "source" / info.filename).chmod(0o755)
    except zipfile.BadZipFile:
        raise TryError(f"{autograder_zip} is not a zip file") from None
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    target = root / "submission"
    if submission.is_dir():
        shutil.copytree(submission, target)
    elif zipfile.is_zipfile(submission):
        with zipfile.ZipFile(submission) as zf:
            zf.extractall(target)
    elif submission.is_file():
        target.mkdir()
        shutil.copy2(submission, target / submission.name)
    else:
        raise TryError(f"{submission} does not exist; give a folder, a zip or a notebook")
    (root / "results").mkdir()
    (root / "submission_metadata.json").write_text(
        json.dumps({"id": 1, "users": [{"name": "Try", "email": "try@example.org"}]}), encoding="utf-8")


def run(autograder_zip: Path, submission: Path, *, keep: Path | None = None,
        python: str = sys.executable, timeout: float = 3600) -> Trial:
    """Grade ``submission`` with ``autograder_zip`` laid out as on Gradescope. The folder
    is ``keep`` when given (it must not exist), else a temporary one that is kept too, so
    that the results can be read afterwards."""
    if not autograder_zip.is_file():
        raise TryError(f"{autograder_zip} does not exist; build it with "
                       "`python -m autograder gradescope --out autograder.zip`")
    if keep is not None and keep.exists():
        raise TryError(f"{keep} already exists; give a new folder for --keep")
    root = keep.resolve() if keep else Path(tempfile.mkdtemp(prefix="gradescope-try-"))
    root.mkdir(parents=True, exist_ok=True)
    lay_out(autograder_zip.resolve(), submission.resolve(), root)
    if not (root / "source" / CONFIG).is_file():
        raise TryError(f"{autograder_zip} has no {CONFIG} at its root; was it built by this course's "
                       "`python -m autograder gradescope`?")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "GRADESCOPE_"))}
    env.update(GRADESCOPE_PYTHON=python)
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)
    results = root / "results" / "results.json"
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise TryError(f"run_autograder wrote no readable {results} (exit {proc.returncode}):\n"
                       + (proc.stdout + proc.stderr)[-3000:]) from None
    tests = data.get("tests", [])
    return Trial(score=float(data.get("score", sum(t.get("score", 0) for t in tests))),
                 max_score=float(sum(t.get("max_score", 0) for t in tests)), results=results,
                 stdout=proc.stdout + proc.stderr, returncode=proc.returncode)
