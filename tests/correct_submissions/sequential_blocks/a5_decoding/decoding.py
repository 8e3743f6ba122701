"""Auto-regressive decoding: greedy and sampled, batched, with a key/value cache.

Every function takes a model with ``encode(src) -> (memory, src_mask)`` and
``decode(tgt, memory, src_mask) -> logits``, such as the course's ``Transformer``; call
``model.eval()`` first. The result is a ``(B, L)`` tensor of generated ids, without the
leading ``sos_id``: a row stops at its ``eos_id`` (kept) and is padded with ``pad_id``
after it; ``L <= max_len``, and decoding stops as soon as every row has finished.

Legend: B = batch size, S = source length, L = generated length, V = vocabulary size.
"""

import torch

from beam import beam_search
from incremental import make_decoder
from sampling import sample_next_token


@torch.no_grad()
def sample_decode(model, src, max_len, sos_id, eos_id, pad_id=0, temperature=1.0, top_k=None, top_p=None,
                  generator=None, use_cache=True):
    """Generate with :func:`sample_next_token` at every step.

    Args:
        model: encoder-decoder with ``encode`` / ``decode``.
        src: ``(B, S)`` source ids.
        max_len: most tokens to generate per row (EOS included).
        sos_id, eos_id, pad_id: special ids of the target vocabulary.
        temperature, top_k, top_p, generator: as in :func:`sample_next_token`.
        use_cache: step with a key/value cache (one position per step) when the model
            allows it; the tokens are the same either way.

    Returns:
        ``(B, L)`` int64 ids, EOS kept, ``pad_id`` after it.
    """
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
    memory, src_mask = model.encode(src)
    decoder = make_decoder(model, memory, src_mask, use_cache)
    # Pista: (~10 líneas) empieza con una columna de sos_id; en cada paso decoder.step
    # da los logits (B, V); elige con sample_next_token; las filas terminadas reciben
    # pad_id; para cuando todas han terminado; devuelve sin la columna de sos_id.
    # Hint: (~10 lines) start from a column of sos_id; each step, decoder.step gives the
    # logits (B, V); pick with sample_next_token; finished rows get pad_id; stop when all
    # have finished; return without the sos_id column.
    B = src.size(0)
    ys = torch.full((B, 1), sos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        logits = decoder.step(ys)
        nxt = sample_next_token(logits, temperature, top_k, top_p, generator).to(ys.device)
        nxt = nxt.masked_fill(done, pad_id)
        ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
        done = done | (nxt == eos_id)
        if bool(done.all()):
            break
    return ys[:, 1:]


def greedy_decode(model, src, max_len, sos_id, eos_id, pad_id=0, use_cache=True):
    """Always take the most likely next token; same arguments and result as sample_decode."""
    # Pista: (1 línea) temperatura 0 es voraz.
    # Hint: (1 line) temperature 0 is greedy.
    return sample_decode(model, src, max_len, sos_id, eos_id, pad_id, temperature=0.0, use_cache=use_cache)


STRATEGIES = ("greedy", "sample", "beam")


def decode(model, src, strategy="greedy", max_len=50, sos_id=1, eos_id=2, pad_id=0, *, temperature=1.0,
           top_k=None, top_p=None, generator=None, beam_size=4, length_penalty=0.6, use_cache=True):
    """One entry point for translation: ``strategy`` is "greedy", "sample" or "beam"."""
    if strategy == "greedy":
        return greedy_decode(model, src, max_len, sos_id, eos_id, pad_id, use_cache=use_cache)
    if strategy == "sample":
        return sample_decode(model, src, max_len, sos_id, eos_id, pad_id, temperature, top_k, top_p,
                             generator, use_cache)
    if strategy == "beam":
        return beam_search(model, src, beam_size, max_len, sos_id, eos_id, pad_id, length_penalty, use_cache)
    raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
