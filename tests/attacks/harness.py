"""The attack suite's harness: grade a submission with the real command line, check that
the run ended normally and left nothing behind, and compare it with its honest control.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import attack_sources as src
import pytest

from autograder.sandbox.isolation import namespaces_available
from helpers import ASSIGNMENTS, Graded, make_submission, run_grade

needs_namespaces = pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")

A1, A2, A3 = "a1_attention", "a2_layernorm", "a3_blocks"
SEEDS = {A1: "11", A2: "12", A3: "13"}
MASK_FUNCTIONS = ("causal_mask", "padding_mask", "target_mask")
INTERNAL = "internal grader error"


@dataclass
class Run:
    graded: Graded
    seconds: float
    tmpdir: Path

    @property
    def text(self) -> str:
        """Everything a student could see: results.json and the command's output."""
        results = json.dumps(self.graded.results, ensure_ascii=False) if self.graded.results else ""
        return "\n".join([results, self.graded.stdout, self.graded.stderr])

    def tests(self, assignment: str) -> dict[str, dict]:
        return self.graded.tests(assignment)

    def outputs(self, assignment: str) -> list[str]:
        return [t["output"] for t in self.tests(assignment).values()]


def _processes_under(*needles: str) -> list[tuple[int, str]]:
    """(pid, description) of every process whose cwd or command line mentions a needle."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            cwd = ""
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            cmdline = ""
        if any(n and (n in cwd or n in cmdline) for n in needles):
            found.append((int(entry), f"pid {entry} cwd={cwd!r} cmd={cmdline[:160]!r}"))
    return found


def _stray_processes(*needles: str, grace: float = 15.0) -> list[str]:
    """Processes left behind by this test (given a few seconds to finish dying); they are
    killed, by pid, before returning, so that a failing test still cleans up."""
    deadline = time.monotonic() + grace
    found = _processes_under(*needles)
    while found and time.monotonic() < deadline:
        time.sleep(0.5)
        found = _processes_under(*needles)
    for pid, _ in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return [what for _, what in found]


def grade(tmp_path: Path, label: str, submission: Path, assignment: str, *options: str, env: dict | None = None,
          plant=None, needles: tuple[str, ...] = (), timeout: float = 600) -> Run:
    """Grade one assignment of ``submission`` with TMPDIR = a fresh folder under ``tmp_path``
    and check that the run ended normally and left nothing behind.

    ``plant(tmpdir)`` may put files in that TMPDIR first (another grading's scratch copy,
    say) and returns what it put there; those are removed before the emptiness check.
    ``needles`` are further strings (a marker in an attacker's process names) that no
    process may carry afterwards.
    """
    tmpdir = tmp_path / f"tmp-{label}"
    tmpdir.mkdir()
    planted = list(plant(tmpdir)) if plant else []
    out = tmp_path / f"out-{label}"
    started = time.monotonic()
    try:
        graded = run_grade(submission, out, "--only", assignment, "--seed", SEEDS[assignment], *options,
                           env={"TMPDIR": str(tmpdir), **(env or {})}, timeout=timeout)
    except subprocess.TimeoutExpired:
        strays = _stray_processes(str(tmp_path), *needles, grace=0)
        pytest.fail(f"grading {label} did not end within {timeout:g} s; killed {len(strays)} process(es)")
    run = Run(graded, time.monotonic() - started, tmpdir)
    for path in planted:
        shutil.rmtree(path, ignore_errors=True)
    strays = _stray_processes(str(tmp_path), *needles)
    left = sorted(os.listdir(tmpdir))
    assert graded.rc == 0, f"grading {label} exited {graded.rc}: {graded.stderr[-2000:]}"
    assert graded.results is not None, f"grading {label} wrote no results.json"
    internal = [name for name, t in run.tests(assignment).items() if INTERNAL in t["output"]]
    assert not internal, f"{label}: internal grader errors in {internal}"
    assert not strays, f"{label}: processes left behind: {strays}"
    assert not left, f"{label}: left in TMPDIR: {left}"
    return run


def scores(run: Run, assignment: str) -> dict[str, float]:
    return {name: t["score"] for name, t in run.tests(assignment).items()}


def assert_no_gain(attack: Run, control: Run, assignment: str) -> None:
    """The attack scores no more than the honest control on any test."""
    got, honest = scores(attack, assignment), scores(control, assignment)
    assert set(got) == set(honest), (sorted(got), sorted(honest))
    gained = {name: (got[name], honest[name]) for name in got if got[name] > honest[name]}
    assert not gained, f"the attack scored more than the honest control on: {gained}"


def is_mask_test(name: str) -> bool:
    return any(fn in name for fn in MASK_FUNCTIONS)


def targeted(run: Run, assignment: str, select) -> dict[str, dict]:
    tests = {name: t for name, t in run.tests(assignment).items() if select(name)}
    assert tests, f"no {assignment} test matched; were the graders renamed?"
    return tests


def attention_tests(run: Run) -> dict[str, dict]:
    """The a1 tests of attention.py (every a1 test that is not about a mask function)."""
    return targeted(run, A1, lambda name: not is_mask_test(name))


def assert_zero(tests: dict[str, dict]) -> None:
    earned = {name: t["score"] for name, t in tests.items() if t["score"] > 0}
    assert not earned, f"targeted tests earned points: {earned}"


# ------------------------------------------------------------------ submissions


def wrong_attention(dest: Path, prelude: str = "") -> Path:
    """Reference a1 with a wrong attention (zeros), after an optional module prelude."""
    return make_submission(dest, {f"{A1}/attention.py": [
        ("from masks import causal_mask\n", "from masks import causal_mask\n" + prelude),
        (src.ATTENTION_BEGIN, src.ATTENTION_BEGIN + src.WRONG_ATTENTION),
    ]})


def stub_attention(dest: Path, appended: str = "") -> Path:
    """Reference masks, the untouched stub attention (plus ``appended`` code)."""
    stub = (ASSIGNMENTS / A1 / "attention.py").read_text(encoding="utf-8")
    return make_submission(dest, files={f"{A1}/attention.py": stub + appended})


def target_mask_with(dest: Path, body: str) -> Path:
    """Reference a1 whose target_mask runs ``body`` first, then returns the right mask."""
    return make_submission(dest, {f"{A1}/masks.py": [(src.TARGET_MASK_BEGIN, body + src.TARGET_MASK_BEGIN)]})
