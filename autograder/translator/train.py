"""Train the reference translator: corpus -> tokenizer -> Transformer, on CPU, CUDA or MPS.

The recipe is chosen for quality per minute of a laptop CPU (see ``TrainConfig``): joint
subwords with tied embeddings, token-count batches with length bucketing, a pre-norm
model small enough to see the corpus more than once, linear warmup then cosine decay
over the time (or epoch) budget, label smoothing. The model, the training step, the loss
and the evaluation loop are the course's own reference code (a4 and a6).

Launched with ``torchrun --nproc_per_node N``, every process trains on its shard of the
batches and DistributedDataParallel averages the gradients; process 0 validates, logs and
writes the checkpoint.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import torch
import torch.distributed as dist

from .. import course, reference
from . import buckets, checkpoint, corpus, tokenizer
from .progress import Progress, clock

EMBEDDED_CORPUS = "translator/en-es.tsv"  # under source_data/


@dataclass
class TrainConfig:
    data: str | None = None  # corpus file; None = the embedded corpus in source_data/
    format: str | None = None  # "tatoeba", "anki" or "csv"; None = detect from the file
    tokenizer: str = "subword"  # "subword" (joint SentencePiece) or "word" (the a6 pipeline)
    vocab_size: int = 4000  # subword pieces for both languages (a small corpus gets fewer)
    min_freq: int = 1  # word tokenizer: rarer words become <unk>
    d_model: int = 256  # model width
    num_heads: int = 4  # attention heads
    num_layers: int = 2  # encoder layers, and again decoder layers
    d_ff: int = 1024  # feed-forward hidden size
    # Short runs see each pair once or a few times: nothing to regularise yet, and
    # dropout's random masks cost ~10% of a CPU step.
    dropout: float = 0.0
    max_len: int = 128  # positional table: longest sentence in tokens; longer pairs are skipped
    max_tokens: int = 2048  # padded tokens per batch and side (per process)
    lr: float = 1e-3  # peak learning rate, reached after warmup
    warmup_steps: int = 200  # linear warmup (at most 5% of the budget), then cosine decay to 5% at its end
    label_smoothing: float = 0.1  # section 5.4 of the paper
    clip_norm: float = 1.0  # gradient norm clipping
    valid_size: int = 500  # pairs held out by English sentence for validation loss and BLEU
    minutes: float | None = 2.0  # training time budget (None: use epochs)
    epochs: float | None = None  # epoch budget instead of minutes
    save_every_minutes: float = 2.0  # checkpoint cadence (also at every epoch end)
    seed: int = 0  # data split, batch order, initial weights

    def __post_init__(self):
        if self.tokenizer not in tokenizer.KINDS:
            raise ValueError(f"tokenizer must be one of {', '.join(tokenizer.KINDS)}, got {self.tokenizer!r}")
        if (self.minutes is None) == (self.epochs is None):
            raise ValueError("give exactly one budget: minutes or epochs")
        if (self.minutes or self.epochs) <= 0:
            raise ValueError("the training budget (minutes or epochs) must be positive")
        if self.max_len < 8:
            raise ValueError(f"max_len must be at least 8 tokens, got {self.max_len}")


def corpus_path(config: TrainConfig) -> Path:
    return Path(config.data) if config.data else course.data_dir() / EMBEDDED_CORPUS


def pick_device(name: str = "auto", local_rank: int = 0) -> torch.device:
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda", local_rank)
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: no CUDA GPU is visible to torch here; use --device auto or cpu")
    if name == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("--device mps: Apple's MPS backend is not available here; use --device auto or cpu")
    if name not in ("cpu", "cuda", "mps"):
        raise ValueError(f"device must be auto, cpu, cuda or mps, got {name!r}")
    return torch.device("cuda", local_rank) if name == "cuda" else torch.device(name)


def build_model(config: TrainConfig, tok):
    """The course's Transformer (a4), pre-norm, with every embedding tied when it can be."""
    t = reference.load("transformer")
    model_config = t.TransformerConfig(
        src_vocab_size=tok.src_vocab_size, tgt_vocab_size=tok.tgt_vocab_size, d_model=config.d_model,
        num_heads=config.num_heads, num_layers=config.num_layers, d_ff=config.d_ff, dropout=config.dropout,
        max_len=config.max_len, pad_id=tokenizer.PAD, norm_first=True, tie_weights=True,
    )
    model = t.Transformer(model_config)
    if tok.shared_vocab:  # one subword vocabulary: the source embedding is the target's too
        model.src_embed.weight = model.tgt_embed.weight
    return model


def learning_rate(config: TrainConfig, step: int, progress: float) -> float:
    """Linear warmup over ``warmup_steps`` (or the first 5% of a shorter budget), then cosine decay."""
    warmup = min(1.0, max((step + 1) / config.warmup_steps, progress / 0.05))
    return config.lr * warmup * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0))))


class Distributed:
    """Who this process is under ``torchrun`` (or a single process without it)."""

    def __init__(self):
        self.world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.main = self.rank == 0

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    def start(self, device: torch.device) -> None:
        if self.enabled and not dist.is_initialized():
            if device.type == "cuda":
                torch.cuda.set_device(device)
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")

    def agree(self, progress: float, stop: bool, device) -> tuple[float, bool]:
        """Every process uses process 0's clock, so learning rates and the last step match."""
        if not self.enabled:
            return progress, stop
        flags = torch.tensor([progress, float(stop)], dtype=torch.float64, device=device)
        dist.broadcast(flags, src=0)
        return float(flags[0]), bool(flags[1])

    def barrier(self) -> None:
        if self.enabled:
            dist.barrier()

    def stop(self) -> None:
        if self.enabled and dist.is_initialized():
            dist.destroy_process_group()


@dataclass
class Data:
    src: list[list[int]]
    tgt: list[list[int]]
    valid_pairs: list[tuple[str, str]]
    skipped_long: int


def prepare(config: TrainConfig, tok, train_pairs, valid_pairs) -> Data:
    src, tgt = tok.encode_src([s for s, _ in train_pairs]), tok.encode_tgt([t for _, t in train_pairs])
    keep = [i for i in range(len(src)) if src[i] and 0 < len(tgt[i]) and max(len(src[i]), len(tgt[i]) + 2) <= config.max_len]
    skipped = len(src) - len(keep)
    return Data([src[i] for i in keep], [tgt[i] for i in keep], valid_pairs, skipped)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: works without a display
    import matplotlib.pyplot as plt

    return plt


def plot_losses(history: dict, path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    if history["train"]:
        steps, losses = zip(*history["train"])
        ax.plot(steps, losses, label="train (label-smoothed)")
    if history["valid"]:
        steps, losses = zip(*[(h["step"], h["loss"]) for h in history["valid"]])
        ax.plot(steps, losses, "o-", label="validation")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy per token")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def train(config: TrainConfig, out: Path, device: str = "auto", resume: bool = False,
          log=print, budget_override: dict | None = None) -> Path:
    """Train and write the checkpoint ``out`` (plus ``out`` with suffix .png: the loss curve).

    ``resume=True`` continues from ``out``: same data, tokenizer, model and optimizer,
    from the batch where it stopped; ``budget_override`` (minutes or epochs) extends a
    finished run. Ctrl-C saves a checkpoint that ``--resume`` continues.
    """
    ddp = Distributed()
    dev = pick_device(device, ddp.local_rank)
    ddp.start(dev)
    say = log if ddp.main else (lambda *_: None)
    try:
        return _train(config, Path(out), dev, resume, say, ddp, budget_override or {})
    finally:
        ddp.stop()


def _train(config, out, dev, resume, say, ddp, budget_override):
    training = reference.load("training")
    state = checkpoint.load(out) if resume else None
    if state is not None:
        config = replace(TrainConfig(**state["config"]), **budget_override)
        say(f"resuming {out}: step {state['progress']['step']}, {clock(state['progress']['seconds'])} trained")
    torch.manual_seed(config.seed)

    pairs, report = corpus.load_pairs(corpus_path(config), config.format)
    say(report.summary())
    valid_size = min(config.valid_size, len(pairs) // 10)
    train_pairs, valid_pairs = corpus.split_pairs(pairs, valid_size, seed=config.seed)
    tok = tokenizer.from_state(state["tokenizer"]) if state else tokenizer.train(
        config.tokenizer, train_pairs, config.vocab_size, config.min_freq)
    data = prepare(config, tok, train_pairs, valid_pairs)
    if data.skipped_long:
        say(f"skipped {data.skipped_long:,} training pairs longer than the positional table "
            f"(max_len={config.max_len} tokens) or empty after tokenization")
    lengths = [(len(s), len(t) + 2) for s, t in zip(data.src, data.tgt)]

    model = build_model(config, tok).to(dev)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, betas=(0.9, 0.98), eps=1e-9)
    progress = {"epoch": 0, "batch": 0, "step": 0, "seconds": 0.0, "tokens": 0, "world_size": ddp.world_size}
    history = {"train": [], "valid": []}
    if state is not None:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        progress, history = state["progress"], state["history"]
        if progress.get("world_size", 1) != ddp.world_size:
            say("the number of processes changed since the checkpoint: the current epoch restarts")
            progress["batch"] = 0
    n_params = sum(p.numel() for p in model.parameters())
    say(f"{tok.kind} tokenizer: {tok.src_vocab_size:,} / {tok.tgt_vocab_size:,} ids; model: {n_params:,} parameters; "
        f"{len(data.src):,} training pairs, {len(valid_pairs):,} validation pairs; device {dev}"
        + (f" x {ddp.world_size} processes" if ddp.enabled else ""))
    net = model
    if ddp.enabled:
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if dev.type == "cuda" else contextlib.nullcontext()

    def save(reason: str) -> None:
        if not ddp.main:
            return
        checkpoint.save(out, {
            "config": asdict(config), "tokenizer": tok.state(), "model": model.state_dict(),
            "model_config": asdict(model.config), "optimizer": optimizer.state_dict(),
            "progress": progress, "history": history,
        })
        say(f"checkpoint saved to {out} ({reason})")
        try:
            plot_losses(history, out.with_suffix(".png"))
        except Exception as exc:  # the curve is a convenience; never lose a run to it
            say(f"warning: could not draw the loss curve ({exc.__class__.__name__}: {exc})")

    def validate() -> None:
        if ddp.main:
            entry = validation(model, tok, data.valid_pairs, config, dev)
            entry["step"] = progress["step"]
            history["valid"].append(entry)
            bar.write(f"epoch {progress['epoch'] + progress['batch'] / max(1, steps_per_epoch):.2f} | step "
                      f"{progress['step']} | validation loss {entry['loss']:.3f} | BLEU {entry['bleu']:.1f}")
        ddp.barrier()

    if ddp.main:
        _pyplot()  # imported now, so that a Ctrl-C never lands in its first import
    bar = Progress() if ddp.main else _NoProgress()
    steps_per_epoch = len(buckets.shard(buckets.token_batches(lengths, config.max_tokens, config.seed), 0, ddp.world_size))
    total_steps = None if config.epochs is None else int(config.epochs * steps_per_epoch)
    budget_seconds = None if config.minutes is None else config.minutes * 60
    last_save = time.monotonic()
    window_loss, window_tokens, window_start = [], 0, time.monotonic()
    tokens_per_second = 0.0
    start_seconds = progress["seconds"]
    started = time.monotonic()
    interrupted = False
    try:
        while True:
            epoch = progress["epoch"]
            batches = buckets.shard(buckets.token_batches(lengths, config.max_tokens, config.seed + epoch),
                                    ddp.rank, ddp.world_size)
            stop = False
            while progress["batch"] < len(batches):
                progress["seconds"] = start_seconds + time.monotonic() - started
                done = (progress["step"] / total_steps if total_steps else progress["seconds"] / budget_seconds)
                fraction, stop = ddp.agree(done, done >= 1.0, dev)
                if stop:
                    break
                for group in optimizer.param_groups:
                    group["lr"] = learning_rate(config, progress["step"], fraction)
                src, tgt = buckets.make_batch(data.src, data.tgt, batches[progress["batch"]])
                src, tgt = src.to(dev, non_blocking=True), tgt.to(dev, non_blocking=True)
                net.train()
                with autocast:
                    loss = training.train_step(net, src, tgt, optimizer, tokenizer.PAD, config.label_smoothing,
                                               config.clip_norm)
                n_tokens = int((src != tokenizer.PAD).sum() + (tgt != tokenizer.PAD).sum()) * ddp.world_size
                progress["batch"] += 1
                progress["step"] += 1
                progress["tokens"] += n_tokens
                window_loss.append(loss)
                window_tokens += n_tokens
                if time.monotonic() - window_start >= 5.0:
                    tokens_per_second = window_tokens / (time.monotonic() - window_start)
                    history["train"].append((progress["step"], sum(window_loss) / len(window_loss)))
                    window_loss, window_tokens, window_start = [], 0, time.monotonic()
                bar.update(fraction, f"epoch {epoch + progress['batch'] / len(batches):.2f} | step {progress['step']} | "
                                     f"loss {loss:.3f} | " + (f"{tokens_per_second:,.0f} tok/s" if tokens_per_second else "measuring tok/s"))
                if time.monotonic() - last_save >= config.save_every_minutes * 60:
                    save("periodic")
                    last_save = time.monotonic()
            if stop:
                break
            progress["epoch"] += 1
            progress["batch"] = 0
            bar.close()
            validate()
            save(f"end of epoch {progress['epoch']}")
            last_save = time.monotonic()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    progress["seconds"] = start_seconds + time.monotonic() - started
    if interrupted:
        save("interrupted")
        say(f"interrupted; continue with: translator train --resume --out {out}")
        raise KeyboardInterrupt
    if not history["valid"] or history["valid"][-1]["step"] != progress["step"]:
        validate()
    save("end of training")
    say(f"trained {progress['step']:,} steps ({progress['epoch'] + progress['batch'] / max(1, steps_per_epoch):.2f} "
        f"epochs) in {clock(progress['seconds'])}; {progress['tokens'] / max(progress['seconds'], 1e-9):,.0f} tokens/s")
    return out


def validation(model, tok, valid_pairs, config, device, sample: int = 200) -> dict:
    """Loss over the validation pairs and BLEU of greedy translations of (up to) ``sample`` of them."""
    import sacrebleu

    from .translate import translate_ids

    training = reference.load("training")
    src = tok.encode_src([s for s, _ in valid_pairs])
    tgt = tok.encode_tgt([t for _, t in valid_pairs])
    keep = [i for i in range(len(src)) if src[i] and tgt[i] and max(len(src[i]), len(tgt[i]) + 2) <= config.max_len]
    src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    batches = [tuple(x.to(device) for x in buckets.make_batch(src, tgt, b))
               for b in buckets.token_batches([(len(s), len(t) + 2) for s, t in zip(src, tgt)], 4096, 0)]
    loss = training.evaluate(model, batches, tokenizer.PAD) if batches else float("nan")
    chosen = valid_pairs[:sample]
    hyps = tok.decode_tgt(translate_ids(model, tok.encode_src([s for s, _ in chosen]), device, config.max_len))
    bleu = sacrebleu.corpus_bleu(hyps, [[t for _, t in chosen]]).score if chosen else float("nan")
    return {"loss": loss, "bleu": bleu}


class _NoProgress:
    def update(self, *args, **kwargs):
        pass

    write = close = update


def config_from_args(**overrides) -> TrainConfig:
    """A TrainConfig from keyword arguments, ignoring None (= keep the default)."""
    known = {f.name for f in fields(TrainConfig)}
    unknown = set(overrides) - known
    if unknown:
        raise TypeError(f"unknown training options: {', '.join(sorted(unknown))}")
    values = {k: v for k, v in overrides.items() if v is not None}
    if "epochs" in values and "minutes" not in values:
        values["minutes"] = None
    return TrainConfig(**values)
