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
    ### BEGIN SOLUTION
    def search_one(row):  # row: (1, S) -> the best ids as a list
        memory, src_mask = model.encode(row)
        decoder = make_decoder(model, memory, src_mask, use_cache)
        tokens = torch.full((1, 1), sos_id, dtype=torch.long, device=src.device)  # (k, t)
        scores = torch.zeros(1, device=src.device)  # (k,) summed log-probabilities
        finished = []  # (normalised score, ids)
        for step in range(1, max_len + 1):
            logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]  # (k, V)
            V = logp.size(-1)
            top = logp.flatten().topk(min(beam_size, logp.numel()))
            live = []
            for score, flat in zip(top.values.tolist(), top.indices.tolist()):
                beam, token = divmod(flat, V)
                if token == eos_id or step == max_len:
                    finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))
                else:
                    live.append((score, beam, token))
            if not live:
                break
            index = torch.tensor([beam for _, beam, _ in live], device=src.device)
            decoder.reorder(index)
            new = torch.tensor([[token] for _, _, token in live], device=src.device)
            tokens = torch.cat([tokens[index], new], dim=1)  # (k, t + 1)
            scores = torch.tensor([score for score, _, _ in live], device=src.device)
        return max(finished, key=lambda f: f[0])[1]

    best = [search_one(src[b:b + 1]) for b in range(src.size(0))]
    out = torch.full((src.size(0), max(len(h) for h in best)), pad_id, dtype=torch.long, device=src.device)
    for b, hypothesis in enumerate(best):
        out[b, :len(hypothesis)] = torch.tensor(hypothesis, dtype=torch.long)
    return out
    ### END SOLUTION
