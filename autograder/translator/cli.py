"""``translator train | translate | evaluate`` (also ``python -m autograder.translator``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import fields
from pathlib import Path

from . import corpus, examples
from .config import PRECISIONS, TrainConfig, budget, config_from_args
from .scores import score
from .train import train
from .translate import NO_REPEAT_NGRAM, STRATEGIES, Translator

DEFAULT_CHECKPOINT = "translator.pt"
# Beam search gains 2-3 BLEU over greedy decoding on Tatoeba (docs/translator.md, Benchmarks)
# at a few dozen sentences/s on a 2-core CPU: enough for what a person types.
DEFAULT_STRATEGY = "beam"
DEVICES = ("auto", "cpu", "cuda", "mps")
DEVICE_HELP = "where to run: auto picks CUDA, then Apple MPS, then the CPU (default: auto)"
# What each recipe option of `train` sets (TrainConfig's fields; defaults come from there).
RECIPE_HELP = {
    "tokenizer": "subword: one SentencePiece vocabulary for both languages; word: the a6 word pipeline",
    "vocab_size": "subword pieces for both languages",
    "min_freq": "word tokenizer: rarer words become <unk>",
    "d_model": "model width",
    "num_heads": "attention heads",
    "num_layers": "encoder layers, and as many decoder layers",
    "d_ff": "feed-forward hidden size",
    "dropout": "dropout rate",
    "fused": "torch's fused kernels for LayerNorm, attention and Adam (same model, faster step); --no-fused runs "
             "the course's modules as written",
    "precision": "training arithmetic: auto trains in bfloat16 autocast on a CUDA GPU that has it and in float32 "
                 "on every CPU; bf16 or fp32 choose",
    "average_last": "translate with the mean of the weights over this last share of the budget; 0 = the last weights",
    "varied_copies": "train also on copies of this share of the pairs with the English in lower or upper case or "
                     "without its final mark",
    "max_len": "longest sentence in tokens (the positional table); longer training pairs are skipped",
    "max_tokens": "padded tokens per batch and side",
    "lr": "peak learning rate",
    "warmup_steps": "steps of linear warmup before the cosine decay",
    "label_smoothing": "label smoothing of the loss",
    "valid_size": "pairs held out (by English sentence) for validation",
    "seed": "seed of the data split, batch order and initial weights",
}


CHOICES = {"tokenizer": ("subword", "word"), "precision": PRECISIONS}


def _train(args) -> int:
    recipe = {f.name: getattr(args, f.name, None) for f in fields(TrainConfig)}
    if args.resume:
        extension = budget(minutes=args.minutes, epochs=args.epochs, steps=args.steps)
        train(TrainConfig(), Path(args.out), args.device, resume=True, budget_override=extension)
        return 0
    if Path(args.out).exists() and not args.overwrite:
        raise ValueError(f"{args.out} exists; continue that run with --resume, pick another --out, "
                         "or pass --overwrite to replace it")
    train(config_from_args(**recipe), Path(args.out), args.device)
    if os.environ.get("RANK", "0") == "0":  # under torchrun, one process shows what the model learned
        examples.show(Translator.load(args.out, args.device), strategy=DEFAULT_STRATEGY)
    print(f'translate with: translator translate --checkpoint {args.out} "I am hungry."')
    return 0


def _read_lines(path: str) -> list[str]:
    """The lines of ``path`` ('-': standard input), which must be UTF-8: an error names the line."""
    if path == "-":
        return sys.stdin.read().splitlines()
    if not Path(path).is_file():
        raise FileNotFoundError(f"--input: no such file: {path}")
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(f"{path}:{line}: byte 0x{data[exc.start]:02x} at column {column} is not UTF-8 "
                         "(a Latin-1 or Windows file?); save the file as UTF-8") from None


def _decoding(args) -> dict:
    """The decoding options of `translate`, as Translator.translate takes them."""
    return dict(strategy=args.strategy, beam_size=args.beam_size, temperature=args.temperature, top_k=args.top_k,
                top_p=args.top_p, seed=args.seed, no_repeat_ngram=args.no_repeat_ngram)


def _translate(args) -> int:
    if args.examples:
        if args.input or args.sentences:
            raise ValueError("--examples translates lecture 000's sentences: give no sentences or --input with it")
        examples.show(Translator.load(args.checkpoint, args.device), **_decoding(args))
        return 0
    if args.input and args.sentences:
        raise ValueError("give sentences or --input FILE, not both")
    lines = _read_lines(args.input) if args.input else list(args.sentences)
    if not lines and not args.input:
        raise ValueError('nothing to translate: give sentences ("I am hungry.") or --input FILE')
    translator = Translator.load(args.checkpoint, args.device)
    if not lines:  # one output line per input line holds for none too: an empty result, as in a pipeline
        if args.output:
            Path(args.output).write_text("", encoding="utf-8")
        print(f"0 lines translated: {args.input} is empty", file=sys.stderr)
        return 0
    start = time.perf_counter()
    out = translator.translate(lines, **_decoding(args), as_typed=args.as_typed)
    seconds = time.perf_counter() - start
    if args.output:
        Path(args.output).write_text("".join(line + "\n" for line in out), encoding="utf-8")
        print(f"{corpus.plural(len(out), 'line')} translated in {seconds:.1f} s -> {args.output}", file=sys.stderr)
    else:
        for line in out:
            print(line)
    return 0


def _evaluate(args) -> int:
    pairs, report = corpus.load_pairs(args.data, args.format, args.src_column, args.tgt_column)
    print(report.summary(), file=sys.stderr)
    translator = Translator.load(args.checkpoint, args.device)
    start = time.perf_counter()
    # The corpus's own sentences, as they are: scores stay comparable with other systems'.
    hyps = translator.translate([en for en, _ in pairs], args.strategy, beam_size=args.beam_size,
                                no_repeat_ngram=args.no_repeat_ngram, as_typed=True)
    seconds = time.perf_counter() - start
    result = score(hyps, [es for _, es in pairs])
    print(f"{corpus.plural(len(pairs), 'sentence')} translated in {seconds:.1f} s "
          f"({len(pairs) / max(seconds, 1e-9):,.1f} sentences/s)")
    print(f"{result.bleu}  signature: {result.bleu_signature}")
    print(f"{result.chrf}  signature: {result.chrf_signature}")
    print(f"normalised {result.normalised_bleu}  (clean_text on both sides, then whitespace tokens)")
    return 0


def _column_options(p) -> None:
    p.add_argument("--src-column", help="CSV: the English column, a header name or a number from 1 (default: the "
                   "column named en, english, inglés, source...)")
    p.add_argument("--tgt-column", help="CSV: the Spanish column, a header name or a number from 1 (default: the "
                   "column named es, spanish, español, target...)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="translator", description="English-to-Spanish Transformer translator")
    sub = parser.add_subparsers(dest="command", required=True)
    defaults = TrainConfig()

    t = sub.add_parser("train", help="train a translator and write a checkpoint",
                       description="Train on a corpus (default: the embedded Tatoeba EN-ES corpus) for an "
                                   "epoch (or time) budget, then show the translations of lecture 000's sentences.")
    t.add_argument("--data", help="corpus file (Tatoeba pairs, manythings/Anki or ;-separated CSV) "
                   "(default: the embedded Tatoeba corpus, source_data/translator/spa-eng.txt.gz)")
    t.add_argument("--format", choices=corpus.FORMATS, help="corpus format (default: detected from the file)")
    _column_options(t)
    one_budget = t.add_mutually_exclusive_group()
    one_budget.add_argument("--epochs", type=float,
                            help=f"passes over the training pairs: the same work, and the same model, on any "
                                 f"machine (default: {defaults.epochs:g})")
    one_budget.add_argument("--minutes", type=float,
                            help="a time budget instead of epochs: how far it gets depends on the machine "
                                 "(default: none, epochs are used)")
    one_budget.add_argument("--steps", type=int,
                            help="optimizer steps instead of epochs, e.g. the steps a time budget reached "
                                 "elsewhere (default: none, epochs are used)")
    t.add_argument("--out", default=DEFAULT_CHECKPOINT, help=f"checkpoint file (default: {DEFAULT_CHECKPOINT})")
    t.add_argument("--device", default="auto", choices=DEVICES, help=DEVICE_HELP)
    t.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    t.add_argument("--overwrite", action="store_true", help="replace an existing --out instead of refusing")
    for name, what in RECIPE_HELP.items():
        default = getattr(defaults, name)
        if isinstance(default, bool):
            t.add_argument("--" + name.replace("_", "-"), dest=name, action=argparse.BooleanOptionalAction,
                           default=None, help=f"{what} (default: {'on' if default else 'off'})")
            continue
        kind = type(default) if default is not None else str
        t.add_argument("--" + name.replace("_", "-"), dest=name, type=kind,
                       choices=CHOICES.get(name),
                       help=f"{what} (default: {default})")
    t.set_defaults(run=_train)

    tr = sub.add_parser("translate", help="translate sentences or a file with a checkpoint",
                        description="Translate English sentences (arguments, or one per line of --input).")
    tr.add_argument("sentences", nargs="*", help="English sentences to translate")
    tr.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT,
                    help=f"checkpoint written by `translator train` (default: {DEFAULT_CHECKPOINT})")
    tr.add_argument("--input", help="UTF-8 file with one sentence per line; '-' reads standard input; an empty "
                                    "file gives an empty output (default: the sentences given as arguments)")
    tr.add_argument("--output", help="write translations here, one line per input line (default: standard output)")
    tr.add_argument("--examples", action="store_true",
                    help="translate lecture 000's 16 everyday sentences (what `train` shows when it ends), as a "
                         "table")
    tr.add_argument("--as-typed", action="store_true",
                    help="translate each line exactly as given; by default a line is split into sentences, each "
                         "cased and punctuated like the training data, and the translations joined again")
    _decoding_options(tr, STRATEGIES)
    tr.add_argument("--temperature", type=float, default=1.0,
                    help="--strategy sample: divide the logits by this; lower is more conservative (default: 1.0)")
    tr.add_argument("--top-k", type=int, help="--strategy sample: draw from the k likeliest tokens (default: all)")
    tr.add_argument("--top-p", type=float,
                    help="--strategy sample: draw from the smallest set of tokens reaching this probability "
                         "(default: 1.0, all)")
    tr.add_argument("--seed", type=int, help="--strategy sample: seed of the draws (default: a new one)")
    tr.set_defaults(run=_translate)

    e = sub.add_parser("evaluate", help="sacreBLEU and chrF of a checkpoint on a test corpus",
                       description="Translate the English side of a corpus and score it against the Spanish side.")
    e.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT,
                   help=f"checkpoint written by `translator train` (default: {DEFAULT_CHECKPOINT})")
    e.add_argument("--data", required=True, help="test corpus (Tatoeba pairs, manythings/Anki or ;-separated CSV)")
    e.add_argument("--format", choices=corpus.FORMATS, help="corpus format (default: detected from the file)")
    _column_options(e)
    _decoding_options(e, ("greedy", "beam"))
    e.set_defaults(run=_evaluate)
    return parser


def _decoding_options(p, strategies) -> None:
    p.add_argument("--strategy", default=DEFAULT_STRATEGY, choices=strategies,
                   help="beam: keep --beam-size hypotheses (better translations); greedy: the likeliest token at "
                        "each step (2 to 2.5 times as fast)"
                        + ("; sample: draw tokens at random" if "sample" in strategies else "")
                        + f" (default: {DEFAULT_STRATEGY})")
    p.add_argument("--beam-size", type=int, default=4, help="--strategy beam: hypotheses kept (default: 4)")
    p.add_argument("--no-repeat-ngram", type=int, default=NO_REPEAT_NGRAM, metavar="N",
                   help="greedy and sample: never repeat a sequence of N tokens, which stops an undertrained "
                        f"model's loops; 0 turns it off (default: {NO_REPEAT_NGRAM})")
    p.add_argument("--device", default="auto", choices=DEVICES, help=DEVICE_HELP)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except (ValueError, FileNotFoundError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
