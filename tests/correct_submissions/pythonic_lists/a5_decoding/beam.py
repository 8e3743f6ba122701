"""Beam search (Vaswani et al., 2017, section 6.1: beam size 4, length penalty 0.6).

Keep the ``beam_size`` best partial translations instead of only the best one. A
hypothesis that emits EOS, or reaches ``max_len`` tokens, is finished; the answer is the
finished hypothesis with the highest score

    score(y) = log P(y | x) / lp(|y|),    lp(n) = ((5 + n) / 6) ** length_penalty

(Wu et al., 2016), where |y| counts the generated tokens, EOS included. Without the
penalty (``length_penalty=0``) short outputs win too often.

Legend: B = batch size, S = source length, k = live hypotheses, V = vocabulary size.
"""

import heapq

import torch

from incremental import make_decoder


def lp(length, alpha):
    """GNMT's length penalty ((5 + length) / 6) ** alpha."""
    return ((5 + length) / 6) ** alpha


@torch.no_grad()
def beam_search(model, src, beam_size=4, max_len=50, sos_id=1, eos_id=2, pad_id=0, length_penalty=0.6,
                use_cache=True):
    """The best hypothesis for each source sentence.

    Args:
        model: encoder-decoder with ``encode`` / ``decode`` (call ``model.eval()`` first).
        src: ``(B, S)`` source ids; each row is searched on its own.
        beam_size: hypotheses kept per step; 1 gives greedy decoding.
        max_len, sos_id, eos_id, pad_id: as in ``decoding.sample_decode``.
        length_penalty: alpha of :func:`lp`.

    Returns:
        ``(B, L)`` int64 ids without ``sos_id``, EOS kept, ``pad_id`` after it.
    """
    if beam_size < 1:
        raise ValueError(f"beam_size must be >= 1, got {beam_size}")
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
    # Pista: (~30 líneas) para cada frase: codifica, make_decoder, y en cada paso suma
    # log_softmax a la puntuación de cada hipótesis viva, toma las beam_size mejores de
    # (k, V) aplanado, aparta las que terminan (EOS o max_len) con puntuación / lp,
    # reordena el decodificador con decoder.reorder y sigue con las demás.
    # Hint: (~30 lines) for each sentence: encode, make_decoder, and each step add
    # log_softmax to each live hypothesis' score, take the beam_size best of the flattened
    # (k, V), set aside the finished ones (EOS or max_len) with score / lp, reorder the
    # decoder with decoder.reorder and go on with the others.
    best = []
    for b in range(src.size(0)):
        memory, src_mask = model.encode(src[b:b + 1])
        decoder = make_decoder(model, memory, src_mask, use_cache)
        live = [(0.0, [sos_id])]  # (log-probability, tokens with <sos>)
        finished = []  # (normalised score, generated tokens)
        while live:
            prefix = torch.tensor([tokens for _, tokens in live], dtype=torch.long, device=src.device)
            logp = torch.log_softmax(decoder.step(prefix).float(), dim=-1).tolist()
            candidates = [(score + logp[i][v], i, v) for i, (score, _) in enumerate(live)
                          for v in range(len(logp[i]))]
            top = heapq.nlargest(beam_size, candidates, key=lambda c: c[0])
            survivors, parents = [], []
            for score, i, v in top:
                tokens = live[i][1] + [v]
                n = len(tokens) - 1
                if v == eos_id or n >= max_len:
                    finished.append((score / lp(n, length_penalty), tokens[1:]))
                else:
                    survivors.append((score, tokens))
                    parents.append(i)
            if survivors:
                decoder.reorder(torch.tensor(parents, dtype=torch.long, device=src.device))
            live = survivors
        best.append(max(finished, key=lambda f: f[0])[1])
    width = max(len(tokens) for tokens in best)
    rows = [tokens + [pad_id] * (width - len(tokens)) for tokens in best]
    return torch.tensor(rows, dtype=torch.long, device=src.device)
