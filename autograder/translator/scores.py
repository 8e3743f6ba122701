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


def reference_streams(refs: list[str] | list[list[str]]) -> list[list[str]]:
    """sacreBLEU's reference streams: one reference per hypothesis, or every reference of
    each (a sentence with fewer repeats its first one, which changes no n-gram count)."""
    if not refs or isinstance(refs[0], str):
        return [list(refs)]
    if any(not r for r in refs):
        raise ValueError("every hypothesis needs at least one reference")
    most = max(len(r) for r in refs)
    return [[r[k] if k < len(r) else r[0] for r in refs] for k in range(most)]


def score(hyps: list[str], refs: list[str] | list[list[str]]) -> Scores:
    """Scores of ``hyps`` against ``refs``: one reference per hypothesis, or a list of them."""
    import sacrebleu

    clean = reference.load("preprocessing").clean_text
    streams = reference_streams(refs)
    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    normalised = sacrebleu.metrics.BLEU(tokenize="none", force=True)
    return Scores(
        bleu=bleu.corpus_score(hyps, streams), bleu_signature=str(bleu.get_signature()),
        normalised_bleu=normalised.corpus_score([clean(h) for h in hyps],
                                                [[clean(r) for r in stream] for stream in streams]),
        chrf=chrf.corpus_score(hyps, streams), chrf_signature=str(chrf.get_signature()),
    )
