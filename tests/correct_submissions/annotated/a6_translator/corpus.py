"""The sentence pairs a translator learns from: reading them, filtering them, splitting them.

Tatoeba (tatoeba.org) publishes its English-Spanish translations as a "sentence pairs"
export, one pair per line and no header line; the course meets it in three forms:

    1276<TAB>Let's try something.<TAB>2481<TAB>Intentemos algo.     Tatoeba, tab-separated
    1276;Let's try something.;2481;Intentemos algo.                  Tatoeba, ;-separated
    Let's try something.<TAB>Intentemos algo.<TAB>CC-BY 2.0 ...      manythings.org (Anki)

One English sentence often has several Spanish translations, each on a line of its own
("Go." -> "Ve.", "Vete.", "Vaya."). A validation set drawn line by line therefore holds
English sentences the model has already seen in training, with another translation, and
its loss looks better than it is: split by English sentence instead.
"""

import torch

# Both sides of a pair the lecture kept have at most this many words.
MAX_WORDS = 15


def read_pairs(path):
    """Read the (English, Spanish) sentence pairs of a Tatoeba export, in file order.

    Every line is data (the exports have no header line). A line is split on tabs if it
    holds one, else on semicolons, and then read by its number of fields:

    - 4 fields ``id, English, id, Spanish`` whose first and third fields are whole
      numbers (digits only): the pair is the second and fourth fields;
    - 2 or 3 tab-separated fields ``English, Spanish[, attribution]``: the first two.

    Each sentence is stripped of surrounding whitespace. Blank lines are skipped, and so
    is every line that fits neither form or has an empty side (a header line such as
    ``id;en;id;es``, a line with a missing field, a ;-separated line whose sentence
    itself holds ";"): a bad line loses that line only, never the file.

    Args:
        path: the file (UTF-8 text).

    Returns:
        A list of ``(english, spanish)`` tuples of str, in the order of the file.

    Example::

        >>> read_pairs("pairs.tsv")   # "1\\tGo.\\t2\\tVe.\\n" + "Hi.\\tHola.\\n"
        [('Go.', 'Ve.'), ('Hi.', 'Hola.')]
    """
    # Pista: (~14 líneas) abre el archivo con encoding="utf-8" y recorre sus líneas (sin
    # saltarte la primera: no es una cabecera); salta las que .strip() deja vacías; separa
    # con "\t" si la línea lo contiene y si no con ";", y aplica .strip() a cada campo; con
    # 4 campos, los campos 0 y 2 deben ser .isdigit(); con 2 o 3 separados por tabuladores,
    # toma los dos primeros; guarda el par solo si ninguno de sus lados queda vacío.
    # Hint: (~14 lines) open the file with encoding="utf-8" and loop over its lines (the
    # first one too: it is not a header); skip those that .strip() leaves empty; split on
    # "\t" if the line holds one, else on ";", and .strip() every field; with 4 fields,
    # fields 0 and 2 must be .isdigit(); with 2 or 3 tab-separated ones, take the first
    # two; keep the pair only if neither side is empty.
    result: list[tuple[str, str]] = []
    with open(path, "r", encoding="utf-8") as handle:
        for line in handle:
            stripped: str = line.strip()
            if stripped == "":  # blank line
                continue
            separator: str = "\t" if "\t" in line else ";"
            fields: list[str] = [part.strip() for part in line.split(separator)]
            english: str
            spanish: str
            if len(fields) == 4 and fields[0].isdecimal() and fields[2].isdecimal():
                english, spanish = fields[1], fields[3]  # Tatoeba: id, en, id, es
            elif separator == "\t" and len(fields) in (2, 3):
                english, spanish = fields[0], fields[1]  # manythings: en, es[, attribution]
            else:
                continue  # a header or a broken line
            if english != "" and spanish != "":
                result.append((english, spanish))
    return result


def drop_long_pairs(pairs, max_words=MAX_WORDS):
    """Keep the pairs whose two sides both have at most ``max_words`` words.

    Words are what ``str.split()`` gives on the text as read (so "¿Dónde está?" is 2
    words; ``clean_text`` later makes ¿ and ? tokens of their own, so a cleaned sentence
    may have a few more). A pair is dropped if either side is too long.

    Args:
        pairs: a list of ``(english, spanish)`` pairs.
        max_words: the largest number of words a side may have (a sentence of exactly
            ``max_words`` words is kept).

    Returns:
        A new list of the pairs kept, in their original order.
    """
    # Pista: (~1 línea) una lista por comprensión; len(frase.split()) cuenta las palabras;
    # comprueba los dos lados con <=.
    # Hint: (~1 line) a list comprehension; len(sentence.split()) counts the words; check
    # both sides with <=.
    result: list = []
    for english, spanish in pairs:
        english_words: int = len(english.split())
        spanish_words: int = len(spanish.split())
        if english_words <= max_words and spanish_words <= max_words:
            result.append((english, spanish))
    return result


def split_by_source(pairs, valid_share=0.1, seed=0):
    """Split pairs into training and validation sets, by English sentence.

    All pairs of one English sentence go to the same side, so no validation sentence has
    been seen in training. The distinct English sentences, in order of first appearance,
    are shuffled with ``random.Random(seed)`` (or any generator seeded with ``seed``);
    whole sentences then go to validation, in that shuffled order, while it holds fewer
    than ``round(valid_share * len(pairs))`` pairs. Everything else is training.

    Args:
        pairs: a list of ``(english, spanish)`` pairs.
        valid_share: the share of the pairs wanted in validation, 0 <= valid_share < 1.
        seed: the same seed gives the same split; another seed, another split.

    Returns:
        ``(train, valid)``: two lists of pairs that together hold every pair once, each in
        the order of ``pairs``. ``valid`` holds at least ``round(valid_share * len(pairs))``
        pairs, and fewer than that plus the pairs of one English sentence.

    Raises:
        ValueError: if ``valid_share`` is not in [0, 1).
    """
    # Pista: (~10 líneas) list(dict.fromkeys(en for en, _ in pairs)) da las frases en
    # orden de aparición (un set no: su orden cambia de una ejecución a otra); baraja esa
    # lista con random.Random(seed).shuffle; cuenta los pares de cada frase
    # (collections.Counter); añade frases a un set de validación mientras falten pares;
    # recorre pairs una vez para repartirlos sin cambiar su orden.
    # Hint: (~10 lines) list(dict.fromkeys(en for en, _ in pairs)) gives the sentences in
    # order of appearance (a set does not: its order changes from run to run); shuffle
    # that list with random.Random(seed).shuffle; count each sentence's pairs
    # (collections.Counter); add sentences to a validation set while pairs are missing;
    # go through pairs once to share them out without changing their order.
    if not (0.0 <= valid_share < 1.0):
        raise ValueError(f"valid_share must satisfy 0 <= valid_share < 1, got {valid_share!r}")
    sizes: dict[str, int] = {}
    for english, _ in pairs:
        sizes[english] = sizes.get(english, 0) + 1
    distinct: list[str] = list(sizes)
    generator = torch.Generator().manual_seed(seed)
    shuffled: list[str] = [distinct[i] for i in torch.randperm(len(distinct), generator=generator).tolist()]
    needed: int = round(valid_share * len(pairs))
    held_out: set[str] = set()
    held: int = 0
    for english in shuffled:
        if held >= needed:
            break
        held_out.add(english)
        held += sizes[english]
    train: list = []
    valid: list = []
    for pair in pairs:
        (valid if pair[0] in held_out else train).append(pair)
    return train, valid
