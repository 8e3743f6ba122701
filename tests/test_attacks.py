# Scores before the hardening (commit 9f8aa4f), measured by running this file against a
# worktree of that commit (PYTHONPATH and COURSE_ROOT pointing to it; --memory and --budget
# dropped, that code has neither). Targeted points earned / available, attack vs the honest
# control (same submission without the trick):
#
#  1  resource.py planted in the grading folder, wrong attention: 13/13 vs 0/13 (the fork
#     that becomes the worker imports it outside the sandbox and rewrites the report: a1 15/15)
#  2a stub that runs another grading's scratch copy of the reference: 13/13 vs 0/13
#  2b attention.py as a symbolic link to the reference: 13/13 vs 0/13
#  2c env_dump.py -> /proc/self/environ: 0/13 vs 0/13, but the grading command's
#     COURSE_SECRET_TOKEN appeared in results.json and stdout
#  2d a named pipe in the submission: grading hung (killed at 400 s) vs 15/15 in ~4 s
#  3a `grad` replies forged with no gradients, wrong attention: 1/1 vs 0/1
#  3b tensor shapes [2**63, 0], [2**64, 0], [2**62, 4, 0]: exit 2, 8 internal grader errors,
#     vs 0/13 with exit 0; 200 dimensions of 1 and a 2**64-1 byte frame: 0/13, exit 0 (held)
#  4  a3 worker sending the reference a1 out (0/15 vs 0/15): reference lines recovered from
#     results.json out of 16: base64 10, reversed 11, 6-char chunks 1, one char per line 11,
#     exception type name 11, function name in "where" 10
#  5a target_mask touching 6 GiB: 0/1 vs 1/1, but only because it hit the 10 s call limit
#     after touching several GiB; no memory limit
#  5b target_mask forking 1,000 sleepers: 1/1 vs 1/1 (no process cap; none left behind)
#  5c 200 MB written to /tmp and /dev/shm: 1/1 vs 1/1, both files left on the machine
#  5d json.py / traceback.py / inspect.py / numpy.py that sleep at import: grading never
#     ended (killed at 600 s / 200 s; each worker start waits out the 120 s start-up limit)
#     vs 15/15 in ~4 s
#  5e every call a fresh worker plus a 30 s import: 0/15 in 377 s vs 0/15 in 19 s
#  6  sdpa via getattr(F | torch._C._nn | torch.ops.aten, built name): 13/13 each vs 0/13;
#     layer norm via getattr(F | torch | torch.ops.aten, built name): 8/8 each vs 0/8
#
# After the hardening (f979ff9 .. 943bd2f) every test here passes.

"""Adversarial submissions against the grader: each one tries to earn points it has not
earned, to read what it must not read, or to outlive or swamp its grading.

Every test grades an attacking submission with the real command line
(``python -m autograder grade ... --only ASSIGNMENT``) and an HONEST CONTROL (the same
submission without the trick), and asserts that the attack scores no more than the
control on every test, that grading ends normally (exit 0, results.json written, no
"internal grader error"), and that nothing is left behind: each grading gets its own
TMPDIR, which must be empty afterwards, and no process may remain whose working folder or
command line points into the test's folder.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import attack_sources as src
import pytest

import helpers
from autograder.sandbox.isolation import namespaces_available
from helpers import ASSIGNMENTS, ROOT, SOLUTIONS, Graded, make_submission, run_grade

pytestmark = pytest.mark.xdist_group("attacks")  # one worker builds its costly fixture (conftest.py)

needs_namespaces = pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")

A1, A2, A3 = "a1_attention", "a2_layernorm", "a3_blocks"
SEEDS = {A1: "11", A2: "12", A3: "13"}
MASK_FUNCTIONS = ("causal_mask", "padding_mask", "target_mask")
INTERNAL = "internal grader error"


# ============================================================================ grading


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


# ============================================================================ submissions


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


@pytest.fixture(scope="module")
def control_wrong(tmp_path_factory) -> Run:
    """A wrong attention (zeros), nothing else."""
    tmp = tmp_path_factory.mktemp("control-wrong")
    return grade(tmp, "control", wrong_attention(tmp / "sub"), A1)


@pytest.fixture(scope="module")
def control_stub(tmp_path_factory) -> Run:
    """Reference masks and the untouched stub attention."""
    tmp = tmp_path_factory.mktemp("control-stub")
    return grade(tmp, "control", stub_attention(tmp / "sub"), A1)


@pytest.fixture(scope="module")
def control_reference(tmp_path_factory) -> Run:
    """The reference a1, as it is."""
    tmp = tmp_path_factory.mktemp("control-reference")
    return grade(tmp, "control", make_submission(tmp / "sub"), A1)


# ============================================================================ 1. the grading process


@needs_namespaces
def test_module_planted_in_grading_folder_is_never_imported(tmp_path, control_wrong):
    """Can a worker that writes a module into the grading process's working folder, under
    a name that process imports after the worker started (`resource`, imported in the fork
    that becomes each new worker), get its code run outside the sandbox and rewrite the
    graders' report? (It must not: a wrong attention still scores nothing.)"""
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", src.PLANT_PRELUDE), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(attention_tests(attack))


# ============================================================================ 2. reading the reference


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


# ============================================================================ 3. forged replies


def test_forged_empty_gradient_reply_earns_nothing(tmp_path, control_wrong):
    """Can a wrong attention that patches the harness in its own process, so that a `grad`
    request returns no gradients at all, pass the gradient grader? (It must not.)"""
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", src.FORGE_EMPTY_GRADS), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(targeted(attack, A1, lambda name: "radient" in name))


ABSURD_REPLIES = {
    "shape [2**63, 0]": {"kind": "tensor", "dtype": "float32", "shape": [2**63, 0], "data": ""},
    "shape [2**64, 0]": {"kind": "tensor", "dtype": "float64", "shape": [2**64, 0], "data": ""},
    "shape [2**62, 4, 0]": {"kind": "tensor", "dtype": "float32", "shape": [2**62, 4, 0], "data": ""},
    "200 dimensions of 1": {"kind": "tensor", "dtype": "float32", "shape": [1] * 200,
                            "data": base64.b64encode(b"\0" * 4).decode()},
    "frame of 2**64-1 bytes": {"kind": "frame", "length": 2**64 - 1},
}


@pytest.mark.parametrize("forged", helpers.tiered(sorted(ABSURD_REPLIES)))  # fast tier: the first
def test_absurd_reply_fails_only_its_own_calls(tmp_path, control_wrong, forged):
    """Can replies with absurd tensor shapes or frame lengths, forged by the student's code
    for its attention calls, break the grader (an internal error, a crash of grading) or
    earn anything? (They must not: only those calls fail; the mask tests are unaffected.)"""
    prelude = src.FORGE_RAW_REPLY.format(forged=ABSURD_REPLIES[forged])
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", prelude), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(attention_tests(attack))
    masks = targeted(attack, A1, is_mask_test)
    assert all(t["score"] == t["max_score"] for t in masks.values()), scores(attack, A1)


# ============================================================================ 4. redaction bypass


def _solution_lines(folder: Path, min_len: int = 8) -> list[str]:
    """Stripped code lines of the solution regions of a reference folder's modules."""
    lines = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("test_"):
            continue
        inside = False
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.strip()
            if code.startswith("### BEGIN SOLUTION"):
                inside = True
            elif code.startswith("### END SOLUTION"):
                inside = False
            elif inside and len(code) >= min_len and not code.startswith("#"):
                lines.append(code)
    return lines


def _b64_decodings(text: str) -> list[str]:
    found = []
    for token in re.findall(r"[A-Za-z0-9+/_-]{12,}={0,2}", text):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found.append(decode(token + "=" * (-len(token) % 4)).decode("utf-8"))
            except (binascii.Error, ValueError):
                pass
    return found


def _chunks(text: str) -> str:
    parts = {}
    for index, literal in re.findall(r"part (\d{3}) ('(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")", text):
        try:
            parts[int(index)] = eval(literal, {})  # noqa: S307 - a str literal, from this test's own attack
        except SyntaxError:
            pass
    return "".join(parts[i] if i in parts else "\0" for i in range(max(parts) + 1)) if parts else ""


def recovered_reference(texts: list[str], secrets: list[str]) -> list[str]:
    """The reference lines an attacker can get back from ``texts`` by undoing the encodings
    of the redaction attacks: verbatim, one character per line, reversed, base64 (whole or
    the first 50 characters of a line) and chunks of a few characters across tests."""
    joined = "\n".join(texts)
    flat = joined.replace("\n", "")
    decoded = _b64_decodings(joined)
    chunks = _chunks(joined)
    leaks = []
    for line in secrets:
        if (line in joined or line in flat or line[::-1] in joined or line[::-1] in flat
                or line in chunks or any(line in d or (len(d) >= 8 and d in line) for d in decoded)):
            leaks.append(line)
    return leaks


REDACTION_MODES = ("base64", "reversed", "chunks", "one-char-per-line", "exception-type", "where")


@pytest.fixture(scope="module")
def a3_control(tmp_path_factory) -> Run:
    tmp = tmp_path_factory.mktemp("control-a3")
    sub = make_submission(tmp / "sub", files={f"{A3}/{name}": text for name, text in src.HONEST_A3_MODULES.items()})
    return grade(tmp, "control", sub, A3)


@pytest.mark.parametrize("mode", helpers.tiered(REDACTION_MODES))  # fast tier: the first
def test_reference_code_cannot_be_smuggled_out_encoded(tmp_path, a3_control, mode):
    """Can an a3 submission, whose worker holds the reference a1 for its imports, send that
    reference back in exception messages, type names or function names that are encoded
    (base64, reversed, a few characters at a time, one character per line)? (It must not:
    no reference line can be recovered from results.json or the output.)"""
    secrets = _solution_lines(SOLUTIONS / A1)
    assert secrets
    files = {f"{A3}/{name}": text for name, text in src.LEAK_A3_MODULES.items()}
    files[f"{A3}/{src.LEAK_HELPER}"] = src.LEAK_MODULE.format(mode=mode)
    attack = grade(tmp_path, "attack", make_submission(tmp_path / "sub", files=files), A3)
    assert_no_gain(attack, a3_control, A3)
    assert not recovered_reference([a3_control.text], secrets)  # the detector itself is quiet
    leaks = recovered_reference([attack.text] + attack.outputs(A3), secrets)
    assert not leaks, f"reference lines recovered from the results ({mode}): {leaks}"


# ============================================================================ 5. resources


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


# ============================================================================ 6. forbidden shortcuts


@pytest.mark.parametrize("lookup", helpers.tiered(sorted(src.SDPA_LOOKUPS)))  # fast tier: the first
def test_runtime_built_sdpa_name_earns_nothing(tmp_path, control_stub, lookup):
    """Can an attention that reaches torch's scaled_dot_product_attention through a name
    built at run time (which the static parser cannot see) earn the points of the tests
    that call it? (It must not.)"""
    body = src.SDPA_SHORTCUT.format(lookup=src.SDPA_LOOKUPS[lookup])
    sub = make_submission(tmp_path / "sub", {f"{A1}/attention.py": [(src.ATTENTION_BEGIN, src.ATTENTION_BEGIN + body)]})
    attack = grade(tmp_path, "attack", sub, A1)
    assert_no_gain(attack, control_stub, A1)
    assert_zero(attention_tests(attack))


@pytest.fixture(scope="module")
def a2_control(tmp_path_factory) -> Run:
    """Reference a2 whose forward is not written yet."""
    tmp = tmp_path_factory.mktemp("control-a2")
    sub = make_submission(tmp / "sub", {f"{A2}/layernorm.py": [
        (src.LAYERNORM_BEGIN, src.LAYERNORM_NOT_DONE + src.LAYERNORM_BEGIN)]})
    return grade(tmp, "control", sub, A2)


@pytest.mark.parametrize("lookup", helpers.tiered(sorted(src.LAYERNORM_LOOKUPS)))  # fast tier: the first
def test_runtime_built_layer_norm_name_earns_nothing(tmp_path, a2_control, lookup):
    """Can a LayerNorm whose forward reaches torch's layer norm through a name built at run
    time earn the points of the tests that run forward? (It must not.)"""
    body = src.LAYERNORM_SHORTCUT.format(lookup=src.LAYERNORM_LOOKUPS[lookup])
    sub = make_submission(tmp_path / "sub", {f"{A2}/layernorm.py": [(src.LAYERNORM_BEGIN, body + src.LAYERNORM_BEGIN)]})
    attack = grade(tmp_path, "attack", sub, A2)
    assert_no_gain(attack, a2_control, A2)
    forward = {n for n, s in scores(a2_control, A2).items() if s == 0}
    assert_zero(targeted(attack, A2, lambda name: name in forward))
