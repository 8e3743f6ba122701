"""Public tests for training.py, on a tiny model. Run them with ``pytest assignments/a6_translator``."""

import math

import pytest
import torch
from torch import nn

from training import evaluate, fit, sequence_loss, train_step

V = 6


class TinySeq2Seq(nn.Module):
    """logits[b, t] = a row per decoder input token + a row per first source token."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.tgt_rows, self.src_rows = nn.Embedding(V, V), nn.Embedding(V, V)

    def forward(self, src, tgt):
        return self.tgt_rows(tgt) + self.src_rows(src[:, :1])  # (B, T, V)


SRC = torch.tensor([[3, 4, 0], [5, 3, 4]])
TGT = torch.tensor([[1, 3, 2, 0, 0], [1, 5, 4, 3, 2]])  # <sos> ... <eos> <pad>


def test_sequence_loss_ignores_pad():
    """Is the loss the mean of -log p(label) over the labels that are not pad?"""
    logits = torch.arange(2 * 3 * V, dtype=torch.float32).reshape(2, 3, V).sin()
    labels = torch.tensor([[2, 0, 0], [1, 4, 5]])
    logp = logits.log_softmax(-1)
    want = -(logp[0, 0, 2] + logp[1, 0, 1] + logp[1, 1, 4] + logp[1, 2, 5]) / 4
    assert sequence_loss(logits, labels, pad_id=0).item() == pytest.approx(want.item(), rel=1e-6)


def test_uniform_logits_cost_log_v_even_with_smoothing():
    """Do all-equal logits cost log V per token, with or without label smoothing?"""
    labels = torch.tensor([[3, 4, 0]])
    for eps in (0.0, 0.1):
        assert sequence_loss(torch.zeros(1, 3, V), labels, label_smoothing=eps).item() == pytest.approx(math.log(V))


def test_train_step_shifts_the_target_and_updates():
    """Does train_step return the teacher-forced loss before the update, and change the weights?"""
    model = TinySeq2Seq()
    before = sequence_loss(model(SRC, TGT[:, :-1]), TGT[:, 1:]).item()
    weights = model.tgt_rows.weight.detach().clone()
    loss = train_step(model, SRC, TGT, torch.optim.SGD(model.parameters(), lr=0.5))
    assert isinstance(loss, float) and loss == pytest.approx(before, rel=1e-6)
    assert not torch.equal(model.tgt_rows.weight, weights)


def test_evaluate_weights_tokens_and_restores_the_mode():
    """Is evaluate a per-token mean over all batches, leaving the model's mode as it was?"""
    model = TinySeq2Seq().train()
    batches = [(SRC[:1], TGT[:1, :3]), (SRC, TGT)]  # 2 tokens, then 2 + 4
    per_batch = [sequence_loss(model(s, t[:, :-1]), t[:, 1:]).item() for s, t in batches]
    want = (2 * per_batch[0] + 6 * per_batch[1]) / 8
    assert evaluate(model, batches) == pytest.approx(want, rel=1e-6)
    assert model.training
    assert evaluate(model.eval(), batches) == pytest.approx(want, rel=1e-6) and not model.training


def test_fit_lowers_the_loss():
    """Does fit return one mean loss per epoch, going down, with the model in training mode?"""
    model = TinySeq2Seq().eval()
    history = fit(model, [(SRC, TGT)], torch.optim.SGD(model.parameters(), lr=0.5), epochs=5)
    assert len(history) == 5 and history[-1] < history[0] and model.training
