"""Hidden graders for a6_translator/batching.py.

Sentence pairs of made-up words, some longer than ``max_len``; the expected ids and
batches come from the reference TranslationDataset and collate.
"""

import pytest
import torch

from autograder import reference
from autograder.graders.a6_translator import variants
from autograder.graders.a6_translator.helpers import TARGET_SOUNDS, made_up, sentence
from autograder.grading import checks


@pytest.mark.points(2)
def test_dataset_items(student, rng):
    """Is an item (source ids, <sos> + target ids + <eos>) as int64, and does max_len cut both sides, keeping <eos> last? / ¿Es un elemento (ids del origen, <sos> + ids del destino + <eos>) en int64, y recorta max_len ambos lados manteniendo <eos> al final?"""
    vocab, batching = reference.load("vocab"), reference.load("batching")
    src_words, tgt_words = made_up(rng, 8), made_up(rng, 8, TARGET_SOUNDS)
    known_src, known_tgt = src_words[:6], tgt_words[:6]  # the last two are unknown words
    pairs = [(sentence(rng, src_words, 1, 9), sentence(rng, tgt_words, 1, 9)) for _ in range(6)]
    pairs += [(sentence(rng, src_words, 9, 9), sentence(rng, tgt_words, 9, 9))]  # over max_len on both sides
    pairs[0] = (pairs[0][0] + " " + src_words[7], tgt_words[6] + " " + pairs[0][1])  # unknown words, certainly
    # An empty source (torch.tensor([]) is float32 unless told int64) and a one-word target,
    # shorter than max_len, which must come out as it is: cut and re-terminated only when too long.
    pairs[1] = ("", tgt_words[checks.randint(rng, 0, 5)])
    # Each side too long while the other is short: each side is cut on its own length.
    pairs += [(sentence(rng, src_words, 9, 9), tgt_words[checks.randint(rng, 0, 5)]),
              (src_words[checks.randint(rng, 0, 5)], sentence(rng, tgt_words, 9, 9))]
    max_len = checks.randint(rng, 4, 7)
    # Exactly at the limit: max_len source words, and a target of max_len ids with <sos> and
    # <eos> (max_len - 2 words); neither is cut.
    pairs += [(sentence(rng, src_words, max_len, max_len), sentence(rng, tgt_words, max_len - 2, max_len - 2))]
    want = {None: batching.TranslationDataset(pairs, vocab.Vocab(known_src), vocab.Vocab(known_tgt)),
            max_len: batching.TranslationDataset(pairs, vocab.Vocab(known_src), vocab.Vocab(known_tgt), max_len)}
    steps = [["sv", "vocab.Vocab", [known_src], {}], ["tv", "vocab.Vocab", [known_tgt], {}],
             ["full", "batching.TranslationDataset", [pairs, {"$": "sv"}, {"$": "tv"}], {}],
             ["cut", "batching.TranslationDataset", [pairs, {"$": "sv"}, {"$": "tv"}], {"max_len": max_len}],
             ["n", "$full.__len__", [], {}]]
    steps += [[f"{name}{i}", f"${name}.__getitem__", [i], {}] for name in ("full", "cut") for i in range(len(pairs))]
    out = student.script(steps, returns=["n"] + [step[0] for step in steps[5:]])
    checks.plain_equal(out["n"], len(pairs), "len(TranslationDataset(pairs, ...))")
    got = {(name, i): out[f"{name}{i}"] for name in ("full", "cut") for i in range(len(pairs))}
    try:
        for name, limit in (("full", None), ("cut", max_len)):
            for i, pair in enumerate(pairs):
                what = f"TranslationDataset(max_len={limit})[{i}] for {pair}"
                src, tgt = checks.pair(got[name, i], what)
                want_src, want_tgt = want[limit][i]
                checks.equal(src, want_src, f"{what}: source ids")
                checks.equal(tgt, want_tgt, f"{what}: target ids")
    except checks.CheckFailure as failure:
        sv, tv = want[None].src_vocab.stoi, want[None].tgt_vocab.stoi

        def items(**switches):
            return {(name, i): variants.item(pair, sv, tv, limit, **switches)
                    for name, limit in (("full", None), ("cut", max_len)) for i, pair in enumerate(pairs)}

        plain = {key: [value.tolist() for value in pair] if isinstance(pair, list) and all(
            isinstance(value, torch.Tensor) for value in pair) else None for key, pair in got.items()}
        failure = variants.named(failure, plain, [
            variants.mistake(*variants.NO_EOS, lambda: items(eos=False)),
            variants.mistake(*variants.CUT_EOS, lambda: items(cut_eos=False)),
            variants.mistake(*variants.ALWAYS_CUT, lambda: items(always_cut=True)),
            variants.mistake(*variants.TARGET_CUT_BACK, lambda: items(cut_tgt_back=True)),
            variants.mistake(*variants.SOURCE_UNCUT, lambda: items(cut_src=False)),
            variants.mistake(*variants.SOURCE_CUT_BACK, lambda: items(cut_src="back")),
            variants.mistake(*variants.UNKNOWN_DROPPED, lambda: items(keep_unknown=False)),
            variants.mistake(*variants.PAIR_READ_SWAPPED, lambda: items(swapped=True))] + [
            variants.mistake(*_shifted(k, len(pairs)), lambda k=k: {(name, i): value for (name, j), value in items().items()
                                                          for i in [(j - k) % len(pairs)]})
            for k in range(1, len(pairs))],
            lambda a, m: a == {k: list(v) for k, v in m.items()})
        raise failure.shaped(_cut_shape(plain, items(), max_len), replace=True) from None


def _cut_shape(plain, expected, max_len):
    """The shape of the first cut side that differs (variants.cut_shape), read only when every
    uncut item is right (otherwise the cut is not what differs)."""
    if any(plain["full", i] != [list(side) for side in want] for (name, i), want in expected.items() if name == "full"):
        return None
    for (name, i), pair in plain.items():
        if name != "cut" or pair is None or len(pair) != 2:
            continue
        for side, got, want, full in zip(("source", "target"), pair, expected["cut", i], expected["full", i]):
            shape = variants.cut_shape(got, list(want), list(full), max_len, side)
            if shape:
                return shape
    return None


def _shifted(k, n):
    """The mistake of items served from pairs[(i + k) % n], read as the smaller shift (k = n - 1
    is pairs[i - 1], whose item 0 is the last pair)."""
    shift = k if k <= n // 2 else k - n
    sign = "+" if shift > 0 else "-"
    return (f"item i holds pair i {sign} {abs(shift)} (item 0 is pair {shift % n}): index the pairs with i itself, "
            "pairs[i]",
            f"el elemento i contiene el par i {sign} {abs(shift)} (el elemento 0 es el par {shift % n}): indexa los "
            "pares con el propio i, pairs[i]")


LAST_ROW_ONLY = ("only the last row is filled, the others are all padding: the copy of each item into the batch sits "
                 "after the loop (its indentation); it belongs inside it",
                 "solo se rellena la última fila, las demás son todo relleno: la copia de cada elemento en el lote "
                 "está después del bucle (su sangría); va dentro de él")


@pytest.mark.points(1)
def test_collate_pads_on_the_right(student, rng):
    """Does collate stack items into (B, S) and (B, T) int64 batches, right-padded with pad_id? / ¿Apila collate los elementos en lotes (B, S) y (B, T) int64, rellenados a la derecha con pad_id?"""
    batching = reference.load("batching")
    pad_id = checks.randint(rng, 1, 3)  # not 0, so that a collate that ignores pad_id shows
    B = checks.randint(rng, 2, 6)
    lengths = [(checks.randint(rng, 1, 9), checks.randint(rng, 2, 9)) for _ in range(B)]
    lengths[0] = (lengths[1][0] % 9 + 1, lengths[1][1] % 8 + 2)  # padding on both sides, certainly
    S, T = max(s for s, _ in lengths), max(t for _, t in lengths)
    if S == T:  # the two sides padded to one common length would look right
        i = [s for s, _ in lengths].index(S)
        lengths[i] = (S + 1, lengths[i][1])
    batch = [(torch.randint(4, 30, (S,), generator=rng), torch.randint(4, 30, (T,), generator=rng)) for S, T in lengths]
    want_src, want_tgt = batching.collate(batch, pad_id=pad_id)
    try:
        got = checks.pair(student.call("batching.collate", batch, pad_id=pad_id),
                          f"collate(batch of {B}, pad_id={pad_id})")
    except checks.CheckFailure as failure:
        raise _crash_named(failure, student, rng, pad_id) from None
    try:
        checks.equal(got[0], want_src, f"collate(batch, pad_id={pad_id}): source batch")
        checks.equal(got[1], want_tgt, f"collate(batch, pad_id={pad_id}): target batch")
    except checks.CheckFailure as failure:
        if _rows_reordered(got, (want_src, want_tgt)):
            raise failure.naming(checks.Mistake(*variants.ROWS_REORDERED)) from None
        found = checks.recognise(got, [
            variants.mistake(*variants.LEFT_PADDED, lambda: variants.collate(batch, pad_id, right=False)),
            variants.mistake(*variants.PAD_ZERO, lambda: variants.collate(batch, 0)),
            variants.mistake(*variants.COMMON_LENGTH, lambda: variants.collate(batch, pad_id, common=True)),
            variants.mistake(*variants.PAIR_SWAPPED, lambda: variants.collate(batch, pad_id)[::-1]),
            variants.mistake(*LAST_ROW_ONLY, lambda: [torch.cat([torch.full_like(w[:-1], pad_id), w[-1:]])
                                                      for w in (want_src, want_tgt)])],
            lambda a, m: all(isinstance(x, torch.Tensor) and torch.equal(x, y) for x, y in zip(a, m)))
        side = None if found else _filled_from_the_other_side(got, batch)
        if side is not None:  # only where no whole-output variant matched: a swapped pair also fits it
            found = _other_side(side)
        raise (failure.naming(found) if found else failure) from None


def _other_side(side: int) -> checks.Mistake:
    """The mistake of a ``side`` (0: source, 1: target) filled from the other side's items."""
    names = (("source", "target"), ("origen", "destino"))
    return checks.Mistake(
        f"the {names[0][side]} batch is filled from the {names[0][1 - side]} items (item[{1 - side}] where "
        f"item[{side}] belongs, as in a loop copied from the other side's): each batch holds its own side",
        f"el lote de {names[1][side]} se llena con los elementos de {names[1][1 - side]} (item[{1 - side}] "
        f"donde va item[{side}], como en un bucle copiado del otro lado): cada lote lleva su propio lado")


def _crash_named(failure, student, rng, pad_id):
    """``failure`` (collate raised), naming a side filled from the other side's items: that
    raises where an item is longer than its batch's width, so it is shown again on items
    whose two sides have equal lengths, where it cannot raise."""
    batch = [(torch.randint(4, 30, (n,), generator=rng), torch.randint(30, 60, (n,), generator=rng))
             for n in (checks.randint(rng, 2, 5), 6)]
    try:
        got = checks.pair(student.call("batching.collate", batch, pad_id=pad_id), "collate")
    except checks.CheckFailure:
        return failure
    side = _filled_from_the_other_side(got, batch)
    return failure if side is None else failure.naming(_other_side(side))


def _filled_from_the_other_side(got, batch) -> int | None:
    """The side (0: source, 1: target) whose rows begin with the other side's items, as far
    as both go, or None."""
    for side in (0, 1):
        rows = got[side]
        if not (isinstance(rows, torch.Tensor) and rows.dim() == 2 and rows.size(0) == len(batch)):
            continue
        n = rows.size(1)
        if all(torch.equal(rows[b, :min(len(item[1 - side]), n)], item[1 - side][:n]) for b, item in enumerate(batch)):
            return side
    return None


def _rows_reordered(got, want) -> bool:
    """The right (source, target) rows, in another order than the batch's items."""
    if not all(isinstance(g, torch.Tensor) and g.shape == w.shape for g, w in zip(got, want)):
        return False
    rows = sorted(zip(map(tuple, got[0].tolist()), map(tuple, got[1].tolist())))
    return rows == sorted(zip(map(tuple, want[0].tolist()), map(tuple, want[1].tolist())))
