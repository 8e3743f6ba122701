"""Turn a reference module into a student stub, with nbgrader's marker syntax.

A solution region is replaced, as nbgrader's ClearSolutions does in notebooks, by::

    # YOUR CODE HERE
    raise NotImplementedError("not implemented yet: <function>")

indented like its ``### BEGIN SOLUTION`` line. A hidden-tests region
(``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS``) is removed whole. Everything
else (docstrings, signatures, given code, the hint comments an author writes just above
a region) stays byte-identical, because nothing else is touched.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from .markers import BEGIN_HIDDEN, BEGIN_SOLUTION, END_HIDDEN, END_SOLUTION, NOT_IMPLEMENTED

_PAIRS = {BEGIN_SOLUTION: END_SOLUTION, BEGIN_HIDDEN: END_HIDDEN}
_ALL = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN)


class MarkerError(ValueError):
    """A marker is malformed, unbalanced or misplaced; the message names file and line."""


@dataclass(frozen=True)
class Region:
    kind: str  # "solution" or "hidden"
    begin: int  # 0-based index of the BEGIN line
    end: int  # 0-based index of the END line
    indent: str  # leading whitespace of the BEGIN line
    owner: str = ""  # qualified name of the enclosing function (solution regions)


def _marker_of(line: str, where: str) -> str | None:
    text = line.strip()
    if text in _ALL:
        return text
    # nbgrader matches these words anywhere on a line; insist on the exact form here so
    # a typo is an error at generation time, not a silently unstripped solution.
    for word in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        if word in text:
            raise MarkerError(f"{where}: malformed marker {text!r}; write it exactly as '### {word}'")
    return None


def _owners(tree: ast.AST) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function, 1-based."""
    found: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def find_regions(source: str, path: str = "<source>") -> list[Region]:
    lines = source.split("\n")
    regions: list[Region] = []
    open_marker, open_at = None, -1
    for i, line in enumerate(lines):
        marker = _marker_of(line, f"{path}:{i + 1}")
        if marker is None:
            continue
        if marker in _PAIRS:
            if open_marker is not None:
                raise MarkerError(f"{path}:{i + 1}: {marker!r} inside the region opened at line {open_at + 1}")
            open_marker, open_at = marker, i
        else:
            if open_marker is None or _PAIRS[open_marker] != marker:
                raise MarkerError(f"{path}:{i + 1}: {marker!r} without a matching BEGIN")
            kind = "solution" if open_marker == BEGIN_SOLUTION else "hidden"
            indent = lines[open_at][: len(lines[open_at]) - len(lines[open_at].lstrip())]
            regions.append(Region(kind, open_at, i, indent))
            open_marker = None
    if open_marker is not None:
        raise MarkerError(f"{path}:{open_at + 1}: {open_marker!r} is never closed")

    if any(r.kind == "solution" for r in regions):
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise MarkerError(f"{path}:{exc.lineno}: the solution does not parse: {exc.msg}") from exc
        owners = _owners(tree)
        named = []
        for r in regions:
            if r.kind == "solution":
                # The END marker is a comment after the function's last statement, so place
                # the region by its first line of code.
                code = [i for i in range(r.begin + 1, r.end)
                        if lines[i].strip() and not lines[i].strip().startswith("#")]
                if not code:
                    raise MarkerError(f"{path}:{r.begin + 1}: empty solution region")
                first = code[0] + 1
                inside = [o for o in owners if o[0] < first <= o[1]]
                if not inside:
                    raise MarkerError(
                        f"{path}:{r.begin + 1}: a solution region must sit inside a function body"
                    )
                r = Region(r.kind, r.begin, r.end, r.indent, max(inside, key=lambda o: o[0])[2])
            named.append(r)
        regions = named
    return regions


def make_stub(source: str, path: str = "<source>") -> str:
    """The student version of ``source``."""
    lines = source.split("\n")
    out: list[str] = []
    cursor = 0
    for r in find_regions(source, path):
        out.extend(lines[cursor : r.begin])
        if r.kind == "solution":
            out.append(f"{r.indent}# YOUR CODE HERE")
            out.append(f'{r.indent}raise NotImplementedError("{NOT_IMPLEMENTED}{r.owner}")')
        cursor = r.end + 1
    out.extend(lines[cursor:])
    stub = "\n".join(out)
    if path.endswith(".py"):
        try:
            ast.parse(stub, filename=path)
        except SyntaxError as exc:
            raise MarkerError(f"{path}: the generated stub does not parse (line {exc.lineno}: {exc.msg})") from exc
    return stub


def given_code(source: str, path: str = "<source>") -> str:
    """``source`` without its marked regions: what a stub must keep byte for byte."""
    lines = source.split("\n")
    keep = [True] * len(lines)
    for r in find_regions(source, path):
        for i in range(r.begin, r.end + 1):
            keep[i] = False
    return "\n".join(line for line, k in zip(lines, keep) if k)


def solution_texts(source: str, path: str = "<source>") -> list[str]:
    """The code inside each region (used by leak checks)."""
    lines = source.split("\n")
    return ["\n".join(lines[r.begin + 1 : r.end]) for r in find_regions(source, path)]


def stub_file(path: Path) -> str:
    """The file at ``path`` (a module of solutions/) as students get it."""
    return make_stub(path.read_text(encoding="utf-8"), str(path))


def released_modules(folder: Path) -> dict[str, str]:
    """The released modules of an assignment: every ``.py`` file of ``folder`` (its folder
    of solutions/) as students get it, by file name: the exercises as stubs, the given
    code (a5's ``incremental.py``) and the public tests (``test_*.py``) as they are, less
    any hidden-tests region. ``sync`` writes them to assignments/, the notebooks carry the
    public tests, and grading fills in the given modules a submission leaves out."""
    return {path.name: stub_file(path) for path in sorted(folder.glob("*.py"))}


def is_public_test(file_name: str) -> bool:
    """Whether a released file is a public test (``test_masks.py``)."""
    return file_name.startswith("test_")


def is_code(file_name: str) -> bool:
    """Whether a released file is a module of code (an exercise or given code), not tests."""
    return not is_public_test(file_name) and file_name != "conftest.py"


def released_code(folder: Path) -> dict[str, str]:
    """The released modules of ``folder`` less the tests: the exercises' stubs and the
    given code beside them, by file name."""
    return {name: text for name, text in released_modules(folder).items() if is_code(name)}


def given_modules(folder: Path) -> dict[str, str]:
    """The released modules of ``folder`` that are given code, not exercises (no solution
    region: a5's ``incremental.py``, a3's ``visualize.py``), by file name."""
    return {name: text for name, text in released_code(folder).items()
            if BEGIN_SOLUTION not in (folder / name).read_text(encoding="utf-8")}


def solution_code_lines(paths, min_len: int) -> set[str]:
    """Stripped code lines (no comments) of at least ``min_len`` characters inside the
    solution regions of the files ``paths``."""
    lines = set()
    for path in paths:
        for region in solution_texts(Path(path).read_text(encoding="utf-8"), str(path)):
            lines.update(
                code for code in (line.strip() for line in region.split("\n"))
                if len(code) >= min_len and not code.startswith("#")
            )
    return lines


def distinctive_solution_lines(solutions: Path) -> set[str]:
    """Code lines of solution regions that occur in no given code: if one of them shows up
    in student-facing files, solution code has leaked. Lines shared with given code (say,
    ``raise ValueError(``) are public anyway; short lines and comments are skipped."""
    paths = list(solutions.rglob("*.py"))
    public = {line.strip() for p in paths for line in given_code(p.read_text(encoding="utf-8"), str(p)).split("\n")}
    return solution_code_lines(paths, min_len=13) - public


def code_lines(text: str) -> str:
    """``text`` without its comment lines (hints may quote code on purpose)."""
    return "\n".join(line for line in text.split("\n") if not line.strip().startswith("#"))


HINT_STARTS = {"es": "# Pista:", "en": "# Hint:"}


def hints_in(text: str, lang: str) -> str:
    """``text`` with only ``lang``'s hints, for a single-language release. A hint is a
    comment that starts with "# Pista:" or "# Hint:" and goes on over the comment lines
    after it, up to the next hint, a line of code or the region's own comment (a stub's
    "# YOUR CODE HERE", a solution's "### BEGIN SOLUTION")."""
    if lang not in HINT_STARTS:
        raise ValueError(f"unknown hint language {lang!r}; choose one of {', '.join(HINT_STARTS)}")
    kept, hint = [], None
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        starts = [name for name, start in HINT_STARTS.items() if stripped.startswith(start)]
        if starts:
            hint = starts[0]
        elif not stripped.startswith("#") or stripped.startswith("###") or stripped == "# YOUR CODE HERE":
            hint = None
        if hint in (None, lang):
            kept.append(line)
    return "".join(kept)
