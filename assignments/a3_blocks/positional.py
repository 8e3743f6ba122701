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
            of position ``pos``. Lecture 000's ``(1, max_len, d_model)``, added as
            ``pe[:, :T]``, is right too and accepted by the tests and graders.

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
        # Pista: (~5 líneas) construye un tensor local pe de forma (max_len, d_model), que la
        # línea de después registra: posiciones (max_len, 1) por frecuencias
        # 1/10000^(2i/d_model) de forma (d_model/2,); senos en las columnas pares, cosenos en
        # las impares.
        # Hint: (~5 lines) build a local tensor pe of shape (max_len, d_model), which the line
        # after registers: positions (max_len, 1) times frequencies 1/10000^(2i/d_model) of
        # shape (d_model/2,); sines in the even columns, cosines in the odd ones.
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: PositionalEncoding.__init__")
        # A buffer, not a parameter: it moves with .to(device) and is saved, but never trained.
        self.register_buffer("pe", pe)

    def forward(self, x):
        T = x.size(1)
        if T > self.max_len:
            raise ValueError(
                f"sequence length {T} is longer than max_len={self.max_len}; build the encoding with a "
                "larger max_len or truncate the input"
            )
        # Pista: (1 línea) suma las primeras T filas de la tabla (se difunden sobre B); T es
        # x.size(1), no x.size(0), que es el lote (el error de los cuadernos de clase 001 y 003).
        # Hint: (1 line) add the first T rows of the table (they broadcast over B); T is
        # x.size(1), not x.size(0), the batch (the mistake of lecture notebooks 001 and 003).
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: PositionalEncoding.forward")
