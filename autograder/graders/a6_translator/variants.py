"""Reference versions of the classic a6 mistakes (not a test module).

Each function below is the reference code with switches that make one classic mistake.
Graders compute a mistake's output only after a check has failed (``checks.Mistake``), and
name the mistake whose output the student's matches; several graders also redraw their
inputs until every mistake aimed at them changes the result, so that no seed lets one pass.

Over 350 lines: one table of a6's mistakes, the code that makes each and the words that
name it, shared by every a6 grader.
"""

import copy
import re
import unicodedata

import torch
import torch.nn.functional as F

from autograder import reference
from autograder.grading import checks

SPECIALS = ["<pad>", "<sos>", "<eos>", "<unk>"]
PUNCTUATION, ACCENTED = "¿?¡!,", "áéíóúüñ"


def mistake(en: str, es: str, output) -> checks.Mistake:
    return checks.Mistake(en, es, output)


def named(failure: checks.CheckFailure, actual, mistakes, matches=lambda a, m: a == m):
    """``failure``, naming the first of ``mistakes`` whose output ``matches`` ``actual``."""
    found = checks.recognise(actual, mistakes, matches)
    return failure.naming(found) if found else failure


# ----------------------------------------------------------------------------- clean_text

def clean(text: str, *, nfc=True, canonical=True, lower=True, accents=True, spaced=True, delete=True) -> str:
    if nfc:
        text = unicodedata.normalize("NFC" if canonical else "NFKC", text)
    if lower:
        text = text.lower()
    if spaced:
        text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)
    text = re.sub(f"[^a-z0-9{ACCENTED if accents else ''}{PUNCTUATION}\\s]", "" if delete else " ", text)
    return " ".join(text.split())


CLEAN = {  # switch -> (English, Spanish) name of the mistake
    "lower": ("clean_text does not lower-case the text (.lower()) before deleting the characters that are not allowed",
              "clean_text no pasa el texto a minúsculas (.lower()) antes de borrar los caracteres no permitidos"),
    "accents": ("clean_text deletes the Spanish letters á é í ó ú ü ñ, which it must keep",
                "clean_text borra las letras á é í ó ú ü ñ, que debe conservar"),
    "nfc": ('clean_text does not apply unicodedata.normalize("NFC", ...) first, so a vowel followed by a combining '
            "accent loses the accent",
            'clean_text no aplica primero unicodedata.normalize("NFC", ...), así que una vocal seguida de un acento '
            "combinable pierde el acento"),
    "canonical": ('clean_text applies unicodedata.normalize("NFKC", ...), which also rewrites compatibility characters '
                  '(the ligature ﬁ becomes fi, ² becomes 2, full-width letters plain ones) that the exercise deletes: '
                  'use "NFC"',
                  'clean_text aplica unicodedata.normalize("NFKC", ...), que también reescribe los caracteres de '
                  'compatibilidad (la ligadura ﬁ pasa a fi, ² a 2, las letras de ancho completo a normales) que el '
                  'ejercicio borra: usa "NFC"'),
    "spaced": ("clean_text does not put a space on each side of ¿ ? ¡ ! and commas, which are tokens of their own",
               "clean_text no pone un espacio a cada lado de ¿ ? ¡ ! y las comas, que son tokens propios"),
    "delete": ("clean_text turns the other symbols into spaces instead of deleting them (\"don't\" must become \"dont\")",
               "clean_text convierte los demás símbolos en espacios en lugar de borrarlos (\"don't\" debe quedar \"dont\")"),
}


def clean_mistakes(texts, switches=tuple(CLEAN)):
    """Mistakes whose output is the list of ``texts`` cleaned with that mistake."""
    return [mistake(*CLEAN[s], (lambda s=s: [clean(t, **{s: False}) for t in texts])) for s in switches]


# ----------------------------------------------------------------------------- Vocab

SPECIALS_MISPLACED = mistake(
    "Vocab.__init__ does not put the four special tokens first, as <pad> <sos> <eos> <unk> at ids 0, 1, 2, 3",
    "Vocab.__init__ no pone primero los cuatro tokens especiales, como <pad> <sos> <eos> <unk> en los ids 0, 1, 2, 3",
    lambda: lambda itos: isinstance(itos, list) and itos[:4] != SPECIALS and all(s in itos for s in SPECIALS),
)


def specials_misplaced(itos) -> bool:
    return SPECIALS_MISPLACED.output()(itos)


def build(sentences, min_freq=1, *, at_least=True, alphabetical_ties=True):
    """The itos of ``Vocab.build`` (a plain list)."""
    counts = {}
    for s in sentences:
        for w in s.split():
            counts[w] = counts.get(w, 0) + 1  # first-seen order, as collections.Counter keeps it
    kept = [w for w, n in counts.items() if (n >= min_freq if at_least else n > min_freq)]
    key = (lambda w: (-counts[w], w)) if alphabetical_ties else (lambda w: -counts[w])
    return SPECIALS + sorted(kept, key=key)


MIN_FREQ = ("Vocab.build drops the words seen exactly min_freq times (use count >= min_freq)",
            "Vocab.build descarta las palabras vistas exactamente min_freq veces (usa cuenta >= min_freq)")
TIES = ("Vocab.build leaves words with the same count in first-seen order (Counter.most_common); ties must be "
        "alphabetical: sort with key=lambda w: (-count[w], w)",
        "Vocab.build deja las palabras con la misma cuenta en el orden en que aparecen (Counter.most_common); los "
        "empates deben ir en orden alfabético: ordena con key=lambda w: (-cuenta[w], w)")
CHARACTERS = ("Vocab.build counts characters, not words: a Counter (or .update) over a string counts its letters; "
              "split each sentence into words first (sentence.split())",
              "Vocab.build cuenta caracteres, no palabras: un Counter (o .update) sobre una cadena cuenta sus letras; "
              "separa antes cada frase en palabras (frase.split())")


SENTENCES = ("Vocab.build counts whole sentences, not words: its entries hold spaces; count the words of each "
             "sentence (sentence.split())",
             "Vocab.build cuenta frases enteras, no palabras: sus entradas contienen espacios; cuenta las palabras de "
             "cada frase (frase.split())")
FIT_NUMBER = ("fit returns one number where the history belongs: return the list of every epoch's mean loss "
              "(append each epoch's mean to a list, then return the whole list)",
              "fit devuelve un número donde va el historial: devuelve la lista con la pérdida media de cada época "
              "(añade la media de cada época a una lista y devuelve la lista entera)")
FIT_FLAT = ("fit returns every batch's loss in one list: return one number per epoch, the mean of that epoch's "
            "batch losses",
            "fit devuelve la pérdida de cada lote en una sola lista: devuelve un número por época, la media de las "
            "pérdidas de sus lotes")
FIT_LISTS = ("fit returns each epoch's list of batch losses: each entry must be one number, their mean "
             "(sum(losses) / len(losses))",
             "fit devuelve la lista de pérdidas de los lotes de cada época: cada entrada debe ser un número, su media "
             "(sum(pérdidas) / len(pérdidas))")
FIT_RESET = ("fit's history is created anew inside the epoch loop, so only the last epoch is left: create the list "
             "once, before the loop",
             "el historial de fit se crea de nuevo dentro del bucle de épocas, así que solo queda la última: crea la "
             "lista una vez, antes del bucle")


def history_shape(history, epochs) -> checks.Mistake | None:
    """What a history of the wrong length or kind says about fit's loop."""
    if isinstance(history, list) and history and all(isinstance(h, list) for h in history):
        return checks.Mistake(*FIT_LISTS)
    if isinstance(history, list) and len(history) == 1 and epochs > 1:
        return checks.Mistake(*FIT_RESET)
    if (isinstance(history, list) and len(history) > epochs and len(history) % epochs == 0
            and all(isinstance(h, (int, float)) for h in history)):
        return checks.Mistake(*FIT_FLAT)
    if isinstance(history, (int, float)):
        return checks.Mistake(*FIT_NUMBER)
    return None


def counts_sentences(itos) -> bool:
    """Whether a vocabulary's entries hold whitespace: whole sentences counted as words."""
    return isinstance(itos, list) and any(isinstance(w, str) and len(w.split()) > 1 for w in itos)


def counts_characters(itos) -> bool:
    """Whether a vocabulary's entries after the specials are single characters."""
    rest = [w for w in itos if w not in SPECIALS] if isinstance(itos, list) else []
    return bool(rest) and all(isinstance(w, str) and len(w) <= 1 for w in rest)


DUPLICATES = ("Vocab(words) adds a word again when it repeats (or a special token among the words); skip the words "
              "already in stoi",
              "Vocab(words) vuelve a añadir una palabra repetida (o un token especial entre las palabras); salta las "
              "que ya están en stoi")
UNKNOWN_DROPPED = ("encode drops the unknown words instead of mapping them to unk_id (stoi.get(word, unk_id))",
                   "encode descarta las palabras desconocidas en lugar de convertirlas en unk_id (stoi.get(palabra, unk_id))")
# The same translations, seen from translate: the words may be dropped by encode or after it.
UNKNOWN_DROPPED_SOURCE = ("the unknown words of the source are dropped before decoding (by encode, or by translate "
                          "after it) instead of reaching the model as unk_id: the encoded source keeps one id per word",
                          "las palabras desconocidas del origen se descartan antes de decodificar (en encode, o en "
                          "translate después) en lugar de llegar al modelo como unk_id: el origen codificado conserva "
                          "un id por palabra")
DECODE_KEEPS = ("decode does not drop <pad>, <sos> and <eos> (only <unk> stays visible)",
                "decode no quita <pad>, <sos> y <eos> (solo <unk> queda visible)")


def encode(stoi, sentence, add_sos_eos=False, *, keep_unknown=True):
    ids = [stoi.get(w, 3) for w in sentence.split() if keep_unknown or w in stoi]
    return [1] + ids + [2] if add_sos_eos else ids


def decode(itos, ids, dropped=(0, 1, 2)):
    return " ".join(itos[i] for i in ids if i not in dropped)


DECODE_STOPS = ("decode stops at the first special id (a break where continue belongs): it must skip <pad>, <sos> and "
                "<eos> and go on with the words after them",
                "decode se detiene en el primer id especial (un break donde va continue): debe saltarse <pad>, <sos> y "
                "<eos> y seguir con las palabras que vienen después")


def decode_until(itos, ids, stop):
    """decode that ends at the first id in ``stop`` and drops the other special ids."""
    ends = [k for k, i in enumerate(ids) if i in stop]
    return decode(itos, ids[:ends[0]] if ends else ids)


# ----------------------------------------------------------------------------- batching

NO_EOS = ("the target item lacks <eos> at the end: encode it with add_sos_eos=True",
          "al destino le falta <eos> al final: codifícalo con add_sos_eos=True")
CUT_EOS = ("a target longer than max_len is cut without putting <eos> back as its last id",
           "un destino más largo que max_len se recorta sin volver a poner <eos> como último id")
TARGET_CUT_BACK = ("a long target keeps its last max_len ids, so it loses <sos> and its first words: keep the first "
                   "max_len - 1 ids and end with <eos>, tgt_ids[:max_len - 1] + [eos_id]",
                   "un destino largo conserva sus últimos max_len ids, así que pierde <sos> y sus primeras palabras: "
                   "conserva los primeros max_len - 1 ids y termina con <eos>, tgt_ids[:max_len - 1] + [eos_id]")
ALWAYS_CUT = ("every target is cut to max_len - 1 ids and given <eos> again, so one shorter than max_len ends "
              "with two <eos>: cut only when len(tgt_ids) > max_len",
              "cada destino se recorta a max_len - 1 ids y recibe otra vez <eos>, así que uno más corto que max_len "
              "acaba con dos <eos>: recorta solo si len(tgt_ids) > max_len")
SOURCE_UNCUT = ("TranslationDataset does not cut the source to its first max_len ids",
                "TranslationDataset no recorta el origen a sus primeros max_len ids")


def item(pair, src_stoi, tgt_stoi, max_len=None, *, eos=True, cut_eos=True, cut_src="front", keep_unknown=True,
         swapped=False, always_cut=False, cut_tgt_back=False):
    """(src ids, tgt ids) of one TranslationDataset item, as lists; ``cut_src`` keeps the source's
    first max_len ids ("front"), its last ("back") or all of them (False)."""
    pair = pair[::-1] if swapped else pair
    src = encode(src_stoi, pair[0], keep_unknown=keep_unknown)
    tgt = encode(tgt_stoi, pair[1], add_sos_eos=True, keep_unknown=keep_unknown)
    if not eos:
        tgt = tgt[:-1]
    if max_len is not None:
        src = {"front": src[:max_len], "back": src[-max_len:]}.get(cut_src, src)
        if cut_tgt_back:
            tgt = tgt[-max_len:]
        elif len(tgt) > max_len or always_cut:
            tgt = tgt[:max_len - 1] + [2] if cut_eos else tgt[:max_len]
    return src, tgt


def cut_shape(got, want, full, max_len: int, side: str) -> tuple[str, str] | None:
    """How a sequence cut to ``max_len`` differs from the expected cut ``want``, read against
    the uncut ``full`` (id lists; 1 and 2 are <sos> and <eos>): not cut, cut to another
    length, the wrong part kept, or reversed. None when it is none of these."""
    if got == want:
        return None
    lado = {"source": "origen", "target": "destino"}[side]
    if got == full:
        return (f"the {side} is not cut: max_len = {max_len} must limit it too ({len(full)} ids came back)",
                f"el {lado} no se recorta: max_len = {max_len} también debe limitarlo (salieron {len(full)} ids)")
    if side == "source" and {1, 2} & set(got) and not {1, 2} & set(full):
        return ("the cut source holds <sos> or <eos> (ids 1, 2): only the target is framed; a source is cut to its "
                "first max_len ids, with nothing added",
                "el origen recortado contiene <sos> o <eos> (ids 1, 2): solo se enmarca el destino; un origen se "
                "recorta a sus primeros max_len ids, sin añadir nada")
    core = lambda ids: [i for i in ids if i not in (1, 2)]  # noqa: E731
    g, f = core(got), core(full)
    n = len(g)
    starts = [k for k in range(1, len(f) - n + 1) if n and f[k:k + n] == g]
    if starts and f[:n] != g:
        if starts[-1] + n == len(f):
            return (f"the cut {side} keeps the end of the sentence (its last ids): keep its first ids, then "
                    f"{'<eos>' if side == 'target' else 'nothing'} last",
                    f"el {lado} recortado conserva el final de la frase (sus últimos ids): conserva sus primeros ids"
                    f"{', y <eos> al final' if side == 'target' else ''}")
        return (f"the cut {side} starts {starts[0]} ids into the sentence: keep its first ids",
                f"el {lado} recortado empieza {starts[0]} ids dentro de la frase: conserva sus primeros ids")
    if len(got) != len(want) and len(full) > max_len:
        return (f"the cut {side} has {len(got)} ids, not max_len = {max_len}: count every id that stays, "
                f"{'<sos> and <eos> included' if side == 'target' else 'and cut to exactly max_len'}",
                f"el {lado} recortado tiene {len(got)} ids, no max_len = {max_len}: cuenta todos los ids que "
                f"quedan{', <sos> y <eos> incluidos' if side == 'target' else ''}")
    if len(got) > 1 and got == want[::-1]:
        return (f"the {side} ids come out reversed", f"los ids del {lado} salen al revés")
    return None


SOURCE_CUT_BACK = ("TranslationDataset keeps the source's last max_len ids: keep its first ones, src_ids[:max_len]",
                   "TranslationDataset conserva los últimos max_len ids del origen: conserva los primeros, "
                   "src_ids[:max_len]")

PAIR_READ_SWAPPED = ("TranslationDataset reads each pair as (target, source): the pairs are (English, Spanish), "
                     "src, tgt = pairs[i]",
                     "TranslationDataset lee cada par como (destino, origen): los pares son (inglés, español), "
                     "src, tgt = pairs[i]")

LEFT_PADDED = ("collate pads on the left; the padding goes after each sentence (on the right)",
               "collate rellena por la izquierda; el relleno va después de cada frase (a la derecha)")
ROWS_REORDERED = ("collate puts the items in another order (sorted?): row b must hold item b, so that each source "
                  "stays beside its target and the loader's order is kept",
                  "collate cambia el orden de los elementos (¿los ordena?): la fila b debe contener el elemento b, para "
                  "que cada origen siga junto a su destino y se conserve el orden del cargador")
COMMON_LENGTH = ("collate pads sources and targets to one common length (the longest of either side): pad each "
                 "side to its own longest sentence, S for the sources and T for the targets",
                 "collate rellena orígenes y destinos hasta una longitud común (la mayor de ambos lados): rellena "
                 "cada lado hasta su propia frase más larga, S para los orígenes y T para los destinos")
PAD_ZERO = ("collate fills with 0 instead of the pad_id it is given",
            "collate rellena con 0 en lugar del pad_id que recibe")


PAIR_SWAPPED = ("collate returns (target batch, source batch): return them in the order (src, tgt)",
                "collate devuelve (lote de destino, lote de origen): devuélvelos en el orden (src, tgt)")


def collate(batch, pad_id, *, right=True, common=False):
    """The two padded batches; ``common``: both padded to one length, the longest of either side."""
    out = []
    for side in (0, 1):
        n = max(len(p[s]) for p in batch for s in ((0, 1) if common else (side,)))
        rows = [torch.full((n,), pad_id, dtype=torch.long) for _ in batch]
        for row, p in zip(rows, batch):
            seq = p[side]
            if right:
                row[:len(seq)] = seq
            else:
                row[n - len(seq):] = seq
        out.append(torch.stack(rows))
    return out


# ----------------------------------------------------------------------------- training

PAD_COUNTED = ("the loss does not ignore the <pad> labels (F.cross_entropy(..., ignore_index=pad_id))",
               "la pérdida no ignora las etiquetas <pad> (F.cross_entropy(..., ignore_index=pad_id))")
PAD_ZERO_IGNORED = ("the loss ignores label 0 instead of the pad_id it is given (ignore_index=pad_id)",
                    "la pérdida ignora la etiqueta 0 en lugar del pad_id que recibe (ignore_index=pad_id)")
NO_SMOOTHING = ("label_smoothing is not passed on to F.cross_entropy",
                "label_smoothing no se pasa a F.cross_entropy")
NO_SHIFT = ("teacher forcing is off by one: the decoder reads tgt[:, :-1] and the labels must be tgt[:, 1:] "
            "(the next token)",
            "teacher forcing está desplazado: el decodificador lee tgt[:, :-1] y las etiquetas deben ser tgt[:, 1:] "
            "(el token siguiente)")
NO_ZERO_GRAD = ("optimizer.zero_grad() is missing, so the gradients of earlier steps pile up",
                "falta optimizer.zero_grad(), así que se acumulan los gradientes de los pasos anteriores")
# Parameters and optimizer state cannot tell a gradient wiped before the step from a step
# that never runs (zero_grad(set_to_none=True) leaves no gradient for SGD or Adam to use), so
# the reading names both.
ZERO_GRAD_LATE = ("no gradient reaches the update: optimizer.zero_grad() runs after loss.backward(), which wipes the "
                  "gradient before the step, or optimizer.step() is skipped when clip_norm is None (indented under "
                  "its if, or after an early return)",
                  "ningún gradiente llega a la actualización: optimizer.zero_grad() se ejecuta después de "
                  "loss.backward(), lo que borra el gradiente antes del paso, u optimizer.step() se salta cuando "
                  "clip_norm es None (sangrado dentro de su if, o tras un return anticipado)")
NO_CLIP = ("clip_norm is ignored: rescale the gradients with torch.nn.utils.clip_grad_norm_ before optimizer.step()",
           "se ignora clip_norm: reescala los gradientes con torch.nn.utils.clip_grad_norm_ antes de optimizer.step()")


def loss(logits, labels, pad_id=0, eps=0.0, *, ignore_pad=True, smoothing=True):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id if ignore_pad else -100,
                           label_smoothing=eps if smoothing else 0.0)


def step(model, src, tgt, opt, pad_id=0, eps=0.0, clip=None, *, zero="before", shift=True, ignore_pad=True,
         smoothing=True, clips=True):
    """One train_step; ``zero`` is "before" (right), "never" or "after" (loss.backward)."""
    labels = tgt[:, 1:] if shift else tgt[:, :-1]
    value = loss(model(src, tgt[:, :-1]), labels, pad_id, eps, ignore_pad=ignore_pad, smoothing=smoothing)
    if zero == "before":
        opt.zero_grad()
    value.backward()
    if zero == "after":
        opt.zero_grad()
    if clip is not None and clips:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    opt.step()
    return value.item()


STEP_SWITCHES = {  # mistake name -> step() switches
    NO_ZERO_GRAD: {"zero": "never"}, ZERO_GRAD_LATE: {"zero": "after"}, NO_SHIFT: {"shift": False},
    PAD_COUNTED: {"ignore_pad": False}, NO_SMOOTHING: {"smoothing": False}, NO_CLIP: {"clips": False},
}


def training_mistakes(run, switches=tuple(STEP_SWITCHES)):
    """Mistakes whose output is ``run(**step switches)``: what a training run returns with that mistake."""
    return [mistake(*names, (lambda names=names: run(**STEP_SWITCHES[names]))) for names in switches]


def deep(model):
    return copy.deepcopy(model)


# ----------------------------------------------------------------------------- translate

NO_TRUNCATE = ("translate does not cut a source to model.config.max_len words (the positional table ends there)",
               "translate no recorta el origen a model.config.max_len palabras (la tabla posicional acaba ahí)")
NO_CAP = ("translate does not cap max_len at model.config.max_len: decode with min(max_len, model.config.max_len)",
          "translate no limita max_len a model.config.max_len: decodifica con min(max_len, model.config.max_len)")
NO_EVAL = ("translate does not put the model in eval mode (model.eval()), so dropout stays on while decoding",
           "translate no pone el modelo en modo de evaluación (model.eval()), así que el dropout sigue activo al decodificar")
NO_CLEAN = ("translate does not run clean_text on each sentence before encoding it",
            "translate no aplica clean_text a cada frase antes de codificarla")
DROPS_EMPTY = ('translate drops the sentences that are empty after cleaning; each one must give "" in its place',
               'translate quita las frases que quedan vacías tras la limpieza; cada una debe dar "" en su lugar')

EMPTY_DECODED = ('translate sends the sentences that are empty after cleaning to the model (a source row of padding '
                 'only); each one must give "" without being decoded',
                 'translate envía al modelo las frases que quedan vacías tras la limpieza (una fila de origen solo '
                 'de relleno); cada una debe dar "" sin decodificarse')


def translate(model, lines, sv, tv, strategy="greedy", max_len=50, *, cleaner=clean, keep_unknown=True,
              truncate=True, eval_mode=True, keep_empty=True, cap=True, decode_empty=False, specials=(1, 2, 0), **kw):
    """The reference translate with switches; ``model`` is left in the mode it had."""
    decode_fn = reference.load("decoding").decode
    limit = model.config.max_len
    encoded = [encode(sv.stoi, cleaner(s), keep_unknown=keep_unknown) for s in lines]
    encoded = [ids[:limit] if truncate else ids for ids in encoded]
    rows = list(range(len(encoded))) if decode_empty else [i for i, ids in enumerate(encoded) if ids]
    results = [""] * len(lines)
    if rows:
        S = max(1, *(len(encoded[i]) for i in rows))
        src = torch.zeros(len(rows), S, dtype=torch.long)
        for b, i in enumerate(rows):
            src[b, :len(encoded[i])] = torch.tensor(encoded[i])
        was = model.training
        model.train(not eval_mode)
        try:
            with torch.no_grad():
                out = decode_fn(model, src, strategy, min(max_len, limit) if cap else max_len, *specials, **kw)
        finally:
            model.train(was)
        for b, i in enumerate(rows):
            ids = out[b].tolist()
            ids = ids[:ids.index(2)] if 2 in ids else ids
            results[i] = tv.decode(ids)
    if keep_empty == "results":  # every empty string dropped, the translations that came out empty too
        return [r for r in results if r]
    return results if keep_empty else [r for r, ids in zip(results, encoded) if ids]


SPECIALS_SWAPPED = ("translate passes the special ids to decode in the wrong order: it is decode(model, src, strategy, "
                    "max_len, sos_id, eos_id, pad_id), pass them by name where you can",
                    "translate pasa los ids especiales a decode en otro orden: es decode(model, src, strategy, "
                    "max_len, sos_id, eos_id, pad_id), pásalos por nombre donde puedas")

# With pad_id passed as eos_id, decoding stops at the first <pad> the model emits: from the
# output alone, that is also a vocab.decode that stops at <pad> instead of skipping it.
STOPS_AT_PAD = ("each sentence ends at the first <pad> the model emits: either translate passes pad_id to decode where "
                "eos_id belongs (it is decode(model, src, strategy, max_len, sos_id, eos_id, pad_id); pass them by "
                "name), or Vocab.decode stops at <pad> where it must only skip it",
                "cada frase acaba en el primer <pad> que emite el modelo: o translate pasa pad_id a decode donde va "
                "eos_id (es decode(model, src, strategy, max_len, sos_id, eos_id, pad_id); pásalos por nombre), o "
                "Vocab.decode se detiene en <pad> cuando solo debe saltarlo")

TRANSLATE_SWITCHES = [  # (mistake, translate() switches); a mistake may come in several forms
    (NO_CLEAN, {"cleaner": lambda s: s}), (NO_TRUNCATE, {"truncate": False}), (NO_EVAL, {"eval_mode": False}),
    (DROPS_EMPTY, {"keep_empty": False}), (DROPS_EMPTY, {"keep_empty": "results"}),
    (UNKNOWN_DROPPED_SOURCE, {"keep_unknown": False}), (EMPTY_DECODED, {"decode_empty": True}),
    (CLEAN["lower"], {"cleaner": lambda s: clean(s, lower=False)}),
    (CLEAN["spaced"], {"cleaner": lambda s: clean(s, spaced=False)}),
    *((SPECIALS_SWAPPED, {"specials": order}) for order in ((2, 1, 0), (0, 2, 1))),
    (STOPS_AT_PAD, {"specials": (1, 0, 2)}),
]


def translate_mistakes(model, lines, sv, tv, **kw):
    return [mistake(*names, (lambda switches=switches: translate(model, lines, sv, tv, **kw, **switches)))
            for names, switches in TRANSLATE_SWITCHES]


# ----------------------------------------------------------------------------- corpus

def read(text: str, *, first_line=True, strip=True, ids=True, semicolons=True, attribution=True,
         empty_sides=False) -> list[list[str]]:
    """The pairs ``read_pairs`` gives for a file holding ``text`` (as lists, as they come
    back from the student's process), with switches that make one mistake each."""
    pairs = []
    # Text-mode reading turns \r\n into \n and keeps each line's \n (the graders write no other line breaks).
    for number, line in enumerate(text.replace("\r\n", "\n").splitlines(keepends=True)):
        if not first_line and number == 0:
            continue
        if not line.strip():
            continue
        sep = "\t" if "\t" in line or not semicolons else ";"
        fields = [f.strip() if strip else f for f in line.split(sep)]
        if len(fields) == 4 and (not ids or (fields[0].strip().isdigit() and fields[2].strip().isdigit())):
            en, es = fields[1], fields[3]
        elif sep == "\t" and len(fields) in ((2, 3) if attribution else (2,)):
            en, es = fields[0], fields[1]
        else:
            continue
        if empty_sides or (en and es):  # unstripped, "  " is not empty: so a reader that does not strip sees it
            pairs.append([en, es])
    return pairs


READ = {  # switch -> (English, Spanish) name of the mistake
    "first_line": ("read_pairs skips the first line as if it were a header: Tatoeba's exports have no header line, so "
                   "the first line is a sentence pair",
                   "read_pairs salta la primera línea como si fuera una cabecera: las exportaciones de Tatoeba no "
                   "tienen cabecera, así que la primera línea es un par de frases"),
    "strip": ("read_pairs does not strip the sentences: spaces (or the line's \\n) around a field stay in the text; "
              ".strip() every field",
              "read_pairs no recorta las frases: quedan espacios (o el \\n de la línea) alrededor de un campo; aplica "
              ".strip() a cada campo"),
    "ids": ("read_pairs takes a line such as a header (id;en;id;es) for a pair: a 4-field line is a pair only when its "
            "first and third fields are number ids (.isdigit())",
            "read_pairs toma por un par una línea como una cabecera (id;en;id;es): una línea de 4 campos solo es un "
            "par cuando su primer y su tercer campo son ids numéricos (.isdigit())"),
    "semicolons": ("read_pairs does not read the ;-separated form id;en;id;es: split on \";\" when a line holds no tab",
                   "read_pairs no lee la forma separada por ;, id;en;id;es: separa por \";\" cuando la línea no tiene "
                   "tabuladores"),
    "attribution": ("read_pairs skips the manythings lines with a third field (the attribution): 2 or 3 tab-separated "
                    "fields are English, Spanish[, attribution]",
                    "read_pairs salta las líneas de manythings con un tercer campo (la atribución): 2 o 3 campos "
                    "separados por tabuladores son inglés, español[, atribución]"),
    "empty_sides": ("read_pairs keeps pairs with an empty side: skip a line whose English or Spanish is empty once "
                    "stripped",
                    "read_pairs conserva pares con un lado vacío: salta una línea cuyo inglés o español queda vacío "
                    "tras el strip"),
}
READ_DEFAULT = {"first_line": True, "strip": True, "ids": True, "semicolons": True, "attribution": True,
                "empty_sides": False}


def read_mistakes(text: str) -> list[checks.Mistake]:
    """Mistakes whose output is the pairs read from ``text`` with that mistake."""
    return [mistake(*READ[s], (lambda s=s: read(text, **{s: not READ_DEFAULT[s]}))) for s in READ]


def drop_long(pairs, max_words, *, at_most=True, english=True, spanish=True, split=str.split) -> list:
    def fits(text):
        n = len(split(text))
        return n <= max_words if at_most else n < max_words
    return [list(p) for p in pairs if (not english or fits(p[0])) and (not spanish or fits(p[1]))]


DROP = {  # (name, switches)
    "at_most": (("drop_long_pairs drops the sides of exactly max_words words (use <=, \"at most\")",
                 "drop_long_pairs descarta los lados de exactamente max_words palabras (usa <=, \"como mucho\")"),
                {"at_most": False}),
    "english": (("drop_long_pairs checks only the Spanish side: a pair goes when either side is too long",
                 "drop_long_pairs solo comprueba el lado español: un par se va cuando cualquiera de sus lados es "
                 "demasiado largo"), {"english": False}),
    "spanish": (("drop_long_pairs checks only the English side: a pair goes when either side is too long",
                 "drop_long_pairs solo comprueba el lado inglés: un par se va cuando cualquiera de sus lados es "
                 "demasiado largo"), {"spanish": False}),
    "split": (("drop_long_pairs counts words with .split(\" \"), which counts an empty word between two spaces in a "
               "row: .split() with no argument splits on runs of whitespace",
               "drop_long_pairs cuenta las palabras con .split(\" \"), que cuenta una palabra vacía entre dos espacios "
               "seguidos: .split() sin argumento separa por tramos de espacios"), {"split": lambda t: t.split(" ")}),
}
SORTED = ("the pairs come back in another order (sorted?): keep the order of the input, as the lecture's sort by "
          "length belongs to batching, not here",
          "los pares vuelven en otro orden (¿ordenados?): conserva el orden de la entrada; ordenar por longitud, como "
          "hace la clase, es cosa de los lotes, no de aquí")


def drop_mistakes(pairs, max_words) -> list[checks.Mistake]:
    return [mistake(*names, (lambda sw=switches: drop_long(pairs, max_words, **sw))) for names, switches in DROP.values()]


BY_LINE = ("split_by_source splits line by line: an English sentence with several translations lands on both sides, so "
           "validation holds sentences the model trained on and its loss looks better than it is; put all pairs of "
           "one English sentence on the same side (shuffle the distinct English sentences, not the pairs)",
           "split_by_source divide línea a línea: una frase inglesa con varias traducciones cae en los dos lados, así "
           "que validación contiene frases con las que el modelo entrenó y su pérdida parece mejor de lo que es; pon "
           "todos los pares de una frase inglesa en el mismo lado (baraja las frases inglesas distintas, no los pares)")
SPLIT_ORDER = ("split_by_source changes the order of the pairs (sorted or shuffled): go through pairs once and put each "
               "on its side, so both lists keep the input order",
               "split_by_source cambia el orden de los pares (ordenados o barajados): recorre pairs una vez y pon cada "
               "uno en su lado, así las dos listas conservan el orden de entrada")
UNSEEDED = ("split_by_source gives another split each time for the same seed: shuffle with random.Random(seed) (or a "
            "generator seeded with seed), not the global random state or an unseeded generator",
            "split_by_source da otra división cada vez con la misma semilla: baraja con random.Random(seed) (o un "
            "generador con la semilla seed), no con el estado global de random ni con un generador sin semilla")
SEED_IGNORED = ("split_by_source gives the same split whatever the seed: shuffle the English sentences with a generator "
                "seeded with seed",
                "split_by_source da la misma división sea cual sea la semilla: baraja las frases inglesas con un "
                "generador con la semilla seed")


# ----------------------------------------------------------------------------- checkpoint

NOT_A_PAIR = ("load_model must return a pair (model, extra): the rebuilt Transformer and the dict of extra data",
              "load_model debe devolver un par (model, extra): el Transformer reconstruido y el dict de datos extra")
NOT_PLAIN = ("the checkpoint holds an object that torch.load(..., weights_only=True) refuses to read (the "
             "TransformerConfig itself, or the whole model?): save plain data only: dataclasses.asdict(model.config), "
             "model.state_dict() and the extra data",
             "el checkpoint contiene un objeto que torch.load(..., weights_only=True) se niega a leer (¿el propio "
             "TransformerConfig, o el modelo entero?): guarda solo datos simples: dataclasses.asdict(model.config), "
             "model.state_dict() y los datos extra")
BUFFERS_LOST = ("the saved weights lack the model's buffers (positional.pe): save model.state_dict(), which holds the "
                "parameters and the buffers, not model.parameters() or model.named_parameters()",
                "a los pesos guardados les faltan los buffers del modelo (positional.pe): guarda model.state_dict(), "
                "que contiene los parámetros y los buffers, no model.parameters() ni model.named_parameters()")
OTHER_CONFIG = ("the model is rebuilt with another configuration than the one saved (other sizes or options): save "
                "dataclasses.asdict(model.config) whole and rebuild with Transformer(TransformerConfig(**config))",
                "el modelo se reconstruye con otra configuración que la guardada (otros tamaños u opciones): guarda "
                "dataclasses.asdict(model.config) entero y reconstruye con Transformer(TransformerConfig(**config))")
NO_EVAL_LOADED = ("load_model returns the model in training mode: call model.eval() before returning it, or dropout "
                  "changes every output",
                  "load_model devuelve el modelo en modo de entrenamiento: llama a model.eval() antes de devolverlo, o "
                  "el dropout cambia cada salida")
NOT_THE_WEIGHTS = ("the reloaded model's weights are not those of the model saved (its configuration and mode are "
                   "right): save model.state_dict() of the model given, when it is given (not a fresh model's, nor "
                   "weights taken before training), and load them with model.load_state_dict",
                   "los pesos del modelo recargado no son los del modelo guardado (su configuración y su modo están "
                   "bien): guarda model.state_dict() del modelo recibido, cuando se recibe (no los de un modelo "
                   "nuevo, ni pesos tomados antes de entrenar), y cárgalos con model.load_state_dict")
EXTRA_LOST = ("load_model does not give back the extra data save_model was given: save the keyword arguments under "
              "\"extra\" and return them as the second value",
              "load_model no devuelve los datos extra que recibió save_model: guarda los argumentos con nombre en "
              "\"extra\" y devuélvelos como segundo valor")
NO_MAP_LOCATION = ("load_model does not pass map_location on to torch.load, so a file saved on a GPU asks for that GPU "
                   "and fails on a machine without it: torch.load(path, map_location=map_location, weights_only=True)",
                   "load_model no pasa map_location a torch.load, así que un archivo guardado en una GPU pide esa GPU "
                   "y falla en una máquina sin ella: torch.load(path, map_location=map_location, weights_only=True)")
FORMAT = ("load_model does not read the file format save_model documents, one dict {\"config\": ..., \"state_dict\": "
          "..., \"extra\": ...}: a checkpoint that another correct save_model wrote must load too",
          "load_model no lee el formato de archivo que documenta save_model, un dict {\"config\": ..., "
          "\"state_dict\": ..., \"extra\": ...}: un checkpoint escrito por otro save_model correcto también debe cargar")
UNSAFE = ("load_model unpickles the file with weights_only=False (or in some other unsafe way): the code the "
          "checkpoint carried ran while it was read; torch.load(..., weights_only=True) reads tensors and plain data "
          "only and refuses the rest before running it",
          "load_model lee el archivo con weights_only=False (o de otra forma insegura): el código que traía el "
          "checkpoint se ejecutó al leerlo; torch.load(..., weights_only=True) solo lee tensores y datos simples y "
          "rechaza el resto antes de ejecutarlo")
NOT_STRICT = ("load_model accepts weights that do not fit the configuration: load_state_dict(..., strict=False) "
              "leaves the missing ones random and ignores the unexpected ones; keep the default strict=True",
              "load_model acepta pesos que no encajan con la configuración: load_state_dict(..., strict=False) deja "
              "al azar los que faltan e ignora los que sobran; conserva el strict=True por defecto")


def load_error(error: dict | None) -> checks.Mistake | None:
    """What an error load_model raised on a file save_model (or the reference) wrote says."""
    if not error:
        return None
    message = error.get("message") or ""
    if error["type"] == "UnpicklingError":
        return checks.Mistake(*NOT_PLAIN)
    if "deserialize object on" in message:
        return checks.Mistake(*NO_MAP_LOCATION)
    if error["type"] == "RuntimeError" and "state_dict" in message:
        if "Missing key" in message and "positional.pe" in message and "Unexpected key" not in message:
            return checks.Mistake(*BUFFERS_LOST)
        return checks.Mistake(*OTHER_CONFIG)
    if error["type"] == "HarnessError" and "__getitem__" in message:
        return checks.Mistake(*NOT_A_PAIR)
    return None
