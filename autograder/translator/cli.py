"""``translator train | translate | evaluate`` (also ``python -m autograder.translator``)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

from . import corpus
from .config import TrainConfig, budget, config_from_args
from .scores import score
from .train import train
from .translate import STRATEGIES, Translator

DEFAULT_CHECKPOINT = "translator.pt"


def _train(args) -> int:
    recipe = {f.name: getattr(args, f.name, None) for f in fields(TrainConfig)}
    if args.resume:
        extension = budget(minutes=args.minutes, epochs=args.epochs)
        train(TrainConfig(), Path(args.out), args.device, resume=True, budget_override=extension)
        return 0
    if Path(args.out).exists() and not args.overwrite:
        raise ValueError(f"{args.out} exists; continue that run with --resume, pick another --out, "
                         "or pass --overwrite to replace it")
    train(config_from_args(**recipe), Path(args.out), args.device)
    print(f'translate with: translator translate --checkpoint {args.out} "I am hungry."')
    return 0


def _read_lines(path: str) -> list[str]:
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    return text.splitlines()


def _translate(args) -> int:
    if args.input and args.sentences:
        raise ValueError("give sentences or --input FILE, not both")
    lines = _read_lines(args.input) if args.input else list(args.sentences)
    if not lines:
        raise ValueError('nothing to translate: give sentences ("I am hungry.") or --input FILE')
    translator = Translator.load(args.checkpoint, args.device)
    start = time.perf_counter()
    out = translator.translate(lines, args.strategy, beam_size=args.beam_size, temperature=args.temperature,
                               top_k=args.top_k, top_p=args.top_p, seed=args.seed)
    seconds = time.perf_counter() - start
    if args.output:
        Path(args.output).write_text("".join(line + "\n" for line in out), encoding="utf-8")
        print(f"{len(out):,} lines translated in {seconds:.1f} s -> {args.output}", file=sys.stderr)
    else:
        for line in out:
            print(line)
    return 0


def _evaluate(args) -> int:
    pairs, report = corpus.load_pairs(args.data, args.format)
    print(report.summary(), file=sys.stderr)
    translator = Translator.load(args.checkpoint, args.device)
    start = time.perf_counter()
    hyps = translator.translate([en for en, _ in pairs], args.strategy, beam_size=args.beam_size)
    seconds = time.perf_counter() - start
    result = score(hyps, [es for _, es in pairs])
    print(f"{len(pairs):,} sentences translated in {seconds:.1f} s ({len(pairs) / seconds:,.0f} sentences/s)")
    print(f"{result.bleu}  signature: {result.bleu_signature}")
    print(f"{result.chrf}  signature: {result.chrf_signature}")
    print(f"normalised {result.normalised_bleu}  (clean_text on both sides, then whitespace tokens)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="translator", description="English-to-Spanish Transformer translator")
    sub = parser.add_subparsers(dest="command", required=True)
    defaults = TrainConfig()

    t = sub.add_parser("train", help="train a translator and write a checkpoint",
                       description="Train on a corpus (default: the embedded EN-ES corpus) for a time or epoch budget.")
    t.add_argument("--data", help="corpus file (Tatoeba pairs, manythings/Anki or ;-separated CSV); "
                   "default: the embedded corpus")
    t.add_argument("--format", choices=corpus.FORMATS, help="corpus format (default: detected)")
    one_budget = t.add_mutually_exclusive_group()
    one_budget.add_argument("--minutes", type=float, help=f"training time budget (default {defaults.minutes:g})")
    one_budget.add_argument("--epochs", type=float, help="epoch budget instead of minutes")
    t.add_argument("--out", default=DEFAULT_CHECKPOINT, help=f"checkpoint file (default {DEFAULT_CHECKPOINT})")
    t.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    t.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    t.add_argument("--overwrite", action="store_true", help="replace an existing --out instead of refusing")
    for name in ("tokenizer", "vocab_size", "d_model", "num_heads", "num_layers", "d_ff", "dropout", "max_len",
                 "max_tokens", "lr", "warmup_steps", "label_smoothing", "valid_size", "seed", "min_freq"):
        default = getattr(defaults, name)
        kind = type(default) if default is not None else str
        t.add_argument("--" + name.replace("_", "-"), dest=name, type=kind,
                       choices=("subword", "word") if name == "tokenizer" else None,
                       help=f"default {default}")
    t.set_defaults(run=_train)

    tr = sub.add_parser("translate", help="translate sentences or a file with a checkpoint")
    tr.add_argument("sentences", nargs="*", help="English sentences to translate")
    tr.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT)
    tr.add_argument("--input", help="file with one sentence per line ('-' = stdin)")
    tr.add_argument("--output", help="write translations here, one line per input line (default: stdout)")
    _decoding_options(tr)
    tr.set_defaults(run=_translate)

    e = sub.add_parser("evaluate", help="sacreBLEU and chrF of a checkpoint on a test corpus")
    e.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT)
    e.add_argument("--data", required=True, help="test corpus (any format the loader reads)")
    e.add_argument("--format", choices=corpus.FORMATS)
    e.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    e.add_argument("--strategy", default="greedy", choices=("greedy", "beam"))
    e.add_argument("--beam-size", type=int, default=4)
    e.set_defaults(run=_evaluate)
    return parser


def _decoding_options(p) -> None:
    p.add_argument("--strategy", default="greedy", choices=STRATEGIES)
    p.add_argument("--beam-size", type=int, default=4)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--top-k", type=int)
    p.add_argument("--top-p", type=float)
    p.add_argument("--seed", type=int, help="sampling seed (default: random)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))


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
