"""Public tests for feedforward.py. Run them with ``pytest assignments/a3_blocks``."""

import torch

from feedforward import FeedForward


def test_parameter_count():
    """Does FeedForward(256, 1024) have 525,568 parameters?"""
    ff = FeedForward(256, 1024, dropout=0.1)
    assert sum(p.numel() for p in ff.parameters()) == 525_568


def test_positions_are_independent():
    """Is each position transformed on its own (changing one leaves the others)?"""
    ff = FeedForward(8, 32, dropout=0.0)
    x = torch.randn(1, 5, 8)
    y = x.clone()
    y[0, 2] += 1.0
    out_x, out_y = ff(x), ff(y)
    torch.testing.assert_close(out_x[0, [0, 1, 3, 4]], out_y[0, [0, 1, 3, 4]])
    assert not torch.allclose(out_x[0, 2], out_y[0, 2])
