"""Train, translate and score the reference translator: ``python -m autograder.bench.translator``.

Given a training corpus and either a test corpus or a test size (held out from the
training file by English sentence, so no test sentence is ever trained on), trains for a
time budget, translates the test sources and prints: training tokens/s, steps, epochs,
sacreBLEU (as is, and after normalising both sides with the a6 ``clean_text``), chrF and
decoding sentences/s. It prints figures; it asserts nothing.

    python -m autograder.bench.translator --data ../shared/data/spa-eng.txt --test-size 2000 --minutes 10
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from ..translator import corpus
from ..translator.config import TrainConfig, config_from_args
from ..translator.scores import score
from ..translator.train import train
from ..translator.translate import Translator


def _write_pairs(path: Path, pairs) -> None:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="training corpus")
    test = parser.add_mutually_exclusive_group(required=True)
    test.add_argument("--test", help="test corpus")
    test.add_argument("--test-size", type=int, help="hold out this many pairs of --data, by English sentence")
    parser.add_argument("--minutes", type=float, default=10.0, help="training time budget (default: 10)")
    parser.add_argument("--strategy", default="greedy", choices=("greedy", "beam"))
    parser.add_argument("--out", help="checkpoint path (default: a temporary file)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--seed", type=int, default=0)
    for name in ("d_model", "num_layers", "d_ff", "num_heads", "vocab_size", "max_tokens", "lr", "warmup_steps",
                 "dropout", "label_smoothing", "tokenizer"):
        parser.add_argument("--" + name.replace("_", "-"), dest=name, type=type(getattr(TrainConfig, name)))
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
        recipe = {k: getattr(args, k) for k in ("d_model", "num_layers", "d_ff", "num_heads", "vocab_size",
                                                  "max_tokens", "lr", "warmup_steps", "dropout", "label_smoothing",
                                                  "tokenizer")}
        config = config_from_args(data=str(train_file), minutes=args.minutes, seed=args.seed, **recipe)
        out = Path(args.out) if args.out else tmp / "bench.pt"
        start = time.perf_counter()
        train(config, out, "cpu")
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

    result = score(hyps, refs)
    print("\n".join(f"  {src}\n    -> {hyp}\n    ref {' | '.join(ref)}" for src, hyp, ref in
                    list(zip(sources, hyps, refs))[:: max(1, len(sources) // 8)]))
    print(f"test: {len(sources):,} English sentences, {sum(map(len, refs)):,} references "
          f"(up to {max(map(len, refs))} per sentence)")
    print(f"config: d_model={config.d_model} layers={config.num_layers} d_ff={config.d_ff} heads={config.num_heads} "
          f"vocab={config.vocab_size} max_tokens={config.max_tokens} lr={config.lr} threads={args.threads}")
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
