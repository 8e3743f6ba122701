"""The class report (autograder/classreport): figures from graded results, the code
similarity check, and the page a real browser shows after `grade-class`."""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import classreport, course
from autograder.classreport import figures, similarity
from autograder.grading import reports
from autograder.intake.sources import read_modules
from helpers import ASSIGNMENTS, ROOT, SOLUTIONS, make_submission
from mutants import load

A1 = "a1_attention"
CORRECT = ROOT / "tests" / "correct_submissions"
SCALING = "the scores are not divided by √d_k"


def _test(assignment, name, score, max_score=1, output=""):
    return {"name": f"{assignment} · {name}", "score": score, "max_score": max_score,
            "status": "passed" if score == max_score else "failed", "output": output,
            "extra_data": {"assignment": assignment}}


def _results(tests, seed=7):
    return {"score": sum(t["score"] for t in tests), "tests": tests,
            "extra_data": {"seed": seed, "max_score": sum(t["max_score"] for t in tests)}}


def _likely(en, es):
    return f"wrong values\n{reports.LIKELY_EN}{en}\nvalores erróneos\n{reports.LIKELY_ES}{es}"


def _class(tmp_path):
    """Four students' results.json as grade-class writes them."""
    scaling = _likely(SCALING, "las puntuaciones no se dividen por √d_k")
    rows = {
        "ana": [_test(A1, "Does it scale?", 0, output=scaling), _test(A1, "Is it causal?", 2, 2)],
        "ben": [_test(A1, "Does it scale?", 0, output=scaling), _test(A1, "Is it causal?", 0, 2,
                output="masked_self_attention did not finish within 10 s (an infinite loop?)")],
        "<carl>": [_test(A1, "Does it scale?", 1), _test(A1, "Is it causal?", 2, 2)],
        "dina": [_test(A1, "Does it scale?", 1), _test(A1, "Is it causal?", 0, 2,
                 output="x exceeded the memory limit (4 GiB)")],
    }
    for name, tests in rows.items():
        (tmp_path / name).mkdir()
        reports.write_json(tmp_path / name / "results.json", _results(tests))
    return figures.from_results(tmp_path)


def test_figures_from_results(tmp_path):
    """Are the mean, median, histogram, per-test share lost, top diagnosis and notes those
    of the results read?"""
    data = figures.compute(_class(tmp_path), [A1])
    a = data["assignments"][0]
    assert (a["graded"], a["max_score"], a["mean"], a["median"]) == (4, 3, 1.5, 1.5)
    assert sum(b["count"] for b in a["histogram"]) == 4 and a["histogram"][-1]["count"] == 1  # a full 3/3
    lost = {t["name"]: t["share_lost"] for t in a["tests"]}
    assert lost == {"Does it scale?": 0.5, "Is it causal?": 0.5}
    top = data["diagnoses"][0]
    assert (top["en"], top["count"], top["students"]) == (SCALING, 2, ["ana", "ben"])
    assert top["es"].startswith("las puntuaciones")
    notes = {s["name"]: s["notes"] for s in data["students"]}
    assert notes["ben"] == ["timed out / tiempo agotado"] and notes["dina"] == ["memory / memoria"]


def test_one_mistake_counted_on_inputs_of_other_sizes_is_one_row(tmp_path):
    """Do diagnoses that differ only in their numbers ("114 values ...", "126 values ...",
    the same mistake on other inputs) make one row with every student, while diagnoses whose
    words differ (norm2 against norm3) stay two rows?"""
    def zeros(n, m):
        return _likely(f"{n} values differ; {m} values that must be exactly 0 are not",
                       f"{n} valores difieren; {m} valores que deben ser exactamente 0 no lo son")

    rows = {"ana": zeros(114, 16), "ben": zeros(126, 16), "cris": zeros(16, 3),
            "dani": _likely("self.norm2 is called where the reference calls self.norm3", "norm2 en vez de norm3"),
            "eva": _likely("self.norm1 is called where the reference calls self.norm3", "norm1 en vez de norm3")}
    for name, output in rows.items():
        (tmp_path / name).mkdir()
        reports.write_json(tmp_path / name / "results.json", _results([_test(A1, "Does it mask?", 0, output=output)]))
    data = figures.compute(figures.from_results(tmp_path), [A1])
    assert [d["count"] for d in data["diagnoses"]] == [3, 1, 1], data["diagnoses"]
    assert data["diagnoses"][0]["students"] == ["ana", "ben", "cris"]


@pytest.mark.parametrize("lang", ["en", "es", "both"])
def test_page_is_self_contained_and_escaped(tmp_path, lang):
    """Does the page fetch nothing, escape a student's name, and speak --lang?"""
    written = classreport.write(tmp_path, _class(tmp_path), [A1], lang=lang, run={"seed": 7})
    html = written[0].read_text(encoding="utf-8")
    assert "<carl>" not in html and "&lt;carl&gt;" in html
    assert "http://" not in html and "https://" not in html and "<script src" not in html
    assert ("Most common mistake" in html) == (lang != "es") and ("Error más común" in html) == (lang != "en")
    data = json.loads(written[1].read_text(encoding="utf-8"))
    assert data["diagnoses"][0]["count"] == 2 and data["run"]["seed"] == 7


def disguise(source: str) -> str:
    """``source`` with every local variable renamed and the top-level functions in reverse
    order (comments dropped, layout redone by ast.unparse): what a student who copies and
    tries to hide it does. Function names and parameters stay, so it still runs."""
    tree = ast.parse(source)
    for fn in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - params
        renamed = {name: f"my_{name[::-1]}_{i}" for i, name in enumerate(sorted(local))}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id in renamed:
                node.id = renamed[node.id]
    slots = [i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef)]
    functions = [tree.body[i] for i in slots][::-1]
    for i, fn in zip(slots, functions):
        tree.body[i] = fn
    return ast.unparse(tree) + "\n"


def test_renamed_and_reordered_copy_is_flagged():
    """Is a copy with renamed variables and reordered functions flagged, in every assignment?"""
    for a in course.ASSIGNMENTS:
        original = read_modules(CORRECT / "einsum", [a.name])[a.name]
        copied = {m: disguise(code) for m, code in original.items()}
        assert copied != original
        pairs = similarity.compare({"einsum": original, "copier": copied}, a.name)
        assert [(p.a, p.b) for p in pairs] == [("copier", "einsum")], a.name
        assert pairs[0].similarity >= similarity.THRESHOLD
        left, right = pairs[0].view()
        assert "<mark>" in left and "<mark>" in right


def test_independent_correct_submissions_are_not_flagged():
    """Are two independently written correct submissions left alone, and the
    stubs (handed back untouched by two students) never a match?"""
    names = [a.name for a in course.ASSIGNMENTS]
    sources = {n: read_modules(CORRECT / n, names) for n in ("einsum", "functional")}
    sources |= {f"stub{i}": read_modules(ASSIGNMENTS, names) for i in (1, 2)}
    assert similarity.compare_class(sources, names) == []


def _browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def render(page: Path, png: Path | None = None, size: str = "1280,3000") -> str:
    """The DOM of ``page`` after headless Chromium ran it (and its screenshot in ``png``)."""
    flags = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", f"--user-data-dir={page.parent / '.chromium-profile'}", f"--window-size={size}"]
    if png is not None:
        subprocess.run([*flags, f"--screenshot={png}", page.resolve().as_uri()], check=True, capture_output=True,
                       timeout=120)
    proc = subprocess.run([*flags, "--dump-dom", page.resolve().as_uri()], check=True, capture_output=True,
                          text=True, timeout=120)
    return proc.stdout


def make_class(folder: Path) -> None:
    """Nine students of a1: the solution, the stubs, three classic mistakes (two of them the
    missing √d_k), two correct submissions, a disguised copy of one of them, a hostile name."""
    folder.mkdir()
    mutants = load()
    make_submission(folder / "sol", base=SOLUTIONS)
    shutil.copytree(ASSIGNMENTS, folder / "stubs", ignore=shutil.ignore_patterns("__pycache__"))
    for student, mistake in (("mia", "no 1/sqrt(d_k) scaling"), ("noah", "no 1/sqrt(d_k) scaling"),
                             ("olga", "softmax over the queries (dim=-2)")):
        m = mutants[(A1, mistake)]
        make_submission(folder / student, {f"{A1}/{m.module}": m.edits})
    for student, source in (("einsum", "einsum"), ("functional", "functional"), ("x<b>&y", "annotated")):
        shutil.copytree(CORRECT / source / A1, folder / student / A1)
    (folder / "zoe" / A1).mkdir(parents=True)
    for path in sorted((CORRECT / "einsum" / A1).glob("*.py")):
        (folder / "zoe" / A1 / path.name).write_text(disguise(path.read_text(encoding="utf-8")), encoding="utf-8")


@pytest.mark.full_only  # the fast tier: the page's content, above, and grade-class in test_grade_class.py
@pytest.mark.xdist_group("grade_class")
def test_grade_class_report_in_a_browser(tmp_path):
    """After `grade-class`, does Chromium show the plots with bars, the missing √d_k as the
    top mistake with its count (2), and the disguised copy flagged, its view side by side?"""
    if _browser() is None:
        pytest.skip("no Chromium found; install it (Debian: apt-get install chromium)")
    make_class(tmp_path / "class")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-class", str(tmp_path / "class"), "--out",
                           str(out), "--only", A1, "--seed", "3", "--jobs", "2"], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "class-report.html" in proc.stdout
    dom = render(out / "class-report.html", tmp_path / "report.png")
    assert (tmp_path / "report.png").stat().st_size > 10_000
    assert dom.count('<svg class="hist"') == 1 and dom.count('<rect class="bar"') == 10
    top = dom.split('<tr class="diagnosis">')[1]
    assert "√d_k" in top and 'data-v="2"' in top and "mia" in top and "noah" in top
    assert "Most common mistake" in dom and "Error más común" in dom
    pairs = [row.split("</tr>")[0] for row in dom.split('<tr class="pair">')[1:]]
    assert any("einsum" in row and "zoe" in row for row in pairs), pairs
    assert not any("functional" in row for row in pairs)
    assert "<mark>" in dom and "x&lt;b&gt;&amp;y" in dom and 'href="sol/summary.md"' in dom


def test_nbgrader_report_from_sandbox_results(tmp_path):
    """Does `nbgrader autograde`'s report count a refused notebook as 0, link each student's
    feedback page and carry the notes, from the sandbox's results alone?"""
    from autograder.notebooks import nbgrader_autograde

    scaling = _likely(SCALING, "las puntuaciones no se dividen por √d_k")
    code = {"attention.py": (SOLUTIONS / A1 / "attention.py").read_text(encoding="utf-8")}
    graded = {A1: {"ana": (_results([_test(A1, "Does it scale?", 0, output=scaling)]), code),
                   "ben": (_results([_test(A1, "Does it scale?", 1)]), code)}}
    written = nbgrader_autograde.class_report(tmp_path, graded, {(A1, "ben"): "refused: a patched torch"},
                                              {A1: {"ben": "refused: a patched torch"}}, {"seed": 7}, "en", print)
    data = json.loads(written[1].read_text(encoding="utf-8"))
    rows = {s["name"]: s for s in data["students"]}
    assert rows["ben"]["scores"][A1] == 0 and rows["ben"]["notes"] == [f"{A1}: refused: a patched torch"]
    assert rows["ana"]["feedback"] == f"feedback/ana/{A1}/{A1}.html"
    assert data["diagnoses"][0]["students"] == ["ana"] and data["similarity"]["pairs"] == []
