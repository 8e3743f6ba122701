"""Find calls to the very thing an exercise asks the student to build.

The source is parsed (never imported, never grepped): comments, docstrings and a
student's own function that happens to share the name do not count. What counts:

- an attribute with a forbidden name, e.g. ``F.layer_norm`` or ``nn.LayerNorm``;
- ``from torch... import <forbidden name>`` or ``from torch... import *``;
- a string equal to a forbidden name outside docstrings, e.g. ``getattr(F, "layer_norm")``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    file: str  # file name, e.g. "layernorm.py"
    line: int
    code: str  # the offending expression, e.g. "nn.LayerNorm"

    def __str__(self) -> str:
        return f"{self.file}:{self.line} uses {self.code}"


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def scan(source: str, names: tuple[str, ...], file: str) -> list[Finding]:
    """Every use of a forbidden name in ``source``; a file that does not parse has none."""
    try:
        tree = ast.parse(source, filename=file)
    except (SyntaxError, ValueError):
        return []
    forbidden = set(names)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in forbidden:
            found.append(Finding(file, node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for alias in node.names:
                if alias.name == "*" or alias.name in forbidden:
                    found.append(Finding(file, node.lineno, f"from {node.module} import {alias.name}"))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value in forbidden
            and id(node) not in skip
        ):
            found.append(Finding(file, node.lineno, repr(node.value)))
    return sorted(set(found), key=lambda f: (f.line, f.code))
