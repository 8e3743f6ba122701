"""Limits and defaults shared by every way of grading: the module form's sandbox, the
pytest plugin, nbgrader's kernels and grading inside a student's own kernel."""

from __future__ import annotations

import os

DEFAULT_TIMEOUT = 10.0  # seconds per request to student code; reference calls take milliseconds
DEFAULT_MEMORY_GIB = 4.0  # address space of the worker; importing torch alone maps ~0.8 GiB
DEFAULT_BUDGET = 300.0  # seconds of start-ups and calls per assignment; the reference needs < 15
# Torch threads for graded code and the graders' own replays. On a busy machine a thread
# pool on oversubscribed cores can be ten times slower than one thread, and a time limit
# must mean the same there as on a quiet one.
GRADING_THREADS = 1


def thread_env() -> dict[str, str]:
    """Environment variables that start a process (a worker, a kernel) on GRADING_THREADS."""
    return {"OMP_NUM_THREADS": str(GRADING_THREADS)}


def pin_torch_threads() -> int:
    """Run torch on GRADING_THREADS threads in this process; returns the count before."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(GRADING_THREADS)
    return before


# torch's CPU kernels run on OpenMP threads that, by default, spin for a while when idle
# waiting for the next parallel region. On a machine shared with other work (a lab server,
# a laptop with a browser, a CI runner, the test suite's own processes) the spinning takes the
# cores that work needs: beside one busy process the translator trains at 0.30 of its quiet
# speed spinning and 0.77 waiting passively, which costs about a quarter on a quiet machine
# (docs/translator.md, "A shared machine"). Set before torch loads OpenMP; an OMP_WAIT_POLICY
# already in the environment wins, so a user can still choose ACTIVE.
WAIT_POLICY = "PASSIVE"


def passive_waiting() -> None:
    """Make idle OpenMP threads sleep instead of spin, in this process (if torch is not loaded
    yet) and in every process it starts, unless OMP_WAIT_POLICY is set already."""
    os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
