"""A faster forward for the translator's copy of the course's Transformer, same weights.

The translator trains the reference a4 Transformer as written by the course, built from
small ops so that students can read it: LayerNorm as mean, variance, subtract, divide,
scale and shift (six kernels and as many saved tensors for backward), attention as three
projections, a matmul, two ``masked_fill``, a softmax and another matmul. On a CPU,
where a step of the translator's small model is short, those ops cost about as much as
the matrix products. :func:`fuse` swaps, *in the translator's model only*, each module
for a subclass whose forward does the same computation with torch's fused kernels:

- ``LayerNorm`` -> ``F.layer_norm`` (same formula: biased variance, same eps);
- ``MultiHeadAttention`` -> one projection for query, key and value when they are the
  same tensor (self-attention), one for key and value when those are (cross-attention),
  then ``F.scaled_dot_product_attention`` with the same boolean mask on CUDA; on a CPU the
  same formula composed of a matmul, ``masked_fill``, a float32 softmax and a matmul, which
  for sentence-length sequences is faster than torch's CPU flash kernel (~10% of a float32
  step) and far faster in bfloat16, whose flash backward is about 4x the float32 one;
- the output ``Linear`` (the generator) -> the same product, returned in float32, so that
  under bfloat16 autocast the loss's log-softmax over the vocabulary runs in float32:
  more precise, and on a CPU twice as fast as in bfloat16.

The parameters, their names and the checkpoints are unchanged, and the output equals the
reference's up to float rounding (``tests/test_translator.py`` checks outputs and
gradients). The classes of ``solutions/`` are untouched: students and graders never see
this path. A module falls back to the reference forward where the fused one would differ:
attention weights asked for (``need_weights``), or attention dropout while training.

A query row whose keys are all masked gets zeros from the reference and from CUDA's kernel
(torch 2.5 and later), NaN from the composed CPU form. The translator never makes one (an
empty source is never encoded; every target row sees its ``<sos>``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from .. import reference


def _layer_norm_forward(self, x):
    return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


def _heads(x, B, T, h, d_k):
    return x.view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)


def _attention_forward(self, query, key, value, mask=None, need_weights=False):
    if need_weights or (self.training and self.dropout.p > 0):
        return super(type(self), self).forward(query, key, value, mask, need_weights)
    B, T_q, _ = query.size()
    T_k = key.size(1)
    h, d_k, d = self.num_heads, self.d_k, self.d_model
    if query is key and key is value:  # self-attention: one (d, 3d) product
        weight = torch.cat([self.w_q.weight, self.w_k.weight, self.w_v.weight])
        bias = torch.cat([self.w_q.bias, self.w_k.bias, self.w_v.bias])
        q, k, v = F.linear(query, weight, bias).split(d, dim=-1)
    else:
        q = self.w_q(query)
        if key is value:  # cross-attention: keys and values from the same memory
            weight = torch.cat([self.w_k.weight, self.w_v.weight])
            bias = torch.cat([self.w_k.bias, self.w_v.bias])
            k, v = F.linear(key, weight, bias).split(d, dim=-1)
        else:
            k, v = self.w_k(key), self.w_v(value)
    out = _attend(_heads(q, B, T_q, h, d_k), _heads(k, B, T_k, h, d_k), _heads(v, B, T_k, h, d_k), mask)
    return self.w_o(out.transpose(1, 2).reshape(B, T_q, d)), None  # (B, T_q, d)


def _attend(q, k, v, mask):
    """softmax(q k^T / sqrt(d_k), masked) v for (B, h, T, d_k) heads: torch's kernel on CUDA,
    the composed formula elsewhere (see the module's docstring)."""
    if q.is_cuda:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # (B, h, T_q, d_k)
    scores = (q @ k.transpose(-2, -1)) * q.size(-1) ** -0.5  # (B, h, T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.float(), dim=-1).to(v.dtype) @ v  # (B, h, T_q, d_k)


def _logits_forward(self, x):
    return F.linear(x, self.weight, self.bias).float()  # (B, T, V), float32 under autocast too


_FUSED: dict[type, type] = {}


def _fused_class(cls: type, forward) -> type:
    if cls not in _FUSED:
        _FUSED[cls] = type("Fused" + cls.__name__, (cls,), {"forward": forward, "__module__": __name__})
    return _FUSED[cls]


def fuse(model: torch.nn.Module) -> torch.nn.Module:
    """Give every reference LayerNorm and MultiHeadAttention of the Transformer ``model``, and
    its generator, the fused forward (in place; the parameters are untouched). Returns ``model``."""
    layer_norm = reference.load("layernorm").LayerNorm
    attention = reference.load("multihead").MultiHeadAttention
    for module in model.modules():
        if type(module) is layer_norm:
            module.__class__ = _fused_class(layer_norm, _layer_norm_forward)
        elif type(module) is attention:
            module.__class__ = _fused_class(attention, _attention_forward)
    model.generator.__class__ = _fused_class(torch.nn.Linear, _logits_forward)
    return model
