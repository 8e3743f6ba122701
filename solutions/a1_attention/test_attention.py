"""Public tests for attention.py. Run them with ``pytest assignments/a1_attention``."""

import math

import torch

from attention import masked_self_attention, scaled_dot_product_attention


def test_masked_self_attention_reproduces_course_table(course_data):
    """Do the rows of masked_self_attention(Q, K, V) match z1..z4 from the lecture?"""
    data = course_data("a1_attention/masked_self_attention.json")
    Q, K, V = (torch.tensor(data[name]) for name in "QKV")
    Z = masked_self_attention(Q, K, V)
    torch.testing.assert_close(Z, torch.tensor(data["Z"]), atol=0.5 * 10 ** -data["decimals"], rtol=0)


def test_output_and_weight_shapes():
    """Are the shapes (..., T_q, d_v) for the output and (..., T_q, T_k) for the weights?"""
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 3, 5, 4)
    assert weights.shape == (2, 3, 5, 7)


def test_weights_rows_sum_to_one():
    """Does every row of the attention weights sum to 1?"""
    torch.manual_seed(1)
    q, k, v = torch.randn(4, 6, 16), torch.randn(4, 6, 16), torch.randn(4, 6, 16)
    _, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(weights.sum(-1), torch.ones(4, 6))


def test_scores_are_scaled_by_sqrt_d_k():
    """Is the softmax taken over q·k / sqrt(d_k), as in the paper?"""
    q = torch.tensor([[1.0, 1.0, 1.0, 1.0]])
    k = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    v = torch.eye(2)
    _, weights = scaled_dot_product_attention(q, k, v)
    expected = torch.softmax(torch.tensor([4.0 / math.sqrt(4), 0.0]), dim=-1)
    torch.testing.assert_close(weights[0], expected)


def test_masked_keys_get_zero_weight():
    """Does a key where the mask is False get exactly zero weight?"""
    torch.manual_seed(2)
    q, k, v = torch.randn(1, 3, 8), torch.randn(1, 4, 8), torch.randn(1, 4, 8)
    mask = torch.tensor([[True, True, False, False]])
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert torch.all(weights[..., 2:] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(1, 3))


def test_fully_masked_query_gives_zeros_not_nan():
    """Does a query with no key to attend to give zeros instead of NaN?"""
    q, k, v = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3, 4)
    mask = torch.tensor([[True, False, True], [False, False, False]])
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert not torch.isnan(output).any() and not torch.isnan(weights).any()
    assert torch.all(output[1] == 0) and torch.all(weights[1] == 0)
