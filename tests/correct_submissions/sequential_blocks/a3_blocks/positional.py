"""Sinusoidal positional encoding (Vaswani et al., 2017, section 3.5).

    PE(pos, 2i)     = sin(pos / 10000^(2i / d_model))
    PE(pos, 2i + 1) = cos(pos / 10000^(2i / d_model))

Attention by itself ignores order; adding these fixed waves to the token embeddings tells
the model where each token sits. Legend: B = batch size, T = sequence length.
"""

import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    """Add the sinusoidal position table to a batch of embeddings.

    Args:
        d_model: embedding size; must be even (sines and cosines come in pairs).
        max_len: longest sequence the table covers.

    Attributes:
        pe: registered buffer of shape ``(max_len, d_model)``; row ``pos`` is the encoding
            of position ``pos``.

    Shape:
        - Input: ``(B, T, d_model)`` with ``T <= max_len``
        - Output: ``(B, T, d_model)``, the input plus ``pe[:T]``.
    """

    def __init__(self, d_model, max_len=5000):
        super().__init__()
        if d_model % 2 != 0:
            raise ValueError(f"d_model must be even for sinusoidal positional encoding, got {d_model}")
        self.d_model = d_model
        self.max_len = max_len
        # Pista: (~5 líneas) posiciones (max_len, 1) por frecuencias 1/10000^(2i/d_model)
        # de forma (d_model/2,); senos en las columnas pares, cosenos en las impares.
        # Hint: (~5 lines) positions (max_len, 1) times frequencies 1/10000^(2i/d_model) of
        # shape (d_model/2,); sines in the even columns, cosines in the odd ones.
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)  # (d_model/2,)
        angles = position / torch.pow(torch.tensor(10000.0), two_i / d_model)
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(angles)
        pe[:, 1::2] = torch.cos(angles)
        # A buffer, not a parameter: it moves with .to(device) and is saved, but never trained.
        self.register_buffer("pe", pe)

    def forward(self, x):
        T = x.size(1)
        if T > self.max_len:
            raise ValueError(
                f"sequence length {T} is longer than max_len={self.max_len}; build the encoding with a "
                "larger max_len or truncate the input"
            )
        # Pista: (1 línea) suma las primeras T filas de la tabla (se difunden sobre B).
        # Hint: (1 line) add the first T rows of the table (they broadcast over B).
        return x + self.pe[:T].to(x.dtype)
