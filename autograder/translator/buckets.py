"""Token-count batches with length bucketing.

A batch of fixed *sentence* count wastes most of its compute on padding when short and
long sentences share it, and its cost swings with their length. Sorting by length and
cutting batches at a token budget keeps padding small and every step about as costly as
the next (the recipe of Vaswani et al., 2017, section 5.1: "batched together by
approximate sequence length ... approximately 25000 source tokens and 25000 target
tokens" per batch; ours is smaller).
"""

from __future__ import annotations

import random

import torch

from .. import reference
from ..tokens import EOS, PAD, SOS


def token_batches(lengths: list[tuple[int, int]], max_tokens: int, seed: int) -> list[list[int]]:
    """Split example indices into batches whose padded size stays within ``max_tokens``.

    Args:
        lengths: ``(source length, target length)`` of every example, in tokens
            (the target's counted with its <sos> and <eos>).
        max_tokens: bound on ``batch size * longest sequence`` of a batch.
        seed: shuffles ties in length and the order of the batches, so every epoch
            (seed + epoch) sees different neighbours in a different order.

    Returns:
        Lists of indices; an example longer than ``max_tokens`` gets a batch of its own.
    """
    rng = random.Random(seed)
    order = sorted(range(len(lengths)), key=lambda i: (max(lengths[i]), rng.random()))
    batches, current, longest = [], [], 0
    for i in order:
        n = max(lengths[i])
        if current and max(longest, n) * (len(current) + 1) > max_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, n)
    if current:
        batches.append(current)
    rng.shuffle(batches)
    return batches


def shard(batches: list[list[int]], rank: int, world_size: int) -> list[list[int]]:
    """This process's share for data parallelism: every rank gets the same number of steps."""
    usable = len(batches) - len(batches) % world_size
    return batches[rank:usable:world_size]


def make_batch(src: list[list[int]], tgt: list[list[int]], indices: list[int]):
    """Right-padded ``(src (B, S), tgt (B, T))``, the target wrapped in <sos> ... <eos>,
    with the a6 assignment's ``collate``."""
    collate = reference.load("batching").collate
    return collate([(torch.tensor(src[i]), torch.tensor([SOS, *tgt[i], EOS])) for i in indices], pad_id=PAD)
