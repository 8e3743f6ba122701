"""Where a LayerNorm output that no named mistake explains first goes wrong (not a test
module): the output is read back through what the grader knows (the input, weight, bias
and eps), stage by stage in the order of the computation: the initial parameters, the
affine step, the centring, the division.
"""

import itertools
import math

import torch

from autograder.grading import checks


def _divisors(x, dims, eps):
    """What a vector may be divided by, by name: the right one first."""
    var = x.var(dims, unbiased=False, keepdim=True)
    unbiased = x.var(dims, unbiased=True, keepdim=True) if math.prod(x.shape[d] for d in dims) > 1 else var
    found = {
        "sqrt(var + eps)": (var + eps).sqrt(),
        "var + eps, without the square root": var + eps,
        "var, without the square root or eps": var,
        "sqrt(var) + eps": var.sqrt() + eps,
        "sqrt(var), without eps": var.sqrt(),
        "sqrt(var + eps) with the unbiased variance (÷(N-1))": (unbiased + eps).sqrt(),
        "std() + eps, the unbiased standard deviation": unbiased.sqrt() + eps,
        "sqrt(var + eps²)": (var + eps * eps).sqrt(),
        "(var + eps) ** 2": (var + eps) ** 2,
        "1 (no division)": torch.ones_like(var),
    }
    n = math.prod(x.shape[d] for d in dims)
    if n - 1 in [x.shape[d] for d in range(x.dim()) if d not in dims]:
        # N - 1 is also a leading size of x (len(x), say): a variance divided by it cannot be
        # told from the unbiased one here, so neither is named.
        del found["sqrt(var + eps) with the unbiased variance (÷(N-1))"], found["std() + eps, the unbiased standard deviation"]
    return found


def initial_parameters(started):
    """A LayerNorm built with no state given must start at weight = 1 and bias = 0."""
    for name, value, want, word, palabra in (("weight", started[0], 1.0, "ones", "unos"),
                                             ("bias", started[1], 0.0, "zeros", "ceros")):
        if not bool((value.double() == want).all()):
            return initialised(name, value, word, palabra)
    return None


def initialised(name: str, value: torch.Tensor, word: str, palabra: str) -> tuple[str, str]:
    """How parameter ``name``, which must start at ``word`` (ones or zeros) and does not,
    was most likely made: uninitialised memory, another constant, or a random start."""
    v = value.double().flatten()
    fix_en, fix_es = f"create it with torch.{word}(normalized_shape)", f"créalo con torch.{word}(normalized_shape)"
    odd = ((v != 0) & (v.abs() < 1e-30)) | ~v.isfinite() | (v.abs() > 1e10)
    if bool(odd.any()):
        example = v[odd][0].item()
        return (f"{name} holds values such as {checks.fmt(example, '.3g')}, uninitialised memory: torch.empty (or "
                f"torch.Tensor(n)) does not set them; {fix_en}",
                f"{name} tiene valores como {checks.fmt(example, '.3g', 'es')}, memoria sin inicializar: torch.empty "
                f"(o torch.Tensor(n)) no los fija; {fix_es}")
    if bool((v == v[0]).all()):
        return (f"{name} starts at {checks.fmt(v[0].item(), 'g')} everywhere, not at {word}: {fix_en}",
                f"{name} empieza en {checks.fmt(v[0].item(), 'g', 'es')} en todas partes, no en {palabra}: {fix_es}")
    shown_en = ", ".join(checks.fmt(x, ".3g") for x in v[:3].tolist())
    shown_es = "; ".join(checks.fmt(x, ".3g", "es") for x in v[:3].tolist())
    return (f"{name} starts at random values [{shown_en}, ...] (torch.randn, torch.rand or an init function): "
            f"LayerNorm starts as the identity, weight at ones and bias at zeros; {fix_en}",
            f"{name} empieza en valores aleatorios [{shown_es}; ...] (torch.randn, torch.rand o una función de init): "
            f"LayerNorm empieza como la identidad, weight a unos y bias a ceros; {fix_es}")


def _all_alike(weight) -> bool:
    """Whether every value of ``weight`` is the same number (ones, say)."""
    w = weight.flatten()
    return bool(((w - w[0]).abs() <= 1e-9 * (1 + w[0].abs())).all())


def _affine_difference(x, y, weight, bias, dims, eps):
    """The last stage: when the output is, feature by feature, a * x̂ + c of the right
    normalisation x̂ (fitted over the vectors), with a and c other than weight and bias."""
    xhat = (x - x.mean(dims, keepdim=True)) / (x.var(dims, unbiased=False, keepdim=True) + eps).sqrt()
    lead = x.dim() - len(dims)
    X, Y = xhat.reshape(-1, *x.shape[lead:]), y.reshape(-1, *x.shape[lead:])  # (vectors, *normalized_shape)
    if X.size(0) < 3:
        return None
    mx, my = X.mean(0), Y.mean(0)
    var = ((X - mx) ** 2).sum(0)
    if bool((var < 1e-9).any()):
        return None
    a = ((X - mx) * (Y - my)).sum(0) / var
    c = my - a * mx
    if not bool(((a * X + c - Y).abs() <= 1e-4 * (1 + Y.abs())).all()):
        return None
    close = lambda u, v: bool(((u - v).abs() <= 1e-3 * (1 + v.abs())).all())  # noqa: E731
    k = (a / weight).flatten()
    one_factor = bool(((k - k[0]).abs() <= 1e-3 * k[0].abs()).all()) and abs(k[0].item() - 1) > 1e-3
    if close(c, bias) and one_factor and k[0].item() < -1e-3:
        # A negative factor is no divisor (a square root is never negative): a sign is flipped.
        k0 = k[0].item()
        return (f"the output is x̂ * weight * ({k0:.4g}) + bias: x̂ comes out with its sign flipped, so a subtraction "
                f"is reversed (mean - x where x - mean belongs) or a factor is negated",
                f"la salida es x̂ * weight * ({checks.fmt(k0, '.4g', 'es')}) + bias: x̂ sale con el signo cambiado, así "
                f"que una resta está invertida (media - x donde va x - media) o un factor está negado")
    one_factor = one_factor and k[0].item() > 1e-3  # a factor of 0 is no divisor either: said below
    if close(c, bias) and one_factor and _all_alike(weight):
        # Under a weight that is one number everywhere, a divisor off by k and a weight applied
        # as k times itself (or as another constant) give the same output: say both.
        k0 = k[0].item()
        return (f"x - mean is right, but the output is x̂ * weight * {k0:.4g} + bias: either each vector is divided "
                f"by sqrt(var + eps) / {k0:.4g} (the variance taken over another count than the normalised dims' N "
                f"elements) or the scaling is not by self.weight as it is (weight changed, or another factor)",
                f"x - media está bien, pero la salida es x̂ * weight * {checks.fmt(k0, '.4g', 'es')} + bias: o cada "
                f"vector se divide entre sqrt(var + eps) / {checks.fmt(k0, '.4g', 'es')} (la varianza tomada sobre "
                f"otra cuenta que los N elementos de las dimensiones normalizadas) o no se escala por self.weight tal "
                f"cual (weight modificado, u otro factor)")
    if close(c, bias) and one_factor:
        # One factor in every vector and feature under a weight that varies from feature to
        # feature: the divisor, not weight or bias, is off by it.
        k2 = k[0].item() ** 2
        return (f"x - mean is right, but every vector is divided by sqrt(var + eps) / {k[0].item():.4g}: the variance "
                f"is {k2:.4g} times too {'small' if k2 > 1 else 'large'}; take the mean of the squared deviations over "
                f"the normalised dims only (÷N, N their number of elements), not over the whole tensor or another count",
                f"x - media está bien, pero cada vector se divide entre sqrt(var + eps) / {checks.fmt(k[0].item(), '.4g', 'es')}: "
                f"la varianza es {checks.fmt(k2, '.4g', 'es')} veces {'menor' if k2 > 1 else 'mayor'} de lo debido; "
                f"haz la media de las desviaciones al cuadrado solo sobre las dimensiones normalizadas (÷N, N su número "
                f"de elementos), no sobre todo el tensor ni otra cuenta")
    if close(a, weight) and close(c, bias * weight):
        return ("the normalisation is right, but the bias is added before the scaling: (x̂ + bias) * weight; the "
                "output is x̂ * weight + bias",
                "la normalización está bien, pero el bias se suma antes de escalar: (x̂ + bias) * weight; la salida "
                "es x̂ * weight + bias")
    return ("the normalisation x̂ is right, but the output is x̂ scaled and shifted by other values than weight "
            "and bias: return x̂ * self.weight + self.bias",
            "la normalización x̂ está bien, pero la salida es x̂ escalada y desplazada por otros valores que weight y "
            "bias: devuelve x̂ * self.weight + self.bias")


def stage_difference(actual, x, weight, bias, eps, n):
    """For an output no named mistake explains: the first stage of LayerNorm that differs,
    read back from the output through the known weight and bias. x̂ = (y - bias) / weight
    must have mean 0 over the normalised dims (the centring), and x - mean divided by x̂
    must be one number per vector (the divisor), sqrt(var + eps)."""
    if not (isinstance(actual, torch.Tensor) and actual.shape == x.shape and bool(torch.isfinite(actual).all())
            and bool((weight.abs() > 1e-3).all())):
        return None
    x, y = x.double(), actual.double()
    dims = tuple(range(x.dim() - n, x.dim()))
    affine = _affine_difference(x, y, weight.double(), bias.double(), dims, eps)
    if affine:
        return affine
    xhat = (y - bias.double()) / weight.double()
    # Centred within float32's rounding of x̂'s own size: a tiny divisor makes x̂ huge, and
    # its mean's rounding error with it, though the centring is right.
    tolerance = 1e-3 * (1 + xhat.abs().amax())
    if not bool((xhat.mean(dims).abs() <= tolerance).all()):
        for k in range(1, x.dim() + 1):
            for other in itertools.combinations(range(x.dim()), k):
                if other != dims and bool((xhat.mean(other).abs() <= tolerance).all()):
                    return (f"(output - bias) / weight has mean 0 over dims {other}, not over the normalised dims "
                            f"{dims}: take the mean (and the variance) over the last len(normalized_shape) dims",
                            f"(salida - bias) / weight tiene media 0 sobre las dimensiones {other}, no sobre las "
                            f"normalizadas {dims}: calcula la media (y la varianza) sobre las últimas "
                            f"len(normalized_shape) dimensiones")
        return ("(output - bias) / weight does not have mean 0 over each normalised vector: the centring (x - mean "
                "over the last len(normalized_shape) dims) is where it starts to differ, or the output is not "
                "x̂ * weight + bias",
                "(salida - bias) / weight no tiene media 0 en cada vector normalizado: el centrado (x - media sobre "
                "las últimas len(normalized_shape) dimensiones) es donde empieza a diferir, o la salida no es "
                "x̂ * weight + bias")
    centred = x - x.mean(dims, keepdim=True)
    big = xhat.abs() > 1e-3
    divisor = torch.where(big, centred / torch.where(big, xhat, 1.0), float("nan"))
    per_vector = divisor.nanmedian(dim=-1, keepdim=True).values
    for d in dims[:-1][::-1]:
        per_vector = per_vector.nanmedian(dim=d, keepdim=True).values
    spread = ((divisor - per_vector).abs() / per_vector.abs().clamp_min(1e-12))[big]
    if not bool((spread <= 1e-3).all()):
        return ("x - mean is right (the output is centred), but each vector is not divided by one number: the "
                "division by sqrt(var + eps) is where it starts to differ",
                "x - media está bien (la salida está centrada), pero cada vector no se divide entre un solo número: "
                "la división entre sqrt(var + eps) es donde empieza a diferir")
    seen = torch.isfinite(per_vector)  # a constant vector (x̂ = 0) shows no divisor
    if bool(seen.any()) and bool((per_vector[seen] < 0).all()):  # no square root is negative
        return ("x̂ comes out with its sign flipped (each vector is divided by a negative number): a subtraction is "
                "reversed (mean - x where x - mean belongs) or a factor is negated",
                "x̂ sale con el signo cambiado (cada vector se divide entre un número negativo): una resta está "
                "invertida (media - x donde va x - media) o un factor está negado")
    for i, (name, value) in enumerate(_divisors(x, dims, eps).items()):
        if bool(((per_vector - value).abs() <= 1e-3 * value.abs() + 1e-9)[seen].all()):
            if i == 0:  # the right divisor: x̂ is right to 1e-3, the difference is smaller than a stage shows
                return None
            return (f"x - mean is right, but each vector is divided by {name} instead of sqrt(var + eps) (the biased "
                    f"variance, ÷N, over the normalised dims)",
                    f"x - media está bien, pero cada vector se divide entre {name} en lugar de sqrt(var + eps) (la "
                    f"varianza sesgada, ÷N, sobre las dimensiones normalizadas)")
    return ("x - mean is right, but each vector is divided by the wrong amount: compute sqrt(var + eps) with the "
            "biased variance (÷N) over the normalised dims",
            "x - media está bien, pero cada vector se divide entre una cantidad equivocada: calcula sqrt(var + eps) "
            "con la varianza sesgada (÷N) sobre las dimensiones normalizadas")
