"""Public tests for multihead.py. Run them with ``pytest assignments/a3_blocks``."""

import pytest
import torch

from multihead import MultiHeadAttention


def test_parameter_count():
    """Does MultiHeadAttention(256, 8) have 4 * (256 * 256 + 256) = 263,168 parameters?"""
    mha = MultiHeadAttention(256, 8)
    assert sum(p.numel() for p in mha.parameters()) == 263_168


def test_self_and_cross_attention_shapes():
    """Do self- and cross-attention give (B, T_q, d_model) and weights (B, h, T_q, T_k)?"""
    mha = MultiHeadAttention(32, 4)
    x, memory = torch.randn(2, 5, 32), torch.randn(2, 9, 32)
    out, weights = mha(x, memory, memory, need_weights=True)
    assert out.shape == (2, 5, 32) and weights.shape == (2, 4, 5, 9)
    out, weights = mha(x, x, x)
    assert out.shape == (2, 5, 32) and weights is None


def test_padding_mask_hides_keys():
    """Does a (B, 1, 1, T_k) mask give the hidden keys zero weight in every head?"""
    mha = MultiHeadAttention(16, 2)
    x = torch.randn(1, 4, 16)
    mask = torch.tensor([True, True, False, False]).view(1, 1, 1, 4)
    _, weights = mha(x, x, x, mask=mask, need_weights=True)
    assert torch.all(weights[..., 2:] == 0)


def test_indivisible_sizes_are_a_clear_error():
    """Does d_model = 10 with 3 heads raise a ValueError that names both numbers?"""
    with pytest.raises(ValueError) as raised:
        MultiHeadAttention(10, 3)
    message = str(raised.value)
    assert "10" in message and "3" in message, f"the message should name d_model=10 and num_heads=3: {message!r}"
