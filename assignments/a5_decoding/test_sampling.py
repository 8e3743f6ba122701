"""Public tests for sampling.py. Run them with ``pytest assignments/a5_decoding``."""

import pytest
import torch

from sampling import sample_next_token

LOGITS = torch.tensor([[2.0, 1.0, 0.5, -1.0, 0.0], [0.0, 3.0, 0.0, 0.0, 2.9]])


def test_greedy_cases_take_the_argmax():
    """Do temperature=0 and top_k=1 both pick the most likely token of every row?"""
    assert sample_next_token(LOGITS, temperature=0.0).tolist() == [0, 1]
    assert sample_next_token(LOGITS, top_k=1).tolist() == [0, 1]


def test_top_k_never_leaves_the_k_best():
    """With top_k=2, is every draw one of the two largest logits of its row?"""
    g = torch.Generator().manual_seed(0)
    draws = sample_next_token(LOGITS.repeat(500, 1), top_k=2, generator=g).view(500, 2)
    assert set(draws[:, 0].tolist()) == {0, 1} and set(draws[:, 1].tolist()) == {1, 4}


def test_top_p_keeps_the_smallest_set_reaching_p():
    """With probabilities [0.5, 0.3, 0.2] and top_p=0.6, are only the first two tokens drawn?"""
    logits = torch.tensor([[0.5, 0.3, 0.2]]).log().repeat(1000, 1)
    draws = sample_next_token(logits, top_p=0.6, generator=torch.Generator().manual_seed(1))
    assert set(draws.tolist()) == {0, 1}


def test_same_generator_seed_same_draws():
    """Does the same generator seed give the same tokens?"""
    a = sample_next_token(LOGITS.repeat(50, 1), generator=torch.Generator().manual_seed(7))
    b = sample_next_token(LOGITS.repeat(50, 1), generator=torch.Generator().manual_seed(7))
    assert torch.equal(a, b)


@pytest.mark.parametrize("kwargs", [{"temperature": -1.0}, {"top_k": 0}, {"top_p": 0.0}, {"top_p": 1.5}])
def test_invalid_arguments_raise_value_error(kwargs):
    """Do a negative temperature, top_k < 1 or top_p outside (0, 1] raise ValueError?"""
    with pytest.raises(ValueError):
        sample_next_token(LOGITS, **kwargs)
