"""The a5 graders' own decoders (autograder/graders/a5_decoding/decoders.py)."""

import torch

from autograder import reference
from autograder.graders.a5_decoding import decoders
from autograder.tokens import EOS, PAD, SOS


def _model(seed):
    return decoders.model_and_spec(torch.Generator().manual_seed(seed), tgt_vocab=6, eos_bias=2.0, sharpness=2.0)[0]


def test_prefix_cache_gives_the_logits_of_a_fresh_decode():
    """Does a prefix asked for again, alone or beside new ones, get the logits a fresh decode of it gives?"""
    model = _model(0)
    row = decoders.source(torch.Generator().manual_seed(1), 1)
    prefixes = decoders._Prefixes(model, row)
    first = torch.tensor([[SOS, 4], [SOS, 5], [SOS, 3]])
    again = torch.tensor([[SOS, 5], [SOS, 2], [SOS, 4]])  # two known, one new, in another order
    prefixes.logits(first)
    got = prefixes.logits(again)
    with torch.no_grad():
        memory, src_mask = model.encode(row)
        want = torch.cat([model.decode(p[None], memory, src_mask)[:, -1] for p in again])
    assert len(prefixes.known) == 4, sorted(prefixes.known)
    assert torch.allclose(got, want, rtol=0, atol=1e-12), (got - want).abs().max()


def test_grader_beam_search_equals_the_reference():
    """Does the graders' beam search (cached prefixes, every row alone) return the reference's tokens?"""
    beam = reference.load("beam")
    for seed in range(3):
        model = _model(seed)
        src = decoders.source(torch.Generator().manual_seed(10 + seed), 6)
        beams = decoders.Beams(model, src, 3, 8)
        for alpha in (0.0, 0.6, 1.2):
            with torch.no_grad():
                want = beam.beam_search(model, src[beams.rows], 3, 8, SOS, EOS, PAD, alpha)
            got = beams.tokens(alpha)
            assert beams.rows and torch.equal(got, want[:, :got.size(1)]), (seed, alpha, got, want)
            assert bool((want[:, got.size(1):] == PAD).all())
