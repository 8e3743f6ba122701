"""How well do the graders catch and name the classic mistakes?

    python tests/mutants/report.py [--only a3_blocks ...] [--seeds 1,2,3,4,5] [--parallel 2]

Grades every mutant of the corpus at each seed and prints, per mutant, at how many seeds it
lost points, whether its score was the same at every seed, and how many of its failed tests
name the mistake; then the totals, among them the share of failed tests (all mutants, all
seeds) whose feedback names the mistake class.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for mutants and helpers

import mutants  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="assignments to measure (default: all)")
    parser.add_argument("--seeds", default=",".join(map(str, mutants.SEEDS)))
    parser.add_argument("--parallel", type=int, default=2, help="mutants graded at once")
    args = parser.parse_args(argv)
    seeds = tuple(int(s) for s in args.seeds.split(","))
    corpus = {k: m for k, m in mutants.load().items() if not args.only or k[0] in args.only}
    started = time.monotonic()

    def one(key):
        with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
            return key, mutants.grade(key[0], corpus[key], Path(tmp), seeds)

    failed_tests = named_tests = always_caught = steady = 0
    with ThreadPoolExecutor(args.parallel) as pool:
        for (assignment, name), v in pool.map(one, sorted(corpus)):
            mutant = corpus[(assignment, name)]
            lost = sum(all(v.caught(p, s) for p in mutant.must_fail) and v.score(s) < max_score(v, s) for s in seeds)
            same = len({v.score(s) for s in seeds}) == 1
            fails = sum(len(v.failed(s)) for s in seeds)
            named = sum(len(v.named(mutant.names, s)) for s in seeds)
            failed_tests, named_tests = failed_tests + fails, named_tests + named
            always_caught += lost == len(seeds)
            steady += same
            print(f"{assignment:15} {name[:58]:58} lost {lost}/{len(seeds)}  {'same' if same else 'VARIES':6} "
                  f"named {named}/{fails}", flush=True)
    share = named_tests / failed_tests if failed_tests else 0.0
    print(f"\n{len(corpus)} mutants; {always_caught} lose points at all {len(seeds)} seeds; "
          f"{steady} score the same at every seed")
    print(f"failed tests whose feedback names the mistake: {named_tests}/{failed_tests} = {share:.0%}")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0 if always_caught == steady == len(corpus) else 1


def max_score(v: mutants.Verdict, seed: int) -> float:
    return sum(t["max_score"] for t in v.views[seed].values())


if __name__ == "__main__":
    sys.exit(main())
