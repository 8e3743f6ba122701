"""Public tests for batching.py. Run them with ``pytest assignments/a6_translator``."""

import torch

from batching import TranslationDataset, collate, make_loader
from vocab import Vocab

PAIRS = [("i am tom", "soy tom"), ("run", "corre"), ("i run", "yo corro")]
SRC_WORDS = ["i", "am", "tom", "run"]  # ids 4 5 6 7
TGT_WORDS = ["soy", "tom", "corre", "yo", "corro"]  # ids 4 5 6 7 8


def dataset(max_len=None):
    return TranslationDataset(PAIRS, Vocab(SRC_WORDS), Vocab(TGT_WORDS), max_len)


def test_items_frame_the_target_only():
    """Is an item (source ids, <sos> + target ids + <eos>) as int64 tensors?"""
    src, tgt = dataset()[0]
    assert src.dtype == tgt.dtype == torch.int64
    assert src.tolist() == [4, 5, 6] and tgt.tolist() == [1, 4, 5, 2]


def test_max_len_truncates_and_keeps_eos():
    """With max_len=3, is the source cut to 3 ids and the target to <sos> word <eos>?"""
    data = dataset(max_len=3)
    src, tgt = data[0]
    assert src.tolist() == [4, 5, 6] and tgt.tolist() == [1, 4, 2]
    assert data[1][1].tolist() == [1, 6, 2]


def test_collate_pads_on_the_right():
    """Does collate right-pad both sides to the longest sentence of the batch?"""
    items = [(torch.tensor([7]), torch.tensor([1, 6, 2])), (torch.tensor([4, 5, 6]), torch.tensor([1, 4, 5, 2]))]
    src, tgt = collate(items, pad_id=0)
    assert src.dtype == tgt.dtype == torch.int64
    assert src.tolist() == [[7, 0, 0], [4, 5, 6]]
    assert tgt.tolist() == [[1, 6, 2, 0], [1, 4, 5, 2]]
    assert collate(items, pad_id=9)[0].tolist() == [[7, 9, 9], [4, 5, 6]]


def test_loader_gives_padded_batches():
    """Does make_loader(shuffle=False) give (B, S) and (B, T) batches in order?"""
    batches = list(make_loader(dataset(), batch_size=2, shuffle=False))
    assert [tuple(s.shape) for s, _ in batches] == [(2, 3), (1, 2)]
    assert batches[1][1].tolist() == [[1, 7, 8, 2]]
