"""The reference decoders (solutions/a5_decoding) on a trained toy model."""

import pytest
import torch

from autograder import reference
from autograder.bench import toy

pytestmark = pytest.mark.xdist_group("decoding_reference")  # one worker builds its costly fixture (conftest.py)


@pytest.fixture(scope="module")
def trained():
    model, steps, loss = toy.train(seconds=8.0, d_model=32)
    return model


def test_cached_and_uncached_decoding_give_identical_tokens(trained):
    """Do greedy, sampled and beam decoding give the same tokens with and without the key/value cache?"""
    decoding = reference.load("decoding")
    src, _, _ = toy.batch(torch.Generator().manual_seed(3), 16)
    for strategy, kwargs in (("greedy", {}), ("sample", {"top_k": 3}), ("beam", {"beam_size": 3})):
        runs = []
        for use_cache in (True, False):
            if strategy == "sample":
                kwargs["generator"] = torch.Generator().manual_seed(11)
            runs.append(decoding.decode(trained, src, strategy, max_len=14, sos_id=toy.SOS, eos_id=toy.EOS,
                                        pad_id=toy.PAD, use_cache=use_cache, **kwargs))
        assert torch.equal(runs[0], runs[1]), strategy


def test_pre_norm_model_decodes_identically_with_the_cache():
    """Does the cache also reproduce a pre-norm model's greedy tokens?"""
    t, decoding = reference.load("transformer"), reference.load("decoding")
    torch.manual_seed(0)
    model = t.Transformer(t.TransformerConfig(src_vocab_size=13, tgt_vocab_size=13, d_model=32, num_heads=4,
                                              num_layers=2, d_ff=64, norm_first=True)).eval()
    src, _, _ = toy.batch(torch.Generator().manual_seed(4), 8)
    a = decoding.greedy_decode(model, src, 12, toy.SOS, toy.EOS, toy.PAD, use_cache=True)
    b = decoding.greedy_decode(model, src, 12, toy.SOS, toy.EOS, toy.PAD, use_cache=False)
    assert torch.equal(a, b)


def test_unknown_strategy_is_a_clear_error(trained):
    """Does decode() name the allowed strategies when given a wrong one?"""
    decoding = reference.load("decoding")
    with pytest.raises(ValueError, match="greedy, sample, beam"):
        decoding.decode(trained, torch.ones(1, 3, dtype=torch.long), "nucleus")


def test_benchmark_script_prints_its_figures(capsys):
    """Does the decoding benchmark run end to end and print both speeds and the ratio, and
    a5's beam search and the translator's batched one with the same tokens?"""
    from autograder.bench import decoding as bench

    bench.main(["--train-seconds", "1", "--batch", "4", "--src-len", "5", "--max-len", "7", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "uncached:" in out and "cached:" in out and "speed-up cached / uncached" in out
    assert "identical tokens: True; sequences reversed" in out
    assert "a5 beam (one sentence at a time):" in out and "batched beam (translator):" in out
    assert "beam 4: identical tokens: True; speed-up batched / a5" in out
