"""Unit tests of the graders' verdict helpers (autograder/grading/checks.py), without a
grading: what each check accepts, what it refuses, and what its message says."""

import pytest
import torch

from autograder.grading import checks, differences
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
    assert f.en.startswith("out: expected a tensor, got list\nLikely mistake: a Python list of numbers")
    assert f.es.startswith("out: se esperaba un tensor, se obtuvo list\n")
    nested = failure(checks.tensor, [[1, 2], [3, 4]], "out")  # a batch turned into lists by .tolist()
    assert "Likely mistake: a Python list of numbers (or of such lists" in nested.en
    assert "Likely mistake" not in failure(checks.tensor, [True, False], "out").en  # bools are not numbers here
    paired = failure(checks.pair, {"src": 1, "tgt": 2}, "item")
    assert "expected a pair" in paired.en and "a dict (keys src, tgt) where a pair belongs" in paired.en
    f = failure(checks.tensor, "text", "out")
    assert f.en == "out: expected a tensor, got str" and f.es == "out: se esperaba un tensor, se obtuvo str"
    assert str(f) == f"{f.en}\n{f.es}"
    assert failure(checks.tensor, x, "out", (3, 2)).en.startswith(
        "out: expected shape (3, 2), got (2, 3)\nLikely mistake: ")
    assert failure(checks.tensor, x, "out", dtype=torch.float64).en.startswith(
        "out: expected dtype float64, got float32\nLikely mistake: a tensor in float32 where the input's float64")
    assert failure(checks.tensor, Unsupported("Generator"), "out").en == "out: expected a tensor, got Generator"


def test_close_reports_the_first_value_off_and_the_tolerance():
    """Does checks.close accept values within atol + rtol·|expected| and report the first one outside?"""
    expected = torch.tensor([1.0, 2.0, 3.0])
    checks.close(expected + 5e-6, expected, "y")
    f = failure(checks.close, torch.tensor([1.0, 2.5, 3.5]), expected, "y")
    assert f.en.startswith("y: 2 of 3 values are off (first at index (1,): got 2.5, expected 2; largest error 0.5")
    assert "2 de 3 valores no coinciden" in f.es and "2,5" in f.es  # Spanish decimal comma
    nan = failure(checks.close, torch.tensor([1.0, float("nan"), 3.0]), expected, "y")
    assert nan.en.startswith("y: NaN at index (1,)\nLikely mistake: 1 of 3 values are NaN, where every expected value")
    assert "0 × ∞" in nan.en and "1 de 3 valores son NaN" in nan.es


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


@pytest.mark.parametrize("got, want, phrase", [
    ((4096, 1), (4096,), "an extra axis of size 1 at dim 1"),
    ((3, 8), (3, 1, 1, 8), None),
    ((3, 8), (3, 1, 8), "the axis of size 1 at dim 1 is missing: a reduction without keepdim=True"),
    ((), (1,), "the axis of size 1 at dim 0 is missing: .squeeze() with no dim"),
    ((3, 1, 8, 8), (3, 1, 1, 8), "dim 2 has size 8 where 1 belongs"),
    ((8, 3), (3, 8), "two axes are swapped"),
    ((24, 5), (3, 8, 5), "dims 0 and 1 are merged"),
    ((3, 8, 5), (24, 5), "dims 0 and 1 should be flattened"),
    ((4, 4), (3, 1, 4, 4), "the leading axes (3, 1) are missing"),
    ((3, 7), (3, 8), "dim 1 has size 7 instead of 8, one too few: an off-by-one"),
    ((7, 4), (6, 4), "dim 0 has size 7 instead of 6, one too many"),
    ((3, 7), (4, 8), None),
    ((1, 1, 1, 8), (3, 1, 1, 8), "dim 0 has size 1 instead of 3"),
    ((5000, 4), (6, 4), "dim 0 has size 5000 instead of 6"),
    ((3, 0), (3, 1), "dim 1 has size 0 instead of 1, one too few"),  # not "expanded": it is one short
    ((13,), (13, 13), "the leading axes (13,) are missing"),
    ((4, 4), (4, 4), None),
    ((2, 6), (3, 5), "[1:] drops the first row"),
])
def test_a_wrong_shape_is_named_when_it_is_one_thing(got, want, phrase):
    """Does a shape that differs by one axis of size 1, an order, a merge, or one axis's size
    (size 1, or a size far from the expected one) get named, and any other difference nothing?"""
    found = differences.explain_shape(got, want)
    assert (found is None) if phrase is None else (phrase in found[0] and found[1])


def test_a_wrong_parameter_count_names_the_missing_and_extra_shapes():
    """Does a parameter count that is off say which shapes are missing (biases, when only
    vectors are), or which are missing and extra?"""
    def report(*shapes):
        params = {f"p{i}": {"value": torch.zeros(s), "requires_grad": True} for i, s in enumerate(shapes)}
        return {"num_parameters": sum(torch.zeros(s).numel() for s in shapes), "parameters": params}

    want = [(1024, 256), (1024,), (256, 1024), (256,)]
    checks.parameter_count(report(*want), 525_568, "FF", shapes=want)
    f = failure(checks.parameter_count, report((1024, 256), (256, 1024)), 525_568, "FF", shapes=want)
    assert "of shape (256,), (1024,) are missing: biases left out" in f.en and "sesgos omitidos" in f.es
    f = failure(checks.parameter_count, report((256, 256), (256,), (256, 256), (256,)), 525_568, "FF", shapes=want)
    assert "missing (256, 1024), (1024,), (1024, 256), extra (256,), 2 x (256, 256)" in f.en, f.en
    assert "d_ff" in f.en
    f = failure(checks.parameter_count, report((1024, 256)), 525_568, "FF")
    assert "Likely mistake" not in f.en  # no shapes given, nothing guessed


def test_a_wrong_dtype_says_where_it_usually_comes_from():
    """Does a float mask, a float64 result made in float32 and float token ids each get their usual cause, and
    an integer for a float nothing?"""
    assert "must stay boolean" in differences.explain_dtype(torch.float32, torch.bool)[0]
    assert "dtype=x.dtype" in differences.explain_dtype(torch.float32, torch.float64)[0]
    assert "torch.long" in differences.explain_dtype(torch.float32, torch.long)[0]
    assert "drop the .int()" in differences.explain_dtype(torch.int32, torch.long)[0]
    assert differences.explain_dtype(torch.long, torch.float32) is None
    f = failure(checks.tensor, torch.ones(2) > 0, "mask", (2,), torch.float32)
    assert f.en == "mask: expected dtype float32, got bool"  # no guess
    f = failure(checks.tensor, torch.ones(2), "mask", (2,), torch.bool)
    assert "Likely mistake: a mask must stay boolean" in f.en and "Error probable: " in f.es


def test_right_values_in_the_wrong_dtype_name_no_other_mistake():
    """When only the dtype is wrong, does the failure say so rather than name a mistake whose
    output is as close to the values as the right one?"""
    expected = torch.tensor([1.0, 2.0])
    near = Mistake("eps outside the square root", "eps fuera de la raíz", output=lambda: expected + 1e-7)
    f = failure(checks.close, expected.double(), expected, "y", mistakes=[near])
    assert "expected dtype float32, got float64" in f.en and "eps outside" not in f.en and not f.named
    f = failure(checks.close, expected + 1e-7, expected.double(), "y", mistakes=[near])
    assert "float32 where the input's float64 belongs" in f.en


def test_best_masks_finds_the_dropout_mask_of_each_row():
    """Does best_masks find, row by row, the 0/1 mask that turns a vector into the output?"""
    masks = checks.every_mask(3)
    assert masks.shape == (8, 3) and {tuple(m) for m in masks.tolist()} == {
        (a, b, c) for a in (0.0, 1.0) for b in (0.0, 1.0) for c in (0.0, 1.0)}
    v = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    got = torch.tensor([[0.0, 4.0, 6.0], [8.0, 0.0, 0.0]], dtype=torch.float64)  # kept values doubled
    error, kept = checks.best_masks(masks * v[:, None, :] * 2, got, masks)
    assert error.tolist() == [0.0, 0.0] and kept.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]


def test_searched_runs_a_search_once_per_generator_state():
    """Does checks.searched give the same result for the same generator state without
    searching again, and leave the generator where the search left it?"""
    calls = []

    def search(rng):
        calls.append(1)
        return checks.randint(rng, 0, 10**6)

    first, second = torch.Generator().manual_seed(123), torch.Generator().manual_seed(123)
    a = checks.searched(first, "test search", search)
    b = checks.searched(second, "test search", search)
    assert a == b and len(calls) == 1
    assert torch.equal(first.get_state(), second.get_state())
    assert checks.randint(first, 0, 10**6) == checks.randint(second, 0, 10**6)
    checks.searched(torch.Generator().manual_seed(124), "test search", search)
    assert len(calls) == 2


def test_a_diagnosis_carries_its_kind_as_data():
    """Is a failure's diagnosis a CAUSE when it names a mistake or a plain reading, and a
    WHERE only when its mechanism marked it so (reports.Where), whatever its text says?"""
    from autograder.grading.reports import CAUSE, WHERE, Where

    plain = CheckFailure("out: off", "out: mal")
    assert plain.diagnosis is None
    assert plain.naming(Mistake("a named one", "uno nombrado")).diagnosis == CAUSE
    assert plain.shaped(("a reading", "una lectura")).diagnosis == CAUSE
    where = plain.shaped(Where("where it differs", "dónde difiere"))
    assert where.diagnosis == WHERE and "Likely mistake: where it differs" in where.en
    assert where.naming(Mistake("a named one", "uno nombrado")).diagnosis == CAUSE  # a name found later replaces it


@pytest.mark.parametrize("got, want, kind", [
    ((13,), (13, 13), "where"),  # one axis left of several: which part went missing is not known
    ((4, 4), (3, 1, 4, 4), "cause"),
    ((1, 1, 1, 8), (3, 1, 1, 8), "where"),  # one value shared along an axis: a reduction, a slice or a broadcast
])
def test_a_shape_reading_names_a_cause_only_when_the_shape_singles_it_out(got, want, kind):
    from autograder.grading.reports import kind_of

    assert kind_of(differences.explain_shape(got, want)) == kind


def test_a_dropout_applied_twice_is_told_from_a_fixed_rate():
    """Does a dropout that acts at 1 - (1 - p)² say that it is applied twice, not that the
    argument is ignored?"""
    assert "applied twice" in checks.wrong_dropout_rate(1 - 0.75 ** 2, 0.25).en
    assert "dos veces" in checks.wrong_dropout_rate(1 - 0.75 ** 2, 0.25).es
    assert "not with the dropout=0.25" in checks.wrong_dropout_rate(0.3, 0.25).en
