"""Hidden graders for a1_attention/attention.py.

Expected values come from ``reference`` below, computed in float64 in the grading
process from the same inputs the student's code received.
"""

import math

import pytest
import torch

from autograder import checks

SDPA = "attention.scaled_dot_product_attention"


def reference(q, k, v, mask=None):
    """Attention in float64; a query with no visible key gets zero weights."""
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is None:
        weights = scores.softmax(-1)
    else:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(-1).nan_to_num(0.0)
    return (weights @ v.double()).to(q.dtype), weights.to(q.dtype)


def _qkv(rng, lead, T_q, T_k, d_k, d_v, dtype=torch.float32, scale=1.0):
    q = torch.randn(*lead, T_q, d_k, generator=rng, dtype=dtype) * scale
    k = torch.randn(*lead, T_k, d_k, generator=rng, dtype=dtype) * scale
    v = torch.randn(*lead, T_k, d_v, generator=rng, dtype=dtype)
    return q, k, v


def _random_sizes(rng):
    lead = tuple(checks.randint(rng, 1, 3) for _ in range(checks.randint(rng, 0, 2)))
    T_q, T_k = checks.randint(rng, 1, 9), checks.randint(rng, 2, 9)  # one key would make any softmax 1
    d_k = checks.randint(rng, 2, 16)
    d_v = d_k + checks.randint(rng, 1, 5)  # d_v != d_k catches scaling by the wrong size
    return lead, T_q, T_k, d_k, d_v


def _check_attention(student, q, k, v, mask=None, atol=1e-5):
    args = (q, k, v) if mask is None else (q, k, v, mask)
    output, weights = checks.pair(student.call(SDPA, *args), "scaled_dot_product_attention(...)")
    want_out, want_w = reference(q, k, v, mask)
    shape = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}" + (f", mask {tuple(mask.shape)}" if mask is not None else "")
    checks.close(weights, want_w, f"weights for {shape}", atol=atol, rtol=1e-4)
    checks.close(output, want_out, f"output for {shape}", atol=atol, rtol=1e-4)
    return output, weights


@pytest.mark.points(2)
def test_course_table(student, course_data, rng):
    """Does masked_self_attention reproduce the course's z1..z4 table, and causal attention on random inputs of its shape? / ¿Reproduce masked_self_attention la tabla z1..z4 del curso, y la atención causal con entradas aleatorias de su forma?"""
    data = course_data("a1_attention/masked_self_attention.json")
    Q, K, V = (torch.tensor(data[name]) for name in "QKV")
    Z = checks.tensor(student.call("attention.masked_self_attention", Q, K, V), "Z", shape=(4, 3))
    checks.close(Z, torch.tensor(data["Z"]), "Z (rows z1..z4)", atol=0.5 * 10 ** -data["decimals"], rtol=0)
    # The table is public, so its points count only with a twin on fresh inputs of the same
    # shape: a function that returns the table itself (or any fixed values) fails here.
    T, d = Q.shape
    Q, K, V = _qkv(rng, (), T, T, d, d)
    want, _ = reference(Q, K, V, torch.ones(T, T).tril().bool())
    Z = checks.tensor(student.call("attention.masked_self_attention", Q, K, V), f"Z for random {T}x{d} Q, K, V",
                      shape=(T, d))
    try:
        checks.close(Z, want, f"Z for random {T}x{d} Q, K, V", rtol=1e-4)
    except checks.CheckFailure as exc:
        raise checks.CheckFailure(
            "masked_self_attention reproduces the course table but not causal attention on other inputs "
            f"(hard-coded values?): {exc.en}",
            "masked_self_attention reproduce la tabla del curso pero no la atención causal con otras entradas "
            f"(¿valores escritos a mano?): {exc.es}",
        ) from None


@pytest.mark.points(1)
def test_masked_self_attention_random(student, rng):
    """Is masked_self_attention causal attention on random Q, K, V? / ¿Es masked_self_attention atención causal con Q, K, V aleatorias?"""
    T, d = checks.randint(rng, 2, 10), checks.randint(rng, 2, 8)
    Q, K, V = _qkv(rng, (), T, T, d, d)
    want, _ = reference(Q, K, V, torch.ones(T, T).tril().bool())
    checks.close(student.call("attention.masked_self_attention", Q, K, V), want, f"Z for T={T}, d={d}", rtol=1e-4)


@pytest.mark.points(2)
def test_random_shapes(student, rng):
    """Does attention match softmax(QKᵀ/√d_k)V for random shapes and leading dims? / ¿Coincide con softmax(QKᵀ/√d_k)V para formas aleatorias?"""
    for _ in range(3):
        _check_attention(student, *_qkv(rng, *_random_sizes(rng)))


@pytest.mark.points(1)
def test_float64_stays_float64(student, rng):
    """Does float64 input give float64 output and weights? / ¿Da float64 a la salida y los pesos si la entrada es float64?"""
    _check_attention(student, *_qkv(rng, (2,), 3, 5, 4, 6, dtype=torch.float64), atol=1e-10)


@pytest.mark.points(1)
def test_rows_sum_to_one_for_large_scores(student, rng):
    """Do weight rows sum to 1 without overflow when scores are large? / ¿Suman 1 las filas de pesos sin desbordarse con puntuaciones grandes?"""
    q, k, v = _qkv(rng, (2,), 6, 7, 8, 8, scale=30.0)
    _, weights = checks.pair(student.call(SDPA, q, k, v), "scaled_dot_product_attention(...)")
    weights = checks.tensor(weights, "weights", shape=(2, 6, 7), dtype=torch.float32)
    checks.close(weights.sum(-1), torch.ones(2, 6), "sum of each weights row", atol=1e-5)


@pytest.mark.points(2)
def test_padding_mask_gives_zero_weight(student, rng):
    """Does a (B, 1, 1, S) padding mask give masked keys exactly zero weight? / ¿Reciben peso exactamente cero las claves enmascaradas con una máscara (B, 1, 1, S)?"""
    B, h, T_q, S = checks.randint(rng, 2, 4), checks.randint(rng, 1, 4), checks.randint(rng, 1, 6), checks.randint(rng, 3, 9)
    q, k, v = _qkv(rng, (B, h), T_q, S, 8, 5)
    mask = checks.right_padding(rng, B, S).view(B, 1, 1, S)
    _, weights = _check_attention(student, q, k, v, mask)
    hidden = weights.masked_select(~mask.expand(B, h, T_q, S))
    checks.expect(
        bool((hidden == 0).all()),
        "masked keys must get exactly 0 weight (use -inf before the softmax)",
        "las claves enmascaradas deben recibir peso exactamente 0 (usa -inf antes del softmax)",
    )


@pytest.mark.points(1)
def test_square_mask_broadcasts(student, rng):
    """Does a (T_q, T_k) mask broadcast over batch and heads? / ¿Se difunde una máscara (T_q, T_k) sobre lote y cabezas?"""
    T = checks.randint(rng, 2, 8)
    q, k, v = _qkv(rng, (2, 3), T, T, 6, 6)
    mask = torch.rand(T, T, generator=rng) < 0.6
    mask[:, 0] = True  # every query sees at least one key
    _check_attention(student, q, k, v, mask)


@pytest.mark.points(1)
def test_fully_masked_query(student, rng):
    """Does a query with every key masked give zeros, not NaN, and leave other rows intact? / ¿Da ceros (no NaN) una consulta sin claves visibles, sin alterar las demás filas?"""
    q, k, v = _qkv(rng, (2,), 4, 5, 6, 3)
    mask = torch.rand(2, 4, 5, generator=rng) < 0.7
    mask[..., 0] = True
    row = checks.randint(rng, 0, 3)
    mask[1, row, :] = False
    _check_attention(student, q, k, v, mask)


@pytest.mark.points(1)
def test_gradients(student, rng):
    """Do gradients w.r.t. q, k and v match, also through a fully masked row? / ¿Coinciden los gradientes respecto a q, k y v, también con una fila sin claves?"""
    q, k, v = _qkv(rng, (2,), 4, 5, 6, 3, dtype=torch.float64)
    mask = torch.ones(2, 4, 5, dtype=torch.bool)
    mask[0, 1, :] = False
    mask[1, :, 3] = False
    grad_output = torch.randn(2, 4, 3, generator=rng, dtype=torch.float64)
    _, grads = student.grad(SDPA, q, k, v, mask, wrt=(0, 1, 2), output=0, grad_output=grad_output)
    qr, kr, vr = (t.clone().requires_grad_(True) for t in (q, k, v))
    scores = (qr @ kr.transpose(-2, -1) / math.sqrt(6)).masked_fill(~mask, float("-inf"))
    has_key = mask.any(-1, keepdim=True)
    weights = scores.masked_fill(~has_key, 0.0).softmax(-1).masked_fill(~has_key, 0.0)
    (weights @ vr).backward(grad_output)
    for name, got, want in zip("qkv", grads, (qr.grad, kr.grad, vr.grad)):
        checks.close(got, want, f"gradient w.r.t. {name}", atol=1e-8)
