"""The bilingual notebooks generated from the single source (autograder/notebooks/build.py) and
their hidden test cells, which name the grader whose sandbox verdict they get."""

import importlib
import json
import re

import nbformat
import pytest
from nbclient import NotebookClient

import helpers
from autograder import course
from autograder.authoring import release
from autograder.markers import BEGIN_HIDDEN, BEGIN_SOLUTION
from autograder.notebooks import build as notebooks
from autograder.notebooks import files, sources
from autograder.stubs import distinctive_solution_lines, solution_texts
from helpers import SOLUTIONS

pytestmark = pytest.mark.xdist_group("notebooks")  # one worker builds its costly fixture (conftest.py)

NARRATED = [a for a in course.ASSIGNMENTS if any(sources.has_narrative(a, lang) for lang in sources.LANGS)]
CASES = [(a, lang) for a in NARRATED for lang in sources.LANGS]
HIDDEN_CALL = re.compile(r"^# (\S+::\w+): graded in the sandbox", re.MULTILINE)


def _id(case):
    return f"{case[0].name}-{case[1]}" if isinstance(case, tuple) else None


@pytest.fixture(scope="module")
def built():
    return {(a.name, lang): notebooks.build(a, lang) for a, lang in CASES}


def _cells(nb, kind):
    return [c for c in nb.cells if c.cell_type == "code" and c.metadata["nbgrader"][kind]]


def test_assignments_one_to_five_have_both_narratives():
    """Do a1-a5 have a narrative in Spanish and in English, and every narrated assignment both?"""
    names = {a.name for a in NARRATED}
    assert {"a1_attention", "a2_layernorm", "a3_blocks", "a4_transformer", "a5_decoding"} <= names
    for a in NARRATED:
        for lang in sources.LANGS:
            assert sources.has_narrative(a, lang), f"{a.name} has no notebook.{lang}.md"


def test_every_narrative_builds_into_a_valid_nbgrader_source_notebook(built):
    """Does every narrative build, with nbgrader metadata on every cell and unique, stable ids?"""
    from nbgrader.nbgraderformat import MetadataValidator

    for (name, lang), nb in built.items():
        nbformat.validate(nb)
        MetadataValidator().validate_nb(nb)
        ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells]
        assert len(ids) == len(set(ids)), f"{name} {lang}: duplicate grade ids"
        assert [c.id for c in nb.cells] == [re.sub(r"[^A-Za-z0-9_-]", "-", i)[:64] for i in ids]
        assert nb.metadata["kernelspec"]["name"] == "python3"
        again = notebooks.build(course.get(name), lang)
        assert nbformat.writes(again) == nbformat.writes(nb), f"{name} {lang}: two builds differ"


def test_both_languages_have_the_same_code(built):
    """Are the code cells of the Spanish and English notebooks the same cells, with the same solution code?"""
    for a in NARRATED:
        es, en = built[(a.name, "es")], built[(a.name, "en")]
        code_ids = [[c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.cell_type == "code" and
                     not c.metadata["nbgrader"]["grade_id"].startswith("given")] for nb in (es, en)]
        assert code_ids[0] == code_ids[1], a.name
        # Prerequisite cells start with a comment line in the notebook's language.
        code = [[c.source.split("\n", 1)[1] if c.id.startswith("prereq-") else c.source for c in _cells(nb, "solution")]
                for nb in (es, en)]
        assert code[0] == code[1], a.name


def test_every_solution_region_is_in_its_notebook(built):
    """Does every solution region of the assignment's modules appear, whole, in a solution cell?"""
    for (name, lang), nb in built.items():
        cells = "\n".join(c.source for c in _cells(nb, "solution"))
        for module in course.get(name).modules:
            path = SOLUTIONS / name / f"{module}.py"
            for region in solution_texts(path.read_text(encoding="utf-8"), str(path)):
                assert f"{BEGIN_SOLUTION}\n{region}\n" in cells, f"{name} {lang}: a region of {module}.py is missing"
        for cell in nb.cells:
            meta = cell.metadata["nbgrader"]
            assert (BEGIN_SOLUTION in cell.source) == meta["solution"], meta["grade_id"]
            # A grade cell is a hidden test, or a written answer (Markdown) graded by hand.
            assert (BEGIN_HIDDEN in cell.source) == (meta["grade"] and cell.cell_type == "code"), meta["grade_id"]


def test_hidden_cells_call_every_grader_once_for_its_points(built):
    """Is every hidden grader test called by exactly one hidden cell, worth the grader's points?"""
    for (name, lang), nb in built.items():
        cells = {}
        for cell in _cells(nb, "grade"):
            calls = HIDDEN_CALL.findall(cell.source)
            assert len(calls) == 1 and calls[0] not in cells, cell.source
            cells[calls[0]] = cell.metadata["nbgrader"]["points"]
        graders = {}
        for path in sorted((course.GRADERS_DIR / name).glob("test_*.py")):
            module = importlib.import_module(f"autograder.graders.{name}.{path.stem}")
            for attr, fn in vars(module).items():
                if attr.startswith("test_") and callable(fn):
                    marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "points"]
                    graders[f"{name}/{path.name}::{attr}"] = float(marks[0].args[0])
        assert cells == graders, f"{name} {lang}"


def test_student_notebooks_hold_no_solution_and_no_hidden_test(built, tmp_path):
    """Do the student versions pass the release leak scan (no markers, solution code, model
    answers, autograder import), where the source notebooks (model answers included) do not?"""
    for (name, lang), nb in built.items():
        notebooks.write(notebooks.student_version(nb), tmp_path / f"{name}.{lang}.ipynb")
    assert release.scan(tmp_path) == []
    text = "\n".join(release.readable_text(p) for p in tmp_path.iterdir())
    assert notebooks.SANDBOX_NOTE not in text and len(distinctive_solution_lines(SOLUTIONS)) > 20
    source = tmp_path / "source"
    source.mkdir()
    answer = next(c for c in built[("a1_attention", "en")].cells if c.id == "answer-softmax-axis")
    (source / "answer.md").write_text(answer.source.replace(BEGIN_SOLUTION, "").replace("### END SOLUTION", ""),
                                      encoding="utf-8")
    assert [p for p in release.scan(source) if "model answer" in p], "the scan must see a model answer"


def test_bad_narratives_are_errors_with_a_line(tmp_path):
    """Do an unknown directive, an unknown or repeated grader and a missing grader name the problem?"""
    a1 = course.get("a1_attention")
    good = sources.narrative_path(a1, "en").read_text(encoding="utf-8")
    cases = {
        "<!-- codes: masks.causal_mask -->": "unknown directive 'codes'",
        "<!-- hidden: a1_attention/test_masks.py::test_nothing -->": "no hidden grader",
        "<!-- hidden: a1_attention/test_masks.py::test_causal_mask -->": "already used at line",
        "<!-- code: masks.nothing -->": "defines no 'nothing'",
        "<!-- module: layernorm -->": "not a module of a1_attention",
    }
    for line, message in cases.items():
        builder = notebooks._Builder(a1, "en", tmp_path / "notebook.en.md")
        with pytest.raises(sources.NotebookError, match=message):
            builder.parse(good + "\n" + line + "\n")
    builder = notebooks._Builder(a1, "en", tmp_path / "notebook.en.md")
    with pytest.raises(sources.NotebookError, match="test_gradients"):
        builder.parse(good.replace("<!-- hidden: a1_attention/test_attention.py::test_gradients -->", ""))


def _answer_narrative(lines: str) -> str:
    return sources.narrative_path(course.get("a1_attention"), "en").read_text(encoding="utf-8") + "\n" + lines


def test_answer_directive_makes_an_nbgrader_manually_graded_answer(tmp_path):
    """Does `<!-- answer: name N points -->` with a model answer give a locked question
    cell ending with the points and nbgrader's "manually graded answer" (a Markdown cell:
    solution, grade, unlocked, its points) holding the model answer, released by nbgrader's
    own ClearSolutions and by the student version as `YOUR ANSWER HERE`?"""
    from nbgrader.nbgraderformat import MetadataValidator
    from nbgrader.preprocessors import ClearSolutions

    a1 = course.get("a1_attention")
    builder = notebooks._Builder(a1, "en", tmp_path / "notebook.en.md")
    builder.parse(_answer_narrative("Why is the sky blue?\n\n<!-- answer: sky 2 points -->\n\n"
                                    "### BEGIN SOLUTION\nRayleigh scattering.\n### END SOLUTION\n\nAfter.\n"))
    cells = {c.id: c for c in builder.cells}
    answer = cells["answer-sky"]
    assert answer.cell_type == "markdown"
    assert answer.metadata["nbgrader"] == {"grade": True, "grade_id": "answer-sky", "locked": False, "points": 2,
                                           "schema_version": 3, "solution": True, "task": False}
    assert answer.source == "### BEGIN SOLUTION\nRayleigh scattering.\n### END SOLUTION"
    position = builder.cells.index(answer)
    question, after = builder.cells[position - 1], builder.cells[position + 1]
    assert question.source.startswith("Why is the sky blue?") and question.metadata["nbgrader"]["locked"]
    assert question.source.endswith("*Answer in the next cell (2 points; your instructor grades it by hand).*")
    assert after.source == "After."
    nb = nbformat.v4.new_notebook(cells=[c for c in builder.cells if not isinstance(c, tuple)],
                                  metadata={"kernelspec": notebooks.KERNELSPEC})
    MetadataValidator().validate_nb(nb)
    released, _ = ClearSolutions().preprocess(nbformat.reads(nbformat.writes(nb), as_version=4), {})
    assert next(c for c in released.cells if c.id == "answer-sky").source == "YOUR ANSWER HERE"
    assert notebooks.student_version(nb).cells[position].source == "YOUR ANSWER HERE"
    assert notebooks.clear_answer("Intro\n### BEGIN SOLUTION\nx\n### END SOLUTION") == "Intro\nYOUR ANSWER HERE"
    es = notebooks._Builder(a1, "es", tmp_path / "notebook.es.md")
    es.parse(_answer_narrative("<!-- answer: sky 1 punto -->\n### BEGIN SOLUTION\nx\n### END SOLUTION\n"))
    assert "(1 punto; la corrige a mano tu docente)" in es.cells[-2].source


@pytest.mark.parametrize("lines, message", [
    ("<!-- answer: 2 points -->\n### BEGIN SOLUTION\nx\n### END SOLUTION", "write <!-- answer: name N points"),
    ("<!-- answer: sky 0 points -->\n### BEGIN SOLUTION\nx\n### END SOLUTION", "write <!-- answer: name N points"),
    ("<!-- answer: sky 1 point -->\nThe question after.", "the model answer must follow"),
    ("<!-- answer: sky 1 point -->\n### BEGIN SOLUTION\nx", "never closed"),
    ("<!-- answer: sky 1 point -->\n### BEGIN SOLUTION\n\n### END SOLUTION", "model answer is empty"),
    ("<!-- answer: sky 1 point -->\n### BEGIN SOLUTION\nx\n### END SOLUTION\n"
     "<!-- answer: sky 1 point -->\n### BEGIN SOLUTION\ny\n### END SOLUTION", "'answer-sky' appears twice"),
    ("Prose with\n### BEGIN SOLUTION\nx\n### END SOLUTION", "solution marker outside an answer"),
], ids=["no-name", "no-points", "no-region", "unclosed", "empty", "twice", "stray-marker"])
def test_bad_answer_directives_are_errors_with_a_line(lines, message, tmp_path):
    """Does a malformed answer (no name or points, no or an unclosed or empty model answer,
    a repeated name, a solution marker outside an answer) name the problem?"""
    builder = notebooks._Builder(course.get("a1_attention"), "en", tmp_path / "notebook.en.md")
    with pytest.raises(sources.NotebookError, match=re.escape(message)):
        builder.parse(_answer_narrative(lines + "\n"))


def test_written_answers_match_across_languages_and_have_code_checks(built):
    """Do both languages ask the same written questions (names, points, order), a1 two and a3
    three, each with a locked code cell the student runs shortly before it?"""
    for a in NARRATED:
        answers = [[(c.id, c.metadata["nbgrader"]["points"]) for c in notebooks.answer_cells(built[(a.name, lang)])]
                   for lang in sources.LANGS]
        assert answers[0] == answers[1], a.name
    for name, count in (("a1_attention", 2), ("a3_blocks", 3)):
        for lang in sources.LANGS:
            nb = built[(name, lang)]
            answers = notebooks.answer_cells(nb)
            assert len(answers) == count, (name, lang)
            for answer in answers:
                position = nb.cells.index(answer)
                assert nb.cells[position - 2].cell_type == "code" and nb.cells[position - 2].id.startswith("given-")


def _execute(nb, folder):
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(folder)}})
    client.execute()
    return nb


def _problems(nb):
    """(grade_id, output) of every error output and stderr write."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "error" or (out.output_type == "stream" and out.name == "stderr"):
                found.append((cell.metadata["nbgrader"]["grade_id"], out))
    return found


def _folder(tmp_path, assignment):
    for rel, data in files.notebook_files(assignment).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    return tmp_path


def _check_lines(nb) -> dict[str, str]:
    """What each self-check cell printed, by module."""
    return {c.id.removeprefix("check-"): "".join(o.get("text", "") for o in c.outputs)
            for c in nb.cells if c.cell_type == "code" and c.id.startswith("check-")}


# The fast tier runs the English notebooks; the Spanish ones (the same code, other text) in the full tier.
@pytest.mark.parametrize("case", helpers.tiered(CASES, [c for c in CASES if c[1] == "en"], ids=list(map(_id, CASES))))
def test_source_notebook_runs_clean_top_to_bottom(case, built, tmp_path, monkeypatch):
    """Does the solution notebook run top to bottom on CPU, hidden tests included, with no error and no stderr?"""
    assignment, lang = case
    monkeypatch.setenv("COURSE_GRADE_SEED", "7")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the kernel's torch: one thread, as when autograding
    nb = _execute(built[(assignment.name, lang)], _folder(tmp_path, assignment))
    assert _problems(nb) == []
    assert sum(1 for c in nb.cells if c.cell_type == "code" and c.execution_count) == \
        sum(1 for c in nb.cells if c.cell_type == "code")
    # Every public check passes on the reference code, each where the notebook has defined what it needs.
    printed = _check_lines(nb)
    # The written questions' code checks print what their answers explain.
    outputs = "\n".join("".join(o.get("text", "")) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    if assignment.name == "a1_attention":
        assert "(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)" in outputs and "nan" in outputs
        assert "~causal_mask(T): True" in outputs
    if assignment.name == "a3_blocks":
        assert outputs.count(": True") >= 2 and ": 76 " in outputs and ": 0 " in outputs and "(4.0x)" in outputs
    public = files.public_tests(assignment)
    assert set(printed) == {name.removeprefix("test_").removesuffix(".py") for name in public}
    for module, text in printed.items():
        passed, total = map(int, re.search(r"^(\d+)/(\d+) passed / superadas", text, re.MULTILINE).groups())
        assert passed == total > 0 and "FAILED" not in text, f"{module}:\n{text}"


def _edit(nb, grade_id, old, new):
    cell = next(c for c in nb.cells if c.metadata["nbgrader"]["grade_id"] == grade_id)
    assert old in cell.source, (grade_id, old)
    cell.source = cell.source.replace(old, new)


def test_failures_explain_without_source_and_prerequisites_use_the_reference(built, tmp_path):
    """Graded as autograde grades a notebook (module form, sandbox), with a1 left unsolved in
    a3's notebook, do a3's other hidden tests still pass, and do a forbidden shortcut, a
    wrong answer and a message quoting reference code fail with the check's text only?"""
    from autograder.notebooks import extract, sandboxed

    nb = nbformat.from_dict(built[("a3_blocks", "en")])
    _edit(nb, "prereq-a1_attention", "    d_k = q.size(-1)\n",
          "    raise NotImplementedError()\n    d_k = q.size(-1)\n")
    _edit(nb, "code-feedforward-FeedForward", "return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "import inspect\n"
          "        raise RuntimeError(inspect.getsource(scaled_dot_product_attention).split('### BEGIN SOLUTION')[1])")
    _edit(nb, "code-positional-PositionalEncoding", "return x + self.pe[:T]", "return x + self.pe[:T] + 1")
    _edit(nb, "code-multihead-MultiHeadAttention", "out, weights = scaled_dot_product_attention(q, k, v, mask)",
          "out, weights = torch.nn.functional.scaled_dot_product_attention(q, k, v, mask), None")
    a3 = course.get("a3_blocks")
    modules = extract.module_form(json.loads(nbformat.writes(nb)), a3).modules
    cells = sandboxed.verdicts(sandboxed.grade_modules([modules], a3, 5)[0])
    failed = {grade_id: v.output for grade_id, v in cells.items() if v.score < v.max_score}
    assert {"test_positional-test_forward_adds_positions", "test_multihead-test_parameter_count",
            "test_feedforward-test_output"} <= set(failed)
    assert "test_positional-test_course_table" not in failed and "test_feedforward-test_parameter_count" not in failed
    secrets = {line for line in distinctive_solution_lines(SOLUTIONS)}
    for text in failed.values():
        assert "Traceback" not in text and not any(s in text for s in secrets), text
    assert "uses torch.nn.functional.scaled_dot_product_attention" in failed["test_multihead-test_parameter_count"]
    # With reference code beside the student's, an exception comes back as its type only.
    assert "its message is not shown" in failed["test_feedforward-test_output"]
    assert "off" in failed["test_positional-test_forward_adds_positions"]
