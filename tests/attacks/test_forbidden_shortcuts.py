"""6. Forbidden shortcuts: sdpa and layer norm reached by names built at run time."""

from __future__ import annotations

import attack_sources as src
import pytest

import helpers
from attacks.harness import (
    A1,
    A2,
    Run,
    assert_no_gain,
    assert_zero,
    attention_tests,
    grade,
    scores,
    targeted,
)
from helpers import make_submission

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


@pytest.mark.parametrize("lookup", helpers.tiered(sorted(src.SDPA_LOOKUPS)))  # fast tier: the first
def test_runtime_built_sdpa_name_earns_nothing(tmp_path, control_stub, lookup):
    """Can an attention that reaches torch's scaled_dot_product_attention through a name
    built at run time (which the static parser cannot see) earn the points of the tests
    that call it? (It must not.)"""
    body = src.SDPA_SHORTCUT.format(lookup=src.SDPA_LOOKUPS[lookup])
    sub = make_submission(tmp_path / "sub", {f"{A1}/attention.py": [(src.ATTENTION_BEGIN, src.ATTENTION_BEGIN + body)]})
    attack = grade(tmp_path, "attack", sub, A1)
    assert_no_gain(attack, control_stub, A1)
    assert_zero(attention_tests(attack))


@pytest.fixture(scope="module")
def a2_control(tmp_path_factory) -> Run:
    """Reference a2 whose forward is not written yet."""
    tmp = tmp_path_factory.mktemp("control-a2")
    sub = make_submission(tmp / "sub", {f"{A2}/layernorm.py": [
        (src.LAYERNORM_BEGIN, src.LAYERNORM_NOT_DONE + src.LAYERNORM_BEGIN)]})
    return grade(tmp, "control", sub, A2)


@pytest.mark.parametrize("lookup", helpers.tiered(sorted(src.LAYERNORM_LOOKUPS)))  # fast tier: the first
def test_runtime_built_layer_norm_name_earns_nothing(tmp_path, a2_control, lookup):
    """Can a LayerNorm whose forward reaches torch's layer norm through a name built at run
    time earn the points of the tests that run forward? (It must not.)"""
    body = src.LAYERNORM_SHORTCUT.format(lookup=src.LAYERNORM_LOOKUPS[lookup])
    sub = make_submission(tmp_path / "sub", {f"{A2}/layernorm.py": [(src.LAYERNORM_BEGIN, body + src.LAYERNORM_BEGIN)]})
    attack = grade(tmp_path, "attack", sub, A2)
    assert_no_gain(attack, a2_control, A2)
    forward = {n for n, s in scores(a2_control, A2).items() if s == 0}
    assert_zero(targeted(attack, A2, lambda name: name in forward))
