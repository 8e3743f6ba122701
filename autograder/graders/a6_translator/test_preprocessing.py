"""Hidden graders for a6_translator/preprocessing.py.

Random strings mix upper and lower case, Spanish accents (composed and decomposed, that
is, a vowel followed by a combining accent), other accented letters, ¿ ? ¡ ! and commas,
other punctuation and symbols, digits and runs of spaces, tabs and newlines; the expected
text comes from the reference clean_text.
"""

import pytest

from autograder import reference
from autograder.graders.a6_translator import variants
from autograder.grading import checks

# Pieces of random sentences, with their weights.
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
SPANISH = "áéíóúüñÁÉÍÓÚÜÑ"
DECOMPOSED = ["a\u0301", "e\u0301", "I\u0301", "o\u0301", "U\u0301", "u\u0308", "n\u0303", "N\u0303", "o\u0308"]
OTHER_LETTERS = "àçöøßÅêÈ"
MARKS = "¿?¡!,"
SYMBOLS = ".;:'\"-()[]/&%$#@*+=…«»"
DIGITS = "0123456789"
SPACES = [" ", "  ", "   ", "\t", "\n", " \t "]


def _pick(rng, items):
    return items[checks.randint(rng, 0, len(items) - 1)]


def random_text(rng, n):
    pools = [(LETTERS, 10), (SPANISH, 3), (DECOMPOSED, 2), (OTHER_LETTERS, 1), (MARKS, 3), (SYMBOLS, 3),
             (DIGITS, 2), (SPACES, 4)]
    bag = [pool for pool, weight in pools for _ in range(weight)]
    return "".join(_pick(rng, _pick(rng, bag)) for _ in range(n))


@pytest.mark.points(2)
def test_clean_text_random_strings(student, rng):
    """Does clean_text normalise, lower-case, space out ¿?¡!, and drop other symbols on random text? / ¿Normaliza, pasa a minúsculas, separa ¿?¡!, y borra los demás símbolos en texto aleatorio?"""
    clean_text = reference.load("preprocessing").clean_text
    texts = [random_text(rng, checks.randint(rng, 5, 40)) for _ in range(40)]
    texts += ["  ¿Dónde está el baño?  ", "I don't know, Tom!", "e-mail", "...", "",
              "Cafe\u0301 en Espan\u0303a", "Oﬁcina nº 2² ＯＫ"]  # every classic mistake changes at least one
    out = student.script([[f"t{i}", "preprocessing.clean_text", [text], {}] for i, text in enumerate(texts)],
                         returns=[f"t{i}" for i in range(len(texts))])
    got = [out[f"t{i}"] for i in range(len(texts))]
    try:
        for i, text in enumerate(texts):
            checks.plain_equal(got[i], clean_text(text), f"clean_text({text!r})")
    except checks.CheckFailure as failure:
        raise variants.named(failure, got, variants.clean_mistakes(texts)) from None
