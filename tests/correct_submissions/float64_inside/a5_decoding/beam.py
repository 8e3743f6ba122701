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
    f64 = torch.float64
    device = src.device
    results = []
    for row in src.split(1, dim=0):
        memory, src_mask = model.encode(row)
        dec = make_decoder(model, memory, src_mask, use_cache)
        hyps = torch.full((1, 1), sos_id, dtype=torch.int64, device=device)
        scores = torch.zeros(1, dtype=f64, device=device)  # log P of each live hypothesis
        finished = []  # (score / lp, generated ids)
        for n in range(1, max_len + 1):
            logp = torch.log_softmax(dec.step(hyps).to(f64), dim=-1)  # (k, V)
            V = logp.shape[1]
            total = (scores.unsqueeze(1) + logp).reshape(-1)
            k = min(beam_size, total.numel())
            best, flat = torch.topk(total, k)
            origin = torch.div(flat, V, rounding_mode="floor")
            token = flat - origin * V
            hyps = torch.cat([hyps.index_select(0, origin), token.unsqueeze(1)], dim=1)
            stop = token.eq(eos_id) if n < max_len else torch.ones_like(token, dtype=torch.bool)
            for j in range(k):
                if bool(stop[j]):
                    finished.append((best[j].item() / lp(n, length_penalty), hyps[j, 1:].tolist()))
            keep = torch.logical_not(stop).nonzero(as_tuple=True)[0]
            if keep.numel() == 0:
                break
            hyps, scores = hyps.index_select(0, keep), best.index_select(0, keep)
            dec.reorder(origin.index_select(0, keep))
        finished.sort(key=lambda item: -item[0])  # stable: the first found wins a tie
        results.append(finished[0][1])
    L = max(len(ids) for ids in results)
    out = torch.full((len(results), L), pad_id, dtype=torch.int64, device=device)
    for b, ids in enumerate(results):
        out[b, :len(ids)] = torch.as_tensor(ids, dtype=torch.int64, device=device)
    return out
