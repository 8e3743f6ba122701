"""Public tests for preprocessing.py. Run them with ``pytest assignments/a6_translator``."""

import pytest

from preprocessing import clean_text


@pytest.mark.parametrize("raw, clean", [
    ("¿Dónde está el baño?", "¿ dónde está el baño ?"),
    ("I don't know, Tom!", "i dont know , tom !"),
    ("Hola.", "hola"),
    ("Send an e-mail to 2 friends", "send an email to 2 friends"),
    ("  ¡Qué  día!\tMañana,\nsí. ", "¡ qué día ! mañana , sí"),
])
def test_course_examples(raw, clean):
    """Does clean_text split off ¿ ? ¡ ! , lower-case, and drop other symbols?"""
    assert clean_text(raw) == clean


def test_decomposed_accents_are_composed():
    """Is "e" + a combining acute accent (U+0301) kept as the single letter "é"?"""
    assert clean_text("cafe\u0301 NIN\u0303O") == "café niño"


def test_nothing_left_is_the_empty_string():
    """Does a string of symbols only clean to ""?"""
    assert clean_text(" ...;:-- ") == ""
