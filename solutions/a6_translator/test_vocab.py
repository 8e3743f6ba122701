"""Public tests for vocab.py. Run them with ``pytest assignments/a6_translator``."""

import pytest
import torch

from vocab import Vocab

CORPUS = ["the cat sat", "the dog sat", "the cat ran"]


def test_specials_come_first():
    """Are <pad> <sos> <eos> <unk> ids 0-3, and the given words after them, duplicates skipped?"""
    v = Vocab(["hola", "<eos>", "mundo", "hola"])
    assert v.itos == ["<pad>", "<sos>", "<eos>", "<unk>", "hola", "mundo"]
    assert v.stoi["hola"] == 4 and v.stoi["<unk>"] == Vocab.unk_id == 3 and len(v) == 6


def test_build_orders_by_count_then_alphabet():
    """Does build sort words by frequency, ties alphabetically, and drop rare ones with min_freq?"""
    assert Vocab.build(CORPUS).itos[4:] == ["the", "cat", "sat", "dog", "ran"]
    assert Vocab.build(CORPUS, min_freq=2).itos[4:] == ["the", "cat", "sat"]
    with pytest.raises(ValueError):
        Vocab.build(CORPUS, min_freq=0)


def test_encode_and_decode():
    """Do unknown words encode as <unk>, and does decode drop <pad>, <sos> and <eos>?"""
    v = Vocab.build(CORPUS)
    assert v.encode("the cat flew") == [4, 5, 3]
    assert v.encode("the cat", add_sos_eos=True) == [1, 4, 5, 2]
    assert v.decode([1, 4, 5, 3, 2, 0, 0]) == "the cat <unk>"
    assert v.decode(torch.tensor([4, 7])) == "the dog"


def test_decode_rejects_ids_outside_the_vocabulary():
    """Does an id past the end raise IndexError?"""
    with pytest.raises(IndexError):
        Vocab.build(CORPUS).decode([4, 9])
