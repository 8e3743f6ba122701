"""Does every classic mistake lose points, at every seed, the same points at each, with
feedback that names it?

The fast tier grades a subset (``mutants.fast``: every assignment, every module its
mistakes edit, every forbidden call) at the first seed; ``pytest --full`` every mistake at
every seed."""

import pytest

import helpers
import mutants

MUTANTS = mutants.load()
FAST = mutants.fast(MUTANTS)
BATCHES = mutants.batches(MUTANTS, FAST)  # graded together, so one worker takes each batch's tests
_VERDICTS: dict[tuple[str, str], mutants.Verdict] = {}


def verdict(key, tmp_path_factory) -> mutants.Verdict:
    """The mutant's verdict, from one `grade` run over its whole batch."""
    if key not in _VERDICTS:
        batch = sorted(k for k, name in BATCHES.items() if name == BATCHES[key] and (helpers.FULL or k in FAST))
        graded = mutants.grade_many(key[0], [MUTANTS[k] for k in batch], tmp_path_factory.mktemp(BATCHES[key]),
                                    helpers.tier_seeds(mutants.SEEDS_OF.get(key[0], mutants.SEEDS)))
        _VERDICTS.update(zip(batch, graded))
    return _VERDICTS[key]


@pytest.mark.parametrize("key", helpers.tiered(sorted(MUTANTS), FAST, ids=[f"{a}: {n}" for a, n in sorted(MUTANTS)],
                                               marks=lambda key: [pytest.mark.xdist_group(f"mutants-{BATCHES[key]}")]))
def test_classic_mistake_loses_points_at_every_seed(key, tmp_path_factory):
    """Does the mistake lose the points of the graders aimed at it at each seed, the same
    total at every seed, and (where it is recognised) does the feedback name it?"""
    assignment, name = key
    mutant = MUTANTS[key]
    v = verdict(key, tmp_path_factory)
    for seed in v.seeds:
        for prefix in mutant.must_fail:
            assert v.caught(prefix, seed), (
                f"{name}: '{prefix}...' passed at seed {seed}; failed: {sorted(v.failed(seed))}")
    totals = {seed: v.score(seed) for seed in v.seeds}
    assert len(set(totals.values())) == 1, f"{name}: scores differ across seeds {totals}: " + str(
        {seed: sorted(v.failed(seed)) for seed in v.seeds})
    if mutant.names:
        for seed in v.seeds:
            assert v.named(mutant.names, seed), (
                f"{name}: no failed test says {mutant.names!r} at seed {seed}: "
                + str([t["output"] for t in v.failed(seed).values()]))
    if name.startswith("calls "):
        outputs = [t["output"] for t in v.failed(v.seeds[0]).values()]
        assert any("uses torch.nn.functional." in out and f"{mutant.module}:" in out for out in outputs), outputs


def test_corpus_is_large_enough():
    """Does the corpus hold at least 60 mistakes, across every assignment?"""
    assert len(MUTANTS) >= 60, len(MUTANTS)
    from autograder import course
    assert {a for a, _ in MUTANTS} == {a.name for a in course.ASSIGNMENTS}
