"""Public tests for training.py, on a tiny model. Run them with ``pytest assignments/a6_translator``."""

import math

import pytest
import torch
from torch import nn

from training import evaluate, fit, fit_and_validate, sequence_loss, train_step

V = 6


class TinySeq2Seq(nn.Module):
    """logits[b, t] = a row per decoder input token + a row per first source token."""

    def __init__(self, dropout=0.0):
        super().__init__()
        torch.manual_seed(0)
        self.tgt_rows, self.src_rows = nn.Embedding(V, V), nn.Embedding(V, V)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src, tgt):
        return self.dropout(self.tgt_rows(tgt)) + self.src_rows(src[:, :1])  # (B, T, V)


SRC = torch.tensor([[3, 4, 0], [5, 3, 4]])
TGT = torch.tensor([[1, 3, 2, 0, 0], [1, 5, 4, 3, 2]])  # <sos> ... <eos> <pad>


def _near(a, b):
    return b != 0 and abs(a - b) <= 1e-5 * abs(b)


def test_sequence_loss_ignores_pad():
    """Is the loss the mean of -log p(label) over the labels that are not pad?"""
    logits = torch.arange(2 * 3 * V, dtype=torch.float32).reshape(2, 3, V).sin()
    labels = torch.tensor([[2, 0, 0], [1, 4, 5]])
    logp = logits.log_softmax(-1)
    want = -(logp[0, 0, 2] + logp[1, 0, 1] + logp[1, 1, 4] + logp[1, 2, 5]) / 4
    got = sequence_loss(logits, labels, pad_id=0).item()
    every = -logp.gather(-1, labels[..., None]).mean().item()  # the 2 pad labels counted too
    if _near(got, every):
        hint = ("That is the mean over all 6 labels: the 2 labels equal to pad_id must not count (ignore_index).",
                "Es la media de las 6 etiquetas: las 2 iguales a pad_id no deben contar (ignore_index).")
    elif _near(got, 4 * want.item()):
        hint = ("That is the sum over the 4 real labels: take their mean.",
                "Es la suma de las 4 etiquetas reales: calcula su media.")
    elif _near(got, 4 / 6 * want.item()):
        hint = ("That is their sum divided by all 6 positions: divide by the 4 labels that are not pad_id.",
                "Es su suma dividida entre las 6 posiciones: divide entre las 4 etiquetas que no son pad_id.")
    else:
        hint = ("Flatten logits to (B*T, V) and labels to (B*T,) and take the cross-entropy of each label.",
                "Aplana los logits a (B*T, V) y las etiquetas a (B*T,) y toma la entropía cruzada de cada etiqueta.")
    assert got == pytest.approx(want.item(), rel=1e-6), (
        f"sequence_loss gave {got:.6f}, expected {want.item():.6f}, the mean of -log p(label) over the 4 labels "
        f"that are not pad_id=0 (labels {labels.tolist()}). {hint[0]} / "
        f"sequence_loss dio {got:.6f}, se esperaba {want.item():.6f}, la media de -log p(etiqueta) sobre las 4 "
        f"etiquetas que no son pad_id=0 (etiquetas {labels.tolist()}). {hint[1]}"
    )


def test_label_smoothing_mixes_in_the_mean_over_classes():
    """With label_smoothing=0.1, is each label's loss 0.9 * -log p(label) + 0.1 * the mean of -log p over classes?"""
    logits = torch.arange(2 * 3 * V, dtype=torch.float64).reshape(2, 3, V).cos() * 3
    labels = torch.tensor([[2, 0, 0], [1, 4, 5]])
    nll = -logits.log_softmax(-1)  # (B, T, V): -log p of every class
    real = labels != 0
    per_label = 0.9 * nll.gather(-1, labels[..., None])[..., 0] + 0.1 * nll.mean(-1)
    want = per_label[real].mean().item()
    plain = nll.gather(-1, labels[..., None])[..., 0][real].mean().item()
    got = sequence_loss(logits, labels, pad_id=0, label_smoothing=0.1).item()
    hint = (" That is the loss without smoothing: pass label_smoothing on (F.cross_entropy(..., label_smoothing=...)).",
            " Es la pérdida sin suavizado: pasa label_smoothing (F.cross_entropy(..., label_smoothing=...)).") \
        if _near(got, plain) else ("", "")
    assert got == pytest.approx(want, rel=1e-6), (
        f"sequence_loss(..., label_smoothing=0.1) gave {got:.6f}, expected {want:.6f}: the mean over the non-pad "
        f"labels of 0.9 * -log p(label) + 0.1 * (the mean of -log p over the {V} classes).{hint[0]} / "
        f"sequence_loss(..., label_smoothing=0.1) dio {got:.6f}, se esperaba {want:.6f}: la media sobre las "
        f"etiquetas que no son pad de 0.9 * -log p(etiqueta) + 0.1 * (la media de -log p sobre las {V} "
        f"clases).{hint[1]}"
    )


def test_uniform_logits_cost_log_v_even_with_smoothing():
    """Do all-equal logits cost log V per token, with or without label smoothing?"""
    labels = torch.tensor([[3, 4, 0]])
    for eps in (0.0, 0.1):
        got = sequence_loss(torch.zeros(1, 3, V), labels, label_smoothing=eps).item()
        if _near(got, 2 * math.log(V)) or _near(got, 3 * math.log(V)):
            hint = ("That is a sum over the labels, not their mean.", "Es una suma de etiquetas, no su media.")
        elif eps:
            hint = ("eps=0 passed, so look at how label_smoothing is applied: the smoothed target must still sum "
                    "to 1 (F.cross_entropy's label_smoothing does it).",
                    "eps=0 ha pasado, así que revisa cómo aplicas label_smoothing: el objetivo suavizado debe seguir "
                    "sumando 1 (el label_smoothing de F.cross_entropy lo hace).")
        else:
            hint = ("Take the mean cross-entropy over the labels that are not pad_id.",
                    "Calcula la entropía cruzada media sobre las etiquetas que no son pad_id.")
        assert got == pytest.approx(math.log(V)), (
            f"With label_smoothing={eps}, all-zero logits gave {got:.6f}, expected log V = log {V} = "
            f"{math.log(V):.6f} per token: every class has probability 1/V. {hint[0]} / "
            f"Con label_smoothing={eps}, unos logits todos a cero dieron {got:.6f}, se esperaba log V = log {V} = "
            f"{math.log(V):.6f} por token: todas las clases tienen probabilidad 1/V. {hint[1]}"
        )


def _train_step_hint(got, model):
    fresh = TinySeq2Seq()  # the same initial weights as the test's model
    with torch.no_grad():
        unshifted = sequence_loss(fresh(SRC, TGT), TGT).item()
        swapped = sequence_loss(fresh(SRC, TGT[:, 1:]), TGT[:, :-1]).item()
        as_input = sequence_loss(fresh(SRC, TGT[:, :-1]), TGT[:, :-1]).item()
        after = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:]).item()
    if _near(got, unshifted) or _near(got, as_input):
        return ("That is the loss of the target not shifted for teacher forcing: the decoder reads the target "
                "without its last token and must predict it without its first (<sos>).",
                "Es la pérdida con el destino sin desplazar para el teacher forcing: el decodificador lee el destino "
                "sin su último token y debe predecirlo sin el primero (<sos>).")
    if _near(got, swapped):
        return ("Decoder input and labels are swapped: the input starts with <sos>, the labels end with <eos>.",
                "La entrada del decodificador y las etiquetas están cambiadas: la entrada empieza por <sos> y las "
                "etiquetas terminan en <eos>.")
    if _near(got, after):
        return ("That is the loss after the update: return the loss computed before the optimizer's step.",
                "Es la pérdida tras la actualización: devuelve la calculada antes del step del optimizador.")
    return ("Compute sequence_loss on the teacher-forced batch and return it before the update.",
            "Calcula sequence_loss sobre el lote con teacher forcing y devuélvela antes de la actualización.")


def test_train_step_shifts_the_target_and_updates():
    """Does train_step return the teacher-forced loss before the update, and change the weights?"""
    model = TinySeq2Seq()
    before = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:]).item()
    weights = model.tgt_rows.weight.detach().clone()
    loss = train_step(model, SRC, TGT, torch.optim.SGD(model.parameters(), lr=0.5))
    assert isinstance(loss, float), (
        f"train_step returned {loss!r}, a {type(loss).__name__}, expected a Python float: return the loss with "
        ".item(). / "
        f"train_step devolvió {loss!r}, un {type(loss).__name__}, se esperaba un float de Python: devuelve la "
        "pérdida con .item()."
    )
    hint = _train_step_hint(loss, model) if loss != pytest.approx(before, rel=1e-6) else ("", "")
    assert loss == pytest.approx(before, rel=1e-6), (
        f"train_step returned {loss:.6f}, expected {before:.6f}, the teacher-forced loss before the update. "
        f"{hint[0]} / "
        f"train_step devolvió {loss:.6f}, se esperaba {before:.6f}, la pérdida con teacher forcing antes de la "
        f"actualización. {hint[1]}"
    )
    assert not torch.equal(model.tgt_rows.weight, weights), (
        "train_step left the weights unchanged: call backward() on the loss and then the optimizer's step, "
        "clearing the gradients (zero_grad) before backward(), not between backward() and step. / "
        "train_step dejó los pesos sin cambiar: llama a backward() sobre la pérdida y luego al step del optimizador, "
        "y borra los gradientes (zero_grad) antes de backward(), no entre backward() y step."
    )


def _evaluate_hint(got, want, per_batch):
    if _near(got, sum(per_batch) / len(per_batch)):
        return ("That is the mean of the batch means, lecture notebook 000's validation loss: unlike it, every "
                "token must weigh the same here (2 tokens in the first batch, 6 in the second), so the result does "
                "not depend on how the data is split into batches.",
                "Es la media de las medias por lote, la pérdida de validación del cuaderno de clase 000: a "
                "diferencia de él, aquí cada token debe pesar lo mismo (2 tokens en el primer lote, 6 en el "
                "segundo), así el resultado no depende de cómo se parten los datos en lotes.")
    if _near(got, want * 8 / 10):
        return ("That divides by 10 positions: the pad labels must not be counted.",
                "Eso divide entre 10 posiciones: las etiquetas de pad no deben contar.")
    if _near(got, want * 8):
        return ("That is the sum over the tokens: divide by their number.",
                "Es la suma sobre los tokens: divide entre su número.")
    return ("Add up the cross-entropy of every non-pad label of every batch (teacher-forced) and divide by their "
            "number.",
            "Suma la entropía cruzada de cada etiqueta que no es pad de cada lote (con teacher forcing) y divide "
            "entre su número.")


def _evaluate_message(got, want, per_batch, mode):
    hint = _evaluate_hint(got, want, per_batch) if got != pytest.approx(want, rel=1e-6) else ("", "")
    shown = f"{got:.6f}" if isinstance(got, float) else repr(got)
    return (f"evaluate (model in {mode} mode) gave {shown}, expected {want:.6f}, the mean loss per non-pad token "
            f"over both batches (2 + 6 tokens), worked out with your sequence_loss (fix it first if its tests "
            f"fail). {hint[0]} / "
            f"evaluate (modelo en modo {mode}) dio {shown}, se esperaba {want:.6f}, la pérdida media por token que "
            f"no es pad en los dos lotes (2 + 6 tokens), calculada con tu sequence_loss (arréglala antes si sus "
            f"tests fallan). {hint[1]}")


def test_sequence_loss_ignores_the_pad_id_it_is_given():
    """With pad_id=3, are the labels 3 left out and the labels 0 counted?"""
    logits = torch.arange(2 * 3 * V, dtype=torch.float32).reshape(2, 3, V).cos()
    labels = torch.tensor([[0, 3, 3], [1, 0, 3]])
    logp = logits.log_softmax(-1)
    want = -(logp[0, 0, 0] + logp[1, 0, 1] + logp[1, 1, 0]).item() / 3
    got = sequence_loss(logits, labels, pad_id=3).item()
    assert got == pytest.approx(want, rel=1e-6), (
        f"sequence_loss(..., pad_id=3) gave {got:.6f}, expected {want:.6f}: the labels equal to 3 are padding and "
        "the labels 0 are real words here; pass the pad_id argument on (ignore_index=pad_id), not 0. / "
        f"sequence_loss(..., pad_id=3) dio {got:.6f}, se esperaba {want:.6f}: las etiquetas iguales a 3 son relleno "
        "y las etiquetas 0 son palabras reales aquí; pasa el argumento pad_id (ignore_index=pad_id), no 0."
    )


def test_evaluate_returns_a_python_float():
    """Is evaluate's result a Python float (not a tensor)?"""
    got = evaluate(TinySeq2Seq(), [(SRC, TGT)])
    assert type(got) is float, (
        f"evaluate returned {type(got).__name__}, expected a Python float: turn the loss into a number with "
        ".item() (a tensor keeps its graph alive and prints as tensor(...)). / "
        f"evaluate devolvió {type(got).__name__}, se esperaba un float de Python: convierte la pérdida en número con "
        ".item() (un tensor mantiene vivo su grafo y se imprime como tensor(...)).")


def test_evaluate_weights_tokens_and_restores_the_mode():
    """Is evaluate a per-token mean over all batches, leaving the model's mode as it was?"""
    model = TinySeq2Seq().train()
    batches = [(SRC[:1], TGT[:1, :3]), (SRC, TGT)]  # 2 tokens, then 2 + 4
    per_batch = [sequence_loss(model(s, t[:, :-1]), t[:, 1:]).item() for s, t in batches]
    want = (2 * per_batch[0] + 6 * per_batch[1]) / 8
    got = evaluate(model, batches)
    assert got == pytest.approx(want, rel=1e-6), _evaluate_message(got, want, per_batch, "train")
    assert model.training, (
        "evaluate left the model in eval mode, but it was in training mode before the call: put it back in the "
        "mode it had (otherwise training goes on without dropout). / "
        "evaluate dejó el modelo en modo eval, pero antes de la llamada estaba en modo entrenamiento: devuélvelo "
        "al modo que tenía (si no, el entrenamiento sigue sin dropout)."
    )
    got = evaluate(model.eval(), batches)
    assert got == pytest.approx(want, rel=1e-6), _evaluate_message(got, want, per_batch, "eval")
    assert not model.training, (
        "evaluate left in training mode a model that was in eval mode before the call: restore the mode it had "
        "instead of always switching to training mode. / "
        "evaluate dejó en modo entrenamiento un modelo que antes de la llamada estaba en modo eval: restaura el "
        "modo que tenía en vez de pasar siempre a modo entrenamiento."
    )


def test_evaluate_raises_when_every_label_is_pad():
    """Does evaluate raise ValueError when no label is left to score (every label is pad_id),
    instead of dividing 0 by 0?"""
    only_pad = [(SRC, torch.tensor([[1, 0, 0], [1, 0, 0]]))]  # labels tgt[:, 1:] are all 0 = pad_id
    try:
        got = evaluate(TinySeq2Seq(), only_pad, pad_id=0)
    except ValueError:
        return
    except ZeroDivisionError:
        got = "ZeroDivisionError"
    pytest.fail(
        f"evaluate on batches whose labels are all pad_id gave {got}, expected ValueError: there is no token to "
        "average over, so after the loop raise ValueError when the count of scored tokens is 0. / "
        f"evaluate con lotes cuyas etiquetas son todas pad_id dio {got}, se esperaba ValueError: no hay ningún "
        "token que promediar, así que tras el bucle lanza ValueError cuando la cuenta de tokens puntuados es 0.")


def _losses(history):
    try:
        return str([round(float(h), 4) for h in history])
    except (TypeError, ValueError):
        return repr(history)


def test_fit_lowers_the_loss():
    """Does fit return one mean loss per epoch, going down, with the model in training mode?"""
    model = TinySeq2Seq().eval()
    history = fit(model, [(SRC, TGT)], torch.optim.SGD(model.parameters(), lr=0.5), epochs=5)
    assert len(history) == 5, (
        f"fit(epochs=5) returned {len(history)} values {_losses(history)}, expected 5: one mean loss per epoch. / "
        f"fit(epochs=5) devolvió {len(history)} valores {_losses(history)}, se esperaban 5: una pérdida media por "
        "época."
    )
    kinds = sorted({type(loss).__name__ for loss in history})
    assert kinds == ["float"], (
        f"fit's history holds {', '.join(kinds)} values, expected Python floats: one number per epoch, the mean of "
        "train_step's losses (floats already); sum(losses) / len(losses), not torch.tensor(losses).mean() / "
        f"el historial de fit contiene valores {', '.join(kinds)}, se esperaban floats de Python: un número por "
        "época, la media de las pérdidas de train_step (ya son floats); sum(losses) / len(losses), no "
        "torch.tensor(losses).mean()"
    )
    assert history[-1] < history[0], (
        f"fit's losses {_losses(history)} did not go down from the first epoch to the last: every epoch must run "
        "train_step on every batch (if test_train_step_shifts_the_target_and_updates fails, fix it first). / "
        f"Las pérdidas de fit {_losses(history)} no bajaron de la primera época a la última: cada época debe ejecutar "
        "train_step en cada lote (si test_train_step_shifts_the_target_and_updates falla, arréglalo antes)."
    )
    assert model.training, (
        "After fit the model is in eval mode (it was in eval mode before the call): fit must put the model in "
        "training mode to train, and leave it there. / "
        "Tras fit el modelo está en modo eval (lo estaba antes de la llamada): fit debe poner el modelo en modo "
        "entrenamiento para entrenar, y dejarlo así."
    )


def _weights(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def test_evaluate_switches_dropout_off():
    """Does evaluate give the same value for a model with dropout in training mode as in eval mode?"""
    model = TinySeq2Seq(dropout=0.5).eval()
    batches = [(SRC, TGT)]
    want = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:]).item()
    torch.manual_seed(1)
    model.train(True)
    got = evaluate(model, batches)
    assert got == pytest.approx(want, rel=1e-6), (
        f"evaluate of a model with dropout 0.5, called in training mode, gave {got!r}, expected {want:.6f} (its "
        "value in eval mode): evaluate must switch dropout off with model.eval() before running the model (and "
        "put the mode back afterwards). / "
        f"evaluate de un modelo con dropout 0.5, llamado en modo entrenamiento, dio {got!r}, se esperaba "
        f"{want:.6f} (su valor en modo eval): evaluate debe desactivar el dropout con model.eval() antes de "
        "ejecutar el modelo (y restaurar el modo después)."
    )


def test_evaluate_runs_without_gradients_and_restores_every_submodule():
    """Does evaluate run the model with gradients off (no graph is built), and leave every
    submodule, not only the model itself, in the training mode it had?"""
    model = TinySeq2Seq(dropout=0.5).train()
    seen = []
    model.register_forward_hook(lambda module, args, out: seen.append(torch.is_grad_enabled()))
    evaluate(model, [(SRC, TGT)])
    assert seen and not any(seen), (
        "evaluate ran the model with gradients on, so every batch builds a graph it never uses: wrap the loop in "
        "torch.no_grad(). / evaluate ejecutó el modelo con los gradientes activos, así que cada lote construye un "
        "grafo que no se usa: envuelve el bucle en torch.no_grad().")
    left = [name for name, module in model.named_modules() if not module.training]
    assert not left, (
        f"after evaluate, submodules {left} of a model that was in training mode are still in eval mode (dropout "
        "stays off for the rest of training): restore the mode it had with model.train(...), which sets every "
        "submodule, not by assigning model.training. / "
        f"tras evaluate, los submódulos {left} de un modelo que "
        "estaba en modo entrenamiento siguen en modo eval (el dropout queda desactivado el resto del "
        "entrenamiento): restaura el modo que tenía con model.train(...), que cambia todos los submódulos, no "
        "asignando model.training.")


def test_train_step_passes_label_smoothing_on():
    """With label_smoothing=0.2, does train_step return the smoothed loss before the update?"""
    model = TinySeq2Seq()
    with torch.no_grad():
        smoothed = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:], label_smoothing=0.2).item()
        plain = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:]).item()
    loss = train_step(model, SRC, TGT, torch.optim.SGD(model.parameters(), lr=0.5), label_smoothing=0.2)
    hint = (" That is the loss without smoothing: pass label_smoothing on to sequence_loss.",
            " Es la pérdida sin suavizado: pasa label_smoothing a sequence_loss.") if _near(loss, plain) else ("", "")
    assert loss == pytest.approx(smoothed, rel=1e-6), (
        f"train_step(..., label_smoothing=0.2) returned {loss!r}, expected {smoothed:.6f}, the smoothed "
        f"teacher-forced loss before the update.{hint[0]} / "
        f"train_step(..., label_smoothing=0.2) devolvió {loss!r}, se esperaba {smoothed:.6f}, la pérdida suavizada "
        f"con teacher forcing antes de la actualización.{hint[1]}"
    )


def test_train_step_starts_from_clean_gradients():
    """Do two train_steps move the weights as two steps whose old gradients were cleared in between?"""
    models = [TinySeq2Seq(), TinySeq2Seq()]
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.5) for m in models]
    for k, (model, optimizer) in enumerate(zip(models, optimizers)):
        train_step(model, SRC, TGT, optimizer)
        if k == 1:  # what train_step must do itself: forget the first step's gradients
            for p in model.parameters():
                p.grad = None
        train_step(model, SRC, TGT, optimizer)
    assert torch.allclose(_weights(models[0]), _weights(models[1]), atol=1e-6), (
        "After two train_steps the weights differ from two steps with the gradients cleared in between: the "
        "first step's gradients were added to the second's. Clear the gradients (zero_grad) before the backward pass. / "
        "Tras dos train_step los pesos difieren de dos pasos con los gradientes borrados entre ellos: los "
        "gradientes del primer paso se sumaron a los del segundo. Borra los gradientes (zero_grad) antes de la "
        "pasada hacia atrás (backward)."
    )


def test_train_step_clips_the_gradient_norm_before_the_update():
    """With clip_norm=0.01, is the update the unclipped one rescaled to norm lr * 0.01?"""
    moves = []
    for clip in (None, 0.01):
        model = TinySeq2Seq()
        before = _weights(model)
        train_step(model, SRC, TGT, torch.optim.SGD(model.parameters(), lr=1.0), clip_norm=clip)
        moves.append(_weights(model) - before)  # = -lr * (the gradient that reached the step)
    free, clipped = moves
    want = free * (0.01 / free.norm())  # the gradient's norm is far above 0.01
    if torch.allclose(clipped, free, atol=1e-7):
        hint = ("The update is the unclipped one: clip_norm is ignored, or the clipping runs after "
                "the optimizer's step; clip the gradients' global norm (clip_grad_norm_) between the backward pass "
                "and the optimizer's step.",
                "La actualización es la que no se recorta: se ignora clip_norm, o el recorte se hace después del "
                "step del optimizador; recorta la norma global de los gradientes (clip_grad_norm_) entre la "
                "pasada hacia atrás y el step del optimizador.")
    else:
        hint = ("Rescale the whole gradient (all parameters together) to norm clip_norm, before the step.",
                "Reescala el gradiente entero (todos los parámetros juntos) a norma clip_norm, antes del paso.")
    assert torch.allclose(clipped, want, atol=1e-6), (
        f"With clip_norm=0.01 and SGD(lr=1) the weights moved by a norm of {clipped.norm():.6f}, expected 0.010000 "
        f"in the direction of the unclipped update (norm {free.norm():.4f}). {hint[0]} / "
        f"Con clip_norm=0.01 y SGD(lr=1) los pesos se movieron una norma de {clipped.norm():.6f}, se esperaba "
        f"0,010000 en la dirección de la actualización sin recortar (norma {free.norm():.4f}). {hint[1]}"
    )


def test_fit_is_train_step_on_every_batch_of_every_epoch():
    """Does fit give the same losses and weights as train_step on every batch of every epoch, options passed on?"""
    batches = [(SRC, TGT), (SRC[:1], TGT[:1, :3])]
    options = dict(pad_id=0, label_smoothing=0.1, clip_norm=0.5)
    fitted, looped = TinySeq2Seq(), TinySeq2Seq().train()
    history = fit(fitted, batches, torch.optim.SGD(fitted.parameters(), lr=0.5), 2, **options)
    optimizer, want, last, total = torch.optim.SGD(looped.parameters(), lr=0.5), [], [], []
    for _ in range(2):
        losses = [train_step(looped, s, t, optimizer, **options) for s, t in batches]
        want.append(sum(losses) / len(losses))
        last.append(losses[-1])
        total.append(sum(losses))
    if history == pytest.approx(last, rel=1e-6):
        hint = ("Those are the last batch's losses: return the mean of each epoch's batch losses.",
                "Son las pérdidas del último lote: devuelve la media de las pérdidas de los lotes de cada época.")
    elif history == pytest.approx(total, rel=1e-6):
        hint = ("Those are sums: return the mean of each epoch's batch losses.",
                "Son sumas: devuelve la media de las pérdidas de los lotes de cada época.")
    else:
        hint = ("Call train_step on every batch of every epoch, passing pad_id, label_smoothing and clip_norm on.",
                "Llama a train_step en cada lote de cada época, pasándole pad_id, label_smoothing y clip_norm.")
    assert history == pytest.approx(want, rel=1e-6), (
        f"fit(model, 2 batches, epochs=2, label_smoothing=0.1, clip_norm=0.5) returned {_losses(history)}, "
        f"expected {_losses(want)}, the mean of train_step's losses in each epoch. {hint[0]} / "
        f"fit(model, 2 lotes, epochs=2, label_smoothing=0.1, clip_norm=0.5) devolvió {_losses(history)}, se "
        f"esperaba {_losses(want)}, la media de las pérdidas de train_step en cada época. {hint[1]}"
    )
    assert torch.allclose(_weights(fitted), _weights(looped), atol=1e-6), (
        "fit's losses are right but its weights differ from train_step on every batch of every epoch: pass "
        "pad_id, label_smoothing and clip_norm on to train_step. / "
        "Las pérdidas de fit están bien pero sus pesos difieren de train_step en cada lote de cada época: pasa "
        "pad_id, label_smoothing y clip_norm a train_step."
    )


class _Reshuffled:
    """A loader like DataLoader(shuffle=True): every pass over it gives the batches in a new order."""

    def __init__(self, batches):
        self.batches, self.passes = batches, 0

    def __iter__(self):
        self.passes += 1
        order = torch.randperm(len(self.batches), generator=torch.Generator().manual_seed(self.passes))
        return iter([self.batches[i] for i in order.tolist()])

    def __len__(self):
        return len(self.batches)


def test_fit_goes_through_the_loader_once_per_epoch():
    """Does fit iterate the loader anew in every epoch, so that a shuffling loader gives each epoch its own order?"""
    loader = _Reshuffled([(SRC, TGT), (SRC[:1], TGT[:1, :3]), (SRC[1:], TGT[1:])])
    model = TinySeq2Seq()
    fit(model, loader, torch.optim.SGD(model.parameters(), lr=0.5), 3)
    assert loader.passes == 3, (
        f"fit(model, loader, optimizer, epochs=3) went through the loader {loader.passes} time(s), expected 3: iterate "
        "it inside the epoch loop (for src, tgt in loader), not once before it (list(loader)), so that a "
        "DataLoader(shuffle=True) reshuffles every epoch. / "
        f"fit(model, loader, optimizer, epochs=3) recorrió el cargador {loader.passes} vez/veces, se esperaban 3: "
        "recórrelo dentro del bucle de épocas (for src, tgt in loader), no una vez antes (list(loader)), para que "
        "un DataLoader(shuffle=True) baraje en cada época."
    )


TRAIN = [(SRC, TGT), (SRC[:1], TGT[:1, :3])]  # the training batches: sources 3 wide
VALID = [(torch.tensor([[4, 5, 3, 0], [3, 0, 0, 0]]), torch.tensor([[1, 4, 4, 2], [1, 3, 2, 0]]))]  # 4 wide


def _curves(curves):
    if isinstance(curves, dict):
        return "{" + ", ".join(f"{k!r}: {_losses(v)}" for k, v in curves.items()) + "}"
    return repr(curves)


def test_fit_and_validate_returns_two_curves_of_one_float_per_epoch():
    """Does fit_and_validate return {"train": [...], "valid": [...]}, each with one Python float per epoch?"""
    model = TinySeq2Seq()
    curves = fit_and_validate(model, TRAIN, VALID, torch.optim.SGD(model.parameters(), lr=0.5), 3)
    shown = _curves(curves)
    assert isinstance(curves, dict) and sorted(curves) == ["train", "valid"], (
        f"fit_and_validate returned {shown}, expected a dict with two keys, \"train\" and \"valid\", each holding "
        "a list of losses. / "
        f"fit_and_validate devolvió {shown}, se esperaba un dict con dos claves, \"train\" y \"valid\", cada una "
        "con una lista de pérdidas."
    )
    for key in ("train", "valid"):
        curve = curves[key]
        assert isinstance(curve, list) and len(curve) == 3, (
            f"fit_and_validate(..., epochs=3)[{key!r}] is {_losses(curve)}, expected a list of 3 values: one per "
            "epoch (append to the list inside the epoch loop, and create it once, before the loop). / "
            f"fit_and_validate(..., epochs=3)[{key!r}] es {_losses(curve)}, se esperaba una lista de 3 valores: uno "
            "por época (añade a la lista dentro del bucle de épocas y créala una vez, antes del bucle)."
        )
        kinds = sorted({type(loss).__name__ for loss in curve})
        assert kinds == ["float"], (
            f"fit_and_validate's {key!r} curve holds {', '.join(kinds)} values, expected Python floats (train_step "
            "and evaluate already return floats). / "
            f"la curva {key!r} de fit_and_validate contiene valores {', '.join(kinds)}, se esperaban floats de "
            "Python (train_step y evaluate ya devuelven floats)."
        )


def _fit_and_validate_hint(valid, want, before, on_train, train):
    if valid == pytest.approx(train, rel=1e-6):
        return ("Those are the training losses: the validation curve is evaluate(model, valid_loader, pad_id).",
                "Son las pérdidas de entrenamiento: la curva de validación es evaluate(model, valid_loader, pad_id).")
    if valid == pytest.approx(before, rel=1e-6):
        return ("Those are the validation losses before each epoch's training: evaluate after the epoch's "
                "train_steps, not before them.",
                "Son las pérdidas de validación antes del entrenamiento de cada época: llama a evaluate después de "
                "los train_step de la época, no antes.")
    if valid == pytest.approx(on_train, rel=1e-6):
        return ("Those are evaluate's values on the training batches: evaluate valid_loader.",
                "Son los valores de evaluate sobre los lotes de entrenamiento: evalúa valid_loader.")
    if len(set(valid)) == 1:
        return ("Every epoch got the same value: call evaluate inside the epoch loop, once per epoch.",
                "Todas las épocas tienen el mismo valor: llama a evaluate dentro del bucle de épocas, una vez por "
                "época.")
    return ("After each epoch's train_steps, append evaluate(model, valid_loader, pad_id).",
            "Tras los train_step de cada época, añade evaluate(model, valid_loader, pad_id).")


def test_fit_and_validate_trains_like_fit_and_evaluates_after_every_epoch():
    """Is the train curve fit's (train_step on every batch) and valid[i] evaluate(valid batches) after epoch i?"""
    options = dict(pad_id=0, label_smoothing=0.1, clip_norm=0.5)
    model = TinySeq2Seq()
    curves = fit_and_validate(model, TRAIN, VALID, torch.optim.SGD(model.parameters(), lr=0.5), 3, **options)
    twin = TinySeq2Seq().train()
    optimizer = torch.optim.SGD(twin.parameters(), lr=0.5)
    train, valid, before, on_train = [], [], [], []
    for _ in range(3):
        before.append(evaluate(twin, VALID))
        losses = [train_step(twin, s, t, optimizer, **options) for s, t in TRAIN]
        train.append(sum(losses) / len(losses))
        valid.append(evaluate(twin, VALID))
        on_train.append(evaluate(twin, TRAIN))
    got = curves.get("train") if isinstance(curves, dict) else curves
    assert isinstance(got, list) and got == pytest.approx(train, rel=1e-6), (
        f"fit_and_validate(model, 2 batches, 1 validation batch, epochs=3, label_smoothing=0.1, clip_norm=0.5) "
        f"gave the training curve {_losses(got)}, expected {_losses(train)}: each epoch's mean of train_step's "
        "losses, as fit gives it, with pad_id, label_smoothing and clip_norm passed on (if fit's or train_step's "
        "tests fail, fix them first). / "
        f"fit_and_validate(model, 2 lotes, 1 lote de validación, epochs=3, label_smoothing=0.1, clip_norm=0.5) "
        f"dio la curva de entrenamiento {_losses(got)}, se esperaba {_losses(train)}: la media de las pérdidas de "
        "train_step de cada época, como la da fit, pasándole pad_id, label_smoothing y clip_norm (si fallan los "
        "tests de fit o de train_step, arréglalos antes)."
    )
    got = curves.get("valid") if isinstance(curves, dict) else None
    hint = _fit_and_validate_hint(got, valid, before, on_train, train) \
        if isinstance(got, list) and len(got) == 3 and got != pytest.approx(valid, rel=1e-6) else ("", "")
    assert isinstance(got, list) and got == pytest.approx(valid, rel=1e-6), (
        f"fit_and_validate's validation curve is {_losses(got)}, expected {_losses(valid)}: evaluate(model, "
        f"valid_loader, pad_id) right after each epoch's training (if evaluate's tests fail, fix it first). "
        f"{hint[0]} / "
        f"la curva de validación de fit_and_validate es {_losses(got)}, se esperaba {_losses(valid)}: "
        f"evaluate(model, valid_loader, pad_id) justo después del entrenamiento de cada época (si fallan los "
        f"tests de evaluate, arréglalo antes). {hint[1]}"
    )


class _ModeRecorder(TinySeq2Seq):
    """Records, for every forward call, whether it ran a validation batch (sources 4 wide) and in which mode."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def forward(self, src, tgt):
        self.calls.append(("valid" if src.size(1) == 4 else "train", "train" if self.training else "eval"))
        return super().forward(src, tgt)


def test_fit_and_validate_trains_in_training_mode_and_validates_in_eval_mode():
    """Does every epoch train in training mode, then validate in eval mode, leaving the model in training mode?"""
    model = _ModeRecorder().eval()
    fit_and_validate(model, TRAIN, VALID, torch.optim.SGD(model.parameters(), lr=0.5), 3)
    want = [("train", "train"), ("train", "train"), ("valid", "eval")] * 3
    calls = ", ".join(f"{kind} batch in {mode} mode" for kind, mode in model.calls)
    kinds = [kind for kind, _ in model.calls]
    assert kinds == [kind for kind, _ in want], (
        f"With 2 training batches, 1 validation batch and epochs=3 the model ran on: {calls}; expected, every "
        "epoch, the 2 training batches and then the validation batch (train first, validate after the epoch). / "
        f"Con 2 lotes de entrenamiento, 1 de validación y epochs=3 el modelo se ejecutó sobre: {calls}; se "
        "esperaba, en cada época, los 2 lotes de entrenamiento y después el de validación (primero entrenar, "
        "validar tras la época)."
    )
    wrong = next(k for k, (got, exp) in enumerate(zip(model.calls, want)) if got != exp) \
        if model.calls != want else None
    if wrong is not None and model.calls[wrong][0] == "valid":
        hint = ("Validation ran in training mode (dropout on): validate with evaluate, which puts the model in "
                "eval mode.",
                "La validación se ejecutó en modo entrenamiento (dropout activo): valida con evaluate, que pone el "
                "modelo en modo eval.")
    elif wrong is not None and wrong < 2:
        hint = ("The first epoch trained in eval mode: switch the model to training mode (its .train()) before "
                "training (the model came in eval mode).",
                "La primera época entrenó en modo eval: pasa el modelo a modo entrenamiento (su .train()) antes de "
                "entrenar (el modelo llegó en modo eval).")
    else:
        hint = ("After validating, a later epoch trained in eval mode (dropout off): put the model back in training "
                "mode after validation (evaluate does it; if you switched to eval mode yourself, switch back with "
                ".train()).",
                "Tras validar, una época posterior entrenó en modo eval (sin dropout): devuelve el modelo al modo "
                "entrenamiento tras la validación (evaluate lo hace; si lo pasaste tú a modo eval, devuélvelo con "
                ".train()).")
    assert wrong is None, (
        f"The model ran on: {calls}; expected the training batches in training mode and the validation batch in "
        f"eval mode, every epoch. {hint[0]} / "
        f"El modelo se ejecutó sobre: {calls}; se esperaban los lotes de entrenamiento en modo entrenamiento y el "
        f"de validación en modo eval, en cada época. {hint[1]}"
    )
    assert model.training, (
        "After fit_and_validate the model is in eval mode: leave it in training mode, as fit does. / "
        "Tras fit_and_validate el modelo está en modo eval: déjalo en modo entrenamiento, como fit."
    )


def test_fit_and_validate_passes_pad_id_on_to_evaluate():
    """With pad_id=3, is the validation loss evaluate(..., pad_id=3), labels 3 left out and labels 0 counted?"""
    model = TinySeq2Seq()
    curves = fit_and_validate(model, TRAIN, VALID, torch.optim.SGD(model.parameters(), lr=0.5), 1, pad_id=3)
    twin = TinySeq2Seq().train()
    optimizer = torch.optim.SGD(twin.parameters(), lr=0.5)
    for s, t in TRAIN:
        train_step(twin, s, t, optimizer, pad_id=3)
    want, zero = evaluate(twin, VALID, pad_id=3), evaluate(twin, VALID)
    got = curves.get("valid") if isinstance(curves, dict) else None
    hint = (" That is evaluate with pad_id=0: pass fit_and_validate's pad_id on to evaluate.",
            " Es evaluate con pad_id=0: pasa el pad_id de fit_and_validate a evaluate.") \
        if isinstance(got, list) and got == pytest.approx([zero], rel=1e-6) else ("", "")
    assert isinstance(got, list) and got == pytest.approx([want], rel=1e-6), (
        f"fit_and_validate(..., epochs=1, pad_id=3) gave the validation curve {_losses(got)}, expected "
        f"[{want:.4f}], evaluate(model, valid_loader, pad_id=3) after the epoch (if the other fit_and_validate "
        f"tests fail, fix them first).{hint[0]} / "
        f"fit_and_validate(..., epochs=1, pad_id=3) dio la curva de validación {_losses(got)}, se esperaba "
        f"[{want:.4f}], evaluate(model, valid_loader, pad_id=3) tras la época (si fallan los otros tests de "
        f"fit_and_validate, arréglalos antes).{hint[1]}"
    )
