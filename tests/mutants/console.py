"""Which classic mistakes does `grade`'s console diagnose, the way a student reads it?

    python tests/mutants/console.py [--heldout [ROUND]] [--only a4_transformer ...] [--seed 1] [--parallel 2]

Grades every mutant (``--heldout``: the newest round of held-out mistakes,
``tests/mutants/heldout3.py``, the figure that counts; ``--heldout heldout2`` an earlier
round) at one seed, as `python -m autograder grade` does, and counts, per assignment, the
mistakes that lose points and those for which the console shows a specific diagnosis under a
lost test (a ``Likely mistake:`` line, whichever mechanism wrote it: a named mistake, the
stage where a composite first differs, or the error's shape).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for mutants and helpers

import mutants  # noqa: E402
from autograder.grading import console  # noqa: E402
from autograder.grading.reports import LIKELY_EN  # noqa: E402


def graded(corpus: dict, seed: int, parallel: int):
    """(assignment, mistake, its lost tests at ``seed``: results.json entries) for every
    mistake of ``corpus``, batch by batch (mutants.BATCH of one assignment per `grade` run),
    ``parallel`` batches at once."""
    batches = []
    for assignment in dict.fromkeys(a for a, _ in corpus):
        names = [name for a, name in corpus if a == assignment]
        batches += [(assignment, names[i:i + mutants.BATCH]) for i in range(0, len(names), mutants.BATCH)]

    def one(batch):
        assignment, names = batch
        with tempfile.TemporaryDirectory(prefix="console-") as tmp:
            verdicts = mutants.grade_many(assignment, [corpus[assignment, n] for n in names], Path(tmp), (seed,))
        return [(assignment, name, [t for t in v.views[seed].values() if t["score"] < t["max_score"]])
                for name, v in zip(names, verdicts)]

    with ThreadPoolExecutor(parallel) as pool:
        for rows in pool.map(one, batches):
            yield from rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="assignments to measure (default: all)")
    parser.add_argument("--heldout", nargs="?", const=mutants.HELD_OUT[-1], choices=mutants.HELD_OUT,
                        help="a round of held-out mistakes instead of the tuned corpus (default: the newest, "
                             f"{mutants.HELD_OUT[-1]}; the older ones have been seen)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=2, help="batches graded at once")
    args = parser.parse_args(argv)
    corpus = mutants.chosen(args.only, args.heldout)
    totals: dict[str, list[int]] = {}
    for assignment, name, lost in graded(corpus, args.seed, args.parallel):
        said = [line for t in lost for line in console.messages(t, "en") if line.startswith(LIKELY_EN)]
        t = totals.setdefault(assignment, [0, 0, 0])
        t[0] += 1
        t[1] += bool(lost)
        t[2] += bool(said)
        verdict = "diagnosed" if said else ("no diagnosis" if lost else "FULL MARKS")
        shown = said[0][len(LIKELY_EN):][:90] if said else ""
        print(f"{assignment:15} {name[:55]:55} {verdict:12} {shown}", flush=True)
    print(f"\n{'assignment':15} {'mistakes':>8} {'lose points':>11} {'diagnosed':>10}")
    for assignment, (n, lost, said) in totals.items():
        print(f"{assignment:15} {n:>8} {lost:>11} {said:>5} ({100 * said / n:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
