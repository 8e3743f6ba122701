"""The reference model code (solutions/a3_blocks, a4_transformer) used directly."""

import struct
import time

import pytest
import torch

from autograder import reference


@pytest.fixture(scope="module")
def ref():
    return {name: reference.load(name) for name in ("positional", "multihead", "transformer", "visualize")}


def test_positional_encoding_errors_say_what_to_fix(ref):
    """Do an odd d_model and a too-long input raise ValueErrors that say what to do?"""
    PE = ref["positional"].PositionalEncoding
    with pytest.raises(ValueError, match="d_model must be even"):
        PE(5)
    with pytest.raises(ValueError, match="longer than max_len=8.*larger max_len or truncate"):
        PE(4, max_len=8)(torch.zeros(1, 9, 4))


def test_config_checks_sizes(ref):
    """Does TransformerConfig reject d_model not divisible by num_heads?"""
    with pytest.raises(ValueError, match="d_model must be divisible by num_heads"):
        ref["transformer"].TransformerConfig(src_vocab_size=5, tgt_vocab_size=5, d_model=30, num_heads=4)


def _copy_batch(generator, batch=64, length=6, vocab=12):
    """Toy task: the target is the source itself. ids: 0 pad, 1 <sos>, 2 <eos>, 3.. digits."""
    src = torch.randint(3, vocab, (batch, length), generator=generator)
    sos, eos = torch.ones(batch, 1, dtype=torch.long), torch.full((batch, 1), 2)
    tgt = torch.cat([sos, src, eos], dim=1)
    return src, tgt[:, :-1], tgt[:, 1:]


def test_transformer_learns_the_copy_task_in_seconds(ref):
    """Does a small reference Transformer, trained for a few seconds on CPU, cut its loss far below the start?"""
    torch.manual_seed(0)
    t = ref["transformer"]
    model = t.Transformer(t.TransformerConfig(src_vocab_size=12, tgt_vocab_size=12, d_model=32, num_heads=4,
                                              num_layers=2, d_ff=64, dropout=0.0, max_len=16))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=0)
    generator = torch.Generator().manual_seed(0)
    losses, start = [], time.monotonic()
    while len(losses) < 300 and time.monotonic() - start < 20:
        src, tgt_in, tgt_out = _copy_batch(generator)
        loss = loss_fn(model(src, tgt_in).reshape(-1, 12), tgt_out.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert first > 2.0, f"a fresh model should be near ln(12) = 2.48, got {first:.2f}"
    assert last < 0.25 * first, f"loss fell from {first:.2f} to {last:.2f} in {len(losses)} steps only"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG file"
    return struct.unpack(">II", data[16:24])


def test_positional_encoding_heatmap_is_a_png_of_the_requested_size(ref, tmp_path):
    """Does plot_positional_encoding write a real 800x400 PNG?"""
    pe = ref["positional"].PositionalEncoding(64, max_len=100).pe
    path = ref["visualize"].plot_positional_encoding(pe, tmp_path / "pe.png")
    assert _png_size(path) == (800, 400)


def test_attention_plot_is_a_png_of_the_requested_size(ref, tmp_path):
    """Does plot_attention write a real PNG for one head, with token labels?"""
    mha = ref["multihead"].MultiHeadAttention(16, 4)
    x = torch.randn(1, 5, 16)
    _, weights = mha(x, x, x, need_weights=True)
    path = ref["visualize"].plot_attention(weights, tmp_path / "head.png", head=2, tokens=list("abcde"),
                                           size=(4, 3), dpi=50)
    assert _png_size(path) == (200, 150)
    with pytest.raises(ValueError, match="weights must have shape"):
        ref["visualize"].plot_attention(weights[0, 0, 0], tmp_path / "bad.png")


def test_summary_reports_parameter_counts(ref, capsys):
    """Does print_summary show the model's layers and its parameter total?"""
    t = ref["transformer"]
    model = t.Transformer(t.TransformerConfig(src_vocab_size=50, tgt_vocab_size=60, d_model=32, num_heads=4,
                                              num_layers=1, d_ff=64))
    stats = ref["visualize"].print_summary(model, torch.randint(1, 50, (2, 7)), torch.randint(1, 60, (2, 5)))
    printed = capsys.readouterr().out
    assert stats.total_params == sum(p.numel() for p in model.parameters())
    assert "EncoderLayer" in printed and "DecoderLayer" in printed and f"{stats.total_params:,}" in printed
