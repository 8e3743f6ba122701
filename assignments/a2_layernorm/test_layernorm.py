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
