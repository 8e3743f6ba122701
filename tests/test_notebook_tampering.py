"""Notebooks that tamper with the kernel nbgrader runs them in (grades come from the
sandbox; the kernel's run makes the outputs and feedback): the static scan
(autograder/notebooks/scan.py) and its use by `python -m autograder nbgrader autograde`."""

import hashlib
import json
import shutil

import pytest
from test_nbgrader_loop import LANG, SEED, TRACEBACK_LINE, _cli

from autograder import course
from autograder.authoring import release
from autograder.notebooks import build as notebooks
from autograder.notebooks import nbgrader_autograde, sources
from autograder.notebooks import scan as notebook_scan
from autograder.notebooks.scan import Finding, refusal, scan_notebook, scan_source, trusted_sources
from autograder.stubs import code_lines, distinctive_solution_lines
from helpers import SOLUTIONS

pytestmark = pytest.mark.xdist_group("tampering")  # the course is built once, on one worker

INSTALL_TRANSFORMER = "get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])"

# (cell source, line, name found): every construct the scan must flag.
FLAGGED = [
    (INSTALL_TRANSFORMER, 1, "input_transformers_cleanup"),
    ("ip = get_ipython()", 1, "get_ipython"),
    ("ip.input_transformers_post.append(f)", 1, "input_transformers_post"),
    ("ip.input_splitter = None", 1, "input_splitter"),
    ("ip.ast_transformers.append(t)", 1, "ast_transformers"),
    ("ip.register_magic_function(f, 'line', 'x')", 1, "register_magic_function"),
    ("ip.events.register('pre_run_cell', hook)", 1, "events.register"),
    ("ip.showtraceback = lambda *a, **k: None", 1, "showtraceback"),
    ("class Quiet(Exception):\n    def _render_traceback_(self):\n        return []", 2, "def _render_traceback_"),
    ("import sys\nsys.excepthook = hook", 2, "excepthook"),
    ("ip.set_custom_exc((AssertionError,), handler)", 1, "set_custom_exc"),
    ("ip.run_cell('x = 1')", 1, "run_cell"),
    ("ip.run_line_magic('env', 'A=1')", 1, "run_line_magic"),
    ("ip.run_cell_magic('capture', '', 'x')", 1, "run_cell_magic"),
    ("import builtins\nbuiltins.isinstance = lambda *a: True", 1, "import builtins"),
    ("__builtins__.len = lambda x: 0", 1, "__builtins__"),
    ("__builtins__ = {}", 1, "__builtins__"),
    ("def get_ipython():\n    pass", 1, "redefines get_ipython"),
    ("from autograder.grading import checks", 1, "from autograder.grading import checks"),
    ("import autograder.grading.checks as ch\nch.close = print", 2, "ch.close"),
    ("from autograder.reference import load\ncausal_mask = load('masks').causal_mask", 1,
     "from autograder.reference import load"),
    ("torch.allclose = lambda *a, **k: True", 1, "torch.allclose"),
    ("import torch.nn.functional as G\nG.softmax = my_softmax", 2, "G.softmax"),
    ("setattr(torch, 'equal', lambda *a: True)", 1, "setattr(torch, ...)"),
    ("torch.Tensor.__eq__ = lambda a, b: True", 1, "torch.Tensor.__eq__"),
    ("import os\nos._exit(0)", 2, "_exit"),
    ("import sys\nsys.modules['autograder.grading.checks'] = fake", 2, "sys.modules"),
    ("globals = lambda: {}", 1, "redefines globals"),
    ("exec('x = 1')", 1, "exec"),
    ("open('autograder/__init__.py', 'w').write('')", 1, "open(..., write)"),
    ("%load_ext autoreload", 1, "%load_ext"),
    ("%%writefile autograder/grading/checks.py\ndef close(*a): pass", 1, "%%writefile"),
    ("!pip install cheat", 1, "!pip"),
    ("files = !ls", 1, "!ls"),
    ("%timeit -n 1 get_ipython()", 1, "get_ipython"),
    ("%%time\nx = 1\nget_ipython().ast_transformers.clear()", 3, "ast_transformers"),
    ("def broken(:\n    get_ipython().input_transformers_cleanup.append(f)", 2, "input_transformers_cleanup"),
]

HARMLESS = [
    "import torch",
    "torch.manual_seed(0)",
    "%matplotlib inline",
    "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.rcParams['figure.figsize'] = (8, 4)",
    "torch.backends.cudnn.deterministic = True",
    "from IPython.display import Image, display",
    "%%time\nx = torch.randn(3)",
    "%timeit torch.randn(3)",
    "causal_mask?",
    "def helper(x, dim=-1):\n    \"\"\"Not get_ipython, not exec: a docstring.\"\"\"\n"
    "    weights = torch.softmax(x, dim=dim)  # get_ipython in a comment\n    return weights",
    "class Attention(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
    "        self.proj = nn.Linear(d, d)\n\n    def forward(self, x):\n        return self.proj(x)",
    "model = Attention(4).eval()\nx = torch.zeros(3)\nx[0] = 1.0\nF = 3",
    "with open('masked_self_attention.json', encoding='utf-8') as f:\n    table = json.load(f)",
    "import math\nscale = 1 / math.sqrt(64)",
]


@pytest.mark.parametrize("source, line, name", FLAGGED, ids=[name for _, _, name in FLAGGED])
def test_scan_flags_each_construct_with_its_line(source, line, name):
    """Is each way to tamper with the kernel found, named, on its cell and line?"""
    found = scan_source(source, cell=4)
    assert any(f.name == name and f.line == line and f.cell == 4 for f in found), [str(f) for f in found]
    assert all(f.kind in notebook_scan.KINDS for f in found)


@pytest.mark.parametrize("source", HARMLESS)
def test_scan_leaves_honest_code_alone(source):
    """Is ordinary notebook code (imports, seeds, %matplotlib, helpers, models) left unflagged?"""
    assert scan_source(source) == []


def _nb(*cells):
    def cell(spec):
        kind, source, meta = spec if len(spec) == 3 else (*spec, {})
        return {"cell_type": kind, "metadata": {"nbgrader": meta} if meta else {}, "source": source,
                **({"outputs": [], "execution_count": None} if kind == "code" else {})}
    return {"cells": [cell(c) for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_notebook_scan_numbers_cells_and_skips_only_the_cells_the_build_wrote():
    """Are findings numbered by notebook cell, the build's locked cells skipped, and an edited locked cell scanned?"""
    hidden = "### BEGIN HIDDEN TESTS\nimport autograder\nprint(globals())"
    locked = {"grade_id": "t", "grade": True, "locked": True, "solution": False, "points": 1}
    source = _nb(("code", "import torch", {"grade_id": "imports", "locked": True}), ("code", hidden, locked))
    trusted = trusted_sources(source)
    submitted = _nb(
        ("markdown", "get_ipython() in prose is not code"),
        ("code", "import torch\n", {"grade_id": "imports", "locked": True}),
        ("code", "def causal_mask(T):\n    return torch.ones(T, T).tril().bool()"),
        ("code", hidden, locked),
        ("code", "x = 1\ntorch.allclose = lambda *a, **k: True"),
        ("code", hidden + "\nget_ipython().events.register('post_run_cell', f)", locked),
    )
    found = {(f.cell, f.line, f.name) for f in scan_notebook(submitted, trusted)}
    assert {cell for cell, _, _ in found} == {5, 6}
    assert {(5, 2, "torch.allclose"), (6, 2, "import autograder"), (6, 4, "events.register")} <= found
    assert scan_notebook(source, trusted) == []


def test_course_notebooks_scan_clean():
    """Do every assignment's source notebook (solutions included) and student notebook scan clean, in every language?"""
    for assignment in course.ASSIGNMENTS:
        for lang in sources.LANGS:
            if not sources.has_narrative(assignment, lang):
                continue
            nb = json.loads(json.dumps(notebooks.build(assignment, lang)))
            trusted = trusted_sources(nb)
            assert scan_notebook(nb, trusted) == [], (assignment.name, lang)
            student = json.loads(json.dumps(notebooks.student_version(notebooks.build(assignment, lang))))
            assert scan_notebook(student) == [], (assignment.name, lang)


def test_refusal_is_bilingual_and_names_the_most_telling_finding(tmp_path):
    """Does the refusal say, in English and Spanish, which cell and line did what, and is an unreadable file refused?"""
    message = refusal(scan_source(INSTALL_TRANSFORMER, cell=3))
    assert message.startswith(
        "refused: cell 3 line 1 changes how IPython runs later cells (input_transformers_cleanup)")
    assert " / rechazado: la celda 3, línea 1, cambia cómo IPython ejecuta las celdas siguientes" in message
    bad = tmp_path / "a.ipynb"
    bad.write_text("{not json", encoding="utf-8")
    found = notebook_scan.scan_file(bad)
    assert [f.kind for f in found] == ["unreadable"]
    assert refusal(found).startswith("refused: the file is not a notebook")
    assert "rechazado: el archivo" in refusal(found)
    assert refusal([Finding(2, 1, "%load_ext", "magic")]).count("%load_ext") == 2


def _tree(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built_course(tmp_path_factory):
    """A course built once with the real nbgrader CLI (about 20 s); each test grades in a copy."""
    course_dir = tmp_path_factory.mktemp("tampering") / "course"
    built = _cli("nbgrader", "build", "--course", str(course_dir), "--lang", LANG)
    assert built.returncode == 0, built.stdout + built.stderr
    return course_dir


def _a1_course(tmp_path, built_course):
    """A copy of the built course, and a1's notebook: (course folder, the assignment, the
    notebook's file name, the source notebook, the released one)."""
    course_dir = tmp_path / "course"
    shutil.copytree(built_course, course_dir)
    a = course.get("a1_attention")
    name = sources.notebook_name(a)
    source = json.loads((course_dir / "source" / a.name / name).read_text(encoding="utf-8"))
    released = json.loads((course_dir / "release" / a.name / name).read_text(encoding="utf-8"))
    return course_dir, a, name, source, released


def test_autograde_refuses_a_kernel_tampering_notebook(tmp_path, built_course):
    """With the real nbgrader CLI, does a1_attention's notebook whose first cell installs an
    input transformer (every later cell becomes `pass`), with no implementation, score 0 with
    a bilingual "refused" line, note and feedback, while a package handed in beside the
    release scores 0 too and the solution still scores full marks, submitted/ untouched?

    Before the refusal was wired in, when the kernel still graded, the same run graded the
    transformer notebook 15 / 15 and the release with a grader module beside it (one that
    passes everything, importable from the kernel's folder) 4 / 15."""
    course_dir, a, name, source, released = _a1_course(tmp_path, built_course)
    tamper = json.loads(json.dumps(released))
    tamper["cells"].insert(0, {"cell_type": "code", "execution_count": None, "id": "first", "metadata": {},
                               "outputs": [], "source": INSTALL_TRANSFORMER})
    for student, nb in (("tamper", tamper), ("shadow", released), ("solved", source)):
        folder = course_dir / "submitted" / student / a.name
        folder.mkdir(parents=True)
        (folder / name).write_text(json.dumps(nb), encoding="utf-8")
    shadow = course_dir / "submitted" / "shadow" / a.name / "autograder"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("", encoding="utf-8")
    (shadow / "grading").mkdir()
    (shadow / "grading" / "__init__.py").write_text("", encoding="utf-8")
    (shadow / "grading" / "checks.py").write_text("def close(*args):\n    return True\n", encoding="utf-8")
    before = _tree(course_dir / "submitted")

    proc = _cli("nbgrader", "autograde", "--course", str(course_dir), "--seed", SEED)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {r["student_id"]: r for r in nbgrader_autograde.read_grades(course_dir / "grades.csv")
            if r["assignment"] == a.name}
    points = sum(t.points for t in notebooks.grader_tests(a).values())
    # The maximum counts the written answers too; the solution's wait for the instructor.
    total = points + sum(c["metadata"]["nbgrader"]["points"] for c in source["cells"]
                         if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("grade"))
    assert {s: float(r["score"]) for s, r in rows.items()} == {"tamper": 0, "shadow": 0, "solved": points}
    why = "refused: cell 1 line 1 changes how IPython runs later cells (input_transformers_cleanup)"
    assert rows["tamper"]["note"].startswith(why) and "rechazado: la celda 1, línea 1" in rows["tamper"]["note"]
    assert rows["solved"]["note"] == rows["shadow"]["note"] == ""
    line = next(x for x in proc.stdout.splitlines() if x.startswith(f"{a.name}  tamper  "))
    assert line.startswith(f"{a.name}  tamper  0 / {total:g}  {why}") and "rechazado" in line, line
    assert "to grade by hand" not in line  # a refused notebook's answers score 0 as well
    assert f"{a.name}  solved  {points:g} / {total:g}" in proc.stdout
    assert "submitted/tamper/a1_attention/a1_attention.ipynb:cell 1:line 1: input_transformers_cleanup" in proc.stdout
    assert "not given to the kernel: autograder/" in proc.stdout
    assert _tree(course_dir / "submitted") == before
    assert not (course_dir / nbgrader_autograde.STAGING).exists()

    page = release.readable_text(course_dir / "feedback" / "tamper" / a.name / name.replace(".ipynb", ".html"))
    assert "NO SUPERADO: 0 / 1" in page and "rechazado: la celda 1" in page
    import nbformat

    hidden = notebooks.hidden_sources(nbformat.read(course_dir / "source" / a.name / name, as_version=4))
    assert hidden and not [h for h in hidden if h in page]
    code = code_lines(TRACEBACK_LINE.sub("", page))
    assert not [s for s in distinctive_solution_lines(SOLUTIONS) if s in code]


# Both pass the static scan: only grading outside the kernel stops them.
GRADEBOOK_WRITE = """import pathlib, sqlite3
for base in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents][:7]:
    if (base / "gradebook.db").is_file():
        con = sqlite3.connect(base / "gradebook.db")
        con.execute("UPDATE grade SET auto_score = 99, manual_score = 99, extra_credit = 99")
        con.commit()
"""
PRINT_GRADER = "print(open({!r} + 'auto' + {!r}).read())"
ALWAYS_EQUAL = """class _Yes:
    def __eq__(self, other):
        return True

    def __getattr__(self, name):
        return lambda *args, **kwargs: self


def scaled_dot_product_attention(q, k, v, mask=None):
    return _Yes(), _Yes()
"""
REFERENCE_FROM_DISK = """def scaled_dot_product_attention(q, k, v, mask=None):
    import importlib.util
    spec = importlib.util.spec_from_file_location("reference", {path!r})
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scaled_dot_product_attention(q, k, v, mask)
"""
STUBBORN_LOOP = """import time
while True:
    try:
        time.sleep(0.1)
    except BaseException:  # an interrupt from nbgrader, too
        pass
"""
# (student, where, code): "cell" adds a cell after the imports, "attention" replaces the
# cell of scaled_dot_product_attention. Each is the honest twin plus the trick.
TRICKS = [
    ("patch_allclose", "cell", "import torch\ntorch.allclose = lambda *args, **kwargs: True"),
    ("excepthook", "cell", "import sys\nsys.excepthook = lambda *args: None"),
    ("always_equal", "attention", ALWAYS_EQUAL),
    ("gradebook", "cell", GRADEBOOK_WRITE),
    ("exit", "cell", "import os\nos._exit(0)"),
    ("loop", "cell", "while True:\n    pass"),
    ("stubborn_loop", "cell", STUBBORN_LOOP),
    ("read_reference", "attention", REFERENCE_FROM_DISK.format(path=str(SOLUTIONS / "a1_attention" / "attention.py"))),
    ("print_grader", "cell", PRINT_GRADER.format(str(course.PACKAGE_DIR.parent) + "/",
                                                 "grader/graders/a1_attention/test_attention.py")),
]


@pytest.mark.full_only  # the fast tier: the kernel-tampering refusal above, and the scans' unit tests
def test_tampering_notebooks_gain_nothing(tmp_path, built_course):
    """With the real nbgrader CLI, does each tampering notebook (a patched torch.allclose, a
    silenced excepthook, results equal to anything, a cell that sets every grade in the
    gradebook to 99, os._exit, an endless loop, one that ignores interrupts, the reference
    loaded from disk, a grader printed) score no
    more than its honest twin, leave every other student's grade alone, and show no hidden
    line in its feedback?"""
    from autograder.notebooks import sandboxed

    course_dir, a, name, source, released = _a1_course(tmp_path, built_course)
    by_id = {c["metadata"]["nbgrader"]["grade_id"]: c for c in source["cells"]}
    honest = json.loads(json.dumps(released))
    for cell in honest["cells"]:  # the masks solved, the attention left undone
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if grade_id.startswith("code-masks-"):
            cell["source"] = by_id[grade_id]["source"]
    submissions = {"solved": source, "honest": honest}
    for student, where, code in TRICKS:
        nb = json.loads(json.dumps(honest))
        if where == "cell":
            nb["cells"].insert(2, {"cell_type": "code", "execution_count": None, "id": f"trick-{student}",
                                   "metadata": {}, "outputs": [], "source": code})
        else:
            cell = next(c for c in nb["cells"]
                        if c["metadata"].get("nbgrader", {}).get("grade_id")
                        == "code-attention-scaled_dot_product_attention")
            cell["source"] = code
        submissions[student] = nb
    for student, nb in submissions.items():
        folder = course_dir / "submitted" / student / a.name
        folder.mkdir(parents=True)
        (folder / name).write_text(json.dumps(nb), encoding="utf-8")

    proc = _cli("nbgrader", "autograde", "--course", str(course_dir), "--seed", SEED, "--cell-timeout", "5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    scores = {r["student_id"]: float(r["score"]) for r in nbgrader_autograde.read_grades(course_dir / "grades.csv")
              if r["assignment"] == a.name}
    points = sum(t.points for t in notebooks.grader_tests(a).values())
    print({s: scores[s] for s in submissions})
    assert scores["solved"] == points and 0 < scores["honest"] < points
    for student, _, _ in TRICKS:
        assert scores[student] <= scores["honest"], (student, scores)
    # A cell that outlasts --cell-timeout and ignores the interrupt holds up nobody else: that
    # notebook is shown without running it, and graded in the sandbox like the others.
    assert scores["stubborn_loop"] == scores["honest"]
    assert f"{a.name}  stubborn_loop: the notebook did not finish in nbgrader's kernel" in proc.stdout
    notes = {r["student_id"]: r["note"] for r in nbgrader_autograde.read_grades(course_dir / "grades.csv")
             if r["assignment"] == a.name}
    assert "did not finish in nbgrader's kernel" in notes["stubborn_loop"] and "no terminó" in notes["stubborn_loop"]
    assert notes["honest"] == ""
    if "loop" in submissions:  # interrupted in time: graded like its honest twin, with nothing to note
        assert scores["loop"] == scores["honest"] and notes["loop"] == ""
    if "print_grader" in submissions:  # the kernel did print the grader; the feedback lost that output
        assert f"{a.name}  print_grader: outputs that quoted hidden course material were removed" in proc.stdout
    hidden = sandboxed.hidden_lines()
    for student in submissions:
        page = course_dir / "feedback" / student / a.name / name.replace(".ipynb", ".html")
        text = release.readable_text(page)
        own = "\n".join("".join(c["source"]) for c in submissions[student]["cells"])  # shown as written
        assert not [line for line in hidden if line in text and line not in own], student
