from autograder.notebooks.kernel import GradingFailure, run_grader  # noqa: F401  (notebooks built before 0.2 import it here)
