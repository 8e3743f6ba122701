"""Unit tests of the graders' verdict helpers (autograder/grading/checks.py), without a
grading: what each check accepts, what it refuses, and what its message says."""

import pytest
import torch

from autograder.grading import checks
from autograder.grading.checks import CheckFailure, Mistake
from autograder.sandbox.child.wire import Unsupported


def failure(call, *args, **kwargs) -> CheckFailure:
    with pytest.raises(CheckFailure) as caught:
        call(*args, **kwargs)
    return caught.value


def test_tensor_checks_kind_shape_and_dtype_in_both_languages():
    """Does checks.tensor pass a right tensor through and name what is wrong with any other value?"""
    x = torch.zeros(2, 3)
    assert checks.tensor(x, "out", (2, 3), torch.float32) is x
    f = failure(checks.tensor, [1, 2], "out")
    assert f.en == "out: expected a tensor, got list" and f.es == "out: se esperaba un tensor, se obtuvo list"
    assert str(f) == f"{f.en}\n{f.es}"
    assert failure(checks.tensor, x, "out", (3, 2)).en == "out: expected shape (3, 2), got (2, 3)"
    assert failure(checks.tensor, x, "out", dtype=torch.float64).en == "out: expected dtype float64, got float32"
    assert failure(checks.tensor, Unsupported("Generator"), "out").en == "out: expected a tensor, got Generator"


def test_close_reports_the_first_value_off_and_the_tolerance():
    """Does checks.close accept values within atol + rtol·|expected| and report the first one outside?"""
    expected = torch.tensor([1.0, 2.0, 3.0])
    checks.close(expected + 5e-6, expected, "y")
    f = failure(checks.close, torch.tensor([1.0, 2.5, 3.5]), expected, "y")
    assert f.en.startswith("y: 2 of 3 values are off (first at index (1,): got 2.5, expected 2; largest error 0.5")
    assert "2 de 3 valores no coinciden" in f.es and "2,5" in f.es  # Spanish decimal comma
    nan = failure(checks.close, torch.tensor([1.0, float("nan"), 3.0]), expected, "y")
    assert nan.en == "y: NaN at index (1,)"


def test_close_names_a_recognised_mistake_only_when_it_matches():
    """Does a failed close name the classic mistake whose output the code returned, and no other?"""
    expected = torch.tensor([1.0, 2.0])
    doubled = Mistake("doubled", "duplicado", lambda: expected * 2)
    broken = Mistake("broken", "roto", lambda: 1 / 0)  # a diagnostic that cannot apply recognises nothing
    f = failure(checks.close, expected * 2, expected, "y", mistakes=[broken, doubled])
    assert f.en.endswith("doubled") and f.es.endswith("duplicado")
    f = failure(checks.close, expected * 3, expected, "y", mistakes=[broken, doubled])
    assert "doubled" not in f.en


def test_a_failure_carries_the_mistake_it_names_as_data():
    """Does a named failure carry its mistake (named), a shaped one none, and does a
    message that merely reads "Likely mistake:" (a student's exception, say) name nothing?"""
    doubled = Mistake("doubled", "duplicado")
    named = CheckFailure("y is off", "y no coincide").naming(doubled)
    assert named.mistake is doubled and named.named
    shaped = CheckFailure("y is off", "y no coincide").shaped(("a shape", "una forma"))
    assert shaped.mistake is None and not shaped.named
    assert shaped.naming(doubled).en == "y is off\nLikely mistake: doubled"  # the shape gives way
    quoted = CheckFailure("f raised ValueError: Likely mistake: none", "f lanzó ValueError")
    assert not quoted.named and quoted.shaped(("a shape", "una forma")).en.endswith("Likely mistake: a shape")


def test_randn_and_inverted_dropout():
    """Is checks.randn torch.randn in float64 from the test's generator, and does
    inverted_dropout accept each value dropped or scaled by 1/(1 - p) (some of each) only?"""
    assert torch.equal(checks.randn(torch.Generator().manual_seed(3), 2, 3),
                       torch.randn(2, 3, generator=torch.Generator().manual_seed(3), dtype=torch.float64))
    want = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    assert checks.inverted_dropout(torch.tensor([2.0, 0.0, 6.0, 0.0], dtype=torch.float64), want, 0.5, 1e-9)
    assert not checks.inverted_dropout(want * 2, want, 0.5, 1e-9)  # nothing dropped
    assert not checks.inverted_dropout(torch.zeros(4, dtype=torch.float64), want, 0.5, 1e-9)  # nothing kept
    assert not checks.inverted_dropout(torch.tensor([1.0, 0.0, 3.0, 0.0], dtype=torch.float64), want, 0.5, 1e-9)


def test_equal_pair_and_parameter_count():
    """Do equal, pair and parameter_count refuse a wrong value, a non-pair and a wrong count?"""
    mask = torch.tensor([[True, False], [True, True]])
    checks.equal(mask.clone(), mask, "mask")
    wrong = failure(checks.equal, ~mask, mask, "mask")
    assert wrong.en.splitlines()[0] == "mask: wrong value at index (0, 0) (got False, expected True)"
    assert wrong.en.splitlines()[1].startswith("Likely mistake: every value is the opposite")  # shapes.explain_mask
    assert checks.pair([1, 2], "p") == [1, 2]
    assert failure(checks.pair, [1], "p").en == "p: expected a pair (tuple of 2 values), got list"
    checks.parameter_count({"num_parameters": 1024}, 1024, "layer")
    f = failure(checks.parameter_count, {"num_parameters": 1000}, 1024, "layer")
    assert f.en == "layer has 1,000 parameters, expected 1,024"
    assert f.es == "layer tiene 1 000 parámetros, se esperaban 1 024"  # Spanish groups digits with a space


def test_plain_equal_names_the_first_difference_types_included():
    """Does plain_equal tell 1 from True and "1" from 1, and name the first differing item?"""
    checks.plain_equal({"a": [1, "x"]}, {"a": [1, "x"]}, "v")
    assert failure(checks.plain_equal, {"a": [1, True]}, {"a": [1, 1]}, "v").en == \
        "v: wrong value at ['a'][1]: got True, expected 1"
    assert failure(checks.plain_equal, [1, 2, 3], [1, 2], "v").en == (
        "v: wrong value: got 3 items, expected 2 items\nLikely mistake: an extra last id (3)")  # differences.explain
    assert failure(checks.plain_equal, {}, {"k": 1}, "v").en == "v: wrong value at ['k']: got nothing, expected 1"


def test_numbers_must_be_python_numbers():
    """Does number refuse a bool and a tensor (with the .item() hint), and close_number NaN?"""
    assert checks.number(3, "n") == 3.0
    assert "use .item()" in failure(checks.number, torch.tensor(1.0), "n").en
    failure(checks.number, True, "n")
    checks.close_number(1.0 + 1e-7, 1.0, "n")
    failure(checks.close_number, float("nan"), 1.0, "n")


def test_frequencies_accept_a_correct_sampler_and_reject_a_shifted_one():
    """Does the goodness-of-fit check pass draws from the distribution, and refuse draws
    from one with a token moved by a few hundredths, or a token outside the vocabulary?"""
    g = torch.Generator().manual_seed(0)
    probs = torch.tensor([0.5, 0.3, 0.2])
    checks.frequencies(torch.multinomial(probs, 50_000, replacement=True, generator=g), probs, "draws")
    shifted = torch.tensor([0.45, 0.35, 0.2])
    f = failure(checks.frequencies, torch.multinomial(shifted, 50_000, replacement=True, generator=g), probs, "draws")
    assert "was drawn" in f.en and "probability below 1e-07" in f.en
    assert "outside the vocabulary 0..2" in failure(checks.frequencies, torch.tensor([0, 3]), probs, "draws").en


def test_support_refuses_a_token_that_must_never_be_drawn():
    """Does support name the row and the token drawn outside what is allowed?"""
    allowed = torch.tensor([[True, False], [False, True]])
    checks.support(torch.tensor([0, 1]), allowed, "top-k")
    f = failure(checks.support, torch.tensor([0, 0]), allowed, "top-k")
    assert f.en == "top-k: drew token 0 in row 1, which must never be drawn (allowed: [1])"


def test_known_errors_give_the_usual_fix_and_nothing_for_others():
    """Does a well-known PyTorch error get its usual cause, a KeyError one even without its message, and an
    unknown one nothing?"""
    from autograder.grading import known_errors
    assert "in-place" in known_errors.explain(
        "RuntimeError", "a leaf Variable that requires grad is being used in an in-place operation.")[0]
    assert ".reshape" in known_errors.explain(
        "RuntimeError", "view size is not compatible with input tensor's size and stride (at least one ...)")[0]
    assert ".get(key, default)" in known_errors.explain("KeyError", "")[0]
    assert known_errors.explain("RuntimeError", "something else entirely") is None
    assert known_errors.explain("ValueError", "") is None
