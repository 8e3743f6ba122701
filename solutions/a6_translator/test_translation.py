"""Public tests for translation.py, on a scripted word-by-word model.

Run them with ``pytest assignments/a6_translator``.
"""

from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn

from translation import translate
from vocab import Vocab

SRC_WORDS = ["hello", "world", "!"]  # ids 4 5 6
TGT_WORDS = ["hola", "mundo", "!", "¡"]  # ids 4 5 6 7


class WordByWordModel(nn.Module):
    """Emits, at step t, the translation of source word t, then <eos>; encode/decode like
    the course's Transformer."""

    def __init__(self, max_len=8):
        super().__init__()
        self.config = SimpleNamespace(max_len=max_len, pad_id=0)
        self.register_buffer("table", torch.tensor([0, 0, 0, 3, 4, 5, 6]))  # source id -> target id
        self.unused = nn.Parameter(torch.zeros(1))

    def encode(self, src):
        return self.table[src], (src != 0)[:, None, None, :]  # memory: the target ids (B, S)

    def decode(self, tgt, memory, src_mask):
        B, T = tgt.shape
        nxt = torch.zeros(B, T, dtype=torch.long)
        n = min(T, memory.size(1))
        nxt[:, :n] = memory[:, :n]
        nxt[nxt == 0] = 2  # after the last source word: <eos>
        return F.one_hot(nxt, 4 + len(TGT_WORDS)).float() * 10  # (B, T, V)


def test_translates_a_batch_in_order():
    """Are sentences cleaned, translated together and returned in order, "" for an empty one?"""
    out = translate(WordByWordModel(), ["Hello, world!", "...", "world"], Vocab(SRC_WORDS), Vocab(TGT_WORDS))
    assert out == ["hola <unk> mundo !", "", "mundo"]


def test_long_sources_are_truncated_to_the_model():
    """Is a source longer than model.config.max_len cut to that many words?"""
    out = translate(WordByWordModel(max_len=3), ["hello world hello world hello"], Vocab(SRC_WORDS),
                    Vocab(TGT_WORDS))
    assert out == ["hola mundo hola"]
