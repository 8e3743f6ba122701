"""Hidden graders for a3_blocks/multihead.py; the oracle is torch.nn.MultiheadAttention."""

import pytest
import torch
from torch import nn

from autograder import checks
from autograder.graders.torch_parity import mha_state

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


def _compare(student, rng, d_model, h, query, key, value, mask=None, what="output"):
    """Our mask: True = may attend; torch's boolean attn_mask: True = may NOT attend."""
    mha = _torch_mha(rng, d_model, h)
    B, T_q, T_k = query.size(0), query.size(1), key.size(1)
    attn_mask = None
    if mask is not None:
        attn_mask = (~mask).expand(B, h, T_q, T_k).reshape(B * h, T_q, T_k)
    want, want_w = mha(query, key, value, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    report = student.module(
        MHA, d_model, h, state=mha_state("", mha), dtype="float64",
        inputs=[query, key, value, mask], forward_kwargs={"need_weights": True},
    )
    out, weights = checks.pair(report.get("output"), "MultiHeadAttention(...)(query, key, value, mask, need_weights=True)")
    shape = f"d_model={d_model}, h={h}, query {tuple(query.shape)}, key {tuple(key.shape)}"
    checks.close(out, want.detach(), f"{what} for {shape}", atol=1e-9)
    checks.close(weights, want_w.detach(), f"per-head weights (B, h, T_q, T_k) for {shape}", atol=1e-9)


@pytest.mark.points(1)
def test_parameter_count(student):
    """Does MultiHeadAttention(256, 8) have 263,168 parameters? / ¿Tiene MultiHeadAttention(256, 8) 263.168 parámetros?"""
    checks.parameter_count(student.module(MHA, 256, 8), 263_168, "MultiHeadAttention(256, 8) (4 x (256 x 256 + 256))")


@pytest.mark.points(2)
def test_self_attention_matches_torch(student, rng):
    """Does self-attention match torch.nn.MultiheadAttention with the same weights? / ¿Coincide la autoatención con torch.nn.MultiheadAttention con los mismos pesos?"""
    d_model, h = _sizes(rng)
    B, T = checks.randint(rng, 1, 3), checks.randint(rng, 2, 8)
    x = torch.randn(B, T, d_model, generator=rng, dtype=torch.float64)
    _compare(student, rng, d_model, h, x, x, x, what="self-attention output")


@pytest.mark.points(2)
def test_cross_attention_with_padding(student, rng):
    """Does cross-attention (T_q ≠ T_k) with a (B, 1, 1, T_k) padding mask match torch? / ¿Coincide la atención cruzada (T_q ≠ T_k) con máscara de relleno?"""
    d_model, h = _sizes(rng)
    B, T_q, T_k = checks.randint(rng, 2, 3), checks.randint(rng, 2, 6), checks.randint(rng, 7, 10)
    query = torch.randn(B, T_q, d_model, generator=rng, dtype=torch.float64)
    memory = torch.randn(B, T_k, d_model, generator=rng, dtype=torch.float64)
    mask = checks.right_padding(rng, B, T_k).view(B, 1, 1, T_k)
    _compare(student, rng, d_model, h, query, memory, memory, mask, what="cross-attention output")


@pytest.mark.points(1)
def test_causal_mask(student, rng):
    """Does a (T, T) causal mask give torch's result, head by head? / ¿Da una máscara causal (T, T) el resultado de torch, cabeza a cabeza?"""
    d_model, h = _sizes(rng)
    T = checks.randint(rng, 2, 8)
    x = torch.randn(2, T, d_model, generator=rng, dtype=torch.float64)
    _compare(student, rng, d_model, h, x, x, x, torch.ones(T, T).tril().bool(), what="masked self-attention output")


@pytest.mark.points(1)
def test_heads_are_independent(student, rng):
    """Does changing head j's slice of w_q change head j's weights only? / ¿Cambiar la porción de w_q de la cabeza j cambia solo los pesos de esa cabeza?"""
    h = checks.randint(rng, 2, 4)
    d_model, d_k = 4 * h, 4
    j = checks.randint(rng, 0, h - 1)
    mha = _torch_mha(rng, d_model, h)
    state = mha_state("", mha)
    x = torch.randn(1, 5, d_model, generator=rng, dtype=torch.float64)
    runs = []
    for bump in (0.0, 1.0):
        s = dict(state)
        s["w_q.weight"] = s["w_q.weight"].clone()
        s["w_q.weight"][j * d_k:(j + 1) * d_k] += bump * torch.randn(d_k, d_model, generator=rng, dtype=torch.float64)
        report = student.module(MHA, d_model, h, state=s, dtype="float64", inputs=[x, x, x], forward_kwargs={"need_weights": True})
        _, weights = checks.pair(report.get("output"), "MultiHeadAttention(...)(x, x, x, need_weights=True)")
        runs.append(checks.tensor(weights, "weights", shape=(1, h, 5, 5)))
    others = [i for i in range(h) if i != j]
    checks.close(runs[1][:, others], runs[0][:, others], f"weights of the heads other than {j} after changing head {j}'s rows of w_q", atol=1e-12)
    checks.expect(
        not torch.allclose(runs[1][:, j], runs[0][:, j]),
        f"changing rows {j * d_k}:{(j + 1) * d_k} of w_q.weight should change head {j}'s weights",
        f"cambiar las filas {j * d_k}:{(j + 1) * d_k} de w_q.weight debería cambiar los pesos de la cabeza {j}",
    )


@pytest.mark.points(1)
def test_indivisible_sizes_raise_value_error(student, rng):
    """Does MultiHeadAttention(d_model, h) with h not dividing d_model raise a ValueError naming both? / ¿Lanza ValueError nombrando ambos si h no divide a d_model?"""
    h = checks.randint(rng, 3, 7)
    d_model = h * checks.randint(rng, 2, 6) + 1
    error = student.error_of(MHA, d_model, h)
    checks.expect(
        error is not None and error["type"] == "ValueError",
        f"MultiHeadAttention({d_model}, {h}) should raise ValueError, got {error['type'] if error else 'no error'}",
        f"MultiHeadAttention({d_model}, {h}) debería lanzar ValueError, se obtuvo {error['type'] if error else 'ningún error'}",
    )
    checks.expect(
        str(d_model) in error["message"] and str(h) in error["message"],
        f"the message should say what to fix and name d_model={d_model} and num_heads={h}: {error['shown']!r}",
        f"el mensaje debería decir qué corregir y nombrar d_model={d_model} y num_heads={h}: {error['shown']!r}",
    )
