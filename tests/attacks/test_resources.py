"""5. Resources: memory, processes, files, slow imports and the time budget."""

from __future__ import annotations

import uuid
from pathlib import Path

import attack_sources as src
import pytest

import helpers
from attacks.harness import (
    A1,
    assert_no_gain,
    assert_zero,
    grade,
    needs_namespaces,
    scores,
    target_mask_with,
    targeted,
)
from helpers import make_submission

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


def test_memory_hog_fails_only_its_own_test(tmp_path, control_reference):
    """Can a call that allocates and touches far more memory than allowed (6 GiB, with
    --memory 1) take the grader or other tests down, or pass? (It must not: only its own
    test fails, with "memory limit" in its output.)"""
    sub = target_mask_with(tmp_path / "sub", src.MEMORY_HOG.format(chunks=96))
    attack = grade(tmp_path, "attack", sub, A1, "--memory", "1")
    assert_no_gain(attack, control_reference, A1)
    hit = targeted(attack, A1, lambda name: "target_mask" in name)
    assert_zero(hit)
    assert all("memory limit" in t["output"] for t in hit.values()), [t["output"] for t in hit.values()]
    others = {n: s for n, s in scores(attack, A1).items() if n not in hit}
    assert others == {n: s for n, s in scores(control_reference, A1).items() if n not in hit}


@needs_namespaces
def test_fork_bomb_fails_only_its_own_test_and_leaves_nothing(tmp_path, control_reference):
    """Can a call that starts 1,000 sleeping processes pass, slow other tests down or leave
    any of them behind? (It must not.)"""
    tag = f"course-attack-{uuid.uuid4().hex[:12]}"
    sub = target_mask_with(tmp_path / "sub", src.FORK_BOMB.format(children=1000, tag=tag))
    attack = grade(tmp_path, "attack", sub, A1, needles=(tag,))
    assert_no_gain(attack, control_reference, A1)
    hit = targeted(attack, A1, lambda name: "target_mask" in name)
    others = {n: s for n, s in scores(attack, A1).items() if n not in hit}
    assert others == {n: s for n, s in scores(control_reference, A1).items() if n not in hit}
    if "NOT limited" in attack.graded.stdout:
        pytest.skip("this kernel gives the sandbox no process cap (no per-namespace pid_max)")
    assert_zero(hit)


@needs_namespaces
def test_files_in_tmp_and_shm_do_not_outlive_grading(tmp_path, control_reference):
    """Can student code leave files (200 MB each) in the machine's /tmp and /dev/shm?
    (It must not: nothing it writes there is left once grading ends.)"""
    tag = f"course-attack-{uuid.uuid4().hex[:12]}"
    leftovers = [Path("/tmp") / f"{tag}.bin", Path("/dev/shm") / f"{tag}.bin"]
    try:
        sub = target_mask_with(tmp_path / "sub", src.TMP_FILES.format(tag=tag, megabytes=200))
        attack = grade(tmp_path, "attack", sub, A1)
        remaining = [str(p) for p in leftovers if p.exists()]
        assert not remaining, f"left on the machine: {remaining}"
        assert_no_gain(attack, control_reference, A1)
        others = {n: s for n, s in scores(attack, A1).items() if "target_mask" not in n}
        assert others == {n: s for n, s in scores(control_reference, A1).items() if "target_mask" not in n}
    finally:
        for path in leftovers:
            path.unlink(missing_ok=True)


@pytest.mark.parametrize("module", helpers.tiered(["json", "traceback", "inspect", "numpy"]))  # fast: the first
def test_module_shadowing_a_needed_one_is_refused(tmp_path, control_reference, module):
    """Can a submitted module named like one the worker imports (json, traceback, inspect,
    numpy) that never finishes importing stall grading, one 120 s start-up after another?
    (It must not: the submission is refused with a message saying what it shadows, and
    grading ends within its time budget.)"""
    budget = 60
    sub = make_submission(tmp_path / "sub", files={f"{A1}/{module}.py": src.SHADOW_SLEEPER})
    attack = grade(tmp_path, "attack", sub, A1, "--budget", str(budget))
    assert_no_gain(attack, control_reference, A1)
    assert "shadows" in attack.text
    assert attack.seconds < budget + 240, f"grading took {attack.seconds:.0f} s with a {budget} s budget"


@pytest.mark.full_only  # it waits out a time budget: minutes of a worker for one verdict
def test_slow_start_ups_stop_at_the_time_budget(tmp_path):
    """Can a submission whose every call costs a fresh worker and a 30 s import make
    grading last as long as it likes (12 tests x 30 s)? (It must not: once --budget is
    spent the remaining tests fail at once, saying so, and grading ends within about the
    budget.)"""
    budget = 45
    crash = {f"{A1}/masks.py": src.CRASH_EVERY_CALL, f"{A1}/attention.py": src.CRASH_EVERY_CALL}
    control = grade(tmp_path, "control", make_submission(tmp_path / "sub-control", files=crash), A1,
                    "--timeout", "60", "--budget", str(budget))
    slow = {name: "import slow_start_helper\n" + text for name, text in crash.items()}
    slow[f"{A1}/{src.SLOW_HELPER}"] = src.SLOW_IMPORT.format(seconds=30)
    attack = grade(tmp_path, "attack", make_submission(tmp_path / "sub", files=slow), A1,
                   "--timeout", "60", "--budget", str(budget))
    assert_no_gain(attack, control, A1)
    assert any("time budget" in out for out in attack.outputs(A1)), attack.outputs(A1)
    assert attack.seconds < budget + 150, f"grading took {attack.seconds:.0f} s with a {budget} s budget"
