"""Translate with a trained checkpoint: batched, length-sorted, with the cached decoder.

Sentences are sorted by length so a batch holds similar lengths (little padding, and
rows finish together), decoded with the decoding assignment's ``decode`` (a5), which
steps the decoder with a key/value cache, and put back in input order.
"""

from __future__ import annotations

import sys

import torch

from .. import reference
from ..tokens import EOS, PAD, SOS
from . import checkpoint, tokenizer
from .config import TrainConfig
from .model import build_model, pick_device

STRATEGIES = ("greedy", "sample", "beam")


def output_budget(src_len: int, max_len: int) -> int:
    """Most target tokens to generate: a translation is rarely 1.5x its source plus 10."""
    return max(1, min(max_len - 1, int(1.5 * src_len) + 10))


@torch.no_grad()
def translate_ids(model, rows: list[list[int]], device, max_len: int, strategy: str = "greedy",
                  batch_size: int = 200, **decode_kwargs) -> list[list[int]]:
    """Target ids for each source row (empty rows give empty outputs), in input order."""
    decoding = reference.load("decoding")
    model.eval()
    out: list[list[int]] = [[] for _ in rows]
    order = sorted((i for i in range(len(rows)) if rows[i]), key=lambda i: len(rows[i]))
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        S = max(len(rows[i]) for i in chunk)
        src = torch.full((len(chunk), S), PAD, dtype=torch.long)
        for r, i in enumerate(chunk):
            src[r, : len(rows[i])] = torch.tensor(rows[i], dtype=torch.long)
        ids = decoding.decode(model, src.to(device), strategy, output_budget(S, max_len), SOS,
                              EOS, PAD, **decode_kwargs)
        for r, i in enumerate(chunk):
            out[i] = ids[r].tolist()
    return out


class Translator:
    """A checkpoint loaded for translation: ``Translator.load(path).translate(lines)``."""

    def __init__(self, model, tok, config: TrainConfig, device):
        self.model, self.tok, self.config, self.device = model.eval(), tok, config, device

    @classmethod
    def load(cls, path, device: str = "auto") -> Translator:
        state = checkpoint.load(path)
        config = TrainConfig(**state["config"])
        tok = tokenizer.from_state(state["tokenizer"])
        dev = pick_device(device)
        model = build_model(config, tok)
        model.load_state_dict(state["model"])
        return cls(model.to(dev), tok, config, dev)

    def translate(self, lines: list[str], strategy: str = "greedy", *, beam_size: int = 4, temperature: float = 1.0,
                  top_k: int | None = None, top_p: float | None = None, seed: int | None = None,
                  length_penalty: float = 0.6, warn=None) -> list[str]:
        """One translation per line, in order; blank lines stay blank."""
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
        warn = warn or (lambda m: print(m, file=sys.stderr))
        rows = self.tok.encode_src([line.strip() for line in lines])
        limit = self.config.max_len
        long = [i for i, r in enumerate(rows) if len(r) > limit]
        if long:
            warn(f"{len(long)} line(s) longer than the model's {limit}-token positional table were truncated "
                 f"(first: line {long[0] + 1})")
            rows = [r[:limit] for r in rows]
        rows = [r if line.strip() else [] for r, line in zip(rows, lines)]
        kwargs = {}
        if strategy == "beam":
            kwargs = {"beam_size": beam_size, "length_penalty": length_penalty}
            batch_size = 32
        elif strategy == "sample":
            generator = torch.Generator(device=self.device)
            generator.manual_seed(seed if seed is not None else torch.seed())
            kwargs = {"temperature": temperature, "top_k": top_k, "top_p": top_p, "generator": generator}
            batch_size = 200
        else:
            batch_size = 200
        ids = translate_ids(self.model, rows, self.device, limit, strategy, batch_size, **kwargs)
        return [text if row else "" for text, row in zip(self.tok.decode_tgt(ids), rows)]
