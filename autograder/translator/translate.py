"""Translate with a trained checkpoint: batched, length-sorted, with the cached decoder.

Sentences are sorted by length so a batch holds similar lengths (little padding, and
rows finish together), decoded, and put back in input order. Every strategy steps the
decoder with the decoding assignment's (a5) key/value cache. Greedy and sampled decoding
run a5's loop with its ``sample_next_token``, never repeating an n-gram of
``NO_REPEAT_NGRAM`` tokens (:func:`generate`); beam search is a5's ``beam_search`` batched
over the sentences (:mod:`.beam`: the same ids, all of a batch's hypotheses in one decoder
batch, where a5's searches one sentence at a time).
"""

from __future__ import annotations

import sys

import torch

from .. import reference
from ..tokens import EOS, PAD, SOS
from . import beam, checkpoint, sentences, tokenizer
from .config import TrainConfig
from .model import build_model, pick_device

STRATEGIES = ("greedy", "sample", "beam")
# Greedy and sampled decoding never repeat an n-gram of this many tokens (fairseq's and
# Hugging Face's no_repeat_ngram_size); 0 turns it off. An undertrained model otherwise
# loops ("que que que ...") until the length limit.
NO_REPEAT_NGRAM = 3
# Sentences decoded together. Beam search's batches are smaller (up to beam_size rows per
# sentence): on 2,000 held-out Tatoeba sentences, one CPU thread, batches of 32 and 200 took
# the same 8 s, on the 2,000 longest 23 s and 31 s (a batch's output budget follows its
# longest source), and 32 keeps each sentence's budget, hence its output, as it was.
BATCH_SIZE, BEAM_BATCH_SIZE = 200, 32


def repeated_ngram_bans(rows: list[list[int]], n: int) -> list[list[int]]:
    """For each row of generated ids, the next ids that would repeat one of its n-grams."""
    bans = []
    for ids in rows:
        if n <= 0 or len(ids) < n:
            bans.append([])
            continue
        prefix = tuple(ids[len(ids) - n + 1:])
        bans.append([ids[i + n - 1] for i in range(len(ids) - n + 1) if tuple(ids[i:i + n - 1]) == prefix])
    return bans


@torch.no_grad()
def generate(model, src, max_len: int, no_repeat_ngram: int, temperature: float = 0.0, top_k=None, top_p=None,
             generator=None) -> torch.Tensor:
    """Greedy (``temperature`` 0) or sampled decoding as in a5's ``sample_decode``, with the
    cached decoder and a5's ``sample_next_token``, that never repeats a ``no_repeat_ngram``-gram
    of a row. Returns ``(B, L)`` ids, EOS kept, PAD after it."""
    make_decoder = reference.load("incremental").make_decoder
    sample_next_token = reference.load("sampling").sample_next_token
    memory, src_mask = model.encode(src)
    decoder = make_decoder(model, memory, src_mask)
    B = src.size(0)
    tokens = torch.full((B, 1), SOS, dtype=torch.long, device=src.device)  # (B, 1)
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        logits = decoder.step(tokens)  # (B, V)
        for row, banned in enumerate(repeated_ngram_bans(tokens[:, 1:].tolist(), no_repeat_ngram)):
            if banned:
                logits[row, banned] = float("-inf")
        next_token = sample_next_token(logits, temperature, top_k, top_p, generator).masked_fill(finished, PAD)
        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)
        finished |= next_token == EOS
        if finished.all():
            break
    return tokens[:, 1:]


def output_budget(src_len: int, max_len: int) -> int:
    """Most target tokens to generate: a translation is rarely 1.5x its source plus 10."""
    return max(1, min(max_len - 1, int(1.5 * src_len) + 10))


@torch.no_grad()
def translate_ids(model, rows: list[list[int]], device, max_len: int, strategy: str = "greedy",
                  batch_size: int = 200, no_repeat_ngram: int = NO_REPEAT_NGRAM, **decode_kwargs) -> list[list[int]]:
    """Target ids for each source row (empty rows give empty outputs), in input order.
    Greedy and sampled decoding block repeated ``no_repeat_ngram``-grams (0: a5's ``decode`` as is);
    beam search is :func:`.beam.beam_search`, a5's batched, which blocks none."""
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
        budget = output_budget(S, max_len)
        if strategy == "beam":
            ids = beam.beam_search(model, src.to(device), max_len=budget, sos_id=SOS, eos_id=EOS, pad_id=PAD,
                                   **decode_kwargs)
        elif no_repeat_ngram > 0 and strategy in ("greedy", "sample"):
            sampling = {"temperature": 0.0} if strategy == "greedy" else {"temperature": 1.0, **decode_kwargs}
            ids = generate(model, src.to(device), budget, no_repeat_ngram, **sampling)
        else:
            ids = decoding.decode(model, src.to(device), strategy, budget, SOS, EOS, PAD, **decode_kwargs)
        for r, i in enumerate(chunk):
            out[i] = ids[r].tolist()
    return out


class Translator:
    """A checkpoint loaded for translation: ``Translator.load(path).translate(lines)``."""

    def __init__(self, model, tok, config: TrainConfig, device):
        self.model, self.tok, self.config, self.device = model.eval(), tok, config, device

    @classmethod
    def load(cls, path, device: str = "auto", weights: str = "average") -> Translator:
        """``weights``: "average" (the mean of the last steps' weights when the run kept one,
        else the last), "last" (the last step's), or the name of an average a benchmark compared."""
        state = checkpoint.load(path)
        config = TrainConfig(**state["config"])
        tok = tokenizer.from_state(state["tokenizer"])
        dev = pick_device(device)
        model = build_model(config, tok)
        if weights == "average":
            model.load_state_dict(state["average"]["model"] if "average" in state else state["model"])
        elif weights == "last":
            model.load_state_dict(state["model"])
        else:
            model.load_state_dict(state["compared"][weights]["model"])
        return cls(model.to(dev), tok, config, dev)

    def translate(self, lines: list[str], strategy: str = "greedy", *, beam_size: int = 4, temperature: float = 1.0,
                  top_k: int | None = None, top_p: float | None = None, seed: int | None = None,
                  length_penalty: float = 0.6, no_repeat_ngram: int = NO_REPEAT_NGRAM, as_typed: bool = False,
                  warn=None) -> list[str]:
        """One translation per line, in order; blank lines stay blank. Each line is split into
        sentences, each put in the cased, punctuated form of the training data
        (:mod:`.sentences`), translated, and joined again; ``as_typed`` translates each line
        exactly as given instead. ``no_repeat_ngram``: greedy and sampled output never repeat
        an n-gram that long (0: off)."""
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {strategy!r}")
        warn = warn or (lambda m: print(m, file=sys.stderr))
        parts = [([line.strip()] if line.strip() else []) if as_typed else
                 [sentences.normalise(s) for s in sentences.split(line)] for line in lines]
        texts = [text for part in parts for text in part]
        owner = [n for n, part in enumerate(parts) for _ in part]  # the line of each sentence
        rows = self.tok.encode_src(texts)
        limit = self.config.max_len
        long = [i for i, r in enumerate(rows) if len(r) > limit]
        if long:
            warn(f"{len(long)} sentence(s) longer than the model's {limit}-token positional table were truncated "
                 f"(first: line {owner[long[0]] + 1})")
            rows = [r[:limit] for r in rows]
        kwargs = {}
        if strategy == "beam":
            kwargs = {"beam_size": beam_size, "length_penalty": length_penalty}
        elif strategy == "sample":
            generator = torch.Generator(device=self.device)
            generator.manual_seed(seed if seed is not None else torch.seed())
            kwargs = {"temperature": temperature, "top_k": top_k, "top_p": top_p, "generator": generator}
        batch_size = BEAM_BATCH_SIZE if strategy == "beam" else BATCH_SIZE
        ids = translate_ids(self.model, rows, self.device, limit, strategy, batch_size, no_repeat_ngram, **kwargs)
        done = iter(self.tok.decode_tgt(ids))
        return [" ".join(next(done) for _ in part) for part in parts]
