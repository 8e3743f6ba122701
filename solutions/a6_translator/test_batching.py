"""Public tests for batching.py. Run them with ``pytest assignments/a6_translator``."""

import torch

from batching import TranslationDataset, collate, make_loader
from vocab import Vocab

PAIRS = [("i am tom", "soy tom"), ("run", "corre"), ("i run", "yo corro")]
SRC_WORDS = ["i", "am", "tom", "run"]  # ids 4 5 6 7
TGT_WORDS = ["soy", "tom", "corre", "yo", "corro"]  # ids 4 5 6 7 8


def dataset(max_len=None):
    return TranslationDataset(PAIRS, Vocab(SRC_WORDS), Vocab(TGT_WORDS), max_len)


def _dtype_message(what, src, tgt):
    return (f"{what} gave src {src.dtype} and tgt {tgt.dtype}, expected both torch.int64: build the id tensors with "
            "dtype=torch.long. / "
            f"{what} dio src {src.dtype} y tgt {tgt.dtype}, se esperaba torch.int64 en los dos: crea los tensores de "
            "ids con dtype=torch.long.")


def test_items_frame_the_target_only():
    """Is an item (source ids, <sos> + target ids + <eos>) as int64 tensors?"""
    src, tgt = dataset()[0]
    assert src.dtype == tgt.dtype == torch.int64, _dtype_message("dataset[0]", src, tgt)
    assert src.tolist() == [4, 5, 6], (
        f"dataset[0] source ('i am tom') is {src.tolist()}, expected [4, 5, 6]: the source ids without special "
        "tokens (only the target gets <sos>=1 and <eos>=2; unlike lecture notebooks 002 and 003, which frame the "
        "source too, the encoder needs no specials here). / "
        f"El origen de dataset[0] ('i am tom') es {src.tolist()}, se esperaba [4, 5, 6]: los ids del origen sin "
        "tokens especiales (solo el destino lleva <sos>=1 y <eos>=2; a diferencia de los cuadernos de clase 002 y "
        "003, que también enmarcan el origen, aquí el codificador no necesita especiales)."
    )
    assert tgt.tolist() == [1, 4, 5, 2], (
        f"dataset[0] target ('soy tom') is {tgt.tolist()}, expected [1, 4, 5, 2]: <sos>=1, the word ids, <eos>=2 "
        "(teacher forcing needs both; encode the target with add_sos_eos=True). / "
        f"El destino de dataset[0] ('soy tom') es {tgt.tolist()}, se esperaba [1, 4, 5, 2]: <sos>=1, los ids de las "
        "palabras, <eos>=2 (el teacher forcing necesita los dos; codifica el destino con add_sos_eos=True)."
    )


def test_max_len_truncates_and_keeps_eos():
    """With max_len=3, is the source cut to 3 ids and the target to <sos> word <eos>?"""
    data = dataset(max_len=3)
    src, tgt = data[0]
    assert src.tolist() == [4, 5, 6], (
        f"With max_len=3, dataset[0] source ('i am tom') is {src.tolist()}, expected [4, 5, 6]: the source keeps "
        "its first max_len ids (it has no <sos>/<eos> to make room for). / "
        f"Con max_len=3, el origen de dataset[0] ('i am tom') es {src.tolist()}, se esperaba [4, 5, 6]: el origen "
        "conserva sus primeros max_len ids (no tiene <sos>/<eos> a los que hacer sitio)."
    )
    long_src = TranslationDataset(PAIRS, Vocab(SRC_WORDS), Vocab(TGT_WORDS), 2)[0][0].tolist()
    assert long_src == [4, 5], (
        f"With max_len=2, dataset[0] source ('i am tom', ids [4, 5, 6]) is {long_src}, expected [4, 5]: a source "
        "longer than max_len is cut to its first max_len ids too, not only the target. / "
        f"Con max_len=2, el origen de dataset[0] ('i am tom', ids [4, 5, 6]) es {long_src}, se esperaba [4, 5]: un "
        "origen más largo que max_len también se recorta a sus primeros max_len ids, no solo el destino."
    )
    got = tgt.tolist()
    if got == [1, 4, 5, 2]:
        hint = ("It was not cut: max_len counts <sos> and <eos> too.",
                "No se ha recortado: max_len cuenta también <sos> y <eos>.")
    elif len(got) == 3 and got[-1:] != [2]:
        hint = ("The cut lost <eos>: a truncated target must still end with <eos>=2.",
                "El recorte perdió <eos>: un destino recortado debe terminar igualmente en <eos>=2.")
    else:
        hint = ("Keep the first max_len - 1 ids and end with <eos>=2.",
                "Conserva los primeros max_len - 1 ids y termina con <eos>=2.")
    assert got == [1, 4, 2], (
        f"With max_len=3, dataset[0] target ('soy tom', full [1, 4, 5, 2]) is {got}, expected [1, 4, 2]: at most "
        f"max_len ids including <sos> and <eos>, and <eos> stays last. {hint[0]} / "
        f"Con max_len=3, el destino de dataset[0] ('soy tom', completo [1, 4, 5, 2]) es {got}, se esperaba "
        f"[1, 4, 2]: como mucho max_len ids contando <sos> y <eos>, y <eos> sigue al final. {hint[1]}"
    )
    got = data[1][1].tolist()
    assert got == [1, 6, 2], (
        f"With max_len=3, dataset[1] target ('corre') is {got}, expected [1, 6, 2]: a target of exactly max_len "
        "ids already fits and must stay as it is. / "
        f"Con max_len=3, el destino de dataset[1] ('corre') es {got}, se esperaba [1, 6, 2]: un destino de "
        "exactamente max_len ids ya cabe y debe quedarse como está."
    )


def _collate_hint(got, want, pad):
    if len(got) != len(want):
        return ("The batch must be first, (B, S): one row per sentence (pad_sequence needs batch_first=True).",
                "El lote va primero, (B, S): una fila por frase (pad_sequence necesita batch_first=True).")
    if got[0] != want[0] and got[0] == sorted(want[0], key=lambda t: t != pad):
        return ("The padding is on the left: each sentence goes first in its row and pad_id after it.",
                "El relleno está a la izquierda: cada frase va al principio de su fila y pad_id detrás.")
    return ("Each row holds its sentence's ids first, then pad_id up to the longest sentence of the batch.",
            "Cada fila lleva primero los ids de su frase y luego pad_id hasta la frase más larga del lote.")


def test_collate_pads_on_the_right():
    """Does collate right-pad both sides to the longest sentence of the batch?"""
    items = [(torch.tensor([7]), torch.tensor([1, 6, 2])), (torch.tensor([4, 5, 6]), torch.tensor([1, 4, 5, 2]))]
    src, tgt = collate(items, pad_id=0)
    assert src.dtype == tgt.dtype == torch.int64, _dtype_message("collate", src, tgt)
    for name, got, want in (("src", src.tolist(), [[7, 0, 0], [4, 5, 6]]),
                            ("tgt", tgt.tolist(), [[1, 6, 2, 0], [1, 4, 5, 2]])):
        hint = _collate_hint(got, want, 0) if got != want else ("", "")
        assert got == want, (
            f"collate(pad_id=0) gave {name} {got}, expected {want}. {hint[0]} / "
            f"collate(pad_id=0) dio {name} {got}, se esperaba {want}. {hint[1]}"
        )
    src, tgt = collate(items, pad_id=9)
    for name, got, want in (("src", src.tolist(), [[7, 9, 9], [4, 5, 6]]),
                            ("tgt", tgt.tolist(), [[1, 6, 2, 9], [1, 4, 5, 2]])):
        if got == [[v if v != 9 else 0 for v in row] for row in want]:
            hint = (f"The pad_id argument was ignored for {name}: fill both batches with pad_id, not with 0.",
                    f"Se ignoró el argumento pad_id en {name}: rellena ambos lotes con pad_id, no con 0.")
        else:
            hint = ("Fill the positions after each sentence with pad_id.",
                    "Rellena con pad_id las posiciones tras cada frase.")
        assert got == want, (
            f"collate(pad_id=9) gave {name} {got}, expected {want}. {hint[0]} / "
            f"collate(pad_id=9) dio {name} {got}, se esperaba {want}. {hint[1]}"
        )


def test_loader_gives_padded_batches():
    """Does make_loader(shuffle=False) give (B, S) and (B, T) batches in order?"""
    batches = list(make_loader(dataset(), batch_size=2, shuffle=False))
    shapes = [tuple(s.shape) for s, _ in batches]
    assert shapes == [(2, 3), (1, 2)], (
        f"make_loader(batch_size=2, shuffle=False) gave source batches of shapes {shapes}, expected [(2, 3), (1, 2)] "
        "(B, S): make_loader is given code built on your TranslationDataset and collate, so fix the tests above "
        "first. / "
        f"make_loader(batch_size=2, shuffle=False) dio lotes de origen de formas {shapes}, se esperaba "
        "[(2, 3), (1, 2)] (B, S): make_loader viene dado y usa tu TranslationDataset y tu collate, así que arregla "
        "antes los tests anteriores."
    )
    got = batches[1][1].tolist()
    assert got == [[1, 7, 8, 2]], (
        f"The second batch's target ('yo corro') is {got}, expected [[1, 7, 8, 2]] (<sos> yo corro <eos>): fix "
        "TranslationDataset and collate first (see the tests above). / "
        f"El destino del segundo lote ('yo corro') es {got}, se esperaba [[1, 7, 8, 2]] (<sos> yo corro <eos>): "
        "arregla antes TranslationDataset y collate (mira los tests anteriores)."
    )
