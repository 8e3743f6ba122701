"""A released notebook opened alone, as on Colab or Kaggle: its first cell fetches its folder
(autograder/notebooks/standalone.py) from the release's zip, at --publish-url or uploaded."""

import json
import re
import shutil
import zipfile

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import course
from autograder.authoring import release
from autograder.markers import BEGIN_SOLUTION, END_SOLUTION
from autograder.notebooks import build, extract, sources, standalone
from helpers import run_release

pytestmark = pytest.mark.xdist_group("release")  # one worker builds the releases (conftest.py)

ASSIGNMENT = course.get("a2_layernorm")  # the cheapest notebook: one module, one check cell
NOTEBOOK = sources.notebook_name(ASSIGNMENT)
READY = re.compile(r"^Ready: the files of a2_layernorm are in (\S+) / Listo: ", re.M)
UPLOAD = "upload the course zip (Colab: Files pane) and run this cell again / "
NOT_RUN = "Checks not run: no module 'selfcheck'; run the first cell of the notebook"


def _release(base, *args):
    return run_release(base / "course", *args)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A Spanish release whose notebooks fetch the release's own zip (a local path here)."""
    base = tmp_path_factory.mktemp("published")
    return _release(base, "--publish-url", str(base / "course.zip"))


@pytest.fixture(scope="module")
def unpublished(tmp_path_factory):
    return _release(tmp_path_factory.mktemp("unpublished"))


def _solved(notebook_path):
    """The released notebook with its solution cells holding the reference code (matched by cell id)."""
    nb = nbformat.read(notebook_path, as_version=4)
    reference = {c.id: c.source for c in build.build(ASSIGNMENT, "es").cells
                 if c.cell_type == "code" and c.metadata["nbgrader"]["solution"]}
    filled = 0
    for cell in nb.cells:
        if cell.id in reference:
            cell.source = "\n".join(line for line in reference[cell.id].split("\n")
                                    if line.strip() not in (BEGIN_SOLUTION, END_SOLUTION))
            filled += 1
    assert filled == len(reference) > 0
    return nb


def _alone(tmp_path, nb):
    """``nb`` copied alone into an empty folder, as a notebook service opens it."""
    folder = tmp_path / "service"
    folder.mkdir()
    nbformat.write(nb, folder / NOTEBOOK)
    return folder


def _execute(nb, folder, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return nb


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs)


def _errors(nb) -> dict[str, str]:
    return {c.id: o.ename for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"}


def _checks(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.id.startswith("check-")]


def _assert_setup_cells(release_dir, url):
    """Every released notebook has, before its first code cell, a note and the setup cell
    (no nbgrader metadata), fetching from ``url``."""
    paths = sorted((release_dir / "notebooks").glob("*/*.ipynb"))
    assert len(paths) == sum(sources.has_narrative(a, "es") for a in course.ASSIGNMENTS)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        setup = nb.cells[code[0]]
        assert setup.id == standalone.SETUP_ID and nb.cells[code[0] - 1].id == standalone.NOTE_ID, path
        assert f'ASSIGNMENT = "{path.parent.name}"' in setup.source and "nbgrader" not in setup.metadata
        assert f'COURSE_ZIP = "{url}"' in setup.source
        assert 'PACKAGES = {\n    "torch": "torch==2.13.0",' in setup.source  # the release's pin
        assert nb.cells[code[1]].id == "imports"  # torch is imported after the setup


def test_every_released_notebook_opens_with_its_setup_cell(published):
    """Does every released notebook open with the setup cell, holding the --publish-url as
    given, and is the release's zip beside it, in one top folder?"""
    _assert_setup_cells(published, str(published.parent / "course.zip"))
    names = zipfile.ZipFile(published.parent / "course.zip").namelist()
    assert all(name.startswith("course/") for name in names) and "course/notebooks/a2_layernorm/selfcheck.py" in names


def test_a_notebook_alone_fetches_its_folder_and_its_checks_pass(published, tmp_path, monkeypatch):
    """Opened alone (no folder, no zip beside it), does the solved notebook fetch its folder
    from the published zip in its first cell and then run top to bottom, every check passing?"""
    folder = _alone(tmp_path, _solved(published / "notebooks" / ASSIGNMENT.name / NOTEBOOK))
    nb = _execute(nbformat.read(folder / NOTEBOOK, as_version=4), folder, monkeypatch)
    assert _errors(nb) == {}
    ready = READY.search(_printed(nb.cells[[c.id for c in nb.cells].index(standalone.SETUP_ID)]))
    assert ready and ready.group(1) == str(folder / ASSIGNMENT.name)
    fetched = folder / ASSIGNMENT.name
    assert (fetched / "selfcheck.py").is_file() and (fetched / "public_tests" / "test_layernorm.py").is_file()
    assert not (fetched / NOTEBOOK).exists()  # only the files beside it: the student's notebook stays the one
    checks = _checks(nb)
    assert checks
    for cell in checks:
        text = _printed(cell)
        passed, total = map(int, re.search(r"^(\d+)/(\d+) passed / superadas", text, re.M).groups())
        assert passed == total > 0 and "FAILED" not in text, text


@pytest.mark.full_only  # a second release and two more kernels
def test_a_notebook_alone_without_an_address_says_how_to_upload_and_its_checks_say_why(
        unpublished, tmp_path, monkeypatch):
    """Released without --publish-url and opened alone, does the first cell print the one-line
    upload instruction without failing, and each check cell say in one line that the checks
    did not run (no traceback, no verdict)? With the release's zip uploaded beside it, does
    the first cell then take its folder from that zip, so the checks run?"""
    _assert_setup_cells(unpublished, "")
    folder = _alone(tmp_path, _solved(unpublished / "notebooks" / ASSIGNMENT.name / NOTEBOOK))
    nb = _execute(nbformat.read(folder / NOTEBOOK, as_version=4), folder, monkeypatch)
    setup = next(c for c in nb.cells if c.id == standalone.SETUP_ID)
    assert [o.output_type for o in setup.outputs] == ["stream"] and UPLOAD in _printed(setup)
    assert _printed(setup).count("\n") == 1
    for cell in _checks(nb):
        assert [o.output_type for o in cell.outputs] == ["stream"] and _printed(cell).startswith(NOT_RUN)
        assert "PASSED" not in _printed(cell)
    # What fails is what reads the notebook's data (and then uses what it would have read).
    assert "FileNotFoundError" in _errors(nb).values() and set(_errors(nb).values()) <= {"FileNotFoundError",
                                                                                          "NameError"}

    # The student uploads the release's zip beside the notebook and runs the first cells again.
    shutil.copyfile(unpublished.parent / "course.zip", folder / "course.zip")
    again = nbformat.read(folder / NOTEBOOK, as_version=4)
    again.cells = [c for c in again.cells if c.id in (standalone.SETUP_ID, "imports")
                   or c.id.startswith("code-") or c.id.startswith("check-")]
    again = _execute(again, folder, monkeypatch)
    assert _errors(again) == {} and READY.search(_printed(again.cells[0]))
    for cell in _checks(again):
        assert re.search(r"^(\d+)/\1 passed / superadas", _printed(cell), re.M), _printed(cell)


def test_in_its_folder_the_setup_cell_does_nothing(published, tmp_path, monkeypatch):
    """Run where the release put the notebook (selfcheck.py beside it), does the setup cell
    print nothing, leave the working folder alone and write nothing?"""
    folder = published / "notebooks" / ASSIGNMENT.name
    before = sorted(p.name for p in folder.iterdir())
    nb = nbformat.read(folder / NOTEBOOK, as_version=4)
    nb.cells = [next(c for c in nb.cells if c.id == standalone.SETUP_ID),
                nbformat.v4.new_code_cell("import os\nprint(os.getcwd())")]
    nb = _execute(nb, folder, monkeypatch)
    assert nb.cells[0].outputs == [] and _printed(nb.cells[1]).strip() == str(folder)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_the_module_form_ignores_the_setup_cell(published):
    """Is a released notebook handed in (grade, grade-class, nbgrader autograde) turned into
    the same modules with or without its setup cell, with no note about it?"""
    nb = _solved(published / "notebooks" / ASSIGNMENT.name / NOTEBOOK)
    with_setup = extract.module_form(json.loads(nbformat.writes(nb)), ASSIGNMENT)
    nb.cells = [c for c in nb.cells if c.id not in (standalone.SETUP_ID, standalone.NOTE_ID)]
    without = extract.module_form(json.loads(nbformat.writes(nb)), ASSIGNMENT)
    assert with_setup.modules == without.modules and with_setup.notes == without.notes == []
    assert not any("subprocess" in text or "COURSE_ZIP" in text for text in with_setup.modules.values())


def test_publish_url_forms(tmp_path):
    """Does --publish-url keep an http(s)/file URL, make a path absolute, and refuse a folder
    or another scheme; does a release refuse to replace a zip it did not write; and does each
    requirement get the release's pin?"""
    url = "https://github.com/org/course/archive/refs/heads/main.zip"
    assert release.publish_address(url) == url and release.publish_address(None) is None
    assert release.publish_address("file:///srv/course.zip") == "file:///srv/course.zip"
    assert release.publish_address(str(tmp_path / "x" / ".." / "course.zip")) == str(tmp_path / "course.zip")
    for bad in (str(tmp_path), "ftp://host/course.zip"):
        with pytest.raises(release.ReleaseError):
            release.publish_address(bad)
    (tmp_path / "course.zip").write_text("not ours")
    with pytest.raises(release.ReleaseError, match="not the zip of an earlier release"):
        release.build(tmp_path / "course")
    assert not (tmp_path / "course").exists() and (tmp_path / "course.zip").read_text() == "not ours"
    specs = release.requirement_specs()
    assert specs["torch"] == "torch==2.13.0" and specs["pytest"].startswith("pytest>=")
    assert set(specs) == {"torch", "numpy", "pytest", "matplotlib", "torchinfo"}
