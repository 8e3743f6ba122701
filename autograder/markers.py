"""The texts that mark reference code and stand for missing code, shared by every side.

- nbgrader's markers: a solution region (``### BEGIN SOLUTION`` ... ``### END SOLUTION``) is
  the student's part of a reference module or notebook cell; a hidden-tests region is never
  released. The instructor writes them, :mod:`autograder.stubs` strips them, the release
  scan looks for any left.
- ``NOT_IMPLEMENTED``: what a stub raises (``NotImplementedError("not implemented yet:
  masks.causal_mask")``). It crosses the worker's pipe as an exception's message, and the
  grading process recognises it (:mod:`autograder.grading.redaction`) as the one free text
  it may show even with reference code beside the student's: so it is part of the
  worker-grader protocol, and lives here, below both.

A leaf: it imports nothing. The students' self-check (``notebooks/selfcheck.py``) keeps its
own copy of ``NOT_IMPLEMENTED``: it travels alone, next to a notebook.
"""

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
NOT_IMPLEMENTED = "not implemented yet: "
