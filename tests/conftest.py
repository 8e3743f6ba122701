"""Session fixtures: the reference solutions and the untouched stubs, each graded once."""

import pytest

from helpers import ASSIGNMENTS, SOLUTIONS, Graded, run_grade


@pytest.fixture(scope="session")
def graded_solutions(tmp_path_factory) -> Graded:
    return run_grade(SOLUTIONS, tmp_path_factory.mktemp("solutions-results"), "--seed", "1234")


@pytest.fixture(scope="session")
def graded_stubs(tmp_path_factory) -> Graded:
    return run_grade(ASSIGNMENTS, tmp_path_factory.mktemp("stubs-results"), "--seed", "1234")
