"""Lecture 000's everyday sentences, translated: what ``translator train`` shows when it ends
and ``translator translate --examples`` shows again."""

from __future__ import annotations

# The first 16 sentences that lecture 000 translates once its model is trained, typed as the
# lecture types them (lower case, no final mark, a space before "?"): the translator takes text
# as people type it (sentences.py), so they need no cleaning first.
LECTURE_000 = (
    "I am hungry",
    "I am tired",
    "I am happy",
    "I'm sad",
    "I am angry",
    "every time I study, I get sleepy",
    "I am going to the gym",
    "I am going to the beach",
    "I am going to the supermarket",
    "I'm going to the movies",
    "I don't know what to do",
    "I love deep learning",
    "I can't open the door",
    "you can go if you want to",
    "i'm going to the party",
    "where does all this come from ?",
)


def table(english: list[str] | tuple[str, ...], spanish: list[str]) -> str:
    """One line per sentence, ``English  ->  Spanish``, the arrows aligned."""
    width = max(map(len, english))
    return "\n".join(f"  {en:<{width}}  ->  {es}" for en, es in zip(english, spanish))


def show(translator, log=print, **decoding) -> None:
    """Translate lecture 000's sentences with ``translator`` and print them as a table."""
    log("lecture 000's sentences / las frases del cuaderno de clase 000:")
    log(table(LECTURE_000, translator.translate(list(LECTURE_000), **decoding)))
