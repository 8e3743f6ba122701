"""Tests for grading/known_errors.py: do real errors, raised by torch and Python themselves,
reach the explanation meant for them?"""

import sys

import pytest
import torch
from torch import nn

from autograder.grading.known_errors import KNOWN, explain


def _missing_super():
    class Model(nn.Module):
        def __init__(self):
            self.linear = nn.Linear(2, 2)
    Model()


def _plain_tensor_as_parameter():
    nn.Linear(2, 2).weight = torch.zeros(2, 2)


def _backward_twice():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _recursion():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)

    def forward():
        return forward()
    try:
        forward()
    finally:
        sys.setrecursionlimit(limit)


def _none_subscripted():
    result = [3, 1].sort()
    return result[0]


# (what the student wrote, a phrase of the explanation it must get)
REAL_ERRORS = {
    "result of list.sort() indexed": (_none_subscripted, "None where a result was expected"),
    "a tensor called": (lambda: torch.zeros(2)(1), "not a function is called"),
    "a module built without an argument": (lambda: nn.Linear(2), "fewer arguments"),
    "a keyword the function lacks": (lambda: nn.Linear(2, 3, bias_=True), "keyword argument"),
    "a list plus a module": (lambda: [1] + nn.Linear(2, 2), "torch.cat"),
    "a tensor attribute that does not exist": (lambda: torch.zeros(2).lenght, "attribute that does not exist"),
    "a name never defined": (lambda: eval("d_modle"), "name used before it is defined"),
    "a mean over zero tokens": (lambda: 3 / 0, "division by zero"),
    "forward calling itself": (_recursion, "calls itself"),
    "topk past the axis": (lambda: torch.zeros(3).topk(5), "topk"),
    "backward on a vector": (lambda: torch.ones(3, requires_grad=True).mul(2).backward(), "one number"),
    "backward twice": (_backward_twice, "same graph twice"),
    "mean of a boolean mask": (lambda: (torch.arange(3) > 0).mean(), ".float()"),
    "masked_fill with a float mask": (lambda: torch.zeros(3).masked_fill(torch.zeros(3), 1.0), "boolean mask"),
    "gather with a float index": (lambda: torch.zeros(3, 3).gather(1, torch.zeros(3, 1)), "int64"),
    "gather with a (B,) index": (lambda: torch.zeros(3, 3).gather(1, torch.zeros(3, dtype=torch.long)),
                                 "unsqueeze(-1)"),
    "item of a vector": (lambda: torch.zeros(3).item(), "several values used as one number"),
    "two indices on a vector": (lambda: torch.zeros(3)[0, 0], "fewer axes"),
    "sub-module before super().__init__()": (_missing_super, "super().__init__()"),
    "a plain tensor as a parameter": (_plain_tensor_as_parameter, "nn.Parameter"),
    "a float size": (lambda: torch.zeros(2.0 * 2), "computed with /"),
    "mismatched matmul": (lambda: torch.zeros(2, 3) @ torch.zeros(2, 3), ""),
}


@pytest.mark.parametrize("case", list(REAL_ERRORS))
def test_a_real_error_gets_its_explanation(case):
    """Does the error torch or Python really raises match the entry written for it?"""
    make, phrase = REAL_ERRORS[case]
    with pytest.raises(Exception) as raised:
        make()
    found = explain(type(raised.value).__name__, str(raised.value))
    assert found is not None, f"{type(raised.value).__name__}: {raised.value} is not explained"
    assert phrase in found[0], f"{raised.value} got {found[0]!r}, expected the entry that says {phrase!r}"


def test_every_entry_has_both_languages_and_a_phrase():
    """Does every entry have a phrase to match, an English and a Spanish text that differ?"""
    for kind, phrase, en, es in KNOWN:
        assert phrase and en and es and en != es, (kind, phrase)
