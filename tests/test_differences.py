"""Does differences.explain name the kind of difference between plain values (text, lists
of words or ids, id tensors), and stay silent when no shape fits the whole difference?"""

import torch

from autograder.grading import checks, differences


def _say(actual, expected):
    found = differences.explain(actual, expected)
    return found and found[0]


def test_text_that_differs_in_one_respect_is_named():
    """Are case, whitespace, spacing around punctuation, lost accents and dropped or kept
    characters each named, and unrelated text left alone?"""
    assert "only letter case" in _say("Hola Tom", "hola tom")
    assert "collapse whitespace" in _say("hola \t tom\n", "hola tom")
    assert "'¿', '?'" in _say("¿donde esta?", "¿ donde esta ?")
    assert "lose their accents ('ñ', 'á')" in _say("espanol esta", "español está")
    assert "kept that the expected text drops: '@'" in _say("hola@tom", "holatom")
    assert "last word ('<unk>') is missing" in _say("ruki", "ruki <unk>")
    assert _say("gato negro", "perro blanco") is None


def test_lists_missing_extra_shifted_reordered_or_relabelled_items_are_named():
    """Are items missing or extra at an end, a shift, a reversal, another order, a cut and a
    consistent table of other ids named, and unrelated lists left alone?"""
    assert "first and last ids (1, 2) are missing" in _say([5, 6], [1, 5, 6, 2])
    assert "extra first id (1)" in _say([1, 5, 6], [5, 6])
    assert "shifted one position later" in _say([9, 5, 6, 7], [5, 6, 7, 8])
    assert "reverse order" in _say(["c", "b", "a"], ["a", "b", "c"])
    assert "in another order (the first out of place at [1]" in _say(["x", "z", "y", "w"], ["x", "y", "z", "w"])
    assert "2 extra at the end" in _say([5, 6, 7, 8], [5, 6])
    assert "yours stop early" in _say([5, 6], [5, 6, 7, 8])
    assert "another table or vocabulary" in _say([9, 8, 9], [4, 5, 4])
    assert _say([9, 8, 7], [4, 5, 6]) is None  # distinct items "map" onto any others: no evidence of a table
    assert "other words" in _say(["a b a", "b"], ["x y x", "y"])
    assert "at [1]:" in _say([[1, 2], [3, 4, 5]], [[1, 2], [4, 5]])
    assert "(word, count) pairs" in _say(["a", ["b", 3], ["c", 2]], ["a", "b", "c"])
    assert _say([["b", 3]], [["b", 2]]) is None or "(word, count)" not in _say([["b", 3]], [["b", 2]])


def test_id_tensors_are_explained_row_by_row_padding_aside():
    """Is a left-padded row, a row padded with another id and a row missing its framing named?"""
    left = differences.explain_ids(torch.tensor([[0, 0, 5, 6]]), torch.tensor([[5, 6, 0, 0]]))
    assert "padding (0) at the start of the row" in left[0]
    eos = differences.explain_ids(torch.tensor([[5, 6, 2, 2, 2]]), torch.tensor([[5, 6, 2, 0, 0]]))
    assert "padded with 2" in eos[0]
    framed = differences.explain_ids(torch.tensor([5, 6]), torch.tensor([1, 5, 6, 2]))
    assert "first and last ids (1, 2)" in framed[0]
    assert differences.explain_ids(torch.tensor([[0.5]]), torch.tensor([[1.5]])) is None


def test_plain_equal_and_equal_carry_the_shape_after_likely_mistake():
    """Does a failed plain_equal or equal on ids say the shape after "Likely mistake:", in both languages?"""
    try:
        checks.plain_equal("Hola", "hola", "clean_text('Hola')")
    except checks.CheckFailure as failure:
        assert "Likely mistake: only letter case differs" in failure.en
        assert "Error probable: solo difieren mayúsculas y minúsculas" in failure.es
    else:
        raise AssertionError("plain_equal passed different strings")
    try:
        checks.equal(torch.tensor([5, 6]), torch.tensor([1, 5, 6, 2]), "ids")
    except checks.CheckFailure as failure:
        assert "Likely mistake: the first and last ids (1, 2) are missing" in failure.en
    else:
        raise AssertionError("equal passed different tensors")
