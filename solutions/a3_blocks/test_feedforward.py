"""Public tests for feedforward.py. Run them with ``pytest assignments/a3_blocks``."""

import torch

from feedforward import FeedForward


def _rounded(t):
    """A tensor's values as a compact list, rounded to 4 decimals (for messages)."""
    return torch.as_tensor(t).detach().double().round(decimals=4).tolist()


def _parameters(module):
    """``name (shape)`` of every parameter, e.g. ``linear1.weight (1024, 256)`` (for messages)."""
    found = [f"{name} {tuple(p.shape)}" for name, p in module.named_parameters()]
    return ", ".join(found) or "none / ninguno"


def _count_hint(n, d_model, d_ff):
    """What a wrong parameter count of FeedForward(d_model, d_ff) points to, in both languages."""
    weights = 2 * d_model * d_ff
    if n == 0:
        return ("no parameters at all: create linear1 and linear2 in __init__ as attributes of self "
                "(a layer made in forward, or kept in a plain list, is not registered)",
                "ningún parámetro: crea linear1 y linear2 en __init__ como atributos de self "
                "(una capa creada en forward, o guardada en una lista normal, no se registra)")
    if n == weights:
        return ("exactly the two biases are missing: both nn.Linear layers need their bias (look for bias=False)",
                "faltan justo los dos sesgos: las dos nn.Linear necesitan su bias (busca bias=False)")
    if n == weights + d_model:
        return (f"exactly linear1's bias ({d_ff} values) is missing: look for bias=False in linear1",
                f"falta justo el sesgo de linear1 ({d_ff} valores): busca bias=False en linear1")
    if n == weights + d_ff:
        return (f"exactly linear2's bias ({d_model} values) is missing: look for bias=False in linear2",
                f"falta justo el sesgo de linear2 ({d_model} valores): busca bias=False en linear2")
    if n in (d_model * d_ff + d_ff, d_ff * d_model + d_model):
        return ("only one of the two linear layers is there: create both linear1 and linear2 in __init__",
                "solo está una de las dos capas lineales: crea linear1 y linear2 en __init__")
    if n == 2 * (d_model * d_model + d_model):
        return (f"that is two nn.Linear({d_model}, {d_model}): the hidden size must be d_ff = {d_ff}",
                f"eso son dos nn.Linear({d_model}, {d_model}): el tamaño oculto debe ser d_ff = {d_ff}")
    return (f"linear1 must map d_model -> d_ff ({d_model} -> {d_ff}) and linear2 d_ff -> d_model "
            f"({d_ff} -> {d_model}), both with bias, and nothing else trainable",
            f"linear1 debe ir de d_model a d_ff ({d_model} -> {d_ff}) y linear2 de d_ff a d_model "
            f"({d_ff} -> {d_model}), ambas con bias, y nada más entrenable")


def test_parameter_count():
    """Does FeedForward(256, 1024) have 525,568 parameters?"""
    ff = FeedForward(256, 1024, dropout=0.1)
    n = sum(p.numel() for p in ff.parameters())
    en, es = _count_hint(n, 256, 1024)
    assert n == 525_568, (
        f"FeedForward(256, 1024) has {n:,} parameters, expected 525,568 = (256*1024 + 1024) + (1024*256 + 256) "
        f"(linear1 and linear2, weights and biases); {en}. Yours: {_parameters(ff)} / "
        f"FeedForward(256, 1024) tiene {n:,} parámetros y se esperaban 525,568 = (256*1024 + 1024) + "
        f"(1024*256 + 256) (linear1 y linear2, pesos y sesgos); {es}. Los tuyos: {_parameters(ff)}"
    )


def test_positions_are_independent():
    """Is each position transformed on its own (changing one leaves the others)?"""
    ff = FeedForward(8, 32, dropout=0.0)
    x = torch.randn(1, 5, 8)
    y = x.clone()
    y[0, 2] += 1.0
    out_x, out_y = ff(x), ff(y)

    def change():
        """Largest |change| of the output at each position 0..4 (for messages)."""
        return _rounded((out_x[0] - out_y[0]).abs().flatten(1).amax(1))

    def mixing_message(default):
        again = ff(x)
        if again.shape != out_x.shape or not torch.equal(again, out_x):
            return (
                "the same input gave a different output on a second call (dropout=0.0), so the positions cannot be "
                "compared: are layers or weights created inside forward? Create linear1 and linear2 once, in "
                "__init__ / la misma entrada dio otra salida en una segunda llamada (dropout=0.0), así que no se "
                "pueden comparar las posiciones: ¿se crean capas o pesos dentro de forward? Crea linear1 y linear2 "
                f"una sola vez, en __init__\n{default}"
            )
        return (
            f"changing only position 2 of the input changed the output at other positions: largest |change| at "
            f"positions 0..4 = {change()}, expected 0 everywhere but position 2. The feed-forward acts on each "
            "position alone, along the last dimension (d_model): look for anything in forward that mixes the "
            "sequence dimension (dim 1), such as an operation along dim=1 (softmax, sum, mean) or a transpose, view "
            "or reshape before a linear layer / "
            "cambiar solo la posición 2 de la entrada cambió la salida en otras posiciones: mayor |cambio| en las "
            f"posiciones 0..4 = {change()}, se esperaba 0 en todas salvo la 2. La red feed-forward actúa en cada "
            "posición por separado, sobre la última dimensión (d_model): busca en forward algo que mezcle la "
            "dimensión de la secuencia (dim 1), como una operación a lo largo de dim=1 (softmax, sum, mean) o un "
            "transpose, view o reshape antes de una capa lineal"
            f"\n{default}"
        )

    torch.testing.assert_close(out_x[0, [0, 1, 3, 4]], out_y[0, [0, 1, 3, 4]], msg=mixing_message)
    assert not torch.allclose(out_x[0, 2], out_y[0, 2]), (
        f"changing position 2 of the input by +1 left the output at position 2 unchanged (largest |change| "
        f"{change()[2]}): the output must depend on the input; check that forward computes its result from its "
        "argument x (linear1, ReLU, dropout, linear2) and returns it / cambiar en +1 la posición 2 de la entrada no "
        f"cambió la salida en la posición 2 (mayor |cambio| {change()[2]}): la salida debe depender de la entrada; "
        "comprueba que forward calcula su resultado a partir de su argumento x (linear1, ReLU, dropout, linear2) y "
        "lo devuelve"
    )


def test_forward_is_linear2_of_relu_of_linear1():
    """In eval mode, is ff(x) = linear2(ReLU(linear1(x))), as in equation (2) of the paper?"""
    torch.manual_seed(8)
    # Inputs wide enough that hidden units reach well above 6, where a capped ReLU (ReLU6) differs.
    ff, x = FeedForward(8, 32, dropout=0.3).eval(), 10 * torch.randn(2, 5, 8)
    with torch.no_grad():
        got, hidden = ff(x), ff.linear1(x)
        expected = ff.linear2(torch.relu(hidden))
        without_relu = ff.linear2(hidden)
        with_gelu = ff.linear2(torch.nn.functional.gelu(hidden))
    if torch.allclose(got, without_relu, atol=1e-5):
        hint = ("that is linear2(linear1(x)) with no ReLU in between: the two layers then collapse into one linear "
                "map", "es linear2(linear1(x)) sin ReLU en medio: las dos capas se reducen a una sola lineal")
    elif torch.allclose(got, with_gelu, atol=1e-5):
        hint = ("that is GELU; the paper's feed-forward uses ReLU, max(0, x)",
                "es GELU; la feed-forward del artículo usa ReLU, max(0, x)")
    else:
        hint = ("apply linear1, then ReLU, then (in training) dropout, then linear2; in eval mode dropout does "
                "nothing", "aplica linear1, luego ReLU, luego (en entrenamiento) dropout, y después linear2; en "
                "modo eval el dropout no hace nada")
    torch.testing.assert_close(got, expected, msg=lambda m: (
        f"FeedForward in eval mode should be linear2(relu(linear1(x))); {hint[0]} / FeedForward en modo eval debe "
        f"ser linear2(relu(linear1(x))); {hint[1]}\n{m}"))


def test_dropout_acts_on_the_hidden_layer_in_training_only():
    """With dropout 0.5, does training mode change the output (dropout after the ReLU, inside
    the block), without zeroing whole outputs, while eval mode gives the plain block?"""
    torch.manual_seed(9)
    ff, x = FeedForward(8, 64, dropout=0.5), torch.randn(4, 6, 8)
    ff.train()
    trained = ff(x)
    ff.eval()
    with torch.no_grad():
        plain = ff.linear2(torch.relu(ff.linear1(x)))
        evaluated = ff(x)
    assert not torch.allclose(trained, plain), (
        "in training mode with dropout 0.5 the output equals the block without dropout: apply self.dropout to the "
        "hidden layer (after the ReLU) and use its result (unlike lecture notebooks 000 and 001, whose feed-forward "
        "has no dropout inside: there only the layer drops the block's output; the course, as PyTorch's "
        "nn.TransformerEncoderLayer, does both, the layer's dropout in a4) / en modo entrenamiento con dropout 0.5 "
        "la salida es la del bloque sin dropout: aplica self.dropout a la capa oculta (tras la ReLU) y usa su "
        "resultado (a diferencia de los cuadernos de clase 000 y 001, cuyo feed-forward no lleva dropout dentro: "
        "allí solo la capa aplica dropout a la salida del bloque; el curso, como nn.TransformerEncoderLayer de "
        "PyTorch, hace las dos cosas, la de la capa en a4)")
    # An input of zeros: dropout on the input changes nothing, dropout on the hidden layer
    # (relu(bias) = 1 everywhere) gives each position its own mask, so positions differ.
    with torch.no_grad():
        ff.linear1.bias.fill_(1.0)
    ff.train()
    same = ff(torch.zeros(1, 20, 8))
    assert not torch.allclose(same, same[:, :1].expand_as(same)), (
        "with an input of zeros and dropout 0.5 in training mode, all 20 positions give the same output, so "
        "dropout never reaches the hidden units: it belongs after the ReLU, on relu(linear1(x)), not on the input "
        "x / con una entrada de ceros y dropout 0.5 en modo entrenamiento, las 20 posiciones dan la misma salida, "
        "así que el dropout nunca llega a las unidades ocultas: va tras la ReLU, sobre relu(linear1(x)), no sobre "
        "la entrada x")
    silent = FeedForward(8, 64, dropout=0.0)
    assert torch.equal(silent.train()(x), silent.eval()(x)), (
        "FeedForward(8, 64, dropout=0.0) gives another output in training mode than in eval mode: a dropout acts "
        "with a rate of its own. Build it from the argument, self.dropout = nn.Dropout(dropout) / "
        "FeedForward(8, 64, dropout=0.0) da otra salida en modo entrenamiento que en modo evaluación: un dropout "
        "actúa con una tasa propia. Créalo a partir del argumento, self.dropout = nn.Dropout(dropout)")
    zeros = (trained == 0).double().mean().item()
    assert zeros < 0.05, (
        f"{zeros:.0%} of the outputs are exactly 0 in training mode: dropout acts on the output of linear2; it "
        "belongs between the ReLU and linear2 (the output's dropout, as in lecture notebooks 000, 001 and 002, is "
        f"the layer's, in a4) / el {zeros:.0%} de las salidas valen exactamente 0 en modo "
        "entrenamiento: el dropout actúa sobre la salida de linear2; va entre la ReLU y linear2 (el dropout de la "
        "salida, como en los cuadernos de clase 000, 001 y 002, es el de la capa, en a4)")
    torch.testing.assert_close(evaluated, plain, msg=lambda m: (
        "in eval mode the output should be the block without dropout: nn.Dropout does nothing in eval mode, so use "
        "the module self.dropout, not torch.nn.functional.dropout with training=True / en modo eval la salida debe "
        "ser la del bloque sin dropout: usa el módulo self.dropout, no torch.nn.functional.dropout con "
        f"training=True\n{m}"))


def test_backward_works_in_training_mode():
    """With dropout in training mode, does a backward pass run and reach linear1?"""
    torch.manual_seed(10)
    ff = FeedForward(8, 32, dropout=0.3).train()
    try:
        ff(torch.randn(2, 5, 8)).sum().backward()
    except RuntimeError as error:
        raise AssertionError(
            f"the backward pass of FeedForward in training mode failed ({str(error)[:120]}...): an in-place operation "
            "changed a tensor that the backward needs, e.g. nn.Dropout(dropout, inplace=True) on the ReLU's output; "
            "use nn.Dropout(dropout) / la pasada hacia atrás de FeedForward en modo entrenamiento falló: una "
            "operación in situ cambió un tensor que la pasada hacia atrás necesita, p. ej. nn.Dropout(dropout, "
            "inplace=True) sobre la salida de la ReLU; usa nn.Dropout(dropout)") from None
    assert ff.linear1.weight.grad is not None and bool(ff.linear1.weight.grad.abs().sum() > 0), (
        "after backward, linear1.weight has no gradient: the output must be computed from linear1(x) without "
        "detaching it / tras backward, linear1.weight no tiene gradiente: la salida debe calcularse a partir de "
        "linear1(x) sin separarla del grafo")
