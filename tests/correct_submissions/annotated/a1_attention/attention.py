"""Scaled dot-product attention (Vaswani et al., 2017, section 3.2.1).

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Shapes use this legend: ``...`` = any leading dimensions (batch, heads), T_q = number of
queries, T_k = number of keys (and values), d_k = query/key size, d_v = value size.
"""

import math

import torch

from masks import causal_mask


def scaled_dot_product_attention(q, k, v, mask=None):
    """Attend from every query to the keys and mix the values with the weights.

    Args:
        q: queries, shape ``(..., T_q, d_k)``.
        k: keys, shape ``(..., T_k, d_k)``.
        v: values, shape ``(..., T_k, d_v)``.
        mask: optional boolean tensor broadcastable to ``(..., T_q, T_k)``;
            ``True`` = may attend. A masked key gets exactly zero weight.

    Returns:
        ``(output, weights)``: output of shape ``(..., T_q, d_v)`` and attention weights of
        shape ``(..., T_q, T_k)`` whose rows sum to 1.

    A query whose keys are *all* masked has nothing to attend to: its weights row is all
    zeros and its output row is zeros (instead of the NaN that softmax over ``-inf``
    everywhere would give), and no NaN reaches the gradients either.
    """
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError(
            f"mask must be a boolean tensor (True = may attend), got dtype {mask.dtype}; "
            "convert it with mask.bool() or (mask != 0)"
        )
    # Pista: (~7 líneas) puntuaciones = q @ kᵀ / sqrt(d_k); pon -inf donde la máscara es
    # False; softmax sobre la dimensión de las claves; las filas sin ninguna clave deben
    # quedar en ceros, sin NaN.
    # Hint: (~7 lines) scores = q @ kᵀ / sqrt(d_k); put -inf where the mask is False;
    # softmax over the key dimension; rows with no key at all must end up zero, not NaN.
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    p_attn = scores.softmax(dim=-1)
    if mask is not None:
        # a query that sees no key at all: softmax gave NaN, the course wants zeros
        p_attn = p_attn.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.matmul(p_attn, v), p_attn


def masked_self_attention(Q, K, V):
    """Causal self-attention on one sequence: row ``i`` of the result only uses rows ``0..i``.

    This is the course's worked example: with its 4x3 matrices Q, K and V (see
    ``source_data/a1_attention/masked_self_attention.json``) the rows z1..z4 of the result
    are the table from the lecture.

    Args:
        Q, K, V: tensors of shape ``(T, d_k)``, ``(T, d_k)`` and ``(T, d_v)``.

    Returns:
        Z of shape ``(T, d_v)``.
    """
    # Pista: (~2 líneas) usa causal_mask y scaled_dot_product_attention.
    # Hint: (~2 lines) use causal_mask and scaled_dot_product_attention.
    return scaled_dot_product_attention(Q, K, V, causal_mask(Q.size(-2), Q.device))[0]
