"""`python -m autograder release`: the student repository, and nothing hidden in it."""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from autograder import course, stubs
from autograder.authoring import release
from autograder.notebooks import files, sources
from autograder.platforms import gradescope
from helpers import ROOT, run_release

pytestmark = pytest.mark.xdist_group("release")  # one worker builds its costly fixture (conftest.py)


def _release(tmp_path_factory, *args):
    return run_release(tmp_path_factory.mktemp("release") / "course", *args)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    return _release(tmp_path_factory)  # Spanish, the default


@pytest.fixture(scope="module")
def released_en(tmp_path_factory):
    return _release(tmp_path_factory, "--lang", "en")


def test_release_holds_stubs_tests_data_and_no_hidden_folders(released):
    """Does the release hold assignments, data, notebooks, README and settings, and no solutions or graders?"""
    names = {p.name for p in released.iterdir()}
    assert {"assignments", "source_data", "notebooks", "README.md", "pyproject.toml", "requirements.txt",
            "constraints.txt"} <= names
    assert not names & {"solutions", "autograder", "tests", ".git"}
    assert (released / "assignments" / "a1_attention" / "attention.py").read_text() == \
        stubs.hints_in((ROOT / "assignments" / "a1_attention" / "attention.py").read_text(), "es")
    assert release.scan(released) == []


def _notebook_langs(release_dir):
    return {json.loads(p.read_text(encoding="utf-8"))["metadata"]["course"]["lang"]
            for p in (release_dir / "notebooks").glob("*/*.ipynb")}


def test_release_holds_the_student_notebooks_of_the_chosen_language(released, released_en):
    """Does the release hold every narrated notebook (Spanish by default, English with --lang en),
    stubbed, with its data?"""
    for a in course.ASSIGNMENTS:
        if not sources.has_narrative(a, "es"):
            continue
        folder = released / "notebooks" / a.name
        nb = json.loads((folder / f"{a.name}.ipynb").read_text(encoding="utf-8"))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert 'raise NotImplementedError("not implemented yet: ' in code and "nbgrader" not in json.dumps(nb["cells"])
        for path in files.data_files(a):
            assert (folder / path.name).read_bytes() == path.read_bytes()
        # The narrative links errata.md by that relative name: the page ships beside the notebook.
        assert (folder / "errata.md").read_bytes() == (course.course_root() / "docs" / "errata.md").read_bytes()
    assert _notebook_langs(released) == {"es"}
    assert _notebook_langs(released_en) == {"en"} and release.scan(released_en) == []


def _hint_languages(release_dir):
    texts = [p.read_text(encoding="utf-8") for p in (release_dir / "assignments").rglob("*.py")]
    texts += [release.readable_text(p) for p in (release_dir / "notebooks").glob("*/*.ipynb")]
    return {lang for lang, start in stubs.HINT_STARTS.items() if any(start in text for text in texts)}


def test_a_single_language_release_keeps_that_language_s_hints(released, released_en):
    """Do a Spanish release's stubs and notebooks hold only the Spanish hints, and an English one only the English?"""
    assert _hint_languages(released) == {"es"} and _hint_languages(released_en) == {"en"}
    for name in ("multihead.py", "positional.py"):
        checkout = (ROOT / "assignments" / "a3_blocks" / name).read_text(encoding="utf-8")
        assert "# Pista:" in checkout and "# Hint:" in checkout  # the bilingual checkout keeps both
        for out, lang in ((released, "es"), (released_en, "en")):
            text = (out / "assignments" / "a3_blocks" / name).read_text(encoding="utf-8")
            assert stubs.code_lines(text) == stubs.code_lines(checkout)  # only comments go
            assert text == stubs.hints_in(checkout, lang)


def test_public_tests_run_in_the_release_and_fail_as_not_implemented(released, tmp_path):
    """Does `pytest` inside the release run every public test, each failing with 'not implemented yet'?"""
    xml = tmp_path / "junit.xml"
    env = {k: v for k, v in os.environ.items() if k not in ("COURSE_TARGET", "COURSE_ROOT", "PYTEST_ADDOPTS")}
    proc = subprocess.run([sys.executable, "-m", "pytest", f"--junitxml={xml}"], cwd=released,
                          capture_output=True, text=True, timeout=300, env=env)
    cases = list(ET.parse(xml).getroot().iter("testcase"))
    assert proc.returncode == 1 and len(cases) >= 30, proc.stdout[-1500:]
    for case in cases:
        failure = case.find("failure")
        assert failure is not None and (failure.text or "").startswith("not implemented yet: "), case.get("name")


def test_release_requirements_resolve(released):
    """Do the release's requirements resolve with its constraints (pip, dry run)?"""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
         "-c", "constraints.txt", "-r", "requirements.txt"],
        cwd=released, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_release_install_text_speaks_to_the_student(released):
    """Do the release's README and constraints say nothing of the course repository (its
    machines, CI, pytest-xdist, tests/conftest.py), does every install command name only
    files the release has, and does every command that pins torch also take torch's CPU
    index (on Linux the pin alone takes the CUDA build, several GB)?"""
    constraints = (released / "constraints.txt").read_text(encoding="utf-8")
    readme = (released / "README.md").read_text(encoding="utf-8")
    for name, text in {"constraints.txt": constraints, "README.md": readme}.items():
        found = [w for w in ("this project", "project's machines", "xdist", "conftest") if w in text]
        found += re.findall(r"\bCI\b|(?<![\w/])tests/", text)  # public_tests/ is the student's
        assert not found, (name, found)
    assert "pins the CPU build" not in readme
    commands = re.findall(r"^\s*(pip install [^\n`]*)", readme, re.M) + re.findall(r"`(pip install [^`]*)`", readme)
    assert len([c for c in commands if "-r requirements.txt" in c]) >= 3, commands  # no GPU, GPU, notebook service
    for command in commands:
        files = re.findall(r"-[rc] (\S+)", command)
        assert all((released / f).is_file() for f in files), command
        if "-c constraints.txt" in command:
            assert "--extra-index-url https://download.pytorch.org/whl/cpu" in command, command
    pin = re.search(r"^torch==(\S+)$", constraints, re.M)
    assert pin and pin.group(1) == gradescope.TORCH_VERSION


def test_release_readme_names_only_what_a_student_can_run_there(released):
    """Does the release's README say how a student checks their work (public tests, the
    notebook's check(), Classroom's push) with commands that exist in the release: every
    `pytest PATH` names a folder of it, every `check("module")` a module that a released
    notebook checks, the Classroom workflow the file that --classroom writes, and no
    `python -m autograder` (the graders are not in the release, by design)?"""
    from autograder.platforms import classroom

    readme = (released / "README.md").read_text(encoding="utf-8")
    assert "python -m autograder" not in readme and "autograder grade" not in readme
    runs = re.findall(r"`(pytest[^`]*)`", readme) + re.findall(r"^(pytest[^#\n]*)", readme, re.M)
    assert "pytest" in [r.strip() for r in runs], runs
    for command in runs:
        for path in command.split()[1:]:
            assert (released / path).exists(), command
    checks = re.findall(r'`check\("(\w+)"\)`', readme)
    notebooks = "\n".join(p.read_text(encoding="utf-8") for p in released.glob("notebooks/*/*.ipynb"))
    assert checks and "`check()`" in readme
    assert all(f"check('{m}')" in notebooks or f'check(\\"{m}\\")' in notebooks for m in checks), checks
    assert "`git push`" in readme and f"`{classroom.STUDENT_WORKFLOW}`" in readme
    # the one line it quotes is what pytest prints here (one-language hints move the stub's lines)
    for name, file, line in re.findall(r"not implemented yet: (\w+) \((\w+\.py):(\d+)\)", readme):
        stub = next(released.glob(f"assignments/a*/{file}")).read_text(encoding="utf-8").split("\n")
        assert f'NotImplementedError("not implemented yet: {name}")' in stub[int(line) - 1], line


def test_release_keeps_the_torch_a_machine_already_has(released, tmp_path):
    """Does the command for a GPU machine or a notebook service (requirements only) leave
    an installed torch alone (pip, dry run, in this environment that has torch)?"""
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                           "-r", "requirements.txt"], cwd=released, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    installs = {i["metadata"]["name"].lower() for i in json.loads(report.read_text(encoding="utf-8"))["install"]}
    assert "torch" not in installs, installs


LEAKS = {
    "a solution line in a stub": ("assignments/a1_attention/attention.py",
                                  "    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)\n"),
    "a solution marker": ("assignments/a2_layernorm/layernorm.py", "        ### BEGIN SOLUTION\n"),
    "a hidden grader": ("assignments/a1_attention/test_extra.py",
                        "@pytest.mark.points(2)\ndef test_x(student):\n    pass\n"),
    "an autograder import": ("assignments/a1_attention/test_extra.py", "from autograder import checks\n"),
}


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_scan_catches_each_kind_of_leak(leak, released, tmp_path):
    """Does the scan report a solution line, a marker, grader code or an autograder import?"""
    copy = tmp_path / "copy"
    shutil.copytree(released, copy)
    rel, text = LEAKS[leak]
    with open(copy / rel, "a", encoding="utf-8") as f:
        f.write(text)
    problems = release.scan(copy)
    assert problems and all(p.startswith(rel) for p in problems), problems


NOTEBOOK_LEAKS = {
    # A line with quotes: in the notebook's JSON it reads float(\"-inf\"), so only a scan of
    # the cells (not of the raw file) finds it.
    "a solution line with quotes": '        scores = scores.masked_fill(~mask, float("-inf"))',
    "a hidden test cell": ("### BEGIN HIDDEN TESTS\n# a1_attention/test_masks.py::test_causal_mask\n"
                           "### END HIDDEN TESTS"),
}


@pytest.mark.parametrize("leak", sorted(NOTEBOOK_LEAKS))
def test_scan_reads_notebook_cells(leak, released, tmp_path):
    """Does the scan find solution code or a hidden test written into a notebook cell?"""
    copy = tmp_path / "copy"
    shutil.copytree(released, copy)
    path = copy / "notebooks" / "a1_attention" / "a1_attention.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "code", "execution_count": None, "id": "leak", "metadata": {}, "outputs": [],
                        "source": NOTEBOOK_LEAKS[leak]})
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    problems = release.scan(copy)
    assert problems and all(p.startswith("notebooks/a1_attention/a1_attention.ipynb") for p in problems), problems


def test_scan_catches_hidden_folders(released, tmp_path):
    """Does a solutions/ or autograder/ folder anywhere in the tree count as a leak?"""
    copy = tmp_path / "copy"
    shutil.copytree(released, copy)
    shutil.copytree(ROOT / "autograder" / "graders" / "a1_attention", copy / "assignments" / "autograder")
    assert any("hidden folder" in p for p in release.scan(copy))


def test_release_never_overwrites_a_folder_it_did_not_write(tmp_path):
    """Does release refuse a non-empty folder that is not an earlier release, and keep its files?"""
    (tmp_path / "notes.txt").write_text("mine")
    proc = subprocess.run([sys.executable, "-m", "autograder", "release", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "not an earlier release" in proc.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"
