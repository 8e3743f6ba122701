"""1. The grading process: a module planted where the grading process starts."""

from __future__ import annotations

import attack_sources as src
import pytest

from attacks.harness import (
    A1,
    assert_no_gain,
    assert_zero,
    attention_tests,
    grade,
    needs_namespaces,
    wrong_attention,
)

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


@needs_namespaces
def test_module_planted_in_grading_folder_is_never_imported(tmp_path, control_wrong):
    """Can a worker that writes a module into the grading process's working folder, under
    a name that process imports after the worker started (`resource`, imported in the fork
    that becomes each new worker), get its code run outside the sandbox and rewrite the
    graders' report? (It must not: a wrong attention still scores nothing.)"""
    attack = grade(tmp_path, "attack", wrong_attention(tmp_path / "sub", src.PLANT_PRELUDE), A1)
    assert_no_gain(attack, control_wrong, A1)
    assert_zero(attention_tests(attack))
