"""Hidden graders for a1_attention/masks.py."""

import pytest
import torch

from autograder import checks


def _tokens(rng, B, S, pad_id):
    """Random non-pad ids with a random amount of right padding per row."""
    tokens = torch.randint(0, 50, (B, S), generator=rng)
    tokens[tokens == pad_id] = pad_id + 1
    tokens[~checks.right_padding(rng, B, S)] = pad_id
    return tokens


@pytest.mark.points(1)
def test_causal_mask(student, rng):
    """Is causal_mask(T) the boolean lower triangle for a random T? / ¿Es causal_mask(T) el triángulo inferior booleano?"""
    for T in (1, checks.randint(rng, 2, 16)):
        expected = torch.ones(T, T).tril().bool()
        checks.equal(student.call("masks.causal_mask", T), expected, f"causal_mask({T})")


@pytest.mark.points(1)
def test_padding_mask(student, rng):
    """Does padding_mask hide exactly the pad ids, with shape (B, 1, 1, S)? / ¿Oculta padding_mask exactamente los pad, con forma (B, 1, 1, S)?"""
    B, S, pad_id = checks.randint(rng, 1, 5), checks.randint(rng, 2, 12), checks.randint(rng, 0, 3)
    tokens = _tokens(rng, B, S, pad_id)
    expected = (tokens != pad_id).view(B, 1, 1, S)
    checks.equal(student.call("masks.padding_mask", tokens, pad_id), expected, f"padding_mask(tokens of shape {(B, S)}, pad_id={pad_id})")


@pytest.mark.points(1)
def test_target_mask(student, rng):
    """Is target_mask the (B, 1, T, T) AND of padding and causality? / ¿Es target_mask el AND (B, 1, T, T) de relleno y causalidad?"""
    B, T, pad_id = checks.randint(rng, 1, 5), checks.randint(rng, 2, 12), checks.randint(rng, 0, 3)
    tokens = _tokens(rng, B, T, pad_id)
    expected = (tokens != pad_id)[:, None, None, :] & torch.ones(T, T).tril().bool()
    checks.equal(student.call("masks.target_mask", tokens, pad_id), expected, f"target_mask(tokens of shape {(B, T)}, pad_id={pad_id})")
