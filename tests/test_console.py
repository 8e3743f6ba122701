"""What `grade` prints for one submission (autograder/grading/console.py), from made-up
grading results: no grading runs here."""

from autograder import course
from autograder.grading import console
from autograder.grading.runner import AssignmentResult


def _test(name: str, en: str, es: str, score: float = 0, max_score: float = 1) -> dict:
    return {"name": f"{name}? / ¿{name}?", "score": score, "max_score": max_score, "output": f"{en}\n{es}",
            "output_en": en, "output_es": es}


SCALED = ("weights: 8 of 12 values are off\nLikely mistake: the scores are not divided by √d_k",
          "pesos: 8 de 12 valores no coinciden\nError probable: las puntuaciones no se dividen entre √d_k")
SYNTAX = ("layernorm.LayerNorm raised SyntaxError: invalid syntax (layernorm.py, line 63)",
          "layernorm.LayerNorm lanzó SyntaxError: invalid syntax (layernorm.py, line 63)")


def _results() -> list[AssignmentResult]:
    a1 = AssignmentResult(course.get("a1_attention"), [
        _test("Scaled", *SCALED),
        _test("Masked", SCALED[0].replace("8 of 12", "3 of 40"), SCALED[1].replace("8 de 12", "3 de 40"), 0, 2),
        _test("Passes", "", "", 1, 1),
        _test("Shape", "output has shape (2, 3), expected (3, 2)", "la salida tiene forma (2, 3), se esperaba (3, 2)"),
    ])
    a2 = AssignmentResult(course.get("a2_layernorm"), [_test(f"T{i}", *SYNTAX, 0, 2) for i in range(6)])
    a3 = AssignmentResult(course.get("a3_blocks"), [_test(f"M{i}", "a3_blocks/ is missing", "falta a3_blocks/")
                                                    for i in range(14)], missing=True)
    return [a1, a2, a3]


def test_a_diagnosis_reaches_the_console_in_each_language():
    """Does a lost test with a named mistake show its first line and its Likely mistake /
    Error probable line, in both languages or in the one asked for only?"""
    both = "\n".join(console.lost_points(_results(), "both"))
    assert "      Likely mistake: the scores are not divided by √d_k\n" in both
    assert "      Error probable: las puntuaciones no se dividen entre √d_k\n" in both
    spanish = "\n".join(console.lost_points(_results(), "es"))
    assert "Error probable: las puntuaciones" in spanish and "Likely mistake" not in spanish
    assert "Shape? /" not in spanish and "· ¿Shape?" in spanish


def test_the_same_message_or_diagnosis_collapses_to_one_entry_with_a_count():
    """Do six tests with one syntax error become one entry with their count and points, and
    two tests with different numbers but the same diagnosis one entry with an example,
    while a test with its own message keeps its title?"""
    lines = console.lost_points(_results(), "en")
    text = "\n".join(lines)
    assert text.count("SyntaxError") == 1 and "a2_layernorm · 6 tests (12 points), the same message" in text
    assert text.count("Likely mistake: the scores are not divided") == 1
    assert "a1_attention · 2 tests (3 points), the same likely mistake" in text
    assert "for example: Scaled?" in text and "weights: 8 of 12 values are off" in text
    assert "a1_attention · Shape?\n      output has shape (2, 3), expected (3, 2)" in text
    assert "Passes" not in text


def test_one_mistake_counted_on_inputs_of_other_sizes_is_one_entry():
    """Do two tests whose diagnoses differ only in a count ("114 values ...", "126 values
    ...") make one "same likely mistake" entry, while another mistake keeps its own?"""
    def zeros(n):
        return (f"output: {n} values off\nLikely mistake: {n} values that must be exactly 0 are not",
                f"salida: {n} valores no coinciden\nError probable: {n} valores que deben ser 0 no lo son")

    a1 = AssignmentResult(course.get("a1_attention"), [
        _test("Big", *zeros(114)), _test("Bigger", *zeros(126)), _test("Scaled", *SCALED)])
    text = "\n".join(console.lost_points([a1], "en"))
    assert "a1_attention · 2 tests (2 points), the same likely mistake" in text, text
    assert text.count("values that must be exactly 0") == 1 and "for example: Big?" in text
    assert "a1_attention · Scaled?" in text


def test_a_missing_assignment_is_one_line():
    """Is an assignment missing from the submission one line with its points, however many
    tests it has?"""
    lines = [line for line in console.lost_points(_results(), "both") if "a3_blocks" in line]
    assert lines == ["  a3_blocks: missing from the submission, 0/14 (14 tests) / no está en la entrega"]


def test_the_report_ends_with_where_the_full_feedback_is(tmp_path):
    """Does the console report name summary.md for the full feedback and then results.json,
    and print no lost-points section when nothing was lost?"""
    printed = []
    data = {"execution_time": 1.0}
    console.report(_results(), tmp_path, data, 4.0, "both", lambda *a, **k: printed.append(" ".join(a)))
    text = "\n".join(printed)
    assert f"Every test's full feedback / la explicación completa de cada test: {tmp_path / 'summary.md'}" in text
    assert text.rstrip().endswith("s)") and str(tmp_path / "results.json") in printed[-1]
    passed = [AssignmentResult(course.get("a1_attention"), [_test("Passes", "", "", 1, 1)])]
    printed.clear()
    console.report(passed, tmp_path, data, 4.0, "both", lambda *a, **k: printed.append(" ".join(a)))
    assert not any("Lost points" in line or "summary.md" in line for line in printed)


def test_causes_reads_each_diagnosis_kind_from_the_data_and_judges_causes_only(monkeypatch):
    """Does tests/mutants/causes.py take a line's kind from the test's extra_data (never from
    its text), judge CAUSE lines by the table, and call a mistake wrong when any cause is?"""
    from mutants import causes

    def lost(line, kind):
        return {"name": "a1_attention · T? / ¿T?", "score": 0.0, "max_score": 1.0,
                "output": f"out: off\nLikely mistake: {line}\nout: mal\nError probable: {line}",
                "extra_data": {"diagnosis": kind}}

    where, right, wrong = lost("at index 3", "where"), lost("scaled by 4 = d_k", "cause"), lost("a loop", "cause")
    monkeypatch.setattr(causes, "JUDGED", {("r", "a1", "m", "scaled by # = d_k"): "right",
                                           ("r", "a1", "m", "a loop"): "wrong"})
    assert causes.lines_of([where]) == [("where", "at index 3")]
    assert causes.lines_of([{**where, "extra_data": {}}]) == [("cause", "at index 3")]  # no kind: judged
    assert causes.verdict("r", "a1", "m", []) == ("FULL MARKS", [])
    assert causes.verdict("r", "a1", "m", [where]) == ("only where", [])
    assert causes.verdict("r", "a1", "m", [where, right]) == ("right", [])
    assert causes.verdict("r", "a1", "m", [right, wrong]) == ("wrong", [])
    assert causes.verdict("r", "a1", "m", [lost("new", "cause")]) == ("UNJUDGED", ["new"])
    assert causes.verdict("r", "a1", "m", [{**where, "output": "out: off"}]) == ("no diagnosis", [])
