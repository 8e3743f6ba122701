"""What ``python -m autograder grade`` prints for one submission: the score table, memory
and time figures, and the lost points with what to fix, in the languages of ``--lang``.

The lost points are written for a student at a console: each lost test shows the first
line of its feedback and, when a grader named one, its diagnosis (the ``Likely mistake:``
/ ``Error probable:`` lines); tests that lost their points with the very same message, or
with diagnoses that differ only in their numbers, are one entry with their count (a syntax
error fails every test of its assignment alike); an assignment missing from the submission
is one line. The last line names the file with
every test's full feedback.
"""

from __future__ import annotations

from pathlib import Path

from . import reports
from .reports import LIKELY_EN, LIKELY_ES


def _fmt(x: float) -> str:
    return f"{x:g}"


def _say(en: str, es: str, lang: str) -> str:
    """``en`` / ``es`` in the languages of ``lang``; Spanish alone starts with a capital."""
    return {"en": en, "es": es[:1].upper() + es[1:]}.get(lang, f"{en} / {es}")


def table(results) -> str:
    """One row per assignment: tests passed, points, and its note."""
    width = max(len(r.assignment.name) for r in results)
    lines = [f"  {'assignment':<{width}}  {'tests':>7}  {'points':>9}"]
    for r in results:
        passed = sum(t["score"] == t["max_score"] for t in r.tests)
        note = f"  {r.note}" if r.note else ""
        lines.append(f"  {r.assignment.name:<{width}}  {passed:>3}/{len(r.tests):<3}  "
                     f"{_fmt(r.score):>4}/{_fmt(r.max_score):<4}{note}")
    total, best = sum(r.score for r in results), sum(r.max_score for r in results)
    lines.append(f"  {'total':<{width}}  {'':>7}  {_fmt(total):>4}/{_fmt(best):<4}")
    return "\n".join(lines)


def messages(test: dict, lang: str) -> tuple[str, ...]:
    """A lost test's first feedback line and its diagnosis lines, in each language shown."""
    parts = [test.get("output_en"), test.get("output_es")] if lang == "both" else [
        reports.in_language(test["output"], test.get("output_en"), test.get("output_es"), lang)]
    if not all(parts):  # a record without language parts (a crash): its own lines
        parts = [test["output"]]
    lines = []
    for part in parts:
        part_lines = [line.strip() for line in (part or "").strip().splitlines() if line.strip()]
        lines += part_lines[:1] + [line for line in part_lines[1:] if line.startswith((LIKELY_EN, LIKELY_ES))]
    return tuple(lines)


def lost_points(results, lang: str) -> list[str]:
    """The console's list of lost points (empty when none was lost). Tests with the same
    diagnosis, or without one but with the same message, are one entry with their count."""
    lines = []
    for r in results:
        lost = [t for t in r.tests if t["score"] < t["max_score"]]
        if not lost:
            continue
        name = r.assignment.name
        if r.missing:
            lines.append(f"  {name}: " + _say(f"missing from the submission, 0/{_fmt(r.max_score)} "
                                               f"({len(r.tests)} tests)", "no está en la entrega", lang))
            continue
        # Tests with the same diagnosis are grouped by its cause (its text less the numbers: the
        # same mistake counts other values on inputs of other sizes); without one, by message.
        groups: dict[tuple, list[tuple[dict, tuple[str, ...]]]] = {}
        for t in lost:
            said = messages(t, lang)
            diagnosis = tuple(line for line in said if line.startswith((LIKELY_EN, LIKELY_ES)))
            key = ("cause", *map(reports.cause, diagnosis)) if diagnosis else ("message", *said)
            groups.setdefault(key, []).append((t, said))
        for group, members in groups.items():
            first, said = members[0]
            key = tuple(line for line in said if line.startswith((LIKELY_EN, LIKELY_ES))) or said
            if len(members) == 1:
                lines.append(f"  {name} · {reports.title(first['name'], lang)}")
                lines += [f"      {text}" for text in said]
                continue
            count, points = len(members), _fmt(sum(t["max_score"] - t["score"] for t, _ in members))
            if group[0] == "message":
                lines.append(f"  {name} · " + _say(f"{count} tests ({points} points), the same message",
                                                    f"{count} tests ({points} puntos), el mismo mensaje", lang))
                lines += [f"      {text}" for text in said]
                continue
            lines.append(f"  {name} · " + _say(f"{count} tests ({points} points), the same likely mistake",
                                                f"{count} tests ({points} puntos), el mismo error probable", lang))
            lines += [f"      {text}" for text in key]
            example = reports.title(first["name"], lang)
            lines.append("      " + _say("for example", "por ejemplo", lang) + f": {example}")
            lines += [f"        {text}" for text in said if text not in key]
    return lines


def report(results, out: Path, data: dict, memory_gib: float, lang: str, echo) -> None:
    """The console summary of one submission: scores, memory, slowest call, lost points."""
    echo("")
    echo(table(results))
    peaks = [f"{r.assignment.name.split('_')[0]} {r.peak_kib['address_space'] / 2**20:.2f}/"
             f"{r.peak_kib['resident'] / 2**20:.2f}" for r in results if r.peak_kib.get("address_space")]
    if peaks:
        echo(f"  peak memory of the student's process, GiB (address space / resident; --memory limits the "
             f"first, {memory_gib:g} GiB): " + ", ".join(peaks))
    slowest = [f"{r.assignment.name.split('_')[0]} {r.slowest_call['seconds']:.2f}/{r.slowest_call['limit']:g}"
               for r in results if r.slowest_call]
    if slowest:
        echo("  slowest call of the student's code that finished, s (of its limit, --timeout): " + ", ".join(slowest))
    lost = lost_points(results, lang)
    if lost:
        echo("\n" + _say("Lost points", "puntos perdidos", lang) + ":")
        for line in lost:
            echo(line)
        echo("\n" + _say("Every test's full feedback", "la explicación completa de cada test", lang)
             + f": {out / 'summary.md'}")
    echo("\n" + _say("Results", "resultados", lang) + f": {out / 'results.json'} ({data['execution_time']:.1f} s)")
