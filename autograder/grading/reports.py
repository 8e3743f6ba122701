"""What a grading run writes, all from one results dict: ``results.json`` in Gradescope's
format, JUnit XML (CI systems' test reports) and a Markdown summary (the one GitHub shows
as a job summary).

Gradescope's format (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
top-level ``score``, ``max_score``, ``execution_time`` (seconds), ``output``,
``output_format``, ``visibility``, ``stdout_visibility``, ``extra_data``, ``tests``; each
test ``name``, ``number``, ``score``, ``max_score``, ``status`` ("passed"/"failed"),
``output``, ``output_format``, ``visibility``, ``extra_data``. Numbers are finite: the
file is written with ``allow_nan=False``, so a NaN can never reach Gradescope as a token
its JSON parser refuses.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
# What precedes the name of a recognised mistake in feedback (checks.CheckFailure.naming
# writes it; the console and the measurements of feedback quality look for it).
LIKELY_EN = "Likely mistake: "
LIKELY_ES = "Error probable: "

# The two kinds of diagnosis, kept as data beside the text (a test's ``extra_data``), so that
# measurements of feedback quality never read them back out of it: a CAUSE names what the
# code most likely does wrong or what to change; a WHERE only says where the output first
# differs or what kind of difference it is, and names no fix.
CAUSE, WHERE = "cause", "where"


class Where(tuple):
    """An (English, Spanish) diagnosis that is a WHERE: where the output first differs, or
    the kind of difference, without naming a cause. A plain tuple is read as a CAUSE, so a
    text that loses this mark on its way to the student is judged, never waved through."""

    def __new__(cls, en: str, es: str):
        return super().__new__(cls, (en, es))


def kind_of(found) -> str:
    """CAUSE or WHERE, for a diagnosis (English, Spanish) handed to ``CheckFailure.shaped``."""
    return WHERE if isinstance(found, Where) else CAUSE


LANGS = ("both", "en", "es")


_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?(?![\w])")


def cause(diagnosis: str) -> str:
    """A diagnosis's cause, for grouping: its text with every standalone number replaced,
    so that "114 values ... must be exactly 0" and "126 values ... must be exactly 0" (one
    mistake, counted on inputs of other sizes) are one cause, while names that carry a
    digit (self.norm2, self.norm3) stay apart."""
    return _NUMBER.sub("#", diagnosis)


def in_language(text: str, en: str | None, es: str | None, lang: str) -> str:
    """``text`` (English then Spanish) in ``lang``: its ``en`` or ``es`` part when known."""
    chosen = {"en": en, "es": es}.get(lang)
    return text if chosen is None else chosen


def title(name: str, lang: str) -> str:
    """A grader's "English? / ¿Spanish?" title in ``lang``."""
    en, _, es = name.partition(" / ")
    return {"en": en, "es": es or en}.get(lang, name)


def test_entry(assignment: str, number: str, record: dict, *, visibility: str, seed: int,
               lang: str = "both") -> dict:
    """One graded test in Gradescope's format, from a grading process's record; ``lang``:
    the feedback's language ("both": English then Spanish)."""
    return {
        "name": f"{assignment} · {title(record['name'], lang)}",
        "number": number,
        "score": record["score"],
        "max_score": record["max_score"],
        "status": "passed" if record["score"] == record["max_score"] else "failed",
        "output": in_language(record["output"], record.get("output_en"), record.get("output_es"), lang),
        "output_format": "text",
        "visibility": visibility,
        "extra_data": {"assignment": assignment, "grader": record.get("id", ""), "seed": record.get("seed", seed),
                       "internal_error": bool(record.get("internal_error")),
                       # CAUSE or WHERE when the feedback carries a diagnosis (a word the grading
                       # process chose, never text of the student's process), else None
                       "diagnosis": record.get("diagnosis")},
    }


def write_text(path: Path, text: str) -> None:
    """Atomically: a reader (or a grader killed half-way) never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically, refusing NaN and infinity."""
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _by_assignment(data: dict) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for test in data["tests"]:
        groups.setdefault(test["extra_data"]["assignment"], []).append(test)
    return groups


def _short_name(test: dict) -> str:
    return test["name"].split(" · ", 1)[-1]


def junit_xml(data: dict) -> str:
    """JUnit XML: one ``testsuite`` per assignment, a ``failure`` per test that lost points
    (its message is the first line of the feedback, its text the whole feedback)."""
    root = ET.Element("testsuites", name="transformer-course", tests=str(len(data["tests"])),
                      failures=str(sum(t["status"] == "failed" for t in data["tests"])),
                      time=f"{data['execution_time']:.2f}")
    for assignment, tests in _by_assignment(data).items():
        suite = ET.SubElement(root, "testsuite", name=assignment, tests=str(len(tests)),
                              failures=str(sum(t["status"] == "failed" for t in tests)))
        for test in tests:
            case = ET.SubElement(suite, "testcase", classname=assignment, name=_short_name(test))
            props = ET.SubElement(case, "properties")
            for key in ("score", "max_score"):
                ET.SubElement(props, "property", name=key, value=f"{test[key]:g}")
            if test["status"] == "failed":
                first = test["output"].splitlines()[0] if test["output"] else "lost points"
                failure = ET.SubElement(case, "failure", message=first)
                failure.text = test["output"]
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_summary(data: dict) -> str:
    """Points per assignment, then the feedback of each test that lost points."""
    max_score = sum(t["max_score"] for t in data["tests"])
    lines = [f"## Grade / Nota: {data['score']:g} / {max_score:g}", "",
             "| assignment / tarea | tests | points / puntos |", "|---|---|---|"]
    groups = _by_assignment(data)
    for assignment, tests in groups.items():
        passed = sum(t["status"] == "passed" for t in tests)
        lines.append(f"| {assignment} | {passed}/{len(tests)} | {sum(t['score'] for t in tests):g}/"
                     f"{sum(t['max_score'] for t in tests):g} |")
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    if failed:
        lines += ["", "### Lost points / Puntos perdidos", ""]
        for test in failed:
            lines.append(f"- **{_cell(test['name'])}** ({test['score']:g}/{test['max_score']:g})")
            lines += [f"  > {line}" for line in test["output"].splitlines()]
    seed = data.get("extra_data", {}).get("seed")
    if seed is not None:
        lines += ["", f"Seed / semilla: `{seed}` (replay / repetir: `python -m autograder grade PATH --seed {seed}`)"]
    return "\n".join(lines) + "\n"


def write_all(out: Path, data: dict) -> list[Path]:
    """``results.json``, ``junit.xml`` and ``summary.md`` in ``out``."""
    write_json(out / "results.json", data)
    write_text(out / "junit.xml", junit_xml(data))
    write_text(out / "summary.md", markdown_summary(data))
    return [out / name for name in ("results.json", "junit.xml", "summary.md")]
