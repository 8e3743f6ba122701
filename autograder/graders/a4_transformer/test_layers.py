"""Hidden graders for a4_transformer/layers.py; the oracles are torch's own layers."""

import pytest
import torch
from torch import nn

from autograder import checks
from autograder.graders.torch_parity import layer_state, randomise_norms


def _sizes(rng):
    # d_model >= 8: LayerNorm over 2 features outputs only ±(1, -1), which hides mistakes.
    h = checks.randint(rng, 2, 4)
    return h * 4 * checks.randint(rng, 1, 2), h, checks.randint(rng, 4, 24)


def _torch_layer(cls, rng, d_model, h, d_ff, norm_first):
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=rng)))
    # dropout=0 and train mode: deterministic, and torch's eval-only fast path stays off.
    layer = cls(d_model, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=torch.float64).train()
    randomise_norms(layer, rng)
    return layer


def _encoder_case(student, rng, norm_first):
    d_model, h, d_ff = _sizes(rng)
    B, S = checks.randint(rng, 1, 3), checks.randint(rng, 2, 8)
    x = torch.randn(B, S, d_model, generator=rng, dtype=torch.float64)
    keep = checks.right_padding(rng, B, S)
    layer = _torch_layer(nn.TransformerEncoderLayer, rng, d_model, h, d_ff, norm_first)
    want = layer(x, src_key_padding_mask=~keep)
    report = student.module(
        "layers.EncoderLayer", d_model, h, d_ff, init_kwargs={"dropout": 0.0, "norm_first": norm_first},
        state=layer_state(layer), dtype="float64", inputs=[x, keep[:, None, None, :]],
    )
    kind = "pre-norm" if norm_first else "post-norm"
    checks.close(report.get("output"), want.detach(), f"{kind} EncoderLayer(d_model={d_model}, h={h}, d_ff={d_ff}) on x {tuple(x.shape)} with padding", atol=1e-9)


def _decoder_case(student, rng, norm_first):
    d_model, h, d_ff = _sizes(rng)
    B, T, S = checks.randint(rng, 1, 3), checks.randint(rng, 2, 7), checks.randint(rng, 2, 8)
    x = torch.randn(B, T, d_model, generator=rng, dtype=torch.float64)
    memory = torch.randn(B, S, d_model, generator=rng, dtype=torch.float64)
    keep = checks.right_padding(rng, B, S)
    causal = torch.ones(T, T).tril().bool()
    layer = _torch_layer(nn.TransformerDecoderLayer, rng, d_model, h, d_ff, norm_first)
    want = layer(x, memory, tgt_mask=~causal, memory_key_padding_mask=~keep)
    report = student.module(
        "layers.DecoderLayer", d_model, h, d_ff, init_kwargs={"dropout": 0.0, "norm_first": norm_first},
        state=layer_state(layer), dtype="float64", inputs=[x, memory, causal, keep[:, None, None, :]],
    )
    kind = "pre-norm" if norm_first else "post-norm"
    checks.close(report.get("output"), want.detach(), f"{kind} DecoderLayer(d_model={d_model}, h={h}, d_ff={d_ff}) on x {tuple(x.shape)}, memory {tuple(memory.shape)}", atol=1e-9)


@pytest.mark.points(2)
def test_encoder_layer_post_norm(student, rng):
    """Does a post-norm EncoderLayer match nn.TransformerEncoderLayer? / ¿Coincide una EncoderLayer post-norm con nn.TransformerEncoderLayer?"""
    _encoder_case(student, rng, norm_first=False)


@pytest.mark.points(1)
def test_encoder_layer_pre_norm(student, rng):
    """Does a pre-norm EncoderLayer match nn.TransformerEncoderLayer(norm_first=True)? / ¿Coincide una EncoderLayer pre-norm con la de torch?"""
    _encoder_case(student, rng, norm_first=True)


@pytest.mark.points(2)
def test_decoder_layer_post_norm(student, rng):
    """Does a post-norm DecoderLayer match nn.TransformerDecoderLayer? / ¿Coincide una DecoderLayer post-norm con nn.TransformerDecoderLayer?"""
    _decoder_case(student, rng, norm_first=False)


@pytest.mark.points(1)
def test_decoder_layer_pre_norm(student, rng):
    """Does a pre-norm DecoderLayer match nn.TransformerDecoderLayer(norm_first=True)? / ¿Coincide una DecoderLayer pre-norm con la de torch?"""
    _decoder_case(student, rng, norm_first=True)


@pytest.mark.points(1)
def test_decoder_layer_is_causal(student, rng):
    """Does changing a future target position leave every earlier output unchanged? / ¿Cambiar una posición futura del destino deja intactas las salidas anteriores?"""
    d_model, h, d_ff = _sizes(rng)
    T, S = checks.randint(rng, 3, 8), checks.randint(rng, 2, 6)
    t = checks.randint(rng, 1, T - 1)
    x = torch.randn(1, T, d_model, generator=rng, dtype=torch.float64)
    changed = x.clone()
    changed[0, t:] += torch.randn(T - t, d_model, generator=rng, dtype=torch.float64)
    memory = torch.randn(1, S, d_model, generator=rng, dtype=torch.float64).repeat(2, 1, 1)
    layer = _torch_layer(nn.TransformerDecoderLayer, rng, d_model, h, d_ff, norm_first=False)
    causal = torch.ones(T, T).tril().bool()
    report = student.module(
        "layers.DecoderLayer", d_model, h, d_ff, init_kwargs={"dropout": 0.0}, state=layer_state(layer),
        dtype="float64", inputs=[torch.cat([x, changed]), memory, causal, None],
    )
    out = checks.tensor(report.get("output"), "DecoderLayer output", shape=(2, T, d_model))
    checks.close(out[1, :t], out[0, :t], f"outputs at positions 0..{t - 1} after changing positions {t}..{T - 1}", atol=1e-12)
