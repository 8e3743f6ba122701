"""Hidden graders for a6_translator/translation.py.

A reference Transformer with random weights (its <eos> logit raised so that rows finish
at different steps) translates raw sentences of made-up words, typed with capitals,
punctuation and extra spaces, including an empty line, a line of symbols only and a
sentence longer than the model's max_len; the expected strings come from the reference
translate on the same model and vocabularies.
"""

import pytest

from autograder import checks, reference
from autograder.graders.a6_translator.helpers import TARGET_SOUNDS, made_up, model_and_spec, pick, sentence


def _typed(rng, text):
    """``text`` as a person might type it."""
    if checks.randint(rng, 0, 1):
        text = text.capitalize()
    return pick(rng, ["", "  ", "¿"]) + text.replace(" ", pick(rng, [" ", "  ", ", "]), 1) + pick(rng, [".", "?", "!", " ", ""])


@pytest.mark.points(2)
def test_translate_matches_the_reference(student, rng):
    """Does translate clean, truncate, batch, decode and return one string per line, "" for empty ones, as the reference does? / ¿Limpia, recorta, agrupa, decodifica y devuelve translate una cadena por línea, "" para las vacías, como la referencia?"""
    vocab, translation = reference.load("vocab"), reference.load("translation")
    src_words, tgt_words = made_up(rng, checks.randint(rng, 6, 10)), made_up(rng, checks.randint(rng, 6, 10), TARGET_SOUNDS)
    sv, tv = vocab.Vocab(src_words), vocab.Vocab(tgt_words)
    max_len = checks.randint(rng, 6, 10)
    model, spec = model_and_spec(rng, len(sv), len(tv), max_len=max_len, eos_bias=2.0)
    model.eval()
    lines = [_typed(rng, sentence(rng, src_words, 1, 5)) for _ in range(5)]
    lines.insert(checks.randint(rng, 0, 5), "")
    lines.insert(checks.randint(rng, 0, 6), " ... ")
    lines.insert(checks.randint(rng, 0, 7), _typed(rng, sentence(rng, src_words, max_len + 2, max_len + 6)))
    beam = checks.randint(rng, 2, 3)
    out = student.script([
        ["sv", "vocab.Vocab", [src_words], {}],
        ["tv", "vocab.Vocab", [tgt_words], {}],
        ["greedy", "translation.translate", [{"$": "model"}, lines, {"$": "sv"}, {"$": "tv"}], {"max_len": max_len}],
        ["beam", "translation.translate", [{"$": "model"}, lines, {"$": "sv"}, {"$": "tv"}],
         {"strategy": "beam", "max_len": max_len, "beam_size": beam}],
    ], model_spec=spec, returns=["greedy", "beam"])
    want = translation.translate(model, lines, sv, tv, max_len=max_len)
    checks.plain_equal(out["greedy"], want, f"translate(model with max_len={max_len}, {lines})")
    want = translation.translate(model, lines, sv, tv, strategy="beam", max_len=max_len, beam_size=beam)
    checks.plain_equal(out["beam"], want, f"translate(..., strategy='beam', beam_size={beam})")
