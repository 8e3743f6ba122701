"""The students' self-check in the released notebooks (autograder/notebooks/selfcheck.py):
``check("masks")`` runs the public tests of one module on the notebook's code, in its kernel."""

import ast
import re

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import course
from autograder.authoring import release
from autograder.notebooks import build as notebooks
from autograder.notebooks import selfcheck, sources
from autograder.notebooks.files import notebook_files, public_tests
from helpers import SOLUTIONS

pytestmark = pytest.mark.xdist_group("notebooks")

NARRATED = [a for a in course.ASSIGNMENTS if sources.has_narrative(a, "en")]


def _defined(cell) -> set[str]:
    names = set()
    for node in ast.parse(cell.source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


@pytest.mark.parametrize("lang", sources.LANGS)
def test_each_public_test_file_has_one_check_cell_after_what_it_imports(lang):
    """Is there one locked check("<module>") cell per public test file, after every cell that
    defines a name those tests import?"""
    for a in NARRATED:
        nb = notebooks.build(a, lang)
        cells = [c for c in nb.cells if c.cell_type == "code"]
        checks = {c.id: i for i, c in enumerate(cells) if c.id.startswith("check-")}
        public = public_tests(a)
        assert set(checks) == {"check-" + n.removeprefix("test_").removesuffix(".py") for n in public}, a.name
        for name, source in public.items():
            module = name.removeprefix("test_").removesuffix(".py")
            position = checks[f"check-{module}"]
            cell = cells[position]
            assert cell.metadata["nbgrader"]["locked"] and not cell.metadata["nbgrader"]["grade"]
            assert "    from selfcheck import check\n" in cell.source
            assert cell.source.endswith(f"\n    check({module!r})")
            imported = {alias.name for node in ast.parse(source).body if isinstance(node, ast.ImportFrom)
                        and node.module in course.module_owners() for alias in node.names}
            later = set().union(*(_defined(c) for c in cells[position + 1:] if "check(" not in c.source))
            assert not imported & later, f"{a.name} {lang}: check({module!r}) comes before {imported & later}"


def test_the_files_beside_a_notebook_are_public():
    """Are selfcheck.py and public_tests/ exactly the released public tests, with the course's
    module names filled in and nothing the release scan would refuse?"""
    for a in NARRATED:
        files = notebook_files(a)
        tests = {p.name: data.decode() for p, data in files.items() if p.parent.name == "public_tests"
                 and p.suffix == ".py"}
        assert tests == public_tests(a) and tests
        released = (course.course_root() / "assignments" / a.name)
        assert all((released / name).read_text(encoding="utf-8") == text for name, text in tests.items())
        text = files[selfcheck.Path("selfcheck.py")].decode()
        modules = ast.literal_eval(re.search(r"^COURSE_MODULES: tuple\[str, \.\.\.\] = (\(.*?\))", text,
                                             re.MULTILINE).group(1))
        assert set(modules) == set(course.module_owners())


def _student_notebook(tmp_path):
    """The released a1 notebook (English) with causal_mask solved, padding_mask wrong and
    target_mask left as released, plus cells a curious student adds."""
    a1 = course.get("a1_attention")
    nb = notebooks.student_version(notebooks.build(a1, "en"))
    by_id = {c.id: c for c in nb.cells}
    by_id["code-masks-causal_mask"].source = (
        "def causal_mask(T, device=None):\n"
        "    return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))")
    by_id["code-masks-padding_mask"].source = (
        "def padding_mask(tokens, pad_id):\n"
        "    return (tokens != pad_id)[:, None, :]  # one dimension short")
    extra = ["check('masks')",
             "def padding_mask(tokens, pad_id):\n    return (tokens != pad_id)[:, None, None, :]\n\ncheck('masks')",
             "check('nothing')",
             "check()"]
    nb.cells += [nbformat.v4.new_code_cell(source) for source in extra]
    for rel, data in notebook_files(a1).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def _printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def _verdicts(text: str) -> dict[str, bool]:
    return {m.group(2): m.group(1) == "PASSED" for m in re.finditer(r"[✓✗] (PASSED|FAILED) .*?(test_\w+)", text)}


def test_a_student_sees_one_bilingual_line_per_public_check(tmp_path):
    """Does check("masks") in a released notebook pass the solved mask, fail the wrong and the
    missing ones with their reason in both languages, see a redefinition, and name unknown checks?"""
    nb = _student_notebook(tmp_path)
    cells = {c.id: c for c in nb.cells}
    first = _printed(cells["check-masks"])
    assert "Public checks: masks / Comprobaciones públicas: masks" in first
    assert _verdicts(first) == {"test_causal_mask_is_lower_triangular": True,
                                "test_padding_mask_shape_and_values": False,
                                "test_padding_mask_uses_the_given_pad_id": True,  # its values, whatever the shape
                                "test_padding_mask_hides_pads_wherever_they_are": True,  # the same
                                "test_target_mask_combines_padding_and_causality": False,
                                "test_target_mask_uses_the_given_pad_id": False}
    assert "✓ PASSED / SUPERADO" in first and "✗ FAILED / NO SUPERADO" in first
    reason = next(line for line in first.splitlines() if "→" in line and "padding_mask" in line)
    assert "(2, 1, 1, 4)" in reason and "got (2, 1, 4)" in reason and "pero tiene (2, 1, 4)" in reason, reason
    assert "not implemented yet: target_mask / aún sin implementar: target_mask" in first
    assert "3/6 passed / superadas" in first and "your grade comes from hidden tests" in first
    again, fixed, unknown, everything = [_printed(c) for c in nb.cells[-4:]]
    assert again == first  # the checks run afresh, not from pytest's module cache
    assert _verdicts(fixed)["test_padding_mask_shape_and_values"] and "4/6 passed" in fixed
    error = next(o for o in nb.cells[-2].outputs if o.output_type == "error")
    assert error.ename == "ValueError" and "'attention', 'masks'" in error.evalue
    assert "no hay comprobaciones llamadas 'nothing'" in error.evalue
    public = sum(len(re.findall(r"^def test_", path.read_text(encoding="utf-8"), re.M))
                 for path in (SOLUTIONS / "a1_attention").glob("test_*.py"))  # every a1 public test
    assert len(_verdicts(everything)) == public >= 18 and "Comprobaciones públicas: all / todas" in everything
    checks = [c for c in nb.cells if c.cell_type == "code" and "check(" in c.source and c is not nb.cells[-2]]
    assert len(checks) == 5 and not any(o.output_type == "error" for c in checks for o in c.outputs)


def test_a_release_passes_its_own_scan_with_the_self_check(tmp_path):
    """Does the student release hold selfcheck.py and public_tests/ next to every notebook and
    still pass the scan for hidden material?"""
    out = tmp_path / "release"
    release.build(out, lang="en")
    for a in NARRATED:
        folder = out / "notebooks" / a.name
        assert (folder / "selfcheck.py").is_file() and sorted(p.name for p in (folder / "public_tests").iterdir())
    assert release.scan(out) == []


def test_grading_kernels_skip_the_checks(monkeypatch, capsys):
    """Does check() run nothing when the autograder set COURSE_SELFCHECK=off in the kernel?"""
    monkeypatch.setenv(selfcheck.SKIP_VARIABLE, "off")
    selfcheck.check("masks", {})
    assert "skipped while grading" in capsys.readouterr().out


def test_a_check_that_replaces_a_name_reaches_the_notebooks_namespace():
    """When a check replaces ``decoding.decode`` (pytest's monkeypatch), does the notebook's own
    ``translate``, which shares one namespace with ``decode``, call the replacement, and is the
    original back afterwards?"""
    namespace = {"decode": lambda: "real"}
    exec("def translate():\n    return decode()", namespace)
    module = selfcheck._NotebookModule("decoding", namespace)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "decode", lambda: "spy")
        assert namespace["translate"]() == "spy"
    assert namespace["translate"]() == "real" and module.decode is namespace["decode"]
    assert module.__name__ == "decoding" and isinstance(module.undefined, selfcheck._Missing)
