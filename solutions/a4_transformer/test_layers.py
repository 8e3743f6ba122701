"""Public tests for layers.py. Run them with ``pytest assignments/a4_transformer``."""

import torch

from layers import DecoderLayer, EncoderLayer


def test_encoder_layer_keeps_shape():
    """Does an encoder layer map (B, S, d_model) to (B, S, d_model), post- and pre-norm?"""
    for norm_first in (False, True):
        layer = EncoderLayer(32, 4, 64, dropout=0.0, norm_first=norm_first)
        assert layer(torch.randn(2, 7, 32)).shape == (2, 7, 32)


def test_decoder_layer_is_causal():
    """With a causal mask, does changing target position 3 leave positions 0..2 unchanged?"""
    torch.manual_seed(0)
    layer = DecoderLayer(16, 2, 32, dropout=0.0).eval()
    x, memory = torch.randn(1, 5, 16), torch.randn(1, 6, 16)
    causal = torch.ones(5, 5).tril().bool()
    y = x.clone()
    y[0, 3] += 1.0
    a, b = layer(x, memory, causal), layer(y, memory, causal)
    torch.testing.assert_close(a[0, :3], b[0, :3])
