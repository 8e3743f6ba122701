"""Hidden graders for a4_transformer/layers.py; the oracles are torch's own layers."""

import pytest
import torch
from torch import nn

from autograder.graders.a4_transformer.layer_mistakes import mistakes, torch_ops
from autograder.graders.a4_transformer.stages import layer_localiser
from autograder.graders.torch_parity import layer_state, randomise_norms
from autograder.grading import checks

# Dropout the student's layers are built with in eval mode, where it must do nothing.
EVAL_DROPOUT = 0.5


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


# ------------------------------------------------------------------ graders

def _encoder_case(student, rng, norm_first):
    d_model, h, d_ff = _sizes(rng)
    B, S = checks.randint(rng, 1, 3), checks.randint(rng, 2, 8)
    x = checks.randn(rng, B, S, d_model)
    keep = checks.right_padding(rng, B, S)
    layer = _torch_layer(nn.TransformerEncoderLayer, rng, d_model, h, d_ff, norm_first)
    want = layer(x, src_key_padding_mask=~keep)
    report = student.module(
        "layers.EncoderLayer", d_model, h, d_ff, init_kwargs={"dropout": EVAL_DROPOUT, "norm_first": norm_first},
        state=layer_state(layer), dtype="float64", inputs=[x, keep[:, None, None, :]],
    )
    kind = "pre-norm" if norm_first else "post-norm"
    checks.close(report.get("output"), want.detach(),
                 f"{kind} EncoderLayer(d_model={d_model}, h={h}, d_ff={d_ff}, dropout={EVAL_DROPOUT}) in eval mode "
                 f"on x {tuple(x.shape)} with padding", atol=1e-9,
                 mistakes=mistakes(torch_ops(layer), x, None, keep[:, None, None, :]),
                 localise=layer_localiser(student, "layers.EncoderLayer", [d_model, h, d_ff],
                                          {"dropout": EVAL_DROPOUT, "norm_first": norm_first}, layer_state(layer),
                                          [x, keep[:, None, None, :]], {"the layer's input x": x}))
    check_dropout_spares_stream(student, rng, decoder=False, norm_first=norm_first)
    check_dropout_on_sublayer_outputs(student, rng, decoder=False, norm_first=norm_first)


def _decoder_case(student, rng, norm_first):
    d_model, h, d_ff = _sizes(rng)
    B, T, S = checks.randint(rng, 1, 3), checks.randint(rng, 2, 7), checks.randint(rng, 2, 8)
    x = checks.randn(rng, B, T, d_model)
    memory = checks.randn(rng, B, S, d_model)
    keep = checks.right_padding(rng, B, S)
    causal = torch.ones(T, T).tril().bool()
    layer = _torch_layer(nn.TransformerDecoderLayer, rng, d_model, h, d_ff, norm_first)
    want = layer(x, memory, tgt_mask=~causal, memory_key_padding_mask=~keep)
    report = student.module(
        "layers.DecoderLayer", d_model, h, d_ff, init_kwargs={"dropout": EVAL_DROPOUT, "norm_first": norm_first},
        state=layer_state(layer), dtype="float64", inputs=[x, memory, causal, keep[:, None, None, :]],
    )
    kind = "pre-norm" if norm_first else "post-norm"
    checks.close(report.get("output"), want.detach(),
                 f"{kind} DecoderLayer(d_model={d_model}, h={h}, d_ff={d_ff}, dropout={EVAL_DROPOUT}) in eval mode "
                 f"on x {tuple(x.shape)}, memory {tuple(memory.shape)}", atol=1e-9,
                 mistakes=mistakes(torch_ops(layer), x, memory, causal, keep[:, None, None, :]),
                 localise=layer_localiser(student, "layers.DecoderLayer", [d_model, h, d_ff],
                                          {"dropout": EVAL_DROPOUT, "norm_first": norm_first}, layer_state(layer),
                                          [x, memory, causal, keep[:, None, None, :]],
                                          {"the layer's input x": x, "the memory": memory}))
    check_dropout_spares_stream(student, rng, decoder=True, norm_first=norm_first)
    check_dropout_on_sublayer_outputs(student, rng, decoder=True, norm_first=norm_first)


@pytest.mark.points(2)
def test_encoder_layer_post_norm(student, rng):
    """Does a post-norm EncoderLayer match nn.TransformerEncoderLayer, with dropout on the sub-layer outputs only? / ¿Coincide una EncoderLayer post-norm con nn.TransformerEncoderLayer, con dropout solo sobre las salidas de las subcapas?"""
    _encoder_case(student, rng, norm_first=False)


@pytest.mark.points(1)
def test_encoder_layer_pre_norm(student, rng):
    """Does a pre-norm EncoderLayer match nn.TransformerEncoderLayer(norm_first=True), with dropout on the sub-layer outputs only? / ¿Coincide una EncoderLayer pre-norm con la de torch, con dropout solo sobre las salidas de las subcapas?"""
    _encoder_case(student, rng, norm_first=True)


@pytest.mark.points(2)
def test_decoder_layer_post_norm(student, rng):
    """Does a post-norm DecoderLayer match nn.TransformerDecoderLayer, with dropout on the sub-layer outputs only? / ¿Coincide una DecoderLayer post-norm con nn.TransformerDecoderLayer, con dropout solo sobre las salidas de las subcapas?"""
    _decoder_case(student, rng, norm_first=False)


@pytest.mark.points(1)
def test_decoder_layer_pre_norm(student, rng):
    """Does a pre-norm DecoderLayer match nn.TransformerDecoderLayer(norm_first=True), with dropout on the sub-layer outputs only? / ¿Coincide una DecoderLayer pre-norm con la de torch, con dropout solo sobre las salidas de las subcapas?"""
    _decoder_case(student, rng, norm_first=True)


@pytest.mark.points(1)
def test_decoder_layer_is_causal(student, rng):
    """Does changing a future target position leave every earlier output unchanged? / ¿Cambiar una posición futura del destino deja intactas las salidas anteriores?"""
    d_model, h, d_ff = _sizes(rng)
    T, S = checks.randint(rng, 3, 8), checks.randint(rng, 2, 6)
    t = checks.randint(rng, 1, T - 1)
    x = checks.randn(rng, 1, T, d_model)
    changed = x.clone()
    changed[0, t:] += checks.randn(rng, T - t, d_model)
    memory = checks.randn(rng, 1, S, d_model).repeat(2, 1, 1)
    layer = _torch_layer(nn.TransformerDecoderLayer, rng, d_model, h, d_ff, norm_first=False)
    causal = torch.ones(T, T).tril().bool()
    both = torch.cat([x, changed])
    report = student.module(
        "layers.DecoderLayer", d_model, h, d_ff, init_kwargs={"dropout": 0.0}, state=layer_state(layer),
        dtype="float64", inputs=[both, memory, causal, None],
    )
    out = checks.tensor(report.get("output"), "DecoderLayer output", shape=(2, T, d_model))
    try:
        checks.close(out[1, :t], out[0, :t], f"outputs at positions 0..{t - 1} after changing positions {t}..{T - 1}", atol=1e-12)
    except checks.CheckFailure as failure:
        found = checks.recognise(out, mistakes(torch_ops(layer), both, memory, causal, None),
                                 lambda a, m: torch.allclose(a, m, atol=1e-9, rtol=0))
        raise (failure.naming(found) if found else failure) from None


DROPOUT_ON_STREAM = checks.Mistake(
    "dropout acts on the residual stream (after the LayerNorm, or on x + sublayer): apply it to the sub-layer's "
    "output only, before adding x",
    "el dropout actúa sobre el flujo residual (tras la LayerNorm, o sobre x + subcapa): aplícalo solo a la salida "
    "de la subcapa, antes de sumar x")


def check_dropout_spares_stream(student, rng, decoder, norm_first):
    """In training mode, dropout acts on the sub-layer outputs only, never on the residual
    stream. Sub-layers whose output projections are zero add nothing: dropout in its place
    changes nothing either, so the output is exact, while dropout anywhere on the residual
    stream zeroes some of it."""
    d_model, h, d_ff = _sizes(rng)
    B, T, S = 2, checks.randint(rng, 3, 7), checks.randint(rng, 3, 8)
    x = checks.randn(rng, B, T, d_model)
    memory = checks.randn(rng, B, S, d_model)
    causal = torch.ones(T, T).tril().bool()
    cls, target = ((nn.TransformerDecoderLayer, "layers.DecoderLayer") if decoder
                   else (nn.TransformerEncoderLayer, "layers.EncoderLayer"))
    layer = _torch_layer(cls, rng, d_model, h, d_ff, norm_first)
    with torch.no_grad():
        for zeroed in [layer.self_attn.out_proj, layer.linear2] + ([layer.multihead_attn.out_proj] if decoder else []):
            zeroed.weight.zero_()
            zeroed.bias.zero_()
    if norm_first:
        want = x
    else:
        want = layer.norm2(layer.norm1(x))
        want = (layer.norm3(want) if decoder else want).detach()
    def run(train: bool):
        return student.module(
            target, d_model, h, d_ff, init_kwargs={"dropout": 0.5, "norm_first": norm_first}, state=layer_state(layer),
            dtype="float64", inputs=[x, memory, causal, None] if decoder else [x, None], train=train,
            seed=checks.randint(rng, 0, 10**6)).get("output")
    kind = "pre-norm" if norm_first else "post-norm"
    out = run(True)
    try:
        checks.close(out, want, f"{kind} {target.split('.')[1]}(dropout=0.5) in training mode with sub-layers that "
                     "output zeros (dropout must leave the residual stream alone)", atol=1e-9)
    except checks.CheckFailure as failure:
        zeros = isinstance(out, torch.Tensor) and out.shape == want.shape and bool((out == 0).any())
        found = DROPOUT_ON_STREAM if zeros else checks.recognise(
            out, mistakes(torch_ops(layer), x, memory if decoder else None, causal if decoder else None),
            lambda a, m: isinstance(a, torch.Tensor) and a.shape == m.shape and torch.allclose(a, m, atol=1e-9, rtol=0))
        if not found and isinstance(out, torch.Tensor):
            # Right in eval mode, wrong in training mode: only a dropout can tell the two apart,
            # and here it cannot act on the zero sub-layer outputs, so it acts on the stream
            # (before a LayerNorm, which then hides its zeros).
            evaluated = run(False)
            if checks.matches(1e-9, 0)(evaluated, want):
                found = DROPOUT_ON_STREAM
        raise (failure.naming(found) if found else failure) from None


def check_dropout_on_sublayer_outputs(student, rng, decoder, norm_first):
    """In training mode, each sub-layer's output goes through inverted dropout before it is
    added to x (or to the LayerNorm's input). One sub-layer at a time outputs a constant
    vector b (its output projection's bias, with weight zero, so that the dropout inside
    attention and the feed-forward changes nothing); the others output zeros. The layer's
    output must then be the reference's for x + m * b / (1 - p), for some 0/1 mask m with
    some of each. d_model = 8 keeps every mask of a row (2^8) enumerable, so a post-norm
    layer, whose LayerNorms hide the mask, is checked too."""
    p, d_model, h, d_ff = 0.5, 8, 2, checks.randint(rng, 4, 12)
    B, T, S = 2, checks.randint(rng, 3, 5), checks.randint(rng, 2, 5)
    x = checks.randn(rng, B, T, d_model)
    memory = checks.randn(rng, B, S, d_model)
    causal = torch.ones(T, T).tril().bool()
    cls, target = ((nn.TransformerDecoderLayer, "layers.DecoderLayer") if decoder
                   else (nn.TransformerEncoderLayer, "layers.EncoderLayer"))
    name = target.split(".")[1]
    layer = _torch_layer(cls, rng, d_model, h, d_ff, norm_first)
    sublayers = [("self_attn", "la autoatención", layer.self_attn.out_proj)]
    if decoder:
        sublayers.append(("cross_attn", "la atención cruzada", layer.multihead_attn.out_proj))
    sublayers.append(("ff", "la feed-forward", layer.linear2))
    norms = [layer.norm1, layer.norm2] + ([layer.norm3] if decoder else [])
    masks = checks.every_mask(d_model)
    kind = "pre-norm" if norm_first else "post-norm"
    for k, (sublayer, es_sublayer, _) in enumerate(sublayers):
        b = checks.randn(rng, d_model)
        with torch.no_grad():
            for j, (_, _, out) in enumerate(sublayers):
                out.weight.zero_()
                out.bias.copy_(b if j == k else torch.zeros_like(b))
            # The stream reaching sub-layer k (the ones before it add nothing), plus its
            # output b through every dropout mask, then the LayerNorms that follow it.
            stream = x
            for norm in [] if norm_first else norms[:k]:
                stream = norm(stream)
            candidates = stream[:, :, None, :] + masks * b / (1 - p)  # (B, T, 2^d, d)
            for norm in [] if norm_first else norms[k:]:
                candidates = norm(candidates)
        out = student.module(
            target, d_model, h, d_ff, init_kwargs={"dropout": p, "norm_first": norm_first}, state=layer_state(layer),
            dtype="float64", inputs=[x, memory, causal, None] if decoder else [x, None], train=True,
            seed=checks.randint(rng, 0, 10**6)).get("output")
        out = checks.tensor(out, f"{name} output in training mode", shape=(B, T, d_model))
        error, kept = checks.best_masks(candidates, out, masks)  # (B, T), (B, T, d)
        if bool((error <= 1e-8).all()) and bool((kept == 0).any()) and bool((kept == 1).any()):
            continue
        raise checks.CheckFailure(
            f"{kind} {name}(dropout={p}) in training mode, where only {sublayer} outputs non-zero values (a constant "
            f"vector b), on x {tuple(x.shape)}: the output is not that of x + dropout(b) for any dropout mask",
            f"{name} {kind}(dropout={p}) en modo entrenamiento, donde solo {es_sublayer} da valores no nulos (un "
            f"vector constante b), sobre x {tuple(x.shape)}: la salida no es la de x + dropout(b) para ninguna "
            "máscara de dropout",
        ).naming(checks.Mistake(
            f"in training mode, {sublayer}'s output is not dropped: apply dropout to each sub-layer's output (not to "
            "its input, and not nowhere), before adding x",
            f"en modo entrenamiento no se aplica dropout a la salida de {es_sublayer}: aplícalo a la salida de cada "
            "subcapa (no a su entrada, y no omitido), antes de sumar x"))
