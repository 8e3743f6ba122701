"""Start-up time of the student's worker: ``python -m autograder.bench.sandbox``.

Starts the worker over a scratch copy of one assignment of ``solutions/`` (with its
prerequisites, as grading does) a number of times and prints the median, fastest and
slowest time from ``Popen`` to its first frame, per isolation mode available here.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time

from .. import course
from ..sandbox.isolation import hidden_paths, namespaces_available
from ..sandbox.process import StudentProcess
from ..sandbox.scratch import make_scratch, read_modules


def startup_times(assignment: course.Assignment, isolation: str, repeats: int) -> list[float]:
    names = [assignment.name, *assignment.requires]
    folders = {name: read_modules(course.solutions_dir() / name) for name in names}
    forbidden = tuple(sorted({n for ns in assignment.forbidden.values() for n in ns}))
    times = []
    for _ in range(repeats):
        scratch = make_scratch(folders)
        proc = StudentProcess(scratch, names, hidden_paths(), isolation, forbidden=forbidden)
        try:
            start = time.perf_counter()
            proc.start()
            times.append(time.perf_counter() - start)
        finally:
            proc.stop()
            shutil.rmtree(scratch, ignore_errors=True)
    return times


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="a1_attention", choices=[a.name for a in course.ASSIGNMENTS])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(argv)
    modes = ["none"] + (["namespace"] if namespaces_available() else [])
    for isolation in modes:
        times = startup_times(course.get(args.assignment), isolation, args.repeats)
        print(f"{args.assignment} isolation={isolation}: worker start-up median {statistics.median(times):.3f} s, "
              f"fastest {min(times):.3f} s, slowest {max(times):.3f} s ({len(times)} starts)")


if __name__ == "__main__":
    main()
