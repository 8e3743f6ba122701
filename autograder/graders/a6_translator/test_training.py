"""Hidden graders for a6_translator/training.py.

Losses are compared with ``F.cross_entropy`` in float64. Training steps run a reference
Transformer with random weights (float64, dropout 0 unless a test needs dropout), built in
the student's process from a model spec, with a ``torch.optim.SGD`` made there too; the
expected loss and parameters come from the same step taken here with the reference code.
Models that must show whether dropout is on use p = 1, which in training mode zeroes every
dropped activation: deterministic, so the output of that mistake can be computed here too.

Over 350 lines: the five functions of training.py share the reference runs and the
mistakes these graders name (fit_and_validate's are fit's and evaluate's); split, each
file would import most of the others.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from autograder import reference
from autograder.graders.a6_translator import stages, variants
from autograder.graders.a6_translator.helpers import model_and_spec, source_batch, target_batch
from autograder.grading import checks

# clip_grad_norm_ multiplies by clip / (norm + 1e-6); the documented rule (clip / norm, when
# norm > clip) differs by 1e-6 / norm relative, so a parameter entry moves by at most
# lr * clip * 1e-6 / norm <= lr * 1e-6 more or less per clipped step. Twice that per step
# covers both rules; every classic mistake moves the parameters by 1e-3 or more.
CLIP_SLACK = 2e-6
# evaluate may add up the batch sums in float32 (a torch.zeros(()) accumulator): each of
# the k <= 3 additions and the final division round to 2**-24 relative, 4 * 6e-8 < 3e-7.
EVAL_RTOL = 1e-6

EVAL_DROPOUT = ("evaluate does not put the model in eval mode (model.eval()), so dropout is on",
                "evaluate no pone el modelo en modo de evaluación (model.eval()), así que el dropout está activo")
BATCH_MEANS = ("evaluate averages the batch means; every token must weigh the same (sum of losses / number of "
               "non-pad labels)",
               "evaluate promedia las medias de los lotes; cada token debe pesar lo mismo (suma de pérdidas / número de "
               "etiquetas que no son pad)")
NOT_RESTORED = ("evaluate does not put the model back in the mode it had (model.train(was_training), in a finally)",
                "evaluate no devuelve el modelo al modo que tenía (model.train(estaba_entrenando), en un finally)")
FLAG_ONLY = ("evaluate restores the mode by assigning model.training, which sets the top module's flag only: "
             "model.train(was_training) sets it on every submodule",
             "evaluate restaura el modo asignando model.training, que solo cambia el indicador del módulo superior: "
             "model.train(estaba_entrenando) lo cambia en todos los submódulos")
WITH_GRAD = ("evaluate runs the model with gradients on: wrap the loop in torch.no_grad()",
             "evaluate ejecuta el modelo con los gradientes activos: envuelve el bucle en torch.no_grad()")
FIT_LAST = ("fit keeps each epoch's last batch loss instead of the mean of its batch losses",
            "fit guarda la pérdida del último lote de cada época en lugar de la media de sus lotes")
FIT_SUM = ("fit returns each epoch's sum of batch losses instead of their mean",
           "fit devuelve la suma de las pérdidas de los lotes de cada época en lugar de su media")
FIT_PER_PAIR = ("fit divides the sum of its batch losses by len(loader.dataset), the number of sentence pairs; each "
                "epoch's figure is the mean of its batch losses: divide by the number of batches (len(loader)), "
                "since each batch loss is already a mean over its tokens",
                "fit divide la suma de las pérdidas de sus lotes por len(loader.dataset), el número de pares de "
                "frases; la cifra de cada época es la media de las pérdidas de sus lotes: divide por el número de "
                "lotes (len(loader)), pues cada pérdida de lote ya es una media sobre sus tokens")
FIT_PERPLEXITY = ("fit records each epoch's perplexity, exp(mean loss), instead of the mean loss itself: append the "
                  "mean of the batch losses (print the perplexity if you like, but return losses)",
                  "fit guarda la perplejidad de cada época, exp(pérdida media), en lugar de la pérdida media: añade la "
                  "media de las pérdidas de los lotes (imprime la perplejidad si quieres, pero devuelve pérdidas)")
FIT_RUNNING = ("fit's list of batch losses is never emptied between epochs, so each epoch's figure is the mean of "
               "every batch so far: start a new list (or total) at the top of each epoch",
               "la lista de pérdidas de fit nunca se vacía entre épocas, así que la cifra de cada época es la media "
               "de todos los lotes hasta entonces: empieza una lista (o suma) nueva al principio de cada época")


def _running_mean():
    """A ``reduce`` for ``run`` that, like FIT_RUNNING, averages every loss seen so far."""
    seen = []

    def reduce(losses):
        seen.extend(losses)
        return sum(seen) / len(seen)
    return reduce


NO_TOKENS = ("evaluate does not check that some label is not pad_id: after the loop, raise ValueError when the "
             "count of scored tokens is 0 (instead of dividing by it)",
             "evaluate no comprueba que alguna etiqueta no sea pad_id: tras el bucle, lanza ValueError cuando la "
             "cuenta de tokens puntuados es 0 (en lugar de dividir por ella)")
FIT_FROZEN = ("fit takes the batches out of the loader once, before the epochs (list(loader)), so every epoch "
              "repeats the first one's order: iterate the loader inside the epoch loop, for src, tgt in loader",
              "fit saca los lotes del cargador una sola vez, antes de las épocas (list(loader)), así que cada época "
              "repite el orden de la primera: recorre el cargador dentro del bucle de épocas, for src, tgt in loader")
PAD_ID_ARGUMENT = ("evaluate leaves out (or counts) the labels equal to 0 instead of those equal to its pad_id "
                   "argument: ignore_index=pad_id in the loss and (labels != pad_id).sum() for the count",
                   "evaluate excluye (o cuenta) las etiquetas iguales a 0 en lugar de las iguales a su argumento "
                   "pad_id: ignore_index=pad_id en la pérdida y (labels != pad_id).sum() para la cuenta")
FIT_PAD = ("fit does not pass its pad_id on to train_step, so the loss leaves out the labels equal to 0 instead: "
           "train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm)",
           "fit no pasa su pad_id a train_step, así que la pérdida excluye las etiquetas iguales a 0: "
           "train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm)")
FIT_MODE = ("fit does not put the model in training mode (model.train()) before training",
            "fit no pone el modelo en modo de entrenamiento (model.train()) antes de entrenar")


def _labels(rng, B, T, V, pad_id):
    labels = torch.randint(0, V, (B, T), generator=rng)
    labels[labels == pad_id] = (pad_id + 1) % V  # pad only where the padding mask says
    labels[~checks.right_padding(rng, B, T)] = pad_id
    labels[0, -1] = pad_id  # at least one <pad> label, which the loss must ignore
    return labels


def _near(a, b, atol, rtol) -> bool:
    if isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and a.shape == b.shape and not torch.isnan(a).any()
                and bool(((a.double() - b.double()).abs() <= atol + rtol * b.double().abs()).all()))
    return isinstance(a, float) and abs(a - b) <= atol + rtol * abs(b)


def _same_run(atol, rtol):
    """Matches a run's (losses, parameters) with a mistake's, at the check's tolerance."""
    def matches(actual, output):
        (losses, state), (want_losses, want_state) = actual, output
        return (len(losses) == len(want_losses) and all(_near(a, b, atol, rtol) for a, b in zip(losses, want_losses))
                and all(_near(state.get(n), p, atol, rtol) for n, p in want_state.items()))
    return matches


def _orders(batches, seed, epochs):
    """The batch order of each epoch of a DataLoader shuffling ``batches`` (batch_size=None,
    shuffle=True, or a batch sampler that is one) with a generator seeded ``seed``, as the
    student's fit iterates it."""
    loader = torch.utils.data.DataLoader(range(len(batches)), batch_size=None, shuffle=True,
                                         generator=torch.Generator().manual_seed(seed))
    return [[int(i) for i in loader] for _ in range(epochs)]


def _params(model):
    return {n: p.detach() for n, p in model.named_parameters()}


@pytest.mark.points(2)
def test_sequence_loss(student, rng):
    """Is sequence_loss the cross-entropy averaged over non-pad labels, with label smoothing when asked? / ¿Es sequence_loss la entropía cruzada promediada sobre las etiquetas que no son pad, con suavizado si se pide?"""
    B, T, V = checks.randint(rng, 2, 5), checks.randint(rng, 3, 8), checks.randint(rng, 5, 12)
    cases = [(0, 0.0), (checks.randint(rng, 1, V - 1), round(0.05 + 0.25 * torch.rand(1, generator=rng).item(), 3))]
    for pad_id, eps in cases:
        logits = checks.randn(rng, B, T, V) * 2
        labels = _labels(rng, B, T, V, pad_id)
        want = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id, label_smoothing=eps)
        got = student.call("training.sequence_loss", logits, labels, pad_id=pad_id, label_smoothing=eps)
        checks.close(got, want, f"sequence_loss(logits {B}x{T}x{V}, labels, pad_id={pad_id}, label_smoothing={eps})",
                     atol=1e-10, rtol=1e-8, mistakes=[
                         variants.mistake(*variants.PAD_COUNTED, lambda: variants.loss(logits, labels, pad_id, eps,
                                                                                       ignore_pad=False)),
                         variants.mistake(*variants.NO_SMOOTHING, lambda: variants.loss(logits, labels, pad_id, eps,
                                                                                        smoothing=False)),
                         variants.mistake(*variants.PAD_ZERO_IGNORED, lambda: variants.loss(logits, labels, 0, eps))])


@pytest.mark.points(2)
def test_train_step(student, rng):
    """Does train_step shift the target (teacher forcing), smooth, clip and update like the reference, returning the loss before the step? / ¿Desplaza train_step el destino (teacher forcing), suaviza, recorta y actualiza como la referencia, devolviendo la pérdida previa?"""
    training = reference.load("training")
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt)
    # Two steps on two batches: a second step shows gradients left over from the first.
    batches = []
    for _ in range(2):
        B = checks.randint(rng, 2, 5)
        batches.append((source_batch(rng, B, checks.randint(rng, 3, 7), Vs),
                        target_batch(rng, B, checks.randint(rng, 4, 9), Vt)))
    eps = round(0.05 + 0.15 * torch.rand(1, generator=rng).item(), 3)
    # A clipping threshold below the gradient's norm, so that clipping changes the step.
    probe = variants.deep(model)
    src, tgt = batches[0]
    training.sequence_loss(probe(src, tgt[:, :-1]), tgt[:, 1:], 0, eps).backward()
    norm = torch.nn.utils.clip_grad_norm_(probe.parameters(), float("inf")).item()
    clip = round(0.5 * norm, 6)
    lr = 0.5
    initial = variants.deep(model)
    steps = [["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": lr}],
             ["watch", "watch", [{"$": "model"}, {"$": "opt"}], {}]]
    for k, (src, tgt) in enumerate(batches):
        steps += [[f"loss{k}", "training.train_step", [{"$": "model"}, src, tgt, {"$": "opt"}],
                   {"pad_id": 0, "label_smoothing": eps, "clip_norm": clip}], [f"seen{k}", "$watch.take", [], {}]]
    out = student.script(steps, model_spec=spec, returns=["loss0", "loss1", "seen0", "seen1"], state=True)

    def run(**switches):
        m = variants.deep(initial)
        opt = torch.optim.SGD(m.parameters(), lr=lr)
        losses = [variants.step(m, src, tgt, opt, 0, eps, clip, **switches) for src, tgt in batches]
        return losses, _params(m)

    what = (f"train_step(model, src, tgt, SGD(lr={lr}), label_smoothing={eps}, clip_norm={clip}), twice, on batches "
            f"{[tuple(t.shape) for b in batches for t in b]}")
    want_losses, seen = [], []
    model.eval()  # as the student's process builds it (dropout is 0: the mode only shows in the watch)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    watch = stages.watch(model, opt)
    for src, tgt in batches:
        want_losses.append(training.train_step(model, src, tgt, opt, 0, eps, clip))
        seen.append(watch.take())
    watch.stop()
    atol, rtol = 1e-9 + CLIP_SLACK * lr, 1e-7
    got_losses = [out["loss0"], out["loss1"]]
    try:
        for k, want in enumerate(want_losses):
            checks.close_number(got_losses[k], want, f"{what}: loss returned by step {k + 1}", atol=atol, rtol=rtol)
        for name, p in model.named_parameters():
            checks.close(out["state"].get(name), p.detach(), f"{what}: parameter {name} after both steps",
                         atol=atol, rtol=rtol)
    except checks.CheckFailure as failure:
        failure = variants.named(failure, (got_losses, out["state"]), variants.training_mistakes(run),
                                 _same_run(atol, rtol))
        found = stages.training_difference([out["seen0"], out["seen1"]], seen, got_losses, want_losses,
                                           atol=atol, rtol=rtol)
        raise failure.shaped(found or stages.update_difference(), replace=True) from None


def _evaluate(model, batches, *, eval_mode=True, per_token=True, pad_id=0):
    was = model.training
    model.train(not eval_mode)
    total, count, means = 0.0, 0, []
    with torch.no_grad():
        for src, tgt in batches:
            labels, logits = tgt[:, 1:], model(src, tgt[:, :-1])
            s = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=pad_id,
                                reduction="sum").item()
            n = int((labels != pad_id).sum())
            total, count = total + s, count + n
            means.append(s / n)
    model.train(was)
    return total / count if per_token else sum(means) / len(means)


@pytest.mark.points(2)
def test_evaluate(student, rng):
    """Is evaluate the per-token mean over all batches, without dropout or gradients, leaving the model's mode as it was? / ¿Es evaluate la media por token sobre todos los lotes, sin dropout ni gradientes, dejando el modelo en el modo en que estaba?"""
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt, dropout=1.0)
    # Very different token counts per batch, so a mean of batch means is visibly off.
    batches = [(source_batch(rng, 1, 3, Vs), target_batch(rng, 1, 3, Vt)),
               (source_batch(rng, 7, 8, Vs), target_batch(rng, 7, 12, Vt)),
               (source_batch(rng, 3, 5, Vs), target_batch(rng, 3, 5, Vt))]
    want = _evaluate(model, batches)
    # Whether evaluate turned gradients off shows in the input of the model's last layer: a
    # forward pre-hook stores it in a dict (its __setitem__ is the hook), read after the calls.
    probe = [["attrs", "getattr", [{"$": "model"}, "__dict__"], {}], ["seen", "$attrs.copy", [], {}],
             ["last", "getattr", [{"$": "model"}, "generator"], {}],
             ["store", "getattr", [{"$": "seen"}, "__setitem__"], {}],
             ["hook", "$last.register_forward_pre_hook", [{"$": "store"}], {}]]
    read = [["inputs", "$seen.get", [{"$": "last"}, [torch.zeros(1)]], {}], ["x", "$inputs.__getitem__", [0], {}],
            ["graph", "getattr", [{"$": "x"}, "requires_grad"], {}]]
    out = student.script(probe + [
        ["_", "$model.train", [], {}],
        ["from_train", "training.evaluate", [{"$": "model"}, batches], {"pad_id": 0}],
        ["mode_train", "getattr", [{"$": "model"}, "training"], {}],
        ["inner_train", "getattr", [{"$": "last"}, "training"], {}],
        ["_", "$model.eval", [], {}],
        ["watch", "watch", [{"$": "model"}], {}],
        ["from_eval", "training.evaluate", [{"$": "model"}, batches], {"pad_id": 0}],
        ["watched", "$watch.take", [], {}],
        ["mode_eval", "getattr", [{"$": "model"}, "training"], {}],
    ] + read, model_spec=spec, returns=["from_train", "mode_train", "inner_train", "from_eval", "mode_eval", "graph",
                                        "watched"])
    watch = stages.watch(model)
    _evaluate(model, batches)
    watched = watch.take()
    watch.stop()
    for key, what in (("from_eval", "evaluate(model in eval mode, 3 batches)"),
                      ("from_train", "evaluate(model in training mode, 3 batches) (dropout must be off)")):
        try:
            checks.close_number(out[key], want, what, atol=1e-9, rtol=EVAL_RTOL)
        except checks.CheckFailure as failure:
            failure = variants.named(failure, out[key], [
                variants.mistake(*EVAL_DROPOUT, lambda: _evaluate(model, batches, eval_mode=False)),
                variants.mistake(*BATCH_MEANS, lambda: _evaluate(model, batches, per_token=False))],
                lambda a, m: _near(a, m, 1e-9, EVAL_RTOL))
            if key == "from_eval":  # the call the watch saw
                failure = failure.shaped(stages.evaluation_difference(out["watched"], watched, out[key], want,
                                                                      batches, 0))
            raise failure from None
    restored = variants.mistake(*NOT_RESTORED, None)
    for key, mode, en, es in (("mode_train", True, "training", "de entrenamiento"),
                              ("mode_eval", False, "eval", "de evaluación")):
        if out[key] is not mode:
            raise checks.CheckFailure(f"evaluate must leave a model that was in {en} mode in {en} mode",
                                      f"evaluate debe dejar en modo {es} un modelo que estaba en ese modo").naming(restored)
    if out["mode_train"] is True and out["inner_train"] is not True:
        raise checks.CheckFailure(
            "after evaluate, a model that was in training mode says model.training = True, but its submodules "
            "(model.generator) are still in eval mode, so dropout stays off for the rest of training",
            "tras evaluate, un modelo que estaba en modo de entrenamiento dice model.training = True, pero sus "
            "submódulos (model.generator) siguen en modo de evaluación, así que el dropout queda desactivado el "
            "resto del entrenamiento").naming(variants.mistake(*FLAG_ONLY, None))
    if out["graph"] is not False:
        raise checks.CheckFailure(
            "evaluate built a computation graph: the model's output required a gradient during evaluate",
            "evaluate construyó un grafo de cómputo: la salida del modelo requería gradiente durante evaluate",
        ).naming(variants.mistake(*WITH_GRAD, None))
    # pad_id is the argument, not 0: with another id as pad_id, the labels equal to it are left out.
    other = _common_label(batches)
    got = student.script([["loss", "training.evaluate", [{"$": "model"}, batches], {"pad_id": other}]],
                         model_spec=spec, returns=["loss"])["loss"]
    try:
        checks.close_number(got, _evaluate(model, batches, pad_id=other), f"evaluate(model, 3 batches, "
                            f"pad_id={other})", atol=1e-9, rtol=EVAL_RTOL)
    except checks.CheckFailure as failure:
        raise failure.naming(variants.mistake(*PAD_ID_ARGUMENT, None)) from None
    # A set with no label to score (every label is pad_id) has no mean: a clear ValueError,
    # not a ZeroDivisionError (or NaN) from 0 / 0.
    empty = [(source_batch(rng, 2, 4, Vs), torch.tensor([[1, 0, 0], [1, 0, 0]]))]
    error = student.script_error([["loss", "training.evaluate", [{"$": "model"}, empty], {"pad_id": 0}]],
                                 model_spec=spec)
    checks.expect(error is not None and error["type"] == "ValueError",
                  "evaluate on batches whose labels are all pad_id must raise ValueError (there is no token to "
                  "average over); " + (f"it raised {error['type']}" if error else "it returned a value"),
                  "evaluate con lotes cuyas etiquetas son todas pad_id debe lanzar ValueError (no hay ningún token "
                  "que promediar); " + (f"lanzó {error['type']}" if error else "devolvió un valor"),
                  mistake=variants.mistake(*NO_TOKENS, None))


def _common_label(batches) -> int:
    """The most common label id other than 0 in the batches (ties: the smallest)."""
    labels = torch.cat([tgt[:, 1:].flatten() for _, tgt in batches])
    values, counts = labels[labels != 0].unique(return_counts=True)
    return int(values[counts.argmax()])


@pytest.mark.points(1)
def test_fit(student, rng):
    """Does fit run train_step over every batch of every epoch and return each epoch's mean loss? / ¿Aplica fit train_step a cada lote de cada época y devuelve la pérdida media de cada época?"""
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt)
    batches = [(source_batch(rng, B, S, Vs), target_batch(rng, B, T, Vt))
               for B, S, T in ((3, 5, 6), (5, 4, 8), (2, 6, 4))]
    epochs, lr = checks.randint(rng, 2, 3), 0.3
    eps = round(0.05 + 0.15 * torch.rand(1, generator=rng).item(), 3)
    # A DataLoader that reshuffles the batches at every epoch, as the student's own does; its
    # seed is one whose first two epochs differ, so a batch order frozen once always shows.
    seed = checks.randint(rng, 0, 10**6)
    while _orders(batches, seed, 2)[0] == _orders(batches, seed, 2)[1]:
        seed += 1
    # Its dataset holds the batches' sentence pairs (rows) and a batch sampler groups them back
    # into those batches, so that len(loader.dataset) is not the number of batches.
    rows, groups = [], []
    for src, tgt in batches:
        groups.append(list(range(len(rows), len(rows) + src.size(0))))
        rows += [[s, t] for s, t in zip(src, tgt)]
    # A pad_id that is not 0 (a label id of the batches, so that it shows) must reach train_step.
    pad = _common_label(batches)
    out = student.script([
        ["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": lr, "momentum": 0.9}],
        ["watch", "watch", [{"$": "model"}, {"$": "opt"}], {}],
        ["gen", "torch.Generator", [], {}],
        ["seeded", "$gen.manual_seed", [seed], {}],
        ["order", "torch.utils.data.DataLoader", [groups],
         {"batch_size": None, "shuffle": True, "generator": {"$": "gen"}}],
        ["loader", "torch.utils.data.DataLoader", [rows], {"batch_sampler": {"$": "order"}}],
        ["history", "training.fit", [{"$": "model"}, {"$": "loader"}, {"$": "opt"}, epochs],
         {"pad_id": pad, "label_smoothing": eps}],
        ["watched", "$watch.take", [], {}],
        ["mode", "getattr", [{"$": "model"}, "training"], {}],
    ], model_spec=spec, returns=["history", "mode", "watched"], state=True)

    def run(reduce=lambda losses: sum(losses) / len(losses), watched=None, frozen=False, pad_id=pad, **switches):
        m = variants.deep(model)
        m.train()
        opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9)
        watch = stages.watch(m, opt) if watched is not None else None
        orders = _orders(batches, seed, epochs)
        history = [reduce([variants.step(m, *batches[i], opt, pad_id, eps, **switches)
                           for i in orders[0 if frozen else e]]) for e in range(epochs)]
        if watch:
            watched.append(watch.take())
            watch.stop()
        return history, _params(m)

    watched = []
    want, state = run(watched=watched)
    what = (f"fit(model, a DataLoader shuffling 3 batches of {len(rows)} sentence pairs, SGD(momentum=0.9), "
            f"epochs={epochs}, pad_id={pad}, label_smoothing={eps})")
    history = out["history"]
    shape = variants.history_shape(history, epochs)
    try:
        checks.expect(isinstance(history, list) and len(history) == epochs and shape is None,
                      f"{what} must return a list of {epochs} losses, got {history!r:.80}",
                      f"{what} debe devolver una lista de {epochs} pérdidas", mistake=shape)
        for e, (got, loss) in enumerate(zip(history, want)):
            checks.close_number(got, loss, f"{what}: mean loss of epoch {e + 1}", atol=1e-9, rtol=1e-7)
        for name, p in state.items():
            checks.close(out["state"].get(name), p, f"{what}: parameter {name} after training", atol=1e-8, rtol=1e-6)
    except checks.CheckFailure as failure:
        switches = ("NO_ZERO_GRAD", "ZERO_GRAD_LATE", "NO_SHIFT", "PAD_COUNTED", "NO_SMOOTHING")
        raise variants.named(failure, (history, out["state"]), variants.training_mistakes(
            run, [getattr(variants, name) for name in switches]) + [
            variants.mistake(*FIT_LAST, lambda: run(reduce=lambda losses: losses[-1])),
            variants.mistake(*FIT_SUM, lambda: run(reduce=sum)),
            variants.mistake(*FIT_PER_PAIR, lambda: run(reduce=lambda losses: sum(losses) / len(rows))),
            variants.mistake(*FIT_RUNNING, lambda: run(reduce=_running_mean())),
            variants.mistake(*FIT_PERPLEXITY, lambda: run(reduce=lambda losses: math.exp(sum(losses) / len(losses)))),
            variants.mistake(*FIT_FROZEN, lambda: run(frozen=True)),
            variants.mistake(*FIT_PAD, lambda: run(pad_id=0))], _same_run(1e-8, 1e-6)).shaped(
                stages.training_difference([out["watched"]], watched, [], [], atol=1e-8, rtol=1e-6,
                                           during=("during fit", "durante fit"))) from None
    if out["mode"] is not True:
        raise checks.CheckFailure("fit must put the model in training mode (model.train())",
                                  "fit debe poner el modelo en modo de entrenamiento (model.train())"
                                  ).naming(variants.mistake(*FIT_MODE, None))


VALID_FIRST = ("fit_and_validate evaluates the validation batches before each epoch's training: train the epoch "
               "first, then append evaluate(model, valid_loader, pad_id)",
               "fit_and_validate evalúa los lotes de validación antes del entrenamiento de cada época: entrena "
               "primero la época y después añade evaluate(model, valid_loader, pad_id)")
VALID_IS_TRAIN = ("fit_and_validate's validation curve holds the training losses: append evaluate(model, "
                  "valid_loader, pad_id) to it after each epoch",
                  "la curva de validación de fit_and_validate contiene las pérdidas de entrenamiento: añádele "
                  "evaluate(model, valid_loader, pad_id) tras cada época")
VALID_ON_TRAIN = ("fit_and_validate evaluates the training batches: score valid_loader, the held-out pairs, "
                  "with evaluate(model, valid_loader, pad_id)",
                  "fit_and_validate evalúa los lotes de entrenamiento: puntúa valid_loader, los pares apartados, con "
                  "evaluate(model, valid_loader, pad_id)")
VALID_ONCE = ("fit_and_validate gives every epoch the validation loss of the last one (evaluate called once, after "
              "the epoch loop): call evaluate at the end of every epoch, inside the loop",
              "fit_and_validate da a cada época la pérdida de validación de la última (evaluate llamado una vez, tras "
              "el bucle de épocas): llama a evaluate al final de cada época, dentro del bucle")
VALID_PAD = ("fit_and_validate does not pass its pad_id on to evaluate, so validation leaves out the labels equal to "
             "0 instead: evaluate(model, valid_loader, pad_id)",
             "fit_and_validate no pasa su pad_id a evaluate, así que la validación excluye las etiquetas iguales a 0: "
             "evaluate(model, valid_loader, pad_id)")
VALID_TRAIN_MODE = ("fit_and_validate validates with the model in training mode (dropout on): validate with "
                    "evaluate, which switches the model to eval mode",
                    "fit_and_validate valida con el modelo en modo de entrenamiento (dropout activo): valida con "
                    "evaluate, que pone el modelo en modo de evaluación")
TRAIN_AGAIN = ("after validating, fit_and_validate trains the next epoch in eval mode (dropout off): evaluate puts "
               "the model back in the mode it had; a model.eval() of your own needs a model.train() after validation",
               "tras validar, fit_and_validate entrena la época siguiente en modo de evaluación (sin dropout): "
               "evaluate devuelve el modelo al modo que tenía; un model.eval() tuyo necesita un model.train() tras "
               "la validación")
TRAIN_MODE_FIRST = ("fit_and_validate does not put the model in training mode (model.train()) before the first epoch",
                    "fit_and_validate no pone el modelo en modo de entrenamiento (model.train()) antes de la primera "
                    "época")
CURVES_SHAPE = ("fit_and_validate must return {\"train\": [...], \"valid\": [...]}: a dict of two lists with one "
                "float per epoch each, created once before the epoch loop and appended to in it",
                "fit_and_validate debe devolver {\"train\": [...], \"valid\": [...]}: un dict de dos listas con un "
                "float por época cada una, creadas una vez antes del bucle de épocas y ampliadas dentro de él")


def _curves_shape(curves, epochs) -> checks.Mistake | None:
    """What a result of the wrong kind says about fit_and_validate's loop, if it is one."""
    if isinstance(curves, (tuple, list)) and len(curves) == 2 and all(isinstance(c, list) for c in curves):
        return checks.Mistake("fit_and_validate returns a pair of lists: return a dict, {\"train\": train_losses, "
                              "\"valid\": valid_losses}",
                              "fit_and_validate devuelve un par de listas: devuelve un dict, {\"train\": "
                              "pérdidas_entrenamiento, \"valid\": pérdidas_validación}")
    if not isinstance(curves, dict):
        return None
    valid = curves.get("valid")
    if isinstance(valid, (int, float)):
        return checks.Mistake("fit_and_validate's \"valid\" is one number: keep a list with evaluate's value after "
                              "every epoch",
                              "el \"valid\" de fit_and_validate es un número: guarda una lista con el valor de "
                              "evaluate tras cada época")
    if isinstance(valid, list) and len(valid) == 1 and epochs > 1:
        return checks.Mistake(*VALID_ONCE)
    return variants.history_shape(curves.get("train"), epochs)


def _mode_mistake(got: list, want: list, per_epoch: int, trained: int) -> tuple[checks.Mistake | None, str, str]:
    """The first forward call run in another mode than the reference's: the mistake it shows and
    the call, described in both languages; ``(None, "", "")`` when the modes agree."""
    for k, (g, w) in enumerate(zip(got, want)):
        if g[2] == w[2]:
            continue
        epoch, within = divmod(k, per_epoch)
        if within >= trained:
            mistake = VALID_TRAIN_MODE
        else:
            mistake = TRAIN_MODE_FIRST if epoch == 0 else TRAIN_AGAIN
        kind = ("a validation", "de validación") if within >= trained else ("a training", "de entrenamiento")
        mode = ("training", "entrenamiento") if g[2] else ("eval", "evaluación")
        return (checks.Mistake(*mistake), f"in epoch {epoch + 1}, the model ran {kind[0]} batch in {mode[0]} mode",
                f"en la época {epoch + 1}, el modelo procesó un lote {kind[1]} en modo de {mode[1]}")
    return None, "", ""


@pytest.mark.points(2)
def test_fit_and_validate(student, rng):
    """Does fit_and_validate train each epoch as fit does, then evaluate the validation batches in eval mode, returning both curves? / ¿Entrena fit_and_validate cada época como fit y evalúa después los lotes de validación en modo de evaluación, devolviendo ambas curvas?"""
    training = reference.load("training")
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt)
    train = [(source_batch(rng, B, S, Vs), target_batch(rng, B, T, Vt)) for B, S, T in ((3, 5, 6), (4, 4, 7))]
    # Validation batches of very different token counts, none of them a training batch.
    valid = [(source_batch(rng, B, S, Vs), target_batch(rng, B, T, Vt)) for B, S, T in ((1, 3, 4), (5, 6, 9))]
    epochs, lr = 3, 0.3
    eps = round(0.05 + 0.15 * torch.rand(1, generator=rng).item(), 3)
    pad = _common_label(train + valid)  # a pad_id that is not 0 must reach train_step and evaluate
    # A clipping threshold below the first gradient's norm, so that clip_norm changes the run.
    probe = variants.deep(model)
    src, tgt = train[0]
    training.sequence_loss(probe(src, tgt[:, :-1]), tgt[:, 1:], pad, eps).backward()
    clip = round(0.5 * torch.nn.utils.clip_grad_norm_(probe.parameters(), float("inf")).item(), 6)
    out = student.script([
        ["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": lr}],
        ["watch", "watch", [{"$": "model"}], {}],
        ["curves", "training.fit_and_validate", [{"$": "model"}, train, valid, {"$": "opt"}, epochs],
         {"pad_id": pad, "label_smoothing": eps, "clip_norm": clip}],
        ["watched", "$watch.take", [], {}],
        ["mode", "getattr", [{"$": "model"}, "training"], {}],
    ], model_spec=spec, returns=["curves", "mode", "watched"], state=True)

    def run(first=False, scored=valid, as_train=False, once=False, pad_id=pad, **switches):
        m = variants.deep(model)
        m.train()
        opt = torch.optim.SGD(m.parameters(), lr=lr)
        curves = {"train": [], "valid": []}
        for _ in range(epochs):
            if first:
                curves["valid"].append(_evaluate(m, scored, pad_id=pad_id))
            losses = [variants.step(m, s, t, opt, pad, eps, clip, **switches) for s, t in train]
            curves["train"].append(sum(losses) / len(losses))
            if not first:
                curves["valid"].append(_evaluate(m, scored, pad_id=pad_id))
        if as_train:
            curves["valid"] = list(curves["train"])
        if once:
            curves["valid"] = [curves["valid"][-1]] * epochs
        return curves, _params(m)

    # The reference's run, watched as the student's was (the model comes in eval mode).
    ref = variants.deep(model).eval()
    watch = stages.watch(ref)
    want = training.fit_and_validate(ref, train, valid, torch.optim.SGD(ref.parameters(), lr=lr), epochs,
                                     pad_id=pad, label_smoothing=eps, clip_norm=clip)
    watched = watch.take()
    watch.stop()
    what = (f"fit_and_validate(model, 2 training batches, 2 validation batches, SGD(lr={lr}), epochs={epochs}, "
            f"pad_id={pad}, label_smoothing={eps}, clip_norm={clip})")
    steps = epochs * len(train)
    atol, rtol = 1e-8 + CLIP_SLACK * lr * steps, 1e-6
    curves = out["curves"]
    shape = _curves_shape(curves, epochs)
    checks.expect(shape is None and isinstance(curves, dict) and all(
        isinstance(curves.get(k), list) and len(curves[k]) == epochs for k in ("train", "valid")),
        f"{what} must return {{\"train\": [{epochs} losses], \"valid\": [{epochs} losses]}}, got {curves!r:.100}",
        f"{what} debe devolver {{\"train\": [{epochs} pérdidas], \"valid\": [{epochs} pérdidas]}}",
        mistake=shape or checks.Mistake(*CURVES_SHAPE))
    try:
        for e in range(epochs):
            checks.close_number(curves["train"][e], want["train"][e], f"{what}: training loss of epoch {e + 1}",
                                atol=atol, rtol=rtol)
        for e in range(epochs):
            checks.close_number(curves["valid"][e], want["valid"][e], f"{what}: validation loss after epoch {e + 1}",
                                atol=atol, rtol=rtol)
        for name, p in ref.named_parameters():
            checks.close(out["state"].get(name), p.detach(), f"{what}: parameter {name} after training",
                         atol=atol, rtol=rtol)
    except checks.CheckFailure as failure:
        # A run is compared as (training losses + validation losses, parameters), as _same_run reads it.
        def flat(**kw):
            return lambda: (lambda c, state: (c["train"] + c["valid"], state))(*run(**kw))
        raise variants.named(failure, (curves["train"] + curves["valid"], out["state"]), [
            variants.mistake(*VALID_FIRST, flat(first=True)),
            variants.mistake(*VALID_IS_TRAIN, flat(as_train=True)),
            variants.mistake(*VALID_ON_TRAIN, flat(scored=train)),
            variants.mistake(*VALID_ONCE, flat(once=True)),
            variants.mistake(*VALID_PAD, flat(pad_id=0))] + [
            variants.mistake(*names, flat(**switches)) for names, switches in variants.STEP_SWITCHES.items()],
            _same_run(atol, rtol)).shaped(
                stages.calls_difference(out["watched"]["calls"], watched["calls"],
                                        ("during fit_and_validate", "durante fit_and_validate"))) from None
    mistake, en, es = _mode_mistake(out["watched"]["calls"], watched["calls"], len(train) + len(valid), len(train))
    if mistake is not None:
        raise checks.CheckFailure(f"{what}: {en}, where the reference's is not",
                                  f"{what}: {es}, donde el de la referencia no").naming(mistake)
    if out["mode"] is not True:
        raise checks.CheckFailure(f"{what} must leave the model in training mode",
                                  f"{what} debe dejar el modelo en modo de entrenamiento").naming(
            checks.Mistake(*TRAIN_AGAIN))
