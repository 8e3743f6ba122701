"""Public tests for masks.py. Run them with ``pytest assignments/a1_attention``."""

import torch

from masks import causal_mask, padding_mask, target_mask


def test_causal_mask_is_lower_triangular():
    """Does causal_mask(4) let position i see positions 0..i only?"""
    expected = torch.tensor(
        [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool
    )
    mask = causal_mask(4)
    assert mask.dtype == torch.bool, "the mask must be boolean / la máscara debe ser booleana"
    assert torch.equal(mask, expected)


def test_padding_mask_shape_and_values():
    """Does padding_mask give (B, 1, 1, S) with False exactly on the padding?"""
    tokens = torch.tensor([[5, 7, 0, 0], [3, 0, 0, 0]])
    mask = padding_mask(tokens, pad_id=0)
    assert mask.shape == (2, 1, 1, 4)
    assert mask.dtype == torch.bool
    assert mask[0, 0, 0].tolist() == [True, True, False, False]
    assert mask[1, 0, 0].tolist() == [True, False, False, False]


def test_target_mask_combines_padding_and_causality():
    """Does target_mask give (B, 1, T, T) = padding AND causal?"""
    tokens = torch.tensor([[4, 9, 0]])
    mask = target_mask(tokens, pad_id=0)
    assert mask.shape == (1, 1, 3, 3)
    expected = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 0]], dtype=torch.bool)
    assert torch.equal(mask[0, 0], expected)
