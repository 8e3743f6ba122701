"""Which classic mistakes do the public tests catch, before a student submits?

    python tests/mutants/public.py [--only a4_transformer ...] [--heldout [ROUND]] [--parallel 2]

For every mutant of the corpus: the reference solutions with that one mistake, and the
public tests of its assignment (what `pytest assignments/<assignment>` runs for a student)
run on them. Prints, per mutant, whether a public test failed and which; then the share
caught per assignment. The solutions folder itself is run first: it must pass.
``--heldout`` measures the newest round of held-out mistakes (``tests/mutants/heldout3.py``,
written without looking at the public tests) instead of the tuned corpus: that figure is the
real one. ``--heldout heldout2`` (or ``heldout``) measures an earlier round, since looked at.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for mutants and helpers

import mutants  # noqa: E402
from helpers import ROOT, make_submission  # noqa: E402


def copy_with(folder: Path, edits: dict | None = None) -> Path:
    """The reference solutions with ``edits``, in ``folder/solutions``, beside the course's
    source_data/ (where the public tests' course_data fixture looks)."""
    folder.mkdir(parents=True)
    (folder / "source_data").symlink_to(ROOT / "source_data")
    return make_submission(folder / "solutions", edits)


def failing_public_tests(folder: Path, assignment: str) -> list[str]:
    """Names of the public tests of ``assignment`` that fail on the modules in ``folder``."""
    xml = folder / "public.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
                    f"--junitxml={xml}", str(folder / assignment)], cwd=folder, capture_output=True, text=True,
                   timeout=900)
    cases = ET.parse(xml).getroot().iter("testcase")
    return [c.get("name") for c in cases if c.find("failure") is not None or c.find("error") is not None]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="assignments to measure (default: all)")
    parser.add_argument("--heldout", nargs="?", const=mutants.HELD_OUT[-1], choices=mutants.HELD_OUT,
                        help="a round of held-out mistakes instead of the tuned corpus (default: the newest, "
                             f"{mutants.HELD_OUT[-1]}; the older ones have been seen)")
    parser.add_argument("--parallel", type=int, default=2, help="mutants run at once")
    args = parser.parse_args(argv)
    corpus = mutants.chosen(args.only, args.heldout)

    with tempfile.TemporaryDirectory(prefix="public-") as tmp:
        for assignment in sorted({a for a, _ in corpus}):
            clean = copy_with(Path(tmp) / f"clean-{assignment}")
            failed = failing_public_tests(clean, assignment)
            if failed:
                print(f"the reference solutions fail public tests of {assignment}: {failed}")
                return 1

        def one(item):
            n, key = item
            folder = copy_with(Path(tmp) / f"m{n}", {f"{key[0]}/{corpus[key].module}": corpus[key].edits})
            return key, failing_public_tests(folder, key[0])

        caught: dict[str, list[bool]] = {}
        with ThreadPoolExecutor(args.parallel) as pool:
            for (assignment, name), failed in pool.map(one, enumerate(sorted(corpus))):
                caught.setdefault(assignment, []).append(bool(failed))
                shown = ", ".join(failed[:2]) + (f" (+{len(failed) - 2})" if len(failed) > 2 else "")
                print(f"{assignment:15} {name[:58]:58} {'caught' if failed else 'PASSES':7} {shown}", flush=True)
    print()
    for assignment, flags in caught.items():
        print(f"{assignment:15} public tests fail for {sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f} %)")
    total = [f for flags in caught.values() for f in flags]
    print(f"{'all':15} public tests fail for {sum(total)}/{len(total)} ({100 * sum(total) / len(total):.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
