"""What a notebook is built from: the team's narratives (``notebook.<lang>.md``, one per
language) and the solution modules whose definitions they pull in, read as syntax trees.

Also what an assignment uses from earlier ones (:func:`prerequisites`): the "bring your
code" cells of a notebook, which carry no points (grading runs the reference versions).
Kept apart from the notebook build: this is what the code is, the build is how
cells show it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .. import course
from ..course import Assignment
from ..markers import BEGIN_SOLUTION, END_SOLUTION

LANGS = ("es", "en")
# A directive line of a narrative: <!-- kind --> or <!-- kind: argument -->.
DIRECTIVE = re.compile(r"^<!--\s*([a-z]+)\s*(?::\s*(.*?))?\s*-->\s*$")
# What a written answer's cell holds once released: nbgrader's ClearSolutions.text_stub
# (its default), so the student version and nbgrader's release read the same.
ANSWER_STUB = "YOUR ANSWER HERE"


class NotebookError(ValueError):
    """A narrative cannot be turned into a notebook; the message names file and line."""


def narrative_path(assignment: Assignment, lang: str) -> Path:
    return course.solutions_dir() / assignment.name / f"notebook.{lang}.md"


def has_narrative(assignment: Assignment, lang: str) -> bool:
    return narrative_path(assignment, lang).is_file()


def notebook_name(assignment: Assignment) -> str:
    return f"{assignment.name}.ipynb"


@dataclass
class SourceModule:
    """One module of ``solutions/<assignment>/``, as text and as a syntax tree."""

    name: str
    path: Path
    source: str
    tree: ast.Module

    @classmethod
    def load(cls, assignment: Assignment, name: str) -> "SourceModule":
        path = course.solutions_dir() / assignment.name / f"{name}.py"
        if not path.is_file():
            raise NotebookError(f"{assignment.name} has no module {name}.py")
        source = path.read_text(encoding="utf-8")
        return cls(name, path, source, ast.parse(source, filename=str(path)))

    @property
    def lines(self) -> list[str]:
        return self.source.split("\n")

    def definitions(self) -> dict[str, ast.stmt]:
        """Top-level functions, classes and assigned constants, by name."""
        found = {}
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = node
        return found

    def text_of(self, node: ast.stmt) -> str:
        """The definition's source; comment lines indented into its body right after its
        last statement (a closing ``### END SOLUTION``) belong to it."""
        lines = self.lines
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = node.end_lineno
        while last < len(lines):
            line = lines[last]
            if line.strip().startswith("#") and len(line) - len(line.lstrip()) > node.col_offset:
                last += 1
            else:
                break
        return "\n".join(lines[first - 1: last])

    def course_imports(self, modules) -> dict[str, str]:
        """Name -> module, for ``from <course module> import name`` lines."""
        found = {}
        for node in self.tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
                for alias in node.names:
                    found[alias.asname or alias.name] = node.module
        return found

    def import_lines(self, modules) -> list[str]:
        """Top-level import statements that do not import course modules, as written."""
        out = []
        for node in self.tree.body:
            if isinstance(node, ast.Import) and not any(a.name.split(".")[0] in modules for a in node.names):
                out.append(ast.get_source_segment(self.source, node))
            elif isinstance(node, ast.ImportFrom) and not (node.level == 0 and node.module in modules):
                out.append(ast.get_source_segment(self.source, node))
        return out

    def without_course_imports(self, modules) -> str:
        lines = self.lines
        drop = set()
        for node in self.tree.body:
            if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules) or (
                isinstance(node, ast.Import) and any(a.name.split(".")[0] in modules for a in node.names)
            ):
                drop.update(range(node.lineno - 1, node.end_lineno))
        text = "\n".join(line for i, line in enumerate(lines) if i not in drop)
        return re.sub(r"\n{4,}", "\n\n\n", text).strip("\n")


def model_answer_lines(min_length: int = 25) -> set[str]:
    """The lines of every narrative's model answers (the ``### BEGIN SOLUTION`` regions
    after ``<!-- answer: ... -->``) at least ``min_length`` long, stripped: what no
    released notebook, feedback page or kernel output may quote."""
    found = set()
    for path in sorted(course.solutions_dir().glob("*/notebook.*.md")):
        inside = False
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip() == BEGIN_SOLUTION:
                inside = True
            elif line.strip() == END_SOLUTION:
                inside = False
            elif inside and len(line.strip()) >= min_length:
                found.add(line.strip())
    return found


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def declared_prerequisites(assignment: Assignment) -> tuple[str, ...]:
    """The ``module.name`` items of the narratives' ``<!-- prerequisites: ... -->`` line:
    definitions of earlier assignments a notebook uses although the modules do not (a
    Transformer to train in a worked example). Every language must declare the same."""
    found = {}
    for lang in LANGS:
        path = narrative_path(assignment, lang)
        if path.is_file():
            items = ()
            for line in path.read_text(encoding="utf-8").split("\n"):
                match = DIRECTIVE.match(line.strip())
                if match and match.group(1) == "prerequisites":
                    items = tuple((match.group(2) or "").split())
            found[lang] = items
    if len(set(found.values())) > 1:
        raise NotebookError(f"{assignment.name}: the narratives declare different prerequisites: {found}")
    return next(iter(found.values()), ())


def prerequisites(assignment: Assignment, extra=None) -> list[tuple[Assignment, list[tuple[str, str]]]]:
    """What ``assignment`` uses from earlier assignments, in course order:
    ``[(earlier assignment, [(module, name), ...]), ...]``.

    Starts from the ``from <module> import <name>`` lines of the assignment's own modules
    and from ``extra`` (``module.name`` items; by default :func:`declared_prerequisites`),
    and follows the definitions they need (a target_mask needs padding_mask and
    causal_mask), within the assignments listed in ``requires``.
    """
    owner = course.module_owners()
    earlier = set(assignment.requires)
    loaded: dict[str, SourceModule] = {}

    def module(name: str) -> SourceModule:
        if name not in loaded:
            loaded[name] = SourceModule.load(owner[name], name)
        return loaded[name]

    own = sorted(p.stem for p in (course.solutions_dir() / assignment.name).glob("*.py")
                 if not p.name.startswith("test_") and p.name != "conftest.py")
    todo: list[tuple[str, str]] = []
    for stem in own:
        for name, mod in module(stem).course_imports(owner).items():
            if owner[mod].name in earlier:
                todo.append((mod, name))
    for item in declared_prerequisites(assignment) if extra is None else extra:
        mod, _, name = item.partition(".")
        if mod not in owner or owner[mod].name not in earlier or not name:
            raise NotebookError(f"{assignment.name}: prerequisite {item!r} "
                                "is not module.name of an assignment it requires")
        todo.append((mod, name))
    needed: set[tuple[str, str]] = set()
    while todo:
        mod, name = todo.pop()
        if (mod, name) in needed:
            continue
        defs = module(mod).definitions()
        if name not in defs:
            raise NotebookError(f"{mod}.py defines no {name!r} (imported by {assignment.name})")
        needed.add((mod, name))
        used = names_used(defs[name])
        todo += [(mod, n) for n in used if n in defs and n != name]
        todo += [(m, n) for n, m in module(mod).course_imports(owner).items()
                 if n in used and owner[m].name in earlier]

    order = {a.name: i for i, a in enumerate(course.ASSIGNMENTS)}
    grouped: dict[str, list[tuple[str, str]]] = {}
    for mod, name in needed:
        grouped.setdefault(owner[mod].name, []).append((mod, name))
    out = []
    for name in sorted(grouped, key=order.get):
        a = course.get(name)
        mods = list(a.modules) + sorted({m for m, _ in grouped[name]} - set(a.modules))
        items = sorted(grouped[name], key=lambda mn: (mods.index(mn[0]), module(mn[0]).definitions()[mn[1]].lineno))
        out.append((a, items))
    return out
