"""3. Forged replies: a worker that answers what it was not asked."""

from __future__ import annotations

import base64

import attack_sources as src
import pytest

import helpers
from attacks.harness import (
    A1,
    assert_no_gain,
    assert_zero,
    attention_tests,
    grade,
    is_mask_test,
    scores,
    targeted,
    wrong_attention,
)

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


def test_forged_empty_gradient_reply_earns_nothing(tmp_path, control_wrong):
    """Can a wrong attention that patches the harness in its own process, so that a `grad`
    request returns no gradients at all, pass the gradient grader? (It must not.)"""
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", src.FORGE_EMPTY_GRADS), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(targeted(attack, A1, lambda name: "radient" in name))


ABSURD_REPLIES = {
    "shape [2**63, 0]": {"kind": "tensor", "dtype": "float32", "shape": [2**63, 0], "data": ""},
    "shape [2**64, 0]": {"kind": "tensor", "dtype": "float64", "shape": [2**64, 0], "data": ""},
    "shape [2**62, 4, 0]": {"kind": "tensor", "dtype": "float32", "shape": [2**62, 4, 0], "data": ""},
    "200 dimensions of 1": {"kind": "tensor", "dtype": "float32", "shape": [1] * 200,
                            "data": base64.b64encode(b"\0" * 4).decode()},
    "frame of 2**64-1 bytes": {"kind": "frame", "length": 2**64 - 1},
}


@pytest.mark.parametrize("forged", helpers.tiered(sorted(ABSURD_REPLIES)))  # fast tier: the first
def test_absurd_reply_fails_only_its_own_calls(tmp_path, control_wrong, forged):
    """Can replies with absurd tensor shapes or frame lengths, forged by the student's code
    for its attention calls, break the grader (an internal error, a crash of grading) or
    earn anything? (They must not: only those calls fail; the mask tests are unaffected.)"""
    prelude = src.FORGE_RAW_REPLY.format(forged=ABSURD_REPLIES[forged])
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", prelude), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(attention_tests(attack))
    masks = targeted(attack, A1, is_mask_test)
    assert all(t["score"] == t["max_score"] for t in masks.values()), scores(attack, A1)
