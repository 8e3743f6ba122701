"""Does the a6 training-step localisation (harness.Watch and graders/a6_translator/stages.py)
name the first stage where a mistaken training step departs from the reference's?"""

import torch

from autograder import reference
from autograder.graders.a6_translator import stages, variants
from autograder.graders.a6_translator.helpers import model_and_spec, source_batch, target_batch


def _case(seed=0):
    rng = torch.Generator().manual_seed(seed)
    model, _ = model_and_spec(rng, 9, 10)
    batches = [(source_batch(rng, 3, 5, 9), target_batch(rng, 3, 7, 10)) for _ in range(2)]
    return model, batches


def _run(model, batches, step, clip=0.05):
    """Records and losses of ``step`` run over ``batches`` on a copy of ``model``."""
    m = variants.deep(model).eval()
    opt = torch.optim.SGD(m.parameters(), lr=0.5)
    watch = stages.watch(m, opt)
    seen, losses = [], []
    for src, tgt in batches:
        losses.append(step(m, src, tgt, opt, clip))
        seen.append(watch.take())
    watch.stop()
    assert not m._forward_pre_hooks and not opt._optimizer_step_pre_hooks  # stop() removes every hook
    return seen, losses


def _reference(m, src, tgt, opt, clip):
    return reference.load("training").train_step(m, src, tgt, opt, 0, 0.1, clip)


def _mistake(**switches):
    return lambda m, src, tgt, opt, clip: variants.step(m, src, tgt, opt, 0, 0.1, clip, **switches)


def _found(switches):
    """The first stage where the reference step with ``switches`` (variants.step) differs."""
    model, batches = _case()
    want, want_losses = _run(model, batches, _reference)
    got, got_losses = _run(model, batches, _mistake(**switches))
    found = stages.training_difference(got, want, got_losses, want_losses, atol=1e-9, rtol=1e-7)
    return found and found[0]


def test_watch_records_inputs_mode_and_gradients_at_the_step():
    """Does Watch record each forward call's arguments and mode, and every parameter's gradient at optimizer.step()?"""
    model, batches = _case()
    seen, _ = _run(model, batches, _reference)
    (name, args, training), = seen[0]["calls"]
    assert name == "" and training is False and torch.equal(args["tgt"], batches[0][1][:, :-1])
    assert set(seen[0]["steps"][0]) == {n for n, _ in model.named_parameters()}


def test_the_right_step_has_no_difference():
    """Does the reference compared with itself give no stage?"""
    assert _found({}) is None


def test_a_swapped_decoder_input_is_found_at_the_model_input():
    """Is tgt[:, 1:] fed to the decoder named as the model's tgt input, and how it differs?"""
    def swapped(m, src, tgt, opt, clip):
        loss = variants.loss(m(src, tgt[:, 1:]), tgt[:, :-1], 0, 0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    model, batches = _case()
    want, want_losses = _run(model, batches, _reference)
    got, got_losses = _run(model, batches, swapped)
    found = stages.training_difference(got, want, got_losses, want_losses, atol=1e-9, rtol=1e-7)[0]
    assert "in training step 1, the model's input tgt differs from the reference's: row 0:" in found


def test_a_loss_without_smoothing_is_found_at_the_loss():
    """Is a loss computed another way found at the loss, the inputs being right?"""
    assert "the model gets the reference's inputs but the loss returned differs" in _found({"smoothing": False})


def test_gradient_mistakes_are_found_at_the_step():
    """Are a missing clip (a factor), zero_grad after backward (no gradient) and a missing
    zero_grad (step 2, after an agreeing step 1) found at optimizer.step()?"""
    assert "times the reference's" in _found({"clips": False})
    assert "no gradient reaches optimizer.step()" in _found({"zero": "after"})
    missing = _found({"zero": "never"})
    assert "in training step 2" in missing and "the steps before it agreed" in missing
