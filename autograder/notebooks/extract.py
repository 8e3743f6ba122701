"""A notebook of this course, as handed in, turned into the module form that
``python -m autograder grade`` grades: the same graders, seeds and sandbox for both.

The notebook is read as data (JSON), never run. Which cell holds what comes from the
notebook's own build (:func:`autograder.notebooks.build.build`, keyed by nbformat cell id),
so what is kept is decided here, not by the student:

- **Solution cells** (``<!-- code: ... -->``): the top-level definitions with the names the
  exercise asks for replace those definitions in the module (the generated stub, so the
  given code around them is the course's). The student's last definition of a name wins,
  as it would in the kernel.
- **Helpers**: anything else the student defined at top level in a solution cell or a cell
  of their own (functions, classes, constants, imports) is kept, placed after each module's
  imports. A helper never replaces given code: a module's own definition of a name wins.
- **Locked cells** (given code, worked examples): the course's version is used. A locked
  cell the student edited is ignored and the report says so.
- **Prerequisite cells** ("bring your code") and the grading cells: ignored; prerequisites
  are the reference versions, as in the module form.
- The setup cell a release puts first (:mod:`.standalone`): ignored, course code that
  fetches the notebook's folder.
- Other top-level statements (calls, prints, loops) are not kept: they are the student's
  experiments, not the exercise. A cell that does not parse defines nothing (in the kernel
  it would have stopped there too) and the report says so.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from .. import course
from ..course import Assignment
from ..markers import NOT_IMPLEMENTED
from ..stubs import released_code
from . import build, sources
from .standalone import SETUP_ID

MAX_NOTEBOOK_BYTES = 20 << 20  # outputs with figures included
_NBGRADER_STUB = re.compile(r"^([ \t]*)raise NotImplementedError\(\)[ \t]*$", re.MULTILINE)


class NotebookUploadError(ValueError):
    """Not a notebook of this course (or unreadable); the message says why."""


@dataclass
class Extracted:
    assignment: Assignment
    modules: dict[str, str]  # file name -> source, e.g. "masks.py"
    notes: list[str] = field(default_factory=list)  # what was ignored, for the student (English / Spanish)


def read(data: bytes, name: str = "notebook") -> dict:
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise NotebookUploadError(f"{name} is larger than {MAX_NOTEBOOK_BYTES >> 20} MB")
    try:
        nb = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise NotebookUploadError(f"{name} is not a notebook (not JSON)") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookUploadError(f"{name} is not a notebook (no cells)")
    return nb


def assignment_of(nb: dict, name: str = "") -> Assignment | None:
    """The course assignment a notebook belongs to: its metadata, else its file name."""
    meta = nb.get("metadata", {}).get("course", {})
    wanted = meta.get("assignment") if isinstance(meta, dict) else None
    for a in course.ASSIGNMENTS:
        if a.name == wanted or (name and name == sources.notebook_name(a)):
            return a
    return None


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _span(lines: list[str], node: ast.stmt) -> str:
    """A top-level statement's source, decorators included."""
    return "\n".join(lines[_first_line(node) - 1: node.end_lineno])


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return [node.target.id]
    return []


@dataclass
class _Reference:
    locked: dict[str, str] = field(default_factory=dict)  # given-code cell id -> its source
    skipped: set[str] = field(default_factory=set)  # grading and prerequisite cell ids
    solution: set[str] = field(default_factory=set)  # solution cell ids
    targets: set[str] = field(default_factory=set)  # names the solution cells define


def _reference(assignment: Assignment, lang: str) -> _Reference:
    ref = _Reference()
    for cell in build.build(assignment, lang).cells:
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or cell.id.startswith("prereq-"):
            ref.skipped.add(cell.id)
        elif meta.get("solution"):
            ref.solution.add(cell.id)
            for node in ast.parse(cell.source).body:
                ref.targets.update(_names(node))
        else:
            ref.locked[cell.id] = cell.source
    return ref


def module_form(nb: dict, assignment: Assignment) -> Extracted:
    """The module files of ``assignment`` holding the student's code from ``nb``."""
    lang = nb.get("metadata", {}).get("course", {}).get("lang", "en")
    ref = _reference(assignment, lang if lang in sources.LANGS else "en")
    mine: dict[str, str] = {}  # target name -> the student's definition
    helpers: dict[str, str] = {}  # any other name they defined -> its definition
    imports: dict[str, None] = {}  # their import statements, in order, once each
    notes = []
    for number, cell in enumerate(nb["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        cell_id, text = str(cell.get("id", "")), _source(cell).replace("\r\n", "\n")
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell_id in ref.skipped or cell_id == SETUP_ID or meta.get("grade") \
                or (meta.get("locked") and cell_id not in ref.locked):
            continue
        if cell_id in ref.locked:
            if text.strip() != ref.locked[cell_id].strip():
                notes.append(f"cell {number} ({cell_id}) is given code and was edited: the course's version is "
                             f"used / la celda {number} es código dado y fue editada: se usa la del curso")
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            notes.append(f"cell {number} does not parse (line {exc.lineno}): nothing it defines is graded / "
                         f"la celda {number} no se puede leer (línea {exc.lineno}): no se califica nada de ella")
            continue
        lines = text.split("\n")
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports[_span(lines, node)] = None
            for name in _names(node):
                (mine if name in ref.targets else helpers)[name] = _span(lines, node)
    if not ref.solution & {str(c.get("id", "")) for c in nb["cells"] if isinstance(c, dict)}:
        notes.append("no solution cell of this notebook was found (were the cells replaced?) / no se encontró "
                     "ninguna celda de solución del cuaderno (¿se reemplazaron las celdas?)")
    modules = {name: _fill(stub, mine, helpers, list(imports), name.removesuffix(".py"))
               for name, stub in released_code(course.solutions_dir() / assignment.name).items()}
    return Extracted(assignment, modules, notes)


def _unimplemented(text: str, owner: str) -> str:
    """nbgrader's stub line ``raise NotImplementedError()`` as the course's, which names what
    is missing (the graders then say "not implemented yet", as for a module stub)."""
    return _NBGRADER_STUB.sub(lambda m: f'{m.group(1)}raise NotImplementedError("{NOT_IMPLEMENTED}{owner}")', text)


def _fill(stub: str, mine: dict[str, str], helpers: dict[str, str], imports: list[str], module: str) -> str:
    """``stub`` with the student's definitions in place of its own, and their helpers after
    its imports (a helper never shadows a definition of the module)."""
    tree = ast.parse(stub)
    lines = stub.split("\n")
    own = {name for node in tree.body for name in _names(node)}
    replace = []
    for node in tree.body:
        names = [n for n in _names(node) if n in mine]
        if names:
            replace.append((_first_line(node) - 1, node.end_lineno, _unimplemented(mine[names[0]],
                                                                                    f"{module}.{names[0]}")))
    imports_end = 0
    for node in tree.body:
        is_doc = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is tree.body[0]
        if isinstance(node, (ast.Import, ast.ImportFrom)) or is_doc:
            imports_end = node.end_lineno
        else:
            break
    extra = imports + [text for name, text in helpers.items() if name not in own]
    # Definitions come after the leading imports, so replacing them from the bottom up and
    # inserting the helpers above them keeps every line number valid.
    for start, end, text in sorted(replace, reverse=True):
        lines[start:end] = text.split("\n")
    if extra:
        block = ["", "", "# --- from the student's notebook cells ---", *"\n\n".join(extra).split("\n"), ""]
        lines[imports_end:imports_end] = block
    return "\n".join(lines)
