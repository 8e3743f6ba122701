"""`python -m autograder grade`: scores, results.json, and a broken assignment's blast radius."""

import re
import shutil
import subprocess
import sys

import pytest

import helpers
from helpers import ASSIGNMENTS, ROOT, SOLUTIONS, make_submission, run_grade, run_grade_many


def test_solutions_get_full_marks(graded_solutions):
    """Do the reference solutions get every point, with exit code 0?"""
    g = graded_solutions
    assert g.rc == 0, g.stderr
    assert g.results["extra_data"]["max_score"] > 0 and g.results["score"] == g.results["extra_data"]["max_score"]
    assert "total" in g.stdout and "a1_attention" in g.stdout and "a2_layernorm" in g.stdout


def test_untouched_stubs_get_zero_without_crashing(graded_stubs):
    """Do the untouched stubs get 0 points, exit code 0, and 'not implemented' feedback?"""
    g = graded_stubs
    assert g.rc == 0, g.stderr
    assert g.results["score"] == 0 and g.results["extra_data"]["max_score"] > 0
    assert all("not implemented yet" in t["output"] for t in g.results["tests"])


def test_the_console_lists_lost_points_in_both_languages(graded_stubs):
    """Does the console's list of lost points give each unfinished function's message once,
    in English and in Spanish, and end with where the full feedback is?"""
    listing = graded_stubs.stdout.split("Lost points / puntos perdidos:")[1]
    assert listing.count("      not implemented yet: causal_mask\n      aún sin implementar: causal_mask\n") == 1
    assert "summary.md" in listing
    # Each name whole in both languages, also where reference code ran beside the stub (a3-a6):
    # the English line once read "not implemented yet: Fee…" above "aún sin implementar: FeedForward.__init__".
    pairs = re.findall(r"^ +not implemented yet: (\S+)\n +aún sin implementar: (\S+)$", listing, re.M)
    assert len(pairs) >= 18 and all(en == es for en, es in pairs), pairs
    assert "…" not in listing and {"FeedForward.__init__", "Transformer.encode", "evaluate"} <= {en for en, _ in pairs}


def test_the_slowest_call_of_each_assignment_is_reported_with_its_limit(graded_solutions):
    """Are the slowest answered call per assignment and its limit, timed by the grading
    process, printed and in results.json, with the reference well inside the limit?"""
    slowest = graded_solutions.results["extra_data"]["slowest_call"]
    assert set(slowest) == {t["extra_data"]["assignment"] for t in graded_solutions.results["tests"]}
    for name, call in slowest.items():
        assert 0 < call["seconds"] < call["limit"] and call["target"], (name, call)
    line = "slowest call of the student's code that finished, s (of its limit, --timeout): a1 "
    assert line in graded_solutions.stdout


BROKEN_A1 = {
    "wrong": [("return output, weights", "return output * 0, weights")],
    "hangs": [("    d_k = q.size(-1)\n", "    d_k = q.size(-1)\n    while True:\n        pass\n")],
    "exits": [("    d_k = q.size(-1)\n", "    d_k = q.size(-1)\n    import os\n    os._exit(0)\n")],
}


@pytest.mark.parametrize("how", helpers.tiered(sorted(BROKEN_A1)))  # fast tier: the first
def test_broken_a1_keeps_a2_points(how, tmp_path):
    """When a1's attention is wrong, hangs forever or calls os._exit(0), does a1 lose points
    while a2 keeps all of its own?"""
    sub = make_submission(tmp_path / "sub", {"a1_attention/attention.py": BROKEN_A1[how]})
    g = run_grade(sub, tmp_path / "out", "--seed", "7", "--timeout", "3",
                  "--only", "a1_attention", "--only", "a2_layernorm")
    assert g.rc == 0, g.stderr
    a1, a1_max = g.score("a1_attention")
    a2, a2_max = g.score("a2_layernorm")
    assert a2 == a2_max > 0
    assert a1 < a1_max
    # The masks are in another module and still earn their points.
    assert g.tests("a1_attention")[next(n for n in g.tests("a1_attention")
                                        if n.startswith("Is causal_mask"))]["score"] > 0
    failed = [t["output"] for t in g.tests("a1_attention").values() if t["score"] == 0]
    expected = {"wrong": "values are off", "hangs": "did not finish within", "exits": "exited with status 0"}[how]
    assert any(expected in out for out in failed), failed


def _verdicts(graded, assignment):
    return {name: (t["score"], t["max_score"], t["output"]) for name, t in graded.tests(assignment).items()}


@pytest.mark.full_only  # the fast tier grades its mutants and correct submissions several to a run all the same
def test_several_submissions_get_the_verdicts_they_get_alone(graded_solutions, graded_stubs, tmp_path):
    """Graded in one run (one grading process, a student process each), do the solutions,
    a submission whose process exits in the middle of grading and the stubs each get
    exactly the verdicts and messages they get when graded alone?"""
    subs = [make_submission(tmp_path / "good"), make_submission(tmp_path / "exits", {
        "a1_attention/attention.py": BROKEN_A1["exits"]}), make_submission(tmp_path / "blank", base=ASSIGNMENTS)]
    good, exits, blank = run_grade_many(subs, tmp_path / "out", "--seed", "1234", "--only", "a1_attention")
    assert good.rc == 0 and "exits: a1 " in good.stdout, good.stderr
    alone = run_grade(subs[1], tmp_path / "alone", "--seed", "1234", "--only", "a1_attention")
    for together, by_itself in ((good, graded_solutions), (exits, alone), (blank, graded_stubs)):
        assert _verdicts(together, "a1_attention") == _verdicts(by_itself, "a1_attention")
        assert [t["name"] for t in together.results["tests"]] == [
            t["name"] for t in by_itself.results["tests"] if t["extra_data"]["assignment"] == "a1_attention"]
    assert 0 < exits.score("a1_attention")[0] < exits.score("a1_attention")[1]


def test_several_submissions_need_different_folder_names(tmp_path):
    """Are two submissions whose folders share a name (their results would overwrite each
    other's) refused before anything is graded?"""
    subs = [make_submission(tmp_path / one / "sub") for one in ("x", "y")]
    g = run_grade_many(subs, tmp_path / "out")[0]
    assert g.rc == 2 and "folder names must differ" in g.stderr and not (tmp_path / "out").exists()


def test_missing_assignment_folder_scores_zero_with_a_note(tmp_path):
    """Does a submission without a2_layernorm/ get 0 there, full a1, and say the folder is missing?"""
    sub = make_submission(tmp_path / "sub")
    shutil.rmtree(sub / "a2_layernorm")
    g = run_grade(sub, tmp_path / "out", "--seed", "3", "--only", "a1_attention", "--only", "a2_layernorm")
    assert g.rc == 0
    assert g.score("a2_layernorm")[0] == 0 and g.score("a1_attention")[0] == g.score("a1_attention")[1]
    assert all("a2_layernorm/ is missing" in t["output"] for t in g.tests("a2_layernorm").values())


@pytest.mark.parametrize(
    "path, message",
    [
        ("does-not-exist", "does not exist"),
        ("pyproject.toml", "is a file"),
        ("solutions/a1_attention", "is one assignment"),
        ("tests", "holds none of the course's assignment folders"),
    ],
)
def test_bad_path_is_one_clear_line_and_nonzero(path, message, tmp_path):
    """Does a bad PATH exit non-zero with a single 'error:' line?"""
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", path, "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


@pytest.mark.parametrize("option", [("--jobs", "0"), ("--timeout", "-1"), ("--timeout", "soon")])
def test_bad_option_values_are_usage_errors(option, tmp_path):
    """Do a zero --jobs or a non-positive --timeout stop with a usage message, not a traceback?"""
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", "solutions", "--out", str(tmp_path), *option],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "must be a positive" in proc.stderr and "Traceback" not in proc.stderr


def test_same_seed_same_inputs_other_seed_other_inputs(tmp_path):
    """Does --seed replay exactly the same random inputs, and a new seed draw new ones?"""
    sub = make_submission(tmp_path / "sub", {"a2_layernorm/layernorm.py": [("unbiased=False", "unbiased=True")]})
    outputs = []
    for seed, out in (("11", "o1"), ("11", "o2"), ("12", "o3")):
        g = run_grade(sub, tmp_path / out, "--seed", seed, "--only", "a2_layernorm")
        outputs.append([t["output"] for t in g.results["tests"]])
    assert outputs[0] == outputs[1]
    assert outputs[0] != outputs[2]


def test_grading_solutions_folder_is_possible_by_name(graded_solutions):
    """Is the graded folder the one named on the command line?"""
    assert str(SOLUTIONS) in graded_solutions.stdout
