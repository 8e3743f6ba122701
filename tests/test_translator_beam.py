"""Does the translator's batched beam search (autograder/translator/beam.py) give exactly the ids
of a5's reference ``beam_search``, which searches one sentence at a time?

Small random-weight models, whose end-of-sentence logit is raised so that hypotheses finish
at every step and a sentence's live count shrinks, over padded sources of varied lengths;
the trained checkpoint's case is in tests/test_translator.py (its session fixture).
"""

import itertools

import pytest
import torch

from autograder import reference
from autograder.tokens import EOS, PAD, SOS
from autograder.translator import beam
from autograder.translator.translate import translate_ids


def random_model(seed: int, vocab: int, norm_first: bool, eos_bias: float):
    t = reference.load("transformer")
    torch.manual_seed(seed)
    model = t.Transformer(t.TransformerConfig(src_vocab_size=vocab, tgt_vocab_size=vocab, d_model=16, num_heads=2,
                                              num_layers=1, d_ff=32, dropout=0.0, max_len=32, pad_id=PAD,
                                              norm_first=norm_first)).eval()
    with torch.no_grad():
        # Random weights rarely pick EOS: raised, it ends hypotheses at every step.
        model.generator.bias[EOS] += eos_bias
    return model


def random_sources(seed: int, batch: int, length: int, vocab: int) -> torch.Tensor:
    """(batch, length) ids right-padded to lengths from 1 to ``length``, the last row full."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, vocab, (batch, length), generator=g)
    for b in range(batch - 1):
        src[b, int(torch.randint(1, length + 1, (1,), generator=g)):] = PAD
    return src


def same_as_a5(model, src, beam_size, max_len, length_penalty, use_cache=True):
    want = reference.load("beam").beam_search(model, src, beam_size, max_len, SOS, EOS, PAD, length_penalty,
                                              use_cache)
    got = beam.beam_search(model, src, beam_size, max_len, SOS, EOS, PAD, length_penalty, use_cache)
    assert got.dtype == torch.long and got.shape == want.shape, (got.shape, want.shape)
    assert got.tolist() == want.tolist(), (beam_size, max_len, length_penalty)


# (seed, vocabulary, pre-norm, EOS bias): a vocabulary of 4 (3 specials and one word) is
# smaller than beam 5, where a5 takes min(beam, k * V) candidates; the larger bias ends
# most hypotheses within a step or two, the smaller lets them run to max_len.
MODELS = [(0, 40, True, 2.0), (1, 4, False, 0.5), (2, 200, True, 4.0), (3, 40, False, 0.0)]


@pytest.mark.parametrize("case", MODELS)
def test_batched_beam_gives_a5s_ids_on_random_models(case):
    """Same ids as a5's beam_search for beam sizes 1, 2, 4, 5, length penalties 0 to 3, and
    max_len from 1 (every hypothesis cut) to longer than most outputs?"""
    seed, vocab, norm_first, eos_bias = case
    model = random_model(seed, vocab, norm_first, eos_bias)
    src = random_sources(seed, 8, 9, vocab)
    # A penalty of 3 tells apart lengths counted from 1 and from 0 (an off-by-one in lp's step).
    for beam_size, max_len, length_penalty in itertools.product((1, 2, 4, 5), (1, 2, 7), (0.0, 0.6, 1.5, 3.0)):
        same_as_a5(model, src, beam_size, max_len, length_penalty)


class PrefixModel:
    """A stand-in encoder-decoder whose next-token logits are a fixed random function of the
    source and the prefix, as peaked as ``sharpness`` makes them: searches where a hypothesis
    that finishes late beats one that finished early, the case the batched search's early stop
    must get right. It has no ``decoder_layers``, so a5's FullDecoder steps it."""

    def __init__(self, vocab: int, sharpness: float, seed: int):
        self.vocab, self.sharpness, self.seed = vocab, sharpness, seed

    def encode(self, src):
        return src[:, :, None].float(), (src != PAD)[:, None, None, :]

    def decode(self, tgt, memory, src_mask):
        rows = []
        for source, prefix in zip(memory[:, :, 0].long().tolist(), tgt.tolist()):
            steps = []
            for t in range(1, len(prefix) + 1):
                g = torch.Generator().manual_seed(hash((self.seed, *source, -1, *prefix[:t])) % 2**62)
                steps.append(torch.randn(self.vocab, generator=g) * self.sharpness)
            rows.append(torch.stack(steps))
        return torch.stack(rows)  # (B, T, V)


@pytest.mark.parametrize("sharpness", [1.0, 3.0])
def test_batched_beam_gives_a5s_ids_where_late_hypotheses_win(sharpness):
    """Same ids as a5's where the length penalty (up to 3, or negative) lets a long
    hypothesis overtake a short one that finished first?"""
    model = PrefixModel(6, sharpness, seed=int(sharpness))
    src = random_sources(7, 12, 5, 6)
    for beam_size, max_len, length_penalty in itertools.product((2, 4), (5, 9), (-1.0, 0.6, 1.5, 3.0)):
        same_as_a5(model, src, beam_size, max_len, length_penalty, use_cache=False)


def test_batched_beam_without_the_cache_and_in_float64():
    """Same ids through a5's FullDecoder (no key/value cache), and for a float64 model?"""
    model = random_model(4, 30, True, 1.5)
    src = random_sources(4, 6, 7, 30)
    same_as_a5(model, src, 3, 6, 0.6, use_cache=False)
    same_as_a5(model.double(), src, 4, 6, 0.6)


def test_edge_cases_empty_one_sentence_and_very_different_lengths():
    """No sentence, one sentence, and a one-token source beside a 30-token one in one batch."""
    model = random_model(5, 40, True, 1.0)
    assert beam.beam_search(model, torch.empty(0, 4, dtype=torch.long)).shape == (0, 0)
    assert translate_ids(model, [], torch.device("cpu"), 32, "beam") == []
    assert translate_ids(model, [[], []], torch.device("cpu"), 32, "beam") == [[], []]
    one = random_sources(5, 1, 6, 40)
    same_as_a5(model, one, 4, 8, 0.6)
    mixed = random_sources(6, 2, 30, 40)
    mixed[0, 1:] = PAD
    same_as_a5(model, mixed, 4, 10, 0.6)
    # translate_ids sorts, batches and puts back in order: the ids of each row alone.
    rows = [[5, 6, 7], [], [9] * 25, [4]]
    got = translate_ids(model, rows, torch.device("cpu"), 32, "beam", batch_size=2, beam_size=3)
    assert got[1] == []
    for row, ids in zip(rows, got):
        if row:
            alone = reference.load("beam").beam_search(model, torch.tensor([row]), 3, min(31, int(1.5 * len(row)) + 10))
            assert ids == alone[0].tolist()


def test_bad_arguments_are_a5s_errors():
    model = random_model(6, 20, True, 0.0)
    src = random_sources(6, 2, 4, 20)
    with pytest.raises(ValueError, match="beam_size must be >= 1"):
        beam.beam_search(model, src, beam_size=0)
    with pytest.raises(ValueError, match="max_len must be >= 1"):
        beam.beam_search(model, src, max_len=0)
