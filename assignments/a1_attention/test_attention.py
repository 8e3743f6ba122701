"""Public tests for attention.py. Run them with ``pytest assignments/a1_attention``."""

import math

import torch

from attention import masked_self_attention, scaled_dot_product_attention


def _r(t):
    """A tensor as a (nested) list rounded to 4 decimals, for the failure messages."""
    return t.detach().double().round(decimals=4).tolist()


def _near(t, value, atol=1e-3):
    """Are all entries of ``t`` within ``atol`` of ``value`` (a number or a tensor)? NaN is never near."""
    return bool(((t.detach().double() - torch.as_tensor(value).double()).abs() <= atol).all())


def _say(en, es, hint=None):
    """One-line failure message: English / Spanish, each followed by its half of ``hint`` (en, es)."""
    if hint:
        en, es = f"{en}; {hint[0]}", f"{es}; {hint[1]}"
    return f"{en} / {es}"


# The ways of masking that the lectures show and the course does not use, (en, es) each.
MHA_CONVENTION = (
    "reading True as blocked is nn.MultiheadAttention's convention (its attn_mask and key_padding_mask: True = not "
    "allowed), the opposite of the course's, where True = may attend",
    "leer True como bloqueado es la convención de nn.MultiheadAttention (sus attn_mask y key_padding_mask: True = no "
    "permitido), la contraria a la del curso, donde True = puede atender",
)
MASK_ADDED = (
    "the mask is added to the scores, as the lecture notebook 002 does with its additive float masks (0 = attend, "
    "-inf = blocked); unlike the lecture notebook 002, the course's masks are boolean, True = may attend, so adding "
    "one adds 1 to the visible scores and hides nothing: fill the scores with -inf where the mask is False "
    "(scores.masked_fill(~mask, float('-inf')))",
    "la máscara se suma a las puntuaciones, como hace el cuaderno de clase 002 con sus máscaras float aditivas "
    "(0 = atiende, -inf = bloqueado); a diferencia del cuaderno de clase 002, las máscaras del curso son booleanas, "
    "True = puede atender, así que sumar una suma 1 a las puntuaciones visibles y no oculta nada: pon -inf en las "
    "puntuaciones donde la máscara es False (scores.masked_fill(~mask, float('-inf')))",
)
MASK_MULTIPLIED = (
    "the scores are multiplied by the mask, which sets the masked ones to 0 as the text of the lecture notebook 004 "
    "says; but a score of 0 still gets weight (exp(0) = 1), and that lecture's own z1-z4 table needs -inf before the "
    "softmax: fill the masked scores with -inf (scores.masked_fill(~mask, float('-inf')))",
    "las puntuaciones se multiplican por la máscara, lo que pone las enmascaradas a 0 como dice el texto del "
    "cuaderno de clase 004; pero una puntuación 0 sigue recibiendo peso (exp(0) = 1), y la propia tabla z1-z4 de esa "
    "clase necesita -inf antes del softmax: pon -inf en las puntuaciones enmascaradas "
    "(scores.masked_fill(~mask, float('-inf')))",
)


def _lecture_way(got, scores, mask, rows=slice(None)):
    """MASK_ADDED or MASK_MULTIPLIED when ``got`` (weights, or Z when ``scores`` carry V as
    ``(scores, V)``) is what that way of masking gives on its ``rows``, else None."""
    scores, v = scores if isinstance(scores, tuple) else (scores, None)
    for way, hint in ((scores + mask.float(), MASK_ADDED), (scores * mask.float(), MASK_MULTIPLIED)):
        want = torch.softmax(way, dim=-1)
        want = want if v is None else want @ v
        if got.shape == want.shape and _near(got[rows], want[rows], atol=5e-5):
            return hint
    return None


def _dtype_message(weights):
    return _say(
        f"weights must keep the dtype of q and k (torch.float32), got {weights.dtype}",
        f"los pesos deben conservar el dtype de q y k (torch.float32), pero son {weights.dtype}",
    )


def _weights_shape_message(weights, expected, d_v):
    """Shape message for the attention weights; spots the output returned in their place."""
    hint = None
    if tuple(weights.shape) == expected[:-1] + (d_v,):
        hint = (
            "that is the shape of the output (..., T_q, d_v): return (output, weights) in this order",
            "esa es la forma de la salida (..., T_q, d_v): devuelve (output, weights) en este orden",
        )
    return _say(
        f"weights must have shape (..., T_q, T_k) = {expected}, one row per query and one column per key, got "
        f"{tuple(weights.shape)}",
        f"los pesos deben tener forma (..., T_q, T_k) = {expected}, una fila por consulta y una columna por clave, "
        f"pero tienen {tuple(weights.shape)}",
        hint,
    )


def _table_hint(Z, Q, K, V):
    """(en, es): which part of masked self-attention the wrong rows of the course table point at."""
    z1, v1 = Z[0].detach(), V[0]
    if torch.isnan(Z).all():
        return (
            "every row of Z is NaN: a NaN appears before the softmax, e.g. from 0 · (-inf) when the mask is "
            "multiplied by -inf; put -inf only in the masked scores (masked_fill)",
            "todas las filas de Z son NaN: aparece un NaN antes del softmax, por ejemplo de 0 · (-inf) al "
            "multiplicar la máscara por -inf; pon -inf solo en las puntuaciones enmascaradas (masked_fill)",
        )
    T = len(Q)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    scores = Q @ K.T / Q.size(-1) ** 0.5
    found = _lecture_way(Z.detach(), (scores, V), causal)
    if found:
        return found
    # Every row but the last (which then sees no key) of attention with the causal mask read inside out.
    inverted = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)[:-1] @ V
    if T > 1 and _near(Z[:-1], inverted, atol=5e-5):
        return (
            f"z1 = {_r(z1)} mixes every key but key 1: the causal mask is used inside out, query i sees only the keys "
            f"after it; {MHA_CONVENTION[0]} (and .bool() of the lecture notebook 002's additive 0 / -inf mask gives "
            "such a mask too)",
            f"z1 = {_r(z1)} mezcla todas las claves menos la 1: la máscara causal se usa al revés, la consulta i solo "
            f"ve las claves posteriores; {MHA_CONVENTION[1]} (y .bool() de la máscara aditiva 0 / -inf del cuaderno "
            "de clase 002 también da una máscara así)",
        )
    if _near(z1, v1, atol=5e-5):
        return (
            "z1 is right (query 1 sees only key 1) but later rows are off: check the scaling of the scores by "
            "1/sqrt(d_k), with d_k = 3 the size of the last dim of Q and K, not the sequence length, and that each "
            "row of weights sums to 1 (see test_scores_are_scaled_by_sqrt_d_k and test_weights_rows_sum_to_one)",
            "z1 está bien (la consulta 1 solo ve la clave 1), pero fallan las filas siguientes: revisa el escalado "
            "de las puntuaciones por 1/sqrt(d_k), con d_k = 3 el tamaño de la última dimensión de Q y K, no la "
            "longitud de la secuencia, y que cada fila de pesos sume 1 (mira test_scores_are_scaled_by_sqrt_d_k "
            "y test_weights_rows_sum_to_one)",
        )
    if _near(z1, K[0], atol=5e-5):
        return (
            f"z1 = {_r(z1)} is k1, the first key: the output must mix the values V, not the keys K",
            f"z1 = {_r(z1)} es k1, la primera clave: la salida debe mezclar los valores V, no las claves K",
        )
    if (torch.isnan(z1).any() or _near(z1, 0.0, atol=1e-6)) and _near(Z[1], v1, atol=5e-5):
        return (
            f"z1 = {_r(z1)} and z2 = v1: every query sees only the keys before it, not itself, so query 1 has no "
            "key at all; the diagonal of the causal mask must be True (position i sees 0..i, itself included)",
            f"z1 = {_r(z1)} y z2 = v1: cada consulta ve solo las claves anteriores, no la suya, así que la "
            "consulta 1 no tiene ninguna clave; la diagonal de la máscara causal debe ser True (la posición i ve "
            "0..i, ella incluida)",
        )
    if _near(z1[1:], 0.0, atol=1e-6) and _near(z1[0], 1 / len(V), atol=1e-4):
        return (
            f"z1 = {_r(z1)}: query 1 spread its weight over all {len(V)} keys and the masked ones were removed "
            "after the softmax; apply the mask to the scores (-inf) before the softmax, so the weights of the "
            "visible keys still sum to 1",
            f"z1 = {_r(z1)}: la consulta 1 repartió su peso entre las {len(V)} claves y las enmascaradas se "
            "quitaron después del softmax; aplica la máscara a las puntuaciones (-inf) antes del softmax, para que "
            "los pesos de las claves visibles sigan sumando 1",
        )
    if _near(z1[1:], 0.0, atol=1e-6) and z1[0].abs().item() > 1e-6:
        return (
            f"z1 = {_r(z1)} is v1 times {z1[0].item():.4f} instead of exactly v1: the weights of query 1 do not "
            "sum to 1 over the keys; take the softmax over the keys (dim=-1), not over the queries, and apply the "
            "mask to the scores before it",
            f"z1 = {_r(z1)} es v1 por {z1[0].item():.4f} en lugar de exactamente v1: los pesos de la consulta 1 "
            "no suman 1 sobre las claves; haz el softmax sobre las claves (dim=-1), no sobre las consultas, y "
            "aplica la máscara a las puntuaciones antes de él",
        )
    if not torch.isnan(z1).any() and not _near(z1[1:], 0.0, atol=1e-6):
        return (
            f"z1 must be exactly v1 = {_r(v1)} (query 1 may only see key 1) but is {_r(z1)}, which mixes in the "
            "values of later keys: check the causal mask (lower triangle, True = may attend) and that masked "
            "scores are set to -inf before the softmax (a score of 0 still gets weight)",
            f"z1 debe ser exactamente v1 = {_r(v1)} (la consulta 1 solo puede ver la clave 1), pero es {_r(z1)}, "
            "que mezcla valores de claves posteriores: revisa la máscara causal (triángulo inferior, True = puede "
            "atender) y que las puntuaciones enmascaradas valgan -inf antes del softmax (un 0 sigue recibiendo "
            "peso)",
        )
    return (
        f"z1 must be exactly v1 = {_r(v1)} (query 1 may only see key 1), got {_r(z1)}: check the causal mask, the "
        "softmax over the keys (dim=-1) and that the output is the weights times V",
        f"z1 debe ser exactamente v1 = {_r(v1)} (la consulta 1 solo puede ver la clave 1), pero es {_r(z1)}: "
        "revisa la máscara causal, el softmax sobre las claves (dim=-1) y que la salida sea los pesos por V",
    )


def test_masked_self_attention_reproduces_course_table(course_data):
    """Do the rows of masked_self_attention(Q, K, V) match z1..z4 from the lecture?"""
    data = course_data("a1_attention/masked_self_attention.json")
    Q, K, V = (torch.tensor(data[name]) for name in "QKV")
    Z = masked_self_attention(Q, K, V)
    expected = torch.tensor(data["Z"])
    assert isinstance(Z, torch.Tensor), _say(
        f"masked_self_attention must return one tensor Z, got a {type(Z).__name__}; scaled_dot_product_attention "
        "returns (output, weights): return only the output",
        f"masked_self_attention debe devolver un único tensor Z, pero devuelve un {type(Z).__name__}; "
        "scaled_dot_product_attention devuelve (output, weights): devuelve solo la salida",
    )
    hint = None
    if Z.shape == (len(Q), len(K)):
        hint = (
            "that is the shape of the attention weights (T, T): return the output, the first of (output, weights)",
            "esa es la forma de los pesos de atención (T, T): devuelve la salida, la primera de (output, weights)",
        )
    assert Z.shape == expected.shape, _say(
        f"Z must have shape (T, d_v) = {tuple(expected.shape)}, one row per query, got {tuple(Z.shape)}",
        f"Z debe tener forma (T, d_v) = {tuple(expected.shape)}, una fila por consulta, pero tiene {tuple(Z.shape)}",
        hint,
    )
    assert Z.dtype == expected.dtype, _say(
        f"Z must keep the dtype of Q, K and V ({expected.dtype}), got {Z.dtype}; do not convert it",
        f"Z debe conservar el dtype de Q, K y V ({expected.dtype}), pero es {Z.dtype}; no lo conviertas",
    )
    torch.testing.assert_close(
        Z, expected, atol=0.5 * 10 ** -data["decimals"], rtol=0,
        msg=lambda default: _say(
            f"Z must be the lecture's table {_r(expected)}, got {_r(Z)}",
            f"Z debe ser la tabla vista en clase {_r(expected)}, pero es {_r(Z)}",
            _table_hint(Z, Q, K, V),
        ) + "\n" + default,
    )


def test_masked_self_attention_works_for_any_length():
    """For 1, 3 and 6 positions (not only the lecture's 4), is row i of masked_self_attention
    the softmax-weighted mean of the values 0..i?"""
    torch.manual_seed(3)
    for T in (1, 3, 6):
        Q, K, V = torch.randn(T, 5), torch.randn(T, 5), torch.randn(T, 2)
        Z = masked_self_attention(Q, K, V)
        rows = [torch.softmax(K[: i + 1] @ Q[i] / 5 ** 0.5, dim=0) @ V[: i + 1] for i in range(T)]
        expected = torch.stack(rows)
        assert isinstance(Z, torch.Tensor) and Z.shape == (T, 2), _say(
            f"for T = {T} positions masked_self_attention must return Z of shape ({T}, 2), got "
            f"{tuple(Z.shape) if isinstance(Z, torch.Tensor) else type(Z).__name__}: build the mask from the "
            "length of Q (causal_mask(Q.size(0))), not from a fixed 4",
            f"para T = {T} posiciones masked_self_attention debe devolver Z de forma ({T}, 2), pero devuelve "
            f"{tuple(Z.shape) if isinstance(Z, torch.Tensor) else type(Z).__name__}: construye la máscara a partir "
            "de la longitud de Q (causal_mask(Q.size(0))), no de un 4 fijo",
        )
        torch.testing.assert_close(Z, expected, atol=1e-5, rtol=1e-4, msg=lambda default: _say(
            f"for T = {T} positions row i of Z must be softmax(K[:i+1] q_i / sqrt(d_k)) V[:i+1]; the lecture's "
            "table has T = 4: is the mask or something else sized for 4 rows only?",
            f"para T = {T} posiciones la fila i de Z debe ser softmax(K[:i+1] q_i / sqrt(d_k)) V[:i+1]; la tabla de "
            "clase tiene T = 4: ¿la máscara u otra cosa está pensada solo para 4 filas?",
        ) + "\n" + default)


def test_output_and_weight_shapes():
    """Are the shapes (..., T_q, d_v) for the output and (..., T_q, T_k) for the weights?"""
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)
    output, weights = scaled_dot_product_attention(q, k, v)
    hint = None
    if output.shape == (2, 3, 5, 7):
        hint = (
            "that is the shape of the weights (..., T_q, T_k): return (output, weights) in this order",
            "esa es la forma de los pesos (..., T_q, T_k): devuelve (output, weights) en este orden",
        )
    elif output.shape[-1:] == (8,):
        hint = (
            "its last dim is d_k = 8, not d_v = 4: the output mixes the values v, not the keys",
            "su última dimensión es d_k = 8, no d_v = 4: la salida mezcla los valores v, no las claves",
        )
    assert output.shape == (2, 3, 5, 4), _say(
        "output must have shape (..., T_q, d_v) = (2, 3, 5, 4) for q (2, 3, 5, 8), k (2, 3, 7, 8) and "
        f"v (2, 3, 7, 4), got {tuple(output.shape)}",
        "la salida debe tener forma (..., T_q, d_v) = (2, 3, 5, 4) para q (2, 3, 5, 8), k (2, 3, 7, 8) y "
        f"v (2, 3, 7, 4), pero tiene {tuple(output.shape)}",
        hint,
    )
    assert weights.shape == (2, 3, 5, 7), _weights_shape_message(weights, (2, 3, 5, 7), d_v=4)


def test_weights_rows_sum_to_one():
    """Does every row of the attention weights sum to 1?"""
    torch.manual_seed(1)
    q, k, v = torch.randn(4, 6, 16), torch.randn(4, 6, 16), torch.randn(4, 6, 16)
    _, weights = scaled_dot_product_attention(q, k, v)
    assert weights.shape == (4, 6, 6), _weights_shape_message(weights, (4, 6, 6), d_v=16)
    assert weights.dtype == torch.float32, _dtype_message(weights)

    def message(default):
        if _near(weights.sum(-2), 1.0, atol=1e-4):
            hint = (
                "the columns sum to 1 instead: the softmax is taken over the queries; use dim=-1, the keys",
                "en cambio, las columnas suman 1: el softmax se hace sobre las consultas; usa dim=-1, las claves",
            )
        else:
            hint = (
                "check that the softmax is taken over the keys (dim=-1) and that the weights are not changed after it",
                "comprueba que el softmax se hace sobre las claves (dim=-1) y que los pesos no se modifican después",
            )
        sums = _r(weights[0].sum(-1))
        return _say(
            f"each row of the weights (one query, over its 6 keys) must sum to 1; row sums of weights[0]: {sums}",
            f"cada fila de los pesos (una consulta, sobre sus 6 claves) debe sumar 1; sumas por fila de "
            f"weights[0]: {sums}",
            hint,
        ) + "\n" + default

    torch.testing.assert_close(weights.sum(-1), torch.ones(4, 6), msg=message)


def test_scores_are_scaled_by_sqrt_d_k():
    """Is the softmax taken over q·k / sqrt(d_k), as in the paper?"""
    q = torch.tensor([[1.0, 1.0, 1.0, 1.0]])
    k = torch.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    v = torch.eye(2)
    _, weights = scaled_dot_product_attention(q, k, v)
    expected = torch.softmax(torch.tensor([4.0 / math.sqrt(4), 0.0]), dim=-1)
    assert weights.shape == (1, 2), _say(
        f"weights must have shape (T_q, T_k) = (1, 2) for 1 query and 2 keys, got {tuple(weights.shape)}",
        f"los pesos deben tener forma (T_q, T_k) = (1, 2) para 1 consulta y 2 claves, pero tienen "
        f"{tuple(weights.shape)}",
    )
    assert weights.dtype == torch.float32, _dtype_message(weights)
    # Loose on purpose: whatever passes the exact check below passes this one too.
    row_sum = weights[0].sum().item()
    if _near(weights[0], 1.0, atol=1e-4):
        hint = (
            "all weights are 1: the softmax was taken over the queries (dim=-2, of size 1 here); use dim=-1, "
            "the keys",
            "todos los pesos valen 1: el softmax se hizo sobre las consultas (dim=-2, de tamaño 1 aquí); usa "
            "dim=-1, las claves",
        )
    else:
        hint = (
            "check that the softmax is taken over the keys (dim=-1)",
            "comprueba que el softmax se hace sobre las claves (dim=-1)",
        )
    assert abs(row_sum - 1) <= 1e-4, _say(
        f"the weights of the query must sum to 1 over the 2 keys, got {_r(weights[0])} (sum {row_sum:.4f})",
        f"los pesos de la consulta deben sumar 1 sobre las 2 claves, pero son {_r(weights[0])} "
        f"(suma {row_sum:.4f})",
        hint,
    )

    def message(default):
        hint = None
        if _near(weights[0], torch.softmax(torch.tensor([4.0, 0.0]), dim=-1)):
            hint = (
                "those are the weights of softmax([4, 0]): the scores were not divided by sqrt(d_k) "
                "(or d_k was read from the wrong dim)",
                "esos son los pesos de softmax([4, 0]): las puntuaciones no se dividieron entre sqrt(d_k) "
                "(o d_k se leyó de la dimensión equivocada)",
            )
        elif _near(weights[0], torch.softmax(torch.tensor([1.0, 0.0]), dim=-1)):
            hint = (
                "those are the weights of softmax([1, 0]): the scores were divided by d_k instead of sqrt(d_k)",
                "esos son los pesos de softmax([1, 0]): las puntuaciones se dividieron entre d_k en vez de "
                "entre sqrt(d_k)",
            )
        return _say(
            f"q·k = [4, 0] and d_k = 4 (the last dim of q and k), so the softmax input is [4/√4, 0] = [2, 0] "
            f"and the weights must be {_r(expected)}, got {_r(weights[0])}",
            f"q·k = [4, 0] y d_k = 4 (la última dimensión de q y k), así que la entrada del softmax es "
            f"[4/√4, 0] = [2, 0] y los pesos deben ser {_r(expected)}, pero son {_r(weights[0])}",
            hint,
        ) + "\n" + default

    torch.testing.assert_close(weights[0], expected, msg=message)


def test_d_k_is_the_last_dim_also_with_a_batch():
    """With a batch (B, T, d_k), is d_k still the last dim of q and k, not the second?"""
    q = torch.ones(1, 3, 4)  # (B, T, d_k) = (1, 3, 4): the second dim, 3, is T
    k = torch.cat([torch.ones(1, 1, 4), torch.zeros(1, 2, 4)], dim=1)
    v = torch.eye(3)[None]
    _, weights = scaled_dot_product_attention(q, k, v)
    expected = torch.softmax(torch.tensor([4.0 / math.sqrt(4), 0.0, 0.0]), dim=-1).expand(1, 3, 3)
    hint = None
    if weights.shape == expected.shape and _near(weights[0, 0], torch.softmax(torch.tensor([4 / math.sqrt(3), 0, 0]),
                                                                             dim=-1)):
        hint = ("those weights divide by sqrt(3): d_k was read from q.size(1), which is T once there is a batch; "
                "use q.size(-1)",
                "esos pesos dividen entre sqrt(3): d_k se leyó de q.size(1), que es T en cuanto hay un lote; usa "
                "q.size(-1)")
    assert weights.shape == expected.shape and _near(weights, expected, atol=1e-5), _say(
        f"for q of shape (1, 3, 4), k = [ones, zeros, zeros], d_k = 4 (the last dim), so every row of the weights "
        f"must be softmax([4/√4, 0, 0]) = {_r(expected[0, 0])}, got {_r(weights[0])}",
        f"con q de forma (1, 3, 4) y k = [unos, ceros, ceros], d_k = 4 (la última dimensión), así que cada fila de "
        f"los pesos debe ser softmax([4/√4, 0, 0]) = {_r(expected[0, 0])}, pero es {_r(weights[0])}",
        hint,
    )


def test_inputs_are_left_unchanged():
    """Does attention leave q, k, v and the mask as it got them (no in-place change)?"""
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    mask = torch.tensor([True, True, True, False, False]).expand(2, 3, 5).clone()
    before = [t.clone() for t in (q, k, v, mask)]
    scaled_dot_product_attention(q, k, v, mask)
    for name, now, then in zip(("q", "k", "v", "mask"), (q, k, v, mask), before):
        assert torch.equal(now, then), _say(
            f"scaled_dot_product_attention changed its input {name} in place ({name} /= ..., {name}.div_(...), "
            f"masked_fill_ ...): compute new tensors instead; the caller still needs {name} as it was",
            f"scaled_dot_product_attention cambió su entrada {name} in situ ({name} /= ..., {name}.div_(...), "
            f"masked_fill_ ...): calcula tensores nuevos; quien llama aún necesita {name} tal como estaba",
        )


def test_masked_keys_get_zero_weight():
    """Does a key where the mask is False get exactly zero weight?"""
    torch.manual_seed(2)
    q, k, v = torch.randn(1, 3, 8), torch.randn(1, 4, 8), torch.randn(1, 4, 8)
    mask = torch.tensor([[True, True, False, False]])
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert weights.shape == (1, 3, 4), _weights_shape_message(weights, (1, 3, 4), d_v=8)
    assert weights.dtype == torch.float32, _dtype_message(weights)
    masked, visible = weights[..., 2:], weights[..., :2]
    if torch.isnan(weights).all():
        hint = (
            "every weight is NaN: a NaN appears before the softmax, e.g. from 0 · (-inf) when the mask is "
            "multiplied by -inf; put -inf only in the masked scores (masked_fill)",
            "todos los pesos son NaN: aparece un NaN antes del softmax, por ejemplo de 0 · (-inf) al multiplicar "
            "la máscara por -inf; pon -inf solo en las puntuaciones enmascaradas (masked_fill)",
        )
    elif torch.isnan(masked).all() and not torch.isnan(visible).any():
        hint = (
            "NaN exactly in the masked columns: a masked key is -inf for every query, so a softmax over the "
            "queries (dim=-2) gives NaN there; take the softmax over the keys (dim=-1)",
            "NaN justo en las columnas enmascaradas: una clave enmascarada vale -inf para todas las consultas, así "
            "que un softmax sobre las consultas (dim=-2) da NaN ahí; haz el softmax sobre las claves (dim=-1)",
        )
    elif torch.isnan(weights).any():
        hint = (
            "the weights contain NaN: check how the mask is applied before the softmax",
            "los pesos contienen NaN: revisa cómo aplicas la máscara antes del softmax",
        )
    elif _near(visible, 0.0, atol=1e-6):
        hint = (
            "the visible keys got zero weight instead: the mask is inverted; True means may attend, so hide the "
            f"keys where the mask is False; {MHA_CONVENTION[0]}",
            "en cambio, las claves visibles tienen peso cero: la máscara está invertida; True significa que puede "
            f"atender, así que oculta las claves donde la máscara es False; {MHA_CONVENTION[1]}",
        )
    elif _lecture_way(weights, q @ k.transpose(-2, -1) / 8 ** 0.5, mask):
        hint = _lecture_way(weights, q @ k.transpose(-2, -1) / 8 ** 0.5, mask)
    else:
        hint = (
            "set the scores of the masked keys to -inf before the softmax (a score of 0 still gets weight)",
            "pon a -inf las puntuaciones de las claves enmascaradas antes del softmax (una puntuación 0 sigue "
            "recibiendo peso)",
        )
    assert torch.all(masked == 0), _say(
        f"keys 3 and 4 are masked (mask False), so their weights must be exactly 0; got weights[0] = "
        f"{_r(weights[0])}",
        f"las claves 3 y 4 están enmascaradas (máscara False), así que su peso debe ser exactamente 0; "
        f"weights[0] = {_r(weights[0])}",
        hint,
    )

    def message(default):
        if (weights.sum(-1) < 1 - 1e-4).all():
            hint = (
                "the masked weights were removed after the softmax, so the rest no longer sums to 1: mask the "
                "scores before the softmax",
                "los pesos enmascarados se quitaron después del softmax, así que el resto ya no suma 1: enmascara "
                "las puntuaciones antes del softmax",
            )
        else:
            hint = (
                "check that the softmax is taken over the keys (dim=-1)",
                "comprueba que el softmax se hace sobre las claves (dim=-1)",
            )
        sums = _r(weights[0].sum(-1))
        return _say(
            f"each row must still sum to 1 over the visible keys 1 and 2; got row sums {sums}",
            f"cada fila debe seguir sumando 1 sobre las claves visibles 1 y 2; sumas por fila: {sums}",
            hint,
        ) + "\n" + default

    torch.testing.assert_close(weights.sum(-1), torch.ones(1, 3), msg=message)


def test_a_batch_padding_mask_hides_each_rows_own_keys():
    """With q (B, h, T, d) and a (B, 1, 1, S) padding mask, does each sequence hide its own padded keys?"""
    torch.manual_seed(3)
    q, k, v = torch.randn(2, 2, 3, 8), torch.randn(2, 2, 4, 8), torch.randn(2, 2, 4, 5)
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]]).view(2, 1, 1, 4)
    _, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    assert weights.shape == (2, 2, 3, 4), _weights_shape_message(weights, (2, 2, 3, 4), d_v=5)
    hidden = weights.masked_select(~mask.expand(2, 2, 3, 4))
    assert torch.equal(hidden, torch.zeros_like(hidden)) and torch.allclose(weights.sum(-1), torch.ones(2, 2, 3)), (
        "sequence 0 hides key 3 and sequence 1 keys 2 and 3 (mask of shape (2, 1, 1, 4)), so those weights must be "
        f"exactly 0 and every row must sum to 1; got the hidden weights {hidden.tolist()} and row sums "
        f"{weights.sum(-1).flatten().tolist()}. Use the mask as it is given: its singleton axes broadcast it over "
        "heads and queries, and squeezing them lines sequences up with queries / "
        "la secuencia 0 oculta la clave 3 y la secuencia 1 las claves 2 y 3 (máscara de forma (2, 1, 1, 4)), así que "
        f"esos pesos deben ser exactamente 0 y cada fila debe sumar 1; se obtuvieron los pesos ocultos "
        f"{hidden.tolist()} y las sumas {weights.sum(-1).flatten().tolist()}. Usa la máscara tal como llega: sus ejes "
        "unitarios la difunden sobre cabezas y consultas, y quitarlos alinea secuencias con consultas"
    )


def test_fully_masked_query_gives_zeros_not_nan():
    """Does a query with no key to attend to give zeros instead of NaN?"""
    q, k, v = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3, 4)
    mask = torch.tensor([[True, False, True], [False, False, False]])
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
    if torch.isnan(weights[0]).any():
        hint = (
            "query 1, which has keys to attend to, gets NaN: check how the mask is applied before the softmax "
            "(masked_fill with -inf where the mask is False)",
            "la consulta 1, que sí tiene claves que atender, da NaN: revisa cómo aplicas la máscara antes del "
            "softmax (masked_fill con -inf donde la máscara es False)",
        )
    else:
        hint = (
            "the softmax of a row that is -inf everywhere is NaN: rows with no key to attend to are not handled; "
            "their weights must come out as 0 (e.g. give such a row finite scores before the softmax, then zero "
            "its weights)",
            "el softmax de una fila que vale -inf en todas partes es NaN: no se tratan las filas sin ninguna "
            "clave; sus pesos deben quedar a 0 (por ejemplo, dale a esa fila puntuaciones finitas antes del "
            "softmax y luego pon sus pesos a 0)",
        )
    assert not torch.isnan(weights).any(), _say(
        f"the weights must contain no NaN (query 2 has every key masked: its row must be all 0); got weights = "
        f"{_r(weights)}",
        f"los pesos no deben contener NaN (la consulta 2 tiene todas las claves enmascaradas: su fila debe ser "
        f"todo ceros); weights = {_r(weights)}",
        hint,
    )
    assert not torch.isnan(output).any(), _say(
        f"the weights have no NaN but the output does: {_r(output)}; compute the output from the final weights, "
        "after the fully masked rows are set to 0",
        f"los pesos no tienen NaN pero la salida sí: {_r(output)}; calcula la salida a partir de los pesos "
        "finales, después de poner a 0 las filas totalmente enmascaradas",
    )
    if _near(weights[1], 1 / 3, atol=1e-4):
        hint = (
            "a uniform row (1/3 each) is what equal scores give, e.g. a large finite number instead of -inf or "
            "finite scores for the empty row: set the weights of a row with no key to 0 after the softmax (lecture "
            "notebook 003's -1e9 is right for every other row; unlike it, the course also defines this one)",
            "una fila uniforme (1/3 cada peso) es lo que dan puntuaciones iguales, por ejemplo un número finito "
            "grande en lugar de -inf o puntuaciones finitas en la fila vacía: pon a 0 los pesos de una fila sin "
            "claves después del softmax (el -1e9 del cuaderno de clase 003 sirve para las demás filas; a "
            "diferencia de él, el curso define también esta)",
        )
    else:
        hint = (
            "a query with no key to attend to must get zero weight everywhere",
            "una consulta sin claves que atender debe tener peso cero en todas partes",
        )
    assert torch.all(weights[1] == 0), _say(
        f"query 2 has every key masked, so its weights row must be [0, 0, 0], got {_r(weights[1])}",
        f"la consulta 2 tiene todas las claves enmascaradas, así que su fila de pesos debe ser [0, 0, 0], pero "
        f"es {_r(weights[1])}",
        hint,
    )
    assert torch.all(output[1] == 0), _say(
        f"query 2's weights are all 0, so its output row must be zeros too, got {_r(output[1])}: compute the "
        "output from the final weights (weights times v)",
        f"los pesos de la consulta 2 son todos 0, así que su fila de salida también debe ser ceros, pero es "
        f"{_r(output[1])}: calcula la salida a partir de los pesos finales (pesos por v)",
    )


def test_rows_of_very_different_scores_each_sum_to_one():
    """When one query's scores are near 0 and another's near -400, does each row still get weights summing to 1?"""
    q = torch.tensor([[[1.0], [-400.0]]])  # (1, 2, 1): scores [1, 2] and [-400, -800]
    k = torch.tensor([[[1.0], [2.0]]])
    v = torch.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    _, weights = scaled_dot_product_attention(q, k, v)
    want = torch.tensor([[[1 / (1 + math.e), math.e / (1 + math.e)], [1.0, 0.0]]])
    hint = ("a max subtracted over the whole tensor (or none) makes exp(-400 - 2) underflow to 0 and the second row "
            "0 / 0: torch.softmax(scores, dim=-1) subtracts each row's own max; a hand-written softmax must too "
            "(scores.max(dim=-1, keepdim=True))",
            "restar un máximo de todo el tensor (o ninguno) hace que exp(-400 - 2) se quede en 0 y la segunda fila "
            "sea 0 / 0: torch.softmax(scores, dim=-1) resta el máximo de cada fila; un softmax escrito a mano "
            "también debe hacerlo (scores.max(dim=-1, keepdim=True))")
    assert weights.shape == want.shape and _near(weights, want, atol=1e-4), _say(
        f"q = [1, -400] against k = [1, 2] (scores [1, 2] and [-400, -800]) gave weights {_r(weights)}, expected "
        f"{_r(want)}",
        f"q = [1, -400] frente a k = [1, 2] (puntuaciones [1, 2] y [-400, -800]) dio pesos {_r(weights)}, se "
        f"esperaba {_r(want)}", hint)


def test_float64_inputs_give_float64_output_and_weights():
    """Do float64 q, k and v give a float64 output and float64 weights (nothing made in float32
    on the way), also with a mask and a query whose keys are all masked?"""
    q, k, v = (torch.randn(2, 3, 4, dtype=torch.float64) for _ in range(3))
    mask = torch.tensor([[True, True, False], [True, False, False], [False, False, False]])
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert (output.dtype, weights.dtype) == (torch.float64, torch.float64), (
        f"float64 inputs gave output {output.dtype} and weights {weights.dtype}, expected float64 for both: a tensor "
        "made without dtype= (torch.zeros, torch.tensor) is float32; make it like the inputs (zeros_like, "
        f"dtype=q.dtype) / entradas float64 dieron salida {output.dtype} y pesos {weights.dtype}, se esperaba float64 "
        "en los dos: un tensor creado sin dtype= (torch.zeros, torch.tensor) es float32; créalo como las entradas "
        "(zeros_like, dtype=q.dtype)")


def test_gradients_reach_q_k_and_v():
    """Do the gradients w.r.t. q, k and v agree with finite differences, also with a query whose keys are all masked?"""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 3, 2, generator=g, dtype=torch.float64, requires_grad=True) for _ in range(3))
    mask = torch.tensor([[[True, False, True], [True, True, True], [False, False, False]]])

    def attend(q, k, v):
        return scaled_dot_product_attention(q, k, v, mask)[0]

    try:
        agree = torch.autograd.gradcheck(attend, (q, k, v), raise_exception=False)
    except NotImplementedError:  # a stub: say so, as every test does
        raise
    except RuntimeError as error:
        first = str(error).splitlines()[0][:160]
        raise AssertionError(_say(
            f"backward through scaled_dot_product_attention raised RuntimeError: {first}",
            f"el backward de scaled_dot_product_attention lanzó RuntimeError: {first}",
            ("an in-place change (masked_fill_, +=, [...] =) of a tensor that autograd needs, such as softmax's "
             "output: use the out-of-place form (masked_fill)",
             "un cambio in situ (masked_fill_, +=, [...] =) de un tensor que autograd necesita, como la salida del "
             "softmax: usa la forma que crea un tensor nuevo (masked_fill)"))) from None
    attend(q, k, v).sum().backward()
    zero = [name for name, t in zip("qkv", (q, k, v)) if t.grad is None or not bool(t.grad.abs().sum() > 0)]
    if zero:
        hint = (f"no gradient reaches {', '.join(zero)}: a .detach(), .data or torch.no_grad() cuts the graph",
                f"no llega gradiente a {', '.join(zero)}: un .detach(), .data o torch.no_grad() corta el grafo")
    else:
        hint = ("the gradients are not those of the output: every step from q, k, v to the output must be a torch "
                "operation on them (no NaN on the way, even in a fully masked row)",
                "los gradientes no son los de la salida: cada paso de q, k, v a la salida debe ser una operación de "
                "torch sobre ellos (sin NaN por el camino, ni en una fila sin claves)")
    assert agree, _say(
        "torch.autograd.gradcheck: the gradients of scaled_dot_product_attention (float64, 3 queries, the last "
        "with every key masked) do not match finite differences",
        "torch.autograd.gradcheck: los gradientes de scaled_dot_product_attention (float64, 3 consultas, la última "
        "con todas las claves enmascaradas) no coinciden con las diferencias finitas", hint)
