"""Public tests for translation.py, on a scripted word-by-word model.

Run them with ``pytest assignments/a6_translator``.
"""

import inspect
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn

from translation import translate
from vocab import Vocab

SRC_WORDS = ["hello", "world", "!"]  # ids 4 5 6
TGT_WORDS = ["hola", "mundo", "!", "¡"]  # ids 4 5 6 7


class WordByWordModel(nn.Module):
    """Emits, at step t, the translation of source word t, then <eos>; encode/decode like
    the course's Transformer."""

    def __init__(self, max_len=8):
        super().__init__()
        self.config = SimpleNamespace(max_len=max_len, pad_id=0)
        self.register_buffer("table", torch.tensor([0, 0, 0, 3, 4, 5, 6]))  # source id -> target id
        self.unused = nn.Parameter(torch.zeros(1))

    def _check(self, what, what_es, length):
        """What the course's Transformer would fail on, said plainly: dropout on, or more
        positions than its positional table (model.config.max_len) covers."""
        if self.training:
            raise RuntimeError(
                "translate ran the model in training mode (dropout on): call model.eval() before decoding. / "
                "translate ejecutó el modelo en modo entrenamiento (dropout activo): llama a model.eval() antes de "
                "decodificar.")
        if length > self.config.max_len:
            raise ValueError(
                f"{what} has {length} positions, more than model.config.max_len = {self.config.max_len}, where the "
                "positional table ends: cut each source to model.config.max_len words and decode at most "
                "min(max_len, model.config.max_len) tokens. / "
                f"{what_es} tiene {length} posiciones, más que model.config.max_len = {self.config.max_len}, donde "
                "acaba la tabla posicional: recorta cada origen a model.config.max_len palabras y decodifica como "
                "mucho min(max_len, model.config.max_len) tokens.")

    def encode(self, src):
        self._check("the source batch", "el lote de origen", src.size(1))
        return self.table[src], (src != 0)[:, None, None, :]  # memory: the target ids (B, S)

    def decode(self, tgt, memory, src_mask):
        self._check("the decoder input", "la entrada del decodificador", tgt.size(1))
        B, T = tgt.shape
        nxt = torch.zeros(B, T, dtype=torch.long)
        n = min(T, memory.size(1))
        nxt[:, :n] = memory[:, :n]
        nxt[nxt == 0] = 2  # after the last source word: <eos>
        return F.one_hot(nxt, 4 + len(TGT_WORDS)).float() * 10  # (B, T, V)


def test_translates_a_batch_in_order():
    """Are sentences cleaned, translated together and returned in order, "" for an empty one?"""
    out = translate(WordByWordModel(), ["Hello, world!", "...", "world"], Vocab(SRC_WORDS), Vocab(TGT_WORDS))
    want = ["hola <unk> mundo !", "", "mundo"]
    if out == want:
        hint = ("", "")
    elif not isinstance(out, list) or len(out) != 3:
        hint = ("Return a list with one string per input sentence; an empty one gives \"\" in its place.",
                "Devuelve una lista con una cadena por frase de entrada; una vacía da \"\" en su sitio.")
    elif out[0] == "<unk> <unk>":
        hint = ("\"Hello, world!\" became two unknown words: clean each sentence with clean_text before encoding.",
                "\"Hello, world!\" se convirtió en dos palabras desconocidas: limpia cada frase con clean_text antes "
                "de codificarla.")
    elif sorted(out, key=str) == sorted(want):
        hint = ("The right translations in the wrong order: keep the order of the input sentences.",
                "Las traducciones correctas en otro orden: conserva el orden de las frases de entrada.")
    elif out[0] == want[0] and out[2] == "":
        hint = ("\"world\" came out empty while the long sentence was right: pad the batch on the right (with "
                "padding on the left the short row starts with <pad>).",
                "\"world\" salió vacía mientras la frase larga estaba bien: rellena el lote por la derecha (con el "
                "relleno a la izquierda la fila corta empieza por <pad>).")
    else:
        hint = ("Clean and encode each sentence, decode the non-empty ones in one right-padded batch, cut each row "
                "at its first <eos> and turn the ids back into words. translate relies on clean_text, Vocab and "
                "decode: if their tests fail, fix those first.",
                "Limpia y codifica cada frase, decodifica las no vacías en un lote rellenado por la derecha, corta "
                "cada fila en su primer <eos> y vuelve a convertir los ids en palabras. translate usa clean_text, "
                "Vocab y decode: si sus tests fallan, arréglalos antes.")
    assert out == want, (
        f"translate([\"Hello, world!\", \"...\", \"world\"]) gave {out!r}, expected {want!r} (\",\" is not in "
        f"the source vocabulary, so it is <unk>; \"...\" is empty after cleaning). {hint[0]} / "
        f"translate([\"Hello, world!\", \"...\", \"world\"]) dio {out!r}, se esperaba {want!r} (\",\" no está "
        f"en el vocabulario de origen, así que es <unk>; \"...\" queda vacía tras limpiarla). {hint[1]}"
    )
    out = translate(WordByWordModel(), ["world", "world !", "Hello, world!"], Vocab(SRC_WORDS), Vocab(TGT_WORDS))
    want = ["mundo", "mundo !", "hola <unk> mundo !"]
    assert out == want, (
        f"translate([\"world\", \"world !\", \"Hello, world!\"]) gave {out!r}, expected {want!r}: output i is "
        "the translation of sentence i. A batch sorted by length (or any other order) must be put back in the "
        f"input's order / translate([\"world\", \"world !\", \"Hello, world!\"]) dio {out!r}, se esperaba "
        f"{want!r}: la salida i es la traducción de la frase i. Un lote ordenado por longitud (o de otro modo) "
        "debe volver al orden de la entrada"
    )


def test_long_sources_are_truncated_to_the_model():
    """Is a source longer than model.config.max_len cut to that many words?"""
    out = translate(WordByWordModel(max_len=3), ["hello world hello world hello"], Vocab(SRC_WORDS),
                    Vocab(TGT_WORDS))
    assert out == ["hola mundo hola"], (
        f"With model.config.max_len=3, translating \"hello world hello world hello\" gave {out!r}, expected "
        "['hola mundo hola']: cut a source longer than model.config.max_len to its first max_len words, and "
        "never generate more than model.config.max_len tokens. / "
        f"Con model.config.max_len=3, traducir \"hello world hello world hello\" dio {out!r}, se esperaba "
        "['hola mundo hola']: recorta un origen más largo que model.config.max_len a sus primeras max_len "
        "palabras, y no generes nunca más de model.config.max_len tokens."
    )


def test_strategy_and_options_reach_decode(monkeypatch):
    """Does translate hand strategy, its options and min(max_len, model.config.max_len) to decode?"""
    import decoding
    import translation

    real, calls = decoding.decode, []

    def spy(*args, **kwargs):
        bound = inspect.signature(real).bind(*args, **kwargs)
        calls.append(dict(bound.arguments))
        bound.arguments["strategy"] = "greedy"  # the scripted model's translation whatever the strategy
        for name in ("beam_size", "length_penalty", "top_k", "top_p", "temperature", "generator"):
            bound.arguments.pop(name, None)
        return real(*bound.args, **bound.kwargs)

    monkeypatch.setattr(decoding, "decode", spy)
    if hasattr(translation, "decode"):
        monkeypatch.setattr(translation, "decode", spy)
    out = translate(WordByWordModel(max_len=6), ["hello world"], Vocab(SRC_WORDS), Vocab(TGT_WORDS),
                    strategy="beam", max_len=20, beam_size=3)
    assert len(calls) == 1, (
        f"translate called decode {len(calls)} times for one sentence, expected once: decode the non-empty "
        "sentences together, in one batch. / "
        f"translate llamó a decode {len(calls)} veces para una frase, se esperaba una: decodifica las frases no "
        "vacías juntas, en un lote.")
    seen = calls[0]
    got = {name: seen.get(name) for name in ("strategy", "max_len")} | {"beam_size": seen.get("beam_size")}
    want = {"strategy": "beam", "max_len": 6, "beam_size": 3}
    assert got == want, (
        f"translate(..., strategy='beam', max_len=20, beam_size=3) with model.config.max_len=6 called decode with "
        f"{got}, expected {want}: pass strategy and the extra options (**decode_kwargs) on to decode, and cap "
        "max_len at model.config.max_len. / "
        f"translate(..., strategy='beam', max_len=20, beam_size=3) con model.config.max_len=6 llamó a decode con "
        f"{got}, se esperaba {want}: pasa strategy y las opciones extra (**decode_kwargs) a decode, y limita "
        "max_len a model.config.max_len.")
    specials = {name: seen.get(name, default) for name, default in (("sos_id", 1), ("eos_id", 2), ("pad_id", 0))}
    assert specials == {"sos_id": 1, "eos_id": 2, "pad_id": 0}, (
        f"translate called decode with {specials}, expected the target vocabulary's ids sos_id=1, eos_id=2, "
        "pad_id=0, in decode's order (model, src, strategy, max_len, sos_id, eos_id, pad_id); pass them by name. / "
        f"translate llamó a decode con {specials}, se esperaban los ids del vocabulario de destino sos_id=1, "
        "eos_id=2, pad_id=0, en el orden de decode (model, src, strategy, max_len, sos_id, eos_id, pad_id); "
        "pásalos por nombre.")
    assert out == ["hola mundo"], (
        f"translate gave {out!r}, expected ['hola mundo']. / translate dio {out!r}, se esperaba ['hola mundo'].")


def test_max_len_below_the_model_s_limits_the_output():
    """Does translate(..., max_len=2) stop after 2 tokens even when the model could go on?"""
    out = translate(WordByWordModel(max_len=8), ["hello world hello world"], Vocab(SRC_WORDS), Vocab(TGT_WORDS),
                    max_len=2)
    assert out == ["hola mundo"], (
        f"translate([\"hello world hello world\"], max_len=2) with model.config.max_len=8 gave {out!r}, expected "
        "['hola mundo']: decode at most min(max_len, model.config.max_len) tokens, so the caller's max_len wins "
        "when it is the smaller. / "
        f"translate([\"hello world hello world\"], max_len=2) con model.config.max_len=8 dio {out!r}, se esperaba "
        "['hola mundo']: decodifica como mucho min(max_len, model.config.max_len) tokens, así que gana el max_len "
        "de quien llama cuando es el menor.")
