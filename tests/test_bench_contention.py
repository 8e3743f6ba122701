"""The contention benchmark's settings and its yardstick (autograder/bench/contention.py)."""

from autograder.bench import contention


def test_the_torch_setting_runs_as_the_course_ran_before():
    """Does the "torch" setting's child get no OMP_WAIT_POLICY (torch's own default waiting)
    even where the environment has one, and the shipped setting PASSIVE?"""
    assert "OMP_WAIT_POLICY" not in contention.child_env("torch", "native")
    assert contention.child_env("passive", "native")["OMP_WAIT_POLICY"] == "PASSIVE"
    assert "import sys, torch;" in contention.CHILD  # torch loads before the package can set PASSIVE


def test_avx2_holds_every_kernel_library_to_avx2():
    """Does --isa avx2 cap MKL, oneDNN and torch's own kernels at AVX2?"""
    held = ("ONEDNN_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS")
    env = contention.child_env("passive", "avx2")
    assert {name: env[name].upper() for name in held} == dict.fromkeys(held, "AVX2")


def test_fair_slowdown_is_the_share_of_the_cores():
    """Is the fair slowdown what t threads beside b busy processes on c cores get?"""
    assert contention.fair_slowdown(2, 0, 2) == 1.0
    assert contention.fair_slowdown(2, 1, 2) == 1.5
    assert contention.fair_slowdown(2, 2, 2) == 2.0
    assert contention.fair_slowdown(1, 1, 2) == 1.0
    assert contention.fair_slowdown(1, 2, 2) == 1.5
