"""Position-wise feed-forward network (Vaswani et al., 2017, section 3.3).

    FFN(x) = max(0, x W_1 + b_1) W_2 + b_2

The same two linear layers are applied to every position separately: d_model -> d_ff ->
d_model, with a ReLU between them.
"""

import torch
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
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: FeedForward.__init__")

    def forward(self, x):
        # Pista: (1 línea) linear1, ReLU, dropout, linear2. A diferencia de los cuadernos de clase
        # 000 y 001 (sin dropout dentro del bloque), el dropout va en la capa oculta, como en
        # nn.TransformerEncoderLayer; el de la salida lo aplica la capa (a4).
        # Hint: (1 line) linear1, ReLU, dropout, linear2. Unlike lecture notebooks 000 and 001
        # (no dropout inside the block), the dropout acts on the hidden layer, as in
        # nn.TransformerEncoderLayer; the output's dropout is the layer's (a4).
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: FeedForward.forward")
