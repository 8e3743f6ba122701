"""2. Reading the reference: another grading's scratch copy, symbolic links, a named pipe."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import attack_sources as src
import pytest

from attacks.harness import (
    A1,
    assert_no_gain,
    assert_zero,
    attention_tests,
    grade,
    needs_namespaces,
    stub_attention,
)
from helpers import ROOT, SOLUTIONS, make_submission

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


def _other_grading_copy(tmpdir: Path) -> list[Path]:
    """What a concurrent a3 grading would hold under the same TMPDIR: the reference a1."""
    other = tmpdir / "course-grade-other"
    (other / A1).mkdir(parents=True)
    shutil.copyfile(SOLUTIONS / A1 / "attention.py", other / A1 / "attention.py")
    return [other]


@needs_namespaces
def test_other_gradings_scratch_copies_are_out_of_reach(tmp_path, control_stub):
    """Can a stub that looks for another grading's scratch copy of the reference a1 (under
    the shared TMPDIR, /tmp, /var/tmp, /dev/shm) and runs it earn points? (It must not.)"""
    sub = stub_attention(tmp_path / "sub", src.STEAL_FROM_OTHER_SCRATCH)
    attack = grade(tmp_path, "attack", sub, A1, plant=_other_grading_copy)
    assert_no_gain(attack, control_stub, A1)
    assert_zero(attention_tests(attack))


def test_symlink_to_reference_is_refused(tmp_path, control_stub):
    """Can a submitted attention.py that is a symbolic link to the reference solution earn
    points? (It must not: the file is refused as not a regular file.)"""
    sub = stub_attention(tmp_path / "sub")
    target = sub / A1 / "attention.py"
    target.unlink()
    target.symlink_to(ROOT / "solutions" / A1 / "attention.py")
    attack = grade(tmp_path, "attack", sub, A1)
    assert_no_gain(attack, control_stub, A1)
    assert_zero(attention_tests(attack))
    assert "not a regular file" in attack.text


def test_symlink_to_proc_environ_leaks_no_secret(tmp_path):
    """Can a submitted file that is a symbolic link to /proc/self/environ make the grader
    copy its own environment for the student's code to raise back? (It must not: no secret
    of the grading command's environment may reach results.json or the output.)"""
    secret = f"s3cr3t-{uuid.uuid4().hex}"
    env = {"COURSE_SECRET_TOKEN": secret}
    control = grade(tmp_path, "control", make_submission(tmp_path / "sub-control",
                    files={f"{A1}/attention.py": src.ENVIRON_ATTENTION}), A1, env=env)
    sub = make_submission(tmp_path / "sub", files={f"{A1}/attention.py": src.ENVIRON_ATTENTION})
    (sub / A1 / src.ENVIRON_FILE).symlink_to("/proc/self/environ")
    attack = grade(tmp_path, "attack", sub, A1, env=env)
    assert secret not in attack.text
    assert secret not in control.text
    assert_no_gain(attack, control, A1)
    assert "not a regular file" in attack.text


def test_named_pipe_in_submission_does_not_hang_grading(tmp_path, control_reference):
    """Can a named pipe in a submission folder (helper.py) make the grader block forever
    reading it? (It must not: the pipe is refused as not a regular file and grading ends.)"""
    sub = make_submission(tmp_path / "sub")
    os.mkfifo(sub / A1 / "pipe_helper.py")
    attack = grade(tmp_path, "attack", sub, A1, timeout=400)
    assert_no_gain(attack, control_reference, A1)
    assert "not a regular file" in attack.text
