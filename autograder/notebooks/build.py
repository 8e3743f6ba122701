"""Bilingual nbgrader source notebooks, generated from the single source.

A notebook is written by the team as Markdown, one file per language:
``solutions/<assignment>/notebook.es.md`` and ``notebook.en.md``. Plain Markdown becomes
Markdown cells; a fenced ```` ```python ```` block becomes a locked code cell (a worked
example, a plot); and directive lines, each alone on its line, pull code in from the
solution modules and the hidden graders, so nothing is kept twice:

``<!-- imports -->``
    a locked cell with the import lines of the modules the notebook takes code from
    (imports of course modules are left out: in a notebook those names are cells).
``<!-- prerequisites -->`` or ``<!-- prerequisites: transformer.Transformer ... -->``
    the definitions this assignment uses from earlier ones (a3 uses a1's attention), plus
    any listed (with what they need), as one solution cell per earlier assignment: "bring
    your code". They carry no points; at autograde time the hidden tests put the reference
    versions in their place, so a bug in a1 costs points in a1 only. Nothing when the
    assignment has no prerequisites.
``<!-- code: masks.causal_mask masks.padding_mask -->``
    the top-level definitions with those names from ``solutions/<assignment>/masks.py``,
    verbatim (docstring, hint comments, ``### BEGIN SOLUTION`` region): a solution cell
    if they hold a region (nbgrader's ``generate_assignment`` strips it), else a locked
    cell of given code.
``<!-- module: visualize -->``
    a whole module of given code, without its imports of course modules.
``<!-- hidden: a1_attention/test_masks.py::test_causal_mask -->``
    a test cell worth that hidden grader's ``@pytest.mark.points``. Its hidden region only
    names the grader: ``nbgrader autograde`` grades the notebook's code in module form, in
    the sandbox (:mod:`autograder.notebooks.sandboxed`), and sets the cell's score and
    output from that grader, so a notebook and ``python -m autograder grade`` get the same
    verdict for the same code. Nothing run in the student's kernel decides a grade.
    A ```` ```python ```` block right after the directive is the cell's visible part:
    asserts the student can run.
``<!-- answer: softmax-axis 1 point -->``
    a written answer graded by hand: nbgrader's "manually graded answer", a Markdown cell
    with ``solution: true, grade: true, locked: false, points: 1`` and grade id
    ``answer-softmax-axis`` (the same name and points in both languages). The question is
    the narrative above the directive (and any ```` ```python ```` code check there: a
    locked cell the student runs); the build ends it with a line saying how many points the
    answer is worth. Right after the directive, alone on their lines, ``### BEGIN SOLUTION``
    and ``### END SOLUTION`` enclose the model answer, which is the cell's text in the
    instructor's source; ``nbgrader generate_assignment`` (and :func:`student_version`)
    replaces that region with ``YOUR ANSWER HERE``. Autograding leaves these cells to the
    instructor (:mod:`.sandboxed` writes only the test cells' scores); they are graded in
    nbgrader's formgrader.

Every hidden grader of the assignment must appear in exactly one ``hidden`` directive;
:func:`build` refuses a narrative that misses one or names an unknown one.

Outside an answer's region, a narrative may not hold nbgrader's solution markers (nbgrader
refuses a solution region in a cell that is no solution cell).

Self-checks need no directive: after the last cell with code or tests of each module
(``test_masks.py``) comes a locked cell ``check("masks")`` that runs that module's public
tests on the notebook's code (:mod:`autograder.notebooks.selfcheck`, copied next to the
notebook with the public tests by :func:`.files.notebook_files`), or says in one line that
``selfcheck.py`` is missing (a notebook opened alone). They print, and grade nothing.

Over 350 lines: one narrative parser, whose directive handlers share its state, and its bilingual cell texts.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import course
from ..course import Assignment
from ..grading import rules
from ..grading.rules import GraderTest
from ..markers import BEGIN_HIDDEN, BEGIN_SOLUTION, END_HIDDEN, END_SOLUTION
from ..stubs import make_stub
from .files import public_tests
from .sources import ANSWER_STUB, DIRECTIVE, LANGS, NotebookError, SourceModule, narrative_path, prerequisites

# What a hidden test cell holds after the grader's id: its verdict comes from elsewhere.
SANDBOX_NOTE = "graded in the sandbox by `python -m autograder nbgrader autograde` / se califica en el sandbox"
# A check cell imports the self-check beside the notebook; a notebook opened alone, without
# its folder, says so in one line rather than a traceback (its first cell fetches the folder).
CHECK_IMPORT = (
    "try:",
    "    from selfcheck import check",
    "except ModuleNotFoundError as error:",
    '    print(f"Checks not run: no module {error.name!r}; run the first cell of the notebook or open it in its '
    'folder / "',
    '          f"Comprobaciones sin ejecutar: falta el módulo {error.name!r}; ejecuta la primera celda del "',
    '          "cuaderno o ábrelo en su carpeta")',
    "else:",
)
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)\s*$")
# The argument of <!-- answer: NAME N points -->: the cell's name (its grade id is answer-NAME) and points.
_ANSWER = re.compile(r"^([a-z0-9][a-z0-9_-]*)\s+(\d+(?:\.\d+)?)(?:\s+(?:points?|puntos?))?$")
ANSWER_PREFIX = "answer-"

TEXT = {
    "es": {
        "prereq_title": "## Lo que traes de tareas anteriores",
        "prereq_body": (
            "Esta tarea usa código de tareas anteriores. En {cells}, sustituye cada "
            "`raise NotImplementedError()` por tu solución de esa tarea (cópiala de tu cuaderno). "
            "Estas celdas no dan puntos: al corregir, los tests ocultos usan las versiones de referencia, "
            "así que un error allí solo cuenta en su propia tarea."
        ),
        "prereq_cells": ("la celda siguiente", "las celdas siguientes"),
        "prereq_header": "# Trae tu código de {name} ({files}); no da puntos aquí.",
        "test_header": ("# Test ({points}): {question}\n"
                        "# Al corregir, un test oculto lo comprueba además con entradas aleatorias."),
        "hidden_header": "# Test oculto ({points}): {question}\n# Se evalúa al corregir.",
        "points": ("punto", "puntos"),
        "check": "# Comprobaciones públicas de {name}: ejecútalas cuando tengas el código de arriba (no son tu nota).",
        "answer_prompt": "*Responde en la celda siguiente ({points}; la corrige a mano tu docente).*",
    },
    "en": {
        "prereq_title": "## What you bring from earlier assignments",
        "prereq_body": (
            "This assignment uses code from earlier ones. In {cells}, replace each "
            "`raise NotImplementedError()` with your solution from that assignment (copy it from your notebook). "
            "These cells carry no points: when grading, the hidden tests use the reference versions, "
            "so a bug there only counts in its own assignment."
        ),
        "prereq_cells": ("the cell below", "the cells below"),
        "prereq_header": "# Bring your code from {name} ({files}); no points here.",
        "test_header": ("# Test ({points}): {question}\n"
                        "# When grading, a hidden test also checks it on random inputs."),
        "hidden_header": "# Hidden test ({points}): {question}\n# It runs when your notebook is graded.",
        "points": ("point", "points"),
        "check": "# Public checks of {name}: run them once the code above is written (they are not your grade).",
        "answer_prompt": "*Answer in the next cell ({points}; your instructor grades it by hand).*",
    },
}


# ----------------------------------------------------------------------------- graders


def grader_tests(assignment: Assignment) -> dict[str, GraderTest]:
    """The assignment's hidden grader tests, one notebook cell each (so none may be parametrized)."""
    try:
        found = rules.grader_tests(assignment)
    except ValueError as exc:  # a grader test without its points
        raise NotebookError(str(exc)) from None
    for test in found.values():
        if test.parametrized:
            raise NotebookError(f"{test.nodeid} is parametrized; a notebook cell runs one grader test")
    return found


# ----------------------------------------------------------------------------- cells


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _cell_id(grade_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", grade_id)[:64]


class _Builder:
    def __init__(self, assignment: Assignment, lang: str, path: Path):
        import nbformat

        self.nbformat = nbformat
        self.assignment = assignment
        self.lang = lang
        self.text = TEXT[lang]
        self.path = path
        self.cells = []
        self.ids: set[str] = set()
        self.owner = course.module_owners()
        self.graders = grader_tests(assignment)
        self.used_tests: dict[str, int] = {}
        self.code_modules: list[str] = []  # modules the code directives take definitions from
        self.prereq_modules: list[tuple[Assignment, str]] = []  # (earlier assignment, module) of prerequisite cells
        self.counters: dict[str, int] = {}
        # test file ("test_masks.py") -> index of the last cell with its module's code or tests
        self.last_use: dict[str, int] = {}

    # -- helpers
    def where(self, line: int) -> str:
        return f"{self.path.name}:{line}"

    def unique(self, grade_id: str, line: int) -> str:
        if grade_id in self.ids:
            raise NotebookError(f"{self.where(line)}: {grade_id!r} appears twice in the notebook")
        self.ids.add(grade_id)
        return grade_id

    def numbered(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        grade_id = f"{kind}-{self.counters[kind]:02d}"
        self.ids.add(grade_id)
        return grade_id

    def module(self, name: str, line: int) -> SourceModule:
        if name not in self.owner or self.owner[name] is not self.assignment:
            raise NotebookError(f"{self.where(line)}: {name!r} is not a module of {self.assignment.name}")
        return SourceModule.load(self.assignment, name)

    def add_markdown(self, text: str) -> None:
        text = text.strip("\n")
        if text.strip():
            grade_id = self.numbered("md")
            cell = self.nbformat.v4.new_markdown_cell(text, metadata=_meta(grade_id, locked=True))
            cell.id = _cell_id(grade_id)
            self.cells.append(cell)

    def add_code(self, source: str, grade_id: str, **meta) -> None:
        cell = self.nbformat.v4.new_code_cell(source.strip("\n"), metadata=_meta(grade_id, **meta))
        cell.id = _cell_id(grade_id)
        self.cells.append(cell)

    # -- directives
    def imports(self, arg: str, line: int) -> None:
        self.cells.append(("imports", line))  # filled in at the end, once every module is known

    def code(self, arg: str, line: int) -> None:
        if not arg:
            raise NotebookError(f"{self.where(line)}: write <!-- code: module.name [module.name ...] -->")
        parts = []
        for item in arg.split():
            mod_name, _, name = item.partition(".")
            mod = self.module(mod_name, line)
            defs = mod.definitions()
            if name not in defs:
                raise NotebookError(f"{self.where(line)}: {mod_name}.py defines no {name!r}")
            parts.append(mod.text_of(defs[name]))
            if mod_name not in self.code_modules:
                self.code_modules.append(mod_name)
        source = "\n\n\n".join(parts)
        grade_id = self.unique("code-" + "-".join(item.replace(".", "-") for item in arg.split()), line)
        self.add_code_cell(source, grade_id)
        for item in arg.split():
            self.last_use[f"test_{item.partition('.')[0]}.py"] = len(self.cells) - 1

    def add_code_cell(self, source: str, grade_id: str) -> None:
        """A solution cell where the source holds a solution region, else a locked one."""
        solution = BEGIN_SOLUTION in source
        self.add_code(source, grade_id, solution=solution, locked=not solution)

    def module_cell(self, arg: str, line: int) -> None:
        mod = self.module(arg.strip(), line)
        source = mod.without_course_imports(self.owner)
        grade_id = self.unique(f"module-{mod.name}", line)
        self.add_code_cell(source, grade_id)

    def prerequisites(self, arg: str, line: int) -> None:
        groups = prerequisites(self.assignment, extra=tuple(arg.split()))
        if not groups:
            return
        cells = self.text["prereq_cells"][len(groups) > 1]
        self.add_markdown(self.text["prereq_title"] + "\n\n" + self.text["prereq_body"].format(cells=cells))
        for earlier, items in groups:
            files = ", ".join(dict.fromkeys(f"{m}.py" for m, _ in items))
            parts = [self.text["prereq_header"].format(name=earlier.name, files=files)]
            modules = {}
            for mod_name, name in items:
                if mod_name not in modules:  # parse each module once, not once per definition
                    modules[mod_name] = SourceModule.load(earlier, mod_name)
                mod = modules[mod_name]
                parts.append(mod.text_of(mod.definitions()[name]))
            self.prereq_modules += [(earlier, m) for m in modules]
            source = parts[0] + "\n\n\n" + "\n\n\n".join(parts[1:])
            grade_id = self.unique(f"prereq-{earlier.name}", line)
            self.add_code_cell(source, grade_id)

    def hidden(self, arg: str, line: int, visible: str | None) -> None:
        nodeid = arg.strip()
        if nodeid not in self.graders:
            known = "\n  ".join(self.graders)
            raise NotebookError(f"{self.where(line)}: no hidden grader {nodeid!r}; "
                                f"{self.assignment.name} has:\n  {known}")
        if nodeid in self.used_tests:
            raise NotebookError(f"{self.where(line)}: {nodeid} is already used at line {self.used_tests[nodeid]}")
        self.used_tests[nodeid] = line
        test = self.graders[nodeid]
        points = int(test.points) if test.points == int(test.points) else test.points
        word = self.text["points"][points != 1]
        question = test.question_es if self.lang == "es" else test.question_en
        visible = (visible or "").strip("\n")
        header = "test_header" if visible.strip() else "hidden_header"
        lines = [
            self.text[header].format(points=f"{points} {word}", question=question),
            BEGIN_HIDDEN,
            f"# {nodeid}: {SANDBOX_NOTE}",
            END_HIDDEN,
        ]
        if visible.strip():
            lines.append(visible)
        grade_id = self.unique(rules.cell_id(nodeid), line)
        self.add_code("\n".join(lines), grade_id, grade=True, locked=True, points=test.points)
        self.last_use[nodeid.split("::")[0].rsplit("/", 1)[-1]] = len(self.cells) - 1

    def answer(self, arg: str, lines: list[str], start: int, question: list[str]) -> int:
        """A manually graded answer cell from the directive at ``lines[start]`` and the model
        answer region right after it; ``question`` (the narrative's Markdown just above,
        not yet a cell) gets the line with the points. Returns the index after the region."""
        usage = "write <!-- answer: name N points --> and then the model answer between " \
                f"{BEGIN_SOLUTION!r} and {END_SOLUTION!r}, each alone on its line"
        match = _ANSWER.match(arg.strip())
        if not match or float(match.group(2)) <= 0:
            raise NotebookError(f"{self.where(start + 1)}: {usage}")
        points = float(match.group(2))
        points = int(points) if points == int(points) else points
        i = start + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i == len(lines) or lines[i].strip() != BEGIN_SOLUTION:
            raise NotebookError(f"{self.where(start + 1)}: the model answer must follow; {usage}")
        j = i + 1
        while j < len(lines) and lines[j].strip() not in (BEGIN_SOLUTION, END_SOLUTION):
            j += 1
        if j == len(lines) or lines[j].strip() != END_SOLUTION:
            raise NotebookError(f"{self.where(i + 1)}: the model answer is never closed by {END_SOLUTION!r}")
        body = "\n".join(lines[i + 1: j]).strip("\n")
        if not body.strip():
            raise NotebookError(f"{self.where(i + 1)}: the model answer is empty")
        word = self.text["points"][points != 1]
        self.add_markdown("\n".join(question).rstrip("\n") + "\n\n"
                          + self.text["answer_prompt"].format(points=f"{points} {word}"))
        grade_id = self.unique(ANSWER_PREFIX + match.group(1), start + 1)
        cell = self.nbformat.v4.new_markdown_cell(
            "\n".join([BEGIN_SOLUTION, body, END_SOLUTION]),
            metadata=_meta(grade_id, grade=True, solution=True, locked=False, points=points))
        cell.id = _cell_id(grade_id)
        self.cells.append(cell)
        return j + 1

    def add_checks(self) -> None:
        """A ``check("<module>")`` cell after the last cell with code or tests of each module
        that has public tests (at the end for a module with neither)."""
        end = len(self.cells) - 1
        places = sorted(((self.last_use.get(name, end), name) for name in public_tests(self.assignment)), reverse=True)
        for index, name in places:  # from the bottom up, so earlier indices stay valid
            module = name.removeprefix("test_").removesuffix(".py")
            source = "\n".join([self.text["check"].format(name=module), *CHECK_IMPORT, f"    check({module!r})"])
            grade_id = self.unique(f"check-{module}", 0)
            cell = self.nbformat.v4.new_code_cell(source, metadata=_meta(grade_id, locked=True))
            cell.id = _cell_id(grade_id)
            self.cells.insert(index + 1, cell)

    # -- the whole narrative
    def parse(self, text: str) -> None:
        lines = text.split("\n")
        markdown: list[str] = []
        pending_hidden: tuple[str, int] | None = None
        i = 0

        def flush_hidden(visible=None):
            nonlocal pending_hidden
            if pending_hidden is not None:
                self.hidden(pending_hidden[0], pending_hidden[1], visible)
                pending_hidden = None

        while i < len(lines):
            line = lines[i]
            fence = _FENCE.match(line.strip())
            if fence and fence.group(2):
                close = fence.group(1)
                body, j = [], i + 1
                while j < len(lines) and lines[j].strip() != close:
                    body.append(lines[j])
                    j += 1
                if j == len(lines):
                    raise NotebookError(f"{self.where(i + 1)}: code block is never closed")
                if fence.group(2) in ("python", "py"):
                    self.add_markdown("\n".join(markdown))
                    markdown = []
                    if pending_hidden is not None:
                        flush_hidden("\n".join(body))
                    else:
                        self.add_code("\n".join(body), self.numbered("given"), locked=True)
                else:
                    flush_hidden()
                    markdown += lines[i: j + 1]
                i = j + 1
                continue
            directive = DIRECTIVE.match(line.strip())
            if directive:
                kind, arg = directive.group(1), directive.group(2) or ""
                handlers = {"imports": self.imports, "prerequisites": self.prerequisites, "code": self.code,
                            "module": self.module_cell, "hidden": None, "answer": None}
                if kind not in handlers:
                    raise NotebookError(f"{self.where(i + 1)}: unknown directive {kind!r} ({', '.join(handlers)})")
                flush_hidden()
                if kind == "answer":  # the question above ends with its points; the model answer follows
                    i = self.answer(arg, lines, i, markdown)
                    markdown = []
                    continue
                self.add_markdown("\n".join(markdown))
                markdown = []
                if kind == "hidden":  # its visible part may follow
                    pending_hidden = (arg, i + 1)
                else:
                    handlers[kind](arg, i + 1)
                i += 1
                continue
            if line.strip() and pending_hidden is not None:
                flush_hidden()
            if "BEGIN SOLUTION" in line or "END SOLUTION" in line:  # nbgrader's test: a substring
                raise NotebookError(f"{self.where(i + 1)}: a solution marker outside an answer's model answer "
                                    "(write <!-- answer: name N points --> right above it)")
            if line.strip() or markdown:
                markdown.append(line)
            i += 1
        flush_hidden()
        self.add_markdown("\n".join(markdown))

        missing = [nodeid for nodeid in self.graders if nodeid not in self.used_tests]
        if missing:
            raise NotebookError(
                f"{self.path.name}: every hidden grader needs a <!-- hidden: ... --> cell, so the notebook is worth "
                "what the pytest graders are; missing:\n  " + "\n  ".join(missing)
            )
        self.add_checks()
        self.fill_imports()

    def fill_imports(self) -> None:
        modules = [SourceModule.load(self.assignment, m) for m in self.code_modules]
        modules += [SourceModule.load(a, m) for a, m in self.prereq_modules]
        seen, lines = set(), []
        for mod in modules:
            for text in mod.import_lines(self.owner):
                if text not in seen:
                    seen.add(text)
                    lines.append(text)
        lines.sort(key=lambda t: (not t.startswith("from __future__"), t.startswith("from "), t))
        for k, cell in enumerate(self.cells):
            if isinstance(cell, tuple):
                grade_id = self.unique("imports", cell[1])
                code = self.nbformat.v4.new_code_cell("\n".join(lines), metadata=_meta(grade_id, locked=True))
                code.id = _cell_id(grade_id)
                self.cells[k] = code


def build(assignment: Assignment, lang: str):
    """The nbgrader source notebook of ``assignment`` in ``lang`` (an ``nbformat`` node)."""
    import nbformat

    if lang not in LANGS:
        raise NotebookError(f"unknown language {lang!r}; the notebooks exist in {', '.join(LANGS)}")
    path = narrative_path(assignment, lang)
    if not path.is_file():
        raise NotebookError(f"{assignment.name} has no narrative in {lang!r} yet "
                            f"({path.relative_to(course.course_root())})")
    builder = _Builder(assignment, lang, path)
    builder.parse(path.read_text(encoding="utf-8"))
    nb = nbformat.v4.new_notebook(cells=builder.cells)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"},
                   "course": {"assignment": assignment.name, "lang": lang}}
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def write(nb, path: Path) -> bool:
    """Write ``nb`` to ``path`` unless it already holds exactly that; True if written."""
    import nbformat

    text = nbformat.writes(nb) + "\n"
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def student_version(nb):
    """The notebook a student works in, without nbgrader: solution regions stubbed exactly
    like the modules (``raise NotImplementedError("not implemented yet: ...")``), hidden
    tests removed, a written answer's model answer replaced by ``YOUR ANSWER HERE`` (as
    nbgrader releases it), nbgrader metadata dropped."""
    import copy

    out = copy.deepcopy(nb)
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.source = make_stub(cell.source, f"cell {cell.get('id', '?')}")
            cell.outputs, cell.execution_count = [], None
        elif cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = clear_answer(cell.source)
        cell.metadata.pop("nbgrader", None)
    return out


def clear_answer(source: str) -> str:
    """A written answer's cell as released: each solution region replaced by ``YOUR ANSWER
    HERE``, the rest kept, as nbgrader's ClearSolutions does to a Markdown solution cell
    (the whole cell when it has no region)."""
    kept, inside, replaced = [], False, False
    for line in source.split("\n"):
        if line.strip() == BEGIN_SOLUTION:
            inside, replaced = True, True
            kept.append(ANSWER_STUB)
        elif line.strip() == END_SOLUTION:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept) if replaced else ANSWER_STUB


def answer_cells(nb) -> list:
    """The manually graded answer cells of ``nb``: Markdown, solution and grade at once."""
    return [cell for cell in nb.cells if cell.cell_type == "markdown"
            and cell.metadata.get("nbgrader", {}).get("solution") and cell.metadata["nbgrader"].get("grade")]


def hidden_sources(nb) -> list[str]:
    """The code inside every hidden-tests region of ``nb`` (for leak scans)."""
    found = []
    for cell in nb.cells:
        inside = False
        for line in cell.source.split("\n"):
            if line.strip() == BEGIN_HIDDEN:
                inside = True
            elif line.strip() == END_HIDDEN:
                inside = False
            elif inside and line.strip():
                found.append(line.strip())
    return found
