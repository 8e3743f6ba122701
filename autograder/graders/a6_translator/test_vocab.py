"""Hidden graders for a6_translator/vocab.py.

Words are made up at random; the expected vocabularies, ids and sentences come from the
reference Vocab.
"""

import re

import pytest
import torch

from autograder import reference
from autograder.graders.a6_translator import variants
from autograder.graders.a6_translator.helpers import made_up, pick, sentence
from autograder.grading import checks

SPECIALS = variants.SPECIALS


def _matches(actual, output):
    """A mistake's output is either the values it would return or a test of the student's."""
    return output(actual) if callable(output) else actual == output


def _vocab_steps(name, words):
    """Steps that build ``vocab.Vocab(words)`` as ``name`` and read its itos, stoi and len."""
    return [
        [name, "vocab.Vocab", [words], {}],
        [f"{name}_itos", "getattr", [{"$": name}, "itos"], {}],
        [f"{name}_stoi", "getattr", [{"$": name}, "stoi"], {}],
        [f"{name}_len", f"${name}.__len__", [], {}],
    ]


@pytest.mark.points(1)
def test_specials_then_words(student, rng):
    """Does Vocab(words) put <pad> <sos> <eos> <unk> at ids 0-3, then the words in order, without duplicates? / ¿Pone Vocab(words) <pad> <sos> <eos> <unk> en los ids 0-3 y luego las palabras en orden, sin repetidas?"""
    Vocab = reference.load("vocab").Vocab
    pool = made_up(rng, checks.randint(rng, 5, 12))
    words = [pick(rng, pool + SPECIALS[1:]) for _ in range(checks.randint(rng, 8, 20))]
    words += [words[0], SPECIALS[checks.randint(rng, 0, 3)]]  # a repeated word and a special, certainly
    want = Vocab(words)
    steps = _vocab_steps("v", words) + [
        [f"c_{attr}", "getattr", [{"$": "v"}, attr], {}]
        for attr in ("PAD", "SOS", "EOS", "UNK", "pad_id", "sos_id", "eos_id", "unk_id")
    ]
    out = student.script(steps, returns=[step[0] for step in steps[1:]])
    for attr, value in zip(("PAD", "SOS", "EOS", "UNK", "pad_id", "sos_id", "eos_id", "unk_id"), SPECIALS + [0, 1, 2, 3]):
        checks.plain_equal(out[f"c_{attr}"], value, f"Vocab.{attr}")
    try:
        checks.plain_equal(out["v_itos"], want.itos, f"Vocab({words}).itos")
        checks.plain_equal(out["v_stoi"], want.stoi, f"Vocab({words}).stoi")
        checks.plain_equal(out["v_len"], len(want), f"len(Vocab({words}))")
    except checks.CheckFailure as failure:
        failure = variants.named(failure, out["v_itos"], [
            variants.SPECIALS_MISPLACED, variants.mistake(*variants.DUPLICATES, lambda: SPECIALS + words)],
            _matches)
        if out["v_itos"] == want.itos:
            failure = failure.shaped(_stoi_shape(out["v_stoi"], want.itos, words), replace=True)
        raise failure from None


def _stoi_shape(stoi, itos, words):
    """How a stoi differs from the index of each word in a right itos: ids with gaps (each
    word's place in the list given, or ids spent on repeated words), or another mapping."""
    if not isinstance(stoi, dict) or not all(isinstance(i, int) for i in stoi.values()):
        return None
    wrong = [w for i, w in enumerate(itos) if stoi.get(w) != i]
    if not wrong:
        return None
    w = wrong[0]
    en = (f"stoi does not agree with itos: stoi[{w!r}] is {stoi.get(w)}, but {w!r} is at index {itos.index(w)} of "
          f"itos ({len(wrong)} words differ)")
    es = (f"stoi no concuerda con itos: stoi[{w!r}] es {stoi.get(w)}, pero {w!r} está en el índice "
          f"{itos.index(w)} de itos ({len(wrong)} palabras difieren)")
    if all(stoi.get(v) == words.index(v) + 4 for v in wrong if v in words):
        en += "; the ids have gaps: each word got its place in the list given plus 4, so a repeated word leaves one"
        es += ("; los ids tienen huecos: cada palabra recibió su lugar en la lista dada más 4, así que una palabra "
               "repetida deja uno")
    elif all(isinstance(stoi.get(v), int) and stoi[v] > itos.index(v) for v in wrong):
        en += "; the ids have gaps, as if repeated words (or specials) used up an id"
        es += "; los ids tienen huecos, como si las palabras repetidas (o los especiales) gastaran un id"
    return (en + ": give each new word the next id, len(self.itos), as it is appended",
            es + ": da a cada palabra nueva el id siguiente, len(self.itos), al añadirla")


def _corpus(rng):
    """Sentences whose word counts are chosen first, so that ties and counts equal to
    min_freq are certain; then the words are shuffled into sentences of 1-6 words."""
    words = made_up(rng, checks.randint(rng, 8, 14))
    min_freq = checks.randint(rng, 2, 4)
    counts = [checks.randint(rng, 1, 7) for _ in words]
    counts[0], counts[1], counts[2] = min_freq, min_freq, min_freq - 1  # a tie at the edge, one just below
    counts[3] = counts[4] = min_freq + 2  # a tie above it
    bag = [w for w, n in zip(words, counts) for _ in range(n)]
    bag = [bag[i] for i in torch.randperm(len(bag), generator=rng).tolist()]
    for a, b in ((words[0], words[1]), (words[3], words[4])):
        if (bag.index(a) < bag.index(b)) == (a < b):  # ties first seen in reverse alphabetical order
            bag = [b if w == a else a if w == b else w for w in bag]
    sentences, i = [], 0
    while i < len(bag):
        n = checks.randint(rng, 1, 6)
        sentences.append(" ".join(bag[i:i + n]) + pick(rng, ["", " ", "  "]))
        i += n
    return sentences, min_freq


@pytest.mark.points(2)
def test_build_counts_and_orders(student, rng):
    """Does Vocab.build keep words seen at least min_freq times, most frequent first, ties alphabetical? / ¿Guarda Vocab.build las palabras vistas al menos min_freq veces, las más frecuentes primero y los empates en orden alfabético?"""
    Vocab = reference.load("vocab").Vocab
    sentences, min_freq = _corpus(rng)
    steps = [
        ["all", "vocab.Vocab.build", [sentences], {}],
        ["all_itos", "getattr", [{"$": "all"}, "itos"], {}],
        ["rare", "vocab.Vocab.build", [sentences], {"min_freq": min_freq}],
        ["rare_itos", "getattr", [{"$": "rare"}, "itos"], {}],
        ["rare_stoi", "getattr", [{"$": "rare"}, "stoi"], {}],
    ]
    out = student.script(steps, returns=["all_itos", "rare_itos", "rare_stoi"])
    want = Vocab.build(sentences, min_freq=min_freq)
    try:
        checks.plain_equal(out["all_itos"], Vocab.build(sentences).itos, "Vocab.build(sentences).itos")
        checks.plain_equal(out["rare_itos"], want.itos, f"Vocab.build(sentences, min_freq={min_freq}).itos")
        checks.plain_equal(out["rare_stoi"], want.stoi, f"Vocab.build(sentences, min_freq={min_freq}).stoi")
    except checks.CheckFailure as failure:
        both = (lambda **switches: [variants.build(sentences, 1, **switches),
                                    variants.build(sentences, min_freq, **switches)])
        specials = variants.SPECIALS_MISPLACED
        raise variants.named(failure, [out["all_itos"], out["rare_itos"]], [
            variants.mistake(specials.en, specials.es, lambda: lambda got: specials.output()(got[0])),
            variants.mistake(*variants.CHARACTERS, lambda: lambda got: variants.counts_characters(got[0])),
            variants.mistake(*variants.SENTENCES, lambda: lambda got: variants.counts_sentences(got[0])),
            variants.mistake(*variants.MIN_FREQ, lambda: both(at_least=False)),
            variants.mistake(*variants.TIES, lambda: both(alphabetical_ties=False))], _matches) from None
    error = student.error_of("vocab.Vocab.build", sentences, min_freq=0)
    checks.expect(error is not None and error["type"] == "ValueError",
                  f"Vocab.build(..., min_freq=0) must raise ValueError, {'raised ' + error['type'] if error else 'it returned'}",
                  f"Vocab.build(..., min_freq=0) debe lanzar ValueError, {'lanzó ' + error['type'] if error else 'devolvió un valor'}",
                  mistake=checks.unrefused("min_freq", 0, "min_freq >= 1", error))


def _framing(framed, plain) -> checks.Mistake | None:
    """The ids that encode(..., add_sos_eos=True) puts around right ids, when they are not
    <sos>=1 first and <eos>=2 last."""
    if not all(isinstance(f, list) and len(f) == len(p) + 2 and f[1:-1] == p for f, p in zip(framed, plain)):
        return None
    ends = {(f[0], f[-1]) for f in framed}
    if len(ends) != 1 or ends == {(1, 2)}:
        return None
    (first, last), = ends
    names = dict(enumerate(SPECIALS))
    got = f"{names.get(first, first)}={first} ... {names.get(last, last)}={last}"
    return checks.Mistake(f"encode(..., add_sos_eos=True) frames the ids as {got}; it must be <sos>=1 first and "
                          "<eos>=2 last",
                          f"encode(..., add_sos_eos=True) enmarca los ids como {got}; debe ser <sos>=1 al principio y "
                          "<eos>=2 al final")


def _unchecked_id(bad: int, size: int, error: dict | None) -> checks.Mistake:
    """What decode's answer to an id outside 0..size-1 says about its check."""
    if error is not None and error["type"] == "IndexError" and bad == size and "list index" in error["message"]:
        return checks.Mistake(f"id {size}, one past the last, passes the range check and reaches self.itos[i], whose "
                              f"own IndexError names no size: the last id is len(self.itos) - 1, so check "
                              f"0 <= i < len(self.itos) (not <=)",
                              f"el id {size}, uno más allá del último, pasa la comprobación de rango y llega a "
                              f"self.itos[i], cuyo IndexError no dice el tamaño: el último id es len(self.itos) - 1, "
                              f"así que comprueba 0 <= i < len(self.itos) (no <=)")
    if error is not None and error["type"] == "IndexError":
        return checks.Mistake(f"the IndexError's message must name the vocabulary's size ({size})",
                              f"el mensaje del IndexError debe decir el tamaño del vocabulario ({size})")
    if bad < 0:
        return checks.Mistake("a negative id is not refused: Python's itos[-1] silently reads from the end; check "
                              "0 <= i < len(self.itos), both bounds, and raise IndexError otherwise",
                              "un id negativo no se rechaza: itos[-1] de Python lee en silencio desde el final; "
                              "comprueba 0 <= i < len(self.itos), los dos límites, y lanza IndexError si no")
    return checks.Mistake("an id past the end is not refused with IndexError: check 0 <= i < len(self.itos) and raise "
                          "IndexError(f\"id {i} is not in 0..{len(self.itos) - 1}\") otherwise",
                          "un id más allá del final no se rechaza con IndexError: comprueba 0 <= i < len(self.itos) y "
                          "lanza IndexError(f\"id {i} no está en 0..{len(self.itos) - 1}\") si no")


@pytest.mark.points(2)
def test_encode_and_decode(student, rng):
    """Does encode map unknown words to <unk> (leaving the vocabulary unchanged) and add <sos>/<eos> on request, and decode drop <pad>/<sos>/<eos>? / ¿Codifica encode las palabras desconocidas como <unk> (sin cambiar el vocabulario) y añade <sos>/<eos> si se pide, y quita decode <pad>/<sos>/<eos>?"""
    Vocab = reference.load("vocab").Vocab
    words = made_up(rng, checks.randint(rng, 6, 12))
    unknown = made_up(rng, 3, taken=words)
    v = Vocab(words)
    sentences = [sentence(rng, words + unknown, 1, 8) for _ in range(6)]
    sentences[0] += " " + unknown[0]  # certainly an unknown word
    id_lists = [torch.randint(0, len(v), (checks.randint(rng, 1, 10),), generator=rng).tolist() for _ in range(6)]
    for ids, special in zip(id_lists, (0, 1, 2, 3)):  # every special id occurs
        ids.insert(checks.randint(rng, 0, len(ids)), special)
    tensor_ids = torch.randint(0, len(v), (12,), generator=rng)
    steps = [["v", "vocab.Vocab", [words], {}], ["itos", "getattr", [{"$": "v"}, "itos"], {}]]
    steps += [[f"e{i}", "$v.encode", [s], {}] for i, s in enumerate(sentences)]
    steps += [[f"s{i}", "$v.encode", [s], {"add_sos_eos": True}] for i, s in enumerate(sentences)]
    steps += [["stoi", "getattr", [{"$": "v"}, "stoi"], {}]]  # after encoding unknown words
    steps += [[f"d{i}", "$v.decode", [ids], {}] for i, ids in enumerate(id_lists)]
    steps += [["dt", "$v.decode", [tensor_ids], {}]]
    out = student.script(steps, returns=[step[0] for step in steps[1:]])
    try:
        for i, s in enumerate(sentences):
            checks.plain_equal(out[f"e{i}"], v.encode(s), f"encode({s!r})")
            checks.plain_equal(out[f"s{i}"], v.encode(s, add_sos_eos=True), f"encode({s!r}, add_sos_eos=True)")
        for i, ids in enumerate(id_lists):
            checks.plain_equal(out[f"d{i}"], v.decode(ids), f"decode({ids})")
        checks.plain_equal(out["dt"], v.decode(tensor_ids), f"decode(tensor({tensor_ids.tolist()}))")
    except checks.CheckFailure as failure:
        framing = _framing([out[f"s{i}"] for i in range(6)], [v.encode(s) for s in sentences])
        if framing:
            raise failure.naming(framing) from None

        def encodes(keep_unknown):
            return ([out[f"e{i}"] for i in range(6)] + [out[f"s{i}"] for i in range(6)]
                    == [variants.encode(v.stoi, s, keep_unknown=keep_unknown) for s in sentences]
                    + [variants.encode(v.stoi, s, True, keep_unknown=keep_unknown) for s in sentences])

        def decodes_keeping(got):  # some of <pad> <sos> <eos> kept, the encodings right
            lists = id_lists + [tensor_ids.tolist()]
            return encodes(True) and any(
                [got[f"d{i}"] for i in range(6)] + [got["dt"]] == [variants.decode(v.itos, ids, kept) for ids in lists]
                for kept in ((0, 1), (0, 2), (1, 2), (0,), (1,), (2,), ()))

        def decodes_stopping(got):  # ends at the first of some special ids (break where continue belongs)
            lists = id_lists + [tensor_ids.tolist()]
            return encodes(True) and any(
                [got[f"d{i}"] for i in range(6)] + [got["dt"]] == [variants.decode_until(v.itos, ids, stop) for ids in lists]
                for stop in ((0,), (2,), (0, 2), (0, 1, 2)))

        specials = variants.SPECIALS_MISPLACED
        raise variants.named(failure, out, [
            variants.mistake(*variants.DECODE_STOPS, lambda: decodes_stopping),
            variants.mistake(specials.en, specials.es, lambda: lambda got: specials.output()(got["itos"])),
            variants.mistake(*variants.UNKNOWN_DROPPED, lambda: lambda got: encodes(False)),
            variants.mistake(*variants.DECODE_KEEPS, lambda: decodes_keeping)], _matches) from None
    # Looking an unknown word up leaves the vocabulary as it was (stoi.get, not setdefault).
    grown = set(out["stoi"]) - set(v.stoi) if isinstance(out["stoi"], dict) else set()
    ours = [w for w in unknown if w in grown]  # only this grader's own words are quoted back
    checks.expect(not grown, f"after encode() of sentences with unknown words, Vocab.stoi holds {len(grown)} more entries"
                  f"{' (' + ', '.join(map(repr, ours)) + ')' if ours else ''}; encode must not change the vocabulary",
                  f"tras encode() de frases con palabras desconocidas, Vocab.stoi tiene {len(grown)} entradas más; "
                  "encode no debe cambiar el vocabulario",
                  mistake=checks.Mistake(
                      "encode adds the unknown words to stoi (stoi.setdefault(word, unk_id), or stoi[word] = unk_id): "
                      "look them up with stoi.get(word, unk_id), which leaves the vocabulary unchanged",
                      "encode añade las palabras desconocidas a stoi (stoi.setdefault(word, unk_id), o stoi[word] = "
                      "unk_id): búscalas con stoi.get(word, unk_id), que deja el vocabulario sin cambios"))
    # An empty sentence is framed too: a target of no words is still <sos> <eos>.
    empty = student.script([["v", "vocab.Vocab", [words], {}], ["e", "$v.encode", [""], {"add_sos_eos": True}]],
                           returns=["e"])["e"]
    try:
        checks.plain_equal(empty, v.encode("", add_sos_eos=True), 'encode("", add_sos_eos=True)')
    except checks.CheckFailure as failure:
        raise failure.naming(checks.Mistake(
            "an empty sentence is not framed: with add_sos_eos=True, encode(\"\") is [sos_id, eos_id], like any other "
            "sentence (frame the ids whether or not there are any)",
            "una frase vacía no se enmarca: con add_sos_eos=True, encode(\"\") es [sos_id, eos_id], como cualquier "
            "otra frase (enmarca los ids haya o no alguno)")) from None
    # Just past the end (where `i <= len(self.itos)` slips through to Python's own IndexError, which
    # names no size), and below 0: a negative id would silently pick a word from the end of itos.
    # Further past the end too: there a message that quotes only the id does not name the size.
    for bad in (len(v), -checks.randint(rng, 1, len(v)), len(v) + checks.randint(rng, 3, 9)):
        error = student.script_error([["v", "vocab.Vocab", [words], {}], ["d", "$v.decode", [[4, bad]], {}]])
        checks.expect(error is not None and error["type"] == "IndexError"
                      and str(len(v)) in re.findall(r"\d+", error["message"]),
                      f"decode([4, {bad}]) with a vocabulary of {len(v)} must raise IndexError naming that size "
                      f"(ids go from 0 to {len(v) - 1}); "
                      + (f"it raised {error['type']}: {error['shown']}" if error else "it returned"),
                      f"decode([4, {bad}]) con un vocabulario de {len(v)} debe lanzar IndexError que diga ese tamaño "
                      f"(los ids van de 0 a {len(v) - 1}); "
                      + (f"lanzó {error['type']}: {error['shown']}" if error else "devolvió un valor"),
                      mistake=_unchecked_id(bad, len(v), error))
