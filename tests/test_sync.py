"""Tests for autograder/authoring/sync.py and for the committed assignments/ folder."""

import os
import shutil
import subprocess
import sys

import pytest

from autograder import course
from autograder.authoring.sync import SyncRefused, differences, sync
from autograder.stubs import code_lines, distinctive_solution_lines, find_regions, given_code
from helpers import ASSIGNMENTS, ROOT, SOLUTIONS


def test_committed_assignments_are_up_to_date():
    """Is assignments/ exactly what `python -m autograder sync` generates from solutions/?"""
    problems = differences(SOLUTIONS, ASSIGNMENTS)
    assert not problems, "assignments/ is stale, run `python -m autograder sync`:\n" + "\n".join(problems)


def test_sync_check_cli_reports_staleness(tmp_path):
    """Does `sync --check` exit 1 and name the file when assignments/ was edited by hand?"""
    clean = subprocess.run([sys.executable, "-m", "autograder", "sync", "--check"], cwd=ROOT,
                           capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    # A copy of the checkout with one stub edited by hand.
    for name in ("solutions", "assignments"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "assignments" / "a1_attention" / "masks.py").write_text("# edited by hand\n")
    stale = subprocess.run(
        [sys.executable, "-m", "autograder", "sync", "--check"],
        cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "COURSE_ROOT": str(tmp_path)},
    )
    assert stale.returncode == 1
    assert "out of date: a1_attention/masks.py" in stale.stdout


def test_sync_writes_and_removes(tmp_path):
    """Does sync rewrite stubs it wrote whose solution changed, and delete files it wrote
    that no longer come from solutions/?"""
    src, dst = tmp_path / "solutions", tmp_path / "assignments"
    shutil.copytree(SOLUTIONS, src, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(SOLUTIONS / "a1_attention" / "masks.py", src / "a1_attention" / "extra.py")
    sync(src, dst)
    (src / "a1_attention" / "extra.py").unlink()
    layernorm = src / "a2_layernorm" / "layernorm.py"
    layernorm.write_text(layernorm.read_text(encoding="utf-8") + "\n# a new comment\n", encoding="utf-8")
    changed = sync(src, dst)
    assert "removed a1_attention/extra.py" in changed and "wrote a2_layernorm/layernorm.py" in changed
    assert differences(src, dst) == []


def test_sync_refuses_to_destroy_a_students_work(tmp_path):
    """With a stub filled in and a helper file of the student's own, does sync refuse,
    naming both and writing nothing, and does --force overwrite them?"""
    dst = tmp_path / "assignments"
    sync(SOLUTIONS, dst)
    work = "def causal_mask(T):\n    return my_answer(T)\n"
    (dst / "a1_attention" / "masks.py").write_text(work, encoding="utf-8")
    (dst / "a1_attention" / "helpers_mine.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(SyncRefused) as refused:
        sync(SOLUTIONS, dst)
    assert sorted(map(str, refused.value.files)) == ["a1_attention/helpers_mine.py", "a1_attention/masks.py"]
    assert (dst / "a1_attention" / "masks.py").read_text(encoding="utf-8") == work
    sync(SOLUTIONS, dst, force=True)
    assert differences(SOLUTIONS, dst) == []


def test_sync_cli_refusal_names_the_files_and_the_way_out(tmp_path):
    """Does `sync` on a checkout whose student edited a stub exit 1, name the file, leave
    it as it was, and point to a release and to --force?"""
    for name in ("solutions", "assignments"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    masks = tmp_path / "assignments" / "a1_attention" / "masks.py"
    masks.write_text(masks.read_text(encoding="utf-8").replace("# YOUR CODE HERE", "pass  # mine", 1),
                     encoding="utf-8")
    before = masks.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "autograder", "sync"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "COURSE_ROOT": str(tmp_path)}, timeout=300)
    assert proc.returncode == 1 and "a1_attention/masks.py" in proc.stderr, proc.stdout + proc.stderr
    assert "autograder release --out" in proc.stderr and "sync --force" in proc.stderr
    assert masks.read_bytes() == before


def test_every_solution_module_has_regions_and_keeps_given_code():
    """Does every student module have solution regions, with all other text identical in its stub?"""
    modules = [SOLUTIONS / a.name / f"{m}.py" for a in course.ASSIGNMENTS for m in a.modules]
    assert modules
    for path in modules:
        source = path.read_text(encoding="utf-8")
        assert any(r.kind == "solution" for r in find_regions(source, str(path))), f"{path} has no exercise"
        stub = (ASSIGNMENTS / path.relative_to(SOLUTIONS)).read_text(encoding="utf-8")
        kept = "\n".join(
            line for line in stub.split("\n")
            if line.strip() != "# YOUR CODE HERE" and "raise NotImplementedError(\"not implemented yet" not in line
        )
        assert kept == given_code(source, str(path)), f"{path}: given code changed in the stub"


def test_no_solution_code_in_assignments():
    """Does no distinctive line of a solution region appear in the code under assignments/?"""
    generated = "\n".join(code_lines(p.read_text(encoding="utf-8")) for p in ASSIGNMENTS.rglob("*.py"))
    secrets = distinctive_solution_lines(SOLUTIONS)
    assert len(secrets) > 20
    leaked = sorted(line for line in secrets if line in generated)
    assert not leaked, f"solution lines leaked into assignments/: {leaked[:5]}"


def test_notebook_narratives_stay_in_solutions(tmp_path):
    """Does sync leave the notebook narratives (notebook.<lang>.md) out of assignments/, and remove a stray one?"""
    narratives = sorted(SOLUTIONS.glob("*/notebook.*.md"))
    assert narratives
    dst = tmp_path / "assignments"
    sync(SOLUTIONS, dst)
    assert not list(dst.glob("*/notebook.*.md"))
    stray = dst / narratives[0].relative_to(SOLUTIONS)
    stray.write_text("# copied by hand\n")
    assert f"not generated from solutions/: {narratives[0].relative_to(SOLUTIONS)}" in differences(SOLUTIONS, dst)
    assert f"removed {narratives[0].relative_to(SOLUTIONS)}" in sync(SOLUTIONS, dst, force=True)  # not sync's
