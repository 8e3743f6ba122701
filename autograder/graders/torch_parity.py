"""Map torch's own modules' weights onto the course's parameter names.

Graders build ``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer`` ... in the grading
process, copy their weights into the student's module by these names, and compare outputs.
"""

import torch
from torch import nn


def linear_state(prefix: str, linear: nn.Linear) -> dict:
    return {f"{prefix}weight": linear.weight.detach().clone(), f"{prefix}bias": linear.bias.detach().clone()}


def mha_state(prefix: str, mha: nn.MultiheadAttention) -> dict:
    """torch packs W_q, W_k, W_v into in_proj_weight (3 d_model, d_model); the course keeps
    them apart as w_q, w_k, w_v (and w_o for out_proj)."""
    d = mha.embed_dim
    w, b = mha.in_proj_weight.detach(), mha.in_proj_bias.detach()
    state = {}
    for i, name in enumerate(("w_q", "w_k", "w_v")):
        state[f"{prefix}{name}.weight"] = w[i * d:(i + 1) * d].clone()
        state[f"{prefix}{name}.bias"] = b[i * d:(i + 1) * d].clone()
    state.update(linear_state(f"{prefix}w_o.", mha.out_proj))
    return state


def layer_state(layer) -> dict:
    """State of an nn.TransformerEncoderLayer / nn.TransformerDecoderLayer in course names."""
    state = mha_state("self_attn.", layer.self_attn)
    if hasattr(layer, "multihead_attn"):
        state.update(mha_state("cross_attn.", layer.multihead_attn))
    state.update(linear_state("ff.linear1.", layer.linear1))
    state.update(linear_state("ff.linear2.", layer.linear2))
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(layer, name):
            state.update(linear_state(f"{name}.", getattr(layer, name)))
    return state


def randomise_norms(module: nn.Module, generator: torch.Generator) -> None:
    """LayerNorms start at ones/zeros; random values make a swapped norm visible."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1 + 0.3 * torch.randn(m.weight.shape, generator=generator, dtype=m.weight.dtype))
                m.bias.copy_(0.3 * torch.randn(m.bias.shape, generator=generator, dtype=m.bias.dtype))
