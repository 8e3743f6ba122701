"""Where a composite first goes wrong: its stages compared one by one with the reference's.

When a whole (a Transformer, a layer, a decoding loop) disagrees with the reference and no
named mistake explains it, a grader re-runs the student's code stage by stage, each stage
given the reference's own input to that stage, and hands the pairs of outputs to
:func:`first_difference`. The first stage whose output differs is where the mistake is,
whatever the mistake; its error shape (``shapes.explain``) says what kind of difference it
is. When every stage agrees on its own, the mistake is in how the whole chains them, and
``chained`` says what to look at there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from ..sandbox.child.harness import trace
from . import shapes
from .checks import CheckFailure
from .reports import Where

PREFIX_EN = "the first stage that differs from the reference (each stage run on the reference's input to it) is "
PREFIX_ES = ("la primera etapa que difiere de la referencia (cada etapa ejecutada con la entrada de la referencia) "
             "es ")


@dataclass
class Stage:
    """One stage of a composite: its name for the student, and its two outputs."""

    en: str
    es: str
    actual: object  # what the student's stage returned, as it came back over the wire
    expected: torch.Tensor
    hints: shapes.Hints | None = None
    # When this stage is the first to differ: looks inside it, given what was found so far
    deeper: Callable[[tuple[str, str]], tuple[str, str]] | None = None


def agrees(actual, expected: torch.Tensor, atol: float, rtol: float) -> bool:
    """``actual`` is a tensor of ``expected``'s shape, close where finite and equal where not."""
    if not (isinstance(actual, torch.Tensor) and actual.shape == expected.shape):
        return False
    if actual.dtype == torch.bool or expected.dtype == torch.bool:
        return torch.equal(actual, expected)
    a, e = actual.double(), expected.double()
    both = torch.isfinite(e)
    return (torch.equal(torch.isfinite(a), both) and torch.equal(a[~both], e[~both])
            and bool(((a - e).abs()[both] <= atol + rtol * e.abs()[both]).all()))


def first_difference(stages: list[Stage], *, atol: float, rtol: float,
                     chained: tuple[str, str] | None = None) -> tuple[str, str] | None:
    """(English, Spanish) naming the first stage whose output differs from the reference's,
    with its error shape; ``chained`` when all agree (the mistake is in the chaining)."""
    for stage in stages:
        if agrees(stage.actual, stage.expected, atol, rtol):
            continue
        shape = shapes.explain(stage.actual, stage.expected, stage.hints)
        if shape is None and isinstance(stage.actual, torch.Tensor) and not stage.actual.is_floating_point():
            shape = shapes.explain_mask(stage.actual, stage.expected, stage.hints)
        en, es = PREFIX_EN + stage.en, PREFIX_ES + stage.es
        if shape:
            # a WHERE only when the shape named no cause either (reports.Where)
            found = f"{en}: {shape[0]}", f"{es}: {shape[1]}"
            found = Where(*found) if isinstance(shape, Where) else found
        elif not isinstance(stage.actual, torch.Tensor) or stage.actual.shape != stage.expected.shape:
            got = tuple(stage.actual.shape) if isinstance(stage.actual, torch.Tensor) else type(stage.actual).__name__
            found = Where(f"{en} (it returns {got}, expected a tensor of shape {tuple(stage.expected.shape)})",
                          f"{es} (devuelve {got}, se esperaba un tensor de forma {tuple(stage.expected.shape)})")
        else:
            found = Where(en, es)
        return stage.deeper(found) if stage.deeper else found
    return chained


def _call_ok(call) -> bool:
    return (isinstance(call, list) and len(call) == 4 and isinstance(call[0], str) and isinstance(call[1], list)
            and isinstance(call[2], list))


def calls_difference(got, want: dict, *, atol: float, rtol: float,
                     tensors: dict[str, torch.Tensor], axes=()) -> tuple[str, str] | None:
    """The first sub-module call (``harness.trace``) of the student's that differs from the
    reference's: a sub-module never called, called with another argument (with that
    argument's error shape, named against ``tensors`` and the earlier calls' outputs), or
    called more often. None when every call agrees."""
    calls = got.get("calls") if isinstance(got, dict) else None
    if not isinstance(calls, list) or not all(_call_ok(c) for c in calls):
        return None
    used = [False] * len(calls)
    named = dict(tensors)
    for name, params, args, out in want["calls"]:
        k = next((i for i, c in enumerate(calls) if not used[i] and c[0] == name), None)
        if k is None:
            stand_in = next((c[0] for i, c in enumerate(calls) if not used[i] and all(
                agrees(a, e, atol, rtol) for a, e in zip(c[2], args) if isinstance(e, torch.Tensor))), None)
            extra = stand_in and sum(c[0] == stand_in for c in calls) > sum(c[0] == stand_in for c in want["calls"])
            if stand_in and not extra:  # no extra call of it: self.{name} is skipped, not swapped for it
                return (f"self.{name} is skipped: self.{stand_in} gets the input the reference gives self.{name}, "
                        f"where the reference applies self.{name} first",
                        f"se omite self.{name}: self.{stand_in} recibe la entrada que la referencia da a self.{name}, "
                        f"donde la referencia aplica antes self.{name}")
            if stand_in:
                return (f"self.{stand_in} is called where the reference calls self.{name} (on the same input): "
                        f"use self.{name} there",
                        f"se llama a self.{stand_in} donde la referencia llama a self.{name} (con la misma "
                        f"entrada): usa self.{name} ahí")
            return (f"self.{name} is called fewer times than in the reference, where it runs on the output of the "
                    "earlier sub-layers: a sub-layer (or its norm) is skipped",
                    f"self.{name} se llama menos veces que en la referencia, donde se aplica a la salida de las "
                    "subcapas anteriores: se omite una subcapa (o su norma)")
        used[k] = True
        for param, expected, actual in zip(params, args, calls[k][2]):
            if not isinstance(expected, torch.Tensor) or agrees(actual, expected, atol, rtol):
                if expected is None and isinstance(actual, torch.Tensor):
                    return (f"self.{name} gets a {param} where the reference passes none",
                            f"self.{name} recibe {param} donde la referencia no pasa nada")
                continue
            if actual is None:
                return (f"self.{name} is called without its {param}: pass it the {param} the reference passes "
                        "(a mask forgotten?)",
                        f"self.{name} se llama sin su {param}: pásale el {param} que pasa la referencia (¿una "
                        "máscara olvidada?)")
            hints = shapes.Hints(axes=axes, tensors=named)
            shape = (shapes.explain_mask(actual, expected, hints) if expected.dtype == torch.bool
                     else shapes.explain(actual, expected, hints))
            for other, value in ({} if shape else named).items():  # the right tensor in the wrong place
                if (isinstance(value, torch.Tensor) and actual.shape == value.shape
                        and agrees(actual, value, atol, rtol)):
                    shape = (f"it is {other}", f"es {other}")
                    break
            en = f"the first sub-layer call that differs is self.{name}: its {param} is not the reference's"
            es = f"la primera llamada a una subcapa que difiere es self.{name}: su {param} no es el de la referencia"
            if not shape or isinstance(shape, Where):  # where it differs, and no cause named
                return Where(f"{en}: {shape[0]}", f"{es}: {shape[1]}") if shape else Where(en, es)
            return f"{en}: {shape[0]}", f"{es}: {shape[1]}"
        named[f"the output of self.{name}"] = out
    extra = [c[0] for i, c in enumerate(calls) if not used[i]]
    if extra:
        return (f"self.{extra[0]} is called more often than in the reference (a norm or sub-layer applied twice?)",
                f"self.{extra[0]} se llama más veces que en la referencia (¿una norma o subcapa aplicada dos veces?)")
    return None


def _traced_reference(module, args, kwargs):
    was = module.training
    module.eval()
    try:
        with torch.no_grad():
            return trace(module, *args, **kwargs)
    finally:
        module.train(was)


def traced_difference(student, model_spec: dict, ref_module, args: list, tensors: dict, path=(), *,
                      atol: float, rtol: float, axes=(), kwargs: dict | None = None):
    """Which sub-module of the student's module first gets an input other than the
    reference's, both run on ``args`` (the module is ``model_spec``'s model, or the one at
    attribute ``path`` inside it): ``(traced, found)``, where ``traced`` says whether the
    student's module could be traced at all and ``found`` is None when every call agrees."""
    steps, held = [], {"$": "model"}
    for i, part in enumerate(path):
        steps.append([f"part{i}", "getattr", [held, part], {}])
        held = {"$": f"part{i}"}
    steps.append(["traced", "trace", [held, *args], kwargs or {}])
    try:
        got = student.script(steps, model_spec=model_spec, returns=["traced"])["traced"]
    except CheckFailure:
        return False, None
    return True, calls_difference(got, _traced_reference(ref_module, args, kwargs or {}), atol=atol, rtol=rtol,
                                  tensors=tensors, axes=axes)
