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
        shape ``(..., T_q, T_k)`` whose rows sum to 1, both of the inputs' dtype (float64 in,
        float64 out).

    A query whose keys are *all* masked has nothing to attend to: its weights row is all
    zeros and its output row is zeros (instead of the NaN that softmax over ``-inf``
    everywhere would give), and no NaN reaches the gradients either.
    """
    if mask is not None and mask.dtype != torch.bool:
        # Number masks come in opposite conventions, so the fix depends on what this one holds:
        # on an additive 0 / -inf mask, mask.bool() would be True exactly where it blocks.
        if bool((mask < 0).any()) and bool((mask <= 0).all()):
            en, es = (
                "it is an additive mask (0 = may attend, -inf = blocked); unlike the lecture notebook 002, the "
                "course's masks are boolean: convert it with (mask == 0), not mask.bool(), which is True where it "
                "blocks",
                "es una máscara aditiva (0 = puede atender, -inf = bloqueado); a diferencia del cuaderno de clase "
                "002, las máscaras del curso son booleanas: conviértela con (mask == 0), no con mask.bool(), que es "
                "True donde bloquea",
            )
        elif bool(((mask == 0) | (mask == 1)).all()) and bool((mask == 1).any()):
            en, es = ("it holds 0/1 values (1 = may attend): convert it with mask.bool()",
                      "contiene valores 0/1 (1 = puede atender): conviértela con mask.bool()")
        else:
            en, es = ("build it with comparisons, which give bool: (mask == 0) turns an additive 0 / -inf mask (as "
                      "in the lecture notebook 002) into one, mask.bool() a 0/1 mask",
                      "constrúyela con comparaciones, que dan bool: (mask == 0) convierte una máscara aditiva "
                      "0 / -inf (como la del cuaderno de clase 002), mask.bool() una de 0/1")
        raise TypeError(f"mask must be a boolean tensor (True = may attend), got dtype {mask.dtype}; {en} / la "
                        f"máscara debe ser un tensor booleano (True = puede atender), pero su dtype es "
                        f"{mask.dtype}; {es}")
    # Pista: (~7 líneas) puntuaciones = q @ kᵀ / sqrt(d_k); pon -inf donde la máscara es
    # False; softmax sobre la dimensión de las claves; las filas sin ninguna clave deben
    # quedar en ceros, sin NaN (el -1e9 del cuaderno de clase 003 vale para las demás filas,
    # pero a diferencia de él una fila sin claves da ceros, no pesos uniformes).
    # Hint: (~7 lines) scores = q @ kᵀ / sqrt(d_k); put -inf where the mask is False;
    # softmax over the key dimension; rows with no key at all must end up zero, not NaN
    # (lecture notebook 003's -1e9 does for the other rows, but unlike it a row with no key
    # gives zeros, not uniform weights).
    # YOUR CODE HERE
    raise NotImplementedError("not implemented yet: scaled_dot_product_attention")


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
    # YOUR CODE HERE
    raise NotImplementedError("not implemented yet: masked_self_attention")
