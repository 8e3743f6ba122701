"""What kind of difference a numeric mismatch is: the error's shape, for any grader.

A check that finds a student's tensor off from the reference's, and no named classic
mistake that explains it, asks :func:`explain` what the difference looks like: a constant
factor (and which known constant it equals), a sign, axes swapped or heads interleaved, a
shift by one position, probabilities normalised along another axis, weight given to
masked positions, an offset equal to a bias or to a named tensor (a residual missing or
added twice), probabilities sharpened or flattened as if their scores were scaled, an axis
averaged or summed away, values that differ only where the mask hides them, only at one index
of one axis, or the same at every index of an axis where the expected ones differ, values cut to
whole numbers by an integer tensor or rounded to a few decimals, or right to float32's precision only. Each answer
is a sentence in English and in Spanish, given to the student after ``Likely mistake:``.

Every recogniser is a property of the two tensors alone (plus the names and constants a
grader passes as ``hints``), so it applies to mistakes nobody wrote down. A recogniser
answers only when the whole difference fits its shape, within a tolerance far looser
than float64 rounding and far tighter than any real mistake's distance from the reference;
otherwise :func:`explain` says nothing rather than guess.

Over 350 lines: one small recogniser per kind of difference, all in the one ordered list
:func:`explain` tries, and the few for masks and gradients beside them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Sequence

import torch

from .reports import Where

# Relative closeness that counts as "the same tensor" for a recogniser: loose enough for a
# student who computes in float32 (2**-24 relative per operation, a few hundred operations),
# tight enough that no mistake of the corpus is within it of another shape.
REL = 1e-4


@dataclass
class Hints:
    """What a grader knows about the compared tensors, so that a shape can be named.

    Attributes:
        axes: a name per dimension, e.g. ``("batch", "query position", "key position")``.
        constants: named numbers a factor may equal, e.g. ``{"sqrt(d_k)": 2.83}``.
        tensors: named tensors an offset may be a multiple of, e.g. ``{"the layer's input x": x}``
            (broadcastable to the compared shape), or ``(tensor, weight)`` when the reference
            output holds ``weight × tensor``, so that the weight the student used can be named.
        mask: boolean, broadcastable to the shape: True where a value is real / may be
            attended, False where the mask or the padding hides it.
        num_heads: heads the last axis is made of, when it is ``num_heads * d_k`` features.
    """

    axes: Sequence[str] = ()
    constants: dict[str, float] = field(default_factory=dict)
    tensors: dict[str, torch.Tensor | tuple[torch.Tensor, float]] = field(default_factory=dict)
    mask: torch.Tensor | None = None
    num_heads: int | None = None

    def axis(self, d: int, ndim: int) -> tuple[str, str]:
        """The name of axis ``d`` in English and Spanish."""
        d = d % ndim
        if len(self.axes) == ndim:
            return f"{self.axes[d]} (dim {d})", f"{self.axes[d]} (dim {d})"
        return f"dim {d}", f"dim {d}"


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """``a`` and ``b`` (float64) are the same tensor up to float32-level noise."""
    if a.shape != b.shape or a.numel() == 0:
        return False
    scale = max(b.abs().max().item(), a.abs().max().item(), 1e-12)
    return bool(((a - b).abs() <= REL * scale + 1e-9).all())


def _differs(a: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    """Where ``a`` is off from ``e`` by more than float32-level noise (boolean, like ``e``)."""
    return (a - e).abs() > REL * max(e.abs().max().item(), 1e-12) + 1e-9


def _finite(t: torch.Tensor) -> bool:
    return bool(torch.isfinite(t).all())


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _es(x: float) -> str:
    return _fmt(x).replace(".", ",")


def _name_constant(c: float, hints: Hints) -> str | None:
    """A name for the factor ``c``: a hinted constant, its inverse or its square."""
    usable = {name: value for name, value in hints.constants.items() if value and value not in (1.0, -1.0)}
    for form, of in (("{}", lambda v: v), ("1/{}", lambda v: 1 / v), ("{}²", lambda v: v * v)):
        for name, value in usable.items():
            if abs(c - of(value)) <= 1e-3 * abs(of(value)):
                return form.format(name)
    return None


def _sums_to_one(t: torch.Tensor, d: int) -> bool:
    """Along ``d``, every slice of ``t`` sums to 1 (probabilities) or to 0 (a fully masked
    row), and some to 1."""
    s = t.sum(d)
    return bool((((s - 1).abs() <= 1e-6) | (s.abs() <= 1e-12)).all()) and bool(((s - 1).abs() <= 1e-6).any())


# ---------------------------------------------------------------- the recognisers
# Each takes (actual, expected, hints), both float64 of one shape, and returns (en, es) or None.

def _zeros_pattern(a, e, hints):
    """Attention weights: probabilities along the last axis, exactly 0 where the mask forbids
    (other tensors have exact zeros for other reasons, sin(0) in a positional table say)."""
    zero_e, zero_a = e == 0, a.abs() <= 1e-12
    if not bool(zero_e.any()) or bool(zero_e.all()) or bool((e < 0).any()):
        return None
    if not _sums_to_one(e, -1):
        return None
    if bool((zero_a == ~zero_e).all()):
        return ("the zeros are exactly where values are expected and the values where zeros are: the mask is "
                "inverted (True means \"may attend\"; fill with -inf where the mask is False; True = blocked is "
                "nn.MultiheadAttention's convention for attn_mask and key_padding_mask, the opposite of the course's)",
                "los ceros están justo donde se esperan valores y los valores donde se esperan ceros: la máscara "
                "está invertida (True significa «puede atender»; rellena con -inf donde la máscara es False; True = "
                "bloqueado es la convención de nn.MultiheadAttention para attn_mask y key_padding_mask, la contraria "
                "a la del curso)")
    if not bool(zero_a[zero_e].all()) and not bool(zero_a[~zero_e].any()):
        leaked = int((~zero_a & zero_e).sum())
        return (f"{leaked} values that must be exactly 0 (masked positions) are not: the mask is not applied, "
                "or applied after the softmax or with a finite fill value instead of -inf",
                f"{leaked} valores que deben ser exactamente 0 (posiciones enmascaradas) no lo son: la máscara no se "
                "aplica, o se aplica después del softmax o con un valor finito en lugar de -inf")
    return None


def _truncated(a, e, hints):
    """Whole numbers where fractions are expected: the values went through an integer tensor
    (``torch.arange(n)`` without a float dtype, ``torch.zeros(..., dtype=torch.long)``), which
    truncates what is written into it."""
    if bool((a == a.trunc()).all()) and not bool((e == e.trunc()).all()):
        for how, how_es, cut in (("truncated toward zero", "truncados hacia cero", torch.trunc),
                                 ("rounded down", "redondeados hacia abajo", torch.floor)):
            if bool((a == cut(e)).all()):
                return (f"every value is the expected one {how}: an integer tensor holds or produces them "
                        "(torch.arange or torch.zeros without dtype=torch.float32, or a dtype taken from an integer "
                        "tensor)",
                        f"cada valor es el esperado {how_es}: un tensor entero los guarda o los produce (torch.arange "
                        "o torch.zeros sin dtype=torch.float32, o un dtype tomado de un tensor entero)")
    return None


def _rounded(a, e, hints):
    """Every value is the expected one rounded to a few decimals (to float32's precision):
    the code rounds its result, as a printed table is rounded."""
    tol = 2e-7 * max(1.0, e.abs().max().item())
    for n in range(0, 7):
        r = torch.round(e, decimals=n)
        if (r - e).abs().max().item() > tol and (a - r).abs().max().item() <= tol:
            return (f"every value is the expected one rounded to {n} decimals: the code rounds its result (round, "
                    f"torch.round(..., decimals={n}), or a value formatted and read back); return the values "
                    "unrounded (a table printed with a few decimals is rounded only for display)",
                    f"cada valor es el esperado redondeado a {n} decimales: el código redondea su resultado (round, "
                    f"torch.round(..., decimals={n}), o un valor formateado y vuelto a leer); devuelve los valores "
                    "sin redondear (una tabla impresa con pocos decimales se redondea solo para mostrarla)")
    return None


def _sign_lost(a, e, hints):
    """Some negative values come out positive, at the same size, and the rest are right: the
    sign was lost on the way (an abs, or a square root of a square such as sqrt(1 - sin²))."""
    tol = 1e-3 * max(1.0, e.abs().max().item())  # float32's sqrt(1 - sin²) near |sin| = 1 is off by ~3e-4
    flipped = (a - e).abs() > tol
    if bool(flipped.any()) and bool((e[flipped] < 0).all()) and bool(((a + e)[flipped].abs() <= tol).all()):
        return (f"{int(flipped.sum())} values that should be negative come out positive, at the right size: their "
                "sign is lost on the way, as an abs or a square root of a square does (such as sqrt(1 - sin²) for a "
                "cosine); compute the value itself (torch.cos, not a formula through its square)",
                f"{int(flipped.sum())} valores que deberían ser negativos salen positivos, con el tamaño correcto: "
                "pierden el signo por el camino, como con un abs o una raíz de un cuadrado (como sqrt(1 - sin²) para "
                "un coseno); calcula el valor mismo (torch.cos, no una fórmula a través de su cuadrado)")
    return None


def _half_precision(a, e, hints):
    """Values close to the expected ones, every one of them a float16 (or bfloat16) number:
    the result went through half precision (a tensor created or cast to torch.half)."""
    scale = max(1.0, e.abs().max().item())
    if (a - e).abs().max().item() > 1e-2 * scale:
        return None
    # bfloat16 first: its numbers (8 bits of mantissa) in float16's range are float16 numbers too.
    for dtype, name, digits in ((torch.bfloat16, "bfloat16", 2), (torch.float16, "float16", 3)):
        if bool((a.to(dtype).double() == a).all()) and not bool((e.to(dtype).double() == e).all()):
            return (f"every value is a {name} number (about {digits} significant digits), close to the expected "
                    f"one: the result was stored in {name} on the way (a tensor created with dtype={name} or cast "
                    "with .half()/.to()); build it in float32, the input's dtype",
                    f"cada valor es un número {name} (unas {digits} cifras significativas), cercano al esperado: el "
                    f"resultado se guardó en {name} por el camino (un tensor creado con dtype={name} o convertido con "
                    ".half()/.to()); constrúyelo en float32, el dtype de la entrada")
    return None


def _float32_precision(a, e, hints):
    """Right to float32's precision only, where float64 was asked for: a detour through float32."""
    scale = max(1.0, e.abs().max().item())
    if (a - e).abs().max().item() <= 1e-6 * scale:
        return ("the values are right to float32's precision only (errors near 1e-7), where float64 is expected: part "
                "of the computation runs in float32 (a .float(), or a tensor created without dtype=x.dtype); keep the "
                "input's dtype throughout",
                "los valores son correctos solo con la precisión de float32 (errores cercanos a 1e-7), donde se espera "
                "float64: parte del cálculo se hace en float32 (un .float(), o un tensor creado sin dtype=x.dtype); "
                "conserva el dtype de la entrada en todo el cálculo")
    return None


def _swapped_axes(a, e, hints):
    n = a.dim()
    for i in range(n):
        for j in range(i + 1, n):
            if a.size(i) == a.size(j) > 1 and _same(a.transpose(i, j), e):
                (ni, ni_es), (nj, nj_es) = hints.axis(i, n), hints.axis(j, n)
                return (f"the output is the expected one with {ni} and {nj} swapped: a transpose or a view "
                        "that takes the axes in the wrong order",
                        f"la salida es la esperada con {ni_es} y {nj_es} intercambiados: una transposición o un "
                        "view que toma los ejes en el orden equivocado")
    return None


def _interleaved_heads(a, e, hints):
    h = hints.num_heads
    if not h or h < 2 or a.dim() < 1 or a.size(-1) % h or a.size(-1) // h < 2:
        return None
    d_k = a.size(-1) // h
    lead = a.shape[:-1]
    regrouped = a.reshape(*lead, d_k, h).transpose(-1, -2).reshape(a.shape)
    if _same(regrouped, e) or _same(e.reshape(*lead, d_k, h).transpose(-1, -2).reshape(e.shape), a):
        return ("the features of the heads are interleaved: split the last axis as view(..., num_heads, d_k) "
                "and merge it back in the same order (transpose to (B, T, h, d_k) before the view)",
                "las características de las cabezas están entrelazadas: divide el último eje como "
                "view(..., num_heads, d_k) y vuelve a unirlo en el mismo orden (transpose a (B, T, h, d_k) "
                "antes del view)")
    return None


def _factor(a, e, hints):
    denominator = (e * e).sum().item()
    if denominator <= 0:
        return None
    c = (a * e).sum().item() / denominator
    if abs(c - 1) <= 1e-3 or not _same(a, c * e):
        return None
    if abs(c + 1) <= 1e-3:
        return ("every value has the opposite sign of the expected one: a sign is flipped (a subtraction "
                "written the wrong way round?)",
                "cada valor tiene el signo contrario al esperado: hay un signo cambiado (¿una resta al revés?)")
    if abs(c) <= 1e-9:
        return None
    named = _name_constant(c, hints)
    if named:
        return (f"every value is the expected one multiplied by {_fmt(c)} = {named}: look for a scaling by "
                f"{named} that is missing, applied twice or applied the wrong way (× instead of ÷)",
                f"cada valor es el esperado multiplicado por {_es(c)} = {named}: busca un escalado por "
                f"{named} que falta, se aplica dos veces o al revés (× en lugar de ÷)")
    if abs(c - 2) <= 1e-3 or abs(c - 0.5) <= 1e-3:
        en, es = ("twice", "el doble") if c > 1 else ("half", "la mitad")
        return (f"every value is {en} the expected one: a term counted twice, or a sum halved (a mean instead "
                "of a sum?)",
                f"cada valor es {es} del esperado: un término contado dos veces, o una suma dividida entre dos "
                "(¿una media en lugar de una suma?)")
    return (f"every value is the expected one multiplied by the same constant, {_fmt(c)}: look for a scaling "
            "factor (a wrong constant, or a scaling missing or applied twice)",
            f"cada valor es el esperado multiplicado por la misma constante, {_es(c)}: busca un factor de escala "
            "(una constante equivocada, o un escalado que falta o se aplica dos veces)")


# The Spanish of the names graders give Hints.tensors (English), by their beginning.
_ES_NAMES = {"the output of ": "la salida de ", "the layer's input x": "la entrada x de la capa",
             "the memory": "la memoria", "the norm's input": "la entrada de la norma",
             "the positional encoding": "la codificación posicional",
             "the token embedding": "el embedding de los tokens", "the query": "la consulta",
             "the input x": "la entrada x"}


def _es_name(name: str) -> str:
    return next((es + name[len(en):] for en, es in _ES_NAMES.items() if name.startswith(en)), name)


def _offset(a, e, hints):
    d = a - e
    scale = max(e.abs().max().item(), 1e-12)
    for name, t in hints.tensors.items():
        nombre = _es_name(name)
        t, weight = t if isinstance(t, tuple) else (t, None)
        try:
            t = t.double().expand_as(d)
        except RuntimeError:
            continue
        if not bool((t.abs() > 1e-9).any()):
            continue
        k = (d * t).sum().item() / (t * t).sum().item()
        if not _same(d, k * t):
            continue
        if abs(k - 1) <= 1e-3:
            return (f"the output is the expected one plus {name}: {name} is added where it does not belong, or "
                    "twice (a residual connection or a bias counted once too often)",
                    f"la salida es la esperada más {nombre}: {nombre} se suma donde no corresponde, o dos veces "
                    "(una conexión residual o un sesgo contado una vez de más)")
        if abs(k + 1) <= 1e-3:
            return (f"the output is the expected one minus {name}: {name} is never added (a missing residual "
                    "connection or bias)",
                    f"la salida es la esperada menos {nombre}: {nombre} nunca se suma (falta una conexión residual "
                    "o un sesgo)")
        if weight is not None:
            got, want = weight + k, _name_constant(weight, hints) or _fmt(weight)
            got_name = f"{_fmt(got)} = {_name_constant(got, hints)}" if _name_constant(got, hints) else _fmt(got)
            return (f"{name} enters the output multiplied by {got_name} instead of {want}: a scaling of it that "
                    "is wrong, missing or applied twice",
                    f"{nombre} entra en la salida multiplicado por {got_name.replace('.', ',')} en lugar de {want}: "
                    "un escalado suyo incorrecto, que falta o se aplica dos veces")
        return (f"the output is the expected one plus {_fmt(k)} × {name}: {name} enters with the wrong weight "
                "(a scaling of it missing, doubled or wrong)",
                f"la salida es la esperada más {_es(k)} × {nombre}: {nombre} entra con el peso equivocado (un "
                "escalado suyo que falta, se duplica o es incorrecto)")
    if d.abs().max().item() <= REL * scale:
        return None
    flat = d.reshape(-1, d.size(-1)) if d.dim() else d.reshape(1, 1)
    if bool(((flat - flat[:1]).abs() <= REL * scale + 1e-9).all()):
        if bool(((flat - flat[0, 0]).abs() <= REL * scale + 1e-9).all()):
            k = flat[0, 0].item()
            return (f"every value is the expected one plus the same constant, {_fmt(k)}: a constant added or "
                    "subtracted where it should not be",
                    f"cada valor es el esperado más la misma constante, {_es(k)}: se suma o resta una constante "
                    "donde no se debe")
        return ("the output is off by the same vector at every position, varying only along the last axis: a "
                "bias that is missing, added twice, or the wrong one",
                "la salida difiere en el mismo vector en cada posición, que solo varía a lo largo del último eje: "
                "un sesgo (bias) que falta, se suma dos veces o no es el que toca")
    return None


def _shifted(a, e, hints):
    n = a.dim()
    for d in range(n):
        size = a.size(d)
        if size < 3:
            continue
        late, early = a.narrow(d, 1, size - 1), a.narrow(d, 0, size - 1)
        axis, eje = hints.axis(d, n)
        if _same(late, e.narrow(d, 0, size - 1)):
            return (f"along {axis}, position i holds what is expected at position i - 1: everything is shifted "
                    "one position later (an off-by-one in a slice or in a shift)",
                    f"a lo largo de {eje}, la posición i tiene lo esperado en la posición i - 1: todo está "
                    "desplazado una posición (un error de uno en un corte o en un desplazamiento)")
        if _same(early, e.narrow(d, 1, size - 1)):
            return (f"along {axis}, position i holds what is expected at position i + 1: everything is shifted "
                    "one position earlier (an off-by-one in a slice or in a shift)",
                    f"a lo largo de {eje}, la posición i tiene lo esperado en la posición i + 1: todo está "
                    "desplazado una posición antes (un error de uno en un corte o en un desplazamiento)")
    return None


def _normalised_axis(a, e, hints):
    """Probabilities: where does the reference sum to 1, and where does the student's?"""
    if bool((e < -1e-12).any()) or a.dim() < 1:
        return None
    n = a.dim()
    expected_axes = [d for d in range(n) if e.size(d) > 1 and _sums_to_one(e, d)]
    if not expected_axes:
        return None
    want = expected_axes[-1]
    axis, eje = hints.axis(want, n)
    if _sums_to_one(a, want):
        return None
    others = [d for d in range(n) if d != want and a.size(d) > 1 and _sums_to_one(a, d)]
    if others and not bool((a < -1e-12).any()):
        got, got_es = hints.axis(others[-1], n)
        return (f"the values sum to 1 along {got} instead of along {axis}: the softmax (or the normalisation) "
                f"is taken over the wrong axis; use dim=-1 for the keys",
                f"los valores suman 1 a lo largo de {got_es} en lugar de {eje}: el softmax (o la normalización) "
                f"se toma sobre el eje equivocado; usa dim=-1 para las claves")
    zeroed = (a.abs() <= 1e-12) & (e.abs() > 1e-12)
    if bool(zeroed.any()) and bool(((a - e).abs() <= 1e-6 + 1e-6 * e.abs())[~zeroed].all()):
        # The right probabilities with some set to 0 afterwards: something zeroes them after
        # the normalisation (a mask, a guard), not a softmax missing; which ones is the clue.
        n_zeroed, total = int(zeroed.sum()), zeroed.numel()
        return Where(f"{n_zeroed} of {total} values are 0 where the expected probability is not, and every other value "
                     f"is right: they are set to 0 after the values along {axis} were normalised, so those rows no "
                     "longer sum to 1",
                     f"{n_zeroed} de {total} valores son 0 donde la probabilidad esperada no lo es, y todos los demás "
                     f"son correctos: se ponen a 0 después de normalizar los valores a lo largo de {eje}, así que "
                     "esas filas ya no suman 1")
    sums = a.sum(want, keepdim=True)
    if bool((sums < 1 - 1e-6).any()) and bool((sums <= 1 + 1e-6).all()) and _same(a, e * sums):
        # Each row the expected one times its own factor below 1: the softmax is there, and
        # part of each row's weight was taken away after it (the positions that held it say why).
        low, high = sums.min().item(), sums.max().item()
        return Where(f"every row along {axis} is the expected one times a factor below 1 of its own (the rows sum to "
                     f"{_fmt(low)} to {_fmt(high)}, not 1): part of each row's weight is lost after the normalisation",
                     f"cada fila a lo largo de {eje} es la esperada por un factor menor que 1 propio (las filas suman "
                     f"de {_es(low)} a {_es(high)}, no 1): parte del peso de cada fila se pierde tras la normalización")
    return (f"the values along {axis} should be probabilities that sum to 1, and they do not: a missing or "
            "misplaced softmax (or normalisation)",
            f"los valores a lo largo de {eje} deberían ser probabilidades que suman 1, y no lo hacen: un softmax "
            "(o una normalización) que falta o está mal colocado")


def _tempered(a, e, hints):
    """Probabilities along the last axis that are the expected ones raised to a power c and
    renormalised: softmax(c · scores) for softmax(scores), the scores scaled by c."""
    if a.dim() < 1 or a.size(-1) < 2 or bool((e < 0).any()) or bool((a < 0).any()):
        return None
    if not (_sums_to_one(e, -1) and _sums_to_one(a, -1)) or not torch.equal(e > 0, a > 0):
        return None
    live = e > 1e-250
    x, y = torch.where(live, e.log(), 0.0), torch.where(live, a.clamp_min(1e-300).log(), 0.0)
    count = live.sum(-1, keepdim=True).clamp_min(1)
    x = torch.where(live, x - x.sum(-1, keepdim=True) / count, 0.0)  # centred per row: the softmax's
    y = torch.where(live, y - y.sum(-1, keepdim=True) / count, 0.0)  # normaliser drops out
    denominator = (x * x).sum().item()
    if denominator <= 1e-12:
        return None
    c = (x * y).sum().item() / denominator
    if y.abs().max().item() <= 1e-9 * max(x.abs().max().item(), 1.0):
        # Uniform rows: any scores that are equal within a row give them (scores never
        # computed, or all alike), not only a scaling; say what the rows are.
        return Where("every row of probabilities is uniform over the positions the expected ones give weight to: the "
                     "scores that reach the softmax are the same within each row",
                     "cada fila de probabilidades es uniforme sobre las posiciones a las que las esperadas dan peso: "
                     "las puntuaciones que llegan al softmax son iguales dentro de cada fila")
    if abs(c - 1) <= 1e-3 or c <= 0 or not _same(y, c * x):
        return None
    if c < 1e-3:
        # Uniform rows: any scores that are equal within a row give them (scores never
        # computed, or all alike), not only a scaling; say what the rows are.
        return Where("every row of probabilities is uniform over the positions the expected ones give weight to: the "
                     "scores that reach the softmax are the same within each row",
                     "cada fila de probabilidades es uniforme sobre las posiciones a las que las esperadas dan peso: "
                     "las puntuaciones que llegan al softmax son iguales dentro de cada fila")
    named = _name_constant(c, hints)
    said = f"{_fmt(c)} = {named}" if named else _fmt(c)
    dicho = f"{_es(c)} = {named}" if named else _es(c)
    return (f"the probabilities are the expected ones {'sharpened' if c > 1 else 'flattened'}, as if the scores "
            f"before the softmax were multiplied by {said}: a scaling of the scores (by sqrt(d_k), or a "
            f"temperature) is missing, applied twice or applied the wrong way (× instead of ÷)",
            f"las probabilidades son las esperadas {'más concentradas' if c > 1 else 'más repartidas'}, como si las "
            f"puntuaciones antes del softmax se multiplicaran por {dicho}: un escalado de las puntuaciones (por "
            f"sqrt(d_k), o una temperatura) falta, se aplica dos veces o al revés (× en lugar de ÷)")


def _only_masked(a, e, hints):
    if hints.mask is None:
        return None
    try:
        hidden = ~hints.mask.bool().expand_as(a)
    except RuntimeError:
        return None
    bad = _differs(a, e)
    if bool(bad.any()) and not bool(bad[~hidden].any()):
        return ("the values differ only at masked or padded positions; everything the mask keeps is right: "
                "those positions are filled differently (or the padding is not handled as the reference does)",
                "los valores solo difieren en posiciones enmascaradas o de relleno; todo lo que la máscara "
                "conserva está bien: esas posiciones se rellenan de otra forma")
    return None


def _one_index(bad: torch.Tensor, a: torch.Tensor, hints: Hints) -> tuple[str, str] | None:
    """Every differing value (``bad``) lies at one index of one axis: a first or last row
    computed apart from the others (a loop from 1, a special case, a value left as it was)."""
    n = bad.dim()
    if n < 2 or int(bad.sum()) < 2:
        return None
    for d in range(n):
        size = bad.size(d)
        if size < 3:
            continue
        hit = bad.any(dim=[k for k in range(n) if k != d]).nonzero().flatten().tolist()
        if len(hit) != 1:
            continue
        i = hit[0]
        axis, eje = hints.axis(d, n)
        where, donde = {0: ("the first", "el primero"), size - 1: ("the last", "el último")}.get(i, ("", ""))
        at, en_el = f"index {i}{f' ({where})' if where else ''}", f"el índice {i}{f' ({donde})' if donde else ''}"
        zeros = not bool(a.select(d, i).any())
        # A WHERE: one index apart has many causes (a loop that skips it, a special case, an
        # input that is extreme only there, padding only it has), which the output cannot tell.
        return Where(f"every value that differs is at {at} of {axis}; the other {size - 1} are right"
                     + ("; yours is all zeros there" if zeros else ""),
                     f"todos los valores que difieren están en {en_el} de {eje}; los otros {size - 1} son correctos"
                     + ("; el tuyo es todo ceros ahí" if zeros else ""))
    return None


def _every_index_alike(a: torch.Tensor, e: torch.Tensor, hints: Hints, same) -> tuple[str, str] | None:
    """Along one axis, every slice of ``a`` is the same where ``e``'s differ: one value
    written into every row at once (``batch[:, :n] = item`` where ``batch[b, :n]`` belongs)."""
    n = e.dim()
    for d in range(n if n >= 2 else 0):
        size = e.size(d)
        alike = lambda t: all(same(t.select(d, i), t.select(d, 0)) for i in range(1, size))  # noqa: E731
        if size < 2 or not alike(a) or alike(e):
            continue
        axis, eje = hints.axis(d, n)
        k = next((i for i in range(size) if same(a.select(d, 0), e.select(d, i))), None)
        which = f", and each is the expected one at index {k}" if k is not None else ""
        cual = f", y cada una es la esperada en el índice {k}" if k is not None else ""
        return (f"all {size} slices along {axis} hold the same values, where the expected ones differ{which}: one "
                "value is written into every index of that axis at once (batch[:, ...] = item where batch[b, ...] "
                "belongs, an index forgotten in a loop) or broadcast over it",
                f"las {size} porciones a lo largo de {eje} tienen los mismos valores, donde las esperadas difieren"
                f"{cual}: un valor se escribe en todos los índices de ese eje a la vez (batch[:, ...] = item donde va "
                "batch[b, ...], un índice olvidado en un bucle) o se difunde sobre él")
    return None


def _one_index_float(a, e, hints):
    return _one_index(_differs(a, e), a, hints)


def _every_index_alike_float(a, e, hints):
    return _every_index_alike(a, e, hints, _same)


RECOGNISERS: tuple[Callable, ...] = (
    _truncated, _rounded, _zeros_pattern, _swapped_axes, _interleaved_heads, _factor, _sign_lost, _offset, _shifted,
    _normalised_axis, _tempered, _only_masked, _every_index_alike_float, _one_index_float, _half_precision,
    _float32_precision,
)


def explain(actual, expected, hints: Hints | None = None) -> tuple[str, str] | None:
    """What kind of difference ``actual`` is from ``expected``, as (English, Spanish), or
    None when no recogniser fits the whole difference."""
    if not (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)):
        return None
    if not (actual.is_floating_point() and expected.is_floating_point()):
        return None
    hints = hints or Hints()
    if actual.shape != expected.shape:
        a, e = actual.detach().double(), expected.detach().double()
        return _permuted_shape(a, e, hints) or _reduced_axis(a, e, hints)
    a, e = actual.detach().double(), expected.detach().double()
    if not (_finite(e) and _finite(a)) or a.numel() < 2:
        return None
    for recogniser in RECOGNISERS:
        try:
            found = recogniser(a, e, hints)
        except (RuntimeError, ValueError, ZeroDivisionError, IndexError):  # shapes a recogniser cannot read
            found = None
        if found:
            return found
    return None


def _permuted_shape(a, e, hints, same=_same):
    """A tensor of the right values whose axes are in another order."""
    if a.dim() != e.dim() or sorted(a.shape) != sorted(e.shape):
        return None
    for perm in itertools.permutations(range(a.dim())):
        if tuple(a.shape[p] for p in perm) == tuple(e.shape) and same(a.permute(perm), e):
            return (f"the values are right but the axes are in another order (shape {tuple(a.shape)} instead of "
                    f"{tuple(e.shape)}): permute(*{perm}) of the output gives the expected tensor; check the order "
                    "of a transpose, view or reshape",
                    f"los valores son correctos pero los ejes están en otro orden (forma {tuple(a.shape)} en lugar "
                    f"de {tuple(e.shape)}): permute(*{perm}) de la salida da el tensor esperado; revisa el orden de "
                    "un transpose, view o reshape")
    return None


def _reduced_axis(a, e, hints):
    """A tensor with one axis fewer: the expected one averaged, summed or indexed over it."""
    if a.dim() != e.dim() - 1:
        return None
    for d in range(e.dim()):
        if tuple(e.shape[:d] + e.shape[d + 1:]) != tuple(a.shape):
            continue
        axis, eje = hints.axis(d, e.dim())
        for how, how_es, reduce in (("averaged", "promediados", lambda t: t.mean(d)),
                                    ("summed", "sumados", lambda t: t.sum(d)),
                                    ("taken at index 0 only", "tomados solo en el índice 0", lambda t: t.select(d, 0))):
            if _same(a, reduce(e)):
                return (f"the values are the expected ones {how} over {axis}: keep that axis (shape "
                        f"{tuple(e.shape)}, not {tuple(a.shape)})",
                        f"los valores son los esperados {how_es} sobre {eje}: conserva ese eje (forma "
                        f"{tuple(e.shape)}, no {tuple(a.shape)})")
    return None


def explain_mask(actual, expected, hints: Hints | None = None) -> tuple[str, str] | None:
    """The same for boolean or integer tensors compared exactly (masks, token ids)."""
    if not (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)):
        return None
    hints = hints or Hints()
    n = expected.dim()
    if actual.shape != expected.shape:
        for d in range(n):
            if actual.dim() == n and actual.size(d) == expected.size(d) + 1 and all(
                    actual.size(k) == expected.size(k) for k in range(n) if k != d):
                size = expected.size(d)
                axis, eje = hints.axis(d, n)
                if torch.equal(actual.narrow(d, 1, size), expected):
                    return (f"one extra element at the start of {axis}: the rest is right (a start token kept?)",
                            f"un elemento de más al principio de {eje}: el resto es correcto (¿se conserva un "
                            "token inicial?)")
                if torch.equal(actual.narrow(d, 0, size), expected):
                    return (f"one extra element at the end of {axis}: the rest is right",
                            f"un elemento de más al final de {eje}: el resto es correcto")
        return _permuted_shape(actual, expected, hints, same=torch.equal)
    if actual.dtype == torch.bool and expected.dtype == torch.bool:
        if torch.equal(actual, ~expected):
            return ("every value is the opposite of the expected one: the mask's polarity is inverted (True means "
                    "\"may attend\" / a real token; True = blocked is nn.MultiheadAttention's convention for "
                    "attn_mask and key_padding_mask, the opposite of the course's)",
                    "cada valor es el contrario del esperado: la polaridad de la máscara está invertida (True "
                    "significa «puede atender» / un token real; True = bloqueado es la convención de "
                    "nn.MultiheadAttention para attn_mask y key_padding_mask, la contraria a la del curso)")
        if n >= 2 and actual.size(-1) == actual.size(-2) and torch.equal(actual.transpose(-1, -2), expected):
            return ("the mask is the transpose of the expected one (rows and columns swapped): rows are the "
                    "positions that attend (queries), columns the positions attended to (keys)",
                    "la máscara es la traspuesta de la esperada (filas y columnas intercambiadas): las filas son "
                    "las posiciones que atienden (consultas), las columnas las atendidas (claves)")
        if n >= 2 and actual.size(-1) == actual.size(-2):
            T = actual.size(-1)
            ones = torch.ones(T, T, dtype=torch.bool)
            for k, (en, es) in {
                -1: ("each position cannot see itself", "cada posición no puede verse a sí misma"),
                1: ("each position also sees the next one", "cada posición también ve la siguiente"),
            }.items():
                if torch.equal(actual, expected & ones.tril(k)) or torch.equal(actual, expected | ones.tril(k)):
                    return (f"the causal part is off by one diagonal: {en} (torch.tril with diagonal=0)",
                            f"la parte causal está desplazada una diagonal: {es} (torch.tril con diagonal=0)")
    if actual.dtype == expected.dtype and n >= 1:
        for d in range(n):
            size = expected.size(d)
            if size < 3:
                continue
            axis, eje = hints.axis(d, n)
            if torch.equal(actual.narrow(d, 1, size - 1), expected.narrow(d, 0, size - 1)):
                return (f"along {axis}, each value is the one expected one position earlier: shifted by one",
                        f"a lo largo de {eje}, cada valor es el esperado una posición antes: desplazado en uno")
            if torch.equal(actual.narrow(d, 0, size - 1), expected.narrow(d, 1, size - 1)):
                return (f"along {axis}, each value is the one expected one position later: shifted by one",
                        f"a lo largo de {eje}, cada valor es el esperado una posición después: desplazado en uno")
    if actual.dtype == expected.dtype:
        return _every_index_alike(actual, expected, hints, torch.equal) or _one_index(actual != expected, actual, hints)
    return None


def gradient(actual_grad, expected_grad, outputs_agree: bool, what: str) -> tuple[str, str] | None:
    """Outputs that agree with gradients that do not: the graph is broken somewhere."""
    if not outputs_agree:
        return None
    if actual_grad is None or (isinstance(actual_grad, torch.Tensor) and not bool(actual_grad.any())
                               and isinstance(expected_grad, torch.Tensor) and bool(expected_grad.any())):
        return (f"the output is right but no gradient reaches {what}: something detaches it from the graph "
                "(.detach(), .data, .item(), torch.no_grad, or a new tensor built from its values)",
                f"la salida es correcta pero ningún gradiente llega a {what}: algo lo separa del grafo "
                "(.detach(), .data, .item(), torch.no_grad, o un tensor nuevo construido con sus valores)")
    shape = explain(actual_grad, expected_grad)
    if shape:
        return (f"the output is right but the gradient of {what} is not, and {shape[0]}",
                f"la salida es correcta pero el gradiente de {what} no, y {shape[1]}")
    return (f"the output is right but the gradient of {what} is not: part of the computation is cut from the "
            "graph (.detach(), .data, an in-place change) or uses a value that does not depend on the input",
            f"la salida es correcta pero el gradiente de {what} no: parte del cálculo está separada del grafo "
            "(.detach(), .data, un cambio in-place) o usa un valor que no depende de la entrada")


