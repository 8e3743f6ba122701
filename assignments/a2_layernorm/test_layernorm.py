"""Public tests for layernorm.py. Run them with ``pytest assignments/a2_layernorm``."""

import torch
from torch import nn

from layernorm import LayerNorm


def test_course_vectors(course_data):
    """Does LayerNorm(3) turn the course's v1, v2, v3 into the lecture's outputs?"""
    data = course_data("a2_layernorm/course_vectors.json")
    norm = LayerNorm(3, eps=data["eps"])
    out = norm(torch.tensor(data["inputs"]))
    torch.testing.assert_close(out, torch.tensor(data["outputs"]), atol=0.5 * 10 ** -data["decimals"], rtol=0)


def test_parameters_start_at_ones_and_zeros():
    """Are weight and bias learnable parameters initialised to ones and zeros?"""
    norm = LayerNorm((2, 3))
    params = dict(norm.named_parameters())
    assert set(params) == {"weight", "bias"}
    assert torch.equal(params["weight"].detach(), torch.ones(2, 3))
    assert torch.equal(params["bias"].detach(), torch.zeros(2, 3))


def test_matches_torch_layernorm():
    """Does the output match torch.nn.LayerNorm on a random batch?"""
    torch.manual_seed(0)
    x = torch.randn(4, 5, 8)
    ours, theirs = LayerNorm(8), nn.LayerNorm(8)
    torch.testing.assert_close(ours(x), theirs(x), atol=1e-5, rtol=1e-5)
