"""The student repository: ``python -m autograder release --out DIR``.

Writes stubs and public tests (generated from solutions/ afresh, as ``sync`` would), the
fixtures in source_data/, the notebooks of one language (``--lang``; the student version,
next to the data they read), a student README, requirements and pytest settings. Stubs
and notebooks keep the hints of that language only (the bilingual checkout keeps both).
No solutions, no graders; with ``--classroom``, GitHub Classroom's workflow that reports
the public tests' points on every push. Beside the folder, ``DIR.zip``: the release in one
top folder, as GitHub's "Download ZIP" gives a repository. Each notebook opens with a setup
cell (:mod:`autograder.notebooks.standalone`) that, on a notebook service where it was
opened alone, fetches its folder from a zip of the release: one uploaded next to it, or the
one at ``--publish-url`` (where the instructor publishes ``DIR.zip`` or the repository).
After writing, :func:`scan` checks the tree for anything hidden (hidden folders, solution
markers, solution code, grader code, ``autograder`` imports) and the release is refused on a
finding (a model answer of a written question counts too).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import zipfile
from pathlib import Path

from .. import course
from ..filetree import mirror
from ..markers import BEGIN_HIDDEN, BEGIN_SOLUTION, END_HIDDEN, END_SOLUTION
from ..notebooks import build as notebooks
from ..notebooks import sources, standalone
from ..notebooks.files import notebook_files
from ..platforms import classroom as github_classroom
from ..stubs import code_lines, distinctive_solution_lines, hints_in
from .sync import expected_tree

MARKER = ".course-release"  # marks a folder this command wrote, so it may replace it
FILES = Path(__file__).with_name("release_files")
_HIDDEN_NAMES = {"solutions", "autograder", "graders", "tests", ".git"}


class ReleaseError(Exception):
    """The release could not be written, or would leak something hidden."""


def zip_path(out: Path) -> Path:
    """Where the release's zip goes: ``DIR.zip`` beside ``DIR``."""
    return out.parent / f"{out.name}.zip"


def _is_release_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return f"{path.stem}/{MARKER}" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _write_zip(out: Path) -> Path:
    """``DIR.zip``: every file of the release under one top folder ``DIR/``."""
    path = zip_path(out)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(p for p in out.rglob("*") if p.is_file()):
            archive.write(file, f"{out.name}/{file.relative_to(out).as_posix()}")
    return path


def publish_address(url: str | None) -> str | None:
    """The address a notebook's setup cell fetches the release's zip from: an http(s) or
    file URL as given, a path made absolute (a local zip, for trying a release out)."""
    if not url:
        return None
    if "://" in url:
        if not url.startswith(standalone.URL_SCHEMES):
            raise ReleaseError(f"--publish-url {url!r}: give an http(s):// or file:// URL, or a path to a zip")
        return url
    path = Path(url).expanduser().resolve()
    if path.is_dir():
        raise ReleaseError(f"--publish-url {url!r} is a folder; give the zip of a release (e.g. {path}.zip)")
    return str(path)


def requirement_specs() -> dict[str, str]:
    """Module -> what pip installs when it is missing: each requirement of the release,
    pinned where constraints.txt pins it (``torch`` -> ``torch==2.13.0``)."""
    def specs(name: str) -> dict[str, str]:
        lines = (FILES / name).read_text(encoding="utf-8").splitlines()
        found = {}
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line:
                found[re.split(r"[<>=!~\[;\s]", line, maxsplit=1)[0]] = line
        return found

    pins = specs("constraints.txt")
    return {name.lower().replace("-", "_"): pins.get(name, spec) for name, spec in specs("requirements.txt").items()}


def _prepare(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} is a file; give a folder for the release")
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise ReleaseError(f"{out} is not empty and is not an earlier release; give a new or empty folder")
        shutil.rmtree(out)  # an earlier release of ours: replace it whole
    out.mkdir(parents=True, exist_ok=True)


def build(out: Path, lang: str = "es", classroom: bool = False, publish_url: str | None = None) -> list[str]:
    """Write the release to ``out`` and its zip beside it (:func:`zip_path`); returns the
    relative paths written in ``out``. ``classroom``: add GitHub Classroom's autograding
    workflow (public tests only, see platforms/classroom.py). ``publish_url``: where the
    instructor publishes the release's zip, for the notebooks' setup cell."""
    if lang not in sources.LANGS:
        raise ReleaseError(f"unknown language {lang!r}; choose one of {', '.join(sources.LANGS)}")
    out = out.resolve()
    root = course.course_root()
    if out == root or root in out.parents:
        raise ReleaseError(f"write the release outside the course checkout ({root})")
    address = publish_address(publish_url)
    if zip_path(out).exists() and not _is_release_zip(zip_path(out)):
        raise ReleaseError(f"{zip_path(out)} exists and is not the zip of an earlier release; move it away")
    _prepare(out)
    zip_path(out).unlink(missing_ok=True)  # an earlier release's, checked above: never a stale one beside a new tree
    # What sync writes, with the hints of one language (the checkout keeps both). Into a
    # fresh folder mirror only writes: every line it returns reads "wrote <path>".
    tree = {rel: hints_in(data.decode("utf-8"), lang).encode("utf-8") if rel.suffix == ".py" else data
            for rel, data in expected_tree(course.solutions_dir()).items()}
    written = [f"assignments/{line.removeprefix('wrote ')}" for line in mirror(out / "assignments", tree)]
    shutil.copytree(course.data_dir(), out / "source_data")
    written += [f"source_data/{p.relative_to(out / 'source_data')}"
                for p in sorted((out / "source_data").rglob("*")) if p.is_file()]
    written += _write_notebooks(out / "notebooks", lang, address)
    for name in ("README.md", "requirements.txt", "constraints.txt", "pyproject.toml"):
        shutil.copyfile(FILES / name, out / name)
        written.append(name)
    if classroom:
        written += github_classroom.write_student_files(out, [a.name for a in course.ASSIGNMENTS])
    (out / MARKER).write_text("written by `python -m autograder release`; safe to replace\n", encoding="utf-8")
    problems = scan(out)
    if problems:
        shutil.rmtree(out)
        raise ReleaseError("the release would leak hidden material, nothing was written:\n  " + "\n  ".join(problems))
    _write_zip(out)
    return written


def _write_notebooks(folder: Path, lang: str, address: str | None) -> list[str]:
    """``notebooks/<assignment>/<assignment>.ipynb`` (student version, opening with the
    setup cell that fetches its folder when it is opened alone), its data files and its self-check."""
    written = []
    packages = requirement_specs()
    for assignment in course.ASSIGNMENTS:
        if not sources.has_narrative(assignment, lang):
            continue
        target = folder / assignment.name
        nb = notebooks.student_version(notebooks.build(assignment, lang))
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.source = hints_in(cell.source, lang)
        # Before the first code cell (the imports): on a bare service torch may be missing.
        first = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
        nb.cells[first:first] = standalone.setup_cells(assignment, lang, address, packages)
        notebooks.write(nb, target / sources.notebook_name(assignment))
        for rel, data in notebook_files(assignment).items():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(data)
        written += [f"notebooks/{assignment.name}/{p.relative_to(target).as_posix()}"
                    for p in sorted(target.rglob("*")) if p.is_file()]
    return written


def readable_text(path: Path) -> str:
    """What a reader of ``path`` sees: a notebook's cell sources and outputs, an HTML page's
    text (tags dropped, entities decoded: code is split into highlighted spans there),
    any other file as it is. Raises UnicodeDecodeError for binary files."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        try:
            nb = json.loads(text)
        except ValueError:
            return text
        parts = []
        for cell in nb.get("cells", []):
            parts.append("".join(cell.get("source", "")))
            for output in cell.get("outputs", []):
                parts.append("".join(output.get("text", "")))
                parts += output.get("traceback", [])
                parts += ["".join(v) for v in output.get("data", {}).values() if isinstance(v, (str, list))]
        return "\n".join(parts)
    if path.suffix in (".html", ".htm"):
        return html.unescape(re.sub(r"<[^>]+>", "", text))
    return text


def scan(tree: Path) -> list[str]:
    """Everything in ``tree`` that must never reach students, one line each."""
    secrets = distinctive_solution_lines(course.solutions_dir())
    answers = sources.model_answer_lines()  # the written answers' model answers (notebook narratives)
    problems = []
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree)
        if _HIDDEN_NAMES.intersection(rel.parts):
            problems.append(f"{rel}: hidden folder")
            continue
        if not path.is_file():
            continue
        try:
            text = readable_text(path)
        except UnicodeDecodeError:
            continue
        for marker in (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN):
            if marker in text:
                problems.append(f"{rel}: contains {marker!r}")
        if "@pytest.mark.points" in text:
            problems.append(f"{rel}: contains hidden grader code (@pytest.mark.points)")
        if re.search(r"^\s*(from|import)\s+autograder\b", text, re.MULTILINE):
            problems.append(f"{rel}: imports the autograder package, which students do not get")
        told = sorted(line for line in answers if line in text)
        if told:
            problems.append(f"{rel}: contains a written answer's model answer, e.g. {told[0]!r}")
        code = code_lines(text)
        leaked = sorted(line for line in secrets if line in code)
        if leaked:
            problems.append(f"{rel}: contains solution code, e.g. {leaked[0]!r}")
    return problems
