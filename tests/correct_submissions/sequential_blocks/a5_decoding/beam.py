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
    device = src.device
    best_rows = []
    for b in range(src.size(0)):
        memory, src_mask = model.encode(src[b:b + 1])
        decoder = make_decoder(model, memory, src_mask, use_cache)
        seqs = torch.full((1, 1), sos_id, dtype=torch.long, device=device)  # live hypotheses, with <sos>
        scores = torch.zeros(1, device=device)  # their log-probabilities
        finished = []  # (score / lp, tokens without <sos>)
        for t in range(1, max_len + 1):
            logp = torch.log_softmax(decoder.step(seqs), dim=-1)  # (k, V)
            V = logp.size(-1)
            total = (scores.unsqueeze(1) + logp).reshape(-1)
            top_scores, flat = torch.topk(total, min(beam_size, total.numel()))
            ok = torch.isfinite(top_scores)  # impossible continuations are not hypotheses
            top_scores, flat = top_scores[ok], flat[ok]
            if flat.numel() == 0:
                break
            parent = torch.div(flat, V, rounding_mode="floor")
            token = flat % V
            new_seqs = torch.cat([seqs[parent], token.unsqueeze(1)], dim=1)
            ends = (token == eos_id) | (t == max_len)
            for i in torch.nonzero(ends).flatten().tolist():
                finished.append((top_scores[i].item() / lp(t, length_penalty), new_seqs[i, 1:].tolist()))
            live = torch.nonzero(~ends).flatten()
            if live.numel() == 0:
                break
            decoder.reorder(parent[live])
            seqs, scores = new_seqs[live], top_scores[live]
        best_rows.append(max(finished, key=lambda f: f[0])[1] if finished else [eos_id])
    L = max(len(row) for row in best_rows)
    out = torch.full((len(best_rows), L), pad_id, dtype=torch.long, device=device)
    for i, row in enumerate(best_rows):
        out[i, :len(row)] = torch.tensor(row, dtype=torch.long, device=device)
    return out
