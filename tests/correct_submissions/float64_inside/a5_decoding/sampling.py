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
    if not temperature >= 0:
        raise ValueError(f"temperature must be a number >= 0 (0 means greedy); got {temperature!r}")
    if top_k is not None and (int(top_k) != top_k or top_k < 1):
        raise ValueError(f"top_k must be None or an integer >= 1; got {top_k!r}")
    if top_p is not None and not (0.0 < top_p <= 1.0):
        raise ValueError(f"top_p must be None or in the interval (0, 1]; got {top_p!r}")
    if temperature == 0 or top_k == 1:
        return torch.argmax(logits, dim=-1).to(torch.int64)
    f64 = torch.float64
    scores = logits.to(f64) / float(temperature)
    V = scores.shape[-1]
    if top_k is not None and top_k < V:
        kth_best = torch.topk(scores, int(top_k), dim=-1).values[:, -1:]
        scores = scores.masked_fill(scores < kth_best, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    if top_p is not None:
        p_desc, order = torch.sort(probs, dim=-1, descending=True)
        mass_before = torch.cumsum(p_desc, dim=-1) - p_desc
        keep = mass_before < top_p
        keep[:, 0] = True  # never fewer than one token
        p_desc = torch.where(keep, p_desc, torch.zeros_like(p_desc))
        probs = torch.zeros_like(probs).scatter(1, order, p_desc)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1, generator=generator).reshape(-1).to(torch.int64)
