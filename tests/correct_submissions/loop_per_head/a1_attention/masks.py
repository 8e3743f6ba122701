"""Attention masks (Vaswani et al., 2017, sections 3.1 and 3.2.3).

Every mask in this course is a boolean tensor where ``True`` means "may attend" and
``False`` means "must not attend". Masks broadcast against attention scores of shape
``(B, h, T_q, T_k)``:

- a padding mask hides the ``<pad>`` positions of a batch of sequences: ``(B, 1, 1, S)``;
- a causal mask stops position ``i`` from seeing positions after ``i``: ``(T, T)``;
- the decoder's self-attention uses both at once: ``(B, 1, T, T)``.

Legend: B = batch size, h = number of heads, S = source length, T = target length.
"""

import torch


def causal_mask(T, device=None):
    """Lower-triangular mask so that position ``i`` attends to positions ``0..i`` only.

    "We need to prevent leftward information flow in the decoder to preserve the
    auto-regressive property" (section 3.2.3).

    Args:
        T: sequence length.
        device: where to create the mask (default: the CPU).

    Returns:
        A boolean tensor of shape ``(T, T)`` with ``mask[i, j] = (j <= i)``.

    Example::

        >>> causal_mask(3)
        tensor([[ True, False, False],
                [ True,  True, False],
                [ True,  True,  True]])
    """
    if T < 1:
        raise ValueError(f"T must be a positive sequence length, got {T}")
    # Pista: (1 línea) torch.tril sobre una matriz de unos booleanos de (T, T).
    # Hint: (1 line) torch.tril over a (T, T) matrix of boolean ones.
    rows = torch.arange(T, device=device).unsqueeze(1)
    cols = torch.arange(T, device=device).unsqueeze(0)
    return cols <= rows


def padding_mask(tokens, pad_id):
    """Mask that hides padding tokens from every query.

    Args:
        tokens: integer tensor of token ids, shape ``(B, S)``.
        pad_id: the id of the ``<pad>`` token.

    Returns:
        A boolean tensor of shape ``(B, 1, 1, S)``: ``True`` where ``tokens`` is not
        ``pad_id``. The two singleton dimensions broadcast over heads and queries.
    """
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape (B, S), got {tuple(tokens.shape)}")
    # Pista: (1 línea) compara con pad_id y añade dos dimensiones con None o unsqueeze.
    # Hint: (1 line) compare with pad_id, then add two dimensions with None or unsqueeze.
    keep = tokens != pad_id
    return keep.unsqueeze(1).unsqueeze(2)


def target_mask(tokens, pad_id):
    """The decoder self-attention mask: no padding and no peeking ahead.

    Args:
        tokens: integer tensor of target token ids, shape ``(B, T)``.
        pad_id: the id of the ``<pad>`` token.

    Returns:
        A boolean tensor of shape ``(B, 1, T, T)``, the logical AND of
        :func:`padding_mask` and :func:`causal_mask`.
    """
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape (B, T), got {tuple(tokens.shape)}")
    # Pista: (1 línea) combina las dos funciones anteriores con & (se difunden solas).
    # Hint: (1 line) combine the two functions above with & (broadcasting does the rest).
    return padding_mask(tokens, pad_id) & causal_mask(tokens.size(1), device=tokens.device)
