"""Grading throughput: ``python -m autograder.bench.grading [--copies 4] [--jobs 1 2] [--group N] [--workers ...]``.

Grades a class made of ``--copies`` copies of a mixed set (the solutions, the untouched
stubs, one wrong and one crashing attention) with ``grade-class`` at each ``--jobs``, in
groups of ``--group`` students per grading process (default: grade-class's; ``--group 1``
grades each student alone, as grade-class did before groups), with student processes
forked by the zygote (the default) or each started alone (``--workers alone``, what
``COURSE_ZYGOTE=0`` asks for, as before the zygote; ``--only`` some assignments), and
prints submissions per hour, plus the peak memory of the student's process per assignment (address space, what
``--memory`` limits; resident, what a container's memory limit counts) for the correct
submissions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from .. import course
from ..grading import reports
from ..intake import batch

BROKEN = {
    "wrong": ("return output, weights", "return output * 0, weights"),
    "crashes": ("    d_k = q.size(-1)\n", "    d_k = q.size(-1)\n    import os\n    os._exit(0)\n"),
}


def make_class(folder: Path, copies: int) -> None:
    solutions, stubs = course.solutions_dir(), course.assignments_dir()
    ignore = shutil.ignore_patterns("test_*", "conftest.py", "__pycache__")
    for n in range(copies):
        shutil.copytree(solutions, folder / f"solved{n}", ignore=ignore)
        shutil.copytree(stubs, folder / f"stub{n}", ignore=ignore)
        for kind, (old, new) in BROKEN.items():
            target = folder / f"{kind}{n}"
            shutil.copytree(solutions, target, ignore=ignore)
            path = target / "a1_attention" / "attention.py"
            path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def _verdicts(out: Path) -> dict[str, list[tuple[str, float]]]:
    return {student.name: [(t["name"], t["score"]) for t in reports.read_json(student / "results.json")["tests"]]
            for student in sorted(out.iterdir()) if (student / "results.json").is_file()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=1, help="copies of the 4-submission mix (default 1)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="students at once to try (default 1 2)")
    parser.add_argument("--only", action="append", help="assignments to grade (default: all)")
    parser.add_argument("--group", type=int, default=None,
                        help="students per grading process (default: grade-class's, batch.group_size)")
    parser.add_argument("--workers", nargs="+", choices=("zygote", "alone"), default=["zygote"],
                        help="how student processes start: forked by the zygote (default), or each alone")
    args = parser.parse_args(argv)
    only = args.only or [a.name for a in course.ASSIGNMENTS]
    with tempfile.TemporaryDirectory(prefix="course-bench-") as tmp:
        folder = Path(tmp) / "class"
        make_class(folder, args.copies)
        count = len(list(folder.iterdir()))
        print(f"class: {count} submissions ({args.copies} x solved, stub, wrong, crashes); "
              f"assignments: {', '.join(only)}")
        for workers in args.workers:
            os.environ["COURSE_ZYGOTE"] = "1" if workers == "zygote" else "0"
            for jobs in args.jobs:
                out = Path(tmp) / f"out-{workers}-{jobs}"
                started = time.monotonic()
                batch.grade_class(folder, out, jobs=jobs, only=only, seed=1, group=args.group,
                                  echo=lambda *a, **k: None)
                seconds = time.monotonic() - started
                size = batch.group_size(count, jobs, args.group)
                print(f"--jobs {jobs} (groups of {size}), workers {workers}: {count} submissions in {seconds:.0f} s = "
                      f"{count * 3600 / seconds:,.0f} submissions/hour ({seconds / count:.1f} s each)", flush=True)
        runs = sorted(Path(tmp).glob("out-*"))
        verdicts = {run.name: _verdicts(run) for run in runs}
        same = all(v == verdicts[runs[0].name] for v in verdicts.values())
        print(f"verdicts (every student's score on every test) across the {len(runs)} runs: "
              + ("identical" if same else "DIFFERENT: " + ", ".join(
                  f"{name}" for name, v in verdicts.items() if v != verdicts[runs[0].name])))
        last = Path(tmp) / f"out-{args.workers[-1]}-{args.jobs[-1]}"
        peaks = reports.read_json(last / "solved0" / "results.json")["extra_data"]
        print("peak memory of the student's process, correct submission (MiB): address space / resident")
        for name, peak in peaks.get("worker_peak_mib", {}).items():
            print(f"  {name:<16} {peak['address_space']:>6,} / {peak['resident']:>5,}")


if __name__ == "__main__":
    main()
