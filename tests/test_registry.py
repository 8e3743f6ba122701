"""Does the course registry (``autograder/course.py``) agree with the code it describes?

Each rule is a function returning the problems it finds, so that a test can break the
registry or the code on purpose and see the rule fail.
"""

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest

from autograder import course, reference, tokens
from helpers import ROOT

SOLUTIONS = ROOT / "solutions"
GRADERS = ROOT / "autograder" / "graders"
CALL = re.compile(r"""["']([a-z_][a-z0-9_]*)\.[A-Za-z_]\w*["']""")  # "module.name" in a grader: student.call, specs


def module_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if p.name != "conftest.py")


def owner(assignments) -> dict[str, str]:
    """Module name -> assignment that owns it (every .py of its solutions folder but tests)."""
    return {p.stem: a.name for a in assignments for p in module_files(SOLUTIONS / a.name)
            if not p.stem.startswith("test_")}


def duplicate_modules(assignments, solutions: Path = SOLUTIONS) -> list[str]:
    seen, problems = {}, []
    for a in assignments:
        for p in module_files(solutions / a.name):
            if p.stem.startswith("test_"):
                continue
            if p.stem in seen:
                problems.append(f"{p.stem}.py is in both {seen[p.stem]} and {a.name}")
            seen[p.stem] = a.name
    return problems


def referenced(assignment, modules: dict[str, str]) -> set[str]:
    """Assignments whose modules ``assignment``'s solution code, public tests or graders import
    or call by name ("multihead.MultiHeadAttention")."""
    names = set()
    for path in module_files(SOLUTIONS / assignment.name):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    for path in (GRADERS / assignment.name).glob("*.py"):
        names.update(CALL.findall(path.read_text(encoding="utf-8")))
    return {modules[n] for n in names if n in modules} - {assignment.name}


def wrong_requires(assignments) -> list[str]:
    modules, by_name, problems = owner(assignments), {a.name: a for a in assignments}, []
    for a in assignments:
        needed, todo = set(), list(referenced(a, modules))
        while todo:  # what it uses, and what those use
            name = todo.pop()
            if name not in needed:
                needed.add(name)
                todo.extend(referenced(by_name[name], modules))
        if set(a.requires) != needed:
            problems.append(f"{a.name}: requires {sorted(a.requires)}, but its code uses {sorted(needed)}")
        order = [x.name for x in assignments]
        if any(order.index(r) >= order.index(a.name) for r in a.requires if r in order):
            problems.append(f"{a.name}: requires an assignment that comes after it")
    return problems


def unimportable_graders(assignments) -> list[str]:
    problems = []
    for a in assignments:
        files = sorted((GRADERS / a.name).glob("test_*.py"))
        if not files:
            problems.append(f"{a.name}: no graders folder with test_*.py")
        elif not (GRADERS / a.name / "__init__.py").is_file():  # pytest would import its files by bare name
            problems.append(f"{a.name}: graders folder without __init__.py")
        for path in files:
            try:
                importlib.import_module(f"autograder.graders.{a.name}.{path.stem}")
            except Exception as exc:
                problems.append(f"{a.name}/{path.name}: {exc.__class__.__name__}: {exc}")
    return problems


def inconsistent_token_ids(ids=(tokens.PAD, tokens.SOS, tokens.EOS, tokens.UNK)) -> list[str]:
    """The solutions' Vocab and default arguments agree with autograder/tokens.py."""
    pad, sos, eos, unk = ids
    problems = []
    Vocab = reference.load("vocab").Vocab
    if (tuple(Vocab().itos[:4]) != tokens.SPECIALS
            or [Vocab.pad_id, Vocab.sos_id, Vocab.eos_id, Vocab.unk_id] != list(ids)):
        problems.append(f"Vocab specials {Vocab().itos[:4]} "
                        f"/ ids {Vocab.pad_id, Vocab.sos_id, Vocab.eos_id, Vocab.unk_id}")
    want = {"pad_id": pad, "sos_id": sos, "eos_id": eos}
    for module, functions in {"decoding": ("sample_decode", "greedy_decode", "decode"), "beam": ("beam_search",),
                              "batching": ("collate", "make_loader"),
                              "training": ("sequence_loss", "train_step", "evaluate", "fit")}.items():
        loaded = reference.load(module)
        for fn in functions:
            for name, p in inspect.signature(getattr(loaded, fn)).parameters.items():
                if name in want and p.default is not inspect.Parameter.empty and p.default != want[name]:
                    problems.append(f"{module}.{fn}: {name}={p.default}, the course's is {want[name]}")
    return problems


def test_registry_matches_the_code():
    """Are module names unique, `requires` exactly what each assignment uses, every graders
    folder importable and the special-token ids the same everywhere?"""
    assert duplicate_modules(course.ASSIGNMENTS) == []
    assert wrong_requires(course.ASSIGNMENTS) == []
    assert unimportable_graders(course.ASSIGNMENTS) == []
    assert inconsistent_token_ids() == []


def _replace(which, **changes):
    return tuple(dataclasses.replace(a, **changes) if a.name == which else a for a in course.ASSIGNMENTS)


@pytest.mark.parametrize("broken, rule", [
    (_replace("a4_transformer", requires=("a1_attention", "a3_blocks")), wrong_requires),  # a2's LayerNorm is used
    (_replace("a3_blocks", requires=("a1_attention", "a2_layernorm")), wrong_requires),  # a2 is not used
    (_replace("a2_layernorm", name="a2_missing"), unimportable_graders),
], ids=["a requirement missing", "a requirement too many", "no graders folder"])
def test_each_registry_rule_fails_when_broken(broken, rule):
    """Does each rule report a registry broken on purpose?"""
    assert rule(course.ASSIGNMENTS) == []
    assert rule(broken)


def test_duplicate_module_names_are_reported(tmp_path):
    """Is a module name used by two assignments reported?"""
    for a in course.ASSIGNMENTS:
        (tmp_path / a.name).mkdir()
        for p in module_files(SOLUTIONS / a.name):
            (tmp_path / a.name / p.name).write_text("")
    (tmp_path / "a2_layernorm" / "masks.py").write_text("")  # a1's module name
    assert duplicate_modules(course.ASSIGNMENTS, tmp_path) == ["masks.py is in both a1_attention and a2_layernorm"]


def test_token_ids_that_disagree_are_reported():
    """Is an id of tokens.py that the solutions do not use reported?"""
    assert inconsistent_token_ids((0, 2, 1, 3))
