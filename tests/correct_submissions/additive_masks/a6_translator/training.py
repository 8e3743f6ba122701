"""Training an encoder-decoder with teacher forcing (Vaswani et al., 2017, section 5).

A target batch ``tgt`` (B, T) holds ``<sos> y1 .. yn <eos> <pad> ..``. Teacher forcing
feeds the decoder the true previous tokens and asks it for the next one at every
position at once:

    decoder input  tgt[:, :-1]   <sos> y1  y2  .. yn
    labels         tgt[:, 1:]    y1    y2  y3  .. <eos>

The causal mask keeps position t from peeking at labels t and later. The loss is the
cross-entropy of the labels averaged over real tokens: ``<pad>`` labels are ignored, so
short sentences and long ones count per token, however they were padded. Label
smoothing (section 5.4, eps = 0.1 in the paper) moves eps of each label's probability
mass onto the whole vocabulary, which hurts perplexity but helps BLEU.

Legend: B = batch size, S = source length, T = target length, V = target vocabulary size.
"""

import torch
import torch.nn.functional as F


def _token_losses(logits, labels, label_smoothing):
    """Per-position smoothed cross-entropy, (B, T): (1 - eps) * nll + eps * mean(-log p)."""
    logp = logits.log_softmax(dim=-1)
    nll = -logp.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    if label_smoothing == 0:
        return nll
    uniform = -logp.mean(dim=-1)
    return (1 - label_smoothing) * nll + label_smoothing * uniform


def sequence_loss(logits, labels, pad_id=0, label_smoothing=0.0):
    """Mean cross-entropy per non-pad label.

    Args:
        logits: ``(B, T, V)`` unnormalised scores.
        labels: ``(B, T)`` int64 ids; positions equal to ``pad_id`` do not count.
        pad_id: the label to ignore.
        label_smoothing: eps in ``[0, 1)``, as in ``F.cross_entropy``.

    Returns:
        A scalar tensor (with a gradient w.r.t. ``logits``).
    """
    if logits.dim() != 3 or logits.shape[:2] != labels.shape:
        raise ValueError(f"logits must be (B, T, V) and labels (B, T), got {tuple(logits.shape)} and {tuple(labels.shape)}")
    # Pista: (~2 líneas) aplana a (B*T, V) y (B*T,) y usa F.cross_entropy con
    # ignore_index y label_smoothing.
    # Hint: (~2 lines) flatten to (B*T, V) and (B*T,) and use F.cross_entropy with
    # ignore_index and label_smoothing.
    real = (labels != pad_id).to(logits.dtype)
    losses = _token_losses(logits, labels, label_smoothing) * real
    return losses.sum() / real.sum()


def train_step(model, src, tgt, optimizer, pad_id=0, label_smoothing=0.0, clip_norm=None):
    """One optimisation step on one batch, with teacher forcing.

    Args:
        model: ``model(src, tgt_in) -> logits (B, T - 1, V)``, e.g. the course's Transformer.
        src: ``(B, S)`` source ids; tgt: ``(B, T)`` target ids with ``<sos>`` and ``<eos>``.
        optimizer: a ``torch.optim`` optimizer over the model's parameters.
        pad_id, label_smoothing: as in :func:`sequence_loss`.
        clip_norm: if given, rescale the gradients so that their global norm is at most
            this (``torch.nn.utils.clip_grad_norm_``) before the update.

    Returns:
        The batch loss as a Python float (computed before the update).
    """
    # Pista: (~9 líneas) entrada del decodificador = tgt[:, :-1], etiquetas = tgt[:, 1:];
    # logits = model(src, entrada); sequence_loss; optimizer.zero_grad(); backward;
    # recorte opcional; optimizer.step(); devuelve loss.item().
    # Hint: (~9 lines) decoder input = tgt[:, :-1], labels = tgt[:, 1:]; logits =
    # model(src, input); sequence_loss; optimizer.zero_grad(); backward; optional
    # clipping; optimizer.step(); return loss.item().
    optimizer.zero_grad()
    loss = sequence_loss(model(src, tgt[:, :-1]), tgt[:, 1:], pad_id=pad_id, label_smoothing=label_smoothing)
    loss.backward()
    if clip_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=clip_norm)
    optimizer.step()
    return float(loss.detach())


def evaluate(model, batches, pad_id=0):
    """Mean cross-entropy per non-pad target token over a whole data set.

    Every token weighs the same: a batch of 300 tokens counts 10 times as much as one of
    30 (not a mean of batch means). No label smoothing, no gradients. The model runs in
    eval mode (no dropout) and is left in the mode it had before.

    Args:
        model: as in :func:`train_step`.
        batches: iterable of ``(src, tgt)`` batches, e.g. a ``DataLoader``.
        pad_id: the label to ignore.

    Returns:
        A Python float; ``exp`` of it is the perplexity.
    """
    # Pista: (~14 líneas) guarda model.training, model.eval(); con torch.no_grad() suma
    # F.cross_entropy(..., reduction="sum") y cuenta las etiquetas que no son pad_id;
    # restaura el modo con model.train(antes) (en un finally); devuelve suma / cuenta.
    # Hint: (~14 lines) remember model.training, model.eval(); under torch.no_grad() add
    # up F.cross_entropy(..., reduction="sum") and count the labels that are not pad_id;
    # restore the mode with model.train(before) (in a finally); return sum / count.
    mode = model.training
    model.train(False)
    sum_nll = torch.zeros((), dtype=torch.float64)
    n_tokens = 0
    try:
        with torch.inference_mode():
            for src, tgt in batches:
                labels = tgt[:, 1:]
                real = labels != pad_id
                nll = _token_losses(model(src, tgt[:, :-1]), labels, 0.0)
                sum_nll += nll[real].double().sum().cpu()
                n_tokens += int(real.sum())
    finally:
        model.train(mode)
    if not n_tokens:
        raise ValueError("every label is padding: there is nothing to evaluate")
    return (sum_nll / n_tokens).item()


def fit(model, loader, optimizer, epochs, pad_id=0, label_smoothing=0.0, clip_norm=None):
    """Train for ``epochs`` passes over ``loader``.

    Args:
        model, optimizer, pad_id, label_smoothing, clip_norm: as in :func:`train_step`.
        loader: iterable of ``(src, tgt)`` batches, iterated once per epoch.
        epochs: number of passes.

    Returns:
        A list of ``epochs`` floats: each epoch's mean of its batch losses.
    """
    # Pista: (~6 líneas) model.train(); por época, train_step en cada lote y guarda la
    # media de sus pérdidas.
    # Hint: (~6 lines) model.train(); each epoch, train_step on every batch and keep the
    # mean of their losses.
    model.train()
    history = []
    for _ in range(epochs):
        total, n = 0.0, 0
        for src, tgt in loader:
            total += train_step(model, src, tgt, optimizer, pad_id=pad_id, label_smoothing=label_smoothing,
                                clip_norm=clip_norm)
            n += 1
        history.append(total / n if n else float("nan"))
    return history


def fit_and_validate(model, train_loader, valid_loader, optimizer, epochs, pad_id=0, label_smoothing=0.0,
                     clip_norm=None):
    """Train for ``epochs`` passes over ``train_loader``, validating after each one.

    The two curves show when training stops helping: the training loss keeps going down
    while the validation loss stops improving (it flattens, and may rise) once the model
    starts to memorise its training pairs (overfitting). The epoch with the lowest
    validation loss is the one to keep (early stopping).

    Args:
        model, optimizer, pad_id, label_smoothing, clip_norm: as in :func:`train_step`.
        train_loader: iterable of ``(src, tgt)`` batches, iterated once per epoch.
        valid_loader: iterable of ``(src, tgt)`` batches, scored after every epoch.
        epochs: number of passes.

    Returns:
        ``{"train": [...], "valid": [...]}``, two lists of ``epochs`` floats: each epoch's
        mean of its batch losses (as :func:`fit` gives it) and :func:`evaluate` of
        ``valid_loader`` (with ``pad_id``) right after that epoch. The model is left in
        training mode.
    """
    # Pista: (~7 líneas) reutiliza tus train_step y evaluate: model.train(); por época,
    # train_step en cada lote de train_loader (pasándole pad_id, label_smoothing y
    # clip_norm) y guarda la media, como en fit; después de la época, guarda
    # evaluate(model, valid_loader, pad_id). evaluate pone el modelo en modo eval y lo
    # devuelve al modo que tenía, así que la época siguiente entrena de nuevo en modo
    # entrenamiento (si validas por tu cuenta, vuelve a llamar a model.train()). La pérdida
    # de validación de evaluate pesa cada token igual y no lleva suavizado, a diferencia de
    # la del cuaderno de clase 000.
    # Hint: (~7 lines) reuse your train_step and evaluate: model.train(); each epoch,
    # train_step on every batch of train_loader (passing pad_id, label_smoothing and
    # clip_norm on) and keep the mean, as in fit; after the epoch, keep
    # evaluate(model, valid_loader, pad_id). evaluate puts the model in eval mode and back
    # in the mode it had, so the next epoch trains in training mode again (if you validate
    # your own way, call model.train() again). evaluate's validation loss weighs every token
    # the same and has no smoothing, unlike lecture notebook 000's.
    model.train()
    train_curve, valid_curve = [], []
    for _ in range(epochs):
        total, n = 0.0, 0
        for src, tgt in train_loader:
            total += train_step(model, src, tgt, optimizer, pad_id=pad_id, label_smoothing=label_smoothing,
                                clip_norm=clip_norm)
            n += 1
        train_curve.append(total / n if n else float("nan"))
        valid_curve.append(evaluate(model, valid_loader, pad_id=pad_id))
    return {"train": train_curve, "valid": valid_curve}
