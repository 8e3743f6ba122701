"""Public tests for vocab.py. Run them with ``pytest assignments/a6_translator``."""

import pytest
import torch

from vocab import Vocab

CORPUS = ["the cat sat", "the dog sat", "the cat ran"]


SPECIALS = ["<pad>", "<sos>", "<eos>", "<unk>"]


def test_specials_come_first():
    """Are <pad> <sos> <eos> <unk> ids 0-3, and the given words after them, duplicates skipped?"""
    v = Vocab(["hola", "<eos>", "mundo", "hola"])
    want = SPECIALS + ["hola", "mundo"]
    if v.itos == want:
        hint = ("", "")
    elif v.itos[:4] != SPECIALS:
        hint = ("The specials must be first, at fixed ids: <pad>=0 <sos>=1 <eos>=2 <unk>=3.",
                "Los especiales van primero, con ids fijos: <pad>=0 <sos>=1 <eos>=2 <unk>=3.")
    elif len(v.itos) > len(set(v.itos)):
        hint = ("A word appears twice: skip words (and specials) that are already in the vocabulary.",
                "Una palabra aparece dos veces: salta las palabras (y los especiales) que ya están en el vocabulario.")
    else:
        hint = ("Then come the given words, in their order, each once.",
                "Luego van las palabras dadas, en su orden, una vez cada una.")
    assert v.itos == want, (
        f"Vocab(['hola', '<eos>', 'mundo', 'hola']).itos is {v.itos}, expected {want}. {hint[0]} / "
        f"Vocab(['hola', '<eos>', 'mundo', 'hola']).itos es {v.itos}, se esperaba {want}. {hint[1]}"
    )
    wrong = {w: v.stoi.get(w) for i, w in enumerate(want) if v.stoi.get(w) != i}
    assert not wrong, (
        f"stoi gives {wrong}, expected {({w: want.index(w) for w in wrong})}: stoi maps each word to its position "
        "in itos, so the ids are 0, 1, 2, ... with no gap (a word seen twice takes no id: give each new word "
        "len(self.itos), not its place in the list of words) / "
        f"stoi da {wrong}, se esperaba {({w: want.index(w) for w in wrong})}: stoi da la posición de cada palabra en "
        "itos, así que los ids son 0, 1, 2, ... sin huecos (una palabra repetida no recibe id: da a cada palabra "
        "nueva len(self.itos), no su lugar en la lista de palabras)."
    )
    assert Vocab.unk_id == 3, (
        f"Vocab.unk_id is {Vocab.unk_id}, expected 3 (given code: leave the class ids as they are). / "
        f"Vocab.unk_id es {Vocab.unk_id}, se esperaba 3 (código dado: deja los ids de la clase como están)."
    )
    assert v.stoi["<unk>"] == Vocab.unk_id, (
        f"stoi['<unk>'] is {v.stoi['<unk>']}, expected {Vocab.unk_id}: stoi must hold the specials too, at their "
        "ids. / "
        f"stoi['<unk>'] es {v.stoi['<unk>']}, se esperaba {Vocab.unk_id}: stoi también contiene los especiales, "
        "con sus ids."
    )
    assert len(v) == 6, (
        f"len(v) is {len(v)}, expected 6: the number of entries of itos (4 specials + hola, mundo). / "
        f"len(v) es {len(v)}, se esperaba 6: el número de entradas de itos (4 especiales + hola, mundo)."
    )


def test_build_orders_by_count_then_alphabet():
    """Does build sort words by frequency, ties alphabetically, and drop rare ones with min_freq?"""
    counts = {"the": 3, "cat": 2, "sat": 2, "dog": 1, "ran": 1}
    got = Vocab.build(CORPUS).itos[4:]
    want = ["the", "cat", "sat", "dog", "ran"]
    if got == want:
        hint = ("", "")
    elif sorted(got) == sorted(want) and [counts[w] for w in got] == [3, 2, 2, 1, 1]:
        hint = ("The counts are in order but the ties are not alphabetical: words with the same count go A to Z "
                "(reversing the whole sort also reverses the ties).",
                "Las cuentas están en orden pero los empates no van en orden alfabético: las palabras con la misma "
                "cuenta van de la A a la Z (invertir toda la ordenación también invierte los empates).")
    elif sorted(got) == sorted(want):
        hint = ("Sort by count, most frequent first, then alphabetically.",
                "Ordena por cuenta, la más frecuente primero, y luego alfabéticamente.")
    elif set(got) < set(want) and all(counts[w] == 1 for w in set(want) - set(got)):
        hint = ("The words seen once were dropped: with the default min_freq=1 every word stays (a word is kept "
                "when seen at least min_freq times).",
                "Se perdieron las palabras vistas una vez: con min_freq=1 por defecto se quedan todas (una palabra "
                "se conserva si aparece al menos min_freq veces).")
    else:
        hint = ("Count the words of every sentence (split on whitespace), each word once in the vocabulary.",
                "Cuenta las palabras de cada frase (separadas por espacios), cada palabra una vez en el vocabulario.")
    assert got == want, (
        f"Vocab.build(CORPUS).itos[4:] is {got}, expected {want} (counts: the 3, cat 2, sat 2, dog 1, ran 1). "
        f"{hint[0]} / "
        f"Vocab.build(CORPUS).itos[4:] es {got}, se esperaba {want} (cuentas: the 3, cat 2, sat 2, dog 1, ran 1). "
        f"{hint[1]}"
    )
    got = Vocab.build(["zeta alpha", "alpha zeta mid"]).itos[4:]
    assert got == ["alpha", "zeta", "mid"], (
        f"Vocab.build(['zeta alpha', 'alpha zeta mid']).itos[4:] is {got}, expected ['alpha', 'zeta', 'mid']: "
        "zeta and alpha are both seen twice, and a tie goes alphabetically, not in the order the words first "
        "appear (sort with key=lambda w: (-count[w], w)). Unlike lecture notebook 000, which numbers words in the "
        "order they first appear, the course sorts by count, then alphabetically: the ids then depend on the corpus "
        "only, not on the order of its sentences. / "
        f"Vocab.build(['zeta alpha', 'alpha zeta mid']).itos[4:] es {got}, se esperaba ['alpha', 'zeta', 'mid']: "
        "zeta y alpha aparecen dos veces, y un empate va en orden alfabético, no en el orden en que aparecen las "
        "palabras por primera vez (ordena con key=lambda w: (-cuenta[w], w)). A diferencia del cuaderno de clase "
        "000, que numera las palabras en el orden en que aparecen, el curso ordena por frecuencia y luego "
        "alfabéticamente: así los ids dependen solo del corpus, no del orden de sus frases."
    )
    got = Vocab.build(CORPUS, min_freq=2).itos[4:]
    if got == ["the"]:
        hint = ("Only words seen more than twice were kept: min_freq keeps words seen at least min_freq times.",
                "Solo se quedaron las palabras vistas más de dos veces: min_freq conserva las vistas al menos "
                "min_freq veces.")
    else:
        hint = ("Keep only the words seen at least min_freq times.",
                "Conserva solo las palabras vistas al menos min_freq veces.")
    assert got == ["the", "cat", "sat"], (
        f"Vocab.build(CORPUS, min_freq=2).itos[4:] is {got}, expected ['the', 'cat', 'sat'] (counts: the 3, cat 2, "
        f"sat 2, dog 1, ran 1). {hint[0]} / "
        f"Vocab.build(CORPUS, min_freq=2).itos[4:] es {got}, se esperaba ['the', 'cat', 'sat'] (cuentas: the 3, "
        f"cat 2, sat 2, dog 1, ran 1). {hint[1]}"
    )
    try:
        Vocab.build(CORPUS, min_freq=0)
    except ValueError:
        return
    pytest.fail("Vocab.build(CORPUS, min_freq=0) did not raise ValueError: min_freq must be >= 1. / "
                "Vocab.build(CORPUS, min_freq=0) no lanzó ValueError: min_freq debe ser >= 1.")


def _decode_message(v, args, got, want, hint):
    if v.itos[:8] != SPECIALS + ["the", "cat", "sat", "dog"]:
        hint = (f"These ids come from Vocab.build(CORPUS), whose itos starts with {v.itos[:8]}: fix "
                "test_specials_come_first and test_build_orders_by_count_then_alphabet first.",
                f"Estos ids salen de Vocab.build(CORPUS), cuyo itos empieza por {v.itos[:8]}: arregla antes "
                "test_specials_come_first y test_build_orders_by_count_then_alphabet.")
    return (f"decode({args}) is {got!r}, expected {want!r}. {hint[0]} / "
            f"decode({args}) es {got!r}, se esperaba {want!r}. {hint[1]}")


def test_build_adds_no_empty_word():
    """Do an empty sentence and doubled spaces add no word "" to the vocabulary?"""
    got = Vocab.build(["", "sí  no", " sí "]).itos[4:]
    assert got == ["sí", "no"], (
        f"Vocab.build(['', 'sí  no', ' sí ']).itos[4:] is {got}, expected ['sí', 'no']: split each sentence with "
        "sentence.split() (no argument), which drops empty strings; split(' ') gives '' for an empty sentence and "
        "between two spaces. / "
        f"Vocab.build(['', 'sí  no', ' sí ']).itos[4:] es {got}, se esperaba ['sí', 'no']: separa cada frase con "
        "frase.split() (sin argumento), que descarta las cadenas vacías; split(' ') da '' para una frase vacía y "
        "entre dos espacios.")


def test_build_counts_every_occurrence():
    """Does a word that repeats inside one sentence count each time it appears?"""
    got = Vocab.build(["la la la tos", "tos"]).itos[4:]
    assert got == ["la", "tos"], (
        f"Vocab.build(['la la la tos', 'tos']).itos[4:] is {got}, expected ['la', 'tos']: 'la' appears 3 times "
        "and 'tos' twice. Count every occurrence of a word, not the sentences it appears in (a set per sentence "
        "counts each word once). / "
        f"Vocab.build(['la la la tos', 'tos']).itos[4:] es {got}, se esperaba ['la', 'tos']: 'la' aparece 3 veces "
        "y 'tos' dos. Cuenta cada aparición de una palabra, no las frases en las que aparece (un set por frase "
        "cuenta cada palabra una sola vez).")


def test_encode_and_decode():
    """Do unknown words encode as <unk>, and does decode drop <pad>, <sos> and <eos>?"""
    v = Vocab.build(CORPUS)
    got = v.encode("the cat flew")
    if got == [4, 5, 3]:
        hint = ("", "")
    elif got[:2] != [4, 5]:
        hint = ("The ids of known words come from stoi; these are the ids of Vocab.build(CORPUS), so fix "
                "test_build_orders_by_count_then_alphabet first if it fails.",
                "Los ids de las palabras conocidas salen de stoi; son los de Vocab.build(CORPUS), así que arregla "
                "antes test_build_orders_by_count_then_alphabet si falla.")
    else:
        hint = ("An unknown word becomes unk_id=3; it is not skipped.",
                "Una palabra desconocida pasa a ser unk_id=3; no se salta.")
    assert got == [4, 5, 3], (
        f"encode('the cat flew') is {got}, expected [4, 5, 3] (the, cat, <unk>). {hint[0]} / "
        f"encode('the cat flew') es {got}, se esperaba [4, 5, 3] (the, cat, <unk>). {hint[1]}"
    )
    got = v.encode("the cat", add_sos_eos=True)
    assert got == [1, 4, 5, 2], (
        f"encode('the cat', add_sos_eos=True) is {got}, expected [1, 4, 5, 2]: sos_id=1 first and eos_id=2 last. / "
        f"encode('the cat', add_sos_eos=True) es {got}, se esperaba [1, 4, 5, 2]: sos_id=1 al principio y eos_id=2 "
        "al final."
    )
    got = v.decode([1, 4, 5, 3, 2, 0, 0])
    assert got == "the cat <unk>", _decode_message(v, "[1, 4, 5, 3, 2, 0, 0]", got, "the cat <unk>", (
        "Drop <pad>, <sos> and <eos>, keep <unk> visible, join the words with one space.",
        "Quita <pad>, <sos> y <eos>, deja <unk> visible y une las palabras con un espacio."))
    got = v.decode([4, 2, 5, 1, 6])
    assert got == "the cat sat", _decode_message(v, "[4, 2, 5, 1, 6]", got, "the cat sat", (
        "decode drops the special ids wherever they are and goes on: it does not stop at <eos> (cutting at the "
        "first <eos> is translate's job).",
        "decode quita los ids especiales dondequiera que estén y sigue: no se para en <eos> (cortar en el primer "
        "<eos> es tarea de translate)."))
    got = v.decode(torch.tensor([4, 7]))
    assert got == "the dog", _decode_message(v, "torch.tensor([4, 7])", got, "the dog", (
        "decode must accept a 1-D tensor too (turn it into a list of ints first).",
        "decode también debe aceptar un tensor 1-D (conviértelo antes en una lista de ints)."))


@pytest.mark.parametrize("bad", [9, -1])
def test_decode_rejects_ids_outside_the_vocabulary(bad):
    """Do an id past the end and a negative id raise IndexError?"""
    try:
        Vocab.build(CORPUS).decode([4, bad])
    except IndexError:
        return
    pytest.fail(f"Vocab.build(CORPUS).decode([4, {bad}]) did not raise IndexError: that vocabulary has 9 ids (0..8), "
                f"so {bad} is outside it (a negative index would silently read itos from the end: check both "
                "bounds, 0 <= i < len(itos)). Unlike lecture notebook 000, which decodes such an id as <UNK>, the "
                "course raises: an id outside the vocabulary is a bug upstream (a model built for another "
                "vocabulary), not an unknown word. / "
                f"Vocab.build(CORPUS).decode([4, {bad}]) no lanzó IndexError: ese vocabulario tiene 9 ids (0..8), así "
                f"que {bad} queda fuera (un índice negativo leería itos desde el final sin avisar: comprueba los dos "
                "límites, 0 <= i < len(itos)). A diferencia del cuaderno de clase 000, que decodifica ese id como "
                "<UNK>, el curso lanza un error: un id fuera del vocabulario es un fallo previo (un modelo hecho para "
                "otro vocabulario), no una palabra desconocida.")
