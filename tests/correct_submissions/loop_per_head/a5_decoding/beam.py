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
    results = []
    for b in range(src.size(0)):
        memory, src_mask = model.encode(src[b:b + 1])
        decoder = make_decoder(model, memory, src_mask, use_cache)
        live = [[sos_id]]  # token lists, with the leading sos_id
        live_scores = [0.0]  # log P of each live hypothesis
        finished = []  # (normalised score, tokens without sos_id)
        for step in range(1, max_len + 1):
            tokens = torch.tensor(live, dtype=torch.long, device=src.device)  # (k, t)
            logp = torch.log_softmax(decoder.step(tokens).float(), dim=-1)  # (k, V)
            V = logp.size(1)
            total = logp + torch.tensor(live_scores, dtype=logp.dtype, device=logp.device).unsqueeze(1)
            best = torch.topk(total.flatten(), min(beam_size, total.numel()))
            keep_rows, new_live, new_scores = [], [], []
            for score, flat in zip(best.values.tolist(), best.indices.tolist()):
                row, tok = divmod(flat, V)
                seq = live[row] + [tok]
                if tok == eos_id or step == max_len:
                    finished.append((score / lp(step, length_penalty), seq[1:]))
                else:
                    keep_rows.append(row)
                    new_live.append(seq)
                    new_scores.append(score)
            if not new_live:
                break
            decoder.reorder(torch.tensor(keep_rows, dtype=torch.long, device=src.device))
            live, live_scores = new_live, new_scores
        best_score, best_seq = finished[0]
        for score, seq in finished[1:]:
            if score > best_score:
                best_score, best_seq = score, seq
        results.append(best_seq)
    L = max(len(seq) for seq in results)
    out = torch.full((len(results), L), pad_id, dtype=torch.long, device=src.device)
    for b, seq in enumerate(results):
        out[b, :len(seq)] = torch.tensor(seq, dtype=torch.long)
    return out
