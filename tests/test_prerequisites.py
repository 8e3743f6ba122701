"""Assignments that import earlier ones are graded against the reference prerequisites."""

import base64
import os
import shutil

import pytest

from autograder.stubs import solution_texts
from helpers import ASSIGNMENTS, SOLUTIONS, make_submission, run_grade


@pytest.mark.full_only  # grades all six assignments; the fast tier: test_grade.py's broken a1 keeping a2's points
def test_broken_early_assignments_do_not_cost_later_ones(tmp_path):
    """With a1 and a2 broken and a3 untouched stubs, do a1-a3 lose points while a4 keeps all of its own?"""
    sub = make_submission(tmp_path / "sub", {
        "a1_attention/attention.py": [("return output, weights", "return output * 0, weights")],
        "a2_layernorm/layernorm.py": [("unbiased=False", "unbiased=True")],
    })
    shutil.rmtree(sub / "a3_blocks")
    shutil.copytree(ASSIGNMENTS / "a3_blocks", sub / "a3_blocks")
    g = run_grade(sub, tmp_path / "out", "--seed", "21")
    assert g.rc == 0, g.stderr
    for name in ("a1_attention", "a2_layernorm", "a3_blocks"):
        assert g.score(name)[0] < g.score(name)[1], name
    assert g.score("a3_blocks")[0] == 0
    assert g.score("a4_transformer")[0] == g.score("a4_transformer")[1] > 0
    assert "with reference a1, a2, a3" in g.stdout


LEAKY_PRELUDE = '''
import glob, os, sys
_sources = {}
for _folder in sys.path:
    for _path in glob.glob(os.path.join(_folder, "*.py")):
        try:
            _sources[_path] = open(_path).read()
        except OSError:
            pass
for _text in _sources.values():
    print(_text)
    print(_text, file=sys.stderr)
for _i, _text in enumerate(_sources.values()):
    try:  # the scratch copy is read-only in the namespace sandbox
        with open(f"leak-{_i}.py", "w") as _f:
            _f.write(_text)
    except OSError:
        pass
# The reference prerequisites in the scratch copy still carry their solution markers.
_REGIONS = [
    _part.split("### END SOLUTION")[0].strip()
    for _path, _text in _sources.items() if "a4_transformer" not in _path
    for _part in _text.split("### BEGIN SOLUTION")[1:]
]
'''


def test_reference_code_never_reaches_results(tmp_path):
    """Can a4 code that prints, copies and raises the source of every module it can import get any
    of it into results.json?"""
    sub = make_submission(tmp_path / "sub", {"a4_transformer/layers.py": [
        ("from multihead import MultiHeadAttention\n", "from multihead import MultiHeadAttention\n" + LEAKY_PRELUDE),
        # Every call raises with a slice of the collected sources: the error reaches feedback.
        ("    def forward(self, x, mask=None):\n",
         "    def forward(self, x, mask=None):\n        raise RuntimeError(_REGIONS[0])\n"),
        ("    def forward(self, x, memory, tgt_mask=None, src_mask=None):\n",
         "    def forward(self, x, memory, tgt_mask=None, src_mask=None):\n"
         "        raise RuntimeError(_REGIONS[-1].splitlines()[0])\n"),
    ]})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    g = run_grade(sub, tmp_path / "out", "--only", "a4_transformer", "--seed", "8", env={"TMPDIR": str(scratch)})
    assert g.rc == 0, g.stderr
    published = (tmp_path / "out" / "results.json").read_text(encoding="utf-8") + g.stdout
    # The errors quoted reference lines; with reference code beside the student's, no
    # exception text comes back at all, only its type and the student's file:line.
    assert published.count("its message is not shown") >= 4, "the test should have made the code raise"
    for path in SOLUTIONS.glob("a[123]_*/*.py"):
        for region in solution_texts(path.read_text(encoding="utf-8"), str(path)):
            for line in region.splitlines():
                code = line.strip()
                if len(code) >= 8 and not code.startswith("#"):
                    assert code not in published, f"reference line leaked from {path.name}: {code!r}"
    assert not [p for p in os.listdir(scratch) if p.startswith("course-grade-")], "scratch copy left behind"


def test_returned_strings_quote_no_reference_code(tmp_path):
    """Can a6 code return reference lines, base64-encoded, as its cleaned text and get them quoted in feedback? (No.)"""
    leak = (
        "import base64, sys\n"
        "def _secret():\n"
        "    path = sys.modules['attention'].__file__ if 'attention' in sys.modules else None\n"
        "    import attention\n"
        "    return base64.b64encode(open(attention.__file__, 'rb').read()).decode()\n"
    )
    sub = make_submission(tmp_path / "sub", {"a6_translator/preprocessing.py": [
        ("def clean_text(text):\n", leak + "\n\ndef clean_text(text):\n    return _secret()[:400]\n"),
    ]})
    g = run_grade(sub, tmp_path / "out", "--only", "a6_translator", "--seed", "3")
    assert g.rc == 0, g.stderr
    published = (tmp_path / "out" / "results.json").read_text(encoding="utf-8") + g.stdout
    encoded = base64.b64encode((SOLUTIONS / "a1_attention" / "attention.py").read_bytes()).decode()
    assert encoded[:24] in published, "the test should have made a grader quote the returned text"
    assert encoded[24:48] not in published, "more than the first characters of a returned string were quoted"
