"""Do the README and docs/ hold together: every relative link (and #anchor) resolves, the
README stays short, .ci/run runs the commands the README gives, and every example of a page
holds today (tests/docs_examples.py, with Sybil: python blocks run, commands parse with the
program's own parser and the cheap ones run, shown output is compared, quoted full scores,
test counts and classic mistakes are what the graders and the suite have)?"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import mutants
from docs_examples import CLAIMS, FULL_MARKS, LANGUAGES, documents, examine, graders_points, prose_spans
from helpers import ROOT

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks."""
    lines = []
    for start, end in prose_spans(text):
        first = text.count("\n", 0, start) + 1
        lines += list(enumerate(text[start:end].rstrip("\n").split("\n"), first))
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


# --- Every example of every page, run with Sybil (tests/docs_examples.py) ----------------------

@pytest.mark.xdist_group("docs")  # one worker: the pages share the commands' cached runs
@pytest.mark.parametrize("page", documents(), ids=lambda p: p.name)
def test_the_examples_of_each_page_hold(page):
    """Does every example of the page hold today: its python blocks run, its commands parse
    (the cheap ones run, pytest's collect tests), a console block's output is what the command
    prints, and its quoted full scores and counts are the suite's? And is every python, bash
    and console block of the page one of the examples run (none missed by the parsers)?"""
    counts, failures = examine(page)
    assert not failures, "\n\n".join(failures)
    blocks = len(LANGUAGES.findall(page.read_text(encoding="utf-8")))
    ran = sum(n for kind, n in counts.items() if kind in ("PythonEvaluator", "evaluate_bash",
                                                          "evaluate_console", "skipped"))
    assert ran == blocks, counts


def test_every_claim_and_full_score_is_checked_somewhere():
    """Does each pattern of docs_examples.CLAIMS still find its sentence (so a rewording does
    not drop its check), and does grading.md quote the total that `grade solutions` prints,
    the sum of the hidden graders' points over all six assignments?"""
    text = "\n".join(p.read_text(encoding="utf-8") for p in documents())
    flat = " ".join(text.split())
    for pattern, _ in CLAIMS:
        assert pattern.search(flat), pattern.pattern
    points = graders_points()
    assert points["a6_translator"] == 39 and len(points) == 6
    total = sum(points.values())
    grading = (ROOT / "docs" / "grading.md").read_text(encoding="utf-8")
    assert re.search(rf"scored\s+{total}/{total}\b", grading)
    assert FULL_MARKS.search(grading)


def _copy(tmp_path: Path) -> Path:
    """README.md and docs/ copied, to change one thing in."""
    (tmp_path / "docs").mkdir()
    for path in documents():
        shutil.copy(path, tmp_path / path.relative_to(ROOT))
    return tmp_path


def _change(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.xdist_group("docs")
def test_a_changed_number_fails_the_docs(tmp_path):
    """On a copy of the pages with one quoted number changed (a full score, the test count
    in prose and in a console block's output, the README's count of full-tier tests, the
    classic mistakes), does exactly that example fail, naming its line?"""
    copy = _copy(tmp_path)
    total = sum(graders_points().values())
    grading, testing, readme = copy / "docs" / "grading.md", copy / "docs" / "testing.md", copy / "README.md"
    found = re.search(r"Both collect the same (\d+) tests, (\d+) of them", testing.read_text(encoding="utf-8"))
    tests, full_only = found.groups()
    mistakes = len(mutants.load())
    changes = [  # (page, quoted, changed to, what the failure says)
        (grading, f"{total}/{total}", f"{total - 1}/{total - 1}", f"{total - 1}/{total - 1} is neither"),
        (testing, f"Both collect the same {tests} tests", f"Both collect the same {int(tests) + 1} tests",
         f"'{int(tests) + 1} quoted, {tests} today'"),
        (testing, f"{full_only}/{tests} tests collected", f"{int(full_only) - 1}/{tests} tests collected",
         f"expected:\n...\n{int(full_only) - 1}/{tests} tests collected"),
        (readme, f"the {full_only} of its {tests} tests", f"the {int(full_only) + 1} of its {tests} tests",
         f"'{int(full_only) + 1} quoted, {full_only} today'"),
        (copy / "docs" / "security.md", f"the {mistakes} classic mistakes", f"the {mistakes - 2} classic mistakes",
         f"'{mistakes - 2} quoted, {mistakes} today'"),
    ]
    for path, old, new, says in changes:
        assert not examine(path)[1], path.name  # as it is on main
        original = path.read_text(encoding="utf-8")
        _change(path, old, new)
        line = original[:original.index(old)].count("\n") + 1
        failures = examine(path)[1]
        assert len(failures) == 1 and says in failures[0], (says, failures)
        page, at = failures[0].split(":")[:2]
        assert page == path.name and line - 5 <= int(at) <= line, failures  # the example that quotes it
        path.write_text(original, encoding="utf-8")


@pytest.mark.xdist_group("docs")
def test_a_command_the_program_refuses_is_found(tmp_path):
    """Does the check catch an option that does not exist, a second folder where one belongs,
    a translator option with a bad value, a pytest command that collects nothing and a
    program it does not know, in prose and in bash blocks, and leave placeholders, `[optional]`
    parts and a bare name in prose alone?"""
    (tmp_path / "README.md").write_text(
        "Run `python -m autograder grade-class A B --out OUT` or\n"
        "`python -m autograder grade` [--only a1_attention], `translator train --epochs N --out ...`,\n"
        "`python -m autograder.bench.sandbox --nope`.\n\n"
        "```bash\n"
        "python -m autograder grade solutions --fast\n"
        "python -m autograder grade PATH --out DIR [--seed N] && translator translate --beam-size many hi\n"
        "pytest tests/no_such_test_file.py\n"
        "make all\n"
        "```\n", encoding="utf-8")
    failures = examine(tmp_path / "README.md")[1]
    assert [f.split(":")[1] for f in failures] == ["1", "3", "5"], failures
    wrong = "\n".join(failures)
    for phrase in ("grade-class A B --out OUT (", "bench.sandbox --nope (", "grade solutions --fast (",
                   "translator translate --beam-size many hi (", "pytest tests/no_such_test_file.py: --collect-only",
                   "make all: a program"):
        assert phrase in wrong, (phrase, failures)
    assert "grade PATH --out DIR" not in wrong and "translator train" not in wrong


@pytest.mark.xdist_group("docs")
def test_a_stale_total_is_found(tmp_path):
    """Does the check catch a total that was true once (97, before a6 grew) on a copy, also
    across a line break, and leave one assignment's full score and a partial one alone?"""
    (tmp_path / "grading.md").write_text("It peaked at 474 MiB and scored\n97/97.\nIt scores 39/39 "
                                         "in a6 and got 12/14 right.\n", encoding="utf-8")
    counts, failures = examine(tmp_path / "grading.md")
    assert counts == {"evaluate_full_marks": 1} and len(failures) == 1, (counts, failures)
    assert failures[0].startswith("grading.md:1: ") and "97/97 is neither" in failures[0]


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
