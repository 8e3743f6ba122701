"""The class report: what the class got wrong, at a glance.

:func:`write` puts ``class-report.html`` (one self-contained page: inline CSS and SVG, no
network) and ``class-report.json`` (the same figures) in a folder. ``grade-class`` and
``nbgrader autograde`` call it once they have graded; it reads the results they wrote and
never grades again. See docs/class-report.md.
"""

from __future__ import annotations

import time
from importlib import metadata
from pathlib import Path

from ..grading import reports
from . import figures, page, similarity
from .figures import Student, from_results

HTML = "class-report.html"
JSON = "class-report.json"

__all__ = ["HTML", "JSON", "Student", "from_results", "write"]


def version() -> str:
    try:
        return metadata.version("transformer-course")
    except metadata.PackageNotFoundError:
        return "unknown"


def write(out: Path, students: list[Student], assignments: list[str], *, run: dict | None = None,
          sources: dict | None = None, lang: str = "both",
          threshold: float = similarity.THRESHOLD) -> list[Path]:
    """Write the report of ``students`` (their results as graded) into ``out``; ``sources``
    (student -> assignment -> module -> code) turns on the similarity check; ``run``: how
    the grading was made (seed, limits...), shown as given. Returns the paths written."""
    if lang not in reports.LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(reports.LANGS)}")
    data = figures.compute(students, assignments)
    seeds = sorted({s.data.get("extra_data", {}).get("seed") for s in students} - {None})
    data["run"] = {"seed": seeds[0] if len(seeds) == 1 else seeds, "version": version(),
                   "written": time.strftime("%Y-%m-%d %H:%M:%S %z"), "students": len(students),
                   "assignments": assignments, "lang": lang, **(run or {})}
    pairs = similarity.compare_class(sources, assignments, threshold) if sources is not None else None
    data["similarity"] = {"checked": sources is not None, "threshold": threshold,
                          "pairs": [p.as_dict() for p in pairs or []]}
    out.mkdir(parents=True, exist_ok=True)
    reports.write_json(out / JSON, data)
    reports.write_text(out / HTML, page.render(data, pairs or [], lang))
    return [out / HTML, out / JSON]
