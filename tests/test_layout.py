"""Does the package keep its seams? Its layers import only downwards, the sandbox's child
code stands alone and no module imports itself through a cycle.

As in test_registry.py, each rule is a function returning what it finds, so that a test
can break it on purpose and see it fail.
"""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

PACKAGE = ROOT / "autograder"
CHILD = PACKAGE / "sandbox" / "child"

# The package's layers, bottom to top: the one list of them (docs/architecture.md tells
# what each is for). A module may import its own layer and the ones below, never one above,
# lazily or not; every module belongs to the layer of its longest prefix here.
LAYERS = (
    # leaves: the registry, limits, token ids, the markers of the worker-grader protocol,
    # generated folders as data, and what runs beside student code
    ("autograder.course", "autograder.settings", "autograder.tokens", "autograder.markers",
     "autograder.filetree", "autograder.sandbox.child"),
    # reading reference code (stubs, the reference loader) and the trust boundary
    ("autograder.stubs", "autograder.reference", "autograder.sandbox"),
    ("autograder.translator",),  # the reference translator, on the reference code
    ("autograder.grading",),  # the grading process: runner, plugin, Student, checks, reports
    ("autograder.graders",),  # the hidden graders, on grading's checks
    ("autograder.classreport",),  # reads graded results
    ("autograder.notebooks",),  # notebooks built, extracted, graded from the sandbox
    ("autograder.intake",),  # class intake: uploads (notebooks among them), grade-class, CSVs
    ("autograder.platforms",),  # Gradescope and GitHub Classroom, on grade-class
    ("autograder.authoring",),  # sync and release, on notebooks and platforms
    ("autograder.cli", "autograder.__main__", "autograder.bench"),  # commands
)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path = ROOT, top_level_only: bool = False) -> set[str]:
    """Full names of what ``path`` imports (relative imports resolved; ``from a import b``
    counts as both ``a`` and ``a.b``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path, root) if path.name == "__init__.py" else module_name(path, root).rpartition(".")[0]
    nodes = tree.body if top_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


def child_violations(folder: Path) -> list[str]:
    """Imports in ``folder`` of anything but the standard library, torch and the folder's
    own modules by their top-level names (a relative import fails once the folder is
    copied into a scratch directory)."""
    own = {p.stem for p in folder.glob("*.py")}
    problems = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                problems.append(f"{path.name}:{node.lineno}: relative import")
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "torch" and top not in own:
                    problems.append(f"{path.name}:{node.lineno}: imports {name}")
    return problems


def import_graph(package: Path, root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package's modules it imports when it is imported (top-level imports)."""
    modules = {module_name(p, root): p for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in imports_of(path, root, top_level_only=True) if m in modules and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def layer_of(module: str, layers=LAYERS) -> int | None:
    """The index in ``layers`` of the longest prefix of ``module`` (None: in no layer)."""
    found = [(len(prefix), i) for i, names in enumerate(layers) for prefix in names
             if module == prefix or module.startswith(prefix + ".")]
    return max(found)[1] if found else None


def layer_violations(package: Path, root: Path = ROOT, layers=LAYERS) -> list[str]:
    """Modules in no layer, and imports (top-level or inside a function) of a module in a
    higher layer than the importer's."""
    modules = {module_name(p, root): p for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    problems = [f"{name}: in no layer" for name in sorted(modules)
                if name != module_name(package, root) and layer_of(name, layers) is None]
    for name, path in sorted(modules.items()):
        mine = layer_of(name, layers)
        for imported in sorted(imports_of(path, root) & modules.keys()):
            theirs = layer_of(imported, layers)
            if mine is not None and theirs is not None and theirs > mine:
                problems.append(f"{name} imports {imported}, a layer above it")
    return problems


def test_layers_import_only_downwards():
    """Does every module of the package sit in a layer of LAYERS, and import nothing from
    a layer above its own?"""
    assert layer_violations(PACKAGE) == []


def test_layer_rule_fails_when_broken(tmp_path):
    """On a copy of the package, are an upward import (checks importing grade-class, even
    inside a function) and a module outside every layer reported?"""
    copy = tmp_path / "autograder"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    checks = copy / "grading" / "checks.py"
    checks.write_text(checks.read_text(encoding="utf-8") + "\n\ndef late():\n    from ..intake import batch\n",
                      encoding="utf-8")
    (copy / "stray.py").write_text("", encoding="utf-8")
    found = layer_violations(copy, tmp_path)
    assert found == ["autograder.stray: in no layer",
                     "autograder.grading.checks imports autograder.intake, a layer above it",
                     "autograder.grading.checks imports autograder.intake.batch, a layer above it"], found


LONG = 350  # lines: a module longer than this says why, in a docstring line "Over 350 lines: ..."


def long_modules_without_reason(package: Path, root: Path = ROOT) -> list[str]:
    """Modules over LONG lines whose docstring has no line starting "Over 350 lines:"."""
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        reason = any(line.startswith(f"Over {LONG} lines:") for line in doc.splitlines())
        if len(text.splitlines()) > LONG and not reason:
            found.append(module_name(path, root))
    return found


def test_long_modules_say_why():
    """Does every module of the package over 350 lines say in its docstring why it is one
    module (each holds one concept; length alone is no reason to split it)?"""
    assert long_modules_without_reason(PACKAGE) == []


def test_long_module_rule_fails_when_broken(tmp_path):
    """Is a long module without its reason reported, and one with it left alone?"""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    body = "\n".join(f"x{i} = {i}" for i in range(LONG + 1))
    (pkg / "long.py").write_text(f'"""A long module."""\n{body}\n', encoding="utf-8")
    (pkg / "explained.py").write_text(f'"""A long module.\n\nOver {LONG} lines: a table.\n"""\n{body}\n',
                                      encoding="utf-8")
    assert long_modules_without_reason(pkg, tmp_path) == ["pkg.long"]


def test_child_imports_nothing_from_the_package():
    """Does the code copied into the student's process import only the standard library,
    torch and its own modules?"""
    assert child_violations(CHILD) == []


def test_child_rule_fails_when_broken(tmp_path):
    """Is a child module that imports the package, or a sibling relatively, reported?"""
    for path in CHILD.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "harness.py").write_text((tmp_path / "harness.py").read_text(encoding="utf-8")
                                         + "\nfrom autograder import course\nfrom . import wire\n", encoding="utf-8")
    found = child_violations(tmp_path)
    assert len(found) == 2 and "imports autograder" in found[0] and "relative import" in found[1], found


def test_child_runs_alone(tmp_path):
    """Do the child's modules import, as the worker imports them, from a copy of the folder
    alone, without loading any of the package?"""
    for path in CHILD.glob("*.py"):
        if path.name != "__init__.py":
            shutil.copy(path, tmp_path / path.name)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import worker, harness, wire; "
            "print(sorted(m for m in sys.modules if m.startswith('autograder')))")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COURSE_ROOT")}
    proc = subprocess.run([sys.executable, "-I", "-c", code, str(tmp_path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_no_import_cycle():
    """Does no module of the package import itself through others when it is imported?"""
    assert import_cycles(import_graph(PACKAGE)) == []


def test_cycle_rule_fails_when_broken(tmp_path):
    """Are two modules that import each other reported, with a module that imports one of
    them left out of the group?"""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "train.py").write_text("from .translate import translate_ids\n", encoding="utf-8")
    (pkg / "translate.py").write_text("from . import train\n", encoding="utf-8")
    (pkg / "cli.py").write_text("from pkg.train import main\n", encoding="utf-8")
    assert import_cycles(import_graph(pkg, tmp_path)) == [["pkg.train", "pkg.translate"]]


def test_the_self_check_copies_the_protocol_text():
    """Does the students' self-check, which travels alone next to a notebook, say "not
    implemented" exactly as the markers module does?"""
    from autograder import markers
    from autograder.notebooks import selfcheck

    assert selfcheck.NOT_IMPLEMENTED == markers.NOT_IMPLEMENTED
