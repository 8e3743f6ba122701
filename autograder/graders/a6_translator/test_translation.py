"""Hidden graders for a6_translator/translation.py.

A reference Transformer with random weights (its <eos> and <unk> logits raised, so that
rows finish at different steps and <unk> shows in some translations) translates raw
sentences of made-up words, typed with capitals, punctuation and extra spaces, including
an empty line, a line of symbols only and a sentence longer than the model's max_len; the
expected strings come from the reference translate on the same model and vocabularies.

The model has dropout p = 1 and is put in training mode before the first call: a translate
that does not call model.eval() decodes with every dropped activation zeroed, which is
deterministic, so that mistake's translations are computed here too. Inputs are redrawn
until every classic mistake changes the greedy translations, some translation holds <unk>
and some row is still running at model.config.max_len tokens (a translate that does not cap
max_len there runs past the positional table).
"""

import pytest

from autograder import reference
from autograder.graders.a6_translator import stages, variants
from autograder.graders.a6_translator.helpers import TARGET_SOUNDS, made_up, model_and_spec, pick, sentence
from autograder.grading import checks

WATCHED = ("src_embed",)  # the source batch translate hands the model
DRAWS = 60  # about one draw in three tells every mistake apart: 60 all fail with probability < 1e-10


def _typed(rng, text):
    """``text`` as a person might type it."""
    if checks.randint(rng, 0, 1):
        text = text.capitalize()
    return pick(rng, ["", "  ", "¿"]) + text.replace(" ", pick(rng, [" ", "  ", ", "]), 1) + pick(rng, [".", "?", "!", " ", ""])


def _draw(rng):
    vocab = reference.load("vocab")
    src_words, tgt_words = made_up(rng, checks.randint(rng, 6, 10)), made_up(rng, checks.randint(rng, 6, 10), TARGET_SOUNDS)
    sv, tv = vocab.Vocab(src_words), vocab.Vocab(tgt_words)
    max_len = checks.randint(rng, 6, 10)
    model, spec = model_and_spec(rng, len(sv), len(tv), max_len=max_len, dropout=1.0,
                                 eos_bias=checks.randint(rng, 0, 150) / 100, unk_bias=0.5)
    model.eval()
    lines = [_typed(rng, sentence(rng, src_words, 1, 5)) for _ in range(4)]
    lines += ["¿" + sentence(rng, src_words, 2, 4).capitalize() + "?", sentence(rng, src_words, 2, 4).replace(" ", ", ", 1),
              "¡" + sentence(rng, src_words, 2, 4).title() + "!"]
    # Only words outside the vocabulary: <unk> ids, not an empty sentence, so the model runs on them.
    unknown = " ".join(made_up(rng, 2, taken=src_words))
    for line in ("", " ... ", _typed(rng, sentence(rng, src_words, max_len + 2, max_len + 6)), unknown):
        lines.insert(checks.randint(rng, 0, len(lines)), line)
    return dict(src_words=src_words, tgt_words=tgt_words, sv=sv, tv=tv, max_len=max_len, model=model, spec=spec,
                lines=lines, unknown=unknown)


def _telling(d) -> bool:
    """Do this draw's greedy translations change with every classic mistake?"""
    model, lines, sv, tv, max_len = d["model"], d["lines"], d["sv"], d["tv"], d["max_len"]
    want = variants.translate(model, lines, sv, tv, max_len=max_len)
    if not any("<unk>" in line for line in want) or not want[lines.index(d["unknown"])]:
        return False
    try:  # some row still running at the cap
        variants.translate(model, lines, sv, tv, max_len=max_len + 3, cap=False)
        return False
    except ValueError:
        pass
    for found in variants.translate_mistakes(model, lines, sv, tv, max_len=max_len):
        try:
            if found.output() == want:
                return False
        except Exception:  # the mistake fails outright (e.g. past the positional table): told apart
            continue
    return True


def _telling_draw(rng):
    """The first of up to DRAWS draws that is ``_telling`` (else the last)."""
    for _ in range(DRAWS):
        d = _draw(rng)
        if _telling(d):
            return d
    return d


def _upstream_difference(student, src_words, lines) -> checks.Mistake | None:
    """translate is built on clean_text and Vocab.encode: when the student's own differ from
    the reference's on these very lines, that is where to look first, whatever translate
    does with them (a translate mistake whose output looks alike must not be named)."""
    clean = reference.load("preprocessing").clean_text
    cleaned = [clean(line) for line in lines]
    sv = reference.load("vocab").Vocab(src_words)
    steps = [["sv", "vocab.Vocab", [src_words], {}]]
    steps += [[f"c{i}", "preprocessing.clean_text", [line], {}] for i, line in enumerate(lines)]
    steps += [[f"e{i}", "$sv.encode", [text], {}] for i, text in enumerate(cleaned)]
    try:
        out = student.script(steps, returns=[f"{k}{i}" for k in "ce" for i in range(len(lines))])
    except checks.CheckFailure:
        return None
    for i, line in enumerate(lines):
        if out[f"c{i}"] != cleaned[i]:
            return checks.Mistake(
                f"translate cleans with your clean_text, which gives {out[f'c{i}']!r} for {line!r} where the "
                f"reference gives {cleaned[i]!r}: fix clean_text first (see its test)",
                f"translate limpia con tu clean_text, que da {out[f'c{i}']!r} para {line!r} donde la referencia da "
                f"{cleaned[i]!r}: arregla antes clean_text (mira su test)")
        if out[f"e{i}"] != sv.encode(cleaned[i]):
            return checks.Mistake(
                f"translate encodes with your Vocab.encode, which gives {out[f'e{i}']!r} for {cleaned[i]!r} where "
                f"the reference gives {sv.encode(cleaned[i])!r}: fix Vocab first (see its tests)",
                f"translate codifica con tu Vocab.encode, que da {out[f'e{i}']!r} para {cleaned[i]!r} donde la "
                f"referencia da {sv.encode(cleaned[i])!r}: arregla antes Vocab (mira sus tests)")
    return None


UNKNOWN_AS_EMPTY = ("a sentence made only of unknown words gives \"\" without running the model: only a sentence "
                    "that is empty after cleaning gives \"\"; one of <unk> ids is translated like any other",
                    "una frase hecha solo de palabras desconocidas da \"\" sin ejecutar el modelo: solo da \"\" una "
                    "frase vacía tras limpiarla; una de ids <unk> se traduce como cualquier otra")


@pytest.mark.points(2)
def test_translate_matches_the_reference(student, rng):
    """Does translate clean, truncate, batch, decode and return one string per line, "" for empty ones, as the reference does? / ¿Limpia, recorta, agrupa, decodifica y devuelve translate una cadena por línea, "" para las vacías, como la referencia?"""
    translation = reference.load("translation")
    d = checks.searched(rng, "translate case", _telling_draw)  # shared by the submissions graded together
    model, lines, sv, tv, max_len = d["model"], d["lines"], d["sv"], d["tv"], d["max_len"]
    beam = checks.randint(rng, 2, 3)
    vocabs = [["sv", "vocab.Vocab", [d["src_words"]], {}], ["tv", "vocab.Vocab", [d["tgt_words"]], {}],
              ["tv_itos", "getattr", [{"$": "tv"}, "itos"], {}]]
    args = [{"$": "model"}, lines, {"$": "sv"}, {"$": "tv"}]
    what = f"translate(model with max_len={max_len}, {lines}, max_len={max_len})"
    try:
        out = student.script(vocabs + [
            ["_", "$model.train", [], {}],  # translate must switch dropout off itself
            ["watch", "watch", [{"$": "model"}], {"children": list(WATCHED)}],
            ["greedy", "translation.translate", args, {"max_len": max_len}],
            ["seen_greedy", "$watch.take", [], {}],
            ["beam", "translation.translate", args, {"strategy": "beam", "max_len": max_len, "beam_size": beam}],
            ["seen_beam", "$watch.take", [], {}],
        ], model_spec=d["spec"], returns=["greedy", "beam", "tv_itos", "seen_greedy", "seen_beam"])
    except checks.CheckFailure as failure:
        # Which sentences make it fail? Only the long one: it was not truncated.
        short = [line for line in lines if len(variants.clean(line).split()) <= max_len]
        if (student.script_error(vocabs + [["t", "translation.translate", [args[0], short, *args[2:]], {}]],
                                 model_spec=d["spec"]) is None
                and student.script_error(vocabs + [["t", "translation.translate", [args[0], lines, *args[2:]], {}]],
                                         model_spec=d["spec"]) is not None):
            raise failure.naming(variants.mistake(*variants.NO_TRUNCATE, None)) from None
        raise
    watch = stages.watch(model, children=WATCHED)
    seen = {"greedy": (translation.translate(model, lines, sv, tv, max_len=max_len), watch.take())}
    seen["beam"] = (translation.translate(model, lines, sv, tv, strategy="beam", max_len=max_len, beam_size=beam),
                    watch.take())
    watch.stop()
    mistakes = [variants.mistake(variants.SPECIALS_MISPLACED.en, variants.SPECIALS_MISPLACED.es,
                                 lambda: out["greedy"] if variants.specials_misplaced(out["tv_itos"]) else None),
                variants.mistake(*UNKNOWN_AS_EMPTY, lambda: ["" if line == d["unknown"] else text
                                                             for line, text in zip(lines, seen["greedy"][0])])]
    where = {"greedy": ("in translate (greedy)", "en translate (voraz)"),
             "beam": (f"in translate (strategy='beam', beam_size={beam})", f"en translate (strategy='beam', beam_size={beam})")}
    try:
        for kind, title in (("greedy", what), ("beam", f"translate(..., strategy='beam', beam_size={beam})")):
            try:
                checks.plain_equal(out[kind], seen[kind][0], title)
            except checks.CheckFailure as failure:
                raise failure.shaped(stages.translation_difference(out[f"seen_{kind}"], seen[kind][1], where[kind]),
                                     replace=True) from None
    except checks.CheckFailure as failure:
        upstream = _upstream_difference(student, d["src_words"], lines)
        if upstream:
            raise failure.naming(upstream) from None
        raise variants.named(failure, out["greedy"], mistakes + variants.translate_mistakes(
            model, lines, sv, tv, max_len=max_len)) from None
    # Asked for more tokens than the positional table covers, translate must stop there.
    long = max_len + checks.randint(rng, 2, 6)
    try:
        out = student.script(vocabs + [["long", "translation.translate", args, {"max_len": long}]],
                             model_spec=d["spec"], returns=["long"])
        checks.plain_equal(out["long"], translation.translate(model, lines, sv, tv, max_len=long),
                           f"translate(model with max_len={max_len}, {lines}, max_len={long})")
    except checks.CheckFailure as failure:
        raise failure.naming(variants.mistake(*variants.NO_CAP, None)) from None
    # Asked for fewer tokens than the model could take, translate stops there too.
    short = max_len - checks.randint(rng, 2, 4)
    out = student.script(vocabs + [["short", "translation.translate", args, {"max_len": short}]],
                         model_spec=d["spec"], returns=["short"])
    try:
        checks.plain_equal(out["short"], translation.translate(model, lines, sv, tv, max_len=short),
                           f"translate(model with max_len={max_len}, {lines}, max_len={short})")
    except checks.CheckFailure as failure:
        if out["short"] == translation.translate(model, lines, sv, tv, max_len=max_len):
            raise failure.naming(variants.mistake(*MAX_LEN_IGNORED, None)) from None
        raise
    # A list of one sentence is still a list; lines with no word left after cleaning give ""
    # each, and the model never sees an empty batch.
    one = [next((line for line in lines if variants.clean(line).split()), lines[0])]  # a line with words
    empty = ["", "   ", "...", "#"]
    for what, given, mistake in (("one", one, ONE_SENTENCE), ("empty", empty, ALL_EMPTY)):
        steps = vocabs + [[what, "translation.translate", [args[0], given, *args[2:]], {"max_len": max_len}]]
        try:
            got = student.script(steps, model_spec=d["spec"], returns=[what])[what]
            checks.plain_equal(got, translation.translate(model, given, sv, tv, max_len=max_len),
                               f"translate(model, {given}, max_len={max_len})")
        except checks.CheckFailure as failure:
            raise failure.naming(variants.mistake(*mistake, None)) from None


ONE_SENTENCE = (
    "translate of a list of one sentence must return a list of one string: return the list of results whatever its "
    "length (a bare string for one sentence breaks every caller that loops over the result)",
    "translate de una lista de una frase debe devolver una lista de una cadena: devuelve la lista de resultados sea "
    "cual sea su longitud (una cadena sola para una frase rompe a quien recorre el resultado)")
ALL_EMPTY = (
    "translate fails or answers wrongly when no line has a word left after cleaning: return \"\" for each such line "
    "and run the model only when some line has words (max() of no lengths raises; an empty batch cannot be decoded)",
    "translate falla o responde mal cuando a ninguna línea le queda una palabra tras la limpieza: devuelve \"\" para "
    "cada una y ejecuta el modelo solo si alguna línea tiene palabras (max() de ninguna longitud falla; un lote vacío "
    "no se puede decodificar)")
MAX_LEN_IGNORED = (
    "translate ignores its max_len and decodes up to the model's max_len: pass min(max_len, model.config.max_len) "
    "to decode",
    "translate ignora su max_len y decodifica hasta el max_len del modelo: pasa min(max_len, model.config.max_len) "
    "a decode")
