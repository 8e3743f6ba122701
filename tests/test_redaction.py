"""Unit tests of the redaction policy (autograder/grading/redaction.py), without a grading:
what of a worker's exception reaches the student's feedback. Without reference code in the
student's process the message is kept, minus any quote of the reference; with reference
prerequisites beside it (a3 runs on the reference a1) no free text comes back at all: a
built-in type name, the file:line of the student's own code, and the two messages the
grading process can check. tests/attacks/ sends encoded reference code through real
gradings."""

import base64

import pytest

from autograder import course
from autograder.grading.checks import CheckFailure
from autograder.grading.redaction import Redaction
from autograder.grading.student import Student
from autograder.markers import NOT_IMPLEMENTED
from autograder.stubs import solution_code_lines
from helpers import SOLUTIONS

SECRET = next(line for line in solution_code_lines(sorted((SOLUTIONS / "a1_attention").glob("*.py")), min_len=8)
              if len(line) > 20)


class Replies:
    """In place of the student's worker (never started): answers every request with one
    canned error."""

    def __init__(self, error: dict):
        self.error = error

    def request(self, message, timeout, startup_timeout=None):
        return {"error": self.error}

    def close(self):
        pass


def feedback(assignment: str, target: str, **error) -> str:
    student = Student(course.get(assignment), SOLUTIONS)
    student.transport = Replies(error)
    with pytest.raises(CheckFailure) as caught:
        student.call(target)
    return str(caught.value)


def test_without_reference_code_the_message_is_kept():
    """Does an a1 exception reach the feedback with its type, message and student location?"""
    text = feedback("a1_attention", "masks.causal_mask", type="ValueError", message="T must be positive",
                    where="masks.py:12 in causal_mask")
    assert "masks.causal_mask raised ValueError: T must be positive (masks.py:12 in causal_mask)" in text


@pytest.mark.parametrize("encode", [str, lambda s: s[::-1], lambda s: base64.b64encode(s.encode()).decode(),
                                    lambda s: "\n".join(s)], ids=["verbatim", "reversed", "base64", "one-per-line"])
def test_beside_reference_code_no_free_text_comes_back(encode):
    """With the reference a1 in an a3 worker, are an exception's message, its own class's
    name and a location outside the student's files all withheld, however encoded?"""
    secret = encode(SECRET)
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type=encode("Leak" + SECRET[:40]), message=secret,
                    where=f"attention.py:3 in {secret[:60]}")
    assert secret not in text and SECRET not in text
    assert "raised an exception of its own class; its message is not shown" in text
    assert "(attention.py" not in text  # the reference's file, not the student's


def test_beside_reference_code_the_checkable_parts_stay():
    """With reference code beside it, do a built-in type, the student's own file:line and
    a "not implemented" naming the student's own definition still come back?"""
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="ZeroDivisionError", message="x",
                    where="multihead.py:40 in forward")
    assert "raised ZeroDivisionError (multihead.py:40 in forward); its message is not shown" in text
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="NotImplementedError",
                    message=NOT_IMPLEMENTED + "MultiHeadAttention.forward", where="")
    assert text.startswith(NOT_IMPLEMENTED + "MultiHeadAttention.forward")
    assert "aún sin implementar: MultiHeadAttention.forward" in text
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="NotImplementedError",
                    message=NOT_IMPLEMENTED + "ReferenceOnly.secret_helper", where="")
    assert "ReferenceOnly" not in text


def test_quoted_reference_lines_are_withheld_and_long_returns_cut():
    """Is a text quoting a reference line withheld, and a long string the worker returned
    cut to its first characters where feedback quotes it?"""
    policy = Redaction(course.get("a3_blocks"), {}, SOLUTIONS)
    assert SECRET in policy.secrets
    assert "message withheld" in policy.redact(f"look: {SECRET}")
    assert policy.clean(["x" * 100]) == ["x" * 100]  # noted, not changed
    assert policy.shorten_quotes("got " + "x" * 100 + " back") == "got " + "x" * 24 + "… back"


def test_a_checked_not_implemented_and_location_are_quoted_whole():
    """Beside reference code, do a "not implemented yet: Class.method" naming the student's
    own definitions and a location in the student's own file come back whole where feedback
    quotes them (the English line was cut to "not implemented yet: Fee…" while the Spanish
    one, written by the grading process, was whole), while any other long string, one naming
    what the student did not define included, is still cut?"""
    files = {"feedforward.py": b"class FeedForward:\n    def __init__(self):\n        pass\n"}
    policy = Redaction(course.get("a3_blocks"), files, SOLUTIONS)
    own, where = NOT_IMPLEMENTED + "FeedForward.__init__", "feedforward.py:2 in FeedForward"
    other = NOT_IMPLEMENTED + "ReferenceOnly.secret_helper"
    policy.clean({"error": {"message": own, "where": where}, "other": other})
    text = f"{own}\naún sin implementar: FeedForward.__init__ ({where})\n{other}"
    assert policy.shorten_quotes(text) == (f"{own}\naún sin implementar: FeedForward.__init__ ({where})\n"
                                           f"{other[:24]}…")


def test_beside_reference_code_a_well_known_error_still_gets_its_usual_cause():
    """With reference code beside it, does a well-known torch error get its fixed explanation
    while its message (which could carry anything) stays withheld, a KeyError's key included?"""
    message = f"The size of tensor a (5) must match the size of tensor b (7) at non-singleton dimension 3 {SECRET}"
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="RuntimeError", message=message,
                    where="multihead.py:70 in forward")
    assert "raised RuntimeError (multihead.py:70 in forward); its message is not shown" in text
    assert "Likely mistake: two tensors whose sizes do not fit" in text and "Error probable: " in text
    assert SECRET not in text and "(5)" not in text
    text = feedback("a6_translator", "vocab.Vocab", type="KeyError", message=repr(SECRET[:30]), where="")
    assert "a dictionary lookup of a key it does not hold:" in text and SECRET[:30] not in text
    text = feedback("a1_attention", "masks.causal_mask", type="KeyError", message="'hello'", where="")
    assert "a dictionary lookup of a key it does not hold ('hello')" in text


def test_a_constructor_that_refuses_valid_arguments_is_told_to_check_its_condition():
    """Does a ValueError raised in the student's own __init__ point at the condition of their check?"""
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="ValueError", message="",
                    where="multihead.py:53 in __init__")
    assert "Likely mistake: the constructor refused arguments that are valid" in text
    text = feedback("a3_blocks", "multihead.MultiHeadAttention", type="ValueError", message="",
                    where="multihead.py:80 in forward")
    assert "Likely mistake" not in text
