"""From sentence pairs to padded batches of ids.

A dataset item is one pair of id tensors: the source without special tokens, the target
framed by ``<sos>`` and ``<eos>``, which teacher forcing needs (the decoder reads
``<sos> y1 .. yn`` and must predict ``y1 .. yn <eos>``):

    ("i am tom", "soy tom")  ->  src [ 9, 17,  5]        (no specials)
                                 tgt [ 1, 23, 11, 2]     (<sos> soy tom <eos>)

Sentences differ in length, so a batch pads each one on the right with ``<pad>`` up to
the longest of its batch; the model's masks then ignore those positions.

Legend: B = batch size, S = longest source in the batch, T = longest target in the batch.
"""

from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset


class TranslationDataset(Dataset):
    """Pairs of cleaned ``(source, target)`` sentences, served as id tensors.

    Args:
        pairs: list of ``(src, tgt)`` strings, already cleaned.
        src_vocab, tgt_vocab: the ``Vocab`` of each language.
        max_len: if given, the source keeps its first ``max_len`` ids and the target at
            most ``max_len`` ids *including* ``<sos>`` and ``<eos>`` (``<eos>`` stays last,
            so a truncated sentence still ends); the model's positional table must cover it.
    """

    def __init__(self, pairs, src_vocab, tgt_vocab, max_len=None):
        if max_len is not None and max_len < 2:
            raise ValueError(f"max_len must be None or >= 2 (a target needs <sos> and <eos>), got {max_len}")
        self.pairs = list(pairs)
        self.src_vocab, self.tgt_vocab = src_vocab, tgt_vocab
        self.max_len = max_len

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        """``(src_ids, tgt_ids)``: int64 tensors of shapes ``(S_i,)`` and ``(T_i,)``."""
        # Pista: (~7 líneas) codifica el origen sin especiales y el destino con
        # add_sos_eos=True; si max_len, recorta (el destino se corta a max_len - 1 y vuelve
        # a terminar con eos_id, solo si es más largo); torch.tensor(..., dtype=torch.long). A
        # diferencia de los cuadernos de clase 002 y 003, que ponen <eos> (y el 003 <sos>) también
        # en el origen, aquí el origen va sin especiales: el codificador no los necesita.
        # Hint: (~7 lines) encode the source without specials and the target with
        # add_sos_eos=True; with max_len, truncate (the target, only when longer, is cut to
        # max_len - 1 ids and ends with eos_id again); torch.tensor(..., dtype=torch.long).
        # Unlike lecture notebooks 002 and 003, which put <eos> (and 003 <sos>) on the source
        # too, the source has no specials here: the encoder does not need them.
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: TranslationDataset.__getitem__")


def collate(batch, pad_id=0):
    """Stack dataset items into two right-padded batches.

    Args:
        batch: list of ``(src_ids, tgt_ids)`` 1-D int64 tensors of any lengths.
        pad_id: the id that fills the positions after each sentence.

    Returns:
        ``(src, tgt)``: int64 tensors ``(B, S)`` and ``(B, T)``, row b holding item b's ids
        first and ``pad_id`` after them.
    """
    # Pista: (~7 líneas) S y T = las longitudes máximas del lote; torch.full con pad_id;
    # copia cada secuencia al principio de su fila (o usa
    # torch.nn.utils.rnn.pad_sequence(..., batch_first=True, padding_value=pad_id)).
    # Hint: (~7 lines) S and T = the longest lengths in the batch; torch.full with pad_id;
    # copy each sequence to the start of its row (or use
    # torch.nn.utils.rnn.pad_sequence(..., batch_first=True, padding_value=pad_id)).
    # YOUR CODE HERE
    raise NotImplementedError("not implemented yet: collate")


def make_loader(dataset, batch_size, shuffle=True, pad_id=0, generator=None):
    """A ``DataLoader`` of ``(src, tgt)`` padded batches (given code).

    Args:
        dataset: a ``TranslationDataset``.
        batch_size: pairs per batch (the last batch may be smaller).
        shuffle: new random order every epoch (training); ``False`` keeps the order.
        pad_id: passed to :func:`collate`.
        generator: a ``torch.Generator`` for a reproducible shuffle.
    """
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, collate_fn=partial(collate, pad_id=pad_id),
                      generator=generator)
