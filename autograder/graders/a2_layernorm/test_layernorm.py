"""Hidden graders for a2_layernorm/layernorm.py; the oracle is torch's own layer_norm."""

import pytest
import torch
import torch.nn.functional as F

from autograder import checks

LAYERNORM = "layernorm.LayerNorm"


def _random_case(rng, dims):
    """Random normalized_shape with `dims` dimensions, input, weight, bias and grad."""
    shape = tuple(checks.randint(rng, 2, 7) for _ in range(dims))
    lead = tuple(checks.randint(rng, 1, 4) for _ in range(checks.randint(rng, 1, 2)))
    x = torch.randn(*lead, *shape, generator=rng, dtype=torch.float64) * 3 + 1
    weight = torch.randn(shape, generator=rng, dtype=torch.float64)
    bias = torch.randn(shape, generator=rng, dtype=torch.float64)
    return shape, x, weight, bias


def _check_forward(student, normalized_shape, x, weight, bias, eps=1e-5, atol=1e-5):
    kwargs = {"init_kwargs": {"eps": eps}} if eps != 1e-5 else {}
    report = student.module(
        LAYERNORM, normalized_shape, state={"weight": weight, "bias": bias}, inputs=[x.float()], **kwargs
    )
    want = F.layer_norm(x.float(), weight.shape, weight.float(), bias.float(), eps)
    checks.close(report.get("output"), want, f"LayerNorm({normalized_shape}, eps={eps:g}) output for input {tuple(x.shape)}", atol=atol, rtol=1e-4)


@pytest.mark.points(2)
def test_course_vectors(student, course_data):
    """Does LayerNorm(3) give the course's outputs for v1, v2, v3? / ¿Da LayerNorm(3) las salidas del curso para v1, v2, v3?"""
    data = course_data("a2_layernorm/course_vectors.json")
    report = student.module(LAYERNORM, 3, init_kwargs={"eps": data["eps"]}, inputs=[torch.tensor(data["inputs"])])
    checks.close(report.get("output"), torch.tensor(data["outputs"]), "LayerNorm(3)(v1, v2, v3)",
                 atol=0.5 * 10 ** -data["decimals"], rtol=0)


@pytest.mark.points(1)
def test_parameters(student, rng):
    """Are weight and bias parameters of shape normalized_shape, at ones and zeros? / ¿Son weight y bias parámetros de forma normalized_shape, a unos y ceros?"""
    for normalized_shape in (checks.randint(rng, 2, 9), (checks.randint(rng, 2, 5), checks.randint(rng, 2, 5))):
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        params = student.module(LAYERNORM, normalized_shape)["parameters"]
        checks.expect(
            set(params) == {"weight", "bias"},
            f"LayerNorm({normalized_shape}) must have exactly the parameters weight and bias, found {sorted(params)}",
            f"LayerNorm({normalized_shape}) debe tener exactamente los parámetros weight y bias, hay {sorted(params)}",
        )
        for name, fill in (("weight", torch.ones), ("bias", torch.zeros)):
            info = params[name] if isinstance(params[name], dict) else {}
            checks.expect(
                info.get("requires_grad") is True,
                f"{name} must be a trainable nn.Parameter",
                f"{name} debe ser un nn.Parameter entrenable",
            )
            value = checks.tensor(info.get("value"), f"LayerNorm({normalized_shape}).{name}", shape=shape)
            checks.equal(value.float(), fill(shape), f"initial LayerNorm({normalized_shape}).{name}")


@pytest.mark.points(2)
def test_matches_torch_last_dim(student, rng):
    """Does the output match torch's layer_norm for an int normalized_shape and random weight/bias? / ¿Coincide la salida con layer_norm de torch (normalized_shape entero, weight/bias aleatorios)?"""
    shape, x, weight, bias = _random_case(rng, 1)
    _check_forward(student, shape[0], x, weight, bias)


@pytest.mark.points(1)
def test_matches_torch_tuple_shape(student, rng):
    """Does it normalise over several trailing dims when normalized_shape is a tuple? / ¿Normaliza sobre varias dimensiones finales si normalized_shape es una tupla?"""
    shape, x, weight, bias = _random_case(rng, 2)
    _check_forward(student, shape, x, weight, bias)


@pytest.mark.points(1)
def test_biased_variance_and_eps(student, rng):
    """Are the variance biased (÷N) and eps added inside the square root? / ¿Es la varianza sesgada (÷N) y se suma eps dentro de la raíz?"""
    x = torch.randn(3, 2, generator=rng, dtype=torch.float64) * 0.5
    ones, zeros = torch.ones(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    _check_forward(student, 2, x, ones, zeros)
    eps = 0.1 + torch.rand(1, generator=rng).item()
    _check_forward(student, 2, x, ones, zeros, eps=eps)


@pytest.mark.points(2)
def test_gradients(student, rng):
    """Do gradients w.r.t. input, weight and bias match torch's layer_norm? / ¿Coinciden los gradientes respecto a la entrada, weight y bias con layer_norm de torch?"""
    shape, x, weight, bias = _random_case(rng, checks.randint(rng, 1, 2))
    grad_output = torch.randn(x.shape, generator=rng, dtype=torch.float64)
    report = student.module(LAYERNORM, shape, state={"weight": weight, "bias": bias}, inputs=[x], grad_output=grad_output,
                            dtype="float64")
    xr, wr, br = (t.clone().requires_grad_(True) for t in (x, weight, bias))
    F.layer_norm(xr, shape, wr, br, 1e-5).backward(grad_output)
    grads = report.get("input_grads")
    grads = grads if isinstance(grads, list) and grads else [None]
    checks.close(grads[0], xr.grad, "gradient w.r.t. the input", atol=1e-7)
    param_grads = report.get("param_grads") if isinstance(report.get("param_grads"), dict) else {}
    checks.close(param_grads.get("weight"), wr.grad, "gradient w.r.t. weight", atol=1e-7)
    checks.close(param_grads.get("bias"), br.grad, "gradient w.r.t. bias", atol=1e-7)
