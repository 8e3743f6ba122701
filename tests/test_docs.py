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


# --- Quoted commands, totals and lines checked against what the program does today ---------

COMMAND = re.compile(r"python -m autograder ([^`#\n]*)")


def unparsable_commands(paths: list[Path]) -> list[str]:
    """'file:line: command (argparse's complaint)' for every `python -m autograder ...` that
    the command line would refuse: an option it does not have, a missing or extra argument.
    [Optional] parts are dropped; a bare name (`python -m autograder grade` in prose) is fine."""
    import contextlib
    import io

    from autograder.cli import build_parser

    refused = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            for found in COMMAND.finditer(line):
                for command in found.group(1).split("&&")[:1]:  # `&& translator ...` is another command
                    while re.search(r"\[[^\[\]]*\]", command):
                        command = re.sub(r"\[[^\[\]]*\]", "", command)
                    words = command.split()
                    if not words or words[0].startswith("."):
                        continue
                    err = io.StringIO()
                    try:
                        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                            build_parser().parse_args(words)
                    except SystemExit as exc:
                        why = (err.getvalue().strip().splitlines() or [""])[-1]
                        if exc.code and not ("required" in why and all(w.isidentifier() or "-" in w and
                                                                       not w.startswith("-") for w in words)):
                            refused.append(f"{path.name}:{number}: {command.strip()} ({why})")
    return refused


def test_every_autograder_command_in_the_docs_parses():
    """Does every `python -m autograder ...` of README.md and docs/ name options and arguments
    that the command has (`grade-class` one folder, `gradescope-try -v` ...)?"""
    assert not unparsable_commands(documents())


def test_a_command_the_program_refuses_is_found(tmp_path):
    """Does the check catch an option that does not exist and a second folder where one belongs?"""
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "Run `python -m autograder grade-class A B --out OUT` or\n"
        "    python -m autograder grade solutions --fast\n"
        "and `python -m autograder grade` [--only a1_attention], `python -m autograder.bench.x`.\n", encoding="utf-8")
    refused = unparsable_commands(documents(tmp_path))
    assert [r.split(" (")[0] for r in refused] == ["README.md:1: grade-class A B --out OUT",
                                                   "README.md:2: grade solutions --fast"], refused


def graders_points() -> dict[str, int]:
    """Each assignment's points: the sum of its hidden graders' @pytest.mark.points(n)."""
    import ast

    points = {}
    for folder in sorted((ROOT / "autograder" / "graders").glob("a*_*")):
        total = 0
        for path in folder.glob("test_*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    names = [ast.unparse(d) for d in node.decorator_list]
                    assert not any("parametrize" in n for n in names), f"{path.name}::{node.name}"  # one count each
                    total += sum(int(d.args[0].value) for d in node.decorator_list
                                 if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("mark.points"))
        points[folder.name] = total
    return points


FULL_MARKS = re.compile(r"\b(?:scored|scores|score|gets?|got|keeps?)\s+(\d+)/(\d+)\b")


def wrong_totals(paths: list[Path], points: dict[str, int]) -> list[str]:
    """'file:line: N/N' for every full score quoted ("scored 115/115", also across a line
    break) that is neither the course's total nor one assignment's points."""
    allowed = {sum(points.values()), *points.values()}
    wrong = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for found in FULL_MARKS.finditer(text):
            got, top = found.groups()
            if got == top and int(top) not in allowed:
                wrong.append(f"{path.name}:{text.count(chr(10), 0, found.start(2)) + 1}: {got}/{top}")
    return wrong


def test_quoted_full_scores_are_the_graders_points():
    """Is every full score that README.md and docs/ quote the sum of the hidden graders' points
    (all six assignments) or one assignment's, and does grading.md quote the total that
    `grade solutions` prints (the sum)?"""
    points = graders_points()
    assert points["a6_translator"] == 39 and len(points) == 6
    assert not wrong_totals(documents(), points)
    total = sum(points.values())
    grading = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    assert re.search(rf"scored\s+{total}/{total}\b", grading)


def test_a_stale_total_is_found(tmp_path):
    """Does the check catch a total that was true once (97, before a6 grew) on a copy, also
    across a line break, and leave one assignment's full score and a count alone?"""
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# Course\n", encoding="utf-8")
    (tmp_path / "docs" / "grading.md").write_text("It peaked at 474 MiB and scored\n97/97.\nIt scores 39/39 "
                                                  "in a6 and got 12/14 right.\n", encoding="utf-8")
    assert wrong_totals(documents(tmp_path), graders_points()) == ["grading.md:2: 97/97"]


def test_the_quoted_not_implemented_line_is_the_stub_s():
    """Does every `not implemented yet: NAME (FILE:LINE)` that README.md and docs/ quote name
    the line of that stub's `raise NotImplementedError` in assignments/ (what `pytest
    assignments` prints in the checkout; the release's README is checked on a release, whose
    one-language hints move the lines: test_release.py)?"""
    quoted = 0
    for path in documents():
        for name, file, line in re.findall(r"not implemented yet: (\w+) \((\w+\.py):(\d+)\)",
                                           path.read_text(encoding="utf-8")):
            stub = next((ROOT / "assignments").glob(f"a*/{file}"))
            lines = stub.read_text(encoding="utf-8").split("\n")
            assert f'NotImplementedError("not implemented yet: {name}")' in lines[int(line) - 1], (path.name, line)
            quoted += 1
    assert quoted >= 1  # students.md


def test_students_page_says_what_the_release_holds():
    """Does students.md say that the release keeps one language's hints (the release's
    default, Spanish) and has no `python -m autograder`, and put every `python -m autograder`
    it gives in the course checkout's step?"""
    import inspect

    from autograder.authoring import release
    from autograder.cli import build_parser

    text = (ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    assert inspect.signature(release.build).parameters["lang"].default == "es"
    assert build_parser().parse_args(["release", "--out", "x"]).lang == "es"
    words = " ".join(text.split())  # the sentences, whatever their line breaks
    assert "hints in one language (Spanish unless the instructor chose `--lang en`)" in words
    assert "with a hint above it (in Spanish and English)" not in words
    step = text[text.index("3. In the course checkout only"):text.index("## Notebooks")]
    assert text.count("python -m autograder grade") == step.count("python -m autograder grade") >= 1
