"""Hidden graders for a3_blocks/feedforward.py."""

import pytest
import torch

from autograder.grading import checks, shapes

FF = "feedforward.FeedForward"


def _case(rng):
    d_model, d_ff = checks.randint(rng, 2, 12), checks.randint(rng, 4, 40)
    state = {
        "linear1.weight": checks.randn(rng, d_ff, d_model),
        "linear1.bias": checks.randn(rng, d_ff),
        "linear2.weight": checks.randn(rng, d_model, d_ff),
        "linear2.bias": checks.randn(rng, d_model),
    }
    x = checks.randn(rng, checks.randint(rng, 1, 3), checks.randint(rng, 1, 6), d_model)
    # A capped activation (ReLU6) differs from ReLU only above its cap: hidden unit 0 reaches 10 or more somewhere.
    top = float((x @ state["linear1.weight"][0] + state["linear1.bias"][0]).max())
    state["linear1.bias"][0] += max(0.0, 10.0 - top)
    return d_model, d_ff, state, x


def reference(state, x, kind=None):
    """linear2(ReLU(linear1(x))), or what the classic mistake ``kind`` computes instead."""
    hidden = (torch.relu(x) if kind == "relu_on_input" else x) @ state["linear1.weight"].T + state["linear1.bias"]
    hidden = hidden if kind == "relu_on_input" else ACTIVATIONS.get(kind, torch.relu)(hidden)
    if kind == "no_linear2":
        return hidden
    out = hidden @ state["linear2.weight"].T + state["linear2.bias"]
    return torch.relu(out) if kind in ("relu_on_output", "relu_moved_to_output") else out


ACTIVATIONS = {
    "gelu": torch.nn.functional.gelu,
    "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
    "no_activation": lambda t: t,
    "relu_moved_to_output": lambda t: t,
    # Other activations copied from other models' code (LLaMA's SiLU, RNNs' tanh and sigmoid, GANs' leaky ReLU,
    # MobileNet's ReLU6).
    "SiLU (Swish)": torch.nn.functional.silu,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "leaky ReLU": torch.nn.functional.leaky_relu,
    "ReLU6 (capped at 6: clamp(0, 6))": torch.nn.functional.relu6,
}
MISTAKES = {
    "gelu": ("GELU instead of ReLU between the two linear layers (the paper's FFN uses max(0, ·))",
             "GELU en vez de ReLU entre las dos capas lineales (la FFN del artículo usa max(0, ·))"),
    "no_activation": ("no ReLU between linear1 and linear2",
                      "falta la ReLU entre linear1 y linear2"),
    "no_linear2": ("linear2 is never applied: the block returns the hidden layer (B, T, d_ff); return "
                   "linear2(dropout(relu(linear1(x)))), of shape (B, T, d_model)",
                   "linear2 nunca se aplica: el bloque devuelve la capa oculta (B, T, d_ff); devuelve "
                   "linear2(dropout(relu(linear1(x)))), de forma (B, T, d_model)"),
    "relu_on_input": ("the ReLU is applied to the input, before linear1: it goes between the layers, "
                      "linear2(relu(linear1(x)))",
                      "la ReLU se aplica a la entrada, antes de linear1: va entre las capas, linear2(relu(linear1(x)))"),
    "relu_moved_to_output": ("the ReLU is applied after linear2 instead of between the layers: "
                             "linear2(dropout(relu(linear1(x)))), and the output may be negative",
                             "la ReLU se aplica tras linear2 en lugar de entre las capas: "
                             "linear2(dropout(relu(linear1(x)))), y la salida puede ser negativa"),
    "relu_on_output": ("a ReLU after linear2 as well: the output must be able to be negative",
                       "una ReLU también tras linear2: la salida debe poder ser negativa"),
}
MISTAKES["gelu_tanh"] = MISTAKES["gelu"]
for _kind in ("SiLU (Swish)", "tanh", "sigmoid", "leaky ReLU", "ReLU6 (capped at 6: clamp(0, 6))"):
    MISTAKES[_kind] = (f"{_kind} instead of ReLU between the two linear layers (the paper's FFN uses max(0, ·): "
                       "torch.relu or nn.ReLU)",
                       f"{_kind} en vez de ReLU entre las dos capas lineales (la FFN del artículo usa max(0, ·): "
                       "torch.relu o nn.ReLU)")


def mistakes(output):
    """The classic mistakes of the block, each as ``output(kind)`` computes what it returns."""
    return [checks.Mistake(en, es, output=lambda kind=kind: output(kind)) for kind, (en, es) in MISTAKES.items()]


@pytest.mark.points(1)
def test_parameter_count(student):
    """Does FeedForward(256, 1024) have 525,568 parameters? / ¿Tiene FeedForward(256, 1024) 525.568 parámetros?"""
    checks.parameter_count(student.module(FF, 256, 1024, init_kwargs={"dropout": 0.1}), 525_568, "FeedForward(256, 1024)",
                           shapes=[(1024, 256), (1024,), (256, 1024), (256,)])


@pytest.mark.points(2)
def test_output(student, rng):
    """Is the output linear2(ReLU(linear1(x))) for random weights? / ¿Es la salida linear2(ReLU(linear1(x))) con pesos aleatorios?"""
    d_model, d_ff, state, x = _case(rng)
    report = student.module(FF, d_model, d_ff, init_kwargs={"dropout": 0.5}, state=state, dtype="float64", inputs=[x])
    try:
        checks.close(report.get("output"), reference(state, x), f"FeedForward({d_model}, {d_ff}) output in eval mode",
                     atol=1e-9, mistakes=mistakes(lambda kind: reference(state, x, kind)) + [_scaled_hidden(state, x, 0.5)],
                     hints=shapes.Hints(tensors={"the input x": x}))
    except checks.CheckFailure as failure:
        raise (failure if failure.named else failure.shaped(activation_curve(student), replace=True)) from None


GRID = torch.tensor([-3.0, -1.0, -0.25, 0.5, 1.0, 2.0, 4.0, 9.0], dtype=torch.float64)


def activation_curve(student) -> tuple[str, str] | None:
    """What the block's activation is, read off FeedForward(n, n) with both layers the identity
    (its output is then act(h) for each h of GRID): None when that is ReLU, or when the probe
    gives no elementwise answer (the mistake is elsewhere)."""
    n = len(GRID)
    eye, zero = torch.eye(n, dtype=torch.float64), torch.zeros(n, dtype=torch.float64)
    state = {"linear1.weight": eye, "linear1.bias": zero, "linear2.weight": eye, "linear2.bias": zero}
    try:
        out = student.module(FF, n, n, init_kwargs={"dropout": 0.0}, state=state, dtype="float64",
                             inputs=[GRID.view(1, 1, n)]).get("output")
    except checks.CheckFailure:
        return None
    if not isinstance(out, torch.Tensor) or out.shape != (1, 1, n) or not bool(out.isfinite().all()):
        return None
    f, h = out.view(n).double(), GRID
    if torch.allclose(f, torch.relu(h), atol=1e-9):
        return None
    pos, neg = h > 0, h < 0
    traits_en, traits_es = [], []
    if bool((f[neg].abs() > 1e-6).any()):
        traits_en.append("it lets negative values through (ReLU gives 0 for h < 0)")
        traits_es.append("deja pasar valores negativos (ReLU da 0 para h < 0)")
    ratio = f[pos] / h[pos]
    if torch.allclose(ratio, h[pos], rtol=1e-6):
        traits_en.append("it squares positive values (h², not h)")
        traits_es.append("eleva al cuadrado los valores positivos (h², no h)")
    elif torch.allclose(ratio, ratio[0].expand_as(ratio), rtol=1e-6) and abs(float(ratio[0]) - 1) > 1e-6:
        traits_en.append(f"it multiplies positive values by {float(ratio[0]):.4g}")
        traits_es.append(f"multiplica los valores positivos por {checks.fmt(float(ratio[0]), '.4g', 'es')}")
    elif bool((f[pos] < h[pos] - 1e-6).any()) and torch.allclose(f[pos][:2], h[pos][:2], atol=1e-6):
        traits_en.append(f"it caps large values (f(9) = {float(f[-1]):.4g})")
        traits_es.append(f"limita los valores grandes (f(9) = {checks.fmt(float(f[-1]), '.4g', 'es')})")
    elif not torch.allclose(f[pos], h[pos], atol=1e-6):
        traits_en.append("for positive h it does not give h itself")
        traits_es.append("para h positivo no da el propio h")
    def values(t, spec, lang):  # Spanish writes decimal commas, so its lists use semicolons
        return ("; " if lang == "es" else ", ").join(checks.fmt(v, spec, lang) for v in t.tolist())

    return (f"the activation between the layers is not ReLU: with linear1 and linear2 the identity the block gives "
            f"f(h) = [{values(f, '.4g', 'en')}] for h = [{values(h, 'g', 'en')}], where ReLU gives max(0, h); "
            f"{'; '.join(traits_en)}. Apply torch.relu (or nn.ReLU) to linear1's output, and nothing else, before "
            "the dropout",
            f"la activación entre las capas no es ReLU: con linear1 y linear2 la identidad el bloque da "
            f"f(h) = [{values(f, '.4g', 'es')}] para h = [{values(h, 'g', 'es')}], donde ReLU da max(0, h); "
            f"{'; '.join(traits_es)}. Aplica torch.relu (o nn.ReLU) a la salida de linear1, y nada más, antes del "
            "dropout")


def _scaled_hidden(state, x, p):
    """The mistake of a hidden layer scaled by 1/(1 - p) by hand, also in eval mode (nn.Dropout
    already scales the kept units in training and does nothing in eval)."""
    def output():
        hidden = torch.relu(x @ state["linear1.weight"].T + state["linear1.bias"]) / (1 - p)
        return hidden @ state["linear2.weight"].T + state["linear2.bias"]
    return checks.Mistake(
        f"the hidden layer is divided by (1 - p) = {1 - p:g} by hand, also in eval mode: nn.Dropout already scales the "
        "kept units by 1/(1 - p) in training and does nothing in eval; apply self.dropout and nothing else",
        f"la capa oculta se divide a mano entre (1 - p) = {checks.fmt(1 - p, 'g', 'es')}, también en evaluación: "
        "nn.Dropout ya escala las unidades conservadas por 1/(1 - p) en entrenamiento y no hace nada en evaluación; "
        "aplica self.dropout y nada más", output=output)


@pytest.mark.points(1)
def test_gradients(student, rng):
    """Do the gradients w.r.t. the input and both layers match? / ¿Coinciden los gradientes respecto a la entrada y a las dos capas?"""
    d_model, d_ff, state, x = _case(rng)
    grad_output = checks.randn(rng, x.shape)
    report = student.module(FF, d_model, d_ff, init_kwargs={"dropout": 0.0}, state=state, dtype="float64",
                            inputs=[x], grad_output=grad_output)

    def gradients(kind=None):
        ref = {k: v.clone().requires_grad_(True) for k, v in state.items()}
        xr = x.clone().requires_grad_(True)
        reference(ref, xr, kind).backward(grad_output)
        return {"input": xr.grad, **{name: t.grad for name, t in ref.items()}}

    want = gradients()
    grads = report.get("input_grads") if isinstance(report.get("input_grads"), list) else [None]
    param_grads = report.get("param_grads") if isinstance(report.get("param_grads"), dict) else {}
    got = {"input": grads[0] if grads else None, **{name: param_grads.get(name) for name in state}}
    for name in want:
        try:
            checks.close(got[name], want[name],
                         "gradient w.r.t. the input" if name == "input" else f"gradient w.r.t. {name}",
                         atol=1e-9, mistakes=mistakes(lambda kind, name=name: gradients(kind)[name]))
        except checks.CheckFailure as failure:
            raise (failure if failure.named else failure.shaped(activation_curve(student), replace=True)) from None


@pytest.mark.points(1)
def test_dropout_is_active_in_training(student, rng):
    """In training mode, does dropout zero some hidden units (and none in eval mode)? / ¿Anula el dropout unidades ocultas en entrenamiento (y ninguna en evaluación)?"""
    d_model, d_ff = 8, 64
    p = 0.25  # not 0.5, where a rate given as the keep probability (1 - p) would look right
    state = {
        "linear1.weight": torch.eye(d_ff, d_model, dtype=torch.float64),
        "linear1.bias": torch.ones(d_ff, dtype=torch.float64),
        "linear2.weight": torch.ones(d_model, d_ff, dtype=torch.float64),
        "linear2.bias": torch.zeros(d_model, dtype=torch.float64),
    }
    x = torch.zeros(1, 50, d_model, dtype=torch.float64)  # every hidden unit is act(1): 1 for ReLU
    evaluated = checks.tensor(
        student.module(FF, d_model, d_ff, init_kwargs={"dropout": p}, state=state, dtype="float64", inputs=[x]).get("output"),
        "output in eval mode", shape=(1, 50, d_model), dtype=torch.float64)
    # In eval mode dropout does nothing: every output is d_ff x act(1), the same everywhere
    # (the activation itself is the business of the output test, not of this one).
    unit = evaluated.flatten()[0].item() / d_ff
    try:
        checks.expect(
            unit > 0 and bool((evaluated == evaluated.flatten()[0]).all()),
            f"with dropout={p} in eval mode every output should be the same (dropout must do nothing there)",
            f"con dropout={p} en modo evaluación todas las salidas deberían ser iguales (el dropout no debe hacer nada)",
        )
    except checks.CheckFailure as failure:
        raise failure.naming(checks.DROPOUT_IN_EVAL) from None
    # With a backward pass: an in-place dropout on the ReLU's output (which ReLU's backward
    # reads) runs forward and breaks only here, as it would in the student's training.
    train = student.module(FF, d_model, d_ff, init_kwargs={"dropout": p}, state=state, dtype="float64",
                           inputs=[x], train=True, seed=checks.randint(rng, 0, 10**6),
                           grad_output=torch.ones(1, 50, d_model, dtype=torch.float64))
    out = checks.tensor(train.get("output"), "output in training mode", shape=(1, 50, d_model)) / unit
    # Dropout on the hidden units (kept ones scaled by 1 / (1 - p)) makes each output
    # act(1) x (units kept at that position) / (1 - p): different across positions, but
    # equal across the d_model outputs of one position.
    per_position = bool((out == out[..., :1]).all())
    rate = _dropout_rate(out)
    # 64 units dropped one by one: a position keeping all of them or none is all but impossible.
    whole = per_position and bool((((out.abs() <= 1e-6) | ((out - d_ff / (1 - p)).abs() <= 1e-6))).all())
    try:
        checks.expect(
            bool(((out - d_ff).abs() > 1e-6).any()) and per_position and rate == p and not whole,
            f"with dropout={p} in training mode, dropout must act on the hidden units after the ReLU (nn.Dropout)",
            f"con dropout={p} en modo entrenamiento, el dropout debe actuar sobre las unidades ocultas tras la ReLU (nn.Dropout)",
        )
    except checks.CheckFailure as failure:
        if bool(((out - d_ff).abs() <= 1e-6).all()):
            raise failure.naming(NO_HIDDEN_DROPOUT) from None
        if whole:
            raise failure.naming(WHOLE_POSITIONS) from None
        if per_position and rate is not None:
            raise failure.naming(checks.wrong_dropout_rate(rate, p)) from None
        raise (failure if per_position else failure.naming(OUTPUT_DROPOUT)) from None


WHOLE_POSITIONS = checks.Mistake(
    "the dropout drops whole positions (all d_ff hidden units at once: nn.Dropout2d, or a mask of shape (B, T, 1)), "
    "not single units: use nn.Dropout(dropout), which drops each unit on its own",
    "el dropout anula posiciones enteras (las d_ff unidades ocultas a la vez: nn.Dropout2d, o una máscara de forma "
    "(B, T, 1)), no unidades sueltas: usa nn.Dropout(dropout), que anula cada unidad por separado")


def _dropout_rate(out):
    """The rate q whose scaling makes every output a whole count of kept units, (units kept)
    / (1 - q): the smallest 1 - q that does (any multiple of it would too), or None."""
    for q in (0.9, 0.8, 0.75, 0.7, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.1):
        counts = out * (1 - q)
        if bool(((counts - counts.round()).abs() <= 1e-6).all()):
            return q
    return None


NO_HIDDEN_DROPOUT = checks.Mistake(
    "dropout never acts on the hidden units in training mode (missing, its result unused, or applied to the input)",
    "el dropout nunca actúa sobre las unidades ocultas en entrenamiento (falta, no se usa su resultado o se aplica "
    "a la entrada)")
OUTPUT_DROPOUT = checks.Mistake(
    "dropout after linear2 (on the output) instead of on the hidden units between the ReLU and linear2",
    "dropout tras linear2 (sobre la salida) en vez de sobre las unidades ocultas entre la ReLU y linear2")
