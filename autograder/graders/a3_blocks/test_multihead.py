"""Hidden graders for a3_blocks/multihead.py; the oracle is torch.nn.MultiheadAttention."""

import math

import pytest
import torch
from torch import nn

from autograder import reference
from autograder.graders.torch_parity import mha_state
from autograder.grading import checks, localise, shapes

MHA = "multihead.MultiHeadAttention"


def _torch_mha(rng, d_model, h):
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=rng)))
    mha = nn.MultiheadAttention(d_model, h, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_bias.normal_(0, 0.5)  # torch starts biases at 0: make them count
        mha.out_proj.bias.normal_(0, 0.5)
    return mha


def _sizes(rng):
    # At least 2 heads (and 2 queries below): with one, a wrong head split or merge is
    # invisible.
    h = checks.randint(rng, 2, 4)
    return h * 2 * checks.randint(rng, 1, 4), h


def variant(state, h, query, key, value, mask=None, kind=None):
    """(output, weights) of multi-head attention as the course defines it, or as the classic
    mistake ``kind`` computes it: the diagnostics that name a failed check."""
    def linear(name, x):
        return x @ state[f"{name}.weight"].T + state[f"{name}.bias"]

    B, T_q, d_model = query.shape
    T_k, d_k = key.size(1), d_model // h
    if kind == "key_value_swapped":
        key, value = value, key

    def split(t, T):
        if kind == "split_without_transpose":
            return t.reshape(B, h, T, d_k)
        return t.view(B, T, h, d_k).transpose(1, 2)

    q, k, v = split(linear("w_q", query), T_q), split(linear("w_k", key), T_k), split(linear("w_v", value), T_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_model if kind == "scaled_by_d_model" else d_k)
    if mask is not None and kind != "mask_ignored":
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    out = weights @ v
    out = out.reshape(B, T_q, d_model) if kind == "merged_without_transpose" else out.transpose(1, 2).reshape(B, T_q, d_model)
    return (out if kind == "no_output_projection" else linear("w_o", out)), weights


MISTAKES = {
    "key_value_swapped": (
        "key and value swapped: the keys come from w_k(key) and the values from w_v(value)",
        "clave y valor intercambiados: las claves salen de w_k(key) y los valores de w_v(value)"),
    "split_without_transpose": (
        "heads split without transpose: view each projection as (B, T, h, d_k) and then .transpose(1, 2); "
        "viewing it directly as (B, h, T, d_k) mixes positions and heads",
        "cabezas separadas sin transpose: ve cada proyección como (B, T, h, d_k) y luego .transpose(1, 2); "
        "verla directamente como (B, h, T, d_k) mezcla posiciones y cabezas"),
    "merged_without_transpose": (
        "heads merged without transposing back: (B, h, T_q, d_k) needs .transpose(1, 2) before .reshape(B, T_q, d_model)",
        "cabezas unidas sin deshacer la transposición: (B, h, T_q, d_k) necesita .transpose(1, 2) antes de "
        ".reshape(B, T_q, d_model)"),
    "no_output_projection": (
        "the output projection w_o is not applied to the merged heads",
        "no se aplica la proyección de salida w_o a las cabezas unidas"),
    "mask_ignored": (
        "the mask is not passed on to the attention, so masked keys still get weight",
        "la máscara no llega a la atención, así que las claves enmascaradas siguen recibiendo peso"),
    "scaled_by_d_model": (
        "scores scaled by sqrt(d_model) instead of sqrt(d_k) = sqrt(d_model / h)",
        "puntuaciones escaladas por sqrt(d_model) en vez de sqrt(d_k) = sqrt(d_model / h)"),
}


def mistakes(state, h, query, key, value, mask, part):
    """The classic mistakes, each as the ``part`` (0: output, 1: weights) it would return."""
    return [checks.Mistake(en, es, output=lambda kind=kind: variant(state, h, query, key, value, mask, kind)[part])
            for kind, (en, es) in MISTAKES.items()]


def _compare(student, rng, d_model, h, query, key, value, mask=None, what="output"):
    """Our mask: True = may attend; torch's boolean attn_mask: True = may NOT attend."""
    mha = _torch_mha(rng, d_model, h)
    B, T_q, T_k = query.size(0), query.size(1), key.size(1)
    attn_mask = None
    if mask is not None:
        attn_mask = (~mask).expand(B, h, T_q, T_k).reshape(B * h, T_q, T_k)
    want, want_w = mha(query, key, value, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    state = mha_state("", mha)
    report = student.module(
        MHA, d_model, h, state=state, dtype="float64",
        inputs=[query, key, value, mask], forward_kwargs={"need_weights": True},
    )
    out, weights = checks.pair(report.get("output"), "MultiHeadAttention(...)(query, key, value, mask, need_weights=True)")
    shape = f"d_model={d_model}, h={h}, query {tuple(query.shape)}, key {tuple(key.shape)}"

    def inside():  # which of w_q, w_k, w_v, w_o first gets another input than the reference's
        ref = reference.load("multihead").MultiHeadAttention(d_model, h).double()
        ref.load_state_dict(state)
        spec = {"target": MHA, "init_args": [d_model, h], "init_kwargs": {}, "state": state, "dtype": "float64"}
        found = localise.traced_difference(student, spec, ref, [query, key, value, mask],
                                           {"the query": query, "the key": key, "the value": value},
                                           atol=1e-9, rtol=1e-5, kwargs={"need_weights": True})[1]
        return found and (f"inside MultiHeadAttention, {found[0]}", f"dentro de MultiHeadAttention, {found[1]}")
    checks.close(out, want.detach(), f"{what} for {shape}", atol=1e-9,
                 mistakes=mistakes(state, h, query, key, value, mask, 0), localise=inside,
                 hints=shapes.Hints(tensors={"the query": query}))
    checks.close(weights, want_w.detach(), f"per-head weights (B, h, T_q, T_k) for {shape}", atol=1e-9,
                 mistakes=mistakes(state, h, query, key, value, mask, 1))


@pytest.mark.points(1)
def test_parameter_count(student):
    """Do MultiHeadAttention(256, 8) and (64, 1) have 4 x (d_model² + d_model) parameters (263,168 and 16,640)? / ¿Tienen MultiHeadAttention(256, 8) y (64, 1) 4 x (d_model² + d_model) parámetros (263.168 y 16.640)?"""
    checks.parameter_count(student.module(MHA, 256, 8), 263_168, "MultiHeadAttention(256, 8) (4 x (256 x 256 + 256))",
                           shapes=[(256, 256), (256,)] * 4)
    # One head still has its output projection w_o (the paper's W^O), not an identity.
    checks.parameter_count(student.module(MHA, 64, 1), 16_640, "MultiHeadAttention(64, 1) (4 x (64 x 64 + 64))",
                           shapes=[(64, 64), (64,)] * 4)


WEIGHTS_ALWAYS_RETURNED = checks.Mistake(
    "the weights are returned even when need_weights is False: return (self.w_o(out), weights if need_weights else "
    "None)",
    "los pesos se devuelven aunque need_weights sea False: devuelve (self.w_o(out), weights if need_weights else "
    "None)")


@pytest.mark.points(2)
def test_self_attention_matches_torch(student, rng):
    """Does self-attention match torch.nn.MultiheadAttention with the same weights? / ¿Coincide la autoatención con torch.nn.MultiheadAttention con los mismos pesos?"""
    d_model, h = _sizes(rng)
    B, T = checks.randint(rng, 1, 3), checks.randint(rng, 2, 8)
    x = checks.randn(rng, B, T, d_model)
    _compare(student, rng, d_model, h, x, x, x, what="self-attention output")
    report = student.module(MHA, d_model, h, state=mha_state("", _torch_mha(rng, d_model, h)), dtype="float64",
                            inputs=[x, x, x])
    _, weights = checks.pair(report.get("output"), "MultiHeadAttention(...)(x, x, x)")
    try:
        checks.expect(weights is None,
                      "MultiHeadAttention(...)(x, x, x) without need_weights=True must return (output, None)",
                      "MultiHeadAttention(...)(x, x, x) sin need_weights=True debe devolver (salida, None)")
    except checks.CheckFailure as failure:
        raise failure.naming(WEIGHTS_ALWAYS_RETURNED) from None
    checks.inputs_unchanged(student, MHA, [x.float(), x.float(), x.float()], f"MultiHeadAttention({d_model}, {h})(x, x, x)",
                            init_args=[d_model, h])


@pytest.mark.points(2)
def test_cross_attention_with_padding(student, rng):
    """Does cross-attention (T_q ≠ T_k, key ≠ value) with a padding mask match torch, with dropout on the weights in training mode only? / ¿Coincide la atención cruzada (T_q ≠ T_k, clave ≠ valor) con máscara de relleno, con dropout sobre los pesos solo en entrenamiento?"""
    d_model, h = _sizes(rng)
    B, T_q, T_k = checks.randint(rng, 2, 3), checks.randint(rng, 2, 6), checks.randint(rng, 7, 10)
    query = checks.randn(rng, B, T_q, d_model)
    # Keys and values differ, so taking one for the other cannot go unnoticed.
    key = checks.randn(rng, B, T_k, d_model)
    value = checks.randn(rng, B, T_k, d_model)
    mask = checks.right_padding(rng, B, T_k).view(B, 1, 1, T_k)
    mask[0, ..., -1] = False  # at least one key is padding, so an ignored mask shows
    _compare(student, rng, d_model, h, query, key, value, mask, what="cross-attention output")
    check_dropout_on_weights(student, rng)


@pytest.mark.points(1)
def test_causal_mask(student, rng):
    """Does a (T, T) causal mask give torch's result, head by head? / ¿Da una máscara causal (T, T) el resultado de torch, cabeza a cabeza?"""
    d_model, h = _sizes(rng)
    T = checks.randint(rng, 2, 8)
    x = checks.randn(rng, 2, T, d_model)
    _compare(student, rng, d_model, h, x, x, x, torch.ones(T, T).tril().bool(), what="masked self-attention output")


NO_DROPOUT = checks.Mistake(
    "dropout is never applied to the attention weights in training mode (is its result used?)",
    "el dropout nunca se aplica a los pesos de atención en modo entrenamiento (¿se usa su resultado?)")
DROPOUT_ELSEWHERE = checks.Mistake(
    "dropout acts on the heads' outputs (after weights @ V, or after w_o) instead of on the attention weights",
    "el dropout actúa sobre las salidas de las cabezas (tras pesos @ V, o tras w_o) en vez de sobre los pesos "
    "de atención")

ADDED_TO_PLAIN = checks.Mistake(
    "in training mode the output is the attention without dropout plus the attention with it (out += ... where "
    "out = ... belongs): the dropped weights replace the plain ones, out = self.dropout(weights) @ v",
    "en modo entrenamiento la salida es la atención sin dropout más la atención con él (out += ... donde va "
    "out = ...): los pesos con dropout sustituyen a los normales, out = self.dropout(pesos) @ v")


def check_dropout_on_weights(student, rng):
    """In training mode dropout acts on the attention weights, and not at all in eval mode."""
    h, B, T_q, T_k = checks.randint(rng, 2, 3), 2, checks.randint(rng, 4, 6), checks.randint(rng, 3, 5)
    p = 0.25  # not 0.5, where a rate given as the keep probability (1 - p) would look right
    d_k = T_k + 1
    d_model = h * d_k
    eye, zero = torch.eye(d_model, dtype=torch.float64), torch.zeros(d_model, dtype=torch.float64)
    state = {"w_v.weight": eye, "w_v.bias": zero, "w_o.weight": eye, "w_o.bias": zero}
    for name in ("w_q", "w_k"):
        state[f"{name}.weight"] = checks.randn(rng, d_model, d_model) / math.sqrt(d_model)
        state[f"{name}.bias"] = 0.5 * checks.randn(rng, d_model)
    query = checks.randn(rng, B, T_q, d_model)
    key = checks.randn(rng, B, T_k, d_model)
    # With identity projections, head j's value of key k is one-hot at k plus a 1 in the
    # last slot: its output shows the weights after dropout, and their sum.
    value = torch.zeros(B, T_k, h, d_k, dtype=torch.float64)
    value[:, torch.arange(T_k), :, torch.arange(T_k)] = 1.0
    value[..., T_k] = 1.0
    value = value.reshape(B, T_k, d_model)
    want, weights = variant(state, h, query, key, value)
    what = f"MultiHeadAttention({d_model}, {h}, dropout={p})(query, key, value)"

    def run(train):
        report = student.module(MHA, d_model, h, init_kwargs={"dropout": p}, state=state, dtype="float64",
                                inputs=[query, key, value], train=train, seed=checks.randint(rng, 0, 10**6))
        out, _ = checks.pair(report.get("output"), what)
        return checks.tensor(out, f"{what} output", shape=(B, T_q, d_model), dtype=torch.float64)

    heads = lambda out: out.view(B, T_q, h, d_k).transpose(1, 2)  # noqa: E731  (B, h, T_q, d_k)
    evaluated = run(False)
    try:
        checks.close(evaluated, want, f"{what} in eval mode", atol=1e-9,
                     mistakes=mistakes(state, h, query, key, value, None, 0))
    except checks.CheckFailure as failure:
        named = failure.named or not bool((heads(evaluated)[..., :T_k] == 0).any())
        raise (failure if named else failure.naming(checks.DROPOUT_IN_EVAL)) from None
    dropped = heads(run(True))
    mixed, total = dropped[..., :T_k], dropped[..., T_k]
    if not checks.inverted_dropout(mixed, weights, p, 1e-9):
        failure = checks.CheckFailure(
            f"{what} in training mode: each attention weight must be either dropped (0) or kept and scaled by "
            f"1/(1 - p) = {1 / (1 - p):g}, as nn.Dropout does on the weights (B, h, T_q, T_k)",
            f"{what} en modo entrenamiento: cada peso de atención debe quedar anulado (0) o conservado y "
            f"escalado por 1/(1 - p) = {checks.fmt(1 / (1 - p), 'g', 'es')}, como hace nn.Dropout sobre los pesos "
            "(B, h, T_q, T_k)")
        if torch.allclose(mixed, weights, atol=1e-9, rtol=0):
            raise failure.naming(NO_DROPOUT)
        rate = checks.wrong_dropout_rate(checks.dropout_rate(mixed, weights, 1e-9), p)
        if rate is None and checks.rescaled_per_row(mixed, weights, 1e-9):
            rate = checks.RESCALED_PER_ROW
        if rate is None and checks.inverted_dropout(mixed - weights, weights, p, 1e-9):
            rate = ADDED_TO_PLAIN
        raise failure.naming(rate) if rate else failure
    if not torch.allclose(total, mixed.sum(-1), atol=1e-9, rtol=0):
        raise checks.CheckFailure(
            f"{what} in training mode: the output is not (dropout(weights)) @ V",
            f"{what} en modo entrenamiento: la salida no es (dropout(pesos)) @ V").naming(DROPOUT_ELSEWHERE)


@pytest.mark.points(1)
def test_heads_are_independent(student, rng):
    """Does changing head j's slice of w_q change head j's weights only? / ¿Cambiar la porción de w_q de la cabeza j cambia solo los pesos de esa cabeza?"""
    h = checks.randint(rng, 2, 4)
    d_model, d_k = 4 * h, 4
    j = checks.randint(rng, 0, h - 1)
    mha = _torch_mha(rng, d_model, h)
    state = mha_state("", mha)
    x = checks.randn(rng, 1, 5, d_model)
    runs = []
    for bump in (0.0, 1.0):
        s = dict(state)
        s["w_q.weight"] = s["w_q.weight"].clone()
        s["w_q.weight"][j * d_k:(j + 1) * d_k] += bump * checks.randn(rng, d_k, d_model)
        report = student.module(MHA, d_model, h, state=s, dtype="float64", inputs=[x, x, x], forward_kwargs={"need_weights": True})
        _, weights = checks.pair(report.get("output"), "MultiHeadAttention(...)(x, x, x, need_weights=True)")
        runs.append(checks.tensor(weights, "weights", shape=(1, h, 5, 5)))
    others = [i for i in range(h) if i != j]
    try:
        checks.close(runs[1][:, others], runs[0][:, others], f"weights of the heads other than {j} after changing head {j}'s rows of w_q", atol=1e-12)
        checks.expect(
            not torch.allclose(runs[1][:, j], runs[0][:, j]),
            f"changing rows {j * d_k}:{(j + 1) * d_k} of w_q.weight should change head {j}'s weights",
            f"cambiar las filas {j * d_k}:{(j + 1) * d_k} de w_q.weight debería cambiar los pesos de la cabeza {j}",
        )
    except checks.CheckFailure as failure:
        # Which mistake mixes the heads shows in the weights of the first run.
        found = checks.recognise(runs[0], mistakes(state, h, x, x, x, None, 1),
                                 lambda a, m: torch.allclose(a, m, atol=1e-9, rtol=0))
        raise (failure.naming(found) if found else failure) from None


NO_DIVISIBILITY_CHECK = checks.Mistake(
    "__init__ does not check that num_heads divides d_model (raise ValueError when d_model % num_heads != 0)",
    "__init__ no comprueba que num_heads divida a d_model (lanza ValueError si d_model % num_heads != 0)")


ASSERT_NOT_RAISE = checks.Mistake(
    "an assert checks the sizes: asserts vanish under python -O and raise AssertionError; raise ValueError with a "
    "message that names d_model and num_heads instead",
    "un assert comprueba los tamaños: los assert desaparecen con python -O y lanzan AssertionError; lanza en su lugar "
    "ValueError con un mensaje que nombre d_model y num_heads")


UNNAMED_VALUES = checks.Mistake(
    "the ValueError is raised, but its message does not give the values that were passed: put them in it with an "
    "f-string, e.g. f\"d_model must be divisible by num_heads (got d_model={d_model}, num_heads={num_heads})\"",
    "se lanza el ValueError, pero su mensaje no da los valores recibidos: inclúyelos con una f-string, p. ej. "
    "f\"d_model must be divisible by num_heads (got d_model={d_model}, num_heads={num_heads})\"")


@pytest.mark.points(1)
def test_indivisible_sizes_raise_value_error(student, rng):
    """Does MultiHeadAttention(d_model, h) with h not dividing d_model raise a ValueError naming both? / ¿Lanza ValueError nombrando ambos si h no divide a d_model?"""
    h = checks.randint(rng, 3, 7)
    d_model = h * checks.randint(rng, 2, 6) + 1
    error = student.error_of(MHA, d_model, h)
    try:
        checks.expect(
            error is not None and error["type"] == "ValueError",
            f"MultiHeadAttention({d_model}, {h}) should raise ValueError, got {error['type'] if error else 'no error'}",
            f"MultiHeadAttention({d_model}, {h}) debería lanzar ValueError, se obtuvo {error['type'] if error else 'ningún error'}",
        )
    except checks.CheckFailure as failure:
        raise failure.naming(NO_DIVISIBILITY_CHECK if error is None or error["type"] != "AssertionError"
                             else ASSERT_NOT_RAISE) from None
    try:
        checks.expect(
            str(d_model) in error["message"] and str(h) in error["message"],
            f"the message should say what to fix and name d_model={d_model} and num_heads={h}: {error['shown']!r}",
            f"el mensaje debería decir qué corregir y nombrar d_model={d_model} y num_heads={h}: {error['shown']!r}",
        )
    except checks.CheckFailure as failure:
        raise failure.naming(UNNAMED_VALUES) from None

