"""The honest controls, each graded once for the whole suite (package scope; the suite's
files share one xdist group, so one worker grades them)."""

from __future__ import annotations

import pytest

from attacks.harness import A1, Run, grade, stub_attention, wrong_attention
from helpers import make_submission


@pytest.fixture(scope="package")
def control_wrong(tmp_path_factory) -> Run:
    """A wrong attention (zeros), nothing else."""
    tmp = tmp_path_factory.mktemp("control-wrong")
    return grade(tmp, "control", wrong_attention(tmp / "sub"), A1)


@pytest.fixture(scope="package")
def control_stub(tmp_path_factory) -> Run:
    """Reference masks and the untouched stub attention."""
    tmp = tmp_path_factory.mktemp("control-stub")
    return grade(tmp, "control", stub_attention(tmp / "sub"), A1)


@pytest.fixture(scope="package")
def control_reference(tmp_path_factory) -> Run:
    """The reference a1, as it is."""
    tmp = tmp_path_factory.mktemp("control-reference")
    return grade(tmp, "control", make_submission(tmp / "sub"), A1)
