"""Does the package keep its seams? The sandbox's child code stands alone and no module
imports itself through a cycle.

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
