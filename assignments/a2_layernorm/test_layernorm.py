"""Public tests for layernorm.py. Run them with ``pytest assignments/a2_layernorm``."""

import torch
from torch import nn

from layernorm import LayerNorm


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


def _check_shape_and_dtype(out, expected):
    assert out.shape == expected.shape, _say(
        f"LayerNorm must keep the shape of its input, {tuple(expected.shape)}, got {tuple(out.shape)}",
        f"LayerNorm debe conservar la forma de su entrada, {tuple(expected.shape)}, pero da {tuple(out.shape)}",
    )
    assert out.dtype == expected.dtype, _say(
        f"LayerNorm must keep the dtype of its input ({expected.dtype}), got {out.dtype}; do not convert it",
        f"LayerNorm debe conservar el dtype de su entrada ({expected.dtype}), pero da {out.dtype}; no lo conviertas",
    )


def _values_hint(out, expected, n, constant_row=None):
    """(en, es): what the wrong outputs of LayerNorm (weight 1, bias 0, n values per vector) point at.

    ``constant_row``: index of an input vector whose values are all equal (variance 0), if any.
    """
    nan = torch.isnan(out.detach())
    if constant_row is not None and nan[constant_row].all() and nan.sum() == nan[constant_row].numel():
        return (
            f"only vector {constant_row + 1}, whose values are all equal, gives NaN: its variance is 0, so eps must "
            "be added to the variance before the square root",
            f"solo el vector {constant_row + 1}, con todos sus valores iguales, da NaN: su varianza es 0, así que "
            "eps debe sumarse a la varianza antes de la raíz cuadrada",
        )
    if nan.any():
        return (
            "the output contains NaN: check the division by sqrt(var + eps)",
            "la salida contiene NaN: revisa la división entre sqrt(var + eps)",
        )
    if _near(out, expected * ((n - 1) / n) ** 0.5):
        return (
            f"the output is the expected one times sqrt({n - 1}/{n}): that is the unbiased variance (÷(N-1)), the "
            "default of var() and std(); LayerNorm uses the biased variance (÷N): pass unbiased=False",
            f"la salida es la esperada por sqrt({n - 1}/{n}): esa es la varianza insesgada (÷(N-1)), la que usan "
            "por defecto var() y std(); LayerNorm usa la varianza sesgada (÷N): pasa unbiased=False",
        )
    if _near(out, 0.0, atol=1e-6):
        return (
            "every output is 0: check that weight starts at ones and that the normalised x is multiplied by weight "
            "and then shifted by bias",
            "todas las salidas son 0: comprueba que weight empieza en unos y que la x normalizada se multiplica por "
            "weight y luego se desplaza con bias",
        )
    means = out.detach().mean(-1)
    if not _near(means, 0.0) and _near(out.detach().mean(0), 0.0):
        return (
            "the output has mean 0 along dim 0 (across the batch) but not along the last dim: the mean and "
            "variance must be taken over the last dim, each vector on its own",
            "la salida tiene media 0 a lo largo de la dimensión 0 (entre elementos del lote) pero no a lo largo de "
            "la última: la media y la varianza deben calcularse sobre la última dimensión, cada vector por separado",
        )
    if not _near(means, 0.0):
        return (
            f"each output vector must have mean 0 (weight = 1, bias = 0), got means {_r(means.flatten()[:8])}: "
            "check that the mean is taken over the last dim, with keepdim=True so it broadcasts back against x, "
            "and that bias starts at zeros",
            f"cada vector de salida debe tener media 0 (weight = 1, bias = 0), pero sus medias son "
            f"{_r(means.flatten()[:8])}: comprueba que la media se calcula sobre la última dimensión, con "
            "keepdim=True para que se difunda sobre x, y que bias empieza en ceros",
        )
    if _near(out, expected, atol=1e-2):
        return (
            "the output is very close but not within the tolerance: check eps (default 1e-5) and that it is added "
            "to the variance inside the square root, not to the standard deviation",
            "la salida está muy cerca pero fuera de la tolerancia: revisa eps (1e-5 por defecto) y que se sume a "
            "la varianza dentro de la raíz cuadrada, no a la desviación típica",
        )
    return (
        "the vectors are centred but wrongly scaled: divide by sqrt(var + eps), with the biased variance (÷N) over "
        "the last dim, and check that weight starts at ones",
        "los vectores están centrados pero mal escalados: divide entre sqrt(var + eps), con la varianza sesgada "
        "(÷N) sobre la última dimensión, y comprueba que weight empieza en unos",
    )


def test_course_vectors(course_data):
    """Does LayerNorm(3) turn the course's v1, v2, v3 into the lecture's outputs?"""
    data = course_data("a2_layernorm/course_vectors.json")
    norm = LayerNorm(3, eps=data["eps"])
    out = norm(torch.tensor(data["inputs"]))
    expected = torch.tensor(data["outputs"])
    _check_shape_and_dtype(out, expected)
    torch.testing.assert_close(
        out, expected, atol=0.5 * 10 ** -data["decimals"], rtol=0,
        msg=lambda default: _say(
            f"LayerNorm(3) must turn v1, v2, v3 = {data['inputs']} into {_r(expected)}, got {_r(out)}",
            f"LayerNorm(3) debe convertir v1, v2, v3 = {data['inputs']} en {_r(expected)}, pero da {_r(out)}",
            _values_hint(out, expected, n=3, constant_row=1),
        ) + "\n" + default,
    )


def test_parameters_start_at_ones_and_zeros():
    """Are weight and bias learnable parameters initialised to ones and zeros?"""
    norm = LayerNorm((2, 3))
    params = dict(norm.named_parameters())
    plain = [n for n in ("weight", "bias") if n not in params and isinstance(getattr(norm, n, None), torch.Tensor)]
    if plain:
        hint = (
            f"self.{plain[0]} is a plain tensor, so it is not learned: wrap it in nn.Parameter",
            f"self.{plain[0]} es un tensor normal, así que no se aprende: envuélvelo en nn.Parameter",
        )
    elif not {"weight", "bias"} <= set(params):
        hint = (
            "name them weight and bias, like nn.LayerNorm",
            "llámalos weight y bias, como en nn.LayerNorm",
        )
    else:
        hint = ("create no other parameters", "no crees otros parámetros")
    assert set(params) == {"weight", "bias"}, _say(
        f"LayerNorm must have exactly the parameters ['bias', 'weight'], got {sorted(params)}",
        f"LayerNorm debe tener exactamente los parámetros ['bias', 'weight'], pero tiene {sorted(params)}",
        hint,
    )
    for name, expected, word, word_es in (
        ("weight", torch.ones(2, 3), "ones", "unos"),
        ("bias", torch.zeros(2, 3), "zeros", "ceros"),
    ):
        got = params[name].detach()
        hint = None
        if got.shape != expected.shape:
            hint = (
                "normalized_shape may be a tuple: the parameter takes its whole shape, not just the last size",
                "normalized_shape puede ser una tupla: el parámetro toma su forma entera, no solo el último tamaño",
            )
        assert torch.equal(got, expected), _say(
            f"{name} must start as {word} of shape normalized_shape = (2, 3) for LayerNorm((2, 3)), got shape "
            f"{tuple(got.shape)} with values {_r(got)}",
            f"{name} debe empezar como {word_es} con forma normalized_shape = (2, 3) para LayerNorm((2, 3)), pero "
            f"tiene forma {tuple(got.shape)} y valores {_r(got)}",
            hint,
        )


def test_matches_torch_layernorm():
    """Does the output match torch.nn.LayerNorm on a random batch?"""
    torch.manual_seed(0)
    x = torch.randn(4, 5, 8)
    ours, theirs = LayerNorm(8), nn.LayerNorm(8)
    out, expected = ours(x), theirs(x)
    _check_shape_and_dtype(out, expected)
    torch.testing.assert_close(
        out, expected, atol=1e-5, rtol=1e-5,
        msg=lambda default: _say(
            f"LayerNorm(8) must match nn.LayerNorm(8) on x of shape (4, 5, 8); for x[0, 0] = {_r(x[0, 0])} "
            f"expected {_r(expected[0, 0])}, got {_r(out[0, 0])}",
            f"LayerNorm(8) debe coincidir con nn.LayerNorm(8) en una x de forma (4, 5, 8); para x[0, 0] = "
            f"{_r(x[0, 0])} se esperaba {_r(expected[0, 0])}, pero da {_r(out[0, 0])}",
            _values_hint(out, expected, n=8),
        ) + "\n" + default,
    )


def _compare_with_torch(ours, theirs, x, what, what_es, hints=()):
    """``ours(x)`` matches ``theirs(x)`` (an nn.LayerNorm with the same settings and
    parameters); ``hints``: (output of a classic mistake, (en, es)) pairs named on failure."""
    out, expected = ours(x), theirs(x)
    _check_shape_and_dtype(out, expected)
    hint = next((h for wrong, h in hints if _near(out, wrong, atol=1e-5)), None)
    if hint is None and not torch.isnan(out).any():
        hint = _values_hint(out, expected, n=expected[0].numel()) if not hints else None
    torch.testing.assert_close(
        out, expected, atol=1e-5, rtol=1e-5,
        msg=lambda default: _say(
            f"{what} must match nn.LayerNorm with the same settings on x of shape {tuple(x.shape)}; the first "
            f"output vector should be {_r(expected.flatten()[:6])}..., got {_r(out.flatten()[:6])}...",
            f"{what_es} debe coincidir con nn.LayerNorm con los mismos ajustes en una x de forma {tuple(x.shape)}; "
            f"el primer vector de salida debería ser {_r(expected.flatten()[:6])}..., pero da "
            f"{_r(out.flatten()[:6])}...",
            hint,
        ) + "\n" + default,
    )


def _normalise(x, dims, eps, inside=True):
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, unbiased=False, keepdim=True)
    return (x - mean) / (torch.sqrt(var + eps) if inside else torch.sqrt(var) + eps)


def test_eps_is_the_argument_and_goes_inside_the_square_root():
    """With a large eps (0.5) and small inputs, does LayerNorm(6, eps=0.5) still match nn.LayerNorm(6, eps=0.5)?"""
    torch.manual_seed(1)
    x = 0.3 * torch.randn(3, 6)  # a variance near eps, so where eps goes shows
    _compare_with_torch(LayerNorm(6, eps=0.5), nn.LayerNorm(6, eps=0.5), x, "LayerNorm(6, eps=0.5)",
                        "LayerNorm(6, eps=0.5)", hints=[
        (_normalise(x, -1, 1e-5), ("the output is what eps = 1e-5 gives: use the eps passed to __init__ "
                                   "(self.eps), not a fixed number",
                                   "la salida es la que da eps = 1e-5: usa el eps que recibe __init__ (self.eps), "
                                   "no un número fijo")),
        (_normalise(x, -1, 0.5, inside=False), ("eps is added to the standard deviation; add it to the variance, "
                                                "inside the square root: sqrt(var + eps)",
                                                "eps se suma a la desviación típica; súmalo a la varianza, dentro "
                                                "de la raíz cuadrada: sqrt(var + eps)")),
        (_normalise(x, -1, 0.0), ("the output is what eps = 0 gives: add eps to the variance",
                                  "la salida es la que da eps = 0: suma eps a la varianza")),
    ])


def test_normalises_over_every_dimension_of_a_tuple_shape():
    """Does LayerNorm((3, 4)) normalise each (3, 4) block as a whole, like nn.LayerNorm((3, 4))?"""
    torch.manual_seed(2)
    x = torch.randn(2, 5, 3, 4)
    _compare_with_torch(LayerNorm((3, 4)), nn.LayerNorm((3, 4)), x, "LayerNorm((3, 4))", "LayerNorm((3, 4))", hints=[
        (_normalise(x, -1, 1e-5), ("each row of 4 is normalised on its own: with a tuple normalized_shape, take the "
                                   "mean and variance over its last len(normalized_shape) dims together, "
                                   "dim=(-2, -1) here",
                                   "cada fila de 4 se normaliza por separado: con un normalized_shape en tupla, "
                                   "calcula la media y la varianza sobre sus últimas len(normalized_shape) "
                                   "dimensiones a la vez, dim=(-2, -1) aquí")),
        (_normalise(x, (1, 2, 3), 1e-5), ("the statistics also run over dim 1: take them over the last "
                                          "len(normalized_shape) dims only",
                                          "las estadísticas también recorren la dimensión 1: calcúlalas solo sobre "
                                          "las últimas len(normalized_shape) dimensiones")),
    ])


def test_a_single_vector_without_a_batch_axis():
    """Does LayerNorm(8) accept one vector of shape (8,), with no batch axis, as nn.LayerNorm(8) does?"""
    torch.manual_seed(6)
    x = torch.randn(8)
    ours = LayerNorm(8)  # built outside the try: an error of the constructor is not about the input's shape
    try:
        _compare_with_torch(ours, nn.LayerNorm(8), x, "LayerNorm(8)", "LayerNorm(8)")
    except (AssertionError, NotImplementedError):
        raise
    except Exception as error:
        raise AssertionError(_say(
            f"LayerNorm(8) must accept x of shape (8,), one vector with no batch axis, as nn.LayerNorm(8) does; it "
            f"raised {type(error).__name__}: {error}; normalise over the last len(normalized_shape) dims, whatever "
            "comes before them (nothing, here)",
            f"LayerNorm(8) debe aceptar una x de forma (8,), un solo vector sin eje de lote, como nn.LayerNorm(8); "
            f"lanzó {type(error).__name__}: {error}; normaliza sobre las últimas len(normalized_shape) dimensiones, "
            "tenga lo que tenga delante (nada, aquí)")) from None


def test_weight_scales_then_bias_shifts():
    """With weight and bias set to other values, does LayerNorm give normalised x * weight + bias, like nn.LayerNorm?"""
    torch.manual_seed(3)
    x = torch.randn(4, 5)
    ours, theirs = LayerNorm(5), nn.LayerNorm(5)
    with torch.no_grad():
        for norm in (ours, theirs):
            norm.weight.copy_(torch.tensor([2.0, -1.0, 0.5, 3.0, 1.5]))
            norm.bias.copy_(torch.tensor([0.1, 0.2, -0.3, 1.0, -2.0]))
    plain = _normalise(x, -1, 1e-5)
    w, b = theirs.weight.detach(), theirs.bias.detach()
    _compare_with_torch(ours, theirs, x, "LayerNorm(5) with weight and bias set", "LayerNorm(5) con weight y bias "
                        "fijados", hints=[
        ((plain + b) * w, ("the bias is added before the scaling: multiply by weight first, then add bias",
                           "el bias se suma antes de escalar: multiplica primero por weight y luego suma bias")),
        (plain * b + w, ("weight and bias are swapped: x_hat * weight + bias",
                         "weight y bias están intercambiados: x_hat * weight + bias")),
        (plain, ("weight and bias are not used in forward: return x_hat * self.weight + self.bias",
                 "weight y bias no se usan en forward: devuelve x_hat * self.weight + self.bias")),
    ])


def test_gradients_match_torch_layernorm():
    """Do the gradients with respect to x, weight and bias match nn.LayerNorm's?"""
    torch.manual_seed(4)
    x = torch.randn(3, 6, dtype=torch.float64)
    ours, theirs = LayerNorm(6).double(), nn.LayerNorm(6).double()
    upstream = torch.randn(3, 6, dtype=torch.float64)
    grads = []
    for norm in (ours, theirs):
        xi = x.clone().requires_grad_()
        (norm(xi) * upstream).sum().backward()
        grads.append({"x": xi.grad, "weight": norm.weight.grad, "bias": norm.bias.grad})
    for name in ("x", "weight", "bias"):
        got, want = grads[0][name], grads[1][name]
        assert got is not None, _say(
            f"no gradient reaches {name}: do not detach anything or use .data / torch.no_grad() in forward",
            f"ningún gradiente llega a {name}: no uses detach, .data ni torch.no_grad() en forward")
        assert torch.allclose(got, want, atol=1e-8), _say(
            f"the gradient with respect to {name} differs from nn.LayerNorm's: expected {_r(want.flatten()[:6])}..., "
            f"got {_r(got.flatten()[:6])}...; compute the output with differentiable tensor operations only (the "
            f"mean and variance included: do not detach them)",
            f"el gradiente respecto a {name} difiere del de nn.LayerNorm: se esperaba {_r(want.flatten()[:6])}..., "
            f"pero da {_r(got.flatten()[:6])}...; calcula la salida solo con operaciones diferenciables de tensores "
            f"(incluidas la media y la varianza: no les hagas detach)")


def test_eval_mode_gives_the_training_mode_output():
    """With weight and bias set, does LayerNorm give the same output in eval mode as in training mode,
    whatever batch it saw before?"""
    torch.manual_seed(5)
    x = torch.randn(4, 5)
    norm = LayerNorm(5)
    with torch.no_grad():
        norm.weight.copy_(torch.tensor([2.0, -1.0, 0.5, 3.0, 1.5]))
        norm.bias.copy_(torch.tensor([0.1, 0.2, -0.3, 1.0, -2.0]))
    norm.train()(torch.randn(4, 5) * 3 + 2)  # another batch first: nothing of it may carry over
    evaluated = norm.eval()(x)
    trained = norm.train()(x)
    assert evaluated.shape == trained.shape and torch.allclose(evaluated, trained, atol=1e-6), _say(
        f"LayerNorm(5) in eval mode gave {_r(evaluated[0])}... but {_r(trained[0])}... in training mode: LayerNorm "
        "has no dropout and no running statistics, so both modes compute x_hat * weight + bias; do not branch on "
        "self.training",
        f"LayerNorm(5) en modo eval dio {_r(evaluated[0])}... pero {_r(trained[0])}... en modo entrenamiento: "
        "LayerNorm no tiene dropout ni estadísticas acumuladas, así que los dos modos calculan x_hat * weight + "
        "bias; no distingas según self.training")


def test_float64_input_gives_float64_output():
    """Does a float64 input come back float64, equal to nn.LayerNorm's to 1e-12?"""
    torch.manual_seed(6)
    x = torch.randn(3, 6, dtype=torch.float64) * 3 + 1
    got, want = LayerNorm(6).double()(x), nn.LayerNorm(6).double()(x)
    assert got.dtype == torch.float64, _say(
        f"a float64 input came back {got.dtype}: compute in the input's dtype (no .float(), and tensors created "
        "inside forward with dtype=x.dtype)",
        f"una entrada float64 volvió como {got.dtype}: calcula en el dtype de la entrada (sin .float(), y con "
        "dtype=x.dtype en los tensores creados dentro de forward)")
    assert torch.allclose(got, want, atol=1e-12, rtol=0), _say(
        f"in float64, LayerNorm(6) differs from nn.LayerNorm(6) by {(got - want).abs().max().item():.2g}, expected "
        "below 1e-12: part of the computation runs in float32 (a .float() or a float32 constant tensor)",
        f"en float64, LayerNorm(6) difiere de nn.LayerNorm(6) en {(got - want).abs().max().item():.2g}, se esperaba "
        "menos de 1e-12: parte del cálculo se hace en float32 (un .float() o un tensor constante float32)")


def test_float32_features_far_from_zero_stay_accurate():
    """Do float32 features near 1000 (spread 1) give nn.LayerNorm's output to 1e-3?"""
    torch.manual_seed(7)
    z = torch.randn(16, 16)
    x = 1000 + (z - z.mean(-1, keepdim=True)) / z.std(-1, unbiased=False, keepdim=True)
    got, want = LayerNorm(16)(x), nn.LayerNorm(16)(x)
    error = (got - want).abs().max().item()
    assert error <= 1e-3, _say(
        f"for float32 features near 1000 with spread 1, LayerNorm(16) differs from nn.LayerNorm(16) by {error:.2g} "
        "(expected at most 1e-3): E[x²] - E[x]² subtracts two numbers near 1e6 whose float32 rounding (about "
        "0.06) is as large as the variance; compute the variance from the centred values, ((x - mean) ** 2).mean(...)",
        f"con características float32 cerca de 1000 y dispersión 1, LayerNorm(16) difiere de nn.LayerNorm(16) en "
        f"{error:.2g} (como mucho 1e-3): E[x²] - E[x]² resta dos números cerca de 1e6 cuyo redondeo en float32 "
        "(unos 0,06) es tan grande como la varianza; calcula la varianza a partir de los valores centrados, "
        "((x - media) ** 2).mean(...)")
