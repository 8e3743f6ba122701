"""Train, translate and score the reference translator: ``python -m autograder.bench.translator``.

Given a training corpus and either a test corpus or a test size (held out from the
training file by English sentence, so no test sentence is ever trained on), trains for a
time budget, translates the test sources and prints: training tokens/s, steps, epochs,
sacreBLEU (as is, and after normalising both sides with the a6 ``clean_text``), chrF and
decoding sentences/s. It prints figures; it asserts nothing.

    python -m autograder.bench.translator --data ../shared/data/spa-eng.txt --test-size 2000 --minutes 10

``--steps N`` trains for N optimizer steps instead: on a busy machine, the run that N
steps reach in ten quiet minutes, whatever the clock says. ``--compare`` also scores the
last step's weights (besides the averaged ones that translate) and a few other averages of
the same run, each with greedy and beam decoding; ``--typed-forms`` also scores the test
sentences as people type them (lower case, no final mark), as typed and normalised.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from ..translator import corpus, sentences
from ..translator.config import TrainConfig, config_from_args
from ..translator.model import uses_bf16
from ..translator.scores import score
from ..translator.train import train
from ..translator.translate import Translator


def _write_pairs(path: Path, pairs) -> None:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")


# Recipe fields the benchmark takes as options (and --fused), as `translator train` names them.
RECIPE = ("d_model", "num_layers", "d_ff", "num_heads", "vocab_size", "max_tokens", "lr", "warmup_steps", "dropout",
          "label_smoothing", "tokenizer", "average_last", "varied_copies", "precision")

# Averages kept beside the recipe's for --compare: uniform means over the last 10 and 50% of
# the budget, and exponential moving averages.
COMPARED = {"last 10%": {"start": 0.9}, "last 50%": {"start": 0.5}, "EMA 0.999": {"decay": 0.999}}


def compare(out: Path, sources: list[str], refs: list[list[str]]) -> None:
    """Normalised BLEU of the run's weights (last, the recipe's average, the compared
    averages) with greedy decoding, and of the first two also with beam search; each
    decoding's speed."""
    state = torch.load(out, weights_only=True)
    names = ["last"] + (["average"] if "average" in state else []) + list(state.get("compared", {}))
    print("weights | greedy: normalised BLEU (cased BLEU) | beam 4: normalised BLEU (cased BLEU), sentences/s")
    for name in names:
        translator = Translator.load(out, "cpu", weights=name)
        row = []
        for strategy in ("greedy", "beam") if name in ("last", "average") else ("greedy",):
            start = time.perf_counter()
            hyps = translator.translate(sources, strategy, as_typed=True)
            seconds = time.perf_counter() - start
            result = score(hyps, refs)
            row.append(f"{result.normalised_bleu.score:.1f} ({result.bleu.score:.1f}), "
                       f"{len(sources) / seconds:,.0f} sentences/s")
        print(f"  {name:12} | " + " | ".join(row))


def typed_forms(translator: Translator, sources: list[str], refs: list[list[str]]) -> None:
    """BLEU of the test sources as people type them: as typed, and normalised as `translate` does."""
    print("test sources as typed -> normalised by translate: cased BLEU / normalised BLEU")
    for form in ("cased", *sentences.TYPED_FORMS):
        typed = sources if form == "cased" else [sentences.TYPED_FORMS[form](s) for s in sources]
        row = []
        for as_typed in (True, False):
            result = score(translator.translate(typed, as_typed=as_typed), refs)
            row.append(f"{result.bleu.score:.1f} / {result.normalised_bleu.score:.1f}")
        print(f"  {form:26} {row[0]:>12} -> {row[1]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="training corpus")
    test = parser.add_mutually_exclusive_group(required=True)
    test.add_argument("--test", help="test corpus")
    test.add_argument("--test-size", type=int, help="hold out this many pairs of --data, by English sentence")
    one_budget = parser.add_mutually_exclusive_group()
    one_budget.add_argument("--minutes", type=float, help="training time budget (default: 10)")
    one_budget.add_argument("--steps", type=int, help="optimizer steps instead of minutes")
    parser.add_argument("--strategy", default="beam", choices=("greedy", "beam"),
                        help="decoding of the test sentences (default: beam, as translate's)")
    parser.add_argument("--compare", action="store_true", help="also score the last weights and other averages, "
                        "greedy and beam")
    parser.add_argument("--typed-forms", action="store_true", help="also score lower-case and unpunctuated test "
                        "sources, as typed and normalised")
    parser.add_argument("--out", help="checkpoint path (default: a temporary file)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--seed", type=int, default=0)
    for name in RECIPE:
        parser.add_argument("--" + name.replace("_", "-"), dest=name, type=type(getattr(TrainConfig, name)))
    parser.add_argument("--fused", action=argparse.BooleanOptionalAction, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        train_file = Path(args.data)
        if args.test_size:
            pairs, report = corpus.load_pairs(args.data)
            train_pairs, test_pairs = corpus.split_pairs(pairs, args.test_size, seed=12345)
            train_file = tmp / "train.tsv"
            _write_pairs(train_file, train_pairs)
            print(f"held out {len(test_pairs):,} test pairs ({len({en for en, _ in test_pairs}):,} English sentences, "
                  f"none of them in training)")
        else:
            test_pairs, report = corpus.load_pairs(args.test)
            print(report.summary())
        recipe = {k: getattr(args, k) for k in (*RECIPE, "fused")}
        minutes = args.minutes if args.minutes or args.steps else 10.0
        config = config_from_args(data=str(train_file), minutes=minutes, steps=args.steps, seed=args.seed, **recipe)
        out = Path(args.out) if args.out else tmp / "bench.pt"
        start = time.perf_counter()
        train(config, out, "cpu", compare_averages=COMPARED if args.compare else None)
        train_seconds = time.perf_counter() - start

        translator = Translator.load(out, "cpu")
        progress = torch.load(out, weights_only=True)["progress"]
        # One test item per English sentence, scored against all its translations in the
        # held-out pairs (Tatoeba gives several for many sentences).
        by_source: dict[str, list[str]] = {}
        for en, es in test_pairs:
            by_source.setdefault(en, []).append(es)
        sources, refs = list(by_source), list(by_source.values())
        start = time.perf_counter()
        hyps = translator.translate(sources, args.strategy, as_typed=True)  # the test set as it is
        decode_seconds = time.perf_counter() - start
        if args.compare:
            compare(out, sources, refs)
        if args.typed_forms:
            typed_forms(translator, sources, refs)

    result = score(hyps, refs)
    print("\n".join(f"  {src}\n    -> {hyp}\n    ref {' | '.join(ref)}" for src, hyp, ref in
                    list(zip(sources, hyps, refs))[:: max(1, len(sources) // 8)]))
    print(f"test: {len(sources):,} English sentences, {sum(map(len, refs)):,} references "
          f"(up to {max(map(len, refs))} per sentence)")
    print(f"config: d_model={config.d_model} layers={config.num_layers} d_ff={config.d_ff} heads={config.num_heads} "
          f"vocab={config.vocab_size} max_tokens={config.max_tokens} lr={config.lr} fused={config.fused} "
          f"precision={config.precision} (bfloat16 autocast: {uses_bf16(config, torch.device('cpu'))}) "
          f"average_last={config.average_last} varied_copies={config.varied_copies} threads={args.threads}")
    print(f"training: {progress['seconds']:.0f} s of steps ({train_seconds:.0f} s in all, data and validation "
          f"included), {progress['step']:,} steps, {progress['tokens'] / progress['seconds']:,.0f} tokens/s, "
          f"epoch {progress['epoch']} + {progress['batch']:,} batches")
    print(f"test BLEU {result.bleu.score:.1f} ({result.bleu_signature})")
    print(f"test BLEU after clean_text on both sides (normalised, all references) {result.normalised_bleu.score:.1f}")
    print(f"test chrF {result.chrf.score:.1f}")
    print(f"decoding ({args.strategy}): {len(sources):,} sentences in {decode_seconds:.1f} s = "
          f"{len(sources) / decode_seconds:,.0f} sentences/s")


if __name__ == "__main__":
    main()
