"""A course notebook turned into the module form (autograder/notebooks/extract.py): what is
kept of the student's cells, what is ignored, and what the student is told."""

import ast
import json

import pytest

from autograder import course
from autograder.intake import uploads
from autograder.notebooks import extract
from helpers import SOLUTIONS, course_notebook

A1 = "a1_attention"


def _module_form(**kwargs) -> extract.Extracted:
    nb = json.loads(course_notebook(A1, **kwargs))
    return extract.module_form(nb, course.get(A1))


def _defined(source: str) -> set[str]:
    return {node.name for node in ast.parse(source).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def test_solved_notebook_gives_the_reference_definitions():
    """Does a notebook whose solution cells hold the reference code give modules that define
    the same functions, as valid Python, and no notes?"""
    result = _module_form()
    assert result.notes == []
    for name, source in result.modules.items():
        reference = (SOLUTIONS / A1 / name).read_text(encoding="utf-8")
        assert _defined(source) == _defined(reference)
        assert "NotImplementedError" not in source


def test_released_notebook_gives_the_stubs():
    """Does the notebook as released give modules whose functions still raise
    NotImplementedError (nothing of the reference slips in)?"""
    result = _module_form(solved=False)
    assert all("NotImplementedError" in source for source in result.modules.values())


def test_helpers_are_kept_and_given_code_is_not_replaced():
    """Are a helper function and an import the student wrote in a solution cell kept, and a
    redefinition of given code in a cell of their own ignored?"""
    def add_helper(source):
        if source.lstrip().startswith("def causal_mask"):
            return "import math\n\n\ndef _my_helper(x):\n    return x\n\n\n" + source
        return None
    nb = json.loads(course_notebook(A1, edit=add_helper))
    nb["cells"].append({"cell_type": "code", "id": "mine-1", "metadata": {}, "outputs": [],
                        "execution_count": None, "source": "def make_the_table():\n    return 'mine'\nprint('hi')\n"})
    masks = extract.module_form(nb, course.get(A1)).modules["masks.py"]
    assert "def _my_helper(x):" in masks and "import math" in masks
    assert "print('hi')" not in masks
    compile(masks, "masks.py", "exec")


def test_edited_given_cell_and_unparsable_cell_are_reported():
    """Is an edited given-code cell ignored with a note, and a cell that does not parse
    reported with its line, its definitions left as stubs?"""
    def edit(source):
        if source.startswith("import "):
            return source + "\nimport os"
        if source.lstrip().startswith("def padding_mask"):
            return "def padding_mask(tokens, pad_id:\n    return None\n"
        return None
    result = _module_form(edit=edit)
    notes = " ".join(result.notes)
    assert "is given code and was edited" in notes and "es código dado" in notes
    assert "does not parse (line 1)" in notes
    assert "import os" not in result.modules["masks.py"]
    padding = result.modules["masks.py"].split("def padding_mask", 1)[1].split("\ndef ", 1)[0]
    assert "NotImplementedError" in padding


def test_the_last_definition_wins_as_in_the_kernel():
    """When the student defines a function twice (a later cell redefines it), is the later
    definition the one graded, as it would be in the kernel?"""
    nb = json.loads(course_notebook(A1))
    nb["cells"].append({"cell_type": "code", "id": "again", "metadata": {}, "outputs": [], "execution_count": None,
                        "source": "def causal_mask(T, device=None):\n    return 'second'\n"})
    masks = extract.module_form(nb, course.get(A1)).modules["masks.py"]
    assert "return 'second'" in masks and masks.count("def causal_mask") == 1


@pytest.mark.parametrize("data, why", [(b"\x89PNG", "not JSON"), (b'{"cells": 3}', "no cells")])
def test_broken_notebooks_are_listed_not_graded(tmp_path, data, why):
    """Is an unreadable .ipynb left out of the upload with the reason, without stopping it?"""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a1_attention.ipynb").write_bytes(data)
    report = uploads.normalize(tmp_path / "in", tmp_path / "out")
    assert report.assignments == [] and any(why in line for line in report.ignored)
