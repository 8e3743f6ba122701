"""Student code never decides its own verdict, and never sees what is hidden."""

import os

import pytest

from autograder.isolation import namespaces_available

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
        "import json, os\nfor _p in ('results.json', '../results.json', os.environ.get('OUT_GUESS', '') + '/results.json'):\n"
        "    try:\n        open(_p, 'w').write(json.dumps({'score': 100, 'max_score': 100, 'tests': []}))\n"
        "    except OSError:\n        pass\n", WRONG),
    "exits with status 0 at import": ("import os\nos._exit(0)\n", WRONG),
    "raises SystemExit(0)": ("", "    raise SystemExit(0)\n"),
}


def _attention_tests(graded):
    """The a1 graders of attention.py (the mask graders test masks.py)."""
    masks = ("Is causal_mask", "Does padding_mask", "Is target_mask")
    return [t for name, t in graded.tests("a1_attention").items() if not name.startswith(masks)]


@pytest.mark.parametrize("cheat", sorted(CHEATS))
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
    assert "PASSED" not in text and g.results["score"] < g.results["max_score"]


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
        f"    graders = os.listdir({str(ROOT / 'autograder')!r})\n"
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
    assert "graders=[]" in out, out
    assert "ppid=0" in out, out  # the grading process is outside this PID namespace
    assert "net=up" not in out, out


def test_scratch_copy_is_deleted_and_prints_never_reach_results(tmp_path):
    """Is the scratch copy removed afterwards, and is nothing the student printed in results.json?"""
    scratch_tmp = tmp_path / "tmp"
    scratch_tmp.mkdir()
    loud = "import sys\nprint('LEAK-MARKER-1 ' + open(__file__).read()[:50])\nprint('LEAK-MARKER-2', file=sys.stderr)\n"
    sub = make_submission(tmp_path / "sub", {"a1_attention/masks.py": [("import torch\n", "import torch\n" + loud)]})
    g = run_grade(sub, tmp_path / "out", "--only", "a1_attention", "--seed", "4", env={"TMPDIR": str(scratch_tmp)})
    assert g.rc == 0 and g.results["score"] == g.results["max_score"]
    assert "LEAK-MARKER" not in (tmp_path / "out" / "results.json").read_text() + g.stdout
    assert not [p for p in os.listdir(scratch_tmp) if p.startswith("course-grade-")]
