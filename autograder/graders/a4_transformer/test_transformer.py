"""Hidden graders for a4_transformer/transformer.py.

The oracle is the reference Transformer (solutions/), loaded into the grading process and
built with the same configuration and weights; its layers are held to torch's own by the
layer graders.

Over 350 lines: besides the eval-mode graders, the checks that dropout acts in training mode
where the paper puts it (embeddings, each sub-layer) and nowhere else (a layer's output, the
logits); they build the same reference models as the graders above.
"""

import pytest
import torch

from autograder import reference
from autograder.graders.a4_transformer import stages
from autograder.graders.a4_transformer.layer_mistakes import mistake_specs
from autograder.graders.a4_transformer.model_mistakes import (
    DECODE_MISTAKES,
    ENCODE_MISTAKES,
    embed,
    mistakes,
    variant_decode,
    variant_encode,
    with_layer_mistake,
)
from autograder.grading import checks, shapes

MODEL = "transformer.Transformer"
CONFIG = "transformer.TransformerConfig"
# The model runs in float64, but a correct student may scale the embeddings by a float32
# constant (torch.sqrt(torch.tensor(d_model)): relative error up to 2**-24). After the
# layer norms that is an error of ~1e-7 relative to the outputs' scale (about 1), also on
# outputs near 0, so the absolute tolerance is 1e-6, not 1e-8; every mistake the project's
# mutants make is off by 1e-3 or more.
ATOL = 1e-6
# Dropout the student's model is built with where it runs in eval mode: it must do nothing.
EVAL_DROPOUT = 0.5


def _config(rng, **overrides):
    # d_model >= 8: LayerNorm over 2 features outputs only ±(1, -1), which hides mistakes.
    h = checks.randint(rng, 2, 4)
    config = dict(
        src_vocab_size=checks.randint(rng, 8, 30), tgt_vocab_size=checks.randint(rng, 8, 30),
        # Two layers: with one, layers that are not chained look like chained ones.
        d_model=h * 4 * checks.randint(rng, 1, 2), num_heads=h, num_layers=2,
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


def _spec(config, model):
    """The student's model as a script builds it: the reference's weights, with dropout."""
    return {"target": MODEL, "config": [CONFIG, {**config, "dropout": EVAL_DROPOUT}], "state": _state(model),
            "dtype": "float64"}


def _localiser(student, config, model, src, tgt):
    """For checks.close: where the student's model first differs from the reference."""
    return lambda: stages.first_difference(student, _spec(config, model), config, model, src, tgt)


def _student(student, config, model, inputs, method=None, grad_output=None):
    """The student's model with the reference's weights, run in eval mode (with dropout,
    which must do nothing there); with ``grad_output``, backpropagated too."""
    fields = {"state": _state(model), "dtype": "float64", "inputs": inputs}
    if grad_output is not None:
        fields["grad_output"] = grad_output
    if method:
        fields["method"] = method
    return student.module(MODEL, config=[CONFIG, {**config, "dropout": EVAL_DROPOUT}], **fields)


def _second_look(failure, student, config, model, src):
    """A model that crashed on a source and a target of different lengths is run once more
    with a target as long as the source: a mask meant for the target given to the
    cross-attention then runs, and can be named."""
    if failure.named:
        return failure
    tgt = _tokens(torch.Generator().manual_seed(0), config, config["tgt_vocab_size"], src.size(0), src.size(1))
    try:
        logits = _student(student, config, model, [src, tgt]).get("output")
    except checks.CheckFailure:
        return failure
    return _named(failure, logits, [m for m in mistakes(model, src, tgt) if "target mask" in m.en])


def _named(failure, actual, found_in):
    """``failure``, naming the mistake whose output ``actual`` matches, if any."""
    found = checks.recognise(actual, found_in, lambda a, m: isinstance(a, torch.Tensor) and a.shape == m.shape
                             and torch.allclose(a, m, atol=ATOL, rtol=1e-6))
    return failure.naming(found) if found else failure


def _check_logits(student, rng, **overrides):
    config = _config(rng, **overrides)
    model = _reference_model(rng, config)
    B = checks.randint(rng, 1, 3)
    src = _tokens(rng, config, config["src_vocab_size"], B, checks.randint(rng, 2, 9))
    tgt = _tokens(rng, config, config["tgt_vocab_size"], B, checks.randint(rng, 2, 9))
    grad_output = checks.randn(rng, B, tgt.size(1), config["tgt_vocab_size"])
    try:
        report = _student(student, config, model, [src, tgt], grad_output=grad_output)
    except checks.CheckFailure as failure:
        raise _second_look(failure, student, config, model, src) from None
    what = f"logits for {', '.join(f'{k}={v}' for k, v in overrides.items()) or 'post-norm'} (config {config})"
    logits = model(src, tgt)
    checks.close(report.get("output"), logits.detach(), what, atol=ATOL, rtol=1e-6,
                 mistakes=mistakes(model, src, tgt), localise=_localiser(student, config, model, src, tgt))
    # Right logits, and every weight must learn from them: the gradients of a training step.
    model.zero_grad()
    logits.backward(grad_output)
    grads = report.get("param_grads") if isinstance(report.get("param_grads"), dict) else {}
    for name, p in model.named_parameters():
        got = grads.get(name)
        try:
            # float32 tables (positions, masks) inside a float64 model are allowed: their rounding,
            # ~1e-7 relative, reaches the logits within ATOL and the gradients within this.
            checks.close(got, p.grad, f"gradient of the logits w.r.t. {name}",
                         atol=1e-5 * p.grad.abs().max().item() + 1e-9, rtol=1e-4)
        except checks.CheckFailure as failure:
            raise failure.shaped(shapes.gradient(got, p.grad, True, name), replace=True) from None
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
    """Do encode and decode return the reference memory, source mask and logits, and embed its dropout in training mode only? / ¿Devuelven encode y decode la memoria, la máscara de origen y los logits de referencia, y embed su dropout solo en entrenamiento?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    # Source and target of one length: a decoder that hands the target mask to the
    # cross-attention then runs, and is named, instead of failing on shapes.
    L = checks.randint(rng, 2, 9)
    src = _tokens(rng, config, config["src_vocab_size"], 2, L)
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 2, L)
    memory, src_mask = model.encode(src)
    got = checks.pair(_student(student, config, model, [src], method="encode").get("output"), "encode(src)")
    checks.close(got[0], memory.detach(), "memory from encode(src)", atol=ATOL, rtol=1e-6,
                 mistakes=[checks.Mistake(en, es, output=lambda kind=kind: variant_encode(model, src, kind)[0].detach())
                           for kind, (en, es) in ENCODE_MISTAKES.items()]
                 + [checks.Mistake(en, es, output=lambda styles=styles: with_layer_mistake(
                     model, False, styles, None, lambda: variant_encode(model, src)[0]).detach())
                    for en, es, styles, _ in mistake_specs(config.get("norm_first", False), False)],
                 localise=_localiser(student, config, model, src, tgt))
    checks.equal(got[1], src_mask, "source mask from encode(src)")
    logits = _student(student, config, model, [tgt, memory.detach(), src_mask], method="decode").get("output")
    checks.close(logits, model.decode(tgt, memory, src_mask).detach(), "logits from decode(tgt, memory, src_mask)",
                 atol=ATOL, rtol=1e-6,
                 mistakes=[checks.Mistake(en, es, output=lambda kind=kind: variant_decode(model, tgt, memory, src_mask, kind).detach())
                           for kind, (en, es) in DECODE_MISTAKES.items()]
                 + [checks.Mistake(en, es, output=lambda styles=styles, kind=kind: with_layer_mistake(
                     model, True, styles, kind, lambda: variant_decode(model, tgt, memory, src_mask)).detach())
                    for en, es, styles, kind in mistake_specs(config.get("norm_first", False), True)],
                 localise=_localiser(student, config, model, src, tgt))
    # A target of one token (the first step of decoding) keeps its time axis.
    one = _student(student, config, model, [tgt[:, :1], memory.detach(), src_mask], method="decode").get("output")
    checks.tensor(one, "logits from decode(tgt of shape (2, 1), memory, src_mask)",
                  shape=(2, 1, config["tgt_vocab_size"]))
    check_embedding_dropout(student, rng)
    check_repeated_calls(student, rng, config, model)
    check_logits_not_dropped(student, rng)
    for decoder in (False, True):
        check_layer_outputs_not_dropped(student, rng, decoder)


@pytest.mark.points(1)
def test_future_target_tokens_are_invisible(student, rng):
    """Does changing target token t leave the logits at positions before t unchanged? / ¿Cambiar el token destino t deja intactos los logits anteriores a t?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    T = checks.randint(rng, 3, 9)
    t = checks.randint(rng, 1, T - 1)
    # As long as the target: a cross-attention given the target mask cannot see the future
    # either, so it fails only the tests that compare logits, not this one.
    src = _tokens(rng, config, config["src_vocab_size"], 1, T).repeat(2, 1)
    tgt = torch.randint(0, config["tgt_vocab_size"], (1, T), generator=rng).repeat(2, 1)
    tgt[tgt == config["pad_id"]] = (config["pad_id"] + 1) % config["tgt_vocab_size"]
    tgt[1, t] = (tgt[0, t] + 1) % config["tgt_vocab_size"] or 1
    logits = checks.tensor(_student(student, config, model, [src, tgt]).get("output"), "logits",
                           shape=(2, T, config["tgt_vocab_size"]))
    try:
        checks.close(logits[1, :t], logits[0, :t], f"logits at positions 0..{t - 1} after changing target token {t}", atol=1e-10)
    except checks.CheckFailure as failure:
        raise _named(failure, logits, mistakes(model, src, tgt)) from None


@pytest.mark.points(1)
def test_source_padding_is_ignored(student, rng):
    """Does appending extra <pad> tokens to the source leave the logits unchanged? / ¿Añadir <pad> al final del origen deja los logits intactos?"""
    config = _config(rng)
    model = _reference_model(rng, config)
    src = _tokens(rng, config, config["src_vocab_size"], 2, 5)
    padded = torch.cat([src, torch.full((2, checks.randint(rng, 1, 4)), config["pad_id"])], dim=1)
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 2, 4)
    try:
        a = _student(student, config, model, [src, tgt]).get("output")
        b = _student(student, config, model, [padded, tgt]).get("output")
    except checks.CheckFailure as failure:
        raise _second_look(failure, student, config, model, src) from None
    try:
        checks.close(checks.tensor(b, "logits with extra source padding"), checks.tensor(a, "logits"), "logits after appending <pad> to the source", atol=1e-10)
    except checks.CheckFailure as failure:
        raise _named(failure, b, mistakes(model, padded, tgt)) from None


DROPOUT_SWITCHED_OFF = checks.Mistake(
    "a call in eval mode switches the dropout off for good (self.dropout.p = 0, or a flag kept on self): "
    "model.train() must bring it back; nn.Dropout already does nothing in eval mode, so leave it as it is",
    "una llamada en modo evaluación apaga el dropout para siempre (self.dropout.p = 0, o un indicador guardado en "
    "self): model.train() debe recuperarlo; nn.Dropout ya no hace nada en modo evaluación, así que déjalo como está")
REUSED_STATE = checks.Mistake(
    "a second call with other shapes reuses something from the first one (a target mask, the memory, a cached "
    "tensor kept on self): build every mask and intermediate from this call's inputs",
    "una segunda llamada con otras formas reutiliza algo de la primera (una máscara de destino, la memoria, un "
    "tensor guardado en self): construye cada máscara e intermedio a partir de las entradas de esta llamada")
NO_EMBED_DROPOUT = checks.Mistake(
    "embed applies no dropout in training mode: self.dropout goes after adding the positions",
    "embed no aplica dropout en modo entrenamiento: self.dropout va después de sumar las posiciones")
EMBED_DROPOUT_EARLY = checks.Mistake(
    "embed applies dropout before adding the positions: the dropout goes on embedding * sqrt(d_model) + positions",
    "embed aplica el dropout antes de sumar las posiciones: el dropout va sobre embedding * sqrt(d_model) + posiciones")
EMBED_DROPOUT_IN_EVAL = checks.Mistake(
    "embed applies dropout in eval mode too: use self.dropout (nn.Dropout) or F.dropout(..., training=self.training)",
    "embed también aplica dropout en modo evaluación: usa self.dropout (nn.Dropout) o "
    "F.dropout(..., training=self.training)")

def check_repeated_calls(student, rng, config, model):
    """One model called on one batch and then on another of other sizes, as in a training
    loop: the second logits are those of the second batch alone."""
    B, S, T = checks.randint(rng, 3, 4), checks.randint(rng, 3, 8), checks.randint(rng, 3, 8)
    first = [_tokens(rng, config, config["src_vocab_size"], 2, S + 1), _tokens(rng, config, config["tgt_vocab_size"], 2, T + 2)]
    second = [_tokens(rng, config, config["src_vocab_size"], B, S), _tokens(rng, config, config["tgt_vocab_size"], B, T)]
    spec = {"target": MODEL, "config": [CONFIG, {**config, "dropout": EVAL_DROPOUT}], "state": _state(model),
            "dtype": "float64"}
    what = (f"logits of a second forward pass, src {tuple(second[0].shape)} and tgt {tuple(second[1].shape)}, after "
            f"one on src {tuple(first[0].shape)} and tgt {tuple(first[1].shape)}")
    what_es = (f"logits de una segunda pasada, src {tuple(second[0].shape)} y tgt {tuple(second[1].shape)}, tras una "
               f"con src {tuple(first[0].shape)} y tgt {tuple(first[1].shape)}")
    steps = [["a", "$model.__call__", first, {}], ["b", "$model.__call__", second, {}]]
    want = model(*second).detach()  # dropout 0.0: the reference is deterministic in training mode too

    def alone_right():
        """Whether a fresh model gives the second batch's logits: only then did the first call change it."""
        if student.script_error(steps[1:], model_spec=spec) is not None:
            return False
        alone = student.script(steps[1:], model_spec=spec, returns=["b"])["b"]
        return isinstance(alone, torch.Tensor) and alone.shape == want.shape and torch.allclose(
            alone.double(), want, atol=ATOL, rtol=1e-6)

    error = student.script_error(steps, model_spec=spec)
    if error is not None:
        failure = checks.CheckFailure(f"{what}: it raised {error['type']} ({error['shown']})",
                                      f"{what_es}: lanzó {error['type']} ({error['shown']})")
        raise (failure.naming(REUSED_STATE) if alone_right() else failure) from None
    got = student.script(steps, model_spec=spec, returns=["b"])["b"]
    try:
        checks.close(got, want, what, atol=ATOL, rtol=1e-6)
    except checks.CheckFailure as failure:
        raise (failure.naming(REUSED_STATE) if alone_right() else failure) from None


def check_embedding_dropout(student, rng):
    """In training mode, embed applies dropout to embedding * sqrt(d_model) + positions,
    and none in eval mode."""
    p = 0.5
    config = {**_config(rng), "dropout": p}
    model = _reference_model(rng, {**config, "dropout": 0.0})
    tokens = _tokens(rng, config, config["src_vocab_size"], 2, checks.randint(rng, 6, 9))
    spec = {"target": MODEL, "config": [CONFIG, config], "state": _state(model), "dtype": "float64"}
    got = student.script([
        ["trainable", "$model.train", [], {}],
        ["embedding", "getattr", [{"$": "model"}, "src_embed"], {}],
        ["seeded", "torch.manual_seed", [checks.randint(rng, 0, 10**6)], {}],
        ["trained", "$model.embed", [{"$": "embedding"}, tokens], {}],
        ["evaluable", "$model.eval", [], {}],
        ["evaluated", "$model.embed", [{"$": "embedding"}, tokens], {}],
        ["retrainable", "$model.train", [], {}],
        ["retrained", "$model.embed", [{"$": "embedding"}, tokens], {}],
    ], model_spec=spec, returns=["trained", "evaluated", "retrained"])
    want = embed(model, model.src_embed, tokens, None).detach()
    shape = tuple(want.shape)
    what = f"embed(src_embed, tokens {tuple(tokens.shape)}) with dropout={p}"
    evaluated = checks.tensor(got["evaluated"], f"{what} in eval mode", shape=shape, dtype=torch.float64)
    try:
        checks.close(evaluated, want, f"{what} in eval mode", atol=ATOL, rtol=1e-6, mistakes=[
            checks.Mistake(en, es, output=lambda kind=kind: embed(model, model.src_embed, tokens, kind).detach())
            for kind, (en, es) in ENCODE_MISTAKES.items() if kind in ("no_scale", "scale_after_positions")])
    except checks.CheckFailure as failure:
        named = failure.named or not bool((evaluated == 0).any())
        raise (failure if named else failure.naming(EMBED_DROPOUT_IN_EVAL)) from None
    trained = checks.tensor(got["trained"], f"{what} in training mode", shape=shape, dtype=torch.float64)
    tolerance = ATOL + 1e-6 * want.abs() / (1 - p)
    if not checks.inverted_dropout(trained, want, p, tolerance):
        failure = checks.CheckFailure(
            f"{what} in training mode: each value must be either dropped (0) or kept and scaled by 1/(1 - p) = "
            f"{1 / (1 - p):g}, as self.dropout does to embedding * sqrt(d_model) + positions",
            f"{what} en modo entrenamiento: cada valor debe quedar anulado (0) o conservado y escalado por "
            f"1/(1 - p) = {checks.fmt(1 / (1 - p), 'g', 'es')}, como hace self.dropout con embedding * sqrt(d_model) "
            "+ posiciones")
        if torch.allclose(trained, want, atol=ATOL, rtol=1e-6):
            raise failure.naming(NO_EMBED_DROPOUT)
        rate = checks.wrong_dropout_rate(checks.dropout_rate(trained, want, tolerance), p)
        if rate:
            raise failure.naming(rate)
        positions = model.positional.pe[:tokens.size(1)].expand(shape)
        early = (trained - positions).abs() <= 1e-6
        raise failure.naming(EMBED_DROPOUT_EARLY) if bool(early.any()) and bool(
            (early | ((trained - positions) - (want - positions) / (1 - p)).abs().le(1e-6)).all()) else failure
    retrained = checks.tensor(got["retrained"], f"{what} in training mode after a call in eval mode", shape=shape,
                              dtype=torch.float64)
    if not checks.inverted_dropout(retrained, want, p, tolerance):
        raise checks.CheckFailure(
            f"{what} in training mode, after a call in eval mode: no value is dropped any more",
            f"{what} en modo entrenamiento, tras una llamada en modo evaluación: ya no se anula ningún valor",
        ).naming(DROPOUT_SWITCHED_OFF)


def check_logits_not_dropped(student, rng):
    """In training mode, dropout acts inside the model, never on the logits: a logit that is
    exactly 0 is all but impossible, a dropped one is exactly 0."""
    p = 0.5
    config = {**_config(rng), "dropout": p}
    model = _reference_model(rng, {**config, "dropout": 0.0})
    src = _tokens(rng, config, config["src_vocab_size"], 2, checks.randint(rng, 3, 7))
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 2, checks.randint(rng, 4, 7))
    memory, src_mask = model.encode(src)
    got = student.script([
        ["trainable", "$model.train", [], {}],
        ["seeded", "torch.manual_seed", [checks.randint(rng, 0, 10**6)], {}],
        ["logits", "$model.decode", [tgt, memory.detach(), src_mask], {}],
    ], model_spec={"target": MODEL, "config": [CONFIG, config], "state": _state(model), "dtype": "float64"},
        returns=["logits"])
    shape = (*tgt.shape, config["tgt_vocab_size"])
    logits = checks.tensor(got["logits"], f"logits from decode in training mode (dropout={p})", shape=shape)
    zeros = int((logits == 0).sum())
    if zeros > logits.numel() // 10:
        raise checks.CheckFailure(
            f"logits from decode(tgt {tuple(tgt.shape)}, memory, src_mask) in training mode (dropout={p}): {zeros} of "
            f"{logits.numel()} are exactly 0",
            f"logits de decode(tgt {tuple(tgt.shape)}, memory, src_mask) en modo entrenamiento (dropout={p}): "
            f"{zeros} de {logits.numel()} son exactamente 0",
        ).naming(checks.Mistake(
            "dropout is applied to the logits: the generator's output goes out as it is (dropout acts on the "
            "embeddings and on each sub-layer's output)",
            "se aplica dropout a los logits: la salida del generador sale tal cual (el dropout actúa sobre los "
            "embeddings y sobre la salida de cada subcapa)"))


def check_layer_outputs_not_dropped(student, rng, decoder):
    """In training mode dropout acts once on the embeddings and inside each layer (on its
    sub-layers' outputs), never again on what a layer or the stack returns. With every
    sub-layer's output projection zero the layers add nothing, so the output must be the
    reference's norms (and generator) applied to the embeddings through one inverted-dropout
    mask; d_model = 8 lets every mask of a row be tried."""
    p = 0.5
    # Post-norm, as in the other graders of this file, so that a pre-norm-only mistake costs
    # the same points at every seed.
    config = {**_config(rng, d_model=8, num_heads=2), "norm_first": False}
    model = _reference_model(rng, config)
    layers = model.decoder_layers if decoder else model.encoder_layers
    with torch.no_grad():
        for layer in layers:
            for linear in (layer.self_attn.w_o, layer.ff.linear2) + ((layer.cross_attn.w_o,) if decoder else ()):
                linear.weight.zero_()
                linear.bias.zero_()
    # 256 values in each output: dropout once drops about half of them (50 % +- 3 %), dropout
    # once more after a layer or after the stack three quarters or more.
    src = _tokens(rng, config, config["src_vocab_size"], 4, 8)
    tgt = _tokens(rng, config, config["tgt_vocab_size"], 4, 8)
    memory, src_mask = model.encode(src)
    call = (["out", "$model.decode", [tgt, memory.detach(), src_mask], {}] if decoder
            else ["out", "$model.encode", [src], {}])
    got = student.script([
        ["trainable", "$model.train", [], {}],
        ["seeded", "torch.manual_seed", [checks.randint(rng, 0, 10**6)], {}],
        call,
    ], model_spec={"target": MODEL, "config": [CONFIG, {**config, "dropout": p}], "state": _state(model),
                   "dtype": "float64"}, returns=["out"])
    name = "decode(tgt, memory, src_mask)" if decoder else "encode(src)"
    out = got["out"] if decoder else checks.pair(got["out"], "encode(src)")[0]
    masks = checks.every_mask(8)
    with torch.no_grad():
        tokens = tgt if decoder else src
        v = embed(model, model.tgt_embed if decoder else model.src_embed, tokens, None)  # (B, L, 8), no dropout
        stream = masks * v[:, :, None, :] / (1 - p)  # (B, L, 256, 8)
        for layer in layers:  # post-norm: each layer ends with its LayerNorms
            for norm in (layer.norm1, layer.norm2) + ((layer.norm3,) if decoder else ()):
                stream = norm(stream)
        stream = (model.decoder_norm if decoder else model.encoder_norm)(stream)
        candidates = model.generator(stream) if decoder else stream
    out = checks.tensor(out, f"{name} in training mode", shape=candidates[:, :, 0].shape)
    error, kept = checks.best_masks(candidates, out, masks)  # (B, L), (B, L, 8)
    if bool((error <= 1e-6).all()) and 0.35 < 1 - kept.mean().item() < 0.65:
        return
    raise checks.CheckFailure(
        f"{name} of a post-norm model in training mode (dropout={p}) whose layers add nothing (every sub-layer's output "
        f"projection is zero): the output is not that of the embeddings through one dropout mask (best fit: "
        f"{1 - kept.mean().item():.0%} of the values dropped, where one dropout drops about {p:.0%})",
        f"{name} de un modelo post-norm en modo entrenamiento (dropout={p}) cuyas capas no suman nada (la proyección de "
        "salida de cada subcapa es cero): la salida no es la de los embeddings tras una máscara de dropout (el mejor "
        f"ajuste anula el {1 - kept.mean().item():.0%} de los valores, donde un dropout anula cerca del {p:.0%})",
    ).naming(EXTRA_DROPOUT)


EXTRA_DROPOUT = checks.Mistake(
    "dropout acts where the model has none: only embed's self.dropout and each sub-layer's own dropout act in "
    "training mode, never one on a layer's output or on the stack's",
    "el dropout actúa donde el modelo no tiene: solo actúan en entrenamiento el self.dropout de embed y el de cada "
    "subcapa, nunca uno sobre la salida de una capa o de la pila")
