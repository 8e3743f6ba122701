"""Tests for autograder/grading/forbidden.py: the AST scan for forbidden shortcuts."""

from autograder.grading.forbidden import scan

NAMES = ("layer_norm", "LayerNorm")


def test_attribute_use_is_found_with_its_line():
    """Is `F.layer_norm(...)` reported with file, line and the expression?"""
    source = "import torch.nn.functional as F\n\ndef f(x):\n    return F.layer_norm(x, (3,))\n"
    [finding] = scan(source, NAMES, "layernorm.py")
    assert str(finding) == "layernorm.py:4 uses F.layer_norm"


def test_imports_and_getattr_strings_are_found():
    """Are `from torch... import` and getattr with the name as a string caught too?"""
    source = (
        "from torch.nn import LayerNorm as LN\n"
        "from torch.nn.functional import *\n"
        "import torch\n"
        "g = getattr(torch.nn.functional, 'layer_norm')\n"
    )
    codes = [f.code for f in scan(source, NAMES, "m.py")]
    assert codes == ["from torch.nn import LayerNorm", "from torch.nn.functional import *", "'layer_norm'"]


def test_own_class_docstrings_and_comments_are_not_findings():
    """Are the student's own LayerNorm class, docstrings and comments left alone?"""
    source = (
        '"""Matches torch.nn.LayerNorm."""\n'
        "from torch import nn\n"
        "class LayerNorm(nn.Module):\n"
        '    """LayerNorm"""\n'
        "    def forward(self, x):  # unlike nn.LayerNorm, by hand\n"
        "        return x\n"
        "norm = LayerNorm(3)\n"
    )
    assert scan(source, NAMES, "m.py") == []


def test_unparsable_source_has_no_findings():
    """Does a file with a syntax error give no findings (the graders report the error)?"""
    assert scan("def f(:\n", NAMES, "m.py") == []
