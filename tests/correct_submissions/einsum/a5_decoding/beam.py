"""Beam search (Vaswani et al., 2017, section 6.1: beam size 4, length penalty 0.6).

Keep the ``beam_size`` best partial translations instead of only the best one. A
hypothesis that emits EOS, or reaches ``max_len`` tokens, is finished; the answer is the
finished hypothesis with the highest score

    score(y) = log P(y | x) / lp(|y|),    lp(n) = ((5 + n) / 6) ** length_penalty

(Wu et al., 2016), where |y| counts the generated tokens, EOS included. Without the
penalty (``length_penalty=0``) short outputs win too often.

Legend: B = batch size, S = source length, k = live hypotheses, V = vocabulary size.
"""

import torch

from incremental import make_decoder


def _search_one(model, src_row, beam_size, max_len, sos_id, eos_id, length_penalty, use_cache):
    """Beam search for one source sentence (1, S): the best finished hypothesis as a list."""
    memory, src_mask = model.encode(src_row)
    decoder = make_decoder(model, memory, src_mask, use_cache)
    device = src_row.device
    prefixes = torch.full((1, 1), sos_id, dtype=torch.long, device=device)  # (k, t)
    logp = torch.zeros(1, device=device)  # (k,)
    best_score, best_tokens = None, None
    for length in range(1, max_len + 1):
        step_logp = torch.log_softmax(decoder.step(prefixes), dim=-1)  # (k, V)
        V = step_logp.size(-1)
        cand = (logp.unsqueeze(1) + step_logp).flatten()
        top, flat_idx = cand.topk(min(beam_size, cand.numel()))
        parent, token = flat_idx // V, flat_idx % V
        prefixes = torch.cat((prefixes[parent], token.unsqueeze(1)), dim=1)
        ends = (token == eos_id) | (length == max_len)
        for j in ends.nonzero().flatten().tolist():
            score = top[j].item() / lp(length, length_penalty)
            if best_score is None or score > best_score:
                best_score, best_tokens = score, prefixes[j, 1:].tolist()
        live = (~ends).nonzero().flatten()
        if live.numel() == 0:
            break
        prefixes, logp = prefixes[live], top[live]
        decoder.reorder(parent[live])
    return best_tokens


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
    rows = [
        _search_one(model, src[b:b + 1], beam_size, max_len, sos_id, eos_id, length_penalty, use_cache)
        for b in range(src.size(0))
    ]
    width = max(len(r) for r in rows) if rows else 0
    out = torch.full((len(rows), width), pad_id, dtype=torch.long, device=src.device)
    for b, r in enumerate(rows):
        out[b, : len(r)] = torch.tensor(r, dtype=torch.long, device=src.device)
    return out
