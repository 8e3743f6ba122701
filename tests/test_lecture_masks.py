"""Masks written the lectures' ways, or nn.MultiheadAttention's: does the student get advice
that is right for the mask they have?

The lecture notebook 002 uses additive float masks (0 = may attend, -inf = blocked); the
course's are boolean, True = may attend. ``mask.bool()`` on an additive mask is True exactly
where it blocks, so the course's attention must advise ``mask == 0`` for one, and
``mask.bool()`` only for a 0/1 mask. Each advice is applied here to check that it gives the
right attention. A boolean mask in nn.MultiheadAttention's convention (True = blocked) is
named as such, by the public tests and by the graders.
"""

import math
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import torch

from autograder import reference
from autograder.graders.a1_attention import test_masks as mask_graders
from autograder.grading import checks, known_errors, shapes
from helpers import ROOT, make_submission

T = 4


def _attention():
    return reference.load("attention").scaled_dot_product_attention


def _qkv():
    """q, k, v shaped (B, h, T, d), as the lecture's attention takes them."""
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(2, 3, T, d, generator=g) for d in (5, 5, 3))


def _refusal(mask) -> str:
    """The TypeError the course's attention raises for ``mask``."""
    q, k, v = _qkv()
    with pytest.raises(TypeError) as raised:
        _attention()(q, k, v, mask)
    return str(raised.value)


def _lecture_causal(fill=float("-inf")):
    """The lecture notebook 002's causal mask: (1, 1, T, T), 0 on and below the diagonal, ``fill`` above."""
    return torch.triu(torch.full((1, 1, T, T), fill), diagonal=1)


@pytest.mark.parametrize("fill", [float("-inf"), -1e9])
def test_an_additive_mask_is_told_mask_eq_0_and_that_gives_the_lectures_attention(fill):
    """Is lecture 002's 0 / -inf mask (or 0 / -1e9) told to convert with mask == 0, not
    .bool(), bilingually and naming the lecture; and does mask == 0 give what the lecture's
    attention (scores + mask) gives, where .bool() gives the mask inside out?"""
    additive = _lecture_causal(fill)
    message = _refusal(additive)
    en, es = message.split(" / ", 1)
    assert "convert it with (mask == 0), not mask.bool()" in en and "lecture notebook 002" in en, message
    assert "conviértela con (mask == 0), no con mask.bool()" in es and "cuaderno de clase 002" in es, message
    # What a grader shows (300 characters of the message) still gets the full explanation.
    assert "(mask == 0), never with mask.bool()" in known_errors.explain("TypeError", message[:300])[0]

    q, k, v = _qkv()
    scores = q @ k.transpose(-2, -1) / math.sqrt(5)
    lecture_weights = torch.softmax(scores + additive, dim=-1)
    _, weights = _attention()(q, k, v, additive == 0)
    torch.testing.assert_close(weights, lecture_weights)
    _, inside_out = _attention()(q, k, v, additive.bool())
    assert inside_out[0, 0, 0, 0] == 0 and inside_out[0, 0, 0, 1] > 0  # row 0 blind to itself, sees the future


@pytest.mark.parametrize("mask", [torch.ones(T, T).tril(), torch.ones(T, T, dtype=torch.long).tril()],
                         ids=["float", "int64"])
def test_a_0_1_mask_is_told_mask_bool_and_that_gives_the_causal_attention(mask):
    """Is a 0/1 mask (1 = may attend) told mask.bool(), and does that give causal attention?"""
    message = _refusal(mask)
    assert "it holds 0/1 values (1 = may attend): convert it with mask.bool()" in message
    assert "(mask == 0)" not in message and "conviértela con mask.bool()" in message
    assert "mask.bool()" in known_errors.explain("TypeError", message[:300])[0]
    q, k, v = _qkv()
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for got, want in zip(_attention()(q, k, v, mask.bool()), _attention()(q, k, v, causal)):
        torch.testing.assert_close(got, want)


def test_an_all_zero_float_mask_gets_both_readings():
    """An all-zero float mask is an additive mask that hides nothing or a 0/1 mask that hides
    everything: is the student given both conversions rather than one guess?"""
    message = _refusal(torch.zeros(T, T))
    assert "(mask == 0) turns an additive 0 / -inf mask" in message and "mask.bool() a 0/1 mask" in message


def test_the_graders_name_an_additive_mask_from_masks_py_with_the_lecture():
    """Does the masks grader name lecture 002's additive causal mask (also shaped (1, 1, T, T))
    and an additive padding mask, and leave a 0/1 float mask to the other readings?"""
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for additive in (_lecture_causal(), _lecture_causal()[0, 0], _lecture_causal(-1e9)):
        with pytest.raises(checks.CheckFailure) as raised:
            mask_graders._equal(additive, causal, f"causal_mask({T})", [])
        assert "lecture notebook 002" in raised.value.en and "cuaderno de clase 002" in raised.value.es
    tokens = torch.tensor([[5, 7, 0], [3, 0, 0]])
    padding = (tokens != 0)[:, None, None, :]
    additive = torch.zeros(2, 3).masked_fill(tokens == 0, float("-inf"))[:, None, None, :]
    with pytest.raises(checks.CheckFailure) as raised:
        mask_graders._equal(additive, padding, "padding_mask", [])
    assert "mask == 0" in raised.value.en
    with pytest.raises(checks.CheckFailure) as raised:
        mask_graders._equal(causal.float(), causal, f"causal_mask({T})", [])
    assert "lecture notebook 002" not in raised.value.en


def test_a_mask_in_multihead_attentions_convention_is_explained_by_the_diagnoses():
    """Do the general diagnoses of an inverted mask (attention weights, exact masks) say that
    True = blocked is nn.MultiheadAttention's convention, the opposite of the course's?"""
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    en, es = shapes.explain_mask(~causal, causal)
    assert "nn.MultiheadAttention's convention" in en and "convención de nn.MultiheadAttention" in es
    scores = torch.randn(T, T, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    want = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
    got = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1).nan_to_num(0.0)
    assert "nn.MultiheadAttention" in shapes.explain(got, want)[0]


def _public_failures(tmp_path, edits) -> dict[str, str]:
    """The failure text of each public test of a1 that fails on the solutions with ``edits``."""
    submission = make_submission(tmp_path / "submission", {f"a1_attention/{m}": e for m, e in edits.items()})
    xml = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                    "assignments/a1_attention", "--course-target", str(submission), f"--junitxml={xml}"],
                   cwd=ROOT, capture_output=True, text=True, timeout=300)
    failed = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            failed[case.get("name")] = (problem.get("message") or "") + (problem.text or "")
    return failed


CAUSAL = "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))"
PADDING = "return (tokens != pad_id)[:, None, None, :]"


def test_public_tests_tell_a_lecture_002_submission_how_the_course_differs(tmp_path):
    """With lecture 002's causal mask (floats, 0 / -inf), do the public tests of causal_mask and
    of the z1..z4 table say how the course differs from the lecture, with the right conversion?"""
    failed = _public_failures(tmp_path, {"masks.py": [
        (CAUSAL, 'return torch.full((1, 1, T, T), float("-inf"), device=device).triu(1)')]})
    causal = failed["test_causal_mask_is_lower_triangular"]
    assert "unlike the lecture notebook 002" in causal and "a diferencia del cuaderno de clase 002" in causal
    assert "use mask == 0" in causal
    table = failed["test_masked_self_attention_reproduces_course_table"]
    assert "unlike the lecture notebook 002" in table and "convert it with (mask == 0)" in table


def test_public_tests_tell_a_multihead_attention_style_submission_the_convention(tmp_path):
    """With masks in nn.MultiheadAttention's convention (True = blocked) and attention that
    reads them so, does each failing public test of the masks and of masked keys name it?"""
    failed = _public_failures(tmp_path, {
        "masks.py": [(CAUSAL, "return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)"),
                     (PADDING, "return (tokens == pad_id)[:, None, None, :]"),
                     ("padding_mask(tokens, pad_id) & causal_mask(", "padding_mask(tokens, pad_id) | causal_mask(")],
        "attention.py": [('scores.masked_fill(~mask, float("-inf"))', 'scores.masked_fill(mask, float("-inf"))')]})
    for name in ("test_causal_mask_is_lower_triangular", "test_padding_mask_shape_and_values",
                 "test_target_mask_combines_padding_and_causality", "test_masked_keys_get_zero_weight"):
        assert "nn.MultiheadAttention's convention" in failed[name], (name, failed[name][:600])
        assert "convención de nn.MultiheadAttention" in failed[name], (name, failed[name][:600])


def test_the_z_table_hint_names_the_lectures_ways(tmp_path):
    """Does the public z1..z4 test name lecture 004 for scores multiplied by the mask (z1 =
    [0.25, 0.5, 0.5]) and lecture 002 for a boolean mask added to the scores?"""
    block = 'scores = scores.masked_fill(~mask, float("-inf"))'
    multiplied = _public_failures(tmp_path / "multiplied", {"attention.py": [(block, "scores = scores * mask")]})
    table = multiplied["test_masked_self_attention_reproduces_course_table"]
    assert "[0.25, 0.5, 0.5]" in table and "lecture notebook 004" in table and "cuaderno de clase 004" in table
    added = _public_failures(tmp_path / "added", {"attention.py": [(block, "scores = scores + mask")]})
    assert "lecture notebook 002" in added["test_masked_self_attention_reproduces_course_table"]
    assert "lecture notebook 002" in added["test_masked_keys_get_zero_weight"]
