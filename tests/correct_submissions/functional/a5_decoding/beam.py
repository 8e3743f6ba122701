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
import torch.nn.functional as F

from incremental import make_decoder


def _search_one(model, src, beam_size, max_len, sos_id, eos_id, alpha, use_cache):
    """Beam search for one sentence (1, S) -> 1-D tensor of generated ids, EOS kept."""
    memory, src_mask = model.encode(src)
    decoder = make_decoder(model, memory, src_mask, use_cache)
    seqs = torch.full((1, 1), sos_id, dtype=torch.long, device=src.device)  # (k, t)
    scores = torch.zeros(1, device=src.device)  # (k,) summed log-probabilities
    best_score, best_seq = -float("inf"), None
    while seqs.size(0) > 0:
        logp = F.log_softmax(decoder.step(seqs).float(), dim=-1)  # (k, V)
        V = logp.size(-1)
        total = (scores.unsqueeze(1) + logp).flatten()
        top_scores, top_idx = total.topk(min(beam_size, total.numel()))
        parents, words = top_idx // V, top_idx % V
        seqs = torch.cat((seqs[parents], words.unsqueeze(1)), dim=1)
        length = seqs.size(1) - 1
        done = words.eq(eos_id) | (length >= max_len)
        for i in done.nonzero().flatten().tolist():
            normalised = top_scores[i].item() / lp(length, alpha)
            if normalised > best_score:
                best_score, best_seq = normalised, seqs[i, 1:]
        alive = done.logical_not()
        if bool(alive.any()):
            decoder.reorder(parents[alive])
        seqs, scores = seqs[alive], top_scores[alive]
    return best_seq


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
    results = [_search_one(model, src[b:b + 1], beam_size, max_len, sos_id, eos_id, length_penalty, use_cache)
               for b in range(src.size(0))]
    return torch.nn.utils.rnn.pad_sequence(results, batch_first=True, padding_value=pad_id)
