"""Verdict helpers for hidden graders; they run in the grading process only.

Every value a grader compares has come back through ``sandbox/child/wire.py`` as plain data, and is
validated here (a real tensor, the expected dtype and shape) before any comparison.
A failed check raises :class:`CheckFailure` with an English and a Spanish message; only
that message reaches the student, never the grader's source.

Over 350 lines: the verdict vocabulary every grader shares, kept in the one module graders import.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable

import torch

from ..sandbox.child.wire import Unsupported
from . import differences, shapes
from .reports import CAUSE, LIKELY_EN, LIKELY_ES, kind_of


class CheckFailure(AssertionError):
    """A check failed; ``str()`` is the student-facing explanation, in English then Spanish.

    A failure may carry one diagnosis after ``Likely mistake:``: a named classic mistake
    (:meth:`naming`), or else the error's shape or the stage where it starts
    (:meth:`shaped`), which a named mistake found later replaces."""

    def __init__(self, en: str, es: str, *, plain: tuple[str, str] | None = None, mistake: "Mistake | None" = None,
                 diagnosis: str | None = None):
        super().__init__(f"{en}\n{es}")
        self.en, self.es = en, es
        self._plain = plain  # the message without its shape diagnosis, when it has one
        # The classic mistake this failure names (:meth:`naming`), if any: kept as data, so
        # that nothing reads it back out of the text (a student's message could hold it).
        self.mistake = mistake
        # The kind of its diagnosis line (reports.CAUSE or reports.WHERE), None without one:
        # data for the measurements of feedback quality, like ``mistake``.
        self.diagnosis = CAUSE if mistake is not None else diagnosis

    def naming(self, mistake: "Mistake") -> "CheckFailure":
        """The same failure, followed by the classic mistake it most likely comes from."""
        en, es = self._plain or (self.en, self.es)
        return CheckFailure(f"{en}\n{LIKELY_EN}{mistake.en}", f"{es}\n{LIKELY_ES}{mistake.es}", mistake=mistake)

    @property
    def named(self) -> bool:
        """Whether this failure names a classic mistake (not only the error's shape)."""
        return self.mistake is not None

    def shaped(self, found: tuple[str, str] | None, replace: bool = False) -> "CheckFailure":
        """The same failure, followed by the error's shape or the stage where it starts
        (``shapes``, ``localise``), unless it already carries a diagnosis (that is not
        only a shape, when ``replace``)."""
        if not found or self.named or (self._plain is not None and not replace):
            return self
        en, es = self._plain or (self.en, self.es)
        return CheckFailure(f"{en}\n{LIKELY_EN}{found[0]}", f"{es}\n{LIKELY_ES}{found[1]}", plain=(en, es),
                            diagnosis=kind_of(found))


@dataclass(frozen=True)
class Mistake:
    """A classic mistake a failed check can recognise: ``output`` computes what the code
    would return had it been made (only once the check has failed, so diagnostics cost
    nothing on correct code); ``en``/``es`` name it for the student. A mistake without an
    ``output`` is named by a grader's own reasoning, never recognised by its output."""

    en: str
    es: str
    output: Callable[[], object] | None = None


def recognise(actual, mistakes: Iterable[Mistake], matches: Callable[[object, object], bool]) -> Mistake | None:
    """The first mistake whose output ``matches`` what the student's code returned."""
    for mistake in mistakes:
        if mistake.output is None:
            continue
        try:
            if matches(actual, mistake.output()):
                return mistake
        except Exception:  # a diagnostic that cannot apply to these values recognises nothing
            continue
    return None


def matches(atol: float, rtol: float) -> Callable[[object, object], bool]:
    """A ``recognise`` comparison: same shape, close where finite, NaN exactly where the
    mistake gives NaN (a missing eps divides 0 by 0; a fully masked row softmaxes to NaN)."""
    def match(actual, expected) -> bool:
        if not (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
                and actual.shape == expected.shape):
            return False
        nan = torch.isnan(expected)
        return (torch.equal(torch.isnan(actual), nan)
                and bool(((actual.double() - expected.double()).abs()[~nan]
                          <= atol + rtol * expected.double().abs()[~nan]).all()))
    return match


DROPOUT_IN_EVAL = Mistake(
    "dropout is applied in eval mode too: use self.dropout (nn.Dropout) or F.dropout(..., training=self.training)",
    "el dropout también se aplica en modo evaluación: usa self.dropout (nn.Dropout) o "
    "F.dropout(..., training=self.training)")


def randn(rng: torch.Generator, *size) -> torch.Tensor:
    """Standard normal float64 values of shape ``size``, drawn from the test's ``rng``."""
    return torch.randn(*size, generator=rng, dtype=torch.float64)


def inverted_dropout(got: torch.Tensor, want: torch.Tensor, p: float, atol) -> bool:
    """Whether ``got`` is ``want`` through inverted dropout with probability ``p`` (what
    nn.Dropout does in training mode): every value either dropped (0) or kept and scaled by
    1/(1 - p), within ``atol`` (a number, or a tensor like ``want``), with some of each."""
    dropped = got.abs() <= atol
    kept = (got - want / (1 - p)).abs() <= atol
    return bool((dropped | kept).all()) and bool(dropped.any()) and bool(kept.any())


def every_mask(d: int) -> torch.Tensor:
    """Every 0/1 mask of ``d`` values, (2^d, d) float64: what a dropout may keep of a vector,
    for checks that try them all where a LayerNorm hides which one it was."""
    return torch.tensor([[(m >> i) & 1 for i in range(d)] for m in range(2 ** d)], dtype=torch.float64)


def best_masks(candidates: torch.Tensor, got: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For outputs ``got`` (..., n) and ``candidates`` (..., M, n), what each output would be
    under each of the M ``masks`` (M, d): each output's smallest largest-error over the masks,
    and that mask."""
    error = (candidates - got[..., None, :]).abs().amax(dim=-1)  # (..., M)
    return error.amin(dim=-1), masks[error.argmin(dim=-1)]


def dropout_rate(got: torch.Tensor, want: torch.Tensor, atol) -> float | None:
    """The probability ``q`` of the inverted dropout that turns ``want`` into ``got`` (each
    value dropped, or kept and scaled by one common 1/(1 - q)), or None when no single
    rate explains ``got``; a student's dropout that ignores its argument shows here as the
    rate it hard-codes."""
    dropped = got.abs() <= atol
    kept = ~dropped & (want.abs() > 1e-6)
    if not bool(kept.any()) or not bool(dropped.any()):
        return None
    scale = (got[kept].double() / want[kept].double()).median().item()
    if not scale > 1 or not inverted_dropout(got, want, 1 - 1 / scale, atol):
        return None
    return 1 - 1 / scale


def rescaled_per_row(got: torch.Tensor, want: torch.Tensor, atol) -> bool:
    """Whether ``got`` is ``want`` with some values dropped (0) and the kept ones of each row
    (last axis) scaled by a factor of that row, not one common factor: what a dropout followed
    by a renormalisation, or a dropout whose scaling is computed from the row, gives."""
    dropped = got.abs() <= atol
    kept = ~dropped & (want.abs() > 1e-6)
    if not bool(dropped.any()) or not bool(kept.any()):
        return False
    ratio = torch.where(kept, got.double() / want.double(), torch.nan)
    low = ratio.nan_to_num(nan=float("inf")).amin(-1)
    high = ratio.nan_to_num(nan=float("-inf")).amax(-1)
    rows = kept.any(-1)
    same_in_row = bool(((high - low).abs() <= 1e-6 * high.abs().clamp_min(1))[rows].all())
    return same_in_row and float(high[rows].max() - low[rows].min()) > 1e-6


RESCALED_PER_ROW = Mistake(
    "the kept values are scaled by a factor that changes from row to row (renormalised after the dropout, so "
    "each row sums to 1 again?), not by the fixed 1/(1 - p): nn.Dropout already scales; use its output as it is",
    "los valores conservados se escalan por un factor que cambia de fila en fila (¿renormalizados tras el "
    "dropout, para que cada fila vuelva a sumar 1?), no por el 1/(1 - p) fijo: nn.Dropout ya escala; usa su "
    "salida tal cual")


def wrong_dropout_rate(q: float | None, p: float) -> Mistake | None:
    """The mistake of a dropout that acts at rate ``q`` when the module was given ``p``."""
    if q is None or abs(q - p) <= 1e-3:
        return None
    if abs(q - (1 - p)) <= 1e-3:
        return Mistake(f"dropout acts with p = {q:.3g} = 1 - dropout: nn.Dropout(p) takes the probability of "
                       f"dropping a unit, not of keeping it; pass dropout itself (nn.Dropout(dropout))",
                       f"el dropout actúa con p = {fmt(q, '.3g', 'es')} = 1 - dropout: nn.Dropout(p) recibe la "
                       "probabilidad de anular una unidad, no la de conservarla; pasa dropout tal cual "
                       "(nn.Dropout(dropout))")
    if abs(q - (1 - (1 - p) ** 2)) <= 1e-3:
        # Two dropouts of rate p in a row keep (1 - p)² of the values, each scaled twice: the
        # argument does reach the module, once too often.
        return Mistake(f"dropout acts with p = {q:.3g} = 1 - (1 - dropout)², what two dropouts of rate {p:g} in a row "
                       "give: a dropout is applied twice to the same values (once more on an output already dropped); "
                       "keep one",
                       f"el dropout actúa con p = {fmt(q, '.3g', 'es')} = 1 - (1 - dropout)², lo que dan dos "
                       f"dropouts de tasa {fmt(p, 'g', 'es')} seguidos: se aplica un dropout dos veces a los mismos "
                       "valores (otra vez sobre una salida ya con dropout); deja uno")
    return Mistake(f"dropout acts with p = {q:.3g}, not with the dropout={p:g} given to __init__: pass the argument on "
                   "(nn.Dropout(dropout)) instead of a fixed rate",
                   f"el dropout actúa con p = {fmt(q, '.3g', 'es')}, no con el dropout={fmt(p, 'g', 'es')} dado a "
                   "__init__: pasa el argumento (nn.Dropout(dropout)) en lugar de una tasa fija")


def fmt(x, spec: str = "", lang: str = "en") -> str:
    """``x`` formatted by ``spec`` in ``lang``: Spanish writes a decimal comma and groups
    thousands with a space (1 234 567,5); English writes 1,234,567.5."""
    text = format(x, spec)
    if lang != "es":
        return text
    return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", " ")


def _allclose(actual, expected, atol: float, rtol: float) -> bool:
    return (isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
            and actual.shape == expected.shape and not torch.isnan(actual).any()
            and bool(((actual.double() - expected.double()).abs()
                      <= atol + rtol * expected.double().abs()).all()))


def expect(condition: bool, en: str, es: str, mistake: Mistake | None = None) -> None:
    """A CheckFailure saying ``en``/``es`` (and naming ``mistake``, when given) unless ``condition``."""
    if not condition:
        failure = CheckFailure(en, es)
        raise failure.naming(mistake) if mistake else failure


def _kind(value) -> str:
    if isinstance(value, Unsupported):
        return value.type_name
    if isinstance(value, torch.Tensor):
        return f"tensor {tuple(value.shape)} {str(value.dtype).replace('torch.', '')}"
    return type(value).__name__


def unrefused(name: str, value, rule: str, error: dict | None) -> Mistake:
    """What an argument ``name=value`` outside ``rule`` says about the student's check when
    it does not raise the ValueError naming ``name`` that the exercise asks for; ``error``
    is what it raised instead (``student.error_of``), or None."""
    if error is not None and error["type"] == "ValueError":
        return Mistake(f"the ValueError's message must name {name} and what is allowed ({rule}), e.g. "
                       f"ValueError(f\"{name} must be ...: got {{{name}}}\")",
                       f"el mensaje del ValueError debe nombrar {name} y lo permitido ({rule}), p. ej. "
                       f"ValueError(f\"{name} debe ser ...: se obtuvo {{{name}}}\")")
    happened_en = "is accepted" if error is None else f"gets past the checks and crashes later ({error['type']})"
    happened_es = "se acepta" if error is None else f"pasa las comprobaciones y falla después ({error['type']})"
    return Mistake(f"{name}={value} {happened_en}: check {rule} at the start and raise ValueError otherwise (mind "
                   "the boundary: < and <= are not the same check)",
                   f"{name}={value} {happened_es}: comprueba {rule} al principio y lanza ValueError si no (cuidado "
                   "con el límite: < y <= no son la misma comprobación)")


def tensor(value, what: str, shape=None, dtype=None) -> torch.Tensor:
    """``value`` if it is a tensor of the given shape and dtype, else a CheckFailure."""
    if not isinstance(value, torch.Tensor):
        failure = CheckFailure(
            f"{what}: expected a tensor, got {_kind(value)}",
            f"{what}: se esperaba un tensor, se obtuvo {_kind(value)}",
        )
        if isinstance(value, list) and value and isinstance(value[0], torch.Tensor):
            raise failure.naming(SEVERAL_RETURNED)
        # A shape, not a named mistake: a caller that knows more replaces it.
        if value is None:
            raise failure.shaped(NO_GRADIENT if what.startswith("gradient") else NONE_RETURNED)
        if _numbers(value):
            raise failure.shaped(NUMBERS_RETURNED)
        raise failure
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise CheckFailure(
            f"{what}: expected shape {tuple(shape)}, got {tuple(value.shape)}",
            f"{what}: se esperaba la forma {tuple(shape)}, se obtuvo {tuple(value.shape)}",
        ).shaped(differences.explain_shape(tuple(value.shape), tuple(shape)))
    if dtype is not None and value.dtype != dtype:
        want, got = str(dtype).replace("torch.", ""), str(value.dtype).replace("torch.", "")
        raise CheckFailure(
            f"{what}: expected dtype {want}, got {got}",
            f"{what}: se esperaba el dtype {want}, se obtuvo {got}",
        ).shaped(differences.explain_dtype(value.dtype, dtype))
    return value


def _numbers(value, depth=0) -> bool:
    """Whether ``value`` is a list or tuple of numbers, or of such lists (a batch as nested lists)."""
    if not isinstance(value, (list, tuple)) or depth > 3:
        return False
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) or _numbers(v, depth + 1) for v in value)


SEVERAL_RETURNED = Mistake(
    "several values are returned where one tensor belongs: a result such as attention's (output, weights) is "
    "passed on or returned whole; take the value you need (out, _ = ...)",
    "se devuelven varios valores donde va un solo tensor: un resultado como el (salida, pesos) de la atención se "
    "pasa o se devuelve entero; toma el valor que necesitas (out, _ = ...)")
NUMBERS_RETURNED = ("a Python list of numbers (or of such lists, from .tolist()) where a tensor belongs: build the "
                    "tensor from it (torch.tensor(ids, dtype=torch.long) for ids), or keep the tensor",
                    "una lista de Python con números (o con listas así, de .tolist()) donde va un tensor: construye "
                    "el tensor a partir de ella (torch.tensor(ids, dtype=torch.long) para ids), o conserva el tensor")
NONE_RETURNED = (
    "None where a tensor belongs: a return statement is missing (or sits inside an if), or None is returned in place "
    "of a value that must always be computed and returned",
    "None donde va un tensor: falta un return (o está dentro de un if), o se devuelve None en lugar de un valor que "
    "siempre hay que calcular y devolver")
NO_GRADIENT = (
    "no gradient reached it (its .grad is None): it is cut from the graph (.detach(), .data, .item(), torch.no_grad, "
    "a new tensor built from its values) or not used in the computation",
    "no le llegó ningún gradiente (su .grad es None): está separado del grafo (.detach(), .data, .item(), "
    "torch.no_grad, un tensor nuevo construido con sus valores) o no se usa en el cálculo")
ONE_RETURNED = Mistake(
    "one tensor is returned where a pair belongs: return both values, (output, weights), even when the caller "
    "ignores the second (weights may be None when need_weights=False)",
    "se devuelve un tensor donde va un par: devuelve los dos valores, (salida, pesos), aunque quien llama ignore el "
    "segundo (los pesos pueden ser None con need_weights=False)")


def pair(value, what: str) -> list:
    """A result that must be a 2-tuple, e.g. ``(output, weights)``."""
    if not isinstance(value, list) or len(value) != 2:
        failure = CheckFailure(
            f"{what}: expected a pair (tuple of 2 values), got {_kind(value)}",
            f"{what}: se esperaba un par (tupla de 2 valores), se obtuvo {_kind(value)}",
        )
        if isinstance(value, dict):
            raise failure.shaped((f"a dict (keys {', '.join(map(str, list(value)[:4]))}) where a pair belongs: return "
                                  "the two values themselves, as a tuple in the documented order (a, b)",
                                  f"un dict (claves {', '.join(map(str, list(value)[:4]))}) donde va un par: devuelve "
                                  "los dos valores, como una tupla en el orden documentado (a, b)"))
        raise failure.naming(ONE_RETURNED) if isinstance(value, torch.Tensor) else failure
    return value


def close(actual, expected: torch.Tensor, what: str, atol: float = 1e-5, rtol: float = 1e-5,
          mistakes: Iterable[Mistake] = (), hints: shapes.Hints | None = None,
          localise: Callable[[], tuple[str, str] | None] | None = None) -> None:
    """``actual`` is a tensor shaped and typed like ``expected`` and numerically close to it.

    When it is not, the failure names, in this order of preference: one of ``mistakes``
    whose output ``actual`` matches (at the same tolerance); the first stage of a composite
    that differs, as ``localise()`` finds it (``grading.localise``); the error's shape
    (``shapes.explain``, helped by ``hints``)."""
    try:
        _close(actual, expected, what, atol, rtol)
    except CheckFailure as failure:
        if only_dtype_wrong(actual, expected, atol, rtol):
            raise failure from None
        found = recognise(actual, mistakes, lambda a, m: _allclose(a, m, atol, rtol))
        if found:
            raise failure.naming(found) from None
        # A value-based diagnosis, when there is one, says more than the shape check's own.
        raise failure.shaped((localise and localise()) or shapes.explain(actual, expected, hints),
                             replace=True) from None


def only_dtype_wrong(actual, expected: torch.Tensor, atol: float, rtol: float) -> bool:
    """Whether ``actual`` has the right values in the wrong dtype: its failure then says so
    (``differences.explain_dtype``), and no recogniser may name a mistake in the values,
    since at the tolerance of the check a value-level mistake can look the same."""
    return (isinstance(actual, torch.Tensor) and actual.dtype != expected.dtype
            and actual.shape == expected.shape and _allclose(actual, expected, atol, rtol))


def _nan_shape(actual: torch.Tensor) -> tuple[str, str]:
    """Where NaN appears where the expected values are all numbers, and the operations that
    make one: a general reading, for a NaN no named mistake explains."""
    nan = torch.isnan(actual)
    n, total = int(nan.sum()), nan.numel()
    where_en = "every value is NaN" if n == total else f"{n} of {total} values are NaN"
    where_es = "todos los valores son NaN" if n == total else f"{n} de {total} valores son NaN"
    return (f"{where_en}, where every expected value is a number. A NaN comes from 0 × ∞ (a 0/1 mask multiplied "
            "by -inf: use masked_fill instead), ∞ − ∞, 0 / 0 (a sum or a variance of 0) or a softmax over a row "
            "that is -inf everywhere; print torch.isnan(t).any() after each step to find the first one",
            f"{where_es}, donde todo valor esperado es un número. Un NaN sale de 0 × ∞ (una máscara 0/1 "
            "multiplicada por -inf: usa masked_fill), ∞ − ∞, 0 / 0 (una suma o una varianza de 0) o un softmax "
            "sobre una fila que vale -inf entera; imprime torch.isnan(t).any() tras cada paso para hallar el primero")


def _close(actual, expected: torch.Tensor, what: str, atol: float, rtol: float) -> None:
    actual = tensor(actual, what, expected.shape, expected.dtype)
    if torch.isnan(actual).any() and not torch.isnan(expected).any():
        idx = tuple(torch.nonzero(torch.isnan(actual))[0].tolist())
        raise CheckFailure(f"{what}: NaN at index {idx}", f"{what}: NaN en el índice {idx}").shaped(_nan_shape(actual))
    diff = (actual.double() - expected.double()).abs()
    bad = diff > atol + rtol * expected.double().abs()
    if bad.any():
        idx = tuple(torch.nonzero(bad)[0].tolist())
        worst = diff.nan_to_num(float("inf")).max().item()
        got, want = actual[idx].item(), expected[idx].item()
        raise CheckFailure(
            f"{what}: {int(bad.sum())} of {bad.numel()} values are off (first at index {idx}: "
            f"got {got:.6g}, expected {want:.6g}; largest error {worst:.3g}, "
            f"tolerance {atol:g} + {rtol:g}·|expected|)",
            f"{what}: {int(bad.sum())} de {bad.numel()} valores no coinciden (el primero en el índice {idx}: "
            f"se obtuvo {fmt(got, '.6g', 'es')}, se esperaba {fmt(want, '.6g', 'es')}; "
            f"error máximo {fmt(worst, '.3g', 'es')}, tolerancia {fmt(atol, 'g', 'es')} "
            f"+ {fmt(rtol, 'g', 'es')}·|esperado|)",
        )


def equal(actual, expected: torch.Tensor, what: str, hints: shapes.Hints | None = None) -> None:
    """``actual`` is a tensor exactly equal to ``expected`` (shape, dtype and values); a
    failure names the error's shape when it has one (``shapes.explain_mask``)."""
    try:
        _equal(actual, expected, what)
    except CheckFailure as failure:
        raise failure.shaped(shapes.explain_mask(actual, expected, hints)
                             or differences.explain_ids(actual, expected), replace=True) from None


def _equal(actual, expected: torch.Tensor, what: str) -> None:
    actual = tensor(actual, what, expected.shape, expected.dtype)
    if not torch.equal(actual, expected):
        idx = tuple(torch.nonzero(actual != expected)[0].tolist())
        raise CheckFailure(
            f"{what}: wrong value at index {idx} (got {actual[idx].item()}, expected {expected[idx].item()})",
            f"{what}: valor incorrecto en el índice {idx} "
            f"(se obtuvo {actual[idx].item()}, se esperaba {expected[idx].item()})",
        )


IN_PLACE_ON_INPUT = Mistake(
    "your code changes its caller's tensor in place (x += ..., x /= ..., x.sub_(...), x[...] = ...): compute a new "
    "tensor instead (x = x + ...), so that the caller's input stays as it was",
    "tu código cambia in situ el tensor de quien lo llama (x += ..., x /= ..., x.sub_(...), x[...] = ...): calcula "
    "un tensor nuevo (x = x + ...), para que la entrada de quien llama quede como estaba")


def inputs_unchanged(student, target: str, inputs: list[torch.Tensor], what: str, *, init_args: list | None = None,
                     init_kwargs: dict | None = None, kwargs: dict | None = None) -> None:
    """``target(*inputs, **kwargs)`` (a module built with ``init_args`` when given) leaves its
    tensor arguments as they were: they are sent as copies, and the copies come back after the
    call for the grading process to compare with what it sent."""
    names = [f"input{i}" for i in range(len(inputs))]
    steps = [[name, "torch.clone", [x], {}] for name, x in zip(names, inputs)]
    if init_args is not None:
        kept = target.rpartition(".")[2]  # so that an error names the class's forward
        steps.append([kept, target, list(init_args), dict(init_kwargs or {})])
        target = f"${kept}.forward"
    steps.append(["output", target, [{"$": name} for name in names], dict(kwargs or {})])
    after = student.script(steps, returns=names)
    for i, (name, x) in enumerate(zip(names, inputs)):
        got = after.get(name)
        if not (isinstance(got, torch.Tensor) and got.shape == x.shape and torch.equal(got, x)):
            raise CheckFailure(f"{what} changed its argument {i + 1} (a tensor of shape {tuple(x.shape)}) in place",
                               f"{what} cambió in situ su argumento {i + 1} (un tensor de forma {tuple(x.shape)})"
                               ).naming(IN_PLACE_ON_INPUT)


def parameter_count(report: dict, expected: int, what: str, shapes: Iterable[tuple[int, ...]] = ()) -> None:
    """A ``student.module`` report counts ``expected`` parameters; ``shapes``, the shapes
    of the expected parameters, lets a failure say which ones are missing or extra."""
    got = report.get("num_parameters")
    if got == expected:
        return
    shown = fmt(got, ",", "es") if isinstance(got, int) else got
    found = [tuple(p["value"].shape) for p in report.get("parameters", {}).values()]
    raise CheckFailure(f"{what} has {got:,} parameters, expected {expected:,}" if isinstance(got, int)
                       else f"{what} has {got} parameters, expected {expected:,}",
                       f"{what} tiene {shown} parámetros, se esperaban {fmt(expected, ',', 'es')}",
                       ).shaped(_parameter_shapes(found, list(shapes)) if shapes else None)


def _parameter_shapes(got: list[tuple[int, ...]], want: list[tuple[int, ...]]) -> tuple[str, str] | None:
    """Which parameter shapes are missing and which extra, and what that usually means."""
    missing, extra = Counter(want) - Counter(got), Counter(got) - Counter(want)

    def listed(shapes: Counter) -> str:
        return ", ".join(f"{n} x {s}" if n > 1 else str(s) for s, n in sorted(shapes.items())) or "-"

    if not missing and not extra:
        return None
    if missing and not extra and all(len(s) == 1 for s in missing):
        return (f"the parameters of shape {listed(missing)} are missing: biases left out (nn.Linear has bias=True "
                "by default; do not pass bias=False)",
                f"faltan los parámetros de forma {listed(missing)}: sesgos omitidos (nn.Linear tiene bias=True por "
                "defecto; no pases bias=False)")
    return (f"parameters of other shapes than asked for: missing {listed(missing)}, extra {listed(extra)}; a layer "
            "is built with another size than the one given (is every constructor argument used, e.g. d_ff for "
            "the hidden layer?)",
            f"parámetros con otras formas de las pedidas: faltan {listed(missing)}, sobran {listed(extra)}; una capa "
            "se construye con otro tamaño que el dado (¿se usa cada argumento del constructor, p. ej. d_ff para la "
            "capa oculta?)")


def right_padding(rng: torch.Generator, B: int, S: int, min_len: int = 1) -> torch.Tensor:
    """A random ``(B, S)`` mask of real tokens: row b keeps its first n_b positions, with
    n_b drawn uniformly from [min_len, S]. True = real token, False = padding."""
    lengths = torch.randint(min_len, S + 1, (B,), generator=rng)
    return torch.arange(S)[None, :] < lengths[:, None]


def randint(rng: torch.Generator, low: int, high: int) -> int:
    """A random int in [low, high] drawn from the test's generator."""
    return int(torch.randint(low, high + 1, (1,), generator=rng).item())


_SEARCHED: dict = {}  # (name, generator state) -> (result, generator state after)


def searched(rng: torch.Generator, name: str, search: Callable[[torch.Generator], object]):
    """``search(rng)``, run once per grading process for each state of ``rng``, which it
    leaves as ``search`` does.

    Every submission graded in one process draws the same inputs (``rng`` is seeded from
    the seed and the test), so a grader's costly search for inputs (a rejection loop over
    random models) is done for the first and replayed for the others. ``search`` must
    depend on nothing but ``rng``, and nothing may change what it returns."""
    key = (name, rng.get_state().numpy().tobytes())
    if key not in _SEARCHED:
        _SEARCHED[key] = search(rng), rng.get_state()
    result, after = _SEARCHED[key]
    rng.set_state(after)
    return result


def frequencies(samples, probs: torch.Tensor, what: str, false_failure: float = 1e-7) -> None:
    """Draws ``samples`` (N,) follow the distribution ``probs`` (V,): a goodness-of-fit test.

    Each token's empirical frequency must lie within eps of its probability, where eps
    comes from Hoeffding's inequality and a union bound over the V tokens:
    P(|freq - p| > eps for some token) <= 2 V exp(-2 N eps^2) = ``false_failure``. So a
    correct sampler fails with probability at most ``false_failure``, whatever the
    distribution, while any mistake that moves one token's probability by more than eps
    (a few hundredths for N in the tens of thousands) is rejected.
    """
    samples = tensor(samples, what, dtype=torch.int64)
    V, N = probs.numel(), samples.numel()
    outside = (samples < 0) | (samples >= V)
    if outside.any():
        bad = samples[outside][0].item()
        raise CheckFailure(f"{what}: token id {bad} is outside the vocabulary 0..{V - 1}",
                           f"{what}: el id {bad} está fuera del vocabulario 0..{V - 1}")
    freq = torch.bincount(samples.flatten(), minlength=V).double() / N
    eps = math.sqrt(math.log(2 * V / false_failure) / (2 * N))
    gap = (freq - probs.double()).abs()
    worst = int(gap.argmax())
    expect(
        gap[worst].item() <= eps,
        f"{what}: token {worst} was drawn {freq[worst].item():.4f} of the time, but its probability is "
        f"{probs[worst].item():.4f} (N = {N} draws allow ±{eps:.4f}; a correct sampler fails this check "
        f"with probability below {false_failure:g})",
        f"{what}: el token {worst} salió con frecuencia {fmt(freq[worst].item(), '.4f', 'es')}, pero su "
        f"probabilidad es {fmt(probs[worst].item(), '.4f', 'es')} (con N = {fmt(N, ',', 'es')} se admite "
        f"±{fmt(eps, '.4f', 'es')})",
    )


def support(samples, allowed: torch.Tensor, what: str) -> None:
    """Every draw in row-aligned ``samples`` (N,) is allowed: ``allowed`` (N, V) is boolean."""
    samples = tensor(samples, what, shape=allowed.shape[:1], dtype=torch.int64)
    V = allowed.size(-1)
    inside = (samples >= 0) & (samples < V)
    ok = inside.clone()
    ok[inside] = allowed[inside.nonzero().squeeze(-1), samples[inside]]
    if not bool(ok.all()):
        row = int((~ok).nonzero()[0])
        kept = allowed[row].nonzero().flatten().tolist()
        raise CheckFailure(
            f"{what}: drew token {samples[row].item()} in row {row}, which must never be drawn (allowed: {kept})",
            f"{what}: salió el token {samples[row].item()} en la fila {row}, que nunca debe salir (permitidos: {kept})",
        )


def _short(value, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_difference(actual, expected, path: str = ""):
    """(path, got, expected) of the first place where plain values differ, or None.

    Types count: 1 is not True, "1" is not 1, a tuple arrives as a list."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, list):
            return path, _kind(actual), f"a list of {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            found = _first_difference(a, e, f"{path}[{i}]")
            if found:
                return found
        if len(actual) != len(expected):
            return path, f"{len(actual)} items", f"{len(expected)} items"
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return path, _kind(actual), "a dict"
        for key in expected:
            if key not in actual:
                return f"{path}[{key!r}]", "nothing", _short(expected[key])
            found = _first_difference(actual[key], expected[key], f"{path}[{key!r}]")
            if found:
                return found
        extra = sorted(set(actual) - set(expected))
        return (f"{path}[{extra[0]!r}]", _short(actual[extra[0]]), "no such key") if extra else None
    if type(actual) is not type(expected) or actual != expected:
        return path, _short(actual) if not isinstance(actual, Unsupported) else _kind(actual), _short(expected)
    return None


def plain_equal(actual, expected, what: str) -> None:
    """``actual`` equals the plain value ``expected`` (str, int, bool, lists and dicts of
    them), type included; the message names the first difference, and the shape of the
    whole difference where it has one (``differences.explain``)."""
    found = _first_difference(actual, expected)
    if found:
        where, got, want = found
        at = f" at {where}" if where else ""
        raise CheckFailure(f"{what}: wrong value{at}: got {got}, expected {want}",
                           f"{what}: valor incorrecto{' en ' + where if where else ''}: "
                           f"se obtuvo {got}, se esperaba {want}").shaped(differences.explain(actual, expected))


def number(value, what: str) -> float:
    """``value`` if it is a Python number (int or float, not bool), as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        failure = CheckFailure(f"{what}: expected a Python float, got {_kind(value)}",
                               f"{what}: se esperaba un float de Python, se obtuvo {_kind(value)}")
        if isinstance(value, torch.Tensor):
            raise failure.naming(Mistake(
                "a tensor is returned where a number is expected: use .item() to turn a one-element tensor into a "
                "Python number (it also frees the graph behind it)",
                "se devuelve un tensor donde se espera un número: usa .item() para convertir un tensor de un "
                "elemento en un número de Python (también libera el grafo que lleva detrás)"))
        raise failure
    return float(value)


def close_number(actual, expected: float, what: str, atol: float = 1e-6, rtol: float = 1e-6) -> None:
    """``actual`` is a Python number within ``atol + rtol * |expected|`` of ``expected``."""
    got = number(actual, what)
    if not abs(got - expected) <= atol + rtol * abs(expected):  # NaN fails too
        raise CheckFailure(f"{what}: got {got:.8g}, expected {expected:.8g} (tolerance {atol:g} + {rtol:g}·|expected|)",
                           f"{what}: se obtuvo {fmt(got, '.8g', 'es')}, se esperaba {fmt(expected, '.8g', 'es')} "
                           f"(tolerancia {fmt(atol, 'g', 'es')} + {fmt(rtol, 'g', 'es')}·|esperado|)")
