"""Do the README and docs/ hold together: every relative link (and #anchor) resolves, the
README stays short, and .ci/run runs the commands the README gives?"""

from __future__ import annotations

import re
from pathlib import Path

from helpers import ROOT

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def documents(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks."""
    lines, inside = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line.strip()):
            inside = not inside
        elif not inside:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, seen = set(), {}
    for _, line in _prose(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(paths: list[Path]) -> list[str]:
    """'file:line: target (why)' for every relative link that does not resolve."""
    broken = []
    for path in paths:
        for number, line in _prose(path.read_text(encoding="utf-8")):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
                    continue
                file, _, anchor = target.partition("#")
                dest = (path.parent / file).resolve() if file else path
                where = f"{path.name}:{number}: {target}"
                if not dest.exists():
                    broken.append(f"{where} (no such file)")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(f"{where} (no heading #{anchor} in {dest.name})")
    return broken


def test_every_relative_link_resolves():
    """Does every relative link of README.md and docs/*.md name a file that exists, and
    every #anchor a heading of that file?"""
    assert (ROOT / "docs").is_dir()
    assert not broken_links(documents())


def test_a_broken_link_is_found(tmp_path):
    """Does the check catch a link to a missing file and to a missing heading (on a copy)?"""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n\n## A section / Una sección\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "See [the page](docs/page.md), [its section](docs/page.md#a-section--una-sección),\n"
        "[a lost one](docs/lost.md), [a lost heading](docs/page.md#nowhere) and [the web](https://example.org).\n"
        "```\n[not a link](docs/in-code.md)\n```\n", encoding="utf-8")
    assert broken_links(documents(tmp_path)) == [
        "README.md:2: docs/lost.md (no such file)",
        "README.md:2: docs/page.md#nowhere (no heading #nowhere in page.md)",
    ]


def test_every_docs_page_starts_with_its_contents():
    """Does each page of docs/ begin with a title, and list its sections in links to them?"""
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        assert text.startswith("# "), page.name
        sections = [line[3:] for _, line in _prose(text) if line.startswith("## ")]
        toc = text.split("\n## ", 1)[0]
        assert sections and all(f"(#{slug(s)})" in toc for s in sections), page.name


def test_readme_is_short_and_ci_runs_its_commands():
    """Is the README at most 150 lines, and does .ci/run run its install command and the
    full tier exactly as the README writes them?"""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    install, fast = blocks[0].strip().split("\n")
    full = blocks[1].strip()
    assert fast == "pytest -n auto --dist loadgroup --durations=15"
    assert full == "pytest --full -n auto --dist loadgroup --durations=15"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").split("\n")
    assert install in ci and full in ci


def test_the_lecture_table_names_tests_that_exist():
    """Does every `test_file.py::test_name` in instructors.md's lecture table name a public test
    (solutions/) or hidden grader (autograder/graders/) that exists, in the assignment its row says?"""
    text = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    table = text[text.index("## The lectures, exercise by exercise"):text.index("## One source")]
    rows = [line for line in table.split("\n") if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) >= 18, "the table lists every lecture exercise and question"
    defined: dict[str, set[str]] = {}
    for folder in ("solutions", "autograder/graders"):
        for path in (ROOT / folder).glob("a*/test_*.py"):
            names = set(re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
            defined.setdefault(f"{path.parent.name[:2]} {path.name}", set()).update(names)
    checked = 0
    for row in rows:
        for cell in row.split(" | ")[3:6]:  # public test, hidden grader, notebook
            assignment, file = None, None
            for prefix, code in re.findall(r"(?:(a\d) )?`([^`]+)`", cell):
                assignment = prefix or assignment
                found = re.fullmatch(r"(test_\w+\.py)?(?:::(test_\w+\*?))?", code)
                if not found or not (found.group(1) or found.group(2)):
                    continue
                file = found.group(1) or file
                key = f"{assignment} {file}"
                assert key in defined, f"{row[:60]}: no {key}"
                name = found.group(2)
                if name:
                    assert any(n.startswith(name[:-1]) if name.endswith("*") else n == name
                               for n in defined[key]), f"{key} has no {name}"
                    checked += 1
    assert checked >= 20
