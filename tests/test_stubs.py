"""Tests for autograder/stubs.py: nbgrader-style marker stripping."""

import pytest

from autograder.stubs import MarkerError, given_code, make_stub

SOURCE = '''\
import torch


def double(x):
    """Twice x."""
    # Hint: (1 line) multiply.
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION


class Net:
    def forward(self, x):
        y = x + 1
        ### BEGIN SOLUTION
        y = y * 3
        ### END SOLUTION
        return y

### BEGIN HIDDEN TESTS
assert double(2) == 4
### END HIDDEN TESTS
'''


def test_solution_region_becomes_nbgrader_stub():
    """Is each region replaced by '# YOUR CODE HERE' and a raise that names its function?"""
    stub = make_stub(SOURCE, "m.py")
    assert '    # YOUR CODE HERE\n    raise NotImplementedError("not implemented yet: double")' in stub
    assert '        # YOUR CODE HERE\n        raise NotImplementedError("not implemented yet: Net.forward")' in stub
    assert "return 2 * x" not in stub and "y * 3" not in stub


def test_hint_docstring_and_given_code_are_kept():
    """Do the hint, the docstring and the code around a region stay as written?"""
    stub = make_stub(SOURCE, "m.py")
    assert '    """Twice x."""\n    # Hint: (1 line) multiply.\n    # YOUR CODE HERE' in stub
    assert "        y = x + 1\n        # YOUR CODE HERE" in stub
    assert "raise NotImplementedError(\"not implemented yet: Net.forward\")\n        return y" in stub


def test_hidden_tests_are_removed_whole():
    """Is a hidden-tests region removed, markers included?"""
    stub = make_stub(SOURCE, "m.py")
    assert "HIDDEN" not in stub and "double(2) == 4" not in stub


def test_stub_keeps_given_code_byte_for_byte():
    """Does removing the stub lines from the stub give exactly the solution minus its regions?"""
    stub = make_stub(SOURCE, "m.py")
    stub_lines = [
        line for line in stub.split("\n")
        if line.strip() != "# YOUR CODE HERE" and "raise NotImplementedError(\"not implemented yet" not in line
    ]
    assert "\n".join(stub_lines) == given_code(SOURCE, "m.py")


def test_file_without_markers_is_unchanged():
    """Is a file without markers (a public test) copied as it is?"""
    text = "def test_x():\n    assert 1 + 1 == 2\n"
    assert make_stub(text, "test_x.py") == text


@pytest.mark.parametrize(
    "source, message",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
        ("def f():\n    return 1\n    ### END SOLUTION\n", "without a matching BEGIN"),
        ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n",
         "inside the region"),
        ("def f():\n    ## BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n", "malformed marker"),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "inside a function body"),
        ("def f():\n    ### BEGIN SOLUTION\n    # only a comment\n    ### END SOLUTION\n    return 1\n",
         "empty solution region"),
        ("def f():\n    ### BEGIN HIDDEN TESTS\n    return 1\n    ### END SOLUTION\n", "without a matching BEGIN"),
    ],
)
def test_bad_markers_are_errors_with_a_line_number(source, message):
    """Does a malformed, unbalanced or misplaced marker stop generation with file:line?"""
    with pytest.raises(MarkerError, match=message) as info:
        make_stub(source, "bad.py")
    assert str(info.value).startswith("bad.py:")
