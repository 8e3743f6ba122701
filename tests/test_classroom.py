"""GitHub Classroom: the student repository's workflow (`release --classroom`) and the
instructor's class-grading workflow, linted with real linters (zizmor, and the workflow
JSON schema through check-jsonschema) and their grading steps' commands run here."""

import base64
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import ROOT, SOLUTIONS

pytestmark = pytest.mark.xdist_group("classroom")

BIN = Path(sys.executable).parent
ZIZMOR_CONFIG = ROOT / "autograder" / "platforms" / "classroom_files" / "zizmor.yml"
A1, A2, A3 = "a1_attention", "a2_layernorm", "a3_blocks"


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def lint(path: Path) -> list[str]:
    """What the two linters say of a workflow file: [] when both accept it."""
    problems = []
    zizmor = subprocess.run([str(BIN / "zizmor"), "--offline", "--strict-collection", "--no-progress",
                             "--config", str(ZIZMOR_CONFIG), str(path)], capture_output=True, text=True, timeout=120)
    if zizmor.returncode != 0:
        problems.append("zizmor: " + zizmor.stdout + zizmor.stderr)
    schema = subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(path)],
                            capture_output=True, text=True, timeout=120)
    if schema.returncode != 0:
        problems.append("check-jsonschema: " + schema.stdout + schema.stderr)
    return problems


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("classroom") / "release"
    proc = _cli("release", "--out", str(out), "--classroom")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def instructor(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("instructor")
    proc = _cli("classroom-instructor", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def _steps(workflow: Path) -> dict[str, dict]:
    data = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    return {f"{job}/{step.get('id') or step['name']}": step
            for job, spec in data["jobs"].items() for step in spec["steps"]}


def test_both_workflows_pass_the_linters(release, instructor, tmp_path):
    """Do zizmor and the workflow schema accept both workflows, and reject them once a
    classic mistake is planted (an input expanded into a shell script, a step with both
    `uses` and `run`)?"""
    student = release / ".github" / "workflows" / "classroom.yml"
    grading = instructor / ".github" / "workflows" / "grade-class.yml"
    assert lint(student) == [] and lint(grading) == []
    text = grading.read_text(encoding="utf-8")
    injected = tmp_path / "injected.yml"
    injected.write_text(text.replace('for name in $ONLY; do', 'for name in ${{ inputs.only }}; do', 1),
                        encoding="utf-8")
    assert any(p.startswith("zizmor") and "template-injection" in p for p in lint(injected))
    broken = tmp_path / "broken.yml"
    broken.write_text(student.read_text(encoding="utf-8").replace(
        "        id: a1_attention\n", "        id: a1_attention\n        uses: actions/checkout@v4\n", 1),
        encoding="utf-8")
    assert lint(broken)


def test_release_has_the_workflow_and_nothing_hidden(release):
    """Does `release --classroom` write the workflow and its points script, one step per
    assignment, the reporter reading every step's result, and no hidden material?"""
    steps = _steps(release / ".github" / "workflows" / "classroom.yml")
    points = {key.split("/")[1]: step for key, step in steps.items() if "points.py" in step.get("run", "")}
    assert list(points) == [A1, A2, A3, "a4_transformer", "a5_decoding", "a6_translator"]
    reporter = next(s for s in steps.values() if "autograding-grading-reporter" in s.get("uses", ""))
    assert reporter["with"]["runners"].split(",") == list(points)
    assert set(reporter["env"]) == {f"{name.upper()}_RESULTS" for name in points}
    assert all(reporter["env"][f"{n.upper()}_RESULTS"] == f"${{{{ steps.{n}.outputs.result }}}}" for n in points)
    assert not list(release.rglob("*grader*")) and not (release / "solutions").exists()


def test_points_steps_give_partial_credit_per_test(release, tmp_path):
    """Run here, do the workflow's points steps give a solved assignment every point, an
    untouched one none, and a half-done one the points of the tests it passes, in the
    payload GitHub Classroom's reporter decodes?"""
    work = tmp_path / "student-repo"
    shutil.copytree(release, work)
    for module in (SOLUTIONS / A1).glob("*.py"):
        if not module.name.startswith("test_"):
            shutil.copyfile(module, work / "assignments" / A1 / module.name)
    shutil.copyfile(SOLUTIONS / A3 / "feedforward.py", work / "assignments" / A3 / "feedforward.py")
    steps = _steps(work / ".github" / "workflows" / "classroom.yml")
    output = tmp_path / "github_output"
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    results = {}
    for name in (A1, A2, A3):
        output.write_text("", encoding="utf-8")
        step = steps[f"run-autograding-tests/{name}"]
        proc = subprocess.run(["bash", "-c", step["run"]], cwd=work, env=env, capture_output=True, text=True,
                              timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        line = output.read_text(encoding="utf-8").strip()
        assert line.startswith("result=")
        results[name] = json.loads(base64.b64decode(line.removeprefix("result=")))
    for data in results.values():
        assert data["version"] == 1 and data["status"] in ("pass", "fail")
        assert all(t["status"] in ("pass", "fail", "error") and t["score"] in (0, 1) for t in data["tests"])
    got = {name: (sum(t["score"] for t in d["tests"]), d["max_score"]) for name, d in results.items()}
    assert got[A1][0] == got[A1][1] > 0 and results[A1]["status"] == "pass"
    assert got[A2][0] == 0 < got[A2][1] and results[A2]["status"] == "fail"
    assert 0 < got[A3][0] < got[A3][1], got[A3]
    assert all(t["message"] for t in results[A2]["tests"])  # a failed test says why


def test_instructor_workflow_commands_grade_a_class(instructor, tmp_path):
    """Run here, do the instructor workflow's steps list the roster, grade each student's
    repository in its own job folder with the hidden graders, and collect the artifacts
    into grades.csv and canvas.csv?"""
    steps = _steps(instructor / ".github" / "workflows" / "grade-class.yml")
    assert not any("${{" in s.get("run", "") for s in steps.values())  # inputs reach scripts through env only
    roster = instructor / "classroom" / "roster.csv"
    roster.write_text("student,Student,ID,SIS User ID,SIS Login ID,Section\n"
                      "alice,A,1,S1,a@u,A\nbob,B,2,S2,b@u,A\n", encoding="utf-8")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}

    def run(key: str, cwd: Path, **extra) -> subprocess.CompletedProcess:
        proc = subprocess.run(["bash", "-e", "-c", steps[key]["run"]], cwd=cwd, env={**env, **extra},
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    output = tmp_path / "github_output"
    output.write_text("", encoding="utf-8")
    run("roster/list", instructor, GITHUB_OUTPUT=str(output))
    students = json.loads(output.read_text(encoding="utf-8").strip().removeprefix("students="))
    assert students == ["alice", "bob"]
    artifacts = tmp_path / "artifacts"
    for student in students:
        job = tmp_path / f"job-{student}"
        repo = job / "submissions" / student / "assignments" / A1
        shutil.copytree(SOLUTIONS / A1 if student == "alice" else ROOT / "assignments" / A1, repo,
                        ignore=shutil.ignore_patterns("test_*", "__pycache__"))
        run("grade/Grade with the hidden graders", job, ONLY=A1, SEED="3", STUDENT=student)
        shutil.copytree(job / "results" / student, artifacts / student)  # upload, then download
    gradebook = tmp_path / "gradebook"
    shutil.copytree(artifacts, gradebook / "results")
    shutil.copytree(instructor / "classroom", gradebook / "classroom")
    run("gradebook/Write grades.csv and canvas.csv", gradebook, ONLY=A1)
    with open(gradebook / "results" / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert float(rows["alice"][A1]) > 0 and float(rows["bob"][A1]) == 0
    assert rows["alice"]["status"] == rows["bob"]["status"] == "graded"
    with open(gradebook / "results" / "canvas.csv", newline="", encoding="utf-8") as f:
        canvas = list(csv.reader(f))
    assert canvas[1][0] == "Points Possible" and [r[1] for r in canvas[2:]] == ["1", "2"]
