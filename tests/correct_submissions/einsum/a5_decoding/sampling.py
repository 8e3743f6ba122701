"""Choosing the next token: greedy, temperature, top-k and top-p (nucleus) sampling.

Given the logits of a model over its vocabulary, in this order:

1. temperature T divides the logits: T < 1 sharpens the distribution, T > 1 flattens it,
   T = 0 means greedy (argmax);
2. top-k keeps the k largest logits (Fan et al., 2018);
3. top-p keeps the smallest set of the most likely tokens whose probability reaches p
   (Holtzman et al., 2020), never fewer than one token;
4. the kept probabilities are renormalised and one token is drawn per row.

Legend: B = batch size, V = vocabulary size.
"""

import torch


def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Draw one token id per row of ``logits``.

    Args:
        logits: ``(B, V)`` unnormalised scores.
        temperature: ``>= 0``; 0 means greedy.
        top_k: ``None`` (off) or an int ``>= 1``; 1 means greedy.
        top_p: ``None`` (off) or a float in ``(0, 1]``.
        generator: optional ``torch.Generator`` for reproducible draws
            (passed to ``torch.multinomial``).

    Returns:
        ``(B,)`` tensor of token ids (int64).

    Raises:
        ValueError: temperature < 0, top_k < 1 or top_p outside (0, 1]; the message says
            which values are allowed.
    """
    if logits.dim() != 2:
        raise ValueError(f"logits must have shape (B, V), got {tuple(logits.shape)}")
    # Pista: (~20 líneas) valida los argumentos (ValueError que diga qué se permite);
    # caso voraz; divide por la temperatura; top-k con topk; top-p ordenando y con la suma
    # acumulada (quita un token si los anteriores ya alcanzan p); softmax y multinomial.
    # Hint: (~20 lines) validate the arguments (ValueError saying what is allowed); greedy
    # case; divide by the temperature; top-k with topk; top-p by sorting and a cumulative
    # sum (drop a token when the ones before it already reach p); softmax and multinomial.
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0 (0 = greedy), got {temperature}")
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k must be None or an int >= 1, got {top_k}")
    if top_p is not None and not 0.0 < top_p <= 1.0:
        raise ValueError(f"top_p must be None or a float in (0, 1], got {top_p}")
    if temperature == 0 or top_k == 1:
        return logits.argmax(dim=-1)
    z = logits / temperature if temperature != 1.0 else logits.clone()
    minus_inf = torch.tensor(float("-inf"), dtype=z.dtype, device=z.device)
    if top_k is not None and top_k < z.size(-1):
        kth = z.topk(top_k, dim=-1).values[:, -1:]  # (B, 1) the k-th largest
        z = torch.where(z < kth, minus_inf, z)
    if top_p is not None:
        sorted_z, order = z.sort(dim=-1, descending=True)
        p_sorted = sorted_z.softmax(dim=-1)
        before = p_sorted.cumsum(dim=-1) - p_sorted  # mass of the tokens strictly before
        drop_sorted = before >= top_p
        drop_sorted[:, 0] = False
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        z = torch.where(drop, minus_inf, z)
    probs = z.softmax(dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
