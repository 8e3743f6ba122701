"""Layer normalisation from scratch (Ba et al., 2016; used after every sub-layer in
Vaswani et al., 2017, section 3.1).

    y = (x - mean) / sqrt(var + eps) * weight + bias

The mean and the *biased* variance (divide by N, not N - 1) are taken over the last
``len(normalized_shape)`` dimensions of ``x``. ``weight`` starts at ones and ``bias`` at
zeros, exactly like ``torch.nn.LayerNorm``, whose behaviour this module must match.
"""

import torch
from torch import nn


class LayerNorm(nn.Module):
    """Normalise over the last dimensions, then scale and shift with learned parameters.

    Args:
        normalized_shape: size of the last dimension (an int), or the sizes of the last
            several dimensions (a tuple), over which to normalise.
        eps: added to the variance before the square root, for numerical stability.

    Attributes:
        weight: learnable scale, an ``nn.Parameter`` of shape ``normalized_shape``, ones.
        bias: learnable shift, an ``nn.Parameter`` of shape ``normalized_shape``, zeros.

    Shape:
        - Input: ``(*, *normalized_shape)``
        - Output: same shape as the input.
    """

    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        # Pista: (2 líneas) crea self.weight y self.bias como nn.Parameter.
        # Hint: (2 lines) create self.weight and self.bias as nn.Parameter.
        param_dtype = torch.get_default_dtype()
        self.weight = nn.Parameter(torch.ones(*self.normalized_shape, dtype=param_dtype))
        self.bias = nn.Parameter(torch.zeros(*self.normalized_shape, dtype=param_dtype))

    def forward(self, x):
        if tuple(x.shape[-len(self.normalized_shape):]) != self.normalized_shape:
            raise ValueError(
                f"the last dimensions of x must be {self.normalized_shape}, got shape {tuple(x.shape)}"
            )
        # Pista: (~4 líneas) media y varianza sesgada (unbiased=False) sobre las últimas
        # len(self.normalized_shape) dimensiones, con keepdim=True.
        # Hint: (~4 lines) mean and biased variance (unbiased=False) over the last
        # len(self.normalized_shape) dimensions, with keepdim=True.
        dims = tuple(range(-len(self.normalized_shape), 0))
        x64 = x.to(torch.float64)
        mean = x64.mean(dim=dims, keepdim=True)
        deviation = x64 - mean
        var = deviation.square().mean(dim=dims, keepdim=True)  # biased: divide by N
        y64 = deviation / torch.sqrt(var + float(self.eps))
        y64 = y64 * self.weight.to(torch.float64) + self.bias.to(torch.float64)
        return y64.to(x.dtype)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"
