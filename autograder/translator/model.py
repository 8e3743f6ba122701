"""The translator's model (the course's a4 Transformer) and the device it runs on."""

from __future__ import annotations

import contextlib

import torch

from .. import reference
from ..tokens import PAD
from .config import TrainConfig
from .fused import fuse


def pick_device(name: str = "auto", local_rank: int = 0) -> torch.device:
    """``auto`` takes CUDA, then Apple's MPS, then the CPU; a named device must exist."""
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
    """The course's Transformer (a4), pre-norm, with every embedding tied when it can be;
    with ``config.fused``, its LayerNorms and attentions run torch's fused kernels (same weights)."""
    t = reference.load("transformer")
    model_config = t.TransformerConfig(
        src_vocab_size=tok.src_vocab_size, tgt_vocab_size=tok.tgt_vocab_size, d_model=config.d_model,
        num_heads=config.num_heads, num_layers=config.num_layers, d_ff=config.d_ff, dropout=config.dropout,
        max_len=config.max_len, pad_id=PAD, norm_first=True, tie_weights=True,
    )
    model = t.Transformer(model_config)
    if tok.shared_vocab:  # one subword vocabulary: the source embedding is the target's too
        model.src_embed.weight = model.tgt_embed.weight
    return fuse(model) if config.fused else model


def build_optimizer(config: TrainConfig, model, device: torch.device):
    """Adam as in the paper (betas 0.9/0.98, eps 1e-9); torch's fused kernel with ``config.fused``."""
    fused = config.fused and device.type in ("cpu", "cuda")
    return torch.optim.Adam(model.parameters(), lr=config.lr, betas=(0.9, 0.98), eps=1e-9, fused=fused or None)


def fast_bf16(device: torch.device) -> bool:
    """Whether bfloat16 matrix products are fast on ``device``: a CUDA GPU that has them.

    Not a CPU, whatever its flags: on this project's AVX512-BF16 machine a bfloat16 training
    step measured 1.8 times the float32 one in November 2026, and 0.63 to 0.80 times it on the
    same flags since (docs/translator.md); float32 on every CPU also trains the same model on
    every CPU. ``--precision bf16`` still chooses it."""
    return device.type == "cuda" and torch.cuda.is_bf16_supported()


def uses_bf16(config: TrainConfig, device: torch.device) -> bool:
    """Whether a training step runs under bfloat16 autocast (``config.precision``; "auto":
    the fused model where bfloat16 is fast, since the fused model keeps softmaxes and logits
    in float32)."""
    if config.precision == "auto":
        return config.fused and fast_bf16(device)
    if config.precision == "bf16" and device.type not in ("cpu", "cuda"):
        raise ValueError(f"--precision bf16 trains on the CPU or CUDA, not on {device.type}; use --precision fp32")
    return config.precision == "bf16"


def autocast(config: TrainConfig, device: torch.device):
    """The context a training step runs in: bfloat16 autocast, or nothing (float32)."""
    if uses_bf16(config, device):
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()
