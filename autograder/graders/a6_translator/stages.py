"""Where an a6 training step, evaluation or translation first differs from the reference's
(not a test module).

A grader's script installs ``harness.Watch`` on the model (and on the optimizer) around the
student's call; here the same recorder watches the reference doing the same work. The two
records are compared stage by stage, in the order the work happens: how often the model
runs and in which mode, the inputs it gets (the shifted target, the padded source batch),
the loss, the gradients that reach ``optimizer.step()``, and the update. The first stage
that differs is where the mistake is, whatever the mistake, and its shape
(``grading.differences``, a constant factor) says what kind of difference it is.
"""

from __future__ import annotations

import torch

from autograder.grading import differences
from autograder.grading.localise import agrees
from autograder.sandbox.child.harness import Watch

Found = tuple[str, str] | None


def watch(model, optimizer=None, children=()) -> Watch:
    """The recorder the student's process runs, on the reference's model."""
    return Watch(model, optimizer, children)


def _shape(x) -> str:
    return str(tuple(x.shape)) if isinstance(x, torch.Tensor) else type(x).__name__


def _input_difference(where: tuple[str, str], what: tuple[str, str], name: str, got, want,
                      inputs: tuple[str, str] | None = None) -> Found:
    if isinstance(want, torch.Tensor) and agrees(got, want, 0.0, 0.0):
        return None
    if not isinstance(want, torch.Tensor) and got == want:
        return None
    shape = differences.explain_ids(got, want) if isinstance(want, torch.Tensor) else None
    said = f": {shape[0]}" if shape else ""
    dicho = f": {shape[1]}" if shape else ""
    shapes = (f" (yours {_shape(got)}, the reference's {_shape(want)})",
              f" (la tuya {_shape(got)}, la de la referencia {_shape(want)})") if _shape(got) != _shape(want) else ("", "")
    named = inputs or ((f"{what[0]}'s input", f"la entrada de {what[1]}") if name == "input" else (
        f"{what[0]}'s input {name}", f"la entrada {name} de {what[1]}"))
    return (f"{where[0]}, {named[0]} differs from the reference's{shapes[0]}{said}",
            f"{where[1]}, {named[1]} difiere de la de la referencia{shapes[1]}{dicho}")


def calls_difference(got: list, want: list, where: tuple[str, str], module: str = "",
                     inputs: tuple[str, str] | None = None) -> Found:
    """The first difference between two lists of recorded calls of one (sub-)module: how
    many, the mode, then each argument in order (``inputs``: what to call them)."""
    got = [c for c in got if c[0] == module]
    want = [c for c in want if c[0] == module]
    what = f"model.{module}" if module else "the model"
    what_es = f"model.{module}" if module else "el modelo"
    if len(got) != len(want):
        return (f"{where[0]}, {what} runs {len(got)} time(s) where the reference runs it {len(want)} time(s)",
                f"{where[1]}, {what_es} se ejecuta {len(got)} vez/veces donde la referencia lo ejecuta {len(want)}")
    for n, ((_, g_args, g_mode), (_, w_args, w_mode)) in enumerate(zip(got, want)):
        at = (f"{where[0]}, call {n + 1} of {what}", f"{where[1]}, llamada {n + 1} de {what_es}") if len(want) > 1 else where
        if g_mode != w_mode:
            mode = ("training", "entrenamiento") if g_mode else ("eval", "evaluación")
            return (f"{at[0]}, the model is in {mode[0]} mode where the reference's is not "
                    f"(model.train() / model.eval())",
                    f"{at[1]}, el modelo está en modo de {mode[1]} donde el de la referencia no "
                    f"(model.train() / model.eval())")
        for name, value in w_args.items():
            found = _input_difference(at, (what, what_es), name, g_args.get(name), value, inputs)
            if found:
                return found
    return None


def _factor(got: list, want: list) -> float | None:
    """c when every got tensor is c times its want tensor (c not 1), else None."""
    pairs = [(g.double().flatten(), w.double().flatten()) for g, w in zip(got, want)]
    a = torch.cat([g for g, _ in pairs]) if pairs else torch.zeros(0)
    e = torch.cat([w for _, w in pairs]) if pairs else torch.zeros(0)
    if not len(e) or not torch.isfinite(a).all() or float(e.norm()) == 0.0:
        return None
    c = float(a @ e / (e @ e))
    if abs(c - 1.0) < 1e-6 or not torch.allclose(a, c * e, atol=1e-9, rtol=1e-5):
        return None
    return c


def gradients_difference(got: dict, want: dict, where: tuple[str, str], atol: float, rtol: float) -> Found:
    """What differs in the gradients that reach ``optimizer.step()``, if anything."""
    names = [n for n, w in want.items() if w is not None]
    if all(agrees(got.get(n), want[n], atol, rtol) for n in names):
        return None
    given = [got.get(n) for n in names]
    if all(g is None or (isinstance(g, torch.Tensor) and not g.any()) for g in given):
        return (f"{where[0]}, no gradient reaches optimizer.step() (every parameter's .grad is zero or None): "
                f"optimizer.zero_grad() between loss.backward() and optimizer.step(), or no loss.backward()?",
                f"{where[1]}, ningún gradiente llega a optimizer.step() (el .grad de cada parámetro es cero o None): "
                f"¿optimizer.zero_grad() entre loss.backward() y optimizer.step(), o falta loss.backward()?")
    if all(isinstance(g, torch.Tensor) and g.shape == want[n].shape for g, n in zip(given, names)):
        c = _factor(given, [want[n] for n in names])
        if c is not None:
            norm = float(torch.cat([want[n].double().flatten() for n in names]).norm())
            return (f"{where[0]}, the gradients that reach optimizer.step() are {c:.4g} times the reference's "
                    f"(their norm {c * norm:.4g} where the reference's is {norm:.4g}): the gradient clipping "
                    f"(clip_grad_norm_ with clip_norm, after backward and before the step) differs",
                    f"{where[1]}, los gradientes que llegan a optimizer.step() son {c:.4g} veces los de la referencia "
                    f"(su norma {c * norm:.4g} donde la de la referencia es {norm:.4g}): el recorte de gradientes "
                    f"(clip_grad_norm_ con clip_norm, tras backward y antes del paso) difiere")
    first = next(n for n, g in zip(names, given) if not agrees(g, want[n], atol, rtol))
    return (f"{where[0]}, the gradients that reach optimizer.step() differ from the reference's (first in {first})",
            f"{where[1]}, los gradientes que llegan a optimizer.step() difieren de los de la referencia "
            f"(el primero en {first})")


def _close(a, b, atol, rtol) -> bool:
    return isinstance(a, (int, float)) and not isinstance(a, bool) and abs(a - b) <= atol + rtol * abs(b)


LOSS_PARTS = ("the loss (labels tgt[:, 1:], <pad> labels ignored, label smoothing, the mean over the non-pad labels)",
              "la pérdida (etiquetas tgt[:, 1:], etiquetas <pad> ignoradas, suavizado, la media sobre las etiquetas "
              "que no son pad)")


def training_difference(got: list[dict], want: list[dict], got_losses: list, want_losses: list, *,
                        atol: float, rtol: float, during: tuple[str, str] | None = None) -> Found:
    """The first stage of a run of training steps (one record and one returned loss per
    step; or one record of a whole ``fit``, ``during`` it, without losses) that differs:
    the model's calls and inputs, the loss, the gradients at ``optimizer.step()``; None
    when all of them agree."""
    for k, (g, w) in enumerate(zip(got, want)):
        where = during or (f"in training step {k + 1}", f"en el paso de entrenamiento {k + 1}")
        found = calls_difference(g["calls"], w["calls"], where)
        if found:
            return found
        if k < len(got_losses) and not _close(got_losses[k], want_losses[k], atol, rtol):
            return (f"{where[0]}, the model gets the reference's inputs but the loss returned differs "
                    f"({got_losses[k]!r:.10} where the reference's is {want_losses[k]:.8g}): {LOSS_PARTS[0]} "
                    f"is where the difference starts",
                    f"{where[1]}, el modelo recibe las entradas de la referencia pero la pérdida devuelta difiere "
                    f"({got_losses[k]!r:.10} donde la de la referencia es {want_losses[k]:.8g}): {LOSS_PARTS[1]} "
                    f"es donde empieza la diferencia")
        if len(g["steps"]) != len(w["steps"]):
            return (f"{where[0]}, optimizer.step() runs {len(g['steps'])} time(s) where the reference runs it "
                    f"{len(w['steps'])} time(s)",
                    f"{where[1]}, optimizer.step() se ejecuta {len(g['steps'])} vez/veces donde la referencia lo "
                    f"ejecuta {len(w['steps'])}")
        for j, (gs, ws) in enumerate(zip(g["steps"], w["steps"])):
            at = (f"{where[0]} (optimizer step {j + 1})", f"{where[1]} (paso del optimizador {j + 1})") \
                if len(w["steps"]) > 1 else where
            found = gradients_difference(gs, ws, at, atol, rtol)
            if found:
                if k or j:
                    found = (found[0] + "; the steps before it agreed, so look at what one step leaves to the next",
                             found[1] + "; los pasos anteriores coinciden, así que mira lo que un paso deja al siguiente")
                return found
    return None


def update_difference() -> tuple[str, str]:
    """When every stage of every step agreed and the parameters still differ."""
    return ("the model's inputs, the losses and the gradients that reach optimizer.step() all match the "
            "reference's at every step, but the parameters afterwards differ: the update itself (optimizer.step(), "
            "or a change to the weights after it) is where the difference starts",
            "las entradas del modelo, las pérdidas y los gradientes que llegan a optimizer.step() coinciden con los "
            "de la referencia en cada paso, pero los parámetros después difieren: la actualización misma "
            "(optimizer.step(), o un cambio de los pesos tras él) es donde empieza la diferencia")


def evaluation_difference(got: dict, want: dict, got_value, want_value: float, batches, pad_id: int) -> Found:
    """The first stage of ``evaluate`` that differs: the model's calls and inputs, then how
    the batch losses are combined (with the factor, when it is the share of <pad> labels)."""
    where = ("during evaluate", "durante evaluate")
    found = calls_difference(got["calls"], want["calls"], where)
    if found:
        return found
    labels = [tgt[:, 1:] for _, tgt in batches]
    real = sum(int((lab != pad_id).sum()) for lab in labels)
    every = sum(lab.numel() for lab in labels)
    said = ("the model gets the reference's inputs in every batch, so how the losses are combined is where the "
            "difference starts (the sum of the token losses over all batches, divided by the number of non-pad labels)",
            "el modelo recibe las entradas de la referencia en cada lote, así que la forma de combinar las pérdidas es "
            "donde empieza la diferencia (la suma de las pérdidas de los tokens de todos los lotes, dividida por el "
            "número de etiquetas que no son pad)")
    if isinstance(got_value, float) and want_value and abs(got_value / want_value - real / every) < 1e-6:
        return (f"{where[0]}, {said[0]}: your value is {real}/{every} of the reference's, the share of the labels "
                f"that are not <pad>: it divides by every label, padding included",
                f"{where[1]}, {said[1]}: tu valor es {real}/{every} del de la referencia, la proporción de etiquetas "
                f"que no son <pad>: divide por todas las etiquetas, relleno incluido")
    return f"{where[0]}, {said[0]}", f"{where[1]}, {said[1]}"


def translation_difference(got: dict, want: dict, where: tuple[str, str]) -> Found:
    """Whether ``translate`` hands the model another source batch than the reference's: the
    input of the first call of ``model.src_embed``. Only that call: how often a decoding
    loop embeds (once, or again at every step) is the decoder's business, not translate's."""
    first = [next(([c] for c in record["calls"] if c[0] == "src_embed"), []) for record in (got, want)]
    return calls_difference(*first, where, "src_embed", inputs=(
        "the source batch (model.src_embed's input)", "el lote de origen (la entrada de model.src_embed)"))
