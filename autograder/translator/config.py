"""The training recipe as one typed dataclass, and the budget rule (minutes, epochs or steps)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from .. import course
from . import tokenizer

# Under source_data/: Tatoeba's everyday pairs, the corpus lecture 000 trains on (its licence
# and attribution beside it); translator/en-es.tsv is the small grammar corpus the tests use.
EMBEDDED_CORPUS = "translator/spa-eng.txt.gz"


@dataclass
class TrainConfig:
    """Chosen for quality per minute of a laptop CPU: joint subwords with tied embeddings,
    token-count batches, a pre-norm model small enough to see the corpus more than once."""

    data: str | None = None  # corpus file; None = the embedded corpus in source_data/
    format: str | None = None  # "tatoeba", "anki" or "csv"; None = detect from the file
    src_column: str | None = None  # CSV: the English column (header name or number from 1); None = by header
    tgt_column: str | None = None  # CSV: the Spanish column, likewise
    tokenizer: str = "subword"  # "subword" (joint SentencePiece) or "word" (the a6 pipeline)
    vocab_size: int = 4000  # subword pieces for both languages (a small corpus gets fewer)
    min_freq: int = 1  # word tokenizer: rarer words become <unk>
    d_model: int = 192  # model width (256 takes 54% longer a step, and gains less in 10 minutes)
    num_heads: int = 4  # attention heads
    num_layers: int = 2  # encoder layers, and again decoder layers
    d_ff: int = 768  # feed-forward hidden size
    # Short runs see each pair once or a few times: nothing to regularise yet, and
    # dropout's random masks cost ~10% of a CPU step.
    dropout: float = 0.0
    # torch's fused kernels for LayerNorm, attention and Adam: the same model and weights,
    # a faster step (fused.py); False runs the course's modules as written.
    fused: bool = True
    # Training arithmetic: "auto" trains the fused model under bfloat16 autocast on a CUDA GPU
    # that has it and in float32 on every CPU (a CPU flag does not say whether bfloat16 pays:
    # on this project's AVX512-BF16 machine a step measured 1.8x float32's, later 0.7x;
    # docs/translator.md); "bf16" or "fp32" choose. Under bfloat16 the weights, optimizer
    # state, softmaxes and the loss stay float32.
    precision: str = "auto"
    # Translate with the mean of the weights over the last share of the budget (updated every
    # step; averaging.py). 0: off, the default: after the cosine decay to 5% of the peak rate
    # the mean of the last quarter gained nothing measurable (docs/translator.md, Benchmarks).
    average_last: float = 0.0
    # Train also on copies of this share of the pairs with the English as people type it
    # (lower or upper case, no final mark; sentences.varied_copies), the Spanish as it is. 0: off.
    varied_copies: float = 0.0
    max_len: int = 128  # positional table: longest sentence in tokens; longer pairs are skipped
    max_tokens: int = 1024  # padded tokens per batch and side (per process); more, smaller steps win on a CPU
    lr: float = 1e-3  # peak learning rate, reached after warmup
    warmup_steps: int = 200  # linear warmup (at most 5% of the budget), then cosine decay to 5% at its end
    label_smoothing: float = 0.1  # section 5.4 of the paper
    clip_norm: float = 1.0  # gradient norm clipping
    valid_size: int = 500  # pairs held out by English sentence for validation loss and BLEU
    # The budget is work, not time, so a run gives the same model on a busy 2-core laptop as
    # on a GPU; --minutes is there for a fixed wall-clock slot.
    # Passes over the training pairs (None: use minutes or steps). Two on Tatoeba, the default
    # corpus, are the quickstart: about ten minutes on a 2-core CPU, everyday sentences
    # translated (README.md; one epoch reaches validation BLEU 26.9 against 42.4 and words
    # more of lecture 000's sentences wrong); more epochs keep gaining (docs/translator.md).
    epochs: float | None = 2.0
    minutes: float | None = None  # training time budget instead of epochs
    steps: int | None = None  # optimizer steps instead of epochs: reproduces a time budget's run on any machine
    save_every_minutes: float = 2.0  # checkpoint cadence (also at every epoch end)
    seed: int = 0  # data split, batch order, initial weights

    def __post_init__(self):
        if self.tokenizer not in tokenizer.KINDS:
            raise ValueError(f"tokenizer must be one of {', '.join(tokenizer.KINDS)}, got {self.tokenizer!r}")
        given = [kind for kind in BUDGETS if getattr(self, kind) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one budget: minutes, epochs or steps")
        if getattr(self, given[0]) <= 0:
            raise ValueError("the training budget (minutes, epochs or steps) must be positive")
        if not 0 <= self.average_last < 1:
            raise ValueError(f"average_last is a share of the budget, from 0 (off) to below 1, got {self.average_last}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")
        if self.max_len < 8:
            raise ValueError(f"max_len must be at least 8 tokens, got {self.max_len}")

    def done(self, step: int, seconds: float, steps_per_epoch: int) -> float:
        """Share of the budget spent after ``step`` steps and ``seconds`` of training (1.0 = over)."""
        if self.epochs is not None:
            return step / max(1, int(self.epochs * steps_per_epoch))
        if self.steps is not None:
            return step / self.steps
        return seconds / (self.minutes * 60)


BUDGETS = ("epochs", "minutes", "steps")
PRECISIONS = ("auto", "bf16", "fp32")


def budget(minutes: float | None = None, epochs: float | None = None, steps: int | None = None) -> dict:
    """The budget fields that giving ``minutes``, ``epochs`` or ``steps`` sets: the one
    given replaces the others (the default epoch budget included)."""
    given = {"minutes": minutes, "epochs": epochs, "steps": steps}
    for kind, value in given.items():
        if value is not None:
            return {other: (value if other == kind else None) for other in BUDGETS}
    return {}


def config_from_args(**overrides) -> TrainConfig:
    """A TrainConfig from keyword arguments, ignoring None (= keep the default)."""
    known = {f.name for f in fields(TrainConfig)}
    unknown = set(overrides) - known
    if unknown:
        raise TypeError(f"unknown training options: {', '.join(sorted(unknown))}")
    values = {k: v for k, v in overrides.items() if v is not None}
    given = [kind for kind in BUDGETS if kind in values]
    if len(given) == 1:
        values.update(budget(**{given[0]: values[given[0]]}))
    return TrainConfig(**values)


def corpus_path(config: TrainConfig) -> Path:
    return Path(config.data) if config.data else course.data_dir() / EMBEDDED_CORPUS
