"""The corpus of classic mistakes: one module per assignment, each mistake a text edit of
the reference solution (``Mutant``), graded at several seeds by ``test_mutants.py`` and
measured by ``report.py``.

A mutant names the graders that must take points from it (title prefixes) and, where the
graders recognise the mistake, a phrase of the English message that names it (``names``).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder import course
from helpers import Graded, make_submission, run_grade_many

SEEDS = (1, 2, 3, 4, 5)  # every mutant is graded at each of these seeds, in one run
# a6's mistakes at three: each a6 grade trains two small translators, and its 96 mistakes at
# five seeds took 38 of the full tier's ~120 worker-minutes (a 90-minute CI must hold it all).
SEEDS_OF = {"a6_translator": (1, 2, 3)}
BATCH = 6  # mutants of one assignment graded by one `grade` run (one grading process)
# a5's graders search for telling inputs for a minute per seed set; one grading process
# searches once for all its submissions (checks.searched), so a5 grades more per run. a6 has
# seven modules, and its fast tier's batch one mistake of each.
BATCH_OF = {"a5_decoding": 12, "a6_translator": 7}


@dataclass(frozen=True)
class Mutant:
    module: str  # file of the assignment that the edits change, e.g. "attention.py"
    edits: list[tuple[str, str]]  # (old, new) replacements; each old must occur
    must_fail: list[str]  # title prefixes of graders that must take points, at every seed
    names: str | None = None  # phrase of the feedback (English) that names this mistake


def load() -> dict[tuple[str, str], Mutant]:
    """(assignment, mistake) -> Mutant, for every assignment in course order."""
    found = {}
    for a in course.ASSIGNMENTS:
        try:
            module = importlib.import_module(f"mutants.{a.name}")
        except ModuleNotFoundError:
            continue
        found.update({(a.name, name): m for name, m in module.MUTANTS.items()})
    return found


HELD_OUT = ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8",
            "heldout9", "heldout10", "heldout11", "heldout12", "heldout13", "heldout14",
            "heldout15", "heldout16")  # rounds of held-out mistakes, oldest first; only the newest is unseen


def chosen(only: list[str] | None = None, held_out: str | None = None) -> dict[tuple[str, str], Mutant]:
    """The tuned corpus, or a round of held-out mistakes (``held_out``: a module of
    HELD_OUT, e.g. ``heldout2.py``), restricted to ``only``'s assignments."""
    if held_out:
        if held_out not in HELD_OUT:
            raise ValueError(f"no held-out round {held_out!r}; the rounds are {', '.join(HELD_OUT)}")
        every = importlib.import_module(f"mutants.{held_out}").MUTANTS
    else:
        every = load()
    return {k: m for k, m in every.items() if not only or k[0] in only}


_SEEDED = re.compile(r"^(.*) \[seed (\d+)\]$")


@dataclass
class Verdict:
    """One mutant graded at several seeds, seen seed by seed."""

    graded: Graded
    assignment: str
    seeds: tuple[int, ...]
    views: dict[int, dict[str, dict]] = field(default_factory=dict)  # seed -> title -> test

    def __post_init__(self):
        shared, seeded = {}, {s: {} for s in self.seeds}
        for name, test in self.graded.tests(self.assignment).items():
            m = _SEEDED.match(name)
            if m:
                seeded[int(m.group(2))][m.group(1)] = test
            else:
                shared[name] = test
        self.views = {s: {**shared, **seeded[s]} for s in self.seeds}

    def score(self, seed: int) -> float:
        return sum(t["score"] for t in self.views[seed].values())

    def failed(self, seed: int) -> dict[str, dict]:
        return {name: t for name, t in self.views[seed].items() if t["score"] < t["max_score"]}

    def caught(self, prefix: str, seed: int) -> bool:
        return any(name.startswith(prefix) for name in self.failed(seed))

    def named(self, phrase: str | None, seed: int) -> list[str]:
        """Titles of the failed tests at ``seed`` whose feedback contains ``phrase``."""
        if not phrase:
            return []
        return [name for name, t in self.failed(seed).items() if phrase.lower() in t["output"].lower()]


def fast(corpus: dict[tuple[str, str], Mutant]) -> set[tuple[str, str]]:
    """The fast tier's mutants (docs/testing.md): in every assignment, for each module its
    mutants edit, the first mistake (by name) whose feedback names it, else the first; and
    every forbidden call (``calls ...``). At most one batch (BATCH_OF, BATCH) per assignment."""
    chosen = set()
    for assignment in sorted({a for a, _ in corpus}):
        own = sorted((k for k in corpus if k[0] == assignment), key=lambda k: (corpus[k].names is None, k[1]))
        picked = [k for k in own if k[1].startswith("calls ")]
        for module in sorted({corpus[k].module for k in own}):
            if not any(corpus[k].module == module for k in picked):
                picked.append(next(k for k in own if corpus[k].module == module))
        assert len(picked) <= BATCH_OF.get(assignment, BATCH), (assignment, picked)
        chosen.update(picked)
    return chosen


def batches(keys, first=frozenset()) -> dict[tuple[str, str], str]:
    """(assignment, mistake) -> the name of its batch: up to BATCH (BATCH_OF) mistakes of
    one assignment, graded together; the mistakes in ``first`` (at most one batch per
    assignment) make each assignment's first batch."""
    named, count = {}, {}
    for key in sorted(keys, key=lambda k: (k not in first, k)):
        n = count[key[0]] = count.get(key[0], 0) + 1
        named[key] = f"{key[0]}-{(n - 1) // BATCH_OF.get(key[0], BATCH)}"
    return named


def grade(assignment: str, mutant: Mutant, workdir: Path, seeds=SEEDS) -> Verdict:
    return grade_many(assignment, [mutant], workdir, seeds)[0]


def grade_many(assignment: str, corpus: list[Mutant], workdir: Path, seeds=SEEDS) -> list[Verdict]:
    """Each mutant of ``assignment`` graded at every seed, all in one `grade` run."""
    subs = [make_submission(workdir / f"mutant{i}", {f"{assignment}/{m.module}": m.edits})
            for i, m in enumerate(corpus)]
    seed_list = ",".join(str(s) for s in seeds)
    graded = run_grade_many(subs, workdir / "out", "--only", assignment, "--seeds", seed_list)
    if graded[0].rc != 0:
        raise RuntimeError(f"grading failed ({graded[0].rc}): {graded[0].stderr[-2000:]}")
    return [Verdict(g, assignment, tuple(seeds)) for g in graded]
