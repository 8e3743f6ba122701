"""What people type, made into what the model has seen: one sentence at a time, cased and
punctuated.

The corpora pair one cased, punctuated sentence with another, so a model trained on them
meets a line of several sentences, a line in lower or upper case, or one without its full
stop as something it has never seen ("the water is cold" -> "el agua está fría fría fría").
:func:`split` cuts a line into sentences and :func:`normalise` gives each the form of the
training data; ``Translator.translate`` translates the sentences and joins them again, so
one output line still answers one input line.

The splitting rule: a sentence ends at ``.``, ``?``, ``!`` or ``…`` (closing quotes and
brackets included) followed by a space, except after a known abbreviation (``Mr.``,
``Dr.``, ``e.g.`` ...) or a single initial (``J. K. Rowling``), and, in a line that uses
capitals, before a lower-case word (``"Stop!" he said.``); a Spanish ``¿`` or ``¡`` after a
space opens a new one. A decimal point (``3.5``) is no end: no space follows it.
"""

from __future__ import annotations

import random
import re

ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st sr jr mt vs etc e.g i.e a.m p.m no vol fig approx dept est inc ltd co jan feb mar apr "
    "jun jul aug sep sept oct nov dec u.s u.k".split())
# English openings of a question: a line typed without its final mark that starts with
# one of these gets "?", any other gets ".".
QUESTION_WORDS = frozenset(
    "what where who whom whose when why how which do does did is are am was were can could would will shall "
    "should may might must have has had isn't aren't don't doesn't didn't can't won't".split())
# Words English always capitalises, restored in a line typed in one case.
_CAPITALISED = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|"
                          r"april|may|june|july|august|september|october|november|december)s?\b")
_END = re.compile(r"""[.?!…]+["'”’)\]]*\s+""")
_OPENING = re.compile(r"\s+(?=[¿¡])")


def split(line: str) -> list[str]:
    """The sentences of ``line``, in order, stripped; none for a blank line."""
    sentences, start = [], 0
    cased = any(c.isupper() for c in line)
    for match in _END.finditer(line):
        words = line[start:match.start() + 1].split()
        last = words[-1].lower().rstrip(".") if words else ""
        if last in ABBREVIATIONS or (len(last) == 1 and last.isalpha() and line[match.start()] == "."):
            continue
        if cased and line[match.end():match.end() + 1].islower():  # '"Stop!" he said.', 'Wait... what?'
            continue
        sentences.append(line[start:match.end()])
        start = match.end()
    sentences.append(line[start:])
    return [part.strip() for sentence in sentences for part in _OPENING.split(sentence) if part.strip()]


def normalise(sentence: str) -> str:
    """``sentence`` in the form of the training data: all-lower or all-upper case becomes
    sentence case (with the pronoun "I", the days and, after "in" or "of", the months), and
    a missing final mark is added ("?" after a question word, else ".")."""
    letters = [c for c in sentence if c.isalpha()]
    if letters and (all(c.islower() for c in letters) or (len(letters) > 1 and all(c.isupper() for c in letters))):
        sentence = sentence.lower()
        sentence = re.sub(r"\bi\b", "I", sentence)
        # "may" and "march" are also a verb: only the days, and months after "in" or "of", are names
        sentence = _CAPITALISED.sub(lambda m: m.group(0).capitalize()
                                    if m.group(1).endswith("day") or re.search(r"\b(in|of)\s+$", sentence[:m.start()])
                                    else m.group(0), sentence)
        first = next((i for i, c in enumerate(sentence) if c.isalpha()), None)
        if first is not None:
            sentence = sentence[:first] + sentence[first].upper() + sentence[first + 1:]
    if sentence and not re.search(r"""[.?!…]["'”’)\]]*$""", sentence):
        first_word = re.match(r"[^\w']*([\w']+)", sentence)
        question = first_word and first_word.group(1).lower() in QUESTION_WORDS
        sentence += "?" if question else "."
    return sentence


# How people type a sentence the corpora hold cased and punctuated (``varied_copies``).
TYPED_FORMS = {
    "lower case": str.lower,
    "upper case": str.upper,
    "no final mark": lambda s: re.sub(r"""[.?!…]+["'”’)\]]*$""", "", s).rstrip(),
    "lower case, no final mark": lambda s: re.sub(r"""[.?!…]+["'”’)\]]*$""", "", s.lower()).rstrip(),
}


def varied_copies(pairs: list[tuple[str, str]], share: float, seed: int = 0) -> list[tuple[str, str]]:
    """Copies of a random ``share`` of ``pairs`` whose English is written as people type it
    (one of :data:`TYPED_FORMS` each, at random), the Spanish left as it is: trained on beside
    the pairs, they teach the model to give cased, punctuated Spanish for such input. A copy
    that would equal its pair is left out."""
    rng = random.Random(seed)
    forms = list(TYPED_FORMS.values())
    chosen = rng.sample(range(len(pairs)), round(share * len(pairs))) if pairs and share > 0 else []
    copies = []
    for i in sorted(chosen):
        en, es = pairs[i]
        typed = rng.choice(forms)(en)
        if typed and typed != en:
            copies.append((typed, es))
    return copies
