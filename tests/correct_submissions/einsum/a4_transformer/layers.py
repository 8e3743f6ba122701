"""Encoder and decoder layers (Vaswani et al., 2017, section 3.1).

Every sub-layer (attention or feed-forward) is wrapped in a residual connection and a
LayerNorm, in one of two orders:

- post-norm, the paper's: ``x = LayerNorm(x + Dropout(Sublayer(x)))``;
- pre-norm (``norm_first=True``): ``x = x + Dropout(Sublayer(LayerNorm(x)))``, which
  trains more stably in deep stacks; the stack then ends with one more LayerNorm.

Legend: B = batch size, S = source length, T = target length.
"""

from torch import nn

from feedforward import FeedForward
from layernorm import LayerNorm
from multihead import MultiHeadAttention


def _sublayer(x, fn, norm, drop, pre):
    """One residual sub-layer, pre-norm or post-norm."""
    if pre:
        return x + drop(fn(norm(x)))
    return norm(x + drop(fn(x)))


class EncoderLayer(nn.Module):
    """Self-attention, then feed-forward, each with residual + LayerNorm.

    Args:
        d_model, num_heads, d_ff, dropout: sizes and dropout of the sub-layers.
        norm_first: pre-norm if True, the paper's post-norm if False.

    Shape:
        - x: ``(B, S, d_model)``; mask: boolean, broadcastable to ``(B, h, S, S)``,
          True = may attend (usually a padding mask ``(B, 1, 1, S)``).
        - Output: ``(B, S, d_model)``
    """

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, mask=None):
        # Pista: (~8 líneas) dos subcapas (self_attn con dropout1, ff con dropout2), cada
        # una con su residual; el orden de LayerNorm depende de self.norm_first.
        # Hint: (~8 lines) two sub-layers (self_attn with dropout1, ff with dropout2), each
        # with its residual; where LayerNorm goes depends on self.norm_first.
        pre = self.norm_first
        x = _sublayer(x, lambda y: self.self_attn(y, y, y, mask)[0], self.norm1, self.dropout1, pre)
        return _sublayer(x, self.ff, self.norm2, self.dropout2, pre)


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, feed-forward.

    Args:
        d_model, num_heads, d_ff, dropout: sizes and dropout of the sub-layers.
        norm_first: pre-norm if True, the paper's post-norm if False.

    Shape:
        - x: ``(B, T, d_model)``; memory (the encoder output): ``(B, S, d_model)``
        - tgt_mask: boolean, broadcastable to ``(B, h, T, T)`` (padding AND causal);
          memory_mask: broadcastable to ``(B, h, T, S)`` (usually ``(B, 1, 1, S)``).
        - Output: ``(B, T, d_model)``
    """

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        # Pista: (~11 líneas) como EncoderLayer, con una subcapa más en medio: cross_attn
        # con consultas del decodificador y claves/valores de memory.
        # Hint: (~11 lines) like EncoderLayer, with one more sub-layer in the middle:
        # cross_attn with queries from the decoder and keys/values from memory.
        pre = self.norm_first
        steps = (
            (lambda y: self.self_attn(y, y, y, tgt_mask)[0], self.norm1, self.dropout1),
            (lambda y: self.cross_attn(y, memory, memory, memory_mask)[0], self.norm2, self.dropout2),
            (self.ff, self.norm3, self.dropout3),
        )
        for fn, norm, drop in steps:
            x = _sublayer(x, fn, norm, drop, pre)
        return x
