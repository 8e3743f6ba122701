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


def _plain_tensor_registered():
    nn.Module().register_parameter("weight", torch.ones(2))


def _with_class():
    with torch.no_grad:
        pass


def _backward_twice():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _step_on_expanded_parameter():
    weight = nn.Parameter(torch.ones(1).expand(4))
    weight.sum().backward()
    torch.optim.SGD([weight], lr=0.1).step()


def _recursion():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)

    def forward():
        return forward()
    try:
        forward()
    finally:
        sys.setrecursionlimit(limit)


def _reference_encode(tokens):
    """The reference Transformer's encode, as a student's beam search calls it."""
    from autograder import reference
    module = reference.load("transformer")
    model = module.Transformer(module.TransformerConfig(src_vocab_size=8, tgt_vocab_size=8, d_model=8, num_heads=2,
                                                        num_layers=1, d_ff=16))
    return model.encode(tokens)


def _reference_attention_with_float_mask(mask=None):
    """The reference attention (a3 to a6 run it beside the student's code) given a float mask
    (by default a 0/1 one)."""
    from autograder import reference
    q = torch.ones(1, 2, 3)
    mask = torch.ones(2, 2).tril() if mask is None else mask
    return reference.load("attention").scaled_dot_product_attention(q, q, q, mask)


def _index_with_broadcast_mask():
    scores = torch.zeros(2, 4, 4, 8)
    scores[torch.ones(2, 1, 1, 8, dtype=torch.bool)] = float("-inf")


def _none_subscripted():
    result = [3, 1].sort()
    return result[0]


# (what the student wrote, a phrase of the explanation it must get, or None: no explanation)
REAL_ERRORS = {
    "broadcast": (lambda: torch.ones(2, 3) + torch.ones(2, 4), "mask or a table sized by the wrong length"),
    "einsum for 4-D only": (lambda: torch.einsum("bhqd,bhkd->bhqk", torch.ones(3, 4), torch.ones(5, 4)),
                            "use an ellipsis"),
    "ce-3d": (lambda: torch.nn.functional.cross_entropy(torch.randn(2, 5, 7), torch.zeros(2, 5, dtype=torch.long)),
     "classes along dim 1"),
    "ce-lengths": (lambda: torch.nn.functional.cross_entropy(torch.randn(6, 7), torch.zeros(5, dtype=torch.long)),
     "logits to (B*T, V)"),
    "invert-float": (lambda: torch.ones(2).masked_fill(~torch.ones(2), 0.0), "~ on a float tensor"),
    "ce-labels-2d": (lambda: torch.nn.functional.cross_entropy(torch.randn(6, 5), torch.zeros(6, 1, dtype=torch.long)),
                     "labels.reshape(-1)"),
    "method-uncalled": (lambda: torch.nn.utils.clip_grad_norm_(nn.Linear(2, 2).parameters, 1.0), "model.parameters()"),
    "with-class": (_with_class, "with torch.no_grad():"),
    "view-size": (lambda: torch.ones(2, 3).view(4, 2), "product is not the tensor's number of elements"),
    "view-float": (lambda: torch.ones(2, 8).view(2, 8 / 2, 2), "compute sizes with //"),
    "reshape-float": (lambda: torch.ones(2, 8).reshape(2, 4.0, 2), "compute sizes with //"),
    "range-float": (lambda: range(8 / 2), "use // or int(...)"),
    "cat": (lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 4)], dim=0), "torch.cat of tensors"),
    "dim": (lambda: torch.ones(2, 3).sum(dim=2), "an axis number the tensor does not have"),
    "tensor-index": (lambda: torch.ones(2, 3)[:, 5], "index past the end"),
    "list-index": (lambda: [0, 1][2], "index past the end"),
    "unrelated-typeerror": (lambda: len(5), None),
    "unpack": (lambda: [a for a, b in [(1, 2, 3)]], "attention returns (output, weights)"),
    "tuple-attribute": (lambda: (torch.ones(2), torch.ones(2)).transpose(0, 1), "a tuple used as a tensor"),
    "tuple-operand": (lambda: (torch.ones(2), torch.ones(2)) + torch.ones(2), "a tuple used as a tensor"),
    "expand": (lambda: torch.ones(2, 3).expand(4, 4), "expanded (or broadcast)"),
    "cat-dims": (lambda: torch.cat([torch.ones(2, 1), torch.ones(2, 1, 2)], dim=1), "different numbers of axes"),
    "multinomial-zero": (lambda: torch.multinomial(torch.zeros(2, 3), 1), "not a distribution"),
    "multinomial-negative": (lambda: torch.multinomial(torch.tensor([[0.5, -0.1, 0.6]]), 1),
                             "negative, infinite or NaN"),
    "str-first": (lambda: torch.tensor(["<sos>", 1]), "built from strings"),
    "str-later": (lambda: torch.tensor([1, "<sos>"]), "built from strings"),
    "float-and": (lambda: torch.ones(2) & torch.ones(2), "masks must be boolean"),
    "tuple-argument": (lambda: torch.nn.Dropout(0.1)((torch.ones(2), None)), "a tuple used as a tensor"),
    "dim-listed-twice": (lambda: torch.ones(2, 3).mean(dim=(-1, -1)), "the same axis is listed twice"),
    "module-not-applied": (lambda: torch.nn.Dropout(0.1)(torch.nn.ReLU(torch.ones(2))),
                           "a module built where it should be applied"),
    "tensor-plus-tuple": (lambda: torch.ones(2) + (torch.ones(2), None), "a tuple used as a tensor"),

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
    "a plain tensor registered": (_plain_tensor_registered, "register_parameter (or a parameter's attribute)"),
    "a float size": (lambda: torch.zeros(2.0 * 2), "computed with /"),
    "bmm on 4-D tensors": (lambda: torch.bmm(torch.zeros(2, 2, 3, 4), torch.zeros(2, 2, 4, 3)), "torch.matmul"),
    "torch.sqrt of an int": (lambda: torch.sqrt(4), "math.sqrt"),
    "None into dropout": (lambda: torch.nn.functional.dropout(None), "None was passed"),
    "a float mask into the reference attention": (_reference_attention_with_float_mask,
                                                  "a mask of floats reached attention, 0/1 numbers"),
    "lecture 002's additive mask into the reference attention": (
        lambda: _reference_attention_with_float_mask(torch.full((1, 1, 2, 2), float("-inf")).triu(1)),
        "convert an additive one with (mask == 0)"),
    "an all-zero float mask into the reference attention": (
        lambda: _reference_attention_with_float_mask(torch.zeros(2, 2)), "a 0/1 mask with mask.bool()"),
    "a sentence without its batch axis": (lambda: _reference_encode(torch.tensor([3, 4, 5])), "src[b:b + 1]"),
    "stack of unequal sentences": (lambda: torch.stack([torch.ones(2), torch.ones(3)]), "pad them first"),
    "dim given a range": (lambda: torch.ones(2, 3).mean(dim=range(-1, 0), keepdim=True), "tuple(range"),
    "boolean indexing with a broadcast mask": (_index_with_broadcast_mask, "masked_fill"),
    "cross_entropy(labels, logits)": (lambda: torch.nn.functional.cross_entropy(
        torch.zeros(4, dtype=torch.long), torch.zeros(4, 3)), "swapped"),
    "a replacement without its group": (lambda: __import__("re").sub("[?!]", r" \1 ", "a?"), "does not capture"),
    "float token ids": (lambda: nn.Embedding(5, 2)(torch.ones(1, 2)), "torch.long"),
    "an id of -100 into an embedding": (lambda: nn.Embedding(5, 2)(torch.tensor([[1, -100]])), "outside the embedding"),
    "embeddings where token ids belong": (lambda: _reference_encode(torch.zeros(1, 3, 8)), "such as the embeddings"),
    "mismatched matmul": (lambda: torch.zeros(2, 3) @ torch.zeros(2, 3), ""),
    "ignore_index given a float": (lambda: torch.nn.functional.cross_entropy(
        torch.zeros(3, 4), torch.zeros(3, dtype=torch.long), ignore_index=0.1), "pass them by name"),
    "clipping at None": (lambda: torch.nn.utils.clip_grad_norm_([torch.ones(2, requires_grad=True)], None),
                         "if clip_norm is not None"),
    "&= growing a mask": (lambda: torch.ones(3, 1, 1, 4, dtype=torch.bool).__iand__(torch.ones(4, 4, dtype=torch.bool)),
                          "broadcasting cannot grow a tensor in place"),
    "// on scores that need a gradient": (lambda: (torch.ones(2, requires_grad=True) // 2.0).sum().backward(),
                                          "has no gradient"),
    "float labels": (lambda: torch.nn.functional.cross_entropy(torch.zeros(6, 5), torch.zeros(6)), "int64 ids"),
    "a mask compared with `is not`": (lambda: (torch.ones(2) is not torch.zeros(2))[:, None], "tokens != pad_id"),
    "a size where the device belongs": (lambda: torch.ones(3, 3, device=3), "takes one size, then the device"),
    "1 - mask on a boolean mask": (lambda: 1 - torch.ones(2, dtype=torch.bool), "invert it with ~mask"),
    "a beam's score taken for its ids": (lambda: max(len(h) for h in [max([(-1.5, [4, 2])])[0]]), "max(finished"),
    "a score unpacked for the ids": (lambda: list(max([(-1.5, [4, 2])])[0]), "the wrong order"),
    "an integer parameter": (lambda: nn.Parameter(torch.full((3,), 1)), "dtype=torch.float32"),
    "an optimizer step on an expanded parameter": (_step_on_expanded_parameter, ".expand(...).clone()"),
    "a generator where top_p belongs": (lambda: 0 < torch.Generator() <= 1, "generator=generator"),
    "a number where the generator belongs": (lambda: torch.multinomial(torch.ones(3), 1, generator=0.9),
                                             "generator=generator"),
    "dims unpacked into mean": (lambda: torch.ones(2, 3).mean(*(-2, -1), keepdim=True), "dim=(-2, -1)"),
    "a tensor where a dim belongs": (lambda: torch.ones(2, 3).sum(-1, torch.ones(1)), "pass them by name"),
}


@pytest.mark.parametrize("case", list(REAL_ERRORS))
def test_a_real_error_gets_its_explanation(case):
    """Does the error torch or Python really raises match the entry written for it?"""
    make, phrase = REAL_ERRORS[case]
    with pytest.raises(Exception) as raised:
        make()
    found = explain(type(raised.value).__name__, str(raised.value))
    if phrase is None:
        assert found is None, f"{raised.value} got {found!r}, expected no explanation"
        return
    assert found is not None, f"{type(raised.value).__name__}: {raised.value} is not explained"
    assert phrase in found[0] and found[1], f"{raised.value} got {found[0]!r}, expected the entry that says {phrase!r}"


def test_a_key_error_is_explained_even_without_its_message_and_an_unknown_error_is_not():
    """Does a KeyError get its usual cause without its message, and an unknown error nothing?"""
    assert ".get(key, default)" in explain("KeyError", "")[0]
    assert explain("RuntimeError", "something else entirely") is None
    assert explain("ValueError", "") is None


def test_every_entry_has_both_languages_and_a_phrase():
    """Does every entry have a phrase to match, an English and a Spanish text that differ?"""
    for kind, phrase, en, es in KNOWN:
        assert phrase and en and es and en != es, (kind, phrase)
