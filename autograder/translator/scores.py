"""Translation scores: sacreBLEU and chrF with their signatures, and a normalised BLEU.

The normalised BLEU applies the a6 ``clean_text`` to both sides (lower case, spaced
punctuation, no other symbols) and splits on whitespace, so casing and punctuation
choices do not count: the figure the course's notebooks report.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import reference


@dataclass
class Scores:
    bleu: object  # sacrebleu BLEUScore: cased, 13a tokenisation
    bleu_signature: str
    normalised_bleu: object  # BLEUScore after clean_text on both sides
    chrf: object  # sacrebleu CHRFScore
    chrf_signature: str


def score(hyps: list[str], refs: list[str]) -> Scores:
    import sacrebleu

    clean = reference.load("preprocessing").clean_text
    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    normalised = sacrebleu.metrics.BLEU(tokenize="none", force=True)
    return Scores(
        bleu=bleu.corpus_score(hyps, [refs]), bleu_signature=str(bleu.get_signature()),
        normalised_bleu=normalised.corpus_score([clean(h) for h in hyps], [[clean(r) for r in refs]]),
        chrf=chrf.corpus_score(hyps, [refs]), chrf_signature=str(chrf.get_signature()),
    )
