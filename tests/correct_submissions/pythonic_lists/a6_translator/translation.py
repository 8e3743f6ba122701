"""Translate sentences with a trained model: clean, encode, decode, turn ids into words.

    "Where is Tom?"  -> clean_text -> "where is tom ?" -> src_vocab.encode -> [12, 7, 30, 5]
    -> one right-padded batch (B, S) -> decoding.decode (a5) -> (B, L) target ids
    -> cut at <eos> -> tgt_vocab.decode -> "dónde está tom ?"
"""

import torch

from decoding import decode
from preprocessing import clean_text


def translate(model, sentences, src_vocab, tgt_vocab, strategy="greedy", max_len=50, **decode_kwargs):
    """Translate a list of raw sentences in one batch.

    Args:
        model: an encoder-decoder with ``config.max_len`` (the course's Transformer).
        sentences: list of strings, as a person types them.
        src_vocab, tgt_vocab: the ``Vocab`` of each language.
        strategy: "greedy", "sample" or "beam" (see ``decoding.decode``).
        max_len: most target tokens to generate; never more than the model's
            positional table covers (``model.config.max_len``).
        decode_kwargs: passed on, e.g. ``beam_size=4`` or ``top_k=5, generator=g``.

    Returns:
        One string per sentence, in order. A sentence that is empty after cleaning gives
        "" (the model does not run for it); a source longer than ``model.config.max_len``
        words is truncated to that many.
    """
    if isinstance(sentences, str):
        raise TypeError("translate takes a list of sentences; wrap a single one as [sentence]")
    # Pista: (~18 líneas) clean_text y src_vocab.encode de cada frase, recortada a
    # model.config.max_len; las vacías dan ""; las demás, en un lote (B, S) rellenado a la
    # derecha con pad_id (en el dispositivo del modelo); model.eval(); decode(model, src,
    # strategy, min(max_len, model.config.max_len), sos_id, eos_id, pad_id, **decode_kwargs);
    # corta cada fila en su primer eos_id y tgt_vocab.decode.
    # Hint: (~18 lines) clean_text and src_vocab.encode each sentence, truncated to
    # model.config.max_len; empty ones give ""; the others go into one (B, S) batch,
    # right-padded with pad_id (on the model's device); model.eval(); decode(model, src,
    # strategy, min(max_len, model.config.max_len), sos_id, eos_id, pad_id, **decode_kwargs);
    # cut each row at its first eos_id and tgt_vocab.decode it.
    limit = model.config.max_len
    encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]
    results = [""] * len(encoded)
    todo = [i for i, ids in enumerate(encoded) if ids]
    if not todo:
        return results
    tensors = list(model.parameters()) + list(model.buffers())
    device = tensors[0].device if tensors else torch.device("cpu")
    width = max(len(encoded[i]) for i in todo)
    rows = [encoded[i] + [src_vocab.pad_id] * (width - len(encoded[i])) for i in todo]
    src = torch.tensor(rows, dtype=torch.long, device=device)
    model.eval()
    out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id, tgt_vocab.pad_id,
                 **decode_kwargs)
    for i, row in zip(todo, out.tolist()):
        if tgt_vocab.eos_id in row:
            row = row[:row.index(tgt_vocab.eos_id)]
        results[i] = tgt_vocab.decode(row)
    return results
