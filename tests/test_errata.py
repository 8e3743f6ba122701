"""Does docs/errata.md hold together: are its corrected numbers what the course's reference
code computes, does every notebook narrative link it, and does it travel beside every
released notebook (where that link points)?"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import torch

from autograder import course, reference
from autograder.notebooks import files, sources
from helpers import ROOT

ERRATA = ROOT / "docs" / "errata.md"


def _page() -> str:
    # The page writes minus signs as U+2212; the numbers are compared as plain floats.
    return ERRATA.read_text(encoding="utf-8").replace("\u2212", "-")


def _entry(label: str) -> str:
    """The text of one entry (``**000-1.`` up to the next entry or section)."""
    text = _page()
    start = text.index(f"**{label}.")
    end = re.compile(r"\n\*\*\d{3}-\d\.|\n## ").search(text, start + 1)
    return text[start:end.start() if end else len(text)]


def _english(label: str) -> str:
    """The English part of an entry: up to its Spanish paragraph (a line in italics)."""
    text = _entry(label)
    spanish = re.search(r"\n\*[^*]", text)
    return text[:spanish.start()] if spanish else text


def _bold_lists(text: str) -> list[list[float]]:
    """Every bold ``[a, b, ...]`` of English numbers (decimal point) in ``text``."""
    return [[float(v) for v in m.split(",")] for m in re.findall(r"\*\*\S*?\[([-0-9., ]+)\]\*\*", text)]


def _rounded(t: torch.Tensor) -> list[float]:
    return t.double().round(decimals=4).tolist()


def test_positional_rows_are_the_reference_tables():
    """001-1 and 001-2: row 1 of the course's (4, max_len) table, and the lecture's printed
    input plus that row, are the page's corrected values; the page's "printed" row is that
    input plus row 0 (what adding by batch index gives the first sequence)."""
    pe = reference.load("positional").PositionalEncoding(4, 6).pe
    assert _bold_lists(_english("001-1")) == [_rounded(pe[1])]
    # The lecture's printed input, second token of the first sequence (4 decimals as printed).
    token = torch.tensor([-0.2349, -0.2901, -1.1881, -0.0349])
    corrected = _bold_lists(_english("001-2"))
    assert corrected == [_rounded(token + pe[1])]
    printed = _rounded(token + pe[0])
    assert f"[{', '.join(f'{v:.4f}' for v in printed)}]" in _english("001-2")
    # The frequencies the page gives, 1, 1, 0.01, 0.01, are the reference's: row 1 is their sin/cos.
    freqs = torch.tensor([1.0, 1.0, 0.01, 0.01])
    assert "**1, 1, 0.01, 0.01**" in _entry("001-1")
    assert torch.allclose(pe[1], torch.stack([freqs[0::2].sin(), freqs[1::2].cos()], -1).flatten(), atol=1e-6)


def test_masked_attention_table_and_the_multiplied_one():
    """004-1: the -inf table is the reference's masked_self_attention on the course's Q, K, V;
    multiplying the scores by the mask instead gives the page's z1."""
    data = json.loads((course.data_dir() / "a1_attention" / "masked_self_attention.json").read_text())
    Q, K, V = (torch.tensor(data[k]) for k in "QKV")
    Z = reference.load("attention").masked_self_attention(Q, K, V)
    text = _english("004-1")
    rows = re.search(r"z1\.\.z4 = (.*?)\.\s*$", text, re.S).group(1)
    page = [[float(v) for v in row.split(",")] for row in re.findall(r"\[([-0-9., ]+)\]", rows)]
    assert page == [[round(v, 4) for v in row] for row in _rounded(Z)]
    scores = Q @ K.T / math.sqrt(Q.size(-1))
    multiplied = torch.softmax(scores * torch.tril(torch.ones(4, 4)), dim=-1) @ V
    assert f"**z1 = [{', '.join(f'{v:.2f}' for v in _rounded(multiplied[0]))}]**" in text


def test_other_corrected_values():
    """000-1 (2π), 002-2 (the share of <pad> labels), 003-3 (ñ kept by the course's
    clean_text) and the final LayerNorm's 2,048 parameters at lecture 001's size."""
    assert f"**{2 * math.pi:.4f}**" in _entry("000-1")
    assert f"**about {100 * (1 - 6.5 / 9):.1f} %**" in _entry("002-2")
    clean_text = reference.load("preprocessing").clean_text
    assert clean_text("mañana") == "mañana" and '**"mañana"**' in _entry("003-3")
    norm = reference.load("layernorm").LayerNorm(512)
    final_norms = 2 * sum(p.numel() for p in norm.parameters())
    assert final_norms == 2048 and f"2 × 1,024 = {final_norms:,}" in _page()
    assert clean_text("I'm sad") == "im sad" and '("im sad")' in _page()


def test_a_split_by_line_leaks_a_fifth_of_the_validation_sentences():
    """Does a random 90/10 split by line of the embedded Tatoeba corpus leave 20.8-22.1 % of the
    validation tenth's distinct English sentences in training too (000-3)?"""
    from autograder.translator.config import TrainConfig, corpus_path
    from autograder.translator.corpus import load_pairs

    pairs, _ = load_pairs(corpus_path(TrainConfig()))
    assert len(pairs) == 118_964 and len({en for en, _ in pairs}) == 102_904
    shares = []
    for seed in range(5):
        order = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(seed)).tolist()
        valid, train = order[: len(pairs) // 10], order[len(pairs) // 10:]
        seen = {pairs[i][0] for i in train}
        distinct = {pairs[i][0] for i in valid}
        shares.append(len(distinct & seen) / len(distinct))
    assert 0.208 <= min(shares) and max(shares) < 0.2215, shares
    entry = _entry("000-3")
    assert "**21 % to 22 %**" in entry and "(20.8 % to 22.1 %" in entry and "102,904" in entry


@pytest.mark.parametrize("lang", sources.LANGS)
def test_every_narrative_links_the_errata_that_ships_beside_it(lang):
    """Does each notebook narrative link errata.md, a file that notebook_files puts next to the
    notebook (in the student release and the nbgrader course alike), holding this page?"""
    for assignment in course.ASSIGNMENTS:
        if not sources.has_narrative(assignment, lang):
            continue
        narrative = (course.solutions_dir() / assignment.name / f"notebook.{lang}.md").read_text(encoding="utf-8")
        head = "\n".join(narrative.splitlines()[:15])
        assert "](errata.md)" in head, f"{assignment.name} notebook.{lang}.md: no link to errata.md near the top"
        shipped = files.notebook_files(assignment)
        assert shipped.get(Path("errata.md")) == ERRATA.read_bytes(), assignment.name
