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
    rows = []
    for b in range(src.shape[0]):
        memory, src_mask = model.encode(src[b:b + 1])
        decoder = make_decoder(model, memory, src_mask, use_cache)
        seqs = torch.full((1, 1), sos_id, dtype=torch.long, device=src.device)  # (k, t)
        logp_sum = torch.zeros(1, device=src.device)  # (k,)
        best, best_score = None, float("-inf")
        for t in range(1, max_len + 1):
            step_logp = decoder.step(seqs).float().log_softmax(dim=-1)  # (k, V)
            V = step_logp.shape[-1]
            cand = (logp_sum[:, None] + step_logp).reshape(-1)
            top_scores, top_idx = cand.topk(min(beam_size, cand.numel()))
            parent = torch.div(top_idx, V, rounding_mode="floor")
            token = top_idx % V
            new_seqs = torch.cat((seqs[parent], token[:, None]), dim=1)
            ends = (token == eos_id) | (t == max_len)
            for j in ends.nonzero().flatten().tolist():
                score = top_scores[j].item() / lp(t, length_penalty)
                if score > best_score:
                    best, best_score = new_seqs[j, 1:], score
            alive = ~ends
            if not bool(alive.any()):
                break
            decoder.reorder(parent[alive])
            seqs, logp_sum = new_seqs[alive], top_scores[alive]
        rows.append(best)
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=pad_id).long()
