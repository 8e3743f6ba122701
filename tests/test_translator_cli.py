"""The translator's command line without a trained model: help texts, plurals, the progress
line, and what it says about bad input files; and the repeated n-gram block of its decoding."""

import io
import re

import pytest
import torch

from autograder.translator import cli, corpus, progress
from autograder.translator.translate import generate, repeated_ngram_bans


def _options(parser):
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.option_strings and action.dest != "help":
                yield name, action


def test_every_option_has_help_with_its_default():
    """Does every option of train, translate and evaluate have a help text naming its default
    (flags and required options aside)?"""
    found = list(_options(cli.build_parser()))
    assert len(found) > 30
    for command, action in found:
        assert action.help, f"{command} {action.option_strings[0]} has no help"
        if action.nargs != 0 and not action.required:
            assert "default" in action.help, f"{command} {action.option_strings[0]}: {action.help}"


def test_counts_agree_with_their_nouns(tmp_path):
    """Do one pair, one line and one sentence read in the singular?"""
    assert corpus.plural(1, "pair") == "1 pair" and corpus.plural(118964, "pair") == "118,964 pairs"
    assert corpus.plural(0, "sentence") == "0 sentences"
    one = tmp_path / "one.txt"
    one.write_text("Hello.\tHola.\n", encoding="utf-8")
    _, report = corpus.load_pairs(one)
    assert report.summary() == "one.txt (anki): 1 pair; nothing skipped"


@pytest.mark.parametrize("data, message", [
    (b"", "is empty: it holds no sentence pairs"),
    (b"\n  \n\n", "is empty: it holds no sentence pairs"),
    ("caf\u00e9\tcaf\u00e9\n".encode("latin-1"), "none of its 1 line is UTF-8 text; save the file as UTF-8"),
])
def test_an_empty_or_unreadable_corpus_says_so(tmp_path, data, message):
    """Is an empty training file called empty (not "cannot tell the format"), and a Latin-1 one not UTF-8?"""
    path = tmp_path / "corpus.txt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(message)):
        corpus.load_pairs(path)


def test_the_first_progress_lines_promise_no_eta(monkeypatch):
    """Does the progress line show no ETA until the rate has been measured for a while, then
    the time left at the rate since the first step (not counting the start-up)?"""
    now = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    bar = progress.Progress(stream=out, log_every=0.0)
    bar.update(0.001, "step 1")  # a slow first step: start-up, first allocations
    now[0] += 5
    bar.update(0.05, "step 50")
    now[0] += 15
    bar.update(0.201, "step 200")
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("step 1 | ETA --:--") and lines[1].endswith("step 50 | ETA --:--")
    assert lines[2].endswith("step 200 | ETA 01:19")  # 20 s for 20% -> 79.9 s for the 79.9% left


class _Looping(torch.nn.Module):
    """A model whose every step prefers token 5, then 6, then 7, ... (never EOS): it loops."""

    def encode(self, src):
        return torch.zeros(src.size(0), 1, 4), torch.ones(src.size(0), 1, 1, 1, dtype=torch.bool)

    def decode(self, tgt, memory, src_mask):
        logits = torch.full((tgt.size(0), tgt.size(1), 12), -100.0)
        logits[..., 5:] = -torch.arange(7, dtype=torch.float)
        return logits


def test_decoding_never_repeats_an_ngram():
    """Does the greedy loop with no_repeat_ngram=3 never repeat a trigram where plain greedy
    repeats one token, and does it leave non-repeating output alone?"""
    src = torch.ones(2, 3, dtype=torch.long)
    assert generate(_Looping(), src, 8, 0)[0].tolist() == [5] * 8
    out = generate(_Looping(), src, 8, 3)[0].tolist()
    trigrams = [tuple(out[i:i + 3]) for i in range(len(out) - 2)]
    assert len(trigrams) == len(set(trigrams)) and out[:2] == [5, 5]
    assert repeated_ngram_bans([[4, 5, 6, 4, 5], [1, 2], [7, 7, 7]], 3) == [[6], [], [7]]
    assert repeated_ngram_bans([[4, 5, 6, 4, 5]], 0) == [[]]


def test_scores_take_every_reference_of_a_sentence():
    """Does score() count a hypothesis that matches any one of its references as matching,
    with sentences that have fewer references padded without changing the figure?"""
    from autograder.translator.scores import reference_streams, score

    hyps = ["el gato come pescado hoy .", "yo tengo un perro negro ."]
    one = score(hyps, ["la gata come pescado hoy .", "yo tengo un perro negro ."])
    both = score(hyps, [["la gata come pescado hoy .", "el gato come pescado hoy ."], ["yo tengo un perro negro ."]])
    assert both.normalised_bleu.score == pytest.approx(100) and one.normalised_bleu.score < 90
    assert "nrefs:2" in both.bleu_signature
    assert reference_streams([["a", "b"], ["c"]]) == [["a", "c"], ["b", "c"]]
    assert reference_streams(["a", "c"]) == [["a", "c"]]
    with pytest.raises(ValueError, match="at least one reference"):
        reference_streams([["a"], []])
