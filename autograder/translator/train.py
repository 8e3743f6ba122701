"""Train the reference translator: corpus -> tokenizer -> Transformer, on CPU, CUDA or MPS.

The recipe is ``config.TrainConfig``: linear warmup then cosine decay over the time (or
epoch) budget, label smoothing, token-count batches with length bucketing. The model, the
training step, the loss and the evaluation loop are the course's own reference code (a4
and a6).

Launched with ``torchrun --nproc_per_node N``, every process trains on its shard of the
batches (see ``distributed.Distributed``).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from .. import reference
from ..tokens import PAD
from . import buckets, checkpoint, corpus, curves, sentences, tokenizer
from .averaging import WeightAverage
from .config import TrainConfig, corpus_path
from .distributed import Distributed
from .model import autocast, build_model, build_optimizer, pick_device, uses_bf16
from .progress import Progress, clock
from .scores import score
from .translate import translate_ids

# Validation BLEU under which a run counts as undertrained: on Tatoeba, the embedded corpus,
# the quickstart's two epochs reach 40 (docs/translator.md).
UNDERTRAINED_BLEU = 15.0


def learning_rate(config: TrainConfig, step: int, progress: float) -> float:
    """Linear warmup over ``warmup_steps`` (or the first 5% of a shorter budget), then cosine decay."""
    warmup = min(1.0, max((step + 1) / config.warmup_steps, progress / 0.05))
    return config.lr * warmup * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))


def threads_summary() -> str:
    """How torch's CPU threads run here, for the run's first line: the count, and whether idle
    ones sleep (settings.passive_waiting) or spin (OMP_WAIT_POLICY set otherwise by the user)."""
    threads = torch.get_num_threads()
    if threads == 1:
        return "1 thread"
    policy = os.environ.get("OMP_WAIT_POLICY", "").upper()
    waiting = {"PASSIVE": "idle ones sleep", "ACTIVE": "idle ones spin"}.get(policy, "OpenMP's default waiting")
    return f"{threads} threads, {waiting}"


@dataclass
class Data:
    src: list[list[int]]
    tgt: list[list[int]]
    valid_pairs: list[tuple[str, str]]
    skipped_long: int


def prepare(config: TrainConfig, tok, train_pairs, valid_pairs) -> Data:
    src, tgt = tok.encode_src([s for s, _ in train_pairs]), tok.encode_tgt([t for _, t in train_pairs])
    keep = [i for i in range(len(src))
            if src[i] and 0 < len(tgt[i]) and max(len(src[i]), len(tgt[i]) + 2) <= config.max_len]
    skipped = len(src) - len(keep)
    return Data([src[i] for i in keep], [tgt[i] for i in keep], valid_pairs, skipped)


def train(config: TrainConfig, out: Path, device: str = "auto", resume: bool = False,
          log=print, budget_override: dict | None = None, compare_averages: dict | None = None) -> Path:
    """Train and write the checkpoint ``out`` (plus ``out`` with suffix .png: the loss curve).

    ``resume=True`` continues from ``out``: same data, tokenizer, model and optimizer,
    from the batch where it stopped; ``budget_override`` (minutes, epochs or steps) extends
    a finished run. Ctrl-C saves a checkpoint that ``--resume`` continues.
    ``compare_averages`` (for benchmarks): name -> ``WeightAverage`` keyword arguments,
    more averages kept beside the recipe's, in the checkpoint's ``"compared"``.
    """
    ddp = Distributed()
    dev = pick_device(device, ddp.local_rank)
    ddp.start(dev)
    say = log if ddp.main else (lambda *_: None)
    try:
        return Trainer(config, Path(out), dev, ddp, say, resume, budget_override or {}, compare_averages or {}).run()
    finally:
        ddp.stop()


class Diverged(ValueError):
    """The training loss stopped being a number; nothing after it is saved."""


class Trainer:
    """One run: data, tokenizer, model, optimizer and progress, saved and resumed as one checkpoint."""

    def __init__(self, config: TrainConfig, out: Path, dev, ddp: Distributed, say, resume: bool, budget_override: dict,
                 compare_averages: dict):
        self.out, self.dev, self.ddp, self.say = out, dev, ddp, say
        self.training = reference.load("training")
        state = checkpoint.load(out) if resume else None
        if state is not None:
            config = replace(TrainConfig(**state["config"]), **budget_override)
            say(f"resuming {out}: step {state['progress']['step']}, {clock(state['progress']['seconds'])} trained")
        self.config = config
        self.autocast = autocast(config, dev)  # before the data: a precision this device lacks fails at once
        torch.manual_seed(config.seed)

        pairs, report = corpus.load_pairs(corpus_path(config), config.format, config.src_column, config.tgt_column)
        say(report.summary())
        valid_size = min(config.valid_size, len(pairs) // 10)
        if config.valid_size > 0 and valid_size == 0:
            raise ValueError(f"{corpus.plural(len(pairs), 'pair')} are too few to train and validate: validation "
                             f"holds out a tenth of the pairs (at most --valid-size {config.valid_size}); give at "
                             "least 10 pairs, or --valid-size 0 to train without validation")
        if valid_size == 0:
            say("warning: --valid-size 0: no validation pairs, so no validation loss, no BLEU and no check that "
                "the model is trained enough")
        train_pairs, valid_pairs = corpus.split_pairs(pairs, valid_size, seed=config.seed)
        self.tok = tokenizer.from_state(state["tokenizer"]) if state else tokenizer.train(
            config.tokenizer, train_pairs, config.vocab_size, config.min_freq)
        # The tokenizer learns from the pairs as written; typed copies join the training pairs after it.
        copies = sentences.varied_copies(train_pairs, config.varied_copies, config.seed)
        if copies:
            say(f"training also on {corpus.plural(len(copies), 'copy', 'copies')} of pairs with the English as "
                "people type it (lower or upper case, no final mark)")
        self.data = prepare(config, self.tok, train_pairs + copies, valid_pairs)
        if self.data.skipped_long:
            say(f"skipped {self.data.skipped_long:,} training pairs longer than the positional table "
                f"(max_len={config.max_len} tokens) or empty after tokenization")
        self.lengths = [(len(s), len(t) + 2) for s, t in zip(self.data.src, self.data.tgt)]

        self.model = build_model(config, self.tok).to(dev)
        self.optimizer = build_optimizer(config, self.model, dev)
        # Process 0 keeps the averaged weights that translate (see averaging.py).
        self.average = WeightAverage(self.model, 1 - config.average_last) if config.average_last and ddp.main else None
        self.compared = {name: WeightAverage(self.model, **kwargs) for name, kwargs in compare_averages.items()}
        self.progress = {"epoch": 0, "batch": 0, "step": 0, "seconds": 0.0, "tokens": 0, "world_size": ddp.world_size}
        self.history = {"train": [], "valid": []}
        if state is not None:
            self._restore(state)
        n_params = sum(p.numel() for p in self.model.parameters())
        say(f"{self.tok.kind} tokenizer: {self.tok.src_vocab_size:,} / {self.tok.tgt_vocab_size:,} ids; model: "
            f"{n_params:,} parameters; {len(self.data.src):,} training pairs, {len(valid_pairs):,} validation pairs; "
            f"device {dev}" + (f" x {corpus.plural(ddp.world_size, 'process', 'processes')} ({ddp.backend})"
                               if ddp.enabled else "")
            + ("; bfloat16 autocast" if uses_bf16(config, dev) else "; float32")
            + (f"; {threads_summary()}" if dev.type == "cpu" else ""))
        self.net = ddp.wrap(self.model, dev)
        self.steps_per_epoch = len(self._batches(0))
        self.bar = Progress() if ddp.main else _NoProgress()

    def _restore(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        if self.average is not None and "average" in state:
            self.average.restore(state["average"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.progress, self.history = state["progress"], state["history"]
        if self.progress.get("world_size", 1) != self.ddp.world_size:
            self.say("the number of processes changed since the checkpoint: the current epoch restarts")
            self.progress["batch"] = 0

    def _batches(self, epoch: int) -> list:
        """This process's share of the epoch's token batches (a new order every epoch)."""
        batches = buckets.token_batches(self.lengths, self.config.max_tokens, self.config.seed + epoch)
        return buckets.shard(batches, self.ddp.rank, self.ddp.world_size)

    def save(self, reason: str) -> None:
        if not self.ddp.main:
            return
        state = {
            "config": asdict(self.config), "tokenizer": self.tok.state(), "model": self.model.state_dict(),
            "model_config": asdict(self.model.config), "optimizer": self.optimizer.state_dict(),
            "progress": self.progress, "history": self.history,
        }
        if self.average is not None and self.average.count:  # the weights that translate
            state["average"] = self.average.state()
        if self.compared:
            state["compared"] = {name: average.state() for name, average in self.compared.items()}
        checkpoint.save(self.out, state)
        self.say(f"checkpoint saved to {self.out} ({reason})")
        try:
            curves.plot_losses(self.history, self.out.with_suffix(".png"))
        except Exception as exc:  # the curve is a convenience; never lose a run to it
            self.say(f"warning: could not draw the loss curve ({exc.__class__.__name__}: {exc})")

    def validate(self) -> None:
        if not self.data.valid_pairs:  # --valid-size 0: nothing to judge by, and no NaN to print
            return
        if self.ddp.main:
            entry = validation(self.model, self.tok, self.data.valid_pairs, self.config, self.dev)
            entry["step"] = self.progress["step"]
            self.history["valid"].append(entry)
            self.bar.write(f"epoch {self._epochs():.2f} | step {self.progress['step']} | "
                           f"validation loss {entry['loss']:.3f} | BLEU {entry['bleu']:.1f}")
        self.ddp.barrier()

    def validate_average(self) -> None:
        """Validate the averaged weights, the ones that translate (process 0; nothing to do without)."""
        if not self.data.valid_pairs or self.average is None or not self.average.count:
            return
        entry = validation(self.average.model, self.tok, self.data.valid_pairs, self.config, self.dev)
        entry["step"], entry["steps_averaged"] = self.progress["step"], self.average.count
        self.history["average"] = entry
        self.say(f"mean of the weights of the last {self.average.count:,} steps (these translate): "
                 f"validation loss {entry['loss']:.3f} | BLEU {entry['bleu']:.1f}")

    def _epochs(self) -> float:
        return self.progress["epoch"] + self.progress["batch"] / max(1, self.steps_per_epoch)

    def run(self) -> Path:
        if self.ddp.main:
            curves.pyplot()  # imported now, so that a Ctrl-C never lands in its first import
        self.started, self.start_seconds = time.monotonic(), self.progress["seconds"]
        self.last_save = time.monotonic()
        interrupted = False
        try:
            while not self._epoch():
                self.progress["epoch"] += 1
                self.progress["batch"] = 0
                self.bar.close()
                self.validate()
                self.save(f"end of epoch {self.progress['epoch']}")
                self.last_save = time.monotonic()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            self.bar.close()
        self.progress["seconds"] = self._seconds()
        if interrupted:
            self.save("interrupted")
            self.say(f"interrupted; continue with: translator train --resume --out {self.out}")
            raise KeyboardInterrupt
        if not self.history["valid"] or self.history["valid"][-1]["step"] != self.progress["step"]:
            self.validate()
        self.validate_average()
        self.save("end of training")
        p = self.progress
        self.say(f"trained {p['step']:,} steps ({self._epochs():.2f} epochs) in {clock(p['seconds'])}; "
                 f"{p['tokens'] / max(p['seconds'], 1e-9):,.0f} tokens/s")
        if self.history["valid"]:  # process 0 validates; the others have nothing to judge by
            final = self.history.get("average", self.history["valid"][-1])
            advice = undertrained(final["bleu"], self._epochs(), self.out)
            if advice:
                self.say(advice)
        return self.out

    def _seconds(self) -> float:
        return self.start_seconds + time.monotonic() - self.started

    def _epoch(self) -> bool:
        """Train on the rest of the current epoch; True if the budget ran out first."""
        p, config = self.progress, self.config
        batches = self._batches(p["epoch"])
        window_loss, window_tokens, window_start, tokens_per_second = [], 0, time.monotonic(), 0.0
        while p["batch"] < len(batches):
            p["seconds"] = self._seconds()
            done = config.done(p["step"], p["seconds"], self.steps_per_epoch)
            fraction, stop = self.ddp.agree(done, done >= 1.0, self.dev)
            if stop:
                return True
            loss, n_tokens = self._step(batches[p["batch"]], fraction)
            if not math.isfinite(loss):
                raise Diverged(f"the training loss became {loss} at step {p['step'] + 1}: the model diverged; train "
                               f"again with a lower --lr (now {config.lr:g}) or a longer warmup (--warmup-steps); "
                               f"{self.out} keeps the last checkpoint saved before it, if any")
            p["batch"] += 1
            p["step"] += 1
            p["tokens"] += n_tokens
            done = config.done(p["step"], self._seconds(), self.steps_per_epoch)
            for average in ([self.average] if self.average else []) + list(self.compared.values()):
                average.update(self.model, done)
            window_loss.append(loss)
            window_tokens += n_tokens
            if time.monotonic() - window_start >= 5.0:
                tokens_per_second = window_tokens / (time.monotonic() - window_start)
                self.history["train"].append((p["step"], sum(window_loss) / len(window_loss)))
                window_loss, window_tokens, window_start = [], 0, time.monotonic()
            self.bar.update(fraction, f"epoch {p['epoch'] + p['batch'] / len(batches):.2f} | step {p['step']} | "
                                      f"loss {loss:.3f} | "
                                      + (f"{tokens_per_second:,.0f} tok/s" if tokens_per_second else "measuring tok/s"))
            if time.monotonic() - self.last_save >= config.save_every_minutes * 60:
                self.save("periodic")
                self.last_save = time.monotonic()
        return False

    def _step(self, batch, fraction: float) -> tuple[float, int]:
        """One optimizer step on ``batch``; its loss and its real tokens (all processes)."""
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(self.config, self.progress["step"], fraction)
        src, tgt = buckets.make_batch(self.data.src, self.data.tgt, batch)
        src, tgt = src.to(self.dev, non_blocking=True), tgt.to(self.dev, non_blocking=True)
        self.net.train()
        with self.autocast:
            loss = self.training.train_step(self.net, src, tgt, self.optimizer, PAD,
                                            self.config.label_smoothing, self.config.clip_norm)
        n_tokens = int((src != PAD).sum() + (tgt != PAD).sum()) * self.ddp.world_size
        return loss, n_tokens


def undertrained(bleu: float, epochs: float, out: Path) -> str | None:
    """A warning with the command to train further, when the validation BLEU says the model
    is far from what the recipe reaches; None when it is not."""
    if not bleu < UNDERTRAINED_BLEU:  # NaN (no validation pairs) says nothing
        return None
    more = max(1, math.ceil(2 * epochs))
    return (f"warning: this model is undertrained (validation BLEU {bleu:.1f} after {epochs:.2f} epochs; the recipe "
            f"reaches {UNDERTRAINED_BLEU:g} or more on real data such as Tatoeba), so "
            f"expect poor translations. Train further: translator train --resume --out {out} --epochs {more}")


def validation(model, tok, valid_pairs, config, device, sample: int = 200) -> dict:
    """Loss over the validation pairs and sacreBLEU of greedy translations of (up to) ``sample`` of them."""
    training = reference.load("training")
    src = tok.encode_src([s for s, _ in valid_pairs])
    tgt = tok.encode_tgt([t for _, t in valid_pairs])
    keep = [i for i in range(len(src)) if src[i] and tgt[i] and max(len(src[i]), len(tgt[i]) + 2) <= config.max_len]
    src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    batches = [tuple(x.to(device) for x in buckets.make_batch(src, tgt, b))
               for b in buckets.token_batches([(len(s), len(t) + 2) for s, t in zip(src, tgt)], 4096, 0)]
    loss = training.evaluate(model, batches, PAD) if batches else float("nan")
    chosen = valid_pairs[:sample]
    hyps = tok.decode_tgt(translate_ids(model, tok.encode_src([s for s, _ in chosen]), device, config.max_len))
    bleu = score(hyps, [t for _, t in chosen]).bleu.score if chosen else float("nan")
    return {"loss": loss, "bleu": bleu}


class _NoProgress:
    def update(self, *args, **kwargs):
        pass

    write = close = update
