"""Public tests for decoding.py and beam.py, on a tiny scripted model.

Run them with ``pytest assignments/a5_decoding``.
"""

import torch

from beam import beam_search
from decoding import greedy_decode, sample_decode

PAD, SOS, EOS, A, B = 0, 1, 2, 3, 4


class BigramModel:
    """P(next | last token) from a fixed table; encode/decode like the course's Transformer."""

    def __init__(self, table):
        self.logp = torch.tensor(table).log()  # (V, V): row = last token

    def encode(self, src):
        return torch.zeros(src.size(0), src.size(1), 1), torch.ones(src.size(0), 1, 1, src.size(1), dtype=torch.bool)

    def decode(self, tgt, memory, src_mask):
        return self.logp[tgt]  # (B, T, V)


# From SOS: A 0.55, B 0.45. After A: EOS only 0.4. After B: EOS 0.9.
# Greedy picks A then EOS (0.55 x 0.4 = 0.22); B then EOS is better (0.45 x 0.9 = 0.405).
TABLE = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.55, 0.45],  # after SOS
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after EOS (unused)
    [0.0, 0.0, 0.4, 0.3, 0.3],  # after A
    [0.0, 0.0, 0.9, 0.05, 0.05],  # after B
]


def test_greedy_stops_at_eos():
    """Does greedy decoding take A then EOS, and stop there?"""
    out = greedy_decode(BigramModel(TABLE), torch.ones(2, 3, dtype=torch.long), max_len=10, sos_id=SOS, eos_id=EOS, pad_id=PAD)
    assert out.tolist() == [[A, EOS], [A, EOS]]


def test_max_len_is_respected_and_finished_rows_are_padded():
    """Is the output at most max_len long, with pad after each row's EOS?"""
    table = [row[:] for row in TABLE]
    table[3] = [0.0, 0.0, 0.1, 0.8, 0.1]  # after A, mostly A again: long outputs
    out = greedy_decode(BigramModel(table), torch.ones(1, 3, dtype=torch.long), max_len=4, sos_id=SOS, eos_id=EOS, pad_id=PAD)
    assert out.tolist() == [[A, A, A, A]]
    g = torch.Generator().manual_seed(3)
    out = sample_decode(BigramModel(TABLE), torch.ones(64, 3, dtype=torch.long), max_len=6, sos_id=SOS, eos_id=EOS,
                        pad_id=PAD, generator=g)
    assert out.size(1) <= 6
    for row in out.tolist():
        if EOS in row:
            assert all(t == PAD for t in row[row.index(EOS) + 1:])


def test_beam_search_finds_the_better_sentence():
    """Does a beam of 2 find B EOS (probability 0.405), which greedy misses?"""
    out = beam_search(BigramModel(TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5, sos_id=SOS,
                      eos_id=EOS, pad_id=PAD, length_penalty=0.0)
    assert out.tolist() == [[B, EOS]]


def test_beam_of_one_is_greedy():
    """Is beam search with beam_size=1 the same as greedy decoding?"""
    src = torch.ones(1, 3, dtype=torch.long)
    beam = beam_search(BigramModel(TABLE), src, beam_size=1, max_len=5, sos_id=SOS, eos_id=EOS, pad_id=PAD)
    assert beam.tolist() == greedy_decode(BigramModel(TABLE), src, 5, SOS, EOS, PAD).tolist()
