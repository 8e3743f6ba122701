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


import heapq
import math


def _filtered_probs(row, top_k, top_p):
    """Probabilities (a Python list) of one row of scaled logits after top-k and top-p."""
    candidates = list(range(len(row)))
    if top_k is not None:
        candidates = heapq.nlargest(top_k, candidates, key=lambda i: row[i])
    best = max(row[i] for i in candidates)
    exps = {i: math.exp(row[i] - best) for i in candidates}
    total = sum(exps.values())
    probs = {i: e / total for i, e in exps.items()}
    if top_p is not None:
        kept, mass = {}, 0.0
        for i in sorted(probs, key=lambda i: probs[i], reverse=True):
            if mass >= top_p:
                break
            kept[i] = probs[i]
            mass += probs[i]
        probs = kept
    total = sum(probs.values())
    return [probs.get(i, 0.0) / total for i in range(len(row))]


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
        raise ValueError(f"top_k must be None or an integer >= 1, got {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be None or a float in (0, 1], got {top_p}")
    if temperature == 0 or top_k == 1:
        return logits.argmax(dim=-1)
    table = []
    for row in (logits.float() / temperature).tolist():
        table.append(_filtered_probs(row, top_k, top_p))
    probs = torch.tensor(table, dtype=torch.float32, device=logits.device)
    return torch.multinomial(probs, 1, generator=generator).squeeze(1)
