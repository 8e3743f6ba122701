"""The public tests that students run: `pytest assignments`."""

import ast
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import helpers
from autograder import course
from autograder.stubs import given_modules
from helpers import ROOT, SOLUTIONS


def _run(tmp_path, *args, env=None):
    xml = tmp_path / "junit.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "assignments", f"--junitxml={xml}", *args],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300,
    )
    cases = ET.parse(xml).getroot().iter("testcase")
    return proc, list(cases)


def test_stubs_fail_only_with_not_implemented(tmp_path):
    """Does every public test fail on the stubs with one short 'not implemented yet' line?"""
    proc, cases = _run(tmp_path)
    assert proc.returncode == 1 and len(cases) >= 10
    for case in cases:
        failure = case.find("failure")
        assert failure is not None, f"{case.get('name')} did not fail on the stubs"
        text = failure.text or ""
        assert text.startswith("not implemented yet: "), f"{case.get('name')}: {text[:300]}"
        assert "aún sin implementar" in text and "Traceback" not in text and len(text.splitlines()) == 1
    assert "Traceback" not in proc.stdout


def test_solutions_pass_with_option_and_with_environment(tmp_path):
    """Do the same tests pass when pointed at solutions/ by option or by COURSE_TARGET?"""
    for args, env in ((("--course-target", "solutions"), None), ((), {"COURSE_TARGET": "solutions"})):
        proc, cases = _run(tmp_path, *args, env=env)
        assert proc.returncode == 0, proc.stdout[-2000:]
        assert cases and all(case.find("failure") is None and case.find("error") is None for case in cases)
        assert "course target: " + str(ROOT / "solutions") in proc.stdout


def test_bad_target_is_a_clear_usage_error(tmp_path):
    """Does a wrong --course-target stop with a message that names it?"""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "assignments", "--course-target", "nowhere"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 4 and "'nowhere' is not a folder" in proc.stderr


def test_every_public_assert_says_what_was_expected():
    """Does every assert of every public test carry a message, and every assert_close a
    msg=, so that a failure never reads `assert False` to a student?"""
    bare = []
    for path in sorted(SOLUTIONS.glob("a*/test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assert) and node.msg is None:
                bare.append(f"{path.relative_to(SOLUTIONS)}:{node.lineno}: assert without a message")
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("assert_close", "assert_equal")
                  and not any(k.arg == "msg" for k in node.keywords)):
                bare.append(f"{path.relative_to(SOLUTIONS)}:{node.lineno}: {node.func.attr} without msg=")
    assert not bare, "\n".join(bare)


def test_every_correct_submission_passes_the_public_tests(tmp_path):
    """Do the public tests pass on each independently written correct submission (other
    styles, float64 inside, their own helpers), so that no correct student
    code is told it is wrong before submitting? Each runs beside the given modules as
    released, as in a student's copy. (The fast tier tries helpers.CORRECT_FAST.)"""
    styles = sorted(p for p in (ROOT / "tests" / "correct_submissions").iterdir() if p.is_dir())
    assert len(styles) >= 8
    for style in [s for s in styles if helpers.FULL or s.name in helpers.CORRECT_FAST]:
        copy = tmp_path / style.name
        shutil.copytree(style, copy)
        for assignment in course.ASSIGNMENTS:
            for name, text in given_modules(SOLUTIONS / assignment.name).items():
                (copy / assignment.name / name).write_text(text, encoding="utf-8")
        proc, cases = _run(tmp_path, "--course-target", str(copy))
        failed = [c.get("name") for c in cases if c.find("failure") is not None or c.find("error") is not None]
        assert proc.returncode == 0 and not failed, f"{style.name}: {failed}\n{proc.stdout[-2000:]}"
