"""Public tests for corpus.py. Run them with ``pytest assignments/a6_translator``."""

import pytest

from corpus import drop_long_pairs, read_pairs, split_by_source

# Tatoeba's three forms, a blank line, stray spaces and lines that are not pairs. The first
# line is a pair: the exports have no header line.
LINES = [
    "1276\tLet's try something.\t2481\tIntentemos algo.",
    "1277;I have to go to sleep.;2482;Tengo que irme a dormir.",
    "Go.\tVe.\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #4986655 (cueyayotl)",
    "",
    "  Hi. \t Hola.  ",
    "id;en;id;es",                       # a header line: its ids are not numbers
    "1280;I'm hungry.;2485",             # a field is missing
    "1281;Wait; I'll come.;2486;Espera; ya voy.",  # ";" inside a ;-separated sentence
    "Thanks!\t",                         # an empty side
    "1282\tWho?\t2487\t¿Quién?",
]
WANT = [
    ("Let's try something.", "Intentemos algo."),
    ("I have to go to sleep.", "Tengo que irme a dormir."),
    ("Go.", "Ve."),
    ("Hi.", "Hola."),
    ("Who?", "¿Quién?"),
]


def _write(tmp_path, lines, name="pairs.txt"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _missing(got, want):
    """What a list of pairs lacks and holds too many, for the assert messages."""
    got = [tuple(p) for p in got] if isinstance(got, list) else []
    return [p for p in want if p not in got], [p for p in got if p not in want]


def test_read_pairs_every_form(tmp_path):
    """Does read_pairs read the three forms, strip spaces, and skip blank and bad lines?"""
    got = read_pairs(_write(tmp_path, LINES))
    missing, extra = _missing(got, WANT)
    assert got == WANT, (
        f"read_pairs returned {got!r}, expected {WANT!r}. Missing: {missing}; not expected: {extra}. "
        "Read 4 fields with number ids (id, en, id, es) and 2-3 tab-separated fields (en, es, ...); strip each "
        "field; skip blank lines and lines of another form. The first line is a pair, not a header. / "
        f"read_pairs devolvió {got!r}, se esperaba {WANT!r}. Faltan: {missing}; sobran: {extra}. Lee 4 campos con "
        "ids numéricos (id, en, id, es) y 2-3 campos separados por tabuladores (en, es, ...); aplica strip a cada "
        "campo; salta las líneas vacías y las de otra forma. La primera línea es un par, no una cabecera.")


def test_read_pairs_first_line_is_data(tmp_path):
    """Is the first line of a headerless export read as a pair?"""
    got = read_pairs(_write(tmp_path, ["1;Go.;2;Ve.", "3;Run!;4;¡Corre!"]))
    assert got == [("Go.", "Ve."), ("Run!", "¡Corre!")], (
        f"read_pairs returned {got!r}: Tatoeba's exports have no header line, so the first line is a pair too. / "
        f"read_pairs devolvió {got!r}: las exportaciones de Tatoeba no tienen cabecera, así que la primera línea "
        "también es un par.")


PAIRS = [
    ("one two three", "uno dos tres"),
    ("one two three four", "uno dos tres"),        # English too long
    ("a b c", "w x y z"),                          # Spanish too long
    ("¿ where ?", "¿ dónde ?"),                    # 3 words each, punctuation included
    ("just three words", "exactamente tres palabras"),
]


def test_drop_long_pairs():
    """Does drop_long_pairs keep the pairs with at most max_words words on both sides, in order?"""
    got = drop_long_pairs(PAIRS, max_words=3)
    want = [PAIRS[0], PAIRS[3], PAIRS[4]]
    hint_en = hint_es = ""
    if isinstance(got, list) and PAIRS[0] not in got:
        hint_en = " A side of exactly max_words words is kept: use <=."
        hint_es = " Un lado de exactamente max_words palabras se queda: usa <=."
    elif isinstance(got, list) and (PAIRS[1] in got or PAIRS[2] in got):
        hint_en = " Check both sides: a pair goes if either is too long."
        hint_es = " Comprueba los dos lados: un par se va si cualquiera es demasiado largo."
    assert got == want, (f"drop_long_pairs(pairs, max_words=3) returned {got!r}, expected {want!r}.{hint_en} / "
                         f"drop_long_pairs(pairs, max_words=3) devolvió {got!r}, se esperaba {want!r}.{hint_es}")
    assert drop_long_pairs(PAIRS, max_words=15) == PAIRS, (
        "With max_words=15 every pair stays, in the same order. / Con max_words=15 se quedan todos los pares, en el "
        "mismo orden.")
    assert drop_long_pairs(PAIRS) == PAIRS, "The default max_words is 15. / El max_words por defecto es 15."


# Five English sentences, two of them with several Spanish translations, as in Tatoeba.
GROUPED = [
    ("Go.", "Ve."), ("Hi.", "Hola."), ("Go.", "Vete."), ("Run!", "¡Corre!"), ("Go.", "Vaya."),
    ("Who?", "¿Quién?"), ("Run!", "¡Huye!"), ("Wait.", "Espera."), ("Hi.", "Buenas."), ("Run!", "¡Corred!"),
]


def test_split_keeps_each_english_sentence_on_one_side():
    """Does split_by_source put all pairs of one English sentence on the same side, at every seed?"""
    for seed in range(20):
        train, valid = split_by_source(GROUPED, valid_share=0.3, seed=seed)
        seen = {en for en, _ in train} & {en for en, _ in valid}
        assert not seen, (
            f"seed={seed}: {sorted(seen)} are in both train and valid. Tatoeba gives one English sentence several "
            "translations, so a split by line shows the model, in validation, sentences it trained on, and the "
            "validation loss looks better than it is: put whole English sentences on one side. / "
            f"seed={seed}: {sorted(seen)} están en train y en valid. Tatoeba da varias traducciones a una frase "
            "inglesa, así que una división por líneas enseña al modelo, en validación, frases con las que entrenó, y "
            "la pérdida de validación parece mejor de lo que es: pon frases inglesas enteras en un solo lado.")
        assert sorted(train + valid) == sorted(GROUPED), (
            f"seed={seed}: train + valid must hold every pair exactly once. / "
            f"seed={seed}: train + valid deben contener cada par exactamente una vez.")
        assert 3 <= len(valid) < 3 + 3, (
            f"seed={seed}: valid has {len(valid)} pairs; with valid_share=0.3 of 10 pairs it needs at least 3, and "
            "stops as soon as it has them (one sentence has at most 3 pairs here). / "
            f"seed={seed}: valid tiene {len(valid)} pares; con valid_share=0.3 de 10 pares necesita al menos 3, y se "
            "detiene en cuanto los tiene (aquí una frase tiene como mucho 3 pares).")


def test_split_keeps_order_and_is_reproducible():
    """Does split_by_source keep the input order, give the same split for the same seed and depend on it?"""
    train, valid = split_by_source(GROUPED, valid_share=0.3, seed=1)
    for name, part in (("train", train), ("valid", valid)):
        order = [GROUPED.index(tuple(p)) for p in part]
        assert order == sorted(order), (
            f"{name} is not in the order of the input pairs: keep it (do not sort or shuffle the pairs). / "
            f"{name} no está en el orden de los pares de entrada: mantenlo (no ordenes ni barajes los pares).")
    again_train, again_valid = split_by_source(GROUPED, valid_share=0.3, seed=1)
    assert (again_train, again_valid) == (train, valid), (
        "The same seed must give the same split: use random.Random(seed), not the global random state. / "
        "La misma semilla debe dar la misma división: usa random.Random(seed), no el estado global de random.")
    splits = {tuple(map(tuple, split_by_source(GROUPED, valid_share=0.3, seed=s)[1])) for s in range(10)}
    assert len(splits) > 1, (
        "Ten seeds gave the same validation set: shuffle the English sentences with the seed. / "
        "Diez semillas dieron el mismo conjunto de validación: baraja las frases inglesas con la semilla.")
    all_train, no_valid = split_by_source(GROUPED, valid_share=0.0)
    assert (all_train, no_valid) == (GROUPED, []), (
        "valid_share=0 leaves every pair in train. / valid_share=0 deja todos los pares en train.")
    with pytest.raises(ValueError):
        split_by_source(GROUPED, valid_share=1.0)
