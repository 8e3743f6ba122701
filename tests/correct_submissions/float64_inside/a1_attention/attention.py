"""Scaled dot-product attention (Vaswani et al., 2017, section 3.2.1).

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Shapes use this legend: ``...`` = any leading dimensions (batch, heads), T_q = number of
queries, T_k = number of keys (and values), d_k = query/key size, d_v = value size.
"""

import math

import torch

from masks import causal_mask

WORK = torch.float64  # every score and weight is computed in double precision


def _safe_softmax(scores):
    """Softmax over the last dimension of float64 ``scores`` that may hold -inf.

    A row that is -inf everywhere gives zeros (no 0/0), and exp never sees -inf - -inf.
    """
    top = scores.amax(dim=-1, keepdim=True).detach()
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    expd = torch.exp(scores - top)
    total = expd.sum(dim=-1, keepdim=True)
    return expd / torch.where(total > 0, total, torch.ones_like(total))


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
    out_dtype = torch.promote_types(torch.promote_types(q.dtype, k.dtype), v.dtype)
    q64, k64, v64 = q.to(WORK), k.to(WORK), v.to(WORK)
    d_k = q.shape[-1]
    scores = torch.matmul(q64, k64.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(torch.logical_not(mask), float("-inf"))
    weights = _safe_softmax(scores)
    output = torch.matmul(weights, v64)
    return output.to(out_dtype), weights.to(out_dtype)


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
    T = Q.shape[0]
    output, _weights = scaled_dot_product_attention(Q, K, V, mask=causal_mask(T, device=Q.device))
    return output
