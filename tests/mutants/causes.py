"""Do the console's diagnoses name a cause only when it is the right one?

    python tests/mutants/causes.py [--heldout [ROUND]] [--only a5_decoding ...] [--mistakes NAME ...]
                                   [--seed 1] [--parallel 1]

Grades every mutant (``--heldout``: a round of held-out mistakes, as in console.py) at one
seed, as `python -m autograder grade` does, and reads each lost test's ``Likely mistake:``
line as the student's console shows it (``console.messages``). Each line is a CAUSE or a
WHERE, as the grading process recorded it (the test's ``extra_data["diagnosis"]``, chosen
by the mechanism that wrote the line, never read back out of its text): a CAUSE names what
the code does wrong or what to change; a WHERE says only where the output first differs or
what kind of difference it is.

Each CAUSE line is judged against the mutant's description by the table in ``judged.py``
(key: round, assignment, mistake, ``reports.cause(line)``). A mistake is

- ``wrong`` when any of its lost tests names a cause judged wrong,
- ``UNJUDGED`` when a cause line is not in the table yet (printed, ready to paste there),
- ``right`` when it names causes and all are judged right,
- ``only where`` when its diagnoses are all WHEREs, ``no diagnosis`` when it has none,
- ``FULL MARKS`` when it loses no points.

The last table counts them per assignment; the share of wrong causes is taken over the
mistakes that lose points.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for mutants and helpers

import mutants  # noqa: E402
from autograder.grading import console  # noqa: E402
from autograder.grading.reports import CAUSE, LIKELY_EN, WHERE, cause  # noqa: E402
from mutants import console as graded_console  # noqa: E402
from mutants.judged import JUDGED  # noqa: E402

VERDICTS = ("right", "only where", "wrong", "no diagnosis", "UNJUDGED", "FULL MARKS")


def lines_of(lost: list[dict]) -> list[tuple[str, str]]:
    """(kind, text after "Likely mistake: ") of every diagnosis the lost tests show; a line
    whose test recorded no kind (an older grading process) counts as a CAUSE."""
    found = []
    for test in lost:
        kind = (test.get("extra_data") or {}).get("diagnosis") or CAUSE
        for line in console.messages(test, "en"):
            if line.startswith(LIKELY_EN):
                found.append((kind if kind in (CAUSE, WHERE) else CAUSE, line[len(LIKELY_EN):]))
    return found


def verdict(round_: str, assignment: str, name: str, lost: list[dict]) -> tuple[str, list[str]]:
    """The mistake's verdict (one of VERDICTS), and its unjudged cause keys."""
    if not lost:
        return "FULL MARKS", []
    said = lines_of(lost)
    keys = list(dict.fromkeys(cause(text) for kind, text in said if kind == CAUSE))
    judged = [JUDGED.get((round_, assignment, name, key)) for key in keys]
    unjudged = [key for key, j in zip(keys, judged) if j is None]
    if "wrong" in judged:
        return "wrong", unjudged
    if unjudged:
        return "UNJUDGED", unjudged
    if keys:
        return "right", []
    return ("only where" if said else "no diagnosis"), []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="assignments to measure (default: all)")
    parser.add_argument("--heldout", nargs="?", const=mutants.HELD_OUT[-1], choices=mutants.HELD_OUT,
                        help="a round of held-out mistakes instead of the tuned corpus (default: the newest, "
                             f"{mutants.HELD_OUT[-1]})")
    parser.add_argument("--mistakes", nargs="*", default=None, help="only these mistakes (their names)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1, help="batches graded at once")
    parser.add_argument("--show", action="store_true", help="print every diagnosis line, judged or not")
    args = parser.parse_args(argv)
    round_ = args.heldout or "tuned"
    corpus = {k: m for k, m in mutants.chosen(args.only, args.heldout).items()
              if args.mistakes is None or k[1] in args.mistakes}
    totals: dict[str, dict[str, int]] = {}
    for assignment, name, lost in graded_console.graded(corpus, args.seed, args.parallel):
        found, unjudged = verdict(round_, assignment, name, lost)
        counts = totals.setdefault(assignment, dict.fromkeys(VERDICTS, 0))
        counts[found] += 1
        print(f"{assignment:15} {name[:70]:70} {found}", flush=True)
        for kind, text in dict.fromkeys(lines_of(lost)) if args.show or found == "wrong" else ():
            mark = JUDGED.get((round_, assignment, name, cause(text)), "-") if kind == CAUSE else "where"
            print(f"    [{kind} {mark}] {text}")
        for key in unjudged:
            print(f"    ({round_!r}, {assignment!r}, {name!r},\n     {key!r}): \"?\",")
    print(f"\n{'assignment':15} {'mistakes':>8} {'lose points':>11} {'right':>6} {'only where':>10} "
          f"{'wrong':>10} {'no diagnosis':>12} {'unjudged':>8}")
    for assignment, c in totals.items():
        lose = sum(c.values()) - c["FULL MARKS"]
        share = f"({100 * c['wrong'] / lose:.0f} %)" if lose else ""
        print(f"{assignment:15} {sum(c.values()):>8} {lose:>11} {c['right']:>6} {c['only where']:>10} "
              f"{c['wrong']:>3} {share:>6} {c['no diagnosis']:>12} {c['UNJUDGED']:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
