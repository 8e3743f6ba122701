"""What kind of difference separates a plain value (a string, a list of tokens or ids) from
the expected one: the error's shape for ``checks.plain_equal`` and for integer tensors of
token ids, as ``shapes`` gives it for numeric tensors.

Each recogniser answers only when the whole difference has its shape (only letter case,
only whitespace, only accents, items missing at one end, the same items in another order,
every id replaced through one consistent table ...), so a message never guesses; where
nothing fits, it says nothing and the first difference stands alone.

Over 350 lines: one recogniser per kind of difference, for values and for shapes and
dtypes, all read by the same two checks; split by kind, they would be many small modules
that are never used apart.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections import Counter

import torch

from .. import tokens
from .reports import Where

Found = tuple[str, str] | None
_MAX_SHOWN = 6  # characters, words or items named in one message


def _quoted(items) -> str:
    items = list(dict.fromkeys(items))
    shown = ", ".join(repr(x) for x in items[:_MAX_SHOWN])
    return shown + (f" (+{len(items) - _MAX_SHOWN})" if len(items) > _MAX_SHOWN else "")


def _plain_kind(values) -> type | None:
    """str or int when every item is one (bools excluded), else None."""
    kinds = {type(v) for v in values}
    return kinds.pop() if len(kinds) == 1 and kinds <= {str, int} else None


# ----------------------------------------------------------------------------- text


def _without_accents(text: str) -> str:
    return unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFD", text)
                                                if unicodedata.category(c) != "Mn"))


def _changed(a, e, kinds: set[str]):
    """The pieces of ``a`` (deleted) and ``e`` (inserted) in the opcodes of their diff,
    provided every change is of ``kinds``; else None."""
    got, want = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, e, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op not in kinds:
            return None
        got += a[i1:i2]
        want += e[j1:j2]
    return got, want


def _spacing(a: str, e: str) -> Found:
    """Only spaces differ: the characters beside the spaces that are missing or extra."""
    changes = difflib.SequenceMatcher(None, a, e, autojunk=False).get_opcodes()
    missing, extra = [], []
    for op, i1, i2, j1, j2 in changes:
        if op == "insert":
            missing += [c for c in e[max(0, j1 - 1):j2 + 1] if not c.isspace()]
        elif op == "delete":
            extra += [c for c in a[max(0, i1 - 1):i2 + 1] if not c.isspace()]
    # Name the punctuation beside a space when there is some: the letters beside it are context.
    missing = [c for c in missing if not c.isalnum()] or missing
    extra = [c for c in extra if not c.isalnum()] or extra
    if missing and not extra:
        return (f"only spacing differs: the expected text has a space beside {_quoted(missing)} where yours has none "
                f"(are these characters spaced out?)",
                f"solo difieren los espacios: el texto esperado lleva un espacio junto a {_quoted(missing)} donde el "
                f"tuyo no (¿se separan esos caracteres con espacios?)")
    if extra and not missing:
        return (f"only spacing differs: your text has a space beside {_quoted(extra)} where none is expected",
                f"solo difieren los espacios: tu texto lleva un espacio junto a {_quoted(extra)} donde no se espera")
    return ("only spacing differs (the same characters, spaces elsewhere)",
            "solo difieren los espacios (los mismos caracteres, con los espacios en otro sitio)")


def _text(a: str, e: str) -> Found:
    if a.lower() == e.lower():
        if e == e.lower():
            return ("only letter case differs: upper-case letters are kept where the expected text is all lower case",
                    "solo difieren mayúsculas y minúsculas: se conservan mayúsculas donde el texto esperado va todo en "
                    "minúsculas")
        return "only letter case differs", "solo difieren mayúsculas y minúsculas"
    if " ".join(a.split()) == " ".join(e.split()):
        if any(run in a for run in ("  ", "\t", "\n", "\r")) and not any(run in e for run in ("  ", "\t", "\n")):
            return ("only whitespace differs: runs of spaces, tabs or newlines are kept where the expected text has "
                    "one space (collapse whitespace)",
                    "solo difiere el espacio en blanco: se conservan secuencias de espacios, tabuladores o saltos de "
                    "línea donde el texto esperado lleva un solo espacio (colapsa los espacios)")
        if a != a.strip() and e == e.strip():
            return ("only whitespace differs: your text keeps spaces at its start or end (strip it)",
                    "solo difiere el espacio en blanco: tu texto conserva espacios al principio o al final (quítalos)")
        return "only whitespace differs", "solo difiere el espacio en blanco"
    if "".join(a.split()) == "".join(e.split()):
        return _spacing(" ".join(a.split()), " ".join(e.split()))
    if _without_accents(a) == _without_accents(e) and a != e:
        lost = [c for c in e if _without_accents(c) != c and c not in a]
        if lost:
            return (f"only accents differ: accented letters lose their accents ({_quoted(lost)}); "
                    f"normalise with NFC before removing other characters",
                    f"solo difieren los acentos: las letras acentuadas pierden el acento ({_quoted(lost)}); "
                    f"normaliza con NFC antes de quitar otros caracteres")
        return "only accents differ", "solo difieren los acentos"
    words = _sequence(a.split(), e.split(), "words")
    if words:
        return words
    found = _changed(a, e, {"insert"})
    if found:
        return (f"characters are missing that the expected text keeps: {_quoted(found[1])}",
                f"faltan caracteres que el texto esperado conserva: {_quoted(found[1])}")
    found = _changed(a, e, {"delete"})
    if found:
        return (f"characters are kept that the expected text drops: {_quoted(found[0])}",
                f"se conservan caracteres que el texto esperado elimina: {_quoted(found[0])}")
    return None


# ----------------------------------------------------------------------------- sequences


def _sequence(a: list, e: list, what: str = "items") -> Found:
    """The shape of the difference between two flat lists of strings or ints."""
    if a == e or _plain_kind(a + e) is None:
        return None
    es_what = {"items": "elementos", "words": "palabras", "ids": "ids"}[what]
    fem = what == "words"  # Spanish articles and adjectives agree with "palabras"
    o = "a" if fem else "o"
    los, tuyos, mismos, otros = f"l{o}s", f"l{o}s tuy{o}s", f"l{o}s mism{o}s", f"otr{o}s"
    one = {"items": ("item", "elemento"), "words": ("word", "palabra"), "ids": ("id", "id")}[what]
    el, un, primer, ultimo = ("la", "una", "primera", "última") if fem else ("el", "un", "primer", "último")
    for got, want, en, es in (
        (a, e[1:], f"the first {one[0]} ({e[0]!r}) is missing" if e else "",
         f"falta {el} {primer} {one[1]} ({e[0]!r})" if e else ""),
        (a, e[:-1], f"the last {one[0]} ({e[-1]!r}) is missing" if e else "",
         f"falta {el} {ultimo} {one[1]} ({e[-1]!r})" if e else ""),
        (a, e[1:-1], f"the first and last {what} ({e[0]!r}, {e[-1]!r}) are missing" if len(e) > 1 else "",
         f"faltan {el} {primer} y {el} {ultimo} {one[1]} ({e[0]!r}, {e[-1]!r})" if len(e) > 1 else ""),
        (a[1:], e, f"an extra first {one[0]} ({a[0]!r})" if a else "",
         f"sobra {un} {primer} {one[1]} ({a[0]!r})" if a else ""),
        (a[:-1], e, f"an extra last {one[0]} ({a[-1]!r})" if a else "",
         f"sobra {un} {ultimo} {one[1]} ({a[-1]!r})" if a else ""),
        (a[1:-1], e, f"an extra first and last {one[0]} ({a[0]!r}, {a[-1]!r})" if len(a) > 1 else "",
         f"sobran {un} {primer} y {un} {ultimo} {one[1]} ({a[0]!r}, {a[-1]!r})" if len(a) > 1 else ""),
    ):
        if en and got == want:
            return en, es
    n, m = len(a), len(e)
    if n == m and n > 2:
        if a[1:] == e[:-1]:
            return (f"the {what} are shifted one position later (yours start with {a[0]!r})",
                    f"{los} {es_what} están desplazad{o}s una posición hacia atrás ({tuyos} empiezan por {a[0]!r})")
        if a[:-1] == e[1:]:
            return (f"the {what} are shifted one position earlier (the expected ones start with {e[0]!r})",
                    f"{los} {es_what} están desplazad{o}s una posición hacia delante ({los} esperad{o}s empiezan "
                    f"por {e[0]!r})")
        if a == e[::-1]:
            return f"the expected {what} in reverse order", f"{los} {es_what} esperad{o}s en orden inverso"
    if n < m and a == e[:n]:
        return (f"{n} {what} where {m} are expected: yours stop early (the next expected is {e[n]!r})",
                f"{n} {es_what} donde se esperan {m}: {tuyos} se detienen antes (el siguiente esperado es {e[n]!r})")
    if n > m and a[:m] == e:
        return (f"{n} {what} where {m} are expected: {n - m} extra at the end, from {a[m]!r} (truncate or stop there)",
                f"{n} {es_what} donde se esperan {m}: sobran {n - m} al final, desde {a[m]!r} (trunca o detente ahí)")
    if Counter(a) == Counter(e):
        first = next(i for i, (x, y) in enumerate(zip(a, e)) if x != y)
        return (f"the same {what} in another order (the first out of place at [{first}]: {a[first]!r} where "
                f"{e[first]!r} is expected)",
                f"{mismos} {es_what} en otro orden (el primero fuera de sitio en [{first}]: {a[first]!r} donde "
                f"se esperaba {e[first]!r})")
    if n == m:
        # A consistent one-to-one table, shown by at least one repeated item (any two lists
        # of distinct items would otherwise "map" onto each other).
        table = {}
        consistent = all(table.setdefault(x, y) == y for x, y in zip(a, e))
        if len(set(a)) < n and consistent and len(set(table.values())) == len(table):
            swapped = [(x, y) for x, y in table.items() if x != y]
            if len(swapped) > 1 and any(isinstance(x, str) and len(x.split()) > 1 for x, _ in swapped):
                # Whole sentences that differ: a table of words or ids is one reading among many
                # (a word changed inside each, a step applied to the output), so only say where.
                x, y = swapped[0]
                return Where(f"{len(swapped)} of the {what} differ from the expected ones, each always the same way "
                             f"({x!r} where {y!r} is expected)",
                             f"{len(swapped)} de {los} {es_what} difieren de {los} esperad{o}s, siempre de la misma "
                             f"manera ({x!r} donde se esperaba {y!r})")
            if len(swapped) > 1:
                x, y = swapped[0]
                return (f"the same pattern with other {what}: each of yours stands consistently for another one "
                        f"({x!r} where {y!r} is expected, and {len(swapped) - 1} more): another table or vocabulary?",
                        f"el mismo patrón con {otros} {es_what}: cada valor tuyo corresponde siempre a otro "
                        f"({x!r} donde se esperaba {y!r}, y {len(swapped) - 1} más): ¿otra tabla u otro vocabulario?")
    found = _changed(a, e, {"insert"})
    if found:
        return f"{what} are missing: {_quoted(found[1])}", f"faltan {es_what}: {_quoted(found[1])}"
    found = _changed(a, e, {"delete"})
    if found:
        return f"extra {what}: {_quoted(found[0])}", f"sobran {es_what}: {_quoted(found[0])}"
    return None


def explain(actual, expected) -> Found:
    """The shape of the difference between plain values (strings, lists of them, lists of
    ints, nested lists), or None. Nested lists of equal length are explained at their first
    differing item."""
    if isinstance(actual, str) and isinstance(expected, str):
        return _text(actual, expected) if actual != expected else None
    if actual is None and expected is not None:
        return ("None where a value belongs: every case must produce its value (an empty input gives an empty "
                "result, \"\" or [], not None; a missing return also gives None)",
                "None donde va un valor: cada caso debe producir su valor (una entrada vacía da un resultado "
                "vacío, \"\" o [], no None; un return que falta también da None)")
    if isinstance(actual, list) and isinstance(expected, str) and all(isinstance(w, str) for w in actual):
        if " ".join(actual) == expected:
            return ("a list of words where one string belongs: join them, \" \".join(words)",
                    "una lista de palabras donde va una cadena: únelas, \" \".join(palabras)")
        return None
    if isinstance(actual, dict) and isinstance(expected, dict):
        return _shifted_ids(actual, expected)
    if not (isinstance(actual, list) and isinstance(expected, (list, tuple))):
        return None
    expected = list(expected)
    differing = [(a, e) for a, e in zip(actual, expected) if a != e]
    if differing and all(isinstance(a, (list, tuple)) and len(a) == 2 and a[0] == e and not isinstance(e, list)
                         for a, e in differing):
        return ("(value, extra) pairs where the values alone belong, e.g. the (word, count) pairs of "
                "Counter.most_common(): keep the first of each, [word for word, _ in pairs]",
                "pares (valor, extra) donde solo van los valores, p. ej. los pares (palabra, cuenta) de "
                "Counter.most_common(): quédate con el primero de cada uno, [word for word, _ in pairs]")
    found = _sequence(actual, expected, "ids" if _plain_kind(expected) is int else "items")
    if len(actual) == len(expected) and _plain_kind(actual + expected) is str:
        # Sentences: the same words, one for one, through another table (another vocabulary)
        # say more than whole sentences standing for others.
        words = [s.split() for s in actual], [s.split() for s in expected]
        if all(len(a) == len(e) for a, e in zip(*words)):
            found = _sequence(*[[w for s in side for w in s] for side in words], "words") or found
    if found or len(actual) != len(expected):
        return found
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a != e or type(a) is not type(e):
            inner = explain(a, e)
            return inner and (f"at [{i}]: {inner[0]}", f"en [{i}]: {inner[1]}")
    return None


def _shifted_ids(actual: dict, expected: dict) -> Found:
    """A table (word -> id) whose ids, all of them or one group, are off by the same number."""
    if set(actual) != set(expected) or not all(isinstance(v, int) for v in (*actual.values(), *expected.values())):
        return None
    off = {key: actual[key] - expected[key] for key in expected if actual[key] != expected[key]}
    if not off or len(set(off.values())) != 1:
        return None
    k = next(iter(off.values()))
    every = len(off) == len(expected)
    keys = _quoted(sorted(off, key=expected.get)[:4])
    which_en, which_es = ("every id is", "cada id está desplazado") if every else (
        f"the ids of {keys} are", f"los ids de {keys} están desplazados")
    return (f"{which_en} off by {k:+d}: ids count from 0 in the order of itos (enumerate(itos), not enumerate(itos, "
            f"1) or len(...) + 1)",
            f"{which_es} en {k:+d}: los ids cuentan desde 0 en el orden de itos (enumerate(itos), no "
            f"enumerate(itos, 1) ni len(...) + 1)")


def explain_ids(actual, expected: torch.Tensor) -> Found:
    """The shape of the difference between integer tensors of token ids: a sequence (its
    length may differ), or a batch of rows of the same shape, at the first row that differs;
    None for other tensors."""
    if not (isinstance(actual, torch.Tensor) and actual.dim() == expected.dim() and actual.dim() in (1, 2)
            and not actual.dtype.is_floating_point and not expected.dtype.is_floating_point
            and torch.bool not in (actual.dtype, expected.dtype)):
        return None
    if actual.dim() == 1:  # one sequence: its length may differ
        return explain(actual.tolist(), expected.tolist())
    if actual.shape != expected.shape:
        return None
    for b, (a, e) in enumerate(zip(actual.tolist(), expected.tolist())):
        if a != e:
            inner = _padded_row(a, e)
            return inner and (f"row {b}: {inner[0]}", f"fila {b}: {inner[1]}")
    return None


def _padded_row(a: list[int], e: list[int]) -> Found:
    """A row of ids with <pad> at its end: padded on the wrong side, or the shape of the
    difference between the rows without their padding."""
    def unpadded(row):
        while row and row[-1] == tokens.PAD:
            row = row[:-1]
        return row
    body = unpadded(e)
    tail = a[len(body):]
    padded = all(t == tokens.PAD for t in e[len(body):])
    if a[:len(body)] == body and tail and len(set(tail)) == 1 and tail[0] != tokens.PAD and padded:
        return (f"the row is right up to its end, then padded with {tail[0]} where the expected padding is "
                f"<pad> ({tokens.PAD}): fill the finished positions with pad_id",
                f"la fila está bien hasta su final, y luego se rellena con {tail[0]} donde el relleno esperado es "
                f"<pad> ({tokens.PAD}): rellena las posiciones terminadas con pad_id")
    if a != e and a[:len(a) - len(unpadded(a[::-1]))] and unpadded(a[::-1])[::-1] == unpadded(e):
        return (f"padding ({tokens.PAD}) at the start of the row, where the expected row is padded at its end",
                f"relleno ({tokens.PAD}) al principio de la fila, donde la fila esperada se rellena al final")
    return _sequence(unpadded(a), unpadded(e), "ids")


# ----------------------------------------------------------------------------- tensor shapes


def explain_shape(actual: tuple[int, ...], expected: tuple[int, ...]) -> Found:
    """What separates a tensor's shape from the expected one, when it is one thing: an
    axis of size 1 too many or too few, the same sizes in another order, or two axes
    merged or split."""
    a, e = tuple(actual), tuple(expected)
    if a == e:
        return None
    for i in range(len(a)):
        if a[i] == 1 and a[:i] + a[i + 1:] == e:
            return (f"an extra axis of size 1 at dim {i} (keepdim=True, unsqueeze or [:, None] where none belongs): "
                    f"drop it (squeeze({i}))",
                    f"un eje de tamaño 1 de más en la dim {i} (keepdim=True, unsqueeze o [:, None] donde no va): "
                    f"quítalo (squeeze({i}))")
    for i in range(len(e)):
        if e[i] == 1 and e[:i] + e[i + 1:] == a:
            if i == 0 and 1 not in a:  # a batch of one squeezed away with every other axis of size 1
                # An index [0] on that axis drops it the same way: the shapes cannot tell the two apart.
                return (f"the axis of size 1 at dim {i} is missing: .squeeze() with no dim drops every axis of size "
                        f"1, this one too when it has one row, and an index [0] drops it too (x[0] of a tensor whose "
                        f"first axis is that one row); name the axis to drop (such as .squeeze(-1)), keep this one "
                        f"with keepdim=True or unsqueeze({i}), and index only what holds several values",
                        f"falta el eje de tamaño 1 de la dim {i}: .squeeze() sin dim quita todos los ejes de tamaño "
                        f"1, también este cuando tiene una sola fila, y un índice [0] también lo quita (x[0] de un "
                        f"tensor cuyo primer eje es esa única fila); nombra el eje que quitas (como .squeeze(-1)), "
                        f"consérvalo con keepdim=True o unsqueeze({i}), e indexa solo lo que tiene varios valores")
            return (f"the axis of size 1 at dim {i} is missing: a reduction without keepdim=True, or a .squeeze() "
                    f"with no dim (it drops every axis of size 1, such as T = 1); keep it (keepdim=True, "
                    f".squeeze(-1) naming the axis to drop, or unsqueeze({i}))",
                    f"falta el eje de tamaño 1 de la dim {i}: una reducción sin keepdim=True, o un .squeeze() sin "
                    f"dim (quita todos los ejes de tamaño 1, como T = 1); consérvalo (keepdim=True, .squeeze(-1) "
                    f"nombrando el eje que quitas, o unsqueeze({i}))")
    squeezed_a, squeezed_e = tuple(s for s in a if s != 1), tuple(s for s in e if s != 1)
    if len(a) > len(e) and squeezed_a == squeezed_e and a[len(a) - len(e):] == e:
        extra = len(a) - len(e)
        return (f"{extra} extra leading axes of size 1 (shape {a} instead of {e}): return the shape asked for and "
                "let broadcasting add those axes where the result is used",
                f"{extra} ejes iniciales de tamaño 1 de más (forma {a} en lugar de {e}): devuelve la forma pedida y "
                "deja que el broadcasting añada esos ejes donde se use el resultado")
    if len(a) == len(e) == 2 and a == (e[0] - 1, e[1] + 1):
        return ("one row fewer and one column more than expected: [1:] drops the first row (axis 0); to drop the "
                "first column (such as the <sos> column) slice [:, 1:]",
                "una fila menos y una columna más de lo esperado: [1:] quita la primera fila (eje 0); para quitar la "
                "primera columna (como la de <sos>) usa [:, 1:]")
    if sorted(a) == sorted(e) and len(set(e)) > 1:
        return ("the right sizes in another order: two axes are swapped (a transpose or permute too many or too "
                "few, or a batch_first left out)",
                "los tamaños correctos en otro orden: hay dos ejes intercambiados (un transpose o permute de más o de "
                "menos, o falta batch_first)")
    if 0 < len(a) < len(e) and e[len(e) - len(a):] == a and len(a) < 2:
        # One axis left of several: the shape alone cannot say which part went missing.
        lead = e[:len(e) - len(a)]
        return Where(f"the leading axes {lead} are missing: shape {a} is only the last part of {e}",
                     f"faltan los ejes iniciales {lead}: la forma {a} es solo la parte final de {e}")
    if 0 < len(a) < len(e) and e[len(e) - len(a):] == a:
        lead = e[:len(e) - len(a)]
        return (f"the leading axes {lead} are missing (shape {a} is only the last part of {e}): is a part that "
                "carries them (such as the batch's padding mask) left out of the result?",
                f"faltan los ejes iniciales {lead} (la forma {a} es solo la parte final de {e}): ¿se ha dejado "
                "fuera del resultado una parte que los aporta (como la máscara de relleno del lote)?")
    differ = [i for i in range(len(e)) if len(a) == len(e) and a[i] != e[i]]
    if len(differ) == 1 and a[differ[0]] == 1:
        i = differ[0]
        # A WHERE: a reduction with keepdim=True, one slice taken, or a part built without that
        # axis and broadcast (a 1-D mask) all give it.
        return Where(f"dim {i} has size 1 instead of {e[i]}: one value is shared along that axis where one per "
                     "element of it is expected",
                     f"la dim {i} tiene tamaño 1 en lugar de {e[i]}: un solo valor se comparte a lo largo de ese eje "
                     "donde se espera uno por elemento")
    if len(differ) == 1 and e[differ[0]] == 1 and a[differ[0]] > 1:  # size 0 is one too few, not expanded
        i = differ[0]
        return (f"dim {i} has size {a[i]} where 1 belongs: the tensor is expanded along it (expand or repeat, or "
                f"built once per query) where it should keep size 1 and let broadcasting spread it where it is used",
                f"la dim {i} tiene tamaño {a[i]} donde va 1: el tensor está expandido a lo largo de ella (expand o "
                f"repeat, o construido una vez por consulta) cuando debería conservar tamaño 1 y dejar que el "
                f"broadcasting lo extienda donde se use")
    if len(differ) == 1 and a[differ[0]] not in e and abs(a[differ[0]] - e[differ[0]]) > 1:  # not one off
        i = differ[0]
        return (f"dim {i} has size {a[i]} instead of {e[i]}: that size comes from somewhere else than the arguments "
                f"that set it (a number written in the code, such as {a[i]}, or another tensor's size)",
                f"la dim {i} tiene tamaño {a[i]} en lugar de {e[i]}: ese tamaño sale de otro sitio que los argumentos "
                f"que lo fijan (un número escrito en el código, como {a[i]}, o el tamaño de otro tensor)")
    if len(differ) == 1 and abs(a[differ[0]] - e[differ[0]]) == 1:
        i = differ[0]
        if a[i] > e[i]:
            how = ("one too many", "arange(n + 1), range(0, n + 1), an end taken as inclusive")
            como = ("uno de más", "arange(n + 1), range(0, n + 1), un final tomado como incluido")
        else:
            how = ("one too few", "arange(n - 1), range(1, n), a slice that drops one")
            como = ("uno de menos", "arange(n - 1), range(1, n), una porción que quita uno")
        return (f"dim {i} has size {a[i]} instead of {e[i]}, {how[0]}: an off-by-one in the size or range that builds "
                f"it ({how[1]}); positions and ids run from 0 to n - 1",
                f"la dim {i} tiene tamaño {a[i]} en lugar de {e[i]}, {como[0]}: un error por uno en el tamaño o el "
                f"rango que la construye ({como[1]}); las posiciones y los ids van de 0 a n - 1")
    for i in range(len(e) - 1):
        if len(a) == len(e) - 1 and a == e[:i] + (e[i] * e[i + 1],) + e[i + 2:]:
            return (f"dims {i} and {i + 1} are merged into one of size {a[i]}: keep them apart (shape {e})",
                    f"las dims {i} y {i + 1} están fundidas en una de tamaño {a[i]}: mantenlas separadas (forma {e})")
    for i in range(len(a) - 1):
        if len(e) == len(a) - 1 and e == a[:i] + (a[i] * a[i + 1],) + a[i + 2:]:
            return (f"dims {i} and {i + 1} should be flattened into one of size {e[i]} (reshape to {e})",
                    f"las dims {i} y {i + 1} deberían aplanarse en una de tamaño {e[i]} (reshape a {e})")
    return None


def explain_dtype(actual: torch.dtype, expected: torch.dtype) -> Found:
    """What a tensor of the wrong dtype usually comes from."""
    if expected == torch.bool:
        return ("a mask must stay boolean: comparisons (==, !=, <) and torch.ones(..., dtype=torch.bool) already "
                "give bool; drop the .float(), .int() or .long() conversion",
                "una máscara debe seguir siendo booleana: las comparaciones (==, !=, <) y torch.ones(..., "
                "dtype=torch.bool) ya dan bool; quita la conversión .float(), .int() o .long()")
    if expected.is_floating_point and actual.is_floating_point:
        got, want = (str(t).removeprefix("torch.") for t in (actual, expected))
        return (f"a tensor in {got} where the input's {want} belongs: create new tensors with dtype=x.dtype (or "
                "torch.*_like(x)), and parameters without a dtype of their own (module.to(...) sets it)",
                f"un tensor en {got} donde corresponde el {want} de la entrada: crea los tensores nuevos con "
                "dtype=x.dtype (o torch.*_like(x)), y los parámetros sin un dtype propio (module.to(...) lo fija)")
    if expected == torch.int64 and actual in (torch.int32, torch.int16, torch.int8, torch.uint8):
        got = str(actual).removeprefix("torch.")
        return (f"ids in {got} where int64 (torch.long) belongs: drop the .int() or dtype={got}; torch.multinomial, "
                f"argmax and torch.full(..., dtype=torch.long) give int64",
                f"ids en {got} donde corresponde int64 (torch.long): quita el .int() o dtype={got}; "
                f"torch.multinomial, argmax y torch.full(..., dtype=torch.long) dan int64")
    if expected in (torch.long, torch.int64) and actual.is_floating_point:
        return ("token ids must be integers (torch.long): build them with dtype=torch.long, and do not divide ids "
                "with / (use //)",
                "los ids de tokens deben ser enteros (torch.long): créalos con dtype=torch.long, y no dividas ids con "
                "/ (usa //)")
    return None
