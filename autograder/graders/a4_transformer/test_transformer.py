"""Hidden graders for a4_transformer/transformer.py.

The oracle is the reference Transformer (solutions/), loaded into the grading process and
built with the same configuration and weights; its layers are held to torch's own by the
layer graders.
"""

import pytest
import torch

from autograder import checks, reference

MODEL = "transformer.Transformer"
CONFIG = "transformer.TransformerConfig"
# The model runs in float64, but a correct student may scale the embeddings by a float32
# constant (torch.sqrt(torch.tensor(d_model)): relative error up to 2**-24). After the
# layer norms that is an error of ~1e-7 relative to the outputs' scale (about 1), also on
# outputs near 0, so the absolute tolerance is 1e-6, not 1e-8; every mistake the project's
# mutants make is off by 1e-3 or more.
ATOL = 1e-6


def _config(rng, **overrides):
    # d_model >= 8: LayerNorm over 2 features outputs only ±(1, -1), which hides mistakes.
    h = checks.randint(rng, 2, 4)
    config = dict(
        src_vocab_size=checks.randint(rng, 8, 30), tgt_vocab_size=checks.randint(rng, 8, 30),
        d_model=h * 4 * checks.randint(rng, 1, 2), num_heads=h, num_layers=checks.randint(rng, 1, 2),
        d_ff=checks.randint(rng, 4, 24), dropout=0.0, max_len=32, pad_id=checks.randint(rng, 0, 2),
    )
    config.update(overrides)
    return config


def _tokens(rng, config, vocab, B, L):
    """Random ids (never pad) with right padding of random length per row; row 0 is
    never padded, so masks that ignore causality cannot hide behind the padding."""
    pad = config["pad_id"]
    tokens = torch.randint(0, vocab, (B, L), generator=rng)
    tokens[tokens == pad] = (pad + 1) % vocab
    keep = checks.right_padding(rng, B, L)
    keep[0] = True
    tokens[~keep] = pad
    return tokens


def _reference_model(rng, config):
    module = reference.load("transformer")
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=rng)))
    model = module.Transformer(module.TransformerConfig(**config)).double().train()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or "norm" in name:
                p.add_(0.2 * torch.randn(p.shape, generator=rng, dtype=p.dtype))
    return model


def _state(model):
    return {name: p.detach().clone() for name, p in model.named_parameters()}


def _student(student, config, model, inputs, method=None):
    fields = {"state": _state(model), "dtype": "float64", "inputs": inputs}
    if method:
        fields["method"] = method
    return student.module(MODEL, config=[CONFIG, config], **fields)


def _check_logits(student, rng, **overrides):
    config = _config(rng, **overrides)
    model = _reference_model(rng, config)
    B = checks.randint(rng, 1, 3)
    src = _tokens(rng, config, config["src_vocab_size"], B, checks.randint(rng, 2, 9))
    tgt = _tokens(rng, config, config["tgt_vocab_size"], B, checks.randint(rng, 2, 9))
    report = _student(student, config, model, [src, tgt])
    what = f"logits for {', '.join(f'{k}={v}' for k, v in overrides.items()) or 'post-norm'} (config {config})"
    checks.close(report.get("output"), model(src, tgt).detach(), what, atol=ATOL, rtol=1e-6)
    return report


@pytest.mark.points(2)
def test_forward_post_norm(student, rng):
    """Does the post-norm model give the reference logits for the same weights? / ¿Da el modelo post-norm los logits de referencia con los mismos pesos?"""
    _check_logits(student, rng)


@pytest.mark.points(1)
def test_forward_pre_norm(student, rng):
    """Does the pre-norm model (final LayerNorm per stack) give the reference logits? / ¿Da el modelo pre-norm (LayerNorm final por pila) los logits de referencia?"""
    _check_logits(student, rng, norm_first=True)


@pytest.mark.points(1)
def test_tied_weights(student, rng):
    """With tie_weights, is the output projection the target embedding (V·d_model fewer parameters)? / ¿Con tie_weights, la proyección de salida es el embedding destino?"""
    _check_logits(student, rng, tie_weights=True)
    config = _config(rng)
    ref = reference.load("transformer")
    untied = sum(p.numel() for p in ref.Transformer(ref.TransformerConfig(**config)).parameters())
    tied = student.module(MODEL, config=[CONFIG, {**config, "tie_weights": True}]).get("num_parameters")
    expected = untied - config["tgt_vocab_size"] * config["d_model"]
    checks.expect(
        tied == expected,
        f"with tie_weights the model should have {expected} parameters (one matrix fewer), got {tied}",
        f"con tie_weights el modelo debería tener {expected} parámetros (una matriz menos), tiene {tied}",
    )


@pytest.mark.points(1)
def test_encode_and_decode(student, rng):
    """Do encode and decode return the reference memory, source mask and logits? / ¿Devuelven encode y decode la memoria, la máscara de origen y los logits de referencia?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    src = _tokens(rng, config, config["src_vocab_size"], 2, checks.randint(rng, 2, 9))
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 2, checks.randint(rng, 2, 9))
    memory, src_mask = model.encode(src)
    got = checks.pair(_student(student, config, model, [src], method="encode").get("output"), "encode(src)")
    checks.close(got[0], memory.detach(), "memory from encode(src)", atol=ATOL, rtol=1e-6)
    checks.equal(got[1], src_mask, "source mask from encode(src)")
    logits = _student(student, config, model, [tgt, memory.detach(), src_mask], method="decode").get("output")
    checks.close(logits, model.decode(tgt, memory, src_mask).detach(), "logits from decode(tgt, memory, src_mask)", atol=ATOL, rtol=1e-6)


@pytest.mark.points(1)
def test_future_target_tokens_are_invisible(student, rng):
    """Does changing target token t leave the logits at positions before t unchanged? / ¿Cambiar el token destino t deja intactos los logits anteriores a t?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    T = checks.randint(rng, 3, 9)
    t = checks.randint(rng, 1, T - 1)
    src = _tokens(rng, config, config["src_vocab_size"], 1, 6).repeat(2, 1)
    tgt = torch.randint(0, config["tgt_vocab_size"], (1, T), generator=rng).repeat(2, 1)
    tgt[tgt == config["pad_id"]] = (config["pad_id"] + 1) % config["tgt_vocab_size"]
    tgt[1, t] = (tgt[0, t] + 1) % config["tgt_vocab_size"] or 1
    logits = checks.tensor(_student(student, config, model, [src, tgt]).get("output"), "logits",
                           shape=(2, T, config["tgt_vocab_size"]))
    checks.close(logits[1, :t], logits[0, :t], f"logits at positions 0..{t - 1} after changing target token {t}", atol=1e-10)


@pytest.mark.points(1)
def test_source_padding_is_ignored(student, rng):
    """Does appending extra <pad> tokens to the source leave the logits unchanged? / ¿Añadir <pad> al final del origen deja los logits intactos?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    src = _tokens(rng, config, config["src_vocab_size"], 2, 5)
    padded = torch.cat([src, torch.full((2, checks.randint(rng, 1, 4)), config["pad_id"])], dim=1)
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 2, 4)
    a = _student(student, config, model, [src, tgt]).get("output")
    b = _student(student, config, model, [padded, tgt]).get("output")
    checks.close(checks.tensor(b, "logits with extra source padding"), checks.tensor(a, "logits"), "logits after appending <pad> to the source", atol=1e-10)
