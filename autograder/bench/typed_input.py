"""The translator on text as people type it: ``python -m autograder.bench.typed_input [--checkpoint translator.pt]``.

Takes in-domain sentences of the embedded corpus (its validation pairs: the model has not
trained on them), writes each in four forms (as in the corpus, lower case, upper case,
without its final mark) plus the whole set on one line, and translates every form twice:
as typed (``--as-typed``) and as ``translator translate`` does by default (split into
sentences, each cased and punctuated like the training data). Prints each output and, per
form, how many outputs equal the corpus's Spanish sentence.
"""

from __future__ import annotations

import argparse

from .. import course
from ..translator import corpus
from ..translator.config import EMBEDDED_CORPUS, TrainConfig
from ..translator.translate import Translator

FORMS = {
    "cased": lambda s: s,
    "lower case": str.lower,
    "upper case": str.upper,
    "no final mark": lambda s: s.rstrip(".?!"),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default="translator.pt", help="a checkpoint of the embedded corpus "
                        "(default: translator.pt, the quickstart's)")
    parser.add_argument("--sentences", type=int, default=10, help="how many sentences (default: 10)")
    parser.add_argument("--offset", type=int, default=0, help="start at this validation pair; another offset gives "
                        "other sentences, to check a change on ones it was not tuned on (default: 0)")
    args = parser.parse_args(argv)
    translator = Translator.load(args.checkpoint, "cpu")
    pairs, _ = corpus.load_pairs(course.data_dir() / EMBEDDED_CORPUS)
    config = TrainConfig()
    _, valid = corpus.split_pairs(pairs, min(config.valid_size, len(pairs) // 10), seed=config.seed)
    chosen = valid[args.offset:][:: max(1, (len(valid) - args.offset) // args.sentences)][: args.sentences]
    english, spanish = [en for en, _ in chosen], [es for _, es in chosen]
    totals = []
    for form, write in FORMS.items():
        typed = [write(s) for s in english]
        raw = translator.translate(typed, as_typed=True)
        fixed = translator.translate(typed)
        print(f"\n== {form}")
        for source, before, after in zip(typed, raw, fixed):
            print(f"  {source}\n      as typed: {before}\n      default:  {after}")
        totals.append((form, sum(a == b for a, b in zip(raw, spanish)), sum(a == b for a, b in zip(fixed, spanish))))
    line = " ".join(english)
    raw, fixed = translator.translate([line], as_typed=True)[0], translator.translate([line])[0]
    print(f"\n== all {len(english)} on one line\n  as typed: {raw}\n  default:  {fixed}")
    print(f"\nexact matches with the corpus's Spanish, of {len(english)} (as typed -> default):")
    for form, before, after in totals:
        print(f"  {form:14} {before:2} -> {after:2}")
    print(f"  {'one line':14} {int(raw == ' '.join(spanish)):2} -> {int(fixed == ' '.join(spanish)):2} (whole line)")


if __name__ == "__main__":
    main()
