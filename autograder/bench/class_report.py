"""The class report at scale: ``python -m autograder.bench.class_report --from OUT --class SUBMISSIONS``.

Fabricates a class of ``--students`` (default 500) from results already graded (OUT, a
``grade-class`` output folder; nothing is graded again): each fabricated student starts
from a real student's results.json, and each of its tests is, with some chance, swapped
for the same test of another real student (so scores and diagnoses vary, each feedback
text being one a grader wrote). With ``--class`` (the submissions OUT was graded from),
each fabricated student hands in their real student's code, so the similarity check runs
on its worst case: every student's code is one of a few, thousands of pairs flagged.

Prints the time to write the report, the page's and the JSON's size, and the time
headless Chromium takes to load the page and dump its DOM (and, for comparison, an empty
page), all from this machine.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .. import classreport
from ..classreport import figures
from ..grading import reports
from ..intake import batch, sources


def build(real_out: Path, out: Path, n: int, seed: int, swap: float = 0.3) -> dict[str, str]:
    """Write ``out/<student>/results.json`` for ``n`` fabricated students; returns
    fabricated -> real student."""
    rng = random.Random(seed)
    real = [s for s in figures.from_results(real_out) if s.data.get("tests")]
    if not real:
        raise SystemExit(f"error: no graded <student>/results.json in {real_out}")
    by_test: dict[str, list[dict]] = {}
    for s in real:
        for t in s.data["tests"]:
            by_test.setdefault(t["name"], []).append(t)
    origin = {}
    for i in range(n):
        name, start = f"student{i:04d}", rng.choice(real)
        base = start.name
        data = json.loads(json.dumps(start.data))
        data["tests"] = [rng.choice(by_test[t["name"]]) if rng.random() < swap else t for t in data["tests"]]
        data["score"] = sum(t["score"] for t in data["tests"])
        (out / name).mkdir(parents=True)
        reports.write_json(out / name / "results.json", data)
        origin[name] = base
    return origin


def chromium_seconds(page: Path, browser: str) -> float:
    with tempfile.TemporaryDirectory(prefix="course-chromium-") as profile:
        start = time.perf_counter()
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", "--window-size=1280,3000", "--dump-dom", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=300)
        return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="real", required=True, help="a grade-class output folder (graded results)")
    parser.add_argument("--class", dest="submissions", help="the submissions it was graded from (turns on similarity)")
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", action="append", help="assignments of the report (default: those graded)")
    parser.add_argument("--keep", help="write the fabricated class here (default: a temporary folder)")
    args = parser.parse_args(argv)
    real_out = Path(args.real)
    work = Path(args.keep or tempfile.mkdtemp(prefix="course-class-report-"))
    out = work / "out"
    shutil.rmtree(out, ignore_errors=True)
    origin = build(real_out, out, args.students, args.seed)
    graded = json.loads((real_out / classreport.JSON).read_text())["run"]["assignments"] if (
        real_out / classreport.JSON).is_file() else None
    only = args.only or graded or ["a1_attention"]

    start = time.perf_counter()
    students = figures.from_results(out)
    code = None
    if args.submissions:
        real_code = sources.from_uploads(batch.students(Path(args.submissions)), only)
        code = {name: real_code[base] for name, base in origin.items() if base in real_code}
    written = classreport.write(out, students, only, run={"fabricated_from": str(real_out)}, sources=code)
    seconds = time.perf_counter() - start
    data = json.loads(written[1].read_text())
    print(f"{len(students)} students, {', '.join(only)}: report written in {seconds:.1f} s "
          f"({len(data['diagnoses'])} diagnoses, {len(data['similarity']['pairs'])} similar pairs flagged)")
    print(f"  {written[0]}: {written[0].stat().st_size / 1e6:.2f} MB; {written[1].name}: "
          f"{written[1].stat().st_size / 1e6:.2f} MB")
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("  no Chromium found (apt-get install chromium): render time not measured")
        return 0
    empty = work / "empty.html"
    empty.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    print(f"  Chromium --dump-dom: {chromium_seconds(written[0], browser):.1f} s "
          f"(an empty page: {chromium_seconds(empty, browser):.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
