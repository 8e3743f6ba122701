"""The class's figures, computed from the results the grading wrote (never by grading
again): per assignment the score distribution, mean, median and per test the share of
students who lost points on it; the most common diagnoses (the ``Likely mistake`` lines
of the feedback) with the students who got them; per student their scores, a link to
their feedback and grading notes (refused, timed out, memory)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from ..grading import reports

BINS = 10

# Grading notes recognised in a test's feedback, in both languages, whatever --lang wrote.
NOTES = {
    "timed out / tiempo agotado": ("did not finish within", "no terminó en", "time budget of",
                                   "se agotó el tiempo total"),
    "memory / memoria": ("exceeded the memory limit", "superó el límite de memoria"),
    "refused / rechazado": ("no credit for", "sin puntos para", "was refused", "se rechazó"),
}


@dataclass
class Student:
    name: str
    data: dict  # results.json: its tests carry extra_data.assignment
    feedback: str = ""  # link to the student's feedback, relative to the report
    notes: list[str] = field(default_factory=list)  # what the grading said about the submission


def from_results(out: Path) -> list[Student]:
    """A Student per ``out/<student>/results.json`` (as grade-class writes them), sorted."""
    found = []
    for path in sorted(out.glob("*/results.json")):
        try:
            data = reports.read_json(path)
            problem = data.get("extra_data", {}).get("problem", "")
        except (OSError, ValueError, AttributeError) as exc:
            data, problem = {"score": 0, "tests": []}, f"unreadable results ({exc})"
        notes = [f"not graded / no calificado: {problem}"] if problem else []
        found.append(Student(path.parent.name, data, f"{path.parent.name}/summary.md", notes))
    return found


def _assignment(test: dict) -> str:
    return test.get("extra_data", {}).get("assignment", "")


def _short(test: dict) -> str:
    return test["name"].split(" · ", 1)[-1]


def diagnoses_of(test: dict) -> list[tuple[str, str]]:
    """(English, Spanish) of each mistake a lost test's feedback names; a side the feedback
    was not written in (--lang en or es) is empty."""
    en, es = [], []
    for line in test.get("output", "").splitlines():
        line = line.strip()
        if line.startswith(reports.LIKELY_EN):
            en.append(line[len(reports.LIKELY_EN):])
        elif line.startswith(reports.LIKELY_ES):
            es.append(line[len(reports.LIKELY_ES):])
    return [(en[i] if i < len(en) else "", es[i] if i < len(es) else "") for i in range(max(len(en), len(es)))]


def notes_of(student: Student) -> list[str]:
    found = list(student.notes)
    for test in student.data.get("tests", []):
        if test.get("score", 0) < test.get("max_score", 0):
            text = test.get("output", "")
            found += [note for note, marks in NOTES.items() if any(m in text for m in marks) and note not in found]
    return found


def histogram(scores: list[float], top: float, bins: int = BINS) -> list[dict]:
    """``bins`` equal bins over [0, top], the last one closed (a full score counts in it)."""
    width = (top or 1) / bins
    counts = [0] * bins
    for s in scores:
        counts[min(bins - 1, max(0, int(s / width)))] += 1
    return [{"low": round(i * width, 3), "high": round((i + 1) * width, 3), "count": c} for i, c in enumerate(counts)]


def compute(students: list[Student], assignments: list[str]) -> dict:
    """Every figure the report shows, as plain data (also written as the JSON file)."""
    per: dict[str, dict] = {}
    for a in assignments:
        tests: dict[str, dict] = {}
        scores = []
        for s in students:
            mine = [t for t in s.data.get("tests", []) if _assignment(t) == a]
            if not mine:
                continue
            scores.append(sum(t["score"] for t in mine))
            for t in mine:
                row = tests.setdefault(_short(t), {"name": _short(t), "max_score": t["max_score"], "lost": 0})
                row["lost"] += t["score"] < t["max_score"]
        top = sum(r["max_score"] for r in tests.values())
        for row in tests.values():
            row["share_lost"] = round(row["lost"] / len(scores), 4) if scores else 0
        per[a] = {"name": a, "max_score": top, "graded": len(scores),
                  "mean": round(statistics.fmean(scores), 3) if scores else None,
                  "median": statistics.median(scores) if scores else None,
                  "histogram": histogram(scores, top), "tests": list(tests.values())}

    found: dict[tuple[str, str], dict] = {}
    for s in students:
        for t in s.data.get("tests", []):
            if t.get("score", 0) >= t.get("max_score", 0):
                continue
            for en, es in diagnoses_of(t):
                # grouped by cause: the same mistake on inputs of other sizes counts other values
                entry = found.setdefault((_assignment(t), reports.cause(en or es)), {
                    "assignment": _assignment(t), "en": en, "es": es, "tests": [], "students": []})
                if _short(t) not in entry["tests"]:
                    entry["tests"].append(_short(t))
                if s.name not in entry["students"]:
                    entry["students"].append(s.name)
    diagnoses = sorted(found.values(), key=lambda d: (-len(d["students"]), d["assignment"], d["en"] or d["es"]))
    for d in diagnoses:
        d["count"] = len(d["students"])

    rows = []
    for s in students:
        tests = s.data.get("tests", [])
        scores = {a: sum(t["score"] for t in tests if _assignment(t) == a) if any(
            _assignment(t) == a for t in tests) else None for a in assignments}
        rows.append({"name": s.name, "scores": scores, "total": s.data.get("score", 0), "feedback": s.feedback,
                     "notes": notes_of(s)})
    return {"assignments": [per[a] for a in assignments], "diagnoses": diagnoses, "students": rows}
