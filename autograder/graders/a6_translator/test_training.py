"""Hidden graders for a6_translator/training.py.

Losses are compared with ``F.cross_entropy`` in float64. Training steps run a reference
Transformer with random weights (float64, dropout 0 unless a test needs dropout), built in
the student's process from a model spec, with a ``torch.optim.SGD`` made there too; the
expected loss and parameters come from the same step taken here with the reference code.
"""

import copy

import pytest
import torch
import torch.nn.functional as F

from autograder import checks, reference
from autograder.graders.a6_translator.helpers import model_and_spec, source_batch, target_batch


def _labels(rng, B, T, V, pad_id):
    labels = torch.randint(0, V, (B, T), generator=rng)
    labels[labels == pad_id] = (pad_id + 1) % V  # pad only where the padding mask says
    labels[~checks.right_padding(rng, B, T)] = pad_id
    return labels


@pytest.mark.points(2)
def test_sequence_loss(student, rng):
    """Is sequence_loss the cross-entropy averaged over non-pad labels, with label smoothing when asked? / ¿Es sequence_loss la entropía cruzada promediada sobre las etiquetas que no son pad, con suavizado si se pide?"""
    B, T, V = checks.randint(rng, 2, 5), checks.randint(rng, 3, 8), checks.randint(rng, 5, 12)
    cases = [(0, 0.0), (checks.randint(rng, 1, V - 1), round(0.05 + 0.25 * torch.rand(1, generator=rng).item(), 3))]
    for pad_id, eps in cases:
        logits = torch.randn(B, T, V, generator=rng, dtype=torch.float64) * 2
        labels = _labels(rng, B, T, V, pad_id)
        want = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id, label_smoothing=eps)
        got = student.call("training.sequence_loss", logits, labels, pad_id=pad_id, label_smoothing=eps)
        checks.close(got, want, f"sequence_loss(logits {B}x{T}x{V}, labels, pad_id={pad_id}, label_smoothing={eps})",
                     atol=1e-10, rtol=1e-8)


@pytest.mark.points(2)
def test_train_step(student, rng):
    """Does train_step shift the target (teacher forcing), smooth, clip and update like the reference, returning the loss before the step? / ¿Desplaza train_step el destino (teacher forcing), suaviza, recorta y actualiza como la referencia, devolviendo la pérdida previa?"""
    training = reference.load("training")
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt)
    B = checks.randint(rng, 2, 5)
    src, tgt = source_batch(rng, B, checks.randint(rng, 3, 7), Vs), target_batch(rng, B, checks.randint(rng, 4, 9), Vt)
    eps = round(0.05 + 0.15 * torch.rand(1, generator=rng).item(), 3)
    # A clipping threshold below the gradient's norm, so that clipping changes the step.
    probe = copy.deepcopy(model)
    training.sequence_loss(probe(src, tgt[:, :-1]), tgt[:, 1:], 0, eps).backward()
    norm = torch.nn.utils.clip_grad_norm_(probe.parameters(), float("inf")).item()
    clip = round(0.5 * norm, 6)
    lr = 0.5
    out = student.script([
        ["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": lr}],
        ["loss", "training.train_step", [{"$": "model"}, src, tgt, {"$": "opt"}],
         {"pad_id": 0, "label_smoothing": eps, "clip_norm": clip}],
    ], model_spec=spec, returns=["loss"], state=True)
    want_loss = training.train_step(model, src, tgt, torch.optim.SGD(model.parameters(), lr=lr), 0, eps, clip)
    what = f"train_step(model, src {tuple(src.shape)}, tgt {tuple(tgt.shape)}, SGD(lr={lr}), label_smoothing={eps}, clip_norm={clip})"
    checks.close_number(out["loss"], want_loss, f"{what}: returned loss", atol=1e-9, rtol=1e-7)
    for name, p in model.named_parameters():
        checks.close(out["state"].get(name), p.detach(), f"{what}: parameter {name} after the step", atol=1e-9, rtol=1e-7)


@pytest.mark.points(2)
def test_evaluate(student, rng):
    """Is evaluate the per-token mean over all batches, without dropout, leaving the model's mode as it was? / ¿Es evaluate la media por token sobre todos los lotes, sin dropout, dejando el modelo en el modo en que estaba?"""
    training = reference.load("training")
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt, dropout=0.3)
    # Very different token counts per batch, so a mean of batch means is visibly off.
    batches = [(source_batch(rng, 1, 3, Vs), target_batch(rng, 1, 3, Vt)),
               (source_batch(rng, 7, 8, Vs), target_batch(rng, 7, 12, Vt)),
               (source_batch(rng, 3, 5, Vs), target_batch(rng, 3, 5, Vt))]
    want = training.evaluate(model, batches)
    out = student.script([
        ["_", "$model.train", [], {}],
        ["from_train", "training.evaluate", [{"$": "model"}, batches], {"pad_id": 0}],
        ["mode_train", "getattr", [{"$": "model"}, "training"], {}],
        ["_", "$model.eval", [], {}],
        ["from_eval", "training.evaluate", [{"$": "model"}, batches], {"pad_id": 0}],
        ["mode_eval", "getattr", [{"$": "model"}, "training"], {}],
    ], model_spec=spec, returns=["from_train", "mode_train", "from_eval", "mode_eval"])
    checks.close_number(out["from_eval"], want, "evaluate(model in eval mode, 3 batches)", atol=1e-9, rtol=1e-7)
    checks.close_number(out["from_train"], want, "evaluate(model in training mode, 3 batches) (dropout must be off)",
                        atol=1e-9, rtol=1e-7)
    checks.expect(out["mode_train"] is True, "evaluate must leave a model that was training in training mode",
                  "evaluate debe dejar en modo de entrenamiento un modelo que estaba entrenando")
    checks.expect(out["mode_eval"] is False, "evaluate must leave a model that was in eval mode in eval mode",
                  "evaluate debe dejar en modo de evaluación un modelo que estaba en ese modo")


@pytest.mark.points(1)
def test_fit(student, rng):
    """Does fit run train_step over every batch of every epoch and return each epoch's mean loss? / ¿Aplica fit train_step a cada lote de cada época y devuelve la pérdida media de cada época?"""
    training = reference.load("training")
    Vs, Vt = checks.randint(rng, 8, 14), checks.randint(rng, 8, 14)
    model, spec = model_and_spec(rng, Vs, Vt)
    batches = [(source_batch(rng, B, S, Vs), target_batch(rng, B, T, Vt))
               for B, S, T in ((3, 5, 6), (5, 4, 8), (2, 6, 4))]
    epochs, lr = checks.randint(rng, 2, 3), 0.3
    eps = round(0.2 * torch.rand(1, generator=rng).item(), 3)
    out = student.script([
        ["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": lr, "momentum": 0.9}],
        ["history", "training.fit", [{"$": "model"}, batches, {"$": "opt"}, epochs], {"label_smoothing": eps}],
        ["mode", "getattr", [{"$": "model"}, "training"], {}],
    ], model_spec=spec, returns=["history", "mode"], state=True)
    model.eval()
    want = training.fit(model, batches, torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9), epochs,
                        label_smoothing=eps)
    what = f"fit(model, 3 batches, SGD, epochs={epochs}, label_smoothing={eps})"
    history = out["history"]
    checks.expect(isinstance(history, list) and len(history) == epochs,
                  f"{what} must return a list of {epochs} losses, got {history!r:.80}",
                  f"{what} debe devolver una lista de {epochs} pérdidas")
    for e, (got, loss) in enumerate(zip(history, want)):
        checks.close_number(got, loss, f"{what}: mean loss of epoch {e + 1}", atol=1e-9, rtol=1e-7)
    for name, p in model.named_parameters():
        checks.close(out["state"].get(name), p.detach(), f"{what}: parameter {name} after training", atol=1e-8, rtol=1e-6)
    checks.expect(out["mode"] is True, "fit must put the model in training mode (model.train())",
                  "fit debe poner el modelo en modo de entrenamiento (model.train())")
