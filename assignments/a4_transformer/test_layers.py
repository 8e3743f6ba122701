"""Public tests for layers.py. Run them with ``pytest assignments/a4_transformer``."""

import torch

from layers import DecoderLayer, EncoderLayer


def _rounded(t):
    """A tensor's values as a compact list, rounded to 4 decimals (for messages)."""
    return torch.as_tensor(t).detach().double().round(decimals=4).tolist()


def _shape(t):
    """A shape as a plain tuple, or what the value is when it is not a tensor (for messages)."""
    if isinstance(t, torch.Tensor):
        return tuple(t.shape)
    if isinstance(t, (tuple, list)):
        return f"{type(t).__name__} (len {len(t)})"
    return f"{type(t).__name__} {t!r:.60}"


def test_encoder_layer_keeps_shape():
    """Does an encoder layer map (B, S, d_model) to (B, S, d_model), post- and pre-norm?"""
    for norm_first in (False, True):
        layer = EncoderLayer(32, 4, 64, dropout=0.0, norm_first=norm_first)
        out = layer(torch.randn(2, 7, 32))
        assert isinstance(out, torch.Tensor), (
            f"EncoderLayer(32, 4, 64, norm_first={norm_first}) returned {_shape(out)}, expected one tensor of shape "
            "(B, S, d_model) = (2, 7, 32); note that MultiHeadAttention returns a pair (output, weights) and only "
            f"the output goes on / EncoderLayer(32, 4, 64, norm_first={norm_first}) devolvió {_shape(out)} y se "
            "esperaba un solo tensor de forma (B, S, d_model) = (2, 7, 32); ojo: MultiHeadAttention devuelve un par "
            "(salida, pesos) y solo la salida sigue adelante"
        )
        assert out.shape == (2, 7, 32), (
            f"EncoderLayer(32, 4, 64, norm_first={norm_first}) on x of shape (2, 7, 32) gave shape {_shape(out)}, "
            "expected (B, S, d_model) = (2, 7, 32): each sub-layer and each residual sum must keep the shape of x / "
            f"EncoderLayer(32, 4, 64, norm_first={norm_first}) con x de forma (2, 7, 32) dio forma {_shape(out)} y "
            "se esperaba (B, S, d_model) = (2, 7, 32): cada subcapa y cada suma residual deben conservar la forma "
            "de x"
        )


def test_decoder_layer_is_causal():
    """With a causal mask, does changing target position 3 leave positions 0..2 unchanged?"""
    torch.manual_seed(0)
    layer = DecoderLayer(16, 2, 32, dropout=0.0).eval()
    x, memory = torch.randn(1, 5, 16), torch.randn(1, 6, 16)
    causal = torch.ones(5, 5).tril().bool()
    y = x.clone()
    y[0, 3] += 1.0
    a, b = layer(x, memory, causal), layer(y, memory, causal)

    def message(default):
        again = layer(x, memory, causal)
        if again.shape != a.shape or not torch.equal(again, a):
            return (
                "the same inputs gave a different output on a second call in eval mode, so the positions cannot be "
                "compared: is there randomness that eval() does not turn off (dropout called with training=True, "
                "layers created inside forward)? / las mismas entradas dieron otra salida en una segunda llamada en "
                "modo evaluación, así que no se pueden comparar las posiciones: ¿hay algo aleatorio que eval() no "
                f"desactiva (dropout con training=True, capas creadas dentro de forward)?\n{default}"
            )
        change = _rounded((a[0] - b[0]).abs().flatten(1).amax(1))
        return (
            "with the causal mask, changing target position 3 changed the outputs at earlier positions: largest "
            f"|change| at positions 0..4 = {change}, expected 0 at positions 0, 1, 2. Position t may only see "
            "positions <= t: check that self_attn gets tgt_mask and that cross_attn takes its keys and values from "
            "memory, not from x / con la máscara causal, cambiar la posición 3 del destino cambió las salidas en "
            f"posiciones anteriores: mayor |cambio| en las posiciones 0..4 = {change}, se esperaba 0 en las "
            "posiciones 0, 1, 2. La posición t solo puede ver las posiciones <= t: comprueba que self_attn recibe "
            f"tgt_mask y que cross_attn toma sus claves y valores de memory, no de x\n{default}"
        )

    torch.testing.assert_close(a[0, :3], b[0, :3], msg=message)


def _randomised(layer):
    """``layer`` in eval mode with every vector parameter (biases, LayerNorm weights) drawn
    at random: freshly built LayerNorms are all the same map (weight 1, bias 0), so using
    norm1 where norm2 belongs would otherwise go unnoticed."""
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in layer.parameters():
            if p.dim() == 1:
                p.copy_(1.0 + 0.5 * torch.randn(p.shape, generator=generator))
    return layer.eval()


def _padding(lengths, size):
    """A (B, 1, 1, size) mask, True on the first lengths[b] positions of row b."""
    return (torch.arange(size) < torch.tensor(lengths)[:, None]).view(len(lengths), 1, 1, size)


def test_encoder_layer_follows_the_paper_sublayer_by_sublayer():
    """Is a post-norm encoder layer h = norm1(x + SelfAttn(x)), then norm2(h + FF(h)); and a
    pre-norm one h = x + SelfAttn(norm1(x)), then h + FF(norm2(h))?"""
    torch.manual_seed(3)
    x, mask = torch.randn(2, 5, 16), _padding([5, 3], 5)
    for norm_first in (False, True):
        layer = _randomised(EncoderLayer(16, 2, 32, dropout=0.0, norm_first=norm_first))
        with torch.no_grad():
            if norm_first:
                y = layer.norm1(x)
                h = x + layer.self_attn(y, y, y, mask)[0]
                expected = h + layer.ff(layer.norm2(h))
            else:
                h = layer.norm1(x + layer.self_attn(x, x, x, mask)[0])
                expected = layer.norm2(h + layer.ff(h))
            got = layer(x, mask)
        kind = "pre-norm" if norm_first else "post-norm"
        torch.testing.assert_close(got, expected, msg=lambda m, kind=kind: (
            f"the {kind} encoder layer differs from the formula in the test's docstring: check each residual "
            "(x + ...), which LayerNorm each sub-layer uses (norm1 for self-attention, norm2 for the feed-forward) "
            "and where it goes, and that the mask reaches self-attention / la capa de codificador "
            f"{kind} no sigue la fórmula del docstring del test: revisa cada residual (x + ...), qué LayerNorm usa "
            "cada subcapa (norm1 la autoatención, norm2 la feed-forward) y dónde va, y que la máscara llegue a "
            f"la autoatención\n{m}"))


def test_decoder_layer_follows_the_paper_sublayer_by_sublayer():
    """Is a post-norm decoder layer norm1(x + SelfAttn(x, tgt_mask)), then norm2(h + CrossAttn(h,
    memory, src_mask)), then norm3(h + FF(h)); and the pre-norm one the same with each norm on
    the sub-layer's input?"""
    torch.manual_seed(4)
    x, memory = torch.randn(2, 5, 16), torch.randn(2, 6, 16)
    tgt_mask, src_mask = torch.ones(5, 5).tril().bool(), _padding([6, 4], 6)
    for norm_first in (False, True):
        layer = _randomised(DecoderLayer(16, 2, 32, dropout=0.0, norm_first=norm_first))
        with torch.no_grad():
            if norm_first:
                y = layer.norm1(x)
                h = x + layer.self_attn(y, y, y, tgt_mask)[0]
                h = h + layer.cross_attn(layer.norm2(h), memory, memory, src_mask)[0]
                expected = h + layer.ff(layer.norm3(h))
            else:
                h = layer.norm1(x + layer.self_attn(x, x, x, tgt_mask)[0])
                h = layer.norm2(h + layer.cross_attn(h, memory, memory, src_mask)[0])
                expected = layer.norm3(h + layer.ff(h))
            got = layer(x, memory, tgt_mask, src_mask)
        kind = "pre-norm" if norm_first else "post-norm"
        torch.testing.assert_close(got, expected, msg=lambda m, kind=kind: (
            f"the {kind} decoder layer differs from the formula in the test's docstring: check the order of the "
            "three sub-layers, that cross-attention takes its queries from the decoder and its keys and values "
            "from memory with src_mask, each residual, and which LayerNorm each sub-layer uses (norm1, norm2, "
            f"norm3 in order) / la capa de decodificador {kind} no sigue la fórmula del docstring del test: "
            "revisa el orden de las tres subcapas, que la atención cruzada tome las consultas del decodificador "
            "y las claves y valores de memory con src_mask, cada residual, y qué LayerNorm usa cada subcapa "
            f"(norm1, norm2, norm3 por orden)\n{m}"))


def test_decoder_layer_reads_memory_only_where_src_mask_allows():
    """Does changing memory at source positions the src_mask hides leave the output as it was,
    while changing a visible position changes it?"""
    torch.manual_seed(5)
    layer = _randomised(DecoderLayer(16, 2, 32, dropout=0.0))
    x, memory, src_mask = torch.randn(1, 4, 16), torch.randn(1, 6, 16), _padding([4], 6)
    hidden, visible = memory.clone(), memory.clone()
    hidden[0, 4:] += 3.0
    visible[0, 1] += 3.0
    with torch.no_grad():
        base = layer(x, memory, None, src_mask)
        changed_hidden = (layer(x, hidden, None, src_mask) - base).abs().max().item()
        changed_visible = (layer(x, visible, None, src_mask) - base).abs().max().item()
    assert changed_visible > 1e-4, (
        f"changing a visible memory position changed the output by only {changed_visible:.2g}: cross-attention "
        "must read memory (keys and values from memory, not from x) / cambiar una posición visible de memory "
        f"apenas cambió la salida ({changed_visible:.2g}): la atención cruzada debe leer memory (claves y valores "
        "de memory, no de x)")
    assert changed_hidden < 1e-6, (
        f"changing memory at positions 4-5, which src_mask hides, changed the output by {changed_hidden:.2g}: pass "
        "src_mask to cross_attn / cambiar memory en las posiciones 4-5, ocultas por src_mask, cambió la salida "
        f"en {changed_hidden:.2g}: pasa src_mask a cross_attn")


def test_dropout_spares_the_residual_stream():
    """With sub-layers whose outputs are zero, does training mode (dropout 0.5) give exactly
    the eval-mode output, so that dropout acts on the sub-layer outputs only?"""
    torch.manual_seed(0)
    x, memory = torch.randn(2, 5, 16), torch.randn(2, 6, 16)
    for cls in (EncoderLayer, DecoderLayer):
        for norm_first in (False, True):
            layer = cls(16, 2, 32, dropout=0.5, norm_first=norm_first)
            silenced = [layer.self_attn.w_o, layer.ff.linear2] + ([layer.cross_attn.w_o] if cls is DecoderLayer else [])
            with torch.no_grad():
                for linear in silenced:  # each sub-layer now adds exactly 0 to the stream
                    linear.weight.zero_()
                    linear.bias.zero_()
            args = (x,) if cls is EncoderLayer else (x, memory)
            evaluated = layer.eval()(*args)
            trained = layer.train()(*args)
            name = f"{cls.__name__}(16, 2, 32, dropout=0.5, norm_first={norm_first})"
            assert isinstance(trained, torch.Tensor) and torch.allclose(trained, evaluated, atol=1e-6), (
                f"{name} whose sub-layers output zeros gives another output in training mode than in eval mode: "
                "a dropout acts on the residual stream (on x, on x + sublayer, or after a LayerNorm). Dropout "
                "belongs on each sub-layer's output only, before it is added: x + dropout(sublayer(...)) / "
                f"{name} con subcapas que devuelven ceros da otra salida en modo entrenamiento que en modo "
                "evaluación: un dropout actúa sobre el flujo residual (sobre x, sobre x + subcapa o tras una "
                "LayerNorm). El dropout va solo sobre la salida de cada subcapa, antes de sumarla: "
                "x + dropout(subcapa(...))"
            )


def test_dropout_acts_on_each_sublayer_output():
    """With one sub-layer outputting a constant vector b and dropout 0.5 in training mode, is the
    output that of x + dropout(b), for some dropout mask with values both dropped and kept?"""
    torch.manual_seed(1)
    d_model, p = 4, 0.5
    x, memory = torch.randn(2, 5, d_model), torch.randn(2, 6, d_model)
    masks = torch.tensor([[(m >> i) & 1 for i in range(d_model)] for m in range(2 ** d_model)]).float()  # (16, d)
    for cls in (EncoderLayer, DecoderLayer):
        for norm_first in (False, True):
            layer = cls(d_model, 2, 8, dropout=p, norm_first=norm_first)
            decoder = cls is DecoderLayer
            outputs = [layer.self_attn.w_o] + ([layer.cross_attn.w_o] if decoder else []) + [layer.ff.linear2]
            norms = [layer.norm1, layer.norm2] + ([layer.norm3] if decoder else [])
            names = ["self_attn"] + (["cross_attn"] if decoder else []) + ["ff"]
            for k, name in enumerate(names):
                b = torch.randn(d_model)
                with torch.no_grad():
                    for j, linear in enumerate(outputs):  # sub-layer k outputs b everywhere, the others 0
                        linear.weight.zero_()
                        linear.bias.copy_(b if j == k else torch.zeros(d_model))
                    stream = x  # what reaches sub-layer k, then x + m * b / (1 - p) through the norms after it
                    for norm in [] if norm_first else norms[:k]:
                        stream = norm(stream)
                    candidates = stream[:, :, None, :] + masks * b / (1 - p)  # (B, T, 16, d)
                    for norm in [] if norm_first else norms[k:]:
                        candidates = norm(candidates)
                    args = (x,) if cls is EncoderLayer else (x, memory)
                    out = layer.train()(*args)
                error = (candidates - out[:, :, None, :]).abs().amax(dim=-1)  # (B, T, 16)
                kept = masks[error.argmin(dim=-1)]
                explained = bool((error.amin(dim=-1) < 1e-4).all()) and 0 < kept.mean().item() < 1
                what = f"{cls.__name__}(norm_first={norm_first}, dropout=0.5) in training mode, {name} outputting b"
                assert explained, (
                    f"{what}: the output is not x + dropout(b) for any dropout mask. Apply dropout to each "
                    "sub-layer's output, before adding x (not to its input, and not nowhere): "
                    "x + self.dropoutN(sublayer(...)) / "
                    f"{cls.__name__}(norm_first={norm_first}, dropout=0.5) en modo entrenamiento, con {name} dando b: "
                    "la salida no es x + dropout(b) para ninguna máscara de dropout. Aplica el dropout a la salida de "
                    "cada subcapa, antes de sumar x (no a su entrada, y no omitido): x + self.dropoutN(subcapa(...))"
                )


def test_eval_mode_ignores_the_dropout_rate():
    """In eval mode, does a layer built with dropout 0.5 give exactly the output of the same
    layer built with dropout 0.0 (dropout is off in eval mode, wherever it is applied)?"""
    torch.manual_seed(2)
    x, memory = torch.randn(2, 5, 16), torch.randn(2, 6, 16)
    for cls in (EncoderLayer, DecoderLayer):
        for norm_first in (False, True):
            torch.manual_seed(3)
            plain = cls(16, 2, 32, dropout=0.0, norm_first=norm_first).eval()
            torch.manual_seed(3)
            dropping = cls(16, 2, 32, dropout=0.5, norm_first=norm_first).eval()
            args = (x,) if cls is EncoderLayer else (x, memory)
            with torch.no_grad():
                want, got = plain(*args), dropping(*args)
            name = f"{cls.__name__}(16, 2, 32, dropout=0.5, norm_first={norm_first}).eval()"
            assert isinstance(got, torch.Tensor) and torch.allclose(got, want, atol=1e-6), (
                f"{name} gives another output than the same layer with dropout=0.0: a dropout stays on in eval mode. "
                "nn.functional.dropout(x, p) drops in every mode unless it is given training=self.training; use the "
                "layer's nn.Dropout modules (self.dropout1, ...), which follow .train() and .eval() / "
                f"{name} da otra salida que la misma capa con dropout=0.0: un dropout sigue activo en modo "
                "evaluación. nn.functional.dropout(x, p) descarta en cualquier modo si no recibe "
                "training=self.training; usa los módulos nn.Dropout de la capa (self.dropout1, ...), que siguen a "
                ".train() y .eval()")
