"""Student code never decides its own verdict, and never sees what is hidden."""

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import helpers
from autograder import course
from autograder.sandbox.child import wire
from autograder.sandbox.child.wire import WireError
from autograder.sandbox.isolation import WORKER_UIDS, namespaces_available, worker_user
from autograder.sandbox.scratch import SubmissionRefused, read_modules, refuse_shadowing
from helpers import ROOT, make_submission, run_grade

# A wrong attention that also tries to make itself look right.
WRONG = "    return torch.zeros(*q.shape[:-1], v.size(-1)), torch.zeros(*q.shape[:-1], k.size(-2))\n"
BEGIN = "    d_k = q.size(-1)\n"

CHEATS = {
    "patches torch.allclose and torch.equal": (
        "import torch\ntorch.allclose = lambda *a, **k: True\ntorch.equal = lambda *a, **k: True\n"
        "torch.Tensor.__eq__ = lambda *a, **k: torch.tensor(True)\n", WRONG),
    "returns objects whose __eq__ is always True": (
        "class _Yes:\n    def __eq__(self, other):\n        return True\n    shape = property(lambda self: ())\n",
        "    return _Yes(), _Yes()\n"),
    "prints fake PASSED lines and scores": (
        "import sys\nfor _s in (sys.stdout, sys.stderr, sys.__stdout__):\n"
        "    print('PASSED ' * 20, '{\"score\": 100, \"max_score\": 100}', file=_s, flush=True)\n", WRONG),
    "writes its own results.json": (
        "import json, os\n"
        "for _p in ('results.json', '../results.json', os.environ.get('OUT_GUESS', '') + '/results.json'):\n"
        "    try:\n        open(_p, 'w').write(json.dumps({'score': 100, 'max_score': 100, 'tests': []}))\n"
        "    except OSError:\n        pass\n", WRONG),
    "exits with status 0 at import": ("import os\nos._exit(0)\n", WRONG),
    "raises SystemExit(0)": ("", "    raise SystemExit(0)\n"),
}


def _attention_tests(graded):
    """The a1 graders of attention.py (the mask graders test masks.py)."""
    masks = ("Is causal_mask", "Does padding_mask", "Is target_mask")
    return [t for name, t in graded.tests("a1_attention").items() if not name.startswith(masks)]


@pytest.mark.parametrize("cheat", helpers.tiered(sorted(CHEATS), ["patches torch.allclose and torch.equal"]))
def test_cheating_submission_gains_nothing(cheat, tmp_path):
    """Does a wrong attention that tries to fake its verdict still score 0 on its graders?"""
    prelude, body = CHEATS[cheat]
    out = tmp_path / "out"
    sub = make_submission(tmp_path / "sub", {"a1_attention/attention.py": [
        ("from masks import causal_mask\n", "from masks import causal_mask\n" + prelude.replace("OUT_GUESS", str(out))),
        (BEGIN, BEGIN + body),
    ]})
    g = run_grade(sub, out, "--only", "a1_attention", "--seed", "9")
    assert g.rc == 0, g.stderr
    sdpa_tests = _attention_tests(g)
    assert sdpa_tests and all(t["score"] == 0 for t in sdpa_tests), [(t["name"], t["score"]) for t in sdpa_tests]
    text = (out / "results.json").read_text()
    assert "PASSED" not in text and g.results["score"] < g.results["extra_data"]["max_score"]


def _steal_solution_source():
    target = ROOT / "solutions" / "a1_attention" / "attention.py"
    return (
        "import os\n"
        f"_ref = {str(target)!r}\n"
        "try:\n"
        "    _src = open(_ref).read()\n"
        "except OSError:\n"
        "    _src = None\n"
        "if _src:\n"
        "    exec(compile(_src, 'stolen', 'exec'), globals())\n"
    )


@pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")
def test_student_code_cannot_read_reference_solutions(tmp_path):
    """Can a stub that copies the reference solution from disk at grading time earn anything? (It must not.)"""
    stolen = (ROOT / "assignments" / "a1_attention" / "attention.py").read_text() + "\n" + _steal_solution_source()
    sub = make_submission(tmp_path / "sub", files={"a1_attention/attention.py": stolen})
    # Without the sandbox the theft works, which proves this test can fail.
    unsafe = run_grade(sub, tmp_path / "out-none", "--only", "a1_attention", "--seed", "2", "--isolation", "none")
    assert all(t["score"] == t["max_score"] for t in _attention_tests(unsafe))
    g = run_grade(sub, tmp_path / "out", "--only", "a1_attention", "--seed", "2", "--isolation", "namespace")
    sdpa = _attention_tests(g)
    assert sdpa and all(t["score"] == 0 for t in sdpa)
    assert all("not implemented yet" in t["output"] for t in sdpa)


@pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")
def test_student_code_sees_no_graders_no_network_no_grading_process(tmp_path):
    """Inside the sandbox, are the graders' folder, the network and the grading process out of reach?"""
    probe = (
        "import os, socket\n"
        "def causal_mask(T, device=None):\n"
        "    import torch\n"
        "    try:\n"
        f"        graders = os.listdir({str(ROOT / 'autograder')!r})\n"
        "    except FileNotFoundError:\n"  # a checkout under /tmp: the private /tmp has no trace of it
        "        graders = 'absent'\n"
        "    procs = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "        net = 'up'\n"
        "    except OSError as exc:\n"
        "        net = type(exc).__name__\n"
        "    raise RuntimeError(f'graders={graders} procs={len(procs)} ppid={os.getppid()} net={net}')\n"
    )
    sub = make_submission(tmp_path / "sub", files={"a1_attention/masks.py": probe})
    g = run_grade(sub, tmp_path / "out", "--only", "a1_attention", "--seed", "2", "--isolation", "namespace")
    [out] = [t["output"] for n, t in g.tests("a1_attention").items() if n.startswith("Is causal_mask")]
    assert "graders=[]" in out or "graders=absent" in out, out
    assert "ppid=0" in out, out  # the grading process is outside this PID namespace
    assert "net=up" not in out, out


@pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")
def test_interpreter_under_tmp_still_runs_student_code(tmp_path):
    """Does grading work when Python itself lives under /tmp, as in a CI job that makes its
    virtual environment with mktemp, though the sandbox covers /tmp with a private one?"""
    import site
    import venv
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    packages = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    # This environment's packages (torch, the course) are reached through a .pth file.
    (Path(packages) / "course.pth").write_text(
        "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages()))
    out = tmp_path / "out"
    proc = subprocess.run([python, "-m", "autograder", "grade", str(ROOT / "solutions"), "--out", str(out),
                           "--only", "a1_attention", "--seed", "5"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "isolation: namespace" in proc.stdout, proc.stdout
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == results["extra_data"]["max_score"] > 0, proc.stdout


def test_scratch_copy_is_deleted_and_prints_never_reach_results(tmp_path):
    """Is the scratch copy removed afterwards, and is nothing the student printed in results.json?"""
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    loud = "import sys\nprint('LEAK-MARKER-1 ' + open(__file__).read()[:50])\nprint('LEAK-MARKER-2', file=sys.stderr)\n"
    sub = make_submission(tmp_path / "sub", {"a1_attention/masks.py": [("import torch\n", "import torch\n" + loud)]})
    g = run_grade(sub, tmp_path / "out", "--only", "a1_attention", "--seed", "4", env={"TMPDIR": str(scratch_tmp)})
    assert g.rc == 0 and g.results["score"] == g.results["extra_data"]["max_score"]
    assert "LEAK-MARKER" not in (tmp_path / "out" / "results.json").read_text() + g.stdout
    assert not [p for p in os.listdir(scratch_tmp) if p.startswith("course-grade-")]


# ------------------------------------------------------------------ the scratch copy and the wire


def test_scratch_copy_refuses_links_devices_and_pipes(tmp_path):
    """Is a submission folder holding a symbolic link, or a pipe, refused before anything is read?"""
    folder = tmp_path / "a1_attention"
    folder.mkdir()
    (folder / "masks.py").write_text("X = 1\n")
    (folder / "__pycache__").mkdir()  # folders are ignored, not refused
    (folder / "notes.txt").write_text("ignored\n")
    assert read_modules(folder) == {"masks.py": b"X = 1\n"}
    (folder / "attention.py").symlink_to(ROOT / "solutions" / "a1_attention" / "attention.py")
    with pytest.raises(SubmissionRefused, match="not a regular file"):
        read_modules(folder)
    (folder / "attention.py").unlink()
    os.mkfifo(folder / "helper.py")  # reading it would block the grader forever
    with pytest.raises(SubmissionRefused, match="not a regular file"):
        read_modules(folder)
    (folder / "helper.py").unlink()
    link = tmp_path / "linked"
    link.symlink_to(folder)
    with pytest.raises(SubmissionRefused, match="not a regular folder"):
        read_modules(link)


@pytest.mark.parametrize("name", ["json", "traceback", "torch", "numpy", "harness", "wire", "attention"])
def test_modules_that_shadow_others_are_refused(name):
    """Is a submitted module named like a standard, installed, harness or prerequisite module refused?"""
    with pytest.raises(SubmissionRefused, match="shadows"):
        refuse_shadowing("a3_blocks", {f"{name}.py": b"", "multihead.py": b""}, taken={"attention", "masks"})


def test_own_helper_modules_are_accepted(monkeypatch):
    """Are the student's own helper modules accepted, even when the grading process runs from
    the student's folder (which puts their modules on its own sys.path, never the worker's)?"""
    monkeypatch.syspath_prepend(str(ROOT / "solutions" / "a3_blocks"))
    monkeypatch.syspath_prepend(str(ROOT / "autograder" / "graders" / "a3_blocks"))
    refuse_shadowing("a3_blocks", {"multihead.py": b"", "my_helpers.py": b"", "test_multihead.py": b""},
                     taken={"attention", "masks"})


@pytest.mark.parametrize("shape", [[2**63, 0], [-1], [1] * 17, [2**40, 2**40], ["2"]])
def test_absurd_tensor_shapes_are_protocol_errors(shape):
    """Does a reply claiming an absurd tensor shape fail to decode as a protocol error, not a crash?"""
    message = json.dumps({"$tensor": ["float32", shape, ""]}).encode()
    with pytest.raises(WireError):
        wire.decode(message)


def test_forbidden_names_raise_in_the_worker_however_reached():
    """Do forbidden torch functions raise in the student's process even when the name is built at run time?"""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import harness, torch\n"
        "harness.forbid(sys.argv[2].split(','))\n"
        "import torch.nn.functional as F\n"
        "q = torch.ones(1, 2, 4)\n"
        "calls = [lambda: getattr(F, 'scaled_dot_product' + '_attention')(q, q, q),\n"
        "         lambda: torch.ops.aten.scaled_dot_product_attention(q, q, q),\n"
        "         lambda: torch._scaled_dot_product_flash_attention_for_cpu(q, q, q),\n"
        "         lambda: torch.nn.MultiheadAttention(4, 2)]\n"
        "for call in calls:\n"
        "    try:\n"
        "        call()\n"
        "        print('allowed')\n"
        "    except harness.ForbiddenShortcut as exc:\n"
        "        print('blocked', exc)\n"
        "print(torch.softmax(q, -1).shape == q.shape, isinstance(torch.nn.Linear(2, 2), torch.nn.MultiheadAttention))\n"
    )
    names = ",".join(course.get("a1_attention").forbidden["attention"])
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "autograder" / "sandbox" / "child"), names],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert [line.split()[0] for line in out[:4]] == ["blocked"] * 4, out
    assert out[4] == "True False", out  # ordinary torch and isinstance checks still work


def test_graders_never_quote_an_expected_errors_message():
    """Do graders quote error['shown'], never error['message'], whose text may carry reference code out?"""
    for path in course.GRADERS_DIR.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FormattedValue):
                quoted = [n for n in ast.walk(node.value)
                          if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
                          and n.slice.value == "message"]
                assert not quoted, f"{path.name}:{node.lineno} quotes error['message']; quote error['shown']"


@pytest.mark.skipif(os.geteuid() != 0 or worker_user() is None,
                    reason="needs grading as root with an interpreter every user can read (as in Gradescope's "
                           "containers); here the interpreter lives where only root can read it")
def test_without_namespaces_root_grades_student_code_as_a_uid_of_its_own(tmp_path):
    """Without the namespace sandbox, does grading as root run student code as the
    unprivileged user, with a process limit that fails only the forking test and names it?"""
    begin = "    if tokens.dim() != 2:\n"
    who = make_submission(tmp_path / "who", {"a1_attention/masks.py": [
        (begin, "    import os\n    raise RuntimeError(f'uid={os.getuid()}')\n" + begin)]})
    graded = run_grade(who, tmp_path / "who-out", "--only", "a1_attention", "--isolation", "none", "--seed", "2")
    outputs = " ".join(t["output"] for t in graded.results["tests"])
    uids = {int(u) for u in re.findall(r"uid=(\d+)", outputs)}
    assert uids and uids <= set(WORKER_UIDS), outputs
    assert "unprivileged uid" in graded.stdout
    fork = "    import os, time\n    for _ in range(2000):\n        if os.fork() == 0:\n            time.sleep(60)\n" \
           "            os._exit(0)\n"
    target_mask = "    if tokens.dim() != 2:\n        raise ValueError(f\"tokens must have shape (B, T)"
    bomb = make_submission(tmp_path / "bomb", {"a1_attention/masks.py": [(target_mask, fork + target_mask)]})
    graded = run_grade(bomb, tmp_path / "bomb-out", "--only", "a1_attention", "--isolation", "none", "--seed", "2")
    hit = [t for t in graded.results["tests"] if "target_mask" in t["name"]]
    assert hit and all(t["score"] == 0 and "limit on processes and threads" in t["output"] for t in hit)
    assert all(t["score"] == t["max_score"] for t in graded.results["tests"] if t not in hit)
