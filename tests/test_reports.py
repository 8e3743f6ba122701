"""What a grading run writes: results.json to Gradescope's specification, JUnit XML and the
Markdown summary, all from the same results."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import gradescope_spec
import pytest

from helpers import SOLUTIONS, make_submission, run_grade


def _text(graded, name: str) -> str:
    return (Path(graded.out) / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("which", ["graded_solutions", "graded_stubs"])
def test_results_json_follows_the_specification(which, request):
    """Does results.json of full marks and of zero meet every documented field and value,
    with explicit output formats, the seed in extra_data and scores that add up?"""
    graded = request.getfixturevalue(which)
    text = _text(graded, "results.json")
    assert gradescope_spec.problems(text) == []
    data = json.loads(text)
    assert data["output_format"] == "text" and isinstance(data["execution_time"], (int, float))
    assert data["extra_data"]["seed"] == 1234
    assert data["score"] == sum(t["score"] for t in data["tests"])
    assert data["extra_data"]["max_score"] == sum(t["max_score"] for t in data["tests"]) > 0
    for t in data["tests"]:
        assert t["output_format"] == "text" and t["visibility"] == "visible"
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
        assert t["extra_data"]["seed"] == 1234 and t["extra_data"]["assignment"] in t["name"]


@pytest.mark.parametrize("breakage, needle", [
    (lambda d: d["tests"][0].update(score=float("nan")), "not one strict JSON document"),
    (lambda d: d["tests"][0].update(status="ok"), "bad status"),
    (lambda d: d.update(visibility="after_grading"), "bad visibility"),
    (lambda d: d["tests"][0].update(output_format="markdown"), "bad output_format"),
    (lambda d: d.update(max_score=3), "unknown top-level key 'max_score'"),
    (lambda d: d["tests"][0].update(execution_time=1), "unknown key 'execution_time'"),
    (lambda d: d.update(execution_time="3 s"), "bad execution_time"),
])
def test_checker_catches_each_breakage(graded_solutions, breakage, needle):
    """Does the checker itself fail on each way a results.json can break the specification?"""
    data = json.loads(_text(graded_solutions, "results.json"))
    breakage(data)
    assert any(needle in p for p in gradescope_spec.problems(json.dumps(data))), needle


def test_checker_catches_printed_text(graded_solutions):
    """Is a results.json with a line printed before it refused?"""
    assert gradescope_spec.problems("PASSED\n" + _text(graded_solutions, "results.json"))


def test_junit_and_summary_match_the_results(graded_stubs, graded_solutions):
    """Do junit.xml and summary.md carry the same tests, failures and points as results.json?"""
    for graded in (graded_stubs, graded_solutions):
        data = graded.results
        root = ET.fromstring(_text(graded, "junit.xml"))
        cases = root.findall("./testsuite/testcase")
        assert len(cases) == len(data["tests"])
        failed = [t for t in data["tests"] if t["status"] == "failed"]
        assert len(root.findall("./testsuite/testcase/failure")) == len(failed) == int(root.get("failures"))
        assert {s.get("name") for s in root.findall("testsuite")} == {t["extra_data"]["assignment"]
                                                                     for t in data["tests"]}
        summary = _text(graded, "summary.md")
        assert f"{data['score']:g} / {data['extra_data']['max_score']:g}" in summary.splitlines()[0]
        assert ("Lost points" in summary) == bool(failed)
        for t in failed[:5]:
            assert t["output"].splitlines()[0] in summary


def test_visibility_option_applies_to_every_graded_test(tmp_path):
    """Does --visibility after_published mark every graded test so, and a wrong value get
    refused with the allowed ones?"""
    g = run_grade(SOLUTIONS, tmp_path / "out", "--only", "a2_layernorm", "--visibility", "after_published")
    assert g.rc == 0, g.stderr
    assert {t["visibility"] for t in g.results["tests"]} == {"after_published"}
    assert gradescope_spec.problems(_text(g, "results.json")) == []
    bad = run_grade(make_submission(tmp_path / "sub"), tmp_path / "out2", "--visibility", "later")
    assert bad.rc == 2 and "after_due_date" in bad.stderr
