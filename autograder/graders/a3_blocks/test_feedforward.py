"""Hidden graders for a3_blocks/feedforward.py."""

import pytest
import torch

from autograder import checks

FF = "feedforward.FeedForward"


def _case(rng):
    d_model, d_ff = checks.randint(rng, 2, 12), checks.randint(rng, 4, 40)
    state = {
        "linear1.weight": torch.randn(d_ff, d_model, generator=rng, dtype=torch.float64),
        "linear1.bias": torch.randn(d_ff, generator=rng, dtype=torch.float64),
        "linear2.weight": torch.randn(d_model, d_ff, generator=rng, dtype=torch.float64),
        "linear2.bias": torch.randn(d_model, generator=rng, dtype=torch.float64),
    }
    x = torch.randn(checks.randint(rng, 1, 3), checks.randint(rng, 1, 6), d_model, generator=rng, dtype=torch.float64)
    return d_model, d_ff, state, x


def reference(state, x):
    hidden = torch.relu(x @ state["linear1.weight"].T + state["linear1.bias"])
    return hidden @ state["linear2.weight"].T + state["linear2.bias"]


@pytest.mark.points(1)
def test_parameter_count(student):
    """Does FeedForward(256, 1024) have 525,568 parameters? / ¿Tiene FeedForward(256, 1024) 525.568 parámetros?"""
    checks.parameter_count(student.module(FF, 256, 1024, init_kwargs={"dropout": 0.1}), 525_568, "FeedForward(256, 1024)")


@pytest.mark.points(2)
def test_output(student, rng):
    """Is the output linear2(ReLU(linear1(x))) for random weights? / ¿Es la salida linear2(ReLU(linear1(x))) con pesos aleatorios?"""
    d_model, d_ff, state, x = _case(rng)
    report = student.module(FF, d_model, d_ff, init_kwargs={"dropout": 0.5}, state=state, dtype="float64", inputs=[x])
    checks.close(report.get("output"), reference(state, x), f"FeedForward({d_model}, {d_ff}) output in eval mode", atol=1e-9)


@pytest.mark.points(1)
def test_gradients(student, rng):
    """Do the gradients w.r.t. the input and both layers match? / ¿Coinciden los gradientes respecto a la entrada y a las dos capas?"""
    d_model, d_ff, state, x = _case(rng)
    grad_output = torch.randn(x.shape, generator=rng, dtype=torch.float64)
    report = student.module(FF, d_model, d_ff, init_kwargs={"dropout": 0.0}, state=state, dtype="float64",
                            inputs=[x], grad_output=grad_output)
    ref = {k: v.clone().requires_grad_(True) for k, v in state.items()}
    xr = x.clone().requires_grad_(True)
    reference(ref, xr).backward(grad_output)
    grads = report.get("input_grads") if isinstance(report.get("input_grads"), list) else [None]
    checks.close(grads[0] if grads else None, xr.grad, "gradient w.r.t. the input", atol=1e-9)
    param_grads = report.get("param_grads") if isinstance(report.get("param_grads"), dict) else {}
    for name, tensor in ref.items():
        checks.close(param_grads.get(name), tensor.grad, f"gradient w.r.t. {name}", atol=1e-9)


@pytest.mark.points(1)
def test_dropout_is_active_in_training(student, rng):
    """In training mode, does dropout zero some hidden units (and none in eval mode)? / ¿Anula el dropout unidades ocultas en entrenamiento (y ninguna en evaluación)?"""
    d_model, d_ff = 8, 64
    state = {
        "linear1.weight": torch.eye(d_ff, d_model, dtype=torch.float64),
        "linear1.bias": torch.ones(d_ff, dtype=torch.float64),
        "linear2.weight": torch.ones(d_model, d_ff, dtype=torch.float64),
        "linear2.bias": torch.zeros(d_model, dtype=torch.float64),
    }
    x = torch.zeros(1, 50, d_model, dtype=torch.float64)  # hidden = ReLU(1) = 1 everywhere
    train = student.module(FF, d_model, d_ff, init_kwargs={"dropout": 0.5}, state=state, dtype="float64",
                           inputs=[x], train=True, seed=checks.randint(rng, 0, 10**6))
    out = checks.tensor(train.get("output"), "output in training mode", shape=(1, 50, d_model))
    # Without dropout every output is 64. Dropout on the hidden units (p = 0.5, kept ones
    # scaled by 2) makes each output 2 x (units kept at that position): different across
    # positions, but equal across the d_model outputs of one position.
    checks.expect(
        bool((out != 64).any()) and bool((out == out[..., :1]).all()) and bool((out % 2 == 0).all()),
        "with dropout=0.5 in training mode, dropout must act on the hidden units after the ReLU (nn.Dropout)",
        "con dropout=0.5 en modo entrenamiento, el dropout debe actuar sobre las unidades ocultas tras la ReLU (nn.Dropout)",
    )
