"""Scaled dot-product attention (Vaswani et al., 2017, section 3.2.1).

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Shapes use this legend: ``...`` = any leading dimensions (batch, heads), T_q = number of
queries, T_k = number of keys (and values), d_k = query/key size, d_v = value size.
"""

import math

import torch

from masks import causal_mask


def to_additive(mask, dtype, device=None):
    """Boolean mask (True = may attend) -> float mask: 0 where allowed, -inf where not."""
    additive = torch.zeros(mask.shape, dtype=dtype, device=device)
    return additive.masked_fill(mask.logical_not(), float("-inf"))


def stable_softmax(scores):
    """softmax over the last dimension, by hand: exp(s - max) / sum.

    A row that is -inf everywhere (no key to attend to) comes out as zeros: its max is
    replaced by 0 so that exp(-inf - 0) = 0, and its zero denominator by 1.
    """
    row_max = scores.amax(dim=-1, keepdim=True).detach()
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    e = torch.exp(scores - row_max)
    denom = e.sum(dim=-1, keepdim=True)
    denom = torch.where(denom > 0, denom, torch.ones_like(denom))
    return e / denom


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
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ k.mT) * scale  # (..., T_q, T_k)
    if mask is not None:
        scores = scores + to_additive(mask, scores.dtype, scores.device)
    weights = stable_softmax(scores)
    return weights @ v, weights


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
    T = Q.shape[-2]
    return scaled_dot_product_attention(Q, K, V, causal_mask(T, device=Q.device))[0]
