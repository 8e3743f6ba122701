"""Are the hidden graders honest: failing on stubs, passing on solutions, catching real bugs?"""

import ast

from autograder import course


def test_every_grader_fails_on_stubs_and_passes_on_solutions(graded_solutions, graded_stubs):
    """Does every hidden grader test give full points to the solutions and zero to the stubs?"""
    solved = {t["name"]: t for t in graded_solutions.results["tests"]}
    stubbed = {t["name"]: t for t in graded_stubs.results["tests"]}
    assert solved.keys() == stubbed.keys() and len(solved) >= 15
    for name in solved:
        assert solved[name]["score"] == solved[name]["max_score"] > 0, (
            f"solutions fail: {name}: {solved[name]['output']}")
        assert stubbed[name]["score"] == 0, f"stubs pass: {name}"


def test_every_assignment_has_graders():
    """Does every assignment have a folder of hidden graders?"""
    for a in course.ASSIGNMENTS:
        assert list((course.GRADERS_DIR / a.name).glob("test_*.py")), a.name


def test_graders_report_only_through_checks():
    """Do graders avoid bare `assert`, whose failure text would quote grader source?"""
    for path in course.GRADERS_DIR.rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        assert not asserts, f"{path.name} uses assert on lines {asserts}; use autograder.checks"
