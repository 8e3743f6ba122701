"""Hidden graders for a1_attention/attention.py.

Expected values come from ``reference`` below, computed in float64 in the grading
process from the same inputs the student's code received. A failed check compares the
student's values with those of the classic mistakes (``_attend`` with a ``mistake``) and
names the one they match. Draws always hold what shows each mistake: batched inputs,
d_v != d_k, a hidden key in a row that still sees others, a query with no key at all.

Over 350 lines: the graders of one function and the table of its classic mistakes, which
every grader here reads.
"""

import itertools
import math
import warnings

import pytest
import torch

from autograder.grading import checks, shapes

SDPA = "attention.scaled_dot_product_attention"


def _attend(q, k, v, mask=None, mistake=None):
    """Attention in float64, or with one classic ``mistake`` (a key of MISTAKES); a query
    with no visible key gets zero weights."""
    q, k, v = q.double(), k.double(), v.double()
    scales = {"no scale": 1.0, "sqrt d_v": math.sqrt(v.size(-1)), "d_k": q.size(-1), "fourth root": q.size(-1) ** 0.25}
    if mistake == "sqrt len" and math.sqrt(len(q)) in (*scales.values(), math.sqrt(q.size(-1))):
        # len(q) == 4 with d_k == 16: a student who wrote d_k ** 0.25 must not be told about len(q).
        raise ValueError("√len(q) equals another scale here: this draw cannot tell the two apart")
    scale = {**scales, "sqrt len": math.sqrt(len(q))}.get(mistake, math.sqrt(q.size(-1)))
    if mistake == "cosine":
        q, k = q / q.norm(dim=-1, keepdim=True), k / k.norm(dim=-1, keepdim=True)
    with warnings.catch_warnings():  # k.T on a batch: deprecated, and the mistake itself
        warnings.simplefilter("ignore")
        kt = k.T if mistake == "k.T" else k.transpose(-2, -1)
    if mistake == "k reshaped":  # the entries read in memory order, not transposed
        kt = k.reshape(*k.shape[:-2], k.size(-1), k.size(-2))
    scores = q @ kt / scale
    if mistake == "softmax twice":
        scores = scores.softmax(-1)
    dim = -2 if mistake == "softmax over queries" else -1
    if mask is None or (mistake == "empty mask skipped" and not mask.any()):
        weights = scores.softmax(dim)
    elif mistake == "mask after softmax":
        weights = scores.softmax(dim).masked_fill(~mask, 0.0)
    else:
        fill = {"finite fill": -1e9, "plus inf": float("inf")}.get(mistake, float("-inf"))
        filled = scores.masked_fill(mask if mistake == "mask inverted" else ~mask, fill)
        if mistake in ("mask added", "mask multiplied"):  # the lectures' ways, on a boolean mask
            if mistake == "mask added" and not mask.any():  # adding zeros everywhere is skipping the mask
                raise ValueError("a mask with no allowed key cannot tell adding it from skipping it")
            filled = scores + mask if mistake == "mask added" else scores * mask
        if mistake in ("finite fill", "nan", "plus inf", "mask added", "mask multiplied"):
            weights = filled.softmax(dim)
        else:  # as the reference: finite scores, then zero weights, for a query with no key
            has_key = {"one key is none": mask.sum(-1, keepdim=True) > 1,
                       "has_key inverted": (~mask).any(-1, keepdim=True),
                       "has_key all": mask.all(-1, keepdim=True)}.get(mistake, mask.any(-1, keepdim=True))
            empty = has_key if mistake == "keys zeroed" else ~has_key
            weights = filled.masked_fill(empty, 0.0).softmax(dim).masked_fill(~has_key, 0.0)
    if mistake == "weights before masking":
        return weights @ v, scores.softmax(-1)
    return weights @ v, weights


def reference(q, k, v, mask=None):
    output, weights = _attend(q, k, v, mask)
    return output.to(q.dtype), weights.to(q.dtype)


MISTAKES = {
    "no scale": ("the scores are not divided by √d_k", "las puntuaciones no se dividen entre √d_k"),
    "sqrt d_v": ("the scores are divided by √d_v (the size of v) instead of √d_k (the size of q and k)",
                 "las puntuaciones se dividen entre √d_v (el tamaño de v) en lugar de √d_k (el de q y k)"),
    "d_k": ("the scores are divided by d_k instead of √d_k", "las puntuaciones se dividen entre d_k en lugar de √d_k"),
    "softmax over queries": ("the softmax runs over the queries (dim=-2); it must run over the keys (dim=-1)",
                             "el softmax recorre las consultas (dim=-2); debe recorrer las claves (dim=-1)"),
    "k.T": ("k.T reverses every dimension of a batched k; transpose only the last two (k.transpose(-2, -1))",
            "k.T invierte todas las dimensiones de una k con lote; traspón solo las dos últimas (k.transpose(-2, -1))"),
    "k reshaped": ("k is reshaped (or viewed) to (..., d_k, T_k) instead of transposed: reshape keeps the entries in "
                   "memory order, so each column mixes parts of several keys; use k.transpose(-2, -1)",
                   "k se reforma (reshape o view) a (..., d_k, T_k) en lugar de trasponerse: reshape conserva el orden "
                   "de las entradas en memoria, así que cada columna mezcla partes de varias claves; usa "
                   "k.transpose(-2, -1)"),
    "mask inverted": ("the mask is used inverted: True means may attend, so fill -inf where the mask is False; "
                      "reading True as blocked is nn.MultiheadAttention's convention (attn_mask, key_padding_mask), "
                      "the opposite of the course's",
                      "la máscara se usa invertida: True significa que se puede atender, así que pon -inf donde es "
                      "False; leer True como bloqueado es la convención de nn.MultiheadAttention (attn_mask, "
                      "key_padding_mask), la contraria a la del curso"),
    "mask added": ("the boolean mask is added to the scores, as the lecture notebook 002 adds its additive float masks "
                   "(0 = attend, -inf = blocked); unlike the lecture notebook 002, the course's masks are boolean, "
                   "True = may attend, so adding one adds 1 to the visible scores and hides nothing: fill the scores "
                   "with -inf where the mask is False (masked_fill(~mask, float('-inf')))",
                   "la máscara booleana se suma a las puntuaciones, como el cuaderno de clase 002 suma sus máscaras "
                   "float aditivas (0 = atiende, -inf = bloqueado); a diferencia del cuaderno de clase 002, las "
                   "máscaras del curso son booleanas, True = puede atender, así que sumar una suma 1 a las "
                   "puntuaciones visibles y no oculta nada: pon -inf donde la máscara es False "
                   "(masked_fill(~mask, float('-inf')))"),
    # What the output shows is masked scores of 0 before the softmax; multiplying by the mask
    # (lecture 004's text) is the usual way, a fill of 0 (or of a value that is 0 here) another.
    "mask multiplied": ("the masked scores reach the softmax as 0, not -inf: the scores multiplied by the mask, as the "
                        "text of the lecture notebook 004 says, or filled with 0 (or with a value that is 0 here); a "
                        "score of 0 still gets weight (exp(0) = 1), and that lecture's own z1-z4 table needs -inf "
                        "before the softmax: masked_fill(~mask, float('-inf'))",
                        "las puntuaciones enmascaradas llegan al softmax como 0, no -inf: multiplicadas por la máscara, "
                        "como dice el texto del cuaderno de clase 004, o rellenas con 0 (o con un valor que aquí vale "
                        "0); una puntuación 0 sigue recibiendo peso (exp(0) = 1), y la propia tabla z1-z4 de esa clase "
                        "necesita -inf antes del softmax: masked_fill(~mask, float('-inf'))"),
    "mask after softmax": ("the mask is applied after the softmax: the other weights no longer sum to 1 "
                           "(fill the scores with -inf before the softmax)",
                           "la máscara se aplica después del softmax: los demás pesos ya no suman 1 "
                           "(pon -inf en las puntuaciones antes del softmax)"),
    "finite fill": ("a query with every key masked gets uniform weights instead of zeros (a finite fill such as "
                    "-1e9 leaves that row uniform; give it zero weights)",
                    "una consulta con todas las claves enmascaradas recibe pesos uniformes en lugar de ceros (un "
                    "relleno finito como -1e9 deja esa fila uniforme; dale pesos cero)"),
    "nan": ("a query with every key masked gives NaN (softmax over a row of -inf); give that row zero weights",
            "una consulta con todas las claves enmascaradas da NaN (softmax de una fila de -inf); dale pesos cero"),
    # What the output shows is NaN in exactly the rows that mask a key: +inf fills give that,
    # and so does any step that meets the -inf scores with ∞ − ∞ (a hand-written softmax).
    "plus inf": ("every row that masks a key is NaN, and only those: the masked scores are filled with +inf (softmax "
                 "then computes ∞ − ∞), or the -inf scores pass through a hand-written step that subtracts or "
                 "averages them (∞ − ∞ again); fill them with float('-inf') and let torch.softmax take them",
                 "cada fila que enmascara una clave es NaN, y solo esas: las puntuaciones enmascaradas se rellenan "
                 "con +inf (el softmax calcula entonces ∞ − ∞), o las puntuaciones -inf pasan por un paso escrito a "
                 "mano que las resta o las promedia (∞ − ∞ otra vez); rellénalas con float('-inf') y deja que "
                 "torch.softmax las tome"),
    "softmax twice": ("the softmax is applied twice (the weights are a softmax of probabilities, too flat): apply it "
                      "once, to the scaled and masked scores",
                      "el softmax se aplica dos veces (los pesos son un softmax de probabilidades, demasiado planos): "
                      "aplícalo una vez, a las puntuaciones escaladas y enmascaradas"),
    "one key is none": ("a query with exactly one allowed key gets zero weights: a row is fully masked only when no "
                        "key is allowed (mask.any(dim=-1)); its one allowed key takes all the weight",
                        "una consulta con una sola clave permitida recibe pesos cero: una fila está totalmente "
                        "enmascarada solo sin ninguna clave permitida (mask.any(dim=-1)); esa clave lleva todo el peso"),
    "has_key inverted": ("the test for a query with no key reads the inverted mask: (~mask).any(dim=-1) is True for "
                         "rows with a masked key, so the rows that see every key get zero weights; a query has a key "
                         "when mask.any(dim=-1, keepdim=True)",
                         "la prueba de una consulta sin claves lee la máscara invertida: (~mask).any(dim=-1) es True "
                         "en las filas con alguna clave enmascarada, así que las filas que ven todas las claves reciben "
                         "pesos cero; una consulta tiene clave cuando mask.any(dim=-1, keepdim=True)"),
    "has_key all": ("a query is treated as having no key as soon as one of its keys is masked, so its row gets zero "
                    "weights: it has a key when any is allowed, mask.any(dim=-1, keepdim=True), not .all()",
                    "una consulta se trata como sin claves en cuanto una de sus claves está enmascarada, así que su "
                    "fila recibe pesos cero: tiene clave cuando alguna está permitida, mask.any(dim=-1, keepdim=True), "
                    "no .all()"),
    # Before "weights before masking", which reads an all-False mask the same way.
    # What the output shows is a skipped mask; why it was skipped (its emptiness, or another
    # condition such as its shape) the all-False mask cannot tell.
    "empty mask skipped": ("a mask with no allowed key at all is not applied, so every query attends to every key: a "
                           "condition leaves the mask out (an `if mask.any():` shortcut, or one on its shape or its "
                           "number of dims); apply the mask whatever it holds; a query with no key gets zero weights",
                           "una máscara sin ninguna clave permitida no se aplica, así que cada consulta atiende a todas "
                           "las claves: una condición deja fuera la máscara (un atajo `if mask.any():`, o una sobre su "
                           "forma o su número de dimensiones); aplica la máscara tenga lo que tenga; una consulta sin "
                           "claves recibe pesos cero"),
    "weights before masking": ("the returned weights ignore the mask: return the weights of the masked scores",
                               "los pesos devueltos ignoran la máscara: devuelve los pesos de las puntuaciones enmascaradas"),
    "fourth root": ("the scores are divided by d_k ** 0.25 instead of √d_k: a scale split as d_k ** -0.25 over q and "
                    "k must be applied to both (or take √d_k once, on the scores)",
                    "las puntuaciones se dividen entre d_k ** 0.25 en lugar de √d_k: una escala repartida como "
                    "d_k ** -0.25 entre q y k debe aplicarse a las dos (o divide una vez las puntuaciones entre √d_k)"),
    "cosine": ("the scores are cosine similarities (q and k divided by their norms first): the paper's scores are "
               "the raw dot products q·k, divided by √d_k; do not normalise q or k",
               "las puntuaciones son similitudes coseno (q y k divididos antes por su norma): las del artículo son "
               "los productos escalares q·k sin más, divididos entre √d_k; no normalices q ni k"),
    # Last, so that these name only what no other reading explains (len(q) may equal d_v).
    "keys zeroed": ("the rows that do have a key get zero scores (masked_fill(has_key, 0.0)), so they attend "
                    "uniformly to every key, masked ones too: zero the scores of the rows with no key, "
                    "masked_fill(~has_key, 0.0)",
                    "las filas que sí tienen clave reciben puntuaciones cero (masked_fill(has_key, 0.0)), así que "
                    "atienden por igual a todas las claves, también a las enmascaradas: pon a cero las puntuaciones "
                    "de las filas sin clave, masked_fill(~has_key, 0.0)"),
    "sqrt len": ("the scores are divided by √len(q), the size of q's first axis (a batch, or the number of queries), "
                 "instead of √d_k: d_k is the last axis, q.size(-1)",
                 "las puntuaciones se dividen entre √len(q), el tamaño del primer eje de q (un lote, o el número de "
                 "consultas), en lugar de √d_k: d_k es el último eje, q.size(-1)"),
}


def _mistakes(compute, keys=MISTAKES):
    """One checks.Mistake per key; ``compute(key)`` gives what that mistake returns."""
    return [checks.Mistake(*MISTAKES[key], output=lambda key=key: compute(key)) for key in keys]


def _close(actual, expected, what, mistakes, atol=1e-5, rtol=1e-4, d_k=None):
    hints = shapes.Hints(constants={"sqrt(d_k)": math.sqrt(d_k), "d_k": float(d_k)}) if d_k else None
    try:
        checks.close(actual, expected, what, atol=atol, rtol=rtol, hints=hints)
    except checks.CheckFailure as failure:
        if checks.only_dtype_wrong(actual, expected, atol, max(rtol, 1e-4)):
            raise failure from None
        found = checks.recognise(actual, mistakes, checks.matches(atol, max(rtol, 1e-4)))
        raise (failure.naming(found) if found else failure) from None


def _name_k_t(failure, q, k, v):
    """``failure`` named k.T when ``q @ k.T`` raises the very error the student's code raised."""
    if k.dim() > 2:
        try:
            _attend(q, k, v, mistake="k.T")
        except RuntimeError as error:
            if str(error) in failure.en:
                return failure.naming(checks.Mistake(*MISTAKES["k.T"]))
    return failure


def _call(student, q, k, v, *mask):
    """``student.call`` of scaled_dot_product_attention, naming k.T if it raises."""
    try:
        return student.call(SDPA, q, k, v, *mask)
    except checks.CheckFailure as failure:
        raise _name_k_t(failure, q, k, v) from None


def _qkv(rng, lead, T_q, T_k, d_k, d_v, dtype=torch.float32, scale=1.0):
    q = torch.randn(*lead, T_q, d_k, generator=rng, dtype=dtype) * scale
    k = torch.randn(*lead, T_k, d_k, generator=rng, dtype=dtype) * scale
    v = torch.randn(*lead, T_k, d_v, generator=rng, dtype=dtype)
    return q, k, v


def _random_sizes(rng, n_lead):
    lead = tuple(checks.randint(rng, 1, 3) for _ in range(n_lead))
    T_q, T_k = checks.randint(rng, 1, 9), checks.randint(rng, 2, 9)  # one key would make any softmax 1
    d_k = checks.randint(rng, 2, 16)
    d_v = d_k + checks.randint(rng, 1, 5)  # d_v != d_k catches scaling by the wrong size
    return lead, T_q, T_k, d_k, d_v


def _check_attention(student, q, k, v, mask=None, atol=1e-5):
    output, weights = checks.pair(_call(student, q, k, v, *([] if mask is None else [mask])),
                                  "scaled_dot_product_attention(...)")
    want_out, want_w = reference(q, k, v, mask)
    shape = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}" + (f", mask {tuple(mask.shape)}" if mask is not None else "")
    _close(weights, want_w, f"weights for {shape}", _mistakes(lambda key: _attend(q, k, v, mask, key)[1]), atol=atol,
           d_k=q.size(-1))
    _close(output, want_out, f"output for {shape}", _mistakes(lambda key: _attend(q, k, v, mask, key)[0]), atol=atol,
           d_k=q.size(-1))
    return output, weights


# The ways masked_self_attention's causal mask goes wrong: (en, es, mask of size T or None).
CAUSAL_MISTAKES = (
    ("masked_self_attention does not apply a causal mask", "masked_self_attention no aplica una máscara causal",
     lambda T: None),
    ("the causal mask is the upper triangle (torch.triu): position i may only see positions j <= i (torch.tril)",
     "la máscara causal es el triángulo superior (torch.triu): la posición i solo puede ver j <= i (torch.tril)",
     lambda T: torch.ones(T, T).triu().bool()),
    ("the causal mask is inverted (True above the diagonal): True must mean may attend, j <= i; True = blocked is "
     "nn.MultiheadAttention's convention (attn_mask), the opposite of the course's (and .bool() of the lecture "
     "notebook 002's additive 0 / -inf mask gives this mask too)",
     "la máscara causal está invertida (True sobre la diagonal): True debe significar que se puede atender, j <= i; "
     "True = bloqueado es la convención de nn.MultiheadAttention (attn_mask), la contraria a la del curso (y .bool() "
     "de la máscara aditiva 0 / -inf del cuaderno de clase 002 también da esta máscara)",
     lambda T: torch.ones(T, T).triu(1).bool()),
    ("the causal mask leaves out the diagonal: position i must also see itself (j <= i)",
     "la máscara causal excluye la diagonal: la posición i también debe verse a sí misma (j <= i)",
     lambda T: torch.ones(T, T).tril(-1).bool()),
)


def _causal_mistakes(Q, K, V):
    T = Q.size(0)
    causal = torch.ones(T, T).tril().bool()
    return ([checks.Mistake(en, es, output=lambda m=m: _attend(Q, K, V, m(T))[0].float()) for en, es, m in CAUSAL_MISTAKES]
            + _mistakes(lambda key: _attend(Q, K, V, causal, key)[0].float()) + _roles_mixed(Q, K, V, causal))


def _roles_mixed(Q, K, V, causal):
    """masked_self_attention passing its matrices to attention in the wrong roles, e.g. (Q, Q, V)."""
    given = {"Q": Q, "K": K, "V": V}
    return [checks.Mistake(
        f"masked_self_attention passes ({', '.join(roles)}) as attention's (q, k, v); it must pass (Q, K, V)",
        f"masked_self_attention pasa ({', '.join(roles)}) como (q, k, v) de la atención; debe pasar (Q, K, V)",
        output=lambda roles=roles: _attend(*(given[r] for r in roles), causal)[0].float())
        for roles in itertools.product("QKV", repeat=3) if roles != ("Q", "K", "V")]


HARD_CODED = ("masked_self_attention returns the course table whatever the input (hard-coded values?)",
              "masked_self_attention devuelve la tabla del curso sea cual sea la entrada (¿valores escritos a mano?)")


WEIGHTS_AS_Z = ("masked_self_attention returns the attention weights (T, T), not Z: attention returns (output, "
                "weights), and Z is the first of the two",
                "masked_self_attention devuelve los pesos de atención (T, T), no Z: la atención devuelve (salida, "
                "pesos), y Z es el primero de los dos")


def _msa_shape(Z, Q, K, V, what, extra=()):
    """``Z`` shaped (T, d_v), or a failure that names what it holds instead."""
    T, d = Q.size(0), V.size(1)
    try:
        checks.tensor(Z, what, shape=(T, d))
    except checks.CheckFailure as failure:
        weights = checks.Mistake(*WEIGHTS_AS_Z, output=lambda: reference(Q, K, V, torch.ones(T, T).tril().bool())[1])
        found = checks.recognise(Z, [*extra, weights], checks.matches(1e-4, 1e-3))
        raise (failure.naming(found) if found else failure) from None


def _msa(student, Q, K, V, what, data):
    """Check masked_self_attention(Q, K, V) against causal attention, naming the mistake."""
    T = Q.size(0)
    want, _ = reference(Q, K, V, torch.ones(T, T).tril().bool())
    table = checks.Mistake(*HARD_CODED, output=lambda: torch.tensor(data["Z"]))
    Z = student.call("attention.masked_self_attention", Q, K, V)
    _msa_shape(Z, Q, K, V, what, [table])
    _close(Z, want, what, [table] + _causal_mistakes(Q, K, V))


@pytest.mark.points(2)
def test_course_table(student, course_data, rng):
    """Does masked_self_attention reproduce the course's z1..z4 table, and causal attention on random inputs of its shape? / ¿Reproduce masked_self_attention la tabla z1..z4 del curso, y la atención causal con entradas aleatorias de su forma?"""
    data = course_data("a1_attention/masked_self_attention.json")
    Q, K, V = (torch.tensor(data[name]) for name in "QKV")
    table = student.call("attention.masked_self_attention", Q, K, V)
    _msa_shape(table, Q, K, V, "Z")
    _close(table, torch.tensor(data["Z"]), "Z (rows z1..z4)", _causal_mistakes(Q, K, V),
           atol=0.5 * 10 ** -data["decimals"], rtol=0)
    # The table is public, so its points count only with a twin on fresh inputs of the same
    # shape: a function that returns the table itself (or any fixed values) fails here.
    T, d = Q.shape
    Q, K, V = _qkv(rng, (), T, T, d, d)
    V = V / 10  # an answer rounded to the table's decimals is off by more than the tolerance here
    _msa(student, Q, K, V, f"Z for random {T}x{d} Q, K, V", data)


@pytest.mark.points(1)
def test_masked_self_attention_random(student, course_data, rng):
    """Is masked_self_attention causal attention on random Q, K, V, also for one position, with its gradients? / ¿Es masked_self_attention atención causal con Q, K, V aleatorias, también para una posición, con sus gradientes?"""
    T, d = checks.randint(rng, 2, 10), checks.randint(rng, 2, 8)
    Q, K, V = _qkv(rng, (), T, T, d, d)
    _msa(student, Q, K, V, f"Z for T={T}, d={d}", course_data("a1_attention/masked_self_attention.json"))
    # One position: Z is still (1, d), its row V's (it sees only itself).
    Q, K, V = _qkv(rng, (), 1, 1, d, d)
    _msa(student, Q, K, V, f"Z for T=1, d={d}", course_data("a1_attention/masked_self_attention.json"))
    # A layer of a model, not only the table's printer: gradients flow (no torch.no_grad() inside).
    Q, K, V = _qkv(rng, (), T, T, d, d, dtype=torch.float64)
    grad_output = checks.randn(rng, T, d)
    Z, grads = student.grad("attention.masked_self_attention", Q, K, V, wrt=(0, 1, 2), grad_output=grad_output)
    checks.tensor(Z, f"Z for float64 Q, K, V (T={T}, d={d})", shape=(T, d), dtype=torch.float64)
    want = _grads(Q, K, V, torch.ones(T, T).tril().bool(), grad_output)
    for name, got, expected in zip("QKV", grads, want):
        _close(got, expected, f"gradient of Z (T={T}, d={d}) w.r.t. {name}", [], atol=1e-8, rtol=1e-5)


@pytest.mark.points(2)
def test_random_shapes(student, rng):
    """Does attention match softmax(QKᵀ/√d_k)V for random shapes and leading dims? / ¿Coincide con softmax(QKᵀ/√d_k)V para formas aleatorias?"""
    for n_lead in (0, 1, 2):  # batched cases always, so batch-only mistakes fail at every seed
        q, k, v = _qkv(rng, *_random_sizes(rng, n_lead))
        _check_attention(student, q, k, v)
    checks.inputs_unchanged(student, "attention.scaled_dot_product_attention", [q, k, v],
                            "scaled_dot_product_attention(q, k, v)")


@pytest.mark.points(1)
def test_float64_stays_float64(student, rng):
    """Does float64 input give float64 output and weights? / ¿Da float64 a la salida y los pesos si la entrada es float64?"""
    _check_attention(student, *_qkv(rng, (2,), 3, 5, 4, 6, dtype=torch.float64), atol=1e-10)


OVERFLOW = checks.Mistake(
    "exp overflows: the softmax is computed as exp(s) / Σ exp(s) without subtracting the row maximum (use torch.softmax)",
    "exp se desborda: el softmax se calcula como exp(s) / Σ exp(s) sin restar el máximo de la fila (usa torch.softmax)"
)


@pytest.mark.points(1)
def test_rows_sum_to_one_for_large_scores(student, rng):
    """Do weight rows sum to 1 without overflow when scores are large? / ¿Suman 1 las filas de pesos sin desbordarse con puntuaciones grandes?"""
    q, k, v = _qkv(rng, (2,), 6, 7, 8, 8, scale=30.0)  # scores in the hundreds: exp overflows float32
    _, weights = checks.pair(_call(student, q, k, v), "scaled_dot_product_attention(...)")
    weights = checks.tensor(weights, "weights", shape=(2, 6, 7), dtype=torch.float32)
    try:
        checks.close(weights.sum(-1), torch.ones(2, 6), "sum of each weights row", atol=1e-5)
    except checks.CheckFailure as failure:
        found = OVERFLOW if not torch.isfinite(weights).all() else checks.recognise(
            weights, _mistakes(lambda key: _attend(q, k, v, None, key)[1]), checks.matches(1e-5, 1e-4))
        raise (failure.naming(found) if found else failure) from None


def _hide_one(rng, mask, rows):
    """Hide one random key (not key 0) from one of ``rows`` of a (..., T_q, T_k) mask, so
    that every mistake about masking shows whatever the random draw."""
    flat = mask.view(-1, mask.size(-1))
    row = rows[checks.randint(rng, 0, len(rows) - 1)]
    flat[row, checks.randint(rng, 1, mask.size(-1) - 1)] = False


# The outputs matched before this is checked, so what is left is a tiny weight.
TINY_WEIGHT = checks.Mistake(
    "masked keys keep a tiny weight instead of 0: a large negative number (-1e9), a clamp or an epsilon in place of "
    "-inf; fill masked scores with float('-inf') before the softmax and change nothing after it",
    "las claves enmascaradas conservan un peso diminuto en lugar de 0: un número negativo grande (-1e9), un clamp o "
    "un épsilon en lugar de -inf; rellena con float('-inf') antes del softmax y no cambies nada después")


@pytest.mark.points(2)
def test_padding_mask_gives_zero_weight(student, rng):
    """Does a (B, 1, 1, S) padding mask give masked keys exactly zero weight? / ¿Reciben peso exactamente cero las claves enmascaradas con una máscara (B, 1, 1, S)?"""
    B, h, T_q, S = checks.randint(rng, 2, 4), checks.randint(rng, 1, 4), checks.randint(rng, 1, 6), checks.randint(rng, 3, 9)
    q, k, v = _qkv(rng, (B, h), T_q, S, 8, 5)
    mask = checks.right_padding(rng, B, S)
    padded = checks.randint(rng, 0, B - 1)  # at least one sequence is padded
    mask[padded, checks.randint(rng, 1, S - 1):] = False
    mask[(padded + checks.randint(rng, 1, B - 1)) % B] = True  # and one is not, as in a real batch
    mask = mask.view(B, 1, 1, S)
    _, weights = _check_attention(student, q, k, v, mask)
    hidden = weights.masked_select(~mask.expand(B, h, T_q, S))
    largest = hidden.abs().max().item() if hidden.numel() else 0.0
    checks.expect(largest == 0, f"masked keys must get exactly 0 weight; the largest is {largest:.3g}",
                  f"las claves enmascaradas deben recibir peso exactamente 0; el mayor es {largest:.3g}", TINY_WEIGHT)


@pytest.mark.points(1)
def test_square_mask_broadcasts(student, rng):
    """Does a (T_q, T_k) mask broadcast over batch and heads? / ¿Se difunde una máscara (T_q, T_k) sobre lote y cabezas?"""
    T = checks.randint(rng, 2, 8)
    q, k, v = _qkv(rng, (2, 3), T, T, 6, 6)
    mask = torch.rand(T, T, generator=rng) < 0.6
    mask[:, 0] = True  # every query sees at least one key
    full = checks.randint(rng, 0, T - 1)
    mask[full] = True  # one query sees every key, another misses one
    _hide_one(rng, mask, [row for row in range(T) if row != full])
    _check_attention(student, q, k, v, mask)


@pytest.mark.points(1)
def test_fully_masked_query(student, rng):
    """Does a query with every key masked give zeros, not NaN, and leave other rows intact, and a mask with no key at all only zeros? / ¿Da ceros (no NaN) una consulta sin claves visibles, sin alterar las demás filas, y una máscara sin ninguna clave solo ceros?"""
    q, k, v = _qkv(rng, (2,), 4, 5, 6, 3)
    mask = torch.rand(2, 4, 5, generator=rng) < 0.7
    mask[..., 0] = True
    row = checks.randint(rng, 0, 3)
    mask[1, row, :] = False
    _hide_one(rng, mask, range(4))  # rows of batch 0, which all keep key 0
    # First: a mask changed in place (mask.logical_not_()) is the caller's mask changed too.
    checks.inputs_unchanged(student, "attention.scaled_dot_product_attention", [q, k, v, mask],
                            "scaled_dot_product_attention(q, k, v, mask)")
    _check_attention(student, q, k, v, mask)
    _check_attention(student, q, k, v, torch.zeros(4, 5, dtype=torch.bool))  # no query has a key: all zeros


def _grads(q, k, v, mask, grad_output, mistake=None, output=0):
    """Gradients w.r.t. q, k and v of ``grad_output`` through the output (``output=0``) or the weights (1)."""
    qr, kr, vr = (t.clone().requires_grad_(True) for t in (q, k, v))
    _attend(qr, kr, vr, mask, mistake)[output].backward(grad_output)
    return qr.grad, kr.grad, vr.grad


@pytest.mark.points(1)
def test_gradients(student, rng):
    """Do gradients w.r.t. q, k and v match, also through a fully masked row and through the returned weights? / ¿Coinciden los gradientes respecto a q, k y v, también con una fila sin claves y a través de los pesos devueltos?"""
    q, k, v = _qkv(rng, (2,), 4, 5, 6, 3, dtype=torch.float64)
    mask = torch.ones(2, 4, 5, dtype=torch.bool)
    mask[0, 1, :] = False
    mask[1, :, 3] = False
    grad_output = checks.randn(rng, 2, 4, 3)
    try:
        _, grads = student.grad(SDPA, q, k, v, mask, wrt=(0, 1, 2), output=0, grad_output=grad_output)
    except checks.CheckFailure as failure:
        raise _name_k_t(failure, q, k, v) from None
    want = _grads(q, k, v, mask, grad_output)
    for i, (name, got) in enumerate(zip("qkv", grads)):
        _close(got, want[i], f"gradient w.r.t. {name}",
               _mistakes(lambda key, i=i: _grads(q, k, v, mask, grad_output, key)[i]), atol=1e-8, rtol=1e-5)
    # The returned weights are an output too (a loss or a regulariser may read them), so
    # gradients flow through them: weights.detach() "for plotting" cuts them off.
    grad_weights = checks.randn(rng, 2, 4, 5)
    _, grads = student.grad(SDPA, q, k, v, mask, wrt=(0, 1), output=1, grad_output=grad_weights)
    want = _grads(q, k, v, mask, grad_weights, output=1)
    for i, (name, got) in enumerate(zip("qk", grads)):
        _close(got, want[i], f"gradient w.r.t. {name} through the returned weights",
               _mistakes(lambda key, i=i: _grads(q, k, v, mask, grad_weights, key, output=1)[i]), atol=1e-8, rtol=1e-5)
