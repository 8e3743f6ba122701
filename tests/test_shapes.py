"""Does shapes.explain name the kind of difference a mismatch is, and stay silent on noise?"""

import math

import pytest
import torch

from autograder.grading import checks, shapes

AXES = ("batch", "position", "feature")


def _x(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _say(actual, expected, **hints):
    found = shapes.explain(actual, expected, shapes.Hints(**hints))
    return found and found[0]


def test_a_constant_factor_is_named_by_the_constant_it_equals():
    """Is a factor of sqrt(d_k), 1/sqrt(d_k) or d_k named as such, and 2 as "twice"?"""
    e = _x(2, 5, 8)
    hints = {"constants": {"sqrt(d_k)": math.sqrt(8)}}
    assert "= sqrt(d_k)" in _say(e * math.sqrt(8), e, **hints)
    assert "= 1/sqrt(d_k)" in _say(e / math.sqrt(8), e, **hints)
    assert "= sqrt(d_k)²" in _say(e * 8, e, **hints)
    assert "twice" in _say(e * 2, e)
    assert "the same constant, 1.7" in _say(e * 1.7, e)
    assert "opposite sign" in _say(-e, e)
    assert "should be negative come out positive" in _say(e.abs(), e)
    assert "should be negative come out positive" not in (_say(e.clamp(min=0), e) or "")


def test_swapped_axes_and_interleaved_heads_are_named():
    """Is a transpose of two same-sized axes, a permuted shape and a head split in the wrong
    order recognised, with the axes' names?"""
    e = _x(3, 3, 8)
    assert "batch (dim 0) and position (dim 1) swapped" in _say(e.transpose(0, 1), e, axes=AXES)
    assert "permute(*(0, 2, 1))" in _say(_x(2, 5, 8).transpose(1, 2), _x(2, 5, 8))
    interleaved = e.reshape(3, 3, 4, 2).transpose(-1, -2).reshape(3, 3, 8)
    assert "interleaved" in _say(interleaved, e, num_heads=2)


def test_offsets_are_named_by_the_tensor_they_equal():
    """Is a missing residual, a residual added twice, a weight on a named tensor and a bias recognised?"""
    x, sub = _x(2, 4, 8), _x(2, 4, 8, seed=1)
    e = x + sub
    assert "never added" in _say(sub, e, tensors={"the layer's input x": x})
    assert "added where it does not belong, or twice" in _say(e + x, e, tensors={"the layer's input x": x})
    emb = _x(2, 4, 8, seed=2)
    said = _say(emb * 8 + x, emb * math.sqrt(8) + x, constants={"d_model": 8.0, "sqrt(d_model)": math.sqrt(8)},
                tensors={"the token embedding": (emb, math.sqrt(8))})
    assert "multiplied by 8 = d_model instead of sqrt(d_model)" in said
    assert "same vector at every position" in _say(e + _x(8, seed=3), e)


def test_named_tensors_are_named_in_spanish_in_the_spanish_text():
    """Does the Spanish reading of an offset name the tensor in Spanish (no English left inside)?"""
    x, sub = _x(2, 4, 8), _x(2, 4, 8, seed=1)
    for name, nombre in (("the output of self.self_attn", "la salida de self.self_attn"),
                         ("the layer's input x", "la entrada x de la capa")):
        en, es = shapes.explain(x, x + sub, shapes.Hints(tensors={name: sub}))
        assert name in en and nombre in es and "the " not in es, (en, es)


def test_shifts_and_normalisation_axes_are_named():
    """Is a shift by one position and a softmax over the wrong axis recognised?"""
    e = _x(2, 6, 4)
    later = torch.cat([e[:, :1], e[:, :-1]], dim=1)
    assert "position (dim 1), position i holds what is expected at position i - 1" in _say(later, e, axes=AXES)
    scores = _x(2, 5, 5)
    said = _say(scores.softmax(-2), scores.softmax(-1), axes=("batch", "query", "key"))
    assert "sum to 1 along query (dim 1) instead of along key (dim 2)" in said


def test_masked_positions_are_recognised():
    """Are an inverted mask, weight leaking to masked positions and differences only where the mask hides recognised?"""
    keep = torch.ones(4, 4).tril().bool()
    scores = _x(1, 4, 4)
    want = scores.masked_fill(~keep, float("-inf")).softmax(-1)
    assert "inverted" in _say(scores.masked_fill(keep, float("-inf")).softmax(-1).nan_to_num(), want)
    assert "must be exactly 0" in _say(scores.masked_fill(~keep, -5.0).softmax(-1), want)
    e = _x(2, 4, 8)
    off = e.clone()
    off[1, 3] += 1.0
    mask = torch.tensor([[True] * 4, [True, True, True, False]])[:, :, None]
    assert "only at masked or padded positions" in _say(off, e, mask=mask)


def test_masks_and_token_ids_compared_exactly():
    """Are an inverted, transposed or off-by-one-diagonal mask, and a start token kept, named?"""
    causal = torch.ones(5, 5).tril().bool()
    assert "polarity is inverted" in shapes.explain_mask(~causal, causal)[0]
    assert "transpose" in shapes.explain_mask(causal.T.contiguous(), causal)[0]
    assert "cannot see itself" in shapes.explain_mask(torch.ones(5, 5).tril(-1).bool(), causal)[0]
    ids = torch.tensor([[4, 5, 6, 2]])
    assert "start" in shapes.explain_mask(torch.tensor([[1, 4, 5, 6, 2]]), ids)[0]


def test_differences_at_one_index_of_one_axis_are_named():
    """Is a difference confined to one index of one axis named with that index (and a row of
    zeros as such), and a difference spread over two indices not?"""
    e = _x(6, 4)
    first = e.clone()
    first[0] = 0
    assert "index 0 (the first) of position (dim 0)" in _say(first, e, axes=("position", "feature"))
    assert "all zeros there" in _say(first, e)
    last = e.clone()
    last[:, -1] *= 3
    assert "index 3 (the last) of dim 1" in _say(last, e)
    two = e.clone()
    two[1:3] += 1.0
    assert "index" not in (_say(two, e) or "")
    ids = torch.tensor([[4, 5, 6, 2], [7, 8, 2, 2], [9, 3, 4, 5]])
    shifted = ids.clone()
    shifted[1, :2] = 1
    assert "index 1 of dim 0" in shapes.explain_mask(shifted, ids)[0]


def test_one_slice_everywhere_is_named():
    """Are rows that all hold the same values, where the expected ones differ, named (and the
    expected row they equal), for floats and for token ids, and equal expected rows not?"""
    ids = torch.tensor([[4, 5, 6, 2], [7, 8, 2, 2], [9, 3, 4, 5]])
    said = shapes.explain_mask(ids[2].expand(3, 4).clone(), ids)[0]
    assert "all 3 slices along dim 0 hold the same values" in said and "the expected one at index 2" in said
    e = _x(4, 5)
    assert "all 4 slices along batch (dim 0)" in _say(e[0].expand(4, 5) * 2, e, axes=("batch", "feature"))
    same_rows = e[0].expand(4, 5)
    assert "slices" not in (_say(same_rows * 2, same_rows.clone()) or "")


def test_values_rounded_to_a_few_decimals_are_named():
    """Are values rounded to n decimals (and read back in float32) named with n, and exact
    values, or values off by more than the rounding, not?"""
    e = _x(2, 5, 8)
    assert "rounded to 4 decimals" in _say(e.float().round(decimals=4).double(), e)
    assert "rounded to 2 decimals" in _say(e.round(decimals=2), e)
    assert "rounded" not in (_say(e.round(decimals=2) + 0.01, e) or "")


def test_values_stored_in_half_precision_are_named():
    """Are values that went through float16 or bfloat16 named as such, and float32 noise or a
    small offset not?"""
    e = _x(2, 5, 8)
    assert "every value is a float16 number" in _say(e.half().double(), e)
    assert "every value is a bfloat16 number" in _say(e.bfloat16().double(), e)
    assert "float16" not in (_say(e.float().double(), e) or "")
    assert "float16" not in (_say(e + 1e-3, e) or "")


@pytest.mark.parametrize("seed", range(5))
def test_an_unstructured_difference_gets_no_diagnosis(seed):
    """Does explain say nothing for a difference with no shape (it must not guess)?"""
    e = _x(2, 5, 8, seed=seed)
    noisy = e + 0.5 * _x(2, 5, 8, seed=seed + 100)
    assert shapes.explain(noisy, e, shapes.Hints(axes=AXES, num_heads=2, constants={"sqrt(d_k)": 2.0},
                                                 tensors={"x": _x(2, 5, 8, seed=seed + 200)})) is None


def test_a_failed_close_carries_the_shape_after_likely_mistake():
    """Does checks.close name the shape in both languages when no named mistake matches?"""
    e = _x(3, 4)
    with pytest.raises(checks.CheckFailure) as failure:
        checks.close(-e, e, "output")
    assert "\nLikely mistake: every value has the opposite sign" in failure.value.en
    assert "\nError probable: cada valor tiene el signo contrario" in failure.value.es
    with pytest.raises(checks.CheckFailure) as failure:
        checks.close(e, e + 0.1 * _x(3, 4, seed=9), "output")
    assert not failure.value.named


def test_outputs_right_and_gradients_wrong_are_told_apart():
    """Does gradient() say that nothing reaches a detached input, and stay silent while outputs differ?"""
    g = _x(3, 4)
    assert "no gradient reaches x" in shapes.gradient(torch.zeros(3, 4, dtype=torch.float64), g, True, "x")[0]
    assert "twice" in shapes.gradient(2 * g, g, True, "x")[0]
    assert shapes.gradient(2 * g, g, False, "x") is None


def test_exact_zeros_outside_probabilities_are_not_called_masked():
    """Do exact zeros that are no masked probabilities (a positional table's sin(0)) escape the mask diagnosis?"""
    e = _x(4, 6)
    e[0, ::2] = 0.0  # as sin(0) at position 0
    shifted = e.clone()
    shifted[0, ::2] = 0.3
    assert "masked" not in (_say(shifted, e) or "")


def test_sharpened_or_flattened_probabilities_name_the_score_scaling():
    """Are softmax(c * scores) weights named as scores scaled by c (d_k, sqrt(d_k)), masked zeros kept, and
    weights of other scores left alone?"""
    scores = _x(2, 3, 6)
    hints = {"constants": {"sqrt(d_k)": 2.0, "d_k": 4.0}}
    right = (scores / 2).softmax(-1)
    assert "sharpened" in _say((scores * 2).softmax(-1), right, **hints)
    assert "multiplied by 4 = d_k" in _say((scores * 2).softmax(-1), right, **hints)
    assert "flattened" in _say((scores / 4).softmax(-1), right, **hints)
    mask = torch.rand(2, 3, 6, generator=torch.Generator().manual_seed(1)) > 0.3
    mask[..., 0] = True
    hidden = (scores / 2).masked_fill(~mask, float("-inf")).softmax(-1)
    assert "= sqrt(d_k)" in _say(scores.masked_fill(~mask, float("-inf")).softmax(-1), hidden, **hints)
    assert _say(_x(2, 3, 6, seed=5).softmax(-1), right, **hints) is None or "sharpened" not in _say(
        _x(2, 3, 6, seed=5).softmax(-1), right, **hints)


def test_an_axis_reduced_away_is_named():
    """Is a tensor with one axis fewer recognised as the expected one averaged, summed or indexed over it?"""
    e = _x(2, 3, 4, 5)
    assert "averaged over dim 1" in _say(e.mean(1), e)
    assert "summed over dim 3" in _say(e.sum(3), e)
    assert "index 0 only over dim 1" in _say(e[:, 0], e)
    assert _say(_x(2, 4, 5, seed=3), e) is None


def test_a_mask_with_its_axes_in_another_order_is_named():
    """Is a (B, 1, S, 1) padding mask where (B, 1, 1, S) belongs named as a permutation?"""
    m = torch.rand(3, 8, generator=torch.Generator().manual_seed(0)) > 0.3
    found = shapes.explain_mask(m[:, None, :, None], m[:, None, None, :])
    assert "permute(*(0, 1, 3, 2))" in found[0]


def test_readings_that_many_mistakes_share_say_only_where():
    """Is a difference at one index, uniform probabilities, or probabilities zeroed after the
    softmax said as a WHERE (reports.Where: no cause named), and a scaled softmax still as a
    cause?"""
    from autograder.grading.reports import Where

    e = _x(6, 4)
    last = e.clone()
    last[:, -1] *= 3
    found = shapes.explain(last, e)
    assert isinstance(found, Where) and "loop" not in found[0]
    scores = _x(2, 3, 6)
    right = scores.softmax(-1)
    allowed = torch.rand(2, 3, 6, generator=torch.Generator().manual_seed(2)) > 0.4
    allowed[..., 0] = True
    right = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    uniform = shapes.explain(allowed.double() / allowed.sum(-1, keepdim=True), right)  # each row its own keys
    assert isinstance(uniform, Where) and "uniform" in uniform[0] and "uniforme" in uniform[1]
    assert not isinstance(shapes.explain((scores * 2).softmax(-1), scores.softmax(-1)), Where)
    right = scores.softmax(-1)
    zeroed = right.clone()
    zeroed[0, 1, 2] = 0.0  # one weight set to 0 after the softmax: its row sums to less than 1
    found = shapes.explain(zeroed, right)
    assert isinstance(found, Where) and "1 of 36 values are 0" in found[0] and "1 de 36" in found[1]
    lost = right * torch.tensor([1.0, 0.5, 0.25], dtype=torch.float64)[None, :, None]  # each row its own share kept
    found = shapes.explain(lost, right)
    assert isinstance(found, Where) and "times a factor below 1 of its own" in found[0] and "propio" in found[1]
