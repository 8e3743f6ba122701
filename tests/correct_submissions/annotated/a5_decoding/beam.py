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


class Hypothesis:
    """A partial translation: its tokens (without <sos>) and its log-probability."""

    def __init__(self, tokens, logprob):
        self.tokens, self.logprob = tokens, logprob

    def score(self, alpha):
        return self.logprob / lp(len(self.tokens), alpha)


def _search_one(model, src_row, beam_size, max_len, sos_id, eos_id, alpha, use_cache):
    """Beam search for one sentence ``src_row`` (1, S); returns the best token list."""
    memory, src_mask = model.encode(src_row)
    decoder = make_decoder(model, memory, src_mask, use_cache)
    live = [Hypothesis([], 0.0)]
    done = []
    while live:
        prefix = torch.tensor([[sos_id] + h.tokens for h in live], dtype=torch.long, device=src_row.device)
        logp = decoder.step(prefix).log_softmax(dim=-1)  # (k, V)
        V = logp.size(-1)
        totals = logp + torch.tensor([h.logprob for h in live], dtype=logp.dtype, device=logp.device)[:, None]
        values, indices = totals.view(-1).topk(min(beam_size, totals.numel()))
        survivors, parents = [], []
        for value, index in zip(values.tolist(), indices.tolist()):
            parent, token = divmod(index, V)
            hyp = Hypothesis(live[parent].tokens + [token], value)
            if token == eos_id or len(hyp.tokens) >= max_len:
                done.append(hyp)
            else:
                survivors.append(hyp)
                parents.append(parent)
        if survivors:
            decoder.reorder(torch.tensor(parents, dtype=torch.long, device=src_row.device))
        live = survivors
    best = max(done, key=lambda h: h.score(alpha))
    return best.tokens


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
    rows = [_search_one(model, src[i:i + 1], beam_size, max_len, sos_id, eos_id, length_penalty, use_cache)
            for i in range(src.size(0))]
    width = max(len(r) for r in rows)
    return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], dtype=torch.long, device=src.device)
