"""Hidden graders for a6_translator/corpus.py.

Sentences are made-up words; files are written in the student's process (``scratch_file``)
in Tatoeba's three forms, with blank and bad lines mixed in. The expected pairs come from
the reference read_pairs and drop_long_pairs; a split is checked by its properties (any
seeded generator may shuffle), never against the reference's own split.
"""

import os
import tempfile

import pytest
import torch

from autograder import reference
from autograder.graders.a6_translator import variants
from autograder.graders.a6_translator.helpers import TARGET_SOUNDS, made_up, pick, sentence
from autograder.grading import checks

ENDS = ["", "", ".", "!", "?"]


def _sentences(rng, n, spanish=False):
    """``n`` distinct sentences of 1-5 made-up words, some ending in a mark."""
    words = made_up(rng, 12, TARGET_SOUNDS) if spanish else made_up(rng, 12)
    found = []
    while len(found) < n:
        text = sentence(rng, words, 1, 5)
        text = text[0].upper() + text[1:] + pick(rng, ENDS)
        if spanish and text.endswith("?"):
            text = "¿" + text
        if text not in found:
            found.append(text)
    return found


def _padded(rng, text):
    return pick(rng, ["", "", " ", "  "]) + text + pick(rng, ["", "", " ", "   "])


def _line(rng, en, es, form):
    """One data line of ``form`` (ids are 1-6 digits)."""
    ids = [str(checks.randint(rng, 1, 999999)) for _ in range(2)]
    if form == "tab4":
        return "\t".join([ids[0], _padded(rng, en), ids[1], _padded(rng, es)])
    if form == "semi4":
        return ";".join([ids[0], _padded(rng, en), ids[1], _padded(rng, es)])
    if form == "tab3":
        return f"{_padded(rng, en)}\t{_padded(rng, es)}\tCC-BY 2.0 (France) Attribution: tatoeba.org #{ids[0]} (ab) & #{ids[1]} (cd)"
    return f"{_padded(rng, en)}\t{_padded(rng, es)}"


BAD_LINES = [  # every form of line read_pairs skips
    lambda en, es: "id;en;id;es",
    lambda en, es: "sentence_id\ttext\ttranslation_id\ttranslation",
    lambda en, es: f"12;{en};34",                       # a field missing
    lambda en, es: f"12;{en}; {es[:2]};34;{es}",        # ";" inside a sentence: 5 fields
    lambda en, es: f"{en}\t\t",                         # an empty Spanish side
    lambda en, es: f"12\t  \t34\t{es}",                 # an empty English side
    lambda en, es: f"{en}\t{es}\tx\ty\tz",              # 5 tab-separated fields
]


def _corpus_text(rng):
    """A file: good lines in all four forms (the first line certainly a pair), blank lines
    and every bad line, with \\n or \\r\\n endings and sometimes no final line break."""
    n = checks.randint(rng, 12, 20)
    english, spanish = _sentences(rng, n), _sentences(rng, n, spanish=True)
    forms = ["tab4", "semi4", "tab3", "tab2"] * n
    lines = [_line(rng, en, es, forms[(i + checks.randint(rng, 0, 3)) % 4 if i >= 4 else i])
             for i, (en, es) in enumerate(zip(english, spanish))]
    for bad in BAD_LINES:
        lines.insert(checks.randint(rng, 1, len(lines)), bad(pick(rng, english), pick(rng, spanish)))
    for blank in ["", " ", "\t", ""]:
        lines.insert(checks.randint(rng, 1, len(lines)), blank)
    ending = "\r\n" if checks.randint(rng, 0, 3) == 0 else "\n"
    return ending.join(lines) + pick(rng, [ending, ending, ""])


@pytest.mark.points(2)
def test_read_pairs_every_form(student, rng):
    """Does read_pairs read Tatoeba's three forms, strip the sentences and skip blank and bad lines? / ¿Lee read_pairs las tres formas de Tatoeba, recorta las frases y salta las líneas vacías y erróneas?"""
    read_pairs = reference.load("corpus").read_pairs
    texts = [_corpus_text(rng) for _ in range(3)]
    steps = []
    for i, text in enumerate(texts):
        steps += [[f"path{i}", "scratch_file", [f"pairs{i}.txt", text], {}],
                  [f"got{i}", "corpus.read_pairs", [{"$": f"path{i}"}], {}]]
    out = student.script(steps, returns=[f"got{i}" for i in range(len(texts))])
    for i, text in enumerate(texts):
        got = out[f"got{i}"]
        want = [list(p) for p in _reference_read(read_pairs, text)]
        try:
            checks.plain_equal(got, want, f"read_pairs (a file of {len(text.splitlines())} lines)")
        except checks.CheckFailure as failure:
            raise variants.named(failure, got, variants.read_mistakes(text)) from None


def _reference_read(read_pairs, text):
    """The reference's pairs for a file holding ``text``, written as the student's is."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pairs.txt")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return read_pairs(path)


def _long_pairs(rng, max_words):
    """Pairs around the limit: each side max_words - 1, max_words or max_words + 1 words,
    words sometimes separated by several spaces; every combination present."""
    en_words, es_words = made_up(rng, 10), made_up(rng, 10, TARGET_SOUNDS)

    def side(words, n):
        gaps = [pick(rng, [" ", " ", " ", "  ", "\t"]) for _ in range(n - 1)]
        chosen = [pick(rng, words) for _ in range(n)]
        return "".join(w + g for w, g in zip(chosen, gaps + [""]))

    sizes = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)]
    sizes += [(pick(rng, [-1, 0, 1]), pick(rng, [-1, 0, 1])) for _ in range(checks.randint(rng, 3, 8))]
    order = [sizes[i] for i in torch.randperm(len(sizes), generator=rng).tolist()]
    pairs = [[side(en_words, max_words + a), side(es_words, max_words + b)] for a, b in order]
    # two spaces in a row on a side of exactly max_words words, certainly (.split(" ") overcounts it)
    for k, (a, b) in enumerate(order):
        if (a, b) == (0, -1):
            words = pairs[k][0].split()
            pairs[k][0] = "  ".join(words) if len(words) > 1 else pairs[k][0]
    return pairs


@pytest.mark.points(1)
def test_drop_long_pairs(student, rng):
    """Does drop_long_pairs keep, in order, the pairs with at most max_words words on both sides? / ¿Conserva drop_long_pairs, en orden, los pares con como mucho max_words palabras en los dos lados?"""
    drop_long_pairs = reference.load("corpus").drop_long_pairs
    max_words = checks.randint(rng, 2, 7)
    pairs = _long_pairs(rng, max_words)
    default = _long_pairs(rng, 15)
    out = student.script([["short", "corpus.drop_long_pairs", [pairs], {"max_words": max_words}],
                          ["default", "corpus.drop_long_pairs", [default], {}]], returns=["short", "default"])
    for got, given, limit, call in ((out["short"], pairs, max_words, f"drop_long_pairs(pairs, max_words={max_words})"),
                                    (out["default"], default, 15, "drop_long_pairs(pairs) (max_words=15)")):
        want = [list(p) for p in drop_long_pairs(given, limit)]
        try:
            checks.plain_equal(got, want, call)
        except checks.CheckFailure as failure:
            found = variants.named(failure, got, variants.drop_mistakes(given, limit))
            if not found.named and isinstance(got, list) and sorted(map(tuple, got)) == sorted(map(tuple, want)):
                found = found.naming(checks.Mistake(*variants.SORTED))
            raise found from None


def _grouped(rng):
    """Pairs of 25-60 English sentences with 1-4 translations each, in shuffled order (as
    Tatoeba's, where one sentence's translations need not be neighbours); at least a third
    of the sentences have several, and every pair is distinct."""
    n = checks.randint(rng, 25, 60)
    english = _sentences(rng, n)
    counts = [checks.randint(rng, 1, 4) if i % 3 else checks.randint(rng, 2, 4) for i in range(n)]
    spanish = _sentences(rng, sum(counts), spanish=True)
    pairs, k = [], 0
    for en, c in zip(english, counts):
        for _ in range(c):
            pairs.append([en, spanish[k]])
            k += 1
    return [pairs[i] for i in torch.randperm(len(pairs), generator=rng).tolist()]


def _check_split(got, pairs, share, call):
    """``got`` is (train, valid) by English sentence, in order, of the right size."""
    checks.expect(isinstance(got, list) and len(got) == 2 and all(isinstance(part, list) for part in got),
                  f"{call} must return two lists (train, valid), got {type(got).__name__}",
                  f"{call} debe devolver dos listas (train, valid), se obtuvo {type(got).__name__}")
    train, valid = got
    checks.expect(all(isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in train + valid),
                  f"{call}: every item of train and valid must be a pair (english, spanish) of the input",
                  f"{call}: cada elemento de train y valid debe ser un par (inglés, español) de la entrada")
    checks.expect(sorted(map(tuple, train + valid)) == sorted(map(tuple, pairs)),
                  f"{call}: train + valid must hold every pair exactly once ({len(pairs)} pairs given, "
                  f"{len(train)} + {len(valid)} returned)",
                  f"{call}: train + valid deben contener cada par exactamente una vez (se dieron {len(pairs)} pares, "
                  f"se devolvieron {len(train)} + {len(valid)})")
    both = sorted({en for en, _ in train} & {en for en, _ in valid})
    checks.expect(not both, f"{call}: {len(both)} English sentences are in both train and valid, e.g. {both[:2]}",
                  f"{call}: {len(both)} frases inglesas están en train y en valid, p. ej. {both[:2]}",
                  mistake=checks.Mistake(*variants.BY_LINE))
    place = {tuple(p): i for i, p in enumerate(pairs)}
    for name, part in (("train", train), ("valid", valid)):
        at = [place[tuple(p)] for p in part]
        checks.expect(at == sorted(at), f"{call}: {name} is not in the order of the input pairs",
                      f"{call}: {name} no está en el orden de los pares de entrada",
                      mistake=checks.Mistake(*variants.SPLIT_ORDER))
    wanted = round(share * len(pairs))
    sizes = {}
    for en, _ in valid:
        sizes[en] = sizes.get(en, 0) + 1
    biggest = max(sizes.values(), default=0)
    checks.expect(wanted <= len(valid) and len(valid) - biggest < wanted,
                  f"{call}: valid holds {len(valid)} pairs; it must reach round({share} * {len(pairs)}) = {wanted} and "
                  "stop at the English sentence that reaches it (whole sentences are added while fewer are held)",
                  f"{call}: valid tiene {len(valid)} pares; debe llegar a round({share} * {len(pairs)}) = {wanted} y "
                  "detenerse en la frase inglesa con la que llega (se añaden frases enteras mientras haya menos)")


@pytest.mark.points(2)
def test_split_by_source_groups(student, rng):
    """Does split_by_source keep all pairs of one English sentence on one side, in order, with about valid_share of them in valid? / ¿Deja split_by_source todos los pares de una frase inglesa en un mismo lado, en orden, con cerca de valid_share de ellos en valid?"""
    cases = [(_grouped(rng), pick(rng, [0.1, 0.15, 0.2, 0.25, 0.3]), checks.randint(rng, 0, 10_000)) for _ in range(3)]
    out = student.script([[f"s{i}", "corpus.split_by_source", [pairs], {"valid_share": share, "seed": seed}]
                          for i, (pairs, share, seed) in enumerate(cases)], returns=[f"s{i}" for i in range(len(cases))])
    for i, (pairs, share, seed) in enumerate(cases):
        _check_split(out[f"s{i}"], pairs, share, f"split_by_source(pairs, valid_share={share}, seed={seed})")


@pytest.mark.points(1)
def test_split_by_source_seeded(student, rng):
    """Does split_by_source give the same split for the same seed, another for another seed, and refuse a valid_share outside [0, 1)? / ¿Da split_by_source la misma división con la misma semilla, otra con otra semilla, y rechaza un valid_share fuera de [0, 1)?"""
    pairs = _grouped(rng)
    seed = checks.randint(rng, 0, 10_000)
    steps = [["a", "corpus.split_by_source", [pairs], {"valid_share": 0.2, "seed": seed}],
             ["b", "corpus.split_by_source", [pairs], {"valid_share": 0.2, "seed": seed}]]
    steps += [[f"o{k}", "corpus.split_by_source", [pairs], {"valid_share": 0.2, "seed": seed + k}] for k in (1, 2, 3)]
    steps += [["none", "corpus.split_by_source", [pairs], {"valid_share": 0.0, "seed": seed}]]
    out = student.script(steps, returns=[s[0] for s in steps])
    call = f"split_by_source(pairs, valid_share=0.2, seed={seed})"
    _check_split(out["a"], pairs, 0.2, call)
    checks.expect(out["a"] == out["b"], f"{call} called twice gave two different splits",
                  f"{call} llamado dos veces dio dos divisiones distintas", mistake=checks.Mistake(*variants.UNSEEDED))
    valids = [out["a"][1]] + [out[f"o{k}"][1] if isinstance(out[f"o{k}"], list) and len(out[f"o{k}"]) == 2 else None
                              for k in (1, 2, 3)]
    checks.expect(any(v != valids[0] for v in valids[1:]),
                  f"seeds {seed} to {seed + 3} all gave the same validation set",
                  f"las semillas {seed} a {seed + 3} dieron todas el mismo conjunto de validación",
                  mistake=checks.Mistake(*variants.SEED_IGNORED))
    checks.plain_equal(out["none"], [pairs, []], f"split_by_source(pairs, valid_share=0.0, seed={seed})")
    for share in (1.0, -0.1):
        error = student.error_of("corpus.split_by_source", pairs, valid_share=share, seed=seed)
        checks.expect(error is not None and error["type"] == "ValueError",
                      f"split_by_source(pairs, valid_share={share}) must raise ValueError, "
                      f"{'raised ' + error['type'] if error else 'it returned'}",
                      f"split_by_source(pairs, valid_share={share}) debe lanzar ValueError, "
                      f"{'lanzó ' + error['type'] if error else 'devolvió un valor'}",
                      mistake=checks.unrefused("valid_share", share, "0 <= valid_share < 1", error))
