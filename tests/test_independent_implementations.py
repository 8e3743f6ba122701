"""Do the graders give full marks to every correct implementation, whatever its style?

``tests/correct_submissions/<style>/`` holds complete submissions written independently of the
reference, from the stubs' docstrings and public tests only, each in a style the reference
does not use (einsum, a loop per head, float64 inside, nn.Sequential blocks with aliased
attributes, additive float masks, the Annotated Transformer's helpers, Python lists and
heapq, torch.nn.functional on raw parameters). Each is graded at five seeds; half of the
styles share one `grade` run (one grading process per assignment, a student process each).
The fast tier grades one style of each half (FAST) at the first seed; ``pytest --full``
grades them all at every seed.
"""

import pytest

import helpers
from helpers import ROOT, Graded, run_grade_many

SUBMISSIONS = ROOT / "tests" / "correct_submissions"
STYLES = sorted(p.name for p in SUBMISSIONS.iterdir() if p.is_dir())
SEEDS = (1, 2, 3, 4, 5)
BATCHES = [STYLES[::2], STYLES[1::2]]  # two runs, so that two workers share the work
FAST = helpers.CORRECT_FAST  # the fast tier's style(s)
_GRADED: dict[str, Graded] = {}


def graded(style: str, tmp_path_factory) -> Graded:
    if style not in _GRADED:
        batch = [s for s in next(b for b in BATCHES if style in b) if helpers.FULL or s in FAST]
        out = tmp_path_factory.mktemp("independent") / "out"
        seeds = ",".join(map(str, helpers.tier_seeds(SEEDS)))
        _GRADED.update(zip(batch, run_grade_many([SUBMISSIONS / s for s in batch], out, "--seeds", seeds)))
    return _GRADED[style]


def test_there_are_enough_correct_submissions():
    """Are there at least eight independent correct submissions?"""
    assert len(STYLES) >= 8, STYLES
    assert set(FAST) <= set(STYLES), FAST


ORDER = [style for batch in BATCHES for style in batch]
GROUP = {style: f"independent-{n}" for n, batch in enumerate(BATCHES) for style in batch}


@pytest.mark.parametrize("style", helpers.tiered(ORDER, FAST, ids=ORDER,
                                                 marks=lambda style: [pytest.mark.xdist_group(GROUP[style])]))
def test_correct_submission_gets_full_marks_at_every_seed(style, tmp_path_factory):
    """Does this independently written, correct submission get full marks at each of five seeds?"""
    g = graded(style, tmp_path_factory)
    assert g.rc == 0, g.stderr
    lost = [(t["name"], t["output"][:300]) for t in g.results["tests"] if t["score"] < t["max_score"]]
    assert not lost, lost
    assert g.results["score"] == g.results["extra_data"]["max_score"] > 0
