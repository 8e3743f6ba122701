"""Hidden graders for a2_layernorm/layernorm.py; the oracle is torch's own layer_norm.

Every random input is conditioned so that each classic mistake fails the same checks at
every seed: the normalised groups have well-separated means and spreads of at least 1
(float32 stays accurate there), and one group has a spread of 0.01, where var = 1e-4 is
comparable to eps = 1e-5, so every mistake about eps shows (by about 5 %).

Over 350 lines: the graders of one module and the table of its classic mistakes, which
every check reads its failures against.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from autograder.graders.a2_layernorm import stages
from autograder.grading import checks, localise, shapes

LAYERNORM = "layernorm.LayerNorm"
SMALL_SPREAD = 0.01


def _variant(x, weight, bias, eps, n, mistake=None):
    """LayerNorm in float64 over the last ``n`` dims, or with one classic ``mistake``."""
    x, weight, bias = x.double(), weight.double(), bias.double()
    dims = tuple(range(-n, 0))
    if mistake in ("unbiased", "std") and math.prod(x.shape[-n:]) - 1 in x.shape[:-n]:
        # N - 1 is also a size of x's leading dims (len(x), say): dividing by it cannot be
        # told from the unbiased variance here.
        raise ValueError("N - 1 equals a leading size of x")
    if mistake == "last dim only":
        dims = (-1,)
    elif mistake == "all dims":
        dims = tuple(range(x.dim()))
    elif mistake == "first dims":
        dims = tuple(range(n))
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=mistake in ("unbiased", "std"), keepdim=True)
    centred = x if mistake == "no centring" else x - mean
    if mistake in ("eps outside", "std"):
        normed = centred / (var.sqrt() + eps)
    elif mistake == "no eps":
        normed = centred / var.sqrt()
    else:
        normed = centred / (var + eps).sqrt()
    if mistake == "swapped":
        return normed * bias + weight
    if mistake == "no affine":
        return normed
    return normed * weight + bias


# (key, English, Spanish): the forward mistakes a failed output or gradient is compared with.
FORWARD_MISTAKES = (
    ("unbiased", "the variance is unbiased (divided by N - 1, the default of x.var() and x.std()); "
     "LayerNorm divides by N (unbiased=False)",
     "la varianza es insesgada (dividida entre N - 1, lo que hacen por defecto x.var() y x.std()); "
     "LayerNorm divide entre N (unbiased=False)"),
    ("std", "x.std() is unbiased (divided by N - 1) and puts eps outside the square root; "
     "use sqrt(var + eps) with the biased variance (unbiased=False)",
     "x.std() es insesgada (dividida entre N - 1) y deja eps fuera de la raíz; "
     "usa sqrt(var + eps) con la varianza sesgada (unbiased=False)"),
    ("eps outside", "eps is added to the standard deviation, outside the square root; it belongs inside: sqrt(var + eps)",
     "eps se suma a la desviación típica, fuera de la raíz; va dentro: sqrt(var + eps)"),
    ("no eps", "the eps passed to __init__ does not reach the division (missing, or a fixed number instead of "
     "self.eps): divide by sqrt(var + self.eps)",
     "el eps que recibe __init__ no llega a la división (falta, o es un número fijo en lugar de self.eps): divide "
     "entre sqrt(var + self.eps)"),
    ("no centring", "the mean is not subtracted: normalise x - mean",
     "no se resta la media: normaliza x - media"),
    ("last dim only", "it normalises over the last dimension only, not over all the dimensions of normalized_shape",
     "normaliza solo sobre la última dimensión, no sobre todas las de normalized_shape"),
    ("all dims", "it normalises over every dimension of x (batch included), not only the last len(normalized_shape)",
     "normaliza sobre todas las dimensiones de x (lote incluido), no solo sobre las últimas len(normalized_shape)"),
    ("first dims", "it normalises over the first dimensions of x instead of the last ones (use negative dims)",
     "normaliza sobre las primeras dimensiones de x en lugar de las últimas (usa dimensiones negativas)"),
    ("swapped", "weight and bias are swapped: the output is normalised * weight + bias",
     "weight y bias están intercambiados: la salida es normalizado * weight + bias"),
    ("no affine", "weight and bias are not applied: the output is normalised * weight + bias",
     "no se aplican weight ni bias: la salida es normalizado * weight + bias"),
)


def _mistakes(compute):
    """One checks.Mistake per forward mistake; ``compute(key)`` gives its output."""
    return [checks.Mistake(en, es, output=lambda key=key: compute(key)) for key, en, es in FORWARD_MISTAKES]


NOT_A_PARAMETER = checks.Mistake(
    "weight and bias must be registered as parameters (not plain tensors or buffers): assign nn.Parameter(...) to "
    "self.weight and self.bias so that the optimizer trains them",
    "weight y bias deben registrarse como parámetros (no como tensores normales ni buffers): asigna "
    "nn.Parameter(...) a self.weight y self.bias para que el optimizador los entrene")


def _close(actual, expected, what, atol, rtol, mistakes, stages=None):
    try:
        checks.close(actual, expected, what, atol=atol, rtol=rtol)
    except checks.CheckFailure as failure:
        if checks.only_dtype_wrong(actual, expected, atol, max(rtol, 1e-5)):
            raise failure from None
        # float32 code against a float64 mistake: allow float32 rounding of large values
        found = checks.recognise(actual, mistakes, checks.matches(atol, max(rtol, 1e-5)))
        if found:
            raise failure.naming(found) from None
        raise failure.shaped(stages and stages(), replace=True) from None


def _conditioned(rng, lead, shape):
    """(*lead, *shape) float64 input: every group has mean ±[0.5, 2] and spread in [1, 3],
    except one random group with mean 0 and spread 0.01."""
    groups, size = math.prod(lead), math.prod(shape)
    z = checks.randn(rng, groups, size)
    z = (z - z.mean(-1, keepdim=True)) / z.std(-1, unbiased=False, keepdim=True)
    sign = torch.randint(0, 2, (groups, 1), generator=rng) * 2 - 1
    mean = sign * (0.5 + 1.5 * torch.rand(groups, 1, generator=rng, dtype=torch.float64))
    spread = 1 + 2 * torch.rand(groups, 1, generator=rng, dtype=torch.float64)
    small = checks.randint(rng, 0, groups - 1)
    mean[small], spread[small] = 0.0, SMALL_SPREAD
    return (mean + spread * z).reshape(*lead, *shape)


def _random_case(rng, dims):
    """Random normalized_shape with `dims` dimensions, input, weight and bias; the leading
    dims hold at least two groups, so normalising over the batch shows."""
    shape = tuple(checks.randint(rng, 2, 7) for _ in range(dims))
    lead = (checks.randint(rng, 2, 4),) + tuple(checks.randint(rng, 1, 3) for _ in range(checks.randint(rng, 0, 1)))
    x = _conditioned(rng, lead, shape)
    weight = checks.randn(rng, shape)
    bias = checks.randn(rng, shape)
    return shape, x, weight, bias


DROPOUT = checks.Mistake(
    "LayerNorm drops values in training mode: a LayerNorm has no dropout (nn.LayerNorm computes the same in "
    "model.train() and model.eval()); the dropout of a sub-layer belongs to the layer that uses the LayerNorm",
    "LayerNorm anula valores en modo de entrenamiento: una LayerNorm no tiene dropout (nn.LayerNorm calcula lo "
    "mismo con model.train() y model.eval()); el dropout de una subcapa va en la capa que usa la LayerNorm")
NAMES = checks.Mistake("the parameters must be called weight and bias, like in torch.nn.LayerNorm",
                       "los parámetros deben llamarse weight y bias, como en torch.nn.LayerNorm")


def _module(student, *args, **fields):
    """``student.module`` with weight and bias loaded by name, naming other names."""
    try:
        return student.module(LAYERNORM, *args, **fields)
    except checks.CheckFailure as failure:
        missing = any(f"no parameter named '{name}'" in failure.en for name in ("weight", "bias"))
        if missing:
            raise failure.naming(NAMES) from None
        found = _parameter_shapes(student, args[0])
        raise (failure.naming(found) if found else failure) from None


def _parameter_shapes(student, normalized_shape) -> checks.Mistake | None:
    """When the parameters of LayerNorm(normalized_shape) as built do not have its shape."""
    want = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    try:
        params = student.module(LAYERNORM, normalized_shape).get("parameters", {})
    except checks.CheckFailure:
        return None
    shapes_ = {name: tuple(p["value"].shape) for name, p in params.items() if isinstance(p.get("value"), torch.Tensor)}
    wrong = {name: shape for name, shape in shapes_.items() if shape != want}
    if not wrong:
        return None
    name, shape = next(iter(wrong.items()))
    return checks.Mistake(
        f"LayerNorm({normalized_shape}).{name} has shape {shape}, not normalized_shape = {want}: create the "
        f"parameters with the whole normalized_shape (a tuple may have several sizes), not just its last size",
        f"LayerNorm({normalized_shape}).{name} tiene forma {shape}, no normalized_shape = {want}: crea los "
        f"parámetros con el normalized_shape entero (una tupla puede tener varios tamaños), no solo su último tamaño")


def _check_forward(student, normalized_shape, x, weight, bias, eps=1e-5):
    kwargs = {"init_kwargs": {"eps": eps}} if eps != 1e-5 else {}
    report = _module(student, normalized_shape, state={"weight": weight, "bias": bias}, inputs=[x.float()], **kwargs)
    x32, w32, b32 = x.float(), weight.float(), bias.float()
    want = F.layer_norm(x32, weight.shape, w32, b32, eps)
    # float32 rounds x - mean by about 1e-7 * |x| <= 1e-6 in groups of spread >= 1 (and far
    # less in the small one, of mean 0); the normalised value and weight carry it to y.
    atol = 1e-5 * max(1.0, weight.abs().max().item())
    _close(report.get("output"), want, f"LayerNorm({normalized_shape}, eps={eps:g}) output for input {tuple(x.shape)}",
           atol, 1e-4, _mistakes(lambda key: _variant(x32, w32, b32, eps, weight.dim(), key).float()),
           lambda: stages.stage_difference(report.get("output"), x32, w32, b32, eps, weight.dim()))


@pytest.mark.points(2)
def test_course_vectors(student, course_data):
    """Does LayerNorm(3) give the course's outputs for v1, v2, v3? / ¿Da LayerNorm(3) las salidas del curso para v1, v2, v3?"""
    data = course_data("a2_layernorm/course_vectors.json")
    x = torch.tensor(data["inputs"])
    report = student.module(LAYERNORM, 3, init_kwargs={"eps": data["eps"]}, inputs=[x])
    ones, zeros = torch.ones(3), torch.zeros(3)
    mistakes = _mistakes(lambda key: _variant(x, ones, zeros, data["eps"], 1, key).float()) + [
        checks.Mistake("weight is initialised to zeros; it must start at ones (and bias at zeros)",
                       "weight se inicializa a ceros; debe empezar en unos (y bias en ceros)",
                       output=lambda: torch.zeros(3, 3)),
    ]
    params = {name: p.get("value") for name, p in report.get("parameters", {}).items()}
    started = [params.get("weight"), params.get("bias")]  # as the student's __init__ made them
    if not all(isinstance(t, torch.Tensor) and t.shape == (3,) for t in started):
        started = [ones, zeros]
    _close(report.get("output"), torch.tensor(data["outputs"]), "LayerNorm(3)(v1, v2, v3)",
           0.5 * 10 ** -data["decimals"], 0, mistakes,
           lambda: stages.initial_parameters(started) or stages.stage_difference(report.get("output"), x, *started, data["eps"], 1))


@pytest.mark.points(1)
def test_parameters(student, rng):
    """Are weight and bias parameters of shape normalized_shape, at ones and zeros? / ¿Son weight y bias parámetros de forma normalized_shape, a unos y ceros?"""
    for normalized_shape in (checks.randint(rng, 2, 9), (checks.randint(rng, 2, 5), checks.randint(rng, 2, 5))):
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        report = student.module(LAYERNORM, normalized_shape)
        params = report["parameters"]
        for name in ("weight", "bias"):
            if name in report["buffers"]:
                raise checks.CheckFailure(
                    f"LayerNorm({normalized_shape}).{name} is a buffer, not a trainable nn.Parameter",
                    f"LayerNorm({normalized_shape}).{name} es un buffer, no un nn.Parameter entrenable",
                ).naming(NOT_A_PARAMETER)
        if set(params) != {"weight", "bias"}:
            failure = checks.CheckFailure(
                f"LayerNorm({normalized_shape}) has the parameters {sorted(params)}; the parameters must be called "
                "weight and bias, like in torch.nn.LayerNorm",
                f"LayerNorm({normalized_shape}) tiene los parámetros {sorted(params)}; los parámetros deben llamarse "
                "weight y bias, como en torch.nn.LayerNorm",
            )
            # Only some of the two, and nothing else: the others were never made parameters.
            raise failure.naming(NOT_A_PARAMETER) if set(params) < {"weight", "bias"} else failure
        for name, fill, word, palabra in (("weight", torch.ones, "ones", "unos"), ("bias", torch.zeros, "zeros", "ceros")):
            info = params[name]
            checks.expect(info.get("requires_grad") is True,
                          f"{name} is not a trainable nn.Parameter (requires_grad is False)",
                          f"{name} no es un nn.Parameter entrenable (requires_grad es False)")
            value = checks.tensor(info.get("value"), f"LayerNorm({normalized_shape}).{name}", shape=shape)
            first = value.flatten()[:3].tolist()
            if not torch.equal(value.float(), fill(shape)):
                raise checks.CheckFailure(
                    f"{name} is initialised to [{', '.join(checks.fmt(x, 'g') for x in first)}, ...]; it must start at {word}",
                    f"{name} se inicializa a [{'; '.join(checks.fmt(x, 'g', 'es') for x in first)}; ...]; debe empezar en {palabra}",
                ).naming(checks.Mistake(*stages.initialised(name, value, word, palabra)))


@pytest.mark.points(2)
def test_matches_torch_last_dim(student, rng):
    """Does the output match torch's layer_norm for an int normalized_shape and random weight/bias, also for one vector and one feature? / ¿Coincide la salida con layer_norm de torch (normalized_shape entero, weight/bias aleatorios), también para un vector y un rasgo?"""
    shape, x, weight, bias = _random_case(rng, 1)
    _check_forward(student, shape[0], x, weight, bias)
    checks.inputs_unchanged(student, LAYERNORM, [x.float()], f"LayerNorm({shape[0]})(x)", init_args=[shape[0]])
    # One vector with no leading dims keeps its shape; one feature normalises to 0, leaving the bias.
    _check_forward(student, shape[0], x.reshape(-1, shape[0])[0], weight, bias)
    _check_forward(student, 1, checks.randn(rng, 3, 1), checks.randn(rng, (1,)), checks.randn(rng, (1,)))
    _check_as_a_model_uses_it(student, rng)


def _check_as_a_model_uses_it(student, rng):
    """One LayerNorm with its initial weight and bias, as a model holds it: called on two
    inputs (the second one a permuted view, not contiguous), each normalised on its own, and
    a gradient reaching weight and bias from the start."""
    n = checks.randint(rng, 3, 7)
    x1, x2 = _conditioned(rng, (2,), (n,)), _conditioned(rng, (2, 3), (n,))
    # x2 is sent as (n, 3, 2) and permuted back in the student's process: a view whose leading
    # dims cannot be merged without a copy.
    steps = [["ln", LAYERNORM, [n], {}], ["a", "$ln.__call__", [x1.float()], {}],
             ["x2", "torch.clone", [x2.float().permute(2, 1, 0)], {}], ["x2t", "$x2.permute", [2, 1, 0], {}],
             ["b", "$ln.__call__", [{"$": "x2t"}], {}]]
    what = f"the same LayerNorm({n}) called on x1 {tuple(x1.shape)}, then on x2 {tuple(x2.shape)} (a permuted view)"
    what_es = (f"la misma LayerNorm({n}) llamada con x1 {tuple(x1.shape)} y luego con x2 {tuple(x2.shape)} (una "
               "vista permutada)")
    error = student.script_error(steps)
    if error is not None:
        failure = checks.CheckFailure(f"{what}: it raised {error['type']} ({error['shown']})",
                                      f"{what_es}: lanzó {error['type']} ({error['shown']})")
        view = error["type"] == "RuntimeError" and "view" in str(error["shown"])
        raise failure.naming(checks.Mistake(*(NOT_CONTIGUOUS if view else REUSED))) from None
    b = student.script(steps, returns=["b"])["b"]
    want = F.layer_norm(x2, (n,), eps=1e-5).float()
    try:
        checks.close(b, want, f"{what}: the second output", atol=1e-5, rtol=1e-4)
    except checks.CheckFailure as failure:
        # The same view given to a fresh LayerNorm: right there, so the first call changed the module.
        fresh = student.script([step for step in steps if step[0] != "a"], returns=["b"])["b"]
        carried = isinstance(fresh, torch.Tensor) and fresh.shape == want.shape and torch.allclose(
            fresh.float(), want, atol=1e-5, rtol=1e-4)
        raise (failure.naming(checks.Mistake(*REUSED)) if carried else failure) from None
    grads = student.module(LAYERNORM, n, inputs=[x1.float()], grad_output=torch.ones(x1.shape), train=True)
    param_grads = grads.get("param_grads") if isinstance(grads.get("param_grads"), dict) else {}
    want_grads = {"weight": F.layer_norm(x1, (n,), eps=1e-5).sum(0).float(), "bias": torch.full((n,), float(len(x1)))}
    for name, want_grad in want_grads.items():
        got = param_grads.get(name)
        if not (isinstance(got, torch.Tensor) and got.shape == want_grad.shape
                and torch.allclose(got.float(), want_grad, atol=1e-4, rtol=1e-4)):
            failure = checks.CheckFailure(
                f"LayerNorm({n}) with its initial weight (ones) and bias (zeros): the gradient w.r.t. {name} is "
                f"{got.tolist() if isinstance(got, torch.Tensor) else got}, expected {want_grad.tolist()}",
                f"LayerNorm({n}) con su weight (unos) y bias (ceros) iniciales: el gradiente respecto a {name} es "
                f"{got.tolist() if isinstance(got, torch.Tensor) else got}, se esperaba {want_grad.tolist()}")
            absent = not isinstance(got, torch.Tensor) or not bool(got.abs().sum() > 0)
            raise (failure.naming(checks.Mistake(*AFFINE_SKIPPED)) if absent else failure) from None


REUSED = ("the second call does not normalise its own input: mean and variance (or the output) are kept from an "
          "earlier call; compute them from x at every call, as local variables, never stored on self",
          "la segunda llamada no normaliza su propia entrada: la media y la varianza (o la salida) se guardan de una "
          "llamada anterior; calcúlalas a partir de x en cada llamada, como variables locales, nunca en self")
NOT_CONTIGUOUS = ("x.view(...) fails on a tensor that is not contiguous (a transposed or sliced input): use "
                  "x.mean(dim=dims, keepdim=True) over the last dims, or x.reshape(...), not x.view(...)",
                  "x.view(...) falla con un tensor no contiguo (una entrada traspuesta o recortada): usa "
                  "x.mean(dim=dims, keepdim=True) sobre las últimas dimensiones, o x.reshape(...), no x.view(...)")
AFFINE_SKIPPED = ("no gradient reaches weight and bias at their initial values (ones and zeros): either the output "
                  "skips them while they hold those values, or forward computes with copies of them (a new "
                  "nn.Parameter, .data, .detach()); always compute x_hat * self.weight + self.bias with the module's "
                  "own parameters",
                  "ningún gradiente llega a weight y bias con sus valores iniciales (unos y ceros): o la salida no los "
                  "usa mientras valen eso, o forward calcula con copias suyas (un nn.Parameter nuevo, .data, "
                  ".detach()); calcula siempre x_hat * self.weight + self.bias con los parámetros del propio módulo")


@pytest.mark.points(1)
def test_matches_torch_tuple_shape(student, rng):
    """Does it normalise over several trailing dims when normalized_shape is a tuple? / ¿Normaliza sobre varias dimensiones finales si normalized_shape es una tupla?"""
    shape, x, weight, bias = _random_case(rng, 2)
    _check_forward(student, shape, x, weight, bias)


@pytest.mark.points(1)
def test_biased_variance_and_eps(student, rng):
    """Are the variance biased (÷N) and eps added inside the square root? / ¿Es la varianza sesgada (÷N) y se suma eps dentro de la raíz?"""
    # Spreads in [0.2, 1] against eps in [0.1, 1.1]: eps moves every output by far more
    # than float32 rounding, wherever it is added.
    # 5 rows of 4 features: a row count of N - 1 = 3 would make a variance divided by len(x)
    # look unbiased.
    x = _conditioned(rng, (5,), (4,))
    x = x / x.std(-1, unbiased=False, keepdim=True) * (0.2 + 0.8 * torch.rand(5, 1, generator=rng, dtype=torch.float64))
    ones, zeros = torch.ones(4, dtype=torch.float64), torch.zeros(4, dtype=torch.float64)
    eps = 0.1 + torch.rand(1, generator=rng).item()
    _check_forward(student, 4, x, ones, zeros, eps=eps)
    check_large_offset(student, rng)


CANCELLATION = checks.Mistake(
    "the variance is computed as E[x²] - E[x]², which loses every digit of the spread in float32 when the features "
    "share a large mean: compute it from the centred values, ((x - mean) ** 2).mean(...) or x.var(..., "
    "unbiased=False)",
    "la varianza se calcula como E[x²] - E[x]², que pierde todas las cifras de la dispersión en float32 cuando las "
    "características comparten una media grande: calcúlala a partir de los valores centrados, "
    "((x - media) ** 2).mean(...) o x.var(..., unbiased=False)")


def check_large_offset(student, rng):
    """float32 features near 1000 with spread 1 (activations that drifted): x² is then
    rounded by about 0.06, so E[x²] - E[x]² is off by about as much as the variance itself,
    while the centred values keep float32's precision (torch's error here is about 2e-4).
    16 rows, so that no seed is lucky in all of them."""
    n = 16
    z = checks.randn(rng, n, n)
    z = (z - z.mean(-1, keepdim=True)) / z.std(-1, unbiased=False, keepdim=True)
    x = (1000 + z).float()
    report = _module(student, n, inputs=[x])
    what = f"LayerNorm({n}) output in float32 for features near 1000 (spread 1), input {tuple(x.shape)}"
    try:
        checks.close(report.get("output"), F.layer_norm(x, (n,), eps=1e-5), what, atol=1e-3, rtol=0)
    except checks.CheckFailure as failure:
        raise (failure.naming(CANCELLATION) if _cancels(student, report, z, n) else failure) from None


def _cancels(student, report, z, n) -> bool:
    """Whether the large offset alone breaks the output: the same features without it (z)
    come out right through the module's own weight and bias, which are what it used. A
    module wrong without the offset, or whose starting weight and bias are not ones and
    zeros, fails the offset check for other reasons than the cancellation."""
    params = report.get("parameters", {})
    weight, bias = (params.get(name, {}).get("value") for name in ("weight", "bias"))
    if not (isinstance(weight, torch.Tensor) and isinstance(bias, torch.Tensor)
            and bool((weight == 1).all()) and bool((bias == 0).all())):
        return False
    plain = _module(student, n, inputs=[z.float()]).get("output")
    return localise.agrees(plain, F.layer_norm(z.float(), (n,), eps=1e-5), atol=1e-3, rtol=0)


def _grads(x, weight, bias, grad_output, n, mistake=None):
    xr, wr, br = (t.clone().requires_grad_(True) for t in (x, weight, bias))
    if mistake is None:
        F.layer_norm(xr, weight.shape, wr, br, 1e-5).backward(grad_output)
    else:
        _variant(xr, wr, br, 1e-5, n, mistake).backward(grad_output)
    return xr.grad, wr.grad, br.grad


def _drops_in_training(student, normalized_shape, weight, bias) -> bool:
    """Whether the student's LayerNorm in training mode gives an inverted dropout of the right
    output, on an input large enough (64 rows) that some value is dropped whatever the rate."""
    x = torch.randn(64, *weight.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    try:
        got = _module(student, normalized_shape, state={"weight": weight, "bias": bias}, inputs=[x],
                      dtype="float64", train=True).get("output")
    except checks.CheckFailure:
        return False
    want = F.layer_norm(x, weight.shape, weight, bias, 1e-5)
    return (isinstance(got, torch.Tensor) and got.shape == want.shape
            and checks.dropout_rate(got.double(), want, 1e-9) is not None)


@pytest.mark.points(2)
def test_gradients(student, rng):
    """Do gradients w.r.t. input, weight and bias match torch's layer_norm, and a float64 output stay float64, in training mode? / ¿Coinciden los gradientes respecto a la entrada, weight y bias con layer_norm de torch, y sigue en float64 una salida float64, en modo de entrenamiento?"""
    for dims in (1, 2):
        shape, x, weight, bias = _random_case(rng, dims)
        normalized_shape = shape[0] if dims == 1 else shape
        grad_output = checks.randn(rng, x.shape)
        # In training mode, as a model being trained calls it: LayerNorm computes the same there.
        report = _module(student, normalized_shape, state={"weight": weight, "bias": bias}, inputs=[x],
                         grad_output=grad_output, dtype="float64", train=True)
        # A float64 input is computed and returned in float64, as torch's LayerNorm does: no cast
        # inside forward (a float32 detour leaves errors of ~1e-7, far above this tolerance).
        output = F.layer_norm(x, weight.shape, weight, bias, 1e-5)
        try:
            checks.close(report.get("output"), output, f"LayerNorm({normalized_shape}) output for a float64 input "
                         f"{tuple(x.shape)} in training mode", 1e-9, 1e-9)
        except checks.CheckFailure as failure:
            if _drops_in_training(student, normalized_shape, weight, bias):
                raise failure.naming(DROPOUT) from None
            raise failure.shaped(stages.stage_difference(report.get("output"), x, weight, bias, 1e-5, dims)) from None
        want = _grads(x, weight, bias, grad_output, dims)
        grads = report.get("input_grads")
        got_input = grads[0] if isinstance(grads, list) and grads else None
        param_grads = report.get("param_grads") if isinstance(report.get("param_grads"), dict) else {}
        for i, (what, got) in enumerate((("the input", got_input), ("weight", param_grads.get("weight")),
                                         ("bias", param_grads.get("bias")))):
            if got is None and what in ("weight", "bias") and what not in report["parameters"]:
                raise checks.CheckFailure(
                    f"gradient w.r.t. {what}: none, because {what} is not a trainable nn.Parameter",
                    f"gradiente respecto a {what}: no hay, porque {what} no es un nn.Parameter entrenable",
                ).naming(NOT_A_PARAMETER)
            try:
                _close(got, want[i], f"gradient w.r.t. {what} (normalized_shape={normalized_shape})", 1e-7, 1e-5,
                       _mistakes(lambda key, i=i: _grads(x, weight, bias, grad_output, dims, key)[i]))
            except checks.CheckFailure as failure:
                # The output passed its check above, so the gradient alone is wrong: the graph is
                # cut somewhere; say so first.
                found = shapes.gradient(got, want[i], True, what)
                raise failure.shaped(found, replace=True) from None
