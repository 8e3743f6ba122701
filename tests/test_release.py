"""`python -m autograder release`: the student repository, and nothing hidden in it."""

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from autograder import release

from helpers import ROOT


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "course"
    proc = subprocess.run([sys.executable, "-m", "autograder", "release", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


def test_release_holds_stubs_tests_data_and_no_hidden_folders(released):
    """Does the release hold assignments, data, README and settings, and no solutions or graders?"""
    names = {p.name for p in released.iterdir()}
    assert {"assignments", "source_data", "README.md", "pyproject.toml", "requirements.txt", "constraints.txt"} <= names
    assert not names & {"solutions", "autograder", "tests", ".git"}
    assert (released / "assignments" / "a1_attention" / "attention.py").read_text() == \
        (ROOT / "assignments" / "a1_attention" / "attention.py").read_text()
    assert release.scan(released) == []


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
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "-c", "constraints.txt", "-r", "requirements.txt"],
        cwd=released, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


LEAKS = {
    "a solution line in a stub": ("assignments/a1_attention/attention.py",
                                  "    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)\n"),
    "a solution marker": ("assignments/a2_layernorm/layernorm.py", "        ### BEGIN SOLUTION\n"),
    "a hidden grader": ("assignments/a1_attention/test_extra.py", "@pytest.mark.points(2)\ndef test_x(student):\n    pass\n"),
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
