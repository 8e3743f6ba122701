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

import random
from collections import Counter
from pathlib import Path

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
    pairs = []
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        if "\t" in line:
            parts = [x.strip() for x in line.split("\t")]
            if len(parts) == 4 and parts[0].isdigit() and parts[2].isdigit():
                en, es = parts[1], parts[3]
            elif len(parts) in (2, 3):
                en, es = parts[0], parts[1]
            else:
                continue
        else:
            parts = [x.strip() for x in line.split(";")]
            if len(parts) != 4 or not (parts[0].isdigit() and parts[2].isdigit()):
                continue
            en, es = parts[1], parts[3]
        if en and es:
            pairs.append((en, es))
    return pairs


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
    def short(text):
        return len(text.split()) <= max_words

    return [pair for pair in pairs if short(pair[0]) and short(pair[1])]


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
    if not 0 <= valid_share < 1:
        raise ValueError(f"valid_share must be in [0, 1), got {valid_share}")
    per_sentence = Counter(en for en, _ in pairs)  # a Counter keeps first-seen order
    order = random.Random(seed).sample(list(per_sentence), len(per_sentence))
    goal = round(valid_share * len(pairs))
    valid_sentences, total = set(), 0
    for en in order:
        if total >= goal:
            break
        valid_sentences.add(en)
        total += per_sentence[en]
    train = [pair for pair in pairs if pair[0] not in valid_sentences]
    valid = [pair for pair in pairs if pair[0] in valid_sentences]
    return train, valid
