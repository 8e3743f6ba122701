"""Public tests for transformer.py. Run them with ``pytest assignments/a4_transformer``."""

import torch

from transformer import Transformer, TransformerConfig

SMALL = dict(src_vocab_size=20, tgt_vocab_size=30, d_model=32, num_heads=4, num_layers=2, d_ff=64, dropout=0.0)


def test_logits_shape():
    """Does the model map (B, S) and (B, T) token ids to (B, T, V) logits?"""
    model = Transformer(TransformerConfig(**SMALL))
    src, tgt = torch.randint(1, 20, (3, 7)), torch.randint(1, 30, (3, 5))
    assert model(src, tgt).shape == (3, 5, 30)


def test_encode_then_decode_equals_forward():
    """Is forward(src, tgt) the same as decode(tgt, *encode(src))?"""
    model = Transformer(TransformerConfig(**SMALL)).eval()
    src, tgt = torch.randint(1, 20, (2, 6)), torch.randint(1, 30, (2, 4))
    memory, src_mask = model.encode(src)
    torch.testing.assert_close(model.decode(tgt, memory, src_mask), model(src, tgt))


def test_tied_weights_share_one_matrix():
    """With tie_weights, is the output projection the target embedding itself?"""
    model = Transformer(TransformerConfig(**SMALL, tie_weights=True))
    assert model.generator.weight is model.tgt_embed.weight
