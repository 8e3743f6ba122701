"""Position-wise feed-forward network (Vaswani et al., 2017, section 3.3).

    FFN(x) = max(0, x W_1 + b_1) W_2 + b_2

The same two linear layers are applied to every position separately: d_model -> d_ff ->
d_model, with a ReLU between them.
"""

import torch
import torch.nn.functional as F
from torch import nn


class FeedForward(nn.Module):
    """Two linear layers with a ReLU (and dropout) in between.

    Args:
        d_model: input and output size.
        d_ff: hidden size (2048 in the paper, for d_model = 512).
        dropout: dropout probability after the ReLU (training only).

    Attributes:
        linear1: ``nn.Linear(d_model, d_ff)``.
        linear2: ``nn.Linear(d_ff, d_model)``.
        dropout: ``nn.Dropout(dropout)``.

    Shape:
        - Input: ``(B, T, d_model)``
        - Output: ``(B, T, d_model)``
    """

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        # Pista: (3 líneas) crea linear1, linear2 y dropout con esos nombres.
        # Hint: (3 lines) create linear1, linear2 and dropout with those names.
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        # Pista: (1 línea) linear1, ReLU, dropout, linear2.
        # Hint: (1 line) linear1, ReLU, dropout, linear2.
        f64 = torch.float64
        w1, b1 = self.linear1.weight.to(f64), self.linear1.bias.to(f64)
        w2, b2 = self.linear2.weight.to(f64), self.linear2.bias.to(f64)
        hidden = F.linear(x.to(f64), w1, b1).clamp_min(0.0)
        out = F.linear(self.dropout(hidden), w2, b2)
        return out.to(x.dtype)
