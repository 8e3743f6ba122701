"""A toy translation task and a small reference Transformer trained on it, for benchmarks
and tests: the target is the source digits reversed. Ids: 0 <pad>, 1 <sos>, 2 <eos>,
3.. digits."""

from __future__ import annotations

import time

import torch

from .. import reference
from ..tokens import EOS, PAD, SOS

VOCAB = 13  # the specials and ten digits


def batch(generator: torch.Generator, size: int = 64, min_len: int = 4, max_len: int = 10):
    """(src, tgt_in, tgt_out): random digit strings, right-padded; target = reversed source."""
    lengths = torch.randint(min_len, max_len + 1, (size,), generator=generator)
    src = torch.full((size, max_len), PAD)
    tgt = torch.full((size, max_len + 2), PAD)
    for i, n in enumerate(lengths.tolist()):
        digits = torch.randint(3, VOCAB, (n,), generator=generator)
        src[i, :n] = digits
        tgt[i, : n + 2] = torch.cat([torch.tensor([SOS]), digits.flip(0), torch.tensor([EOS])])
    return src, tgt[:, :-1], tgt[:, 1:]


def train(seconds: float = 20.0, d_model: int = 64, num_layers: int = 2, seed: int = 0, min_len: int = 4,
          max_len: int = 10, log=None):
    """Train a small reference Transformer on the reversal task; returns (model, steps, loss)."""
    t = reference.load("transformer")
    torch.manual_seed(seed)
    config = t.TransformerConfig(src_vocab_size=VOCAB, tgt_vocab_size=VOCAB, d_model=d_model, num_heads=4,
                                 num_layers=num_layers, d_ff=4 * d_model, dropout=0.0, max_len=64, pad_id=PAD)
    model = t.Transformer(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD)
    generator = torch.Generator().manual_seed(seed)
    start, steps, loss = time.monotonic(), 0, float("nan")
    while time.monotonic() - start < seconds:
        src, tgt_in, tgt_out = batch(generator, 64, min_len, max_len)
        out = model(src, tgt_in)
        loss_t = loss_fn(out.reshape(-1, VOCAB), tgt_out.reshape(-1))
        optimizer.zero_grad()
        loss_t.backward()
        optimizer.step()
        steps, loss = steps + 1, loss_t.item()
        if log and steps % 100 == 0:
            log(f"  step {steps}: loss {loss:.3f}")
    return model.eval(), steps, loss
