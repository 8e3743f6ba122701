"""Training-step speed of translator recipes, as ratios measured back to back:
``python -m autograder.bench.translator_step --data ../shared/data/spa-eng.txt``.

A shared machine's speed drifts from minute to minute, so absolute steps/s say little;
this runs every variant for ``--steps`` steps of the same batches, one after the other,
``--rounds`` times, and prints each one's steps/s and its ratio to the first variant's in
the same round (with the load average), by the clock and by CPU time (the process's own
seconds: on a busy machine closer to what a quiet one gives, with ``OMP_WAIT_POLICY=PASSIVE``
so that waiting threads do not count). A variant is a set of recipe fields
(``d_model=192,d_ff=768,fused=0``, ``precision=fp32``) plus a switch that is not a
recipe field: ``compile=1`` (``torch.compile`` of the model, compile time printed
apart). Multiply a variant's ratio by the steps the first one reaches in ten quiet minutes
to get its ``--steps`` budget for ``bench.translator``.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import replace

import torch

from .. import reference
from ..tokens import PAD
from ..translator import buckets, corpus, tokenizer
from ..translator.averaging import WeightAverage
from ..translator.config import TrainConfig
from ..translator.model import autocast, build_model, build_optimizer
from ..translator.train import learning_rate

DEFAULT_VARIANTS = ["precision=fp32", "precision=auto"]


def parse_variant(text: str, base: TrainConfig) -> tuple[TrainConfig, dict]:
    fields, switches = {}, {"compile": False}
    for item in filter(None, text.split(",")):
        key, value = item.split("=")
        if key in switches:
            switches[key] = value not in ("0", "false", "False")
            continue
        kind = type(getattr(base, key))
        fields[key] = (value not in ("0", "false", "False")) if kind is bool else kind(value)
    return replace(base, **fields), switches


class Run:
    def __init__(self, config: TrainConfig, switches: dict, tok, seed: int):
        torch.manual_seed(seed)
        self.config, self.switches = config, switches
        self.model = build_model(config, tok)
        self.optimizer = build_optimizer(config, self.model, torch.device("cpu"))
        self.average = WeightAverage(self.model, 0.0) if config.average_last else None
        self.net = self.model
        self.compile_seconds = 0.0
        if switches["compile"]:
            self.net = torch.compile(self.model, dynamic=True)
        self.train_step = reference.load("training").train_step
        self.step_count = 0

    def step(self, src, tgt) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(self.config, self.step_count, 0.5)
        with autocast(self.config, torch.device("cpu")):
            self.train_step(self.net, src, tgt, self.optimizer, PAD, self.config.label_smoothing,
                            self.config.clip_norm)
        if self.average is not None:
            self.average.update(self.model, 1.0)
        self.step_count += 1


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="training corpus")
    parser.add_argument("--steps", type=int, default=150, help="timed steps per variant and round (default: 150)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of all variants (default: 2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS,
                        help="recipe fields per variant, e.g. d_model=192,d_ff=768 (default: %(default)s)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    base = TrainConfig()
    pairs, _ = corpus.load_pairs(args.data)
    tok = tokenizer.train(base.tokenizer, pairs, base.vocab_size, base.min_freq)
    src, tgt = tok.encode_src([s for s, _ in pairs]), tok.encode_tgt([t for _, t in pairs])
    keep = [i for i in range(len(src)) if src[i] and tgt[i] and max(len(src[i]), len(tgt[i]) + 2) <= base.max_len]
    src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    runs = [(text, Run(*parse_variant(text, base), tok, seed=0)) for text in args.variants]
    # The same batches for every variant: the token budget of the first variant's recipe.
    max_tokens = runs[0][1].config.max_tokens
    batches = buckets.token_batches([(len(s), len(t) + 2) for s, t in zip(src, tgt)], max_tokens, 0)
    random.Random(0).shuffle(batches)
    warmup = [buckets.make_batch(src, tgt, b) for b in batches[:10]]
    for text, run in runs:  # first steps: allocation, and torch.compile's compilation
        start = time.perf_counter()
        for s, t in warmup:
            run.step(s, t)
        print(f"{text or 'default'}: first {len(warmup)} steps {time.perf_counter() - start:.1f} s")
    timed = [buckets.make_batch(src, tgt, b) for b in batches[10:10 + args.steps]]
    for r in range(args.rounds):
        print(f"round {r + 1}: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        speeds = {}
        for text, run in (runs if r % 2 == 0 else runs[::-1]):  # every other round backwards: drift evens out
            start, cpu = time.perf_counter(), time.process_time()
            for s, t in timed:
                run.step(s, t)
            speeds[text] = (len(timed) / (time.perf_counter() - start), len(timed) / (time.process_time() - cpu))
        first = speeds[runs[0][0]]
        for text, _ in runs:
            wall, cpu = speeds[text]
            print(f"  {text or 'default':40} {wall:6.2f} steps/s, ratio {wall / first[0]:.3f} | per CPU-second "
                  f"{cpu:6.2f} steps, ratio {cpu / first[1]:.3f}")


if __name__ == "__main__":
    main()
