"""Public tests for multihead.py. Run them with ``pytest assignments/a3_blocks``."""

import torch

from multihead import MultiHeadAttention


def _parameters(module):
    """How many parameters each attribute holds, e.g. ``w_q 65,792`` (for messages)."""
    counts = {}
    for name, p in module.named_parameters():
        counts[name.split(".")[0]] = counts.get(name.split(".")[0], 0) + p.numel()
    return ", ".join(f"{name} {n:,}" for name, n in counts.items()) or "none / ninguno"


def _shape(t):
    """A shape as a plain tuple, or what the value is when it is not a tensor (for messages)."""
    return tuple(t.shape) if isinstance(t, torch.Tensor) else f"{type(t).__name__} {t!r:.60}"


def _count_hint(n, d_model):
    """What a wrong parameter count of MultiHeadAttention(d_model, h) points to, in both languages."""
    if n == 0:
        return ("no parameters at all: create w_q, w_k, w_v and w_o in __init__ as attributes of self "
                "(a layer made in forward, or kept in a plain list, is not registered)",
                "ningún parámetro: crea w_q, w_k, w_v y w_o en __init__ como atributos de self "
                "(una capa creada en forward, o guardada en una lista normal, no se registra)")
    matrices, rest = divmod(n, d_model * d_model)
    biases = rest // d_model
    if rest % d_model or biases > matrices:
        return (f"{n:,} is not a whole number of {d_model}x{d_model} projections with their biases: check the "
                f"sizes, the four projections together map d_model -> d_model ({d_model} -> {d_model})",
                f"{n:,} no es un número entero de proyecciones {d_model}x{d_model} con sus sesgos: revisa los "
                f"tamaños, las cuatro proyecciones juntas van de d_model a d_model ({d_model} -> {d_model})")
    found_en = f"that is {matrices} weight matrices of {d_model}x{d_model} and {biases} biases of {d_model}"
    found_es = f"eso son {matrices} matrices de pesos de {d_model}x{d_model} y {biases} sesgos de {d_model}"
    if matrices == 4 and biases < 4:
        return (f"{found_en}: {4 - biases} bias vector(s) missing; the projections are nn.Linear with their bias "
                "(the default), look for bias=False (unlike lecture notebook 002, whose projections have none; "
                "lectures 000, 001 and 003 keep them, as the course does)",
                f"{found_es}: faltan {4 - biases} vector(es) de sesgo; las proyecciones son nn.Linear con su bias "
                "(el valor por defecto), busca bias=False (a diferencia del cuaderno de clase 002, cuyas "
                "proyecciones no lo tienen; los cuadernos 000, 001 y 003 lo conservan, como el curso)")
    if matrices == 3:
        return (f"{found_en}: one whole d_model x d_model projection is missing, usually the output projection w_o",
                f"{found_es}: falta una proyección entera de d_model x d_model, normalmente la de salida w_o")
    if matrices == 5:
        return (f"{found_en}: one d_model x d_model projection too many; there are exactly four: w_q, w_k, w_v, w_o",
                f"{found_es}: sobra una proyección de d_model x d_model; son exactamente cuatro: w_q, w_k, w_v, w_o")
    return (f"{found_en}; expected 4 and 4 (w_q, w_k, w_v, w_o)",
            f"{found_es}; se esperaban 4 y 4 (w_q, w_k, w_v, w_o)")


def test_parameter_count():
    """Does MultiHeadAttention(256, 8) have 4 * (256 * 256 + 256) = 263,168 parameters?"""
    mha = MultiHeadAttention(256, 8)
    n = sum(p.numel() for p in mha.parameters())
    en, es = _count_hint(n, 256)
    assert n == 263_168, (
        f"MultiHeadAttention(256, 8) has {n:,} parameters, expected 263,168 = 4 * (256*256 + 256) "
        f"(w_q, w_k, w_v, w_o, each with weight and bias); {en}. Yours: {_parameters(mha)} / "
        f"MultiHeadAttention(256, 8) tiene {n:,} parámetros y se esperaban 263,168 = 4 * (256*256 + 256) "
        f"(w_q, w_k, w_v, w_o, cada una con pesos y sesgo); {es}. Los tuyos: {_parameters(mha)}"
    )


def _pair(result, call):
    """Check that forward returned a pair (output, weights), and return it."""
    assert not isinstance(result, torch.Tensor), (
        f"{call} returned one tensor of shape {_shape(result)}; forward must return a pair (output, weights), "
        "with weights None unless need_weights=True (unlike lecture notebook 000, whose attention returns the "
        "output only) / "
        f"{call} devolvió un solo tensor de forma {_shape(result)}; forward debe devolver un par (salida, pesos), "
        "con pesos None salvo si need_weights=True (a diferencia del cuaderno de clase 000, cuya atención solo "
        "devuelve la salida)"
    )
    return result


def _weights_hint(shape):
    """What a wrong shape of the attention weights (expected (2, 4, 5, 9)) points to, in both languages."""
    if shape == (2, 5, 4, 9):
        return (" The heads sit in dim 2 instead of dim 1: after splitting each projection into (B, T, h, d_k), "
                "move the heads in front with transpose(1, 2) before attending",
                " Las cabezas están en la dim 2 y no en la 1: tras partir cada proyección en (B, T, h, d_k), "
                "pasa las cabezas delante con transpose(1, 2) antes de la atención")
    if shape == (2, 4, 9, 5):
        return (" Rows and columns are swapped: the rows are the queries (T_q = 5) and the columns the keys "
                "(T_k = 9); check that q comes from query and k from key",
                " Filas y columnas intercambiadas: las filas son las consultas (T_q = 5) y las columnas las claves "
                "(T_k = 9); comprueba que q sale de query y k de key")
    if shape == (2, 5, 9):
        return (" The heads dimension is missing: return one attention map per head, not their average",
                " Falta la dimensión de las cabezas: devuelve un mapa de atención por cabeza, no su media")
    return "", ""


def _output_hint(shape):
    """What a wrong cross-attention output shape (expected (2, 5, 32)) points to, in both languages."""
    if shape == (2, 9, 32):
        return (" The output has T_k = 9 positions instead of T_q = 5: its length follows the queries; check "
                "that q is projected from query and that the heads are merged back with T_q",
                " La salida tiene T_k = 9 posiciones en vez de T_q = 5: su longitud es la de las consultas; "
                "comprueba que q se proyecta desde query y que las cabezas se unen de nuevo con T_q")
    return "", ""


def test_self_and_cross_attention_shapes():
    """Do self- and cross-attention give (B, T_q, d_model) and weights (B, h, T_q, T_k)?"""
    mha = MultiHeadAttention(32, 4)
    x, memory = torch.randn(2, 5, 32), torch.randn(2, 9, 32)
    call = "mha(x, memory, memory, need_weights=True)"
    out, weights = _pair(mha(x, memory, memory, need_weights=True), call)
    length_en, length_es = _output_hint(_shape(out))
    assert _shape(out) == (2, 5, 32), (
        f"cross-attention {call} with x (2, 5, 32) and memory (2, 9, 32): output shape {_shape(out)}, expected "
        f"(B, T_q, d_model) = (2, 5, 32).{length_en} / atención cruzada {call} con x (2, 5, 32) y memory "
        f"(2, 9, 32): la salida tiene forma {_shape(out)} y se esperaba (B, T_q, d_model) = (2, 5, 32).{length_es}"
    )
    assert weights is not None, (
        f"{call} returned None as the weights: with need_weights=True forward must return the attention weights "
        f"(B, h, T_q, T_k) / {call} devolvió None como pesos: con need_weights=True forward debe devolver los pesos "
        "de atención (B, h, T_q, T_k)"
    )
    hint_en, hint_es = _weights_hint(_shape(weights))
    assert _shape(weights) == (2, 4, 5, 9), (
        f"cross-attention {call} with 4 heads: weights shape {_shape(weights)}, expected (B, h, T_q, T_k) = "
        f"(2, 4, 5, 9).{hint_en} / atención cruzada {call} con 4 cabezas: los pesos tienen forma "
        f"{_shape(weights)} y se esperaba (B, h, T_q, T_k) = (2, 4, 5, 9).{hint_es}"
    )
    out, weights = _pair(mha(x, x, x), "mha(x, x, x)")
    assert _shape(out) == (2, 5, 32), (
        f"self-attention mha(x, x, x) with x (2, 5, 32): output shape {_shape(out)}, expected (B, T, d_model) = "
        f"(2, 5, 32) / autoatención mha(x, x, x) con x (2, 5, 32): la salida tiene forma {_shape(out)} y se "
        "esperaba (B, T, d_model) = (2, 5, 32)"
    )
    assert weights is None, (
        f"mha(x, x, x) returned weights of shape {_shape(weights)}; without need_weights=True (the default is False) "
        "the second value must be None / mha(x, x, x) devolvió pesos de forma "
        f"{_shape(weights)}; sin need_weights=True (por defecto es False) el segundo valor debe ser None"
    )


def _largest(t):
    """The largest |value| of a tensor, rounded to 4 decimals (for messages)."""
    return round(float(t.detach().abs().max()), 4) if t.numel() else None


def _mask_hint(weights):
    """What nonzero weights on the hidden keys 2, 3 point to, in both languages."""
    hidden, shown = weights[..., 2:].detach(), weights[..., :2].detach()
    if bool((shown == 0).all()) and bool((hidden != 0).any()):
        return ("Keys 0, 1 got zero weight instead: the mask is inverted; True means the key may be attended to, "
                "False hides it",
                "En cambio las claves 0, 1 tienen peso cero: la máscara está invertida; True significa que la "
                "clave se puede atender y False la oculta")
    if bool(torch.isnan(weights).any()):
        return ("The weights contain NaN: check how the masked scores are filled before the softmax",
                "Los pesos contienen NaN: revisa cómo se rellenan las puntuaciones enmascaradas antes del softmax")
    return ("Check that forward passes mask on to scaled_dot_product_attention (a mask of shape (B, 1, 1, T_k) "
            "broadcasts over the heads and the queries as it is)",
            "Comprueba que forward pasa mask a scaled_dot_product_attention (una máscara de forma (B, 1, 1, T_k) "
            "se difunde tal cual sobre las cabezas y las consultas)")


def test_padding_mask_hides_keys():
    """Does a (B, 1, 1, T_k) mask give the hidden keys zero weight in every head?"""
    mha = MultiHeadAttention(16, 2)
    x = torch.randn(1, 4, 16)
    mask = torch.tensor([True, True, False, False]).view(1, 1, 1, 4)
    _, weights = _pair(mha(x, x, x, mask=mask, need_weights=True), "mha(x, x, x, mask=mask, need_weights=True)")
    assert weights is not None, (
        "mha(x, x, x, mask=mask, need_weights=True) returned None as the weights: with need_weights=True forward "
        "must return the attention weights / mha(x, x, x, mask=mask, need_weights=True) devolvió None como pesos: "
        "con need_weights=True forward debe devolver los pesos de atención"
    )
    hint_en, hint_es = _mask_hint(weights)
    assert torch.all(weights[..., 2:] == 0), (
        f"mask [True, True, False, False] hides keys 2 and 3, so they must get exactly 0 weight in every head and "
        f"row; the largest weight they got is {_largest(weights[..., 2:])}. {hint_en} / la máscara "
        "[True, True, False, False] oculta las claves 2 y 3, así que deben tener peso exactamente 0 en toda cabeza "
        f"y fila; el mayor peso que recibieron es {_largest(weights[..., 2:])}. {hint_es}"
    )


def test_indivisible_sizes_are_a_clear_error():
    """Does d_model = 10 with 3 heads raise a ValueError that names both numbers?"""
    raised = None
    try:
        MultiHeadAttention(10, 3)
    except (ValueError, AssertionError) as error:
        raised = error
    assert raised is not None, (
        "MultiHeadAttention(10, 3) raised nothing, but 10 is not divisible by 3 heads: __init__ must raise a "
        "ValueError that names d_model and num_heads / MultiHeadAttention(10, 3) no lanzó nada, pero 10 no es "
        "divisible entre 3 cabezas: __init__ debe lanzar un ValueError que nombre d_model y num_heads"
    )
    assert isinstance(raised, ValueError), (
        f"MultiHeadAttention(10, 3) failed an assert ({raised!r}) instead of raising a ValueError: check the sizes "
        "with an if and raise ValueError(...) / MultiHeadAttention(10, 3) falló un assert "
        f"({raised!r}) en vez de lanzar un ValueError: comprueba los tamaños con un if y lanza ValueError(...)"
    )
    message = str(raised)
    assert "10" in message and "3" in message, (
        f"MultiHeadAttention(10, 3) raised ValueError({message!r}); its message should name d_model=10 and "
        "num_heads=3, so that the user sees which sizes do not divide / MultiHeadAttention(10, 3) lanzó "
        f"ValueError({message!r}); su mensaje debería nombrar d_model=10 y num_heads=3, para que quien lo use vea "
        "qué tamaños no son divisibles"
    )


def _torch_twin(mha):
    """torch.nn.MultiheadAttention with the same weights: w_q, w_k, w_v stacked as its input
    projection, w_o as its output projection."""
    twin = torch.nn.MultiheadAttention(mha.d_model, mha.num_heads, batch_first=True)
    with torch.no_grad():
        twin.in_proj_weight.copy_(torch.cat([mha.w_q.weight, mha.w_k.weight, mha.w_v.weight]))
        twin.in_proj_bias.copy_(torch.cat([mha.w_q.bias, mha.w_k.bias, mha.w_v.bias]))
        twin.out_proj.weight.copy_(mha.w_o.weight)
        twin.out_proj.bias.copy_(mha.w_o.bias)
    return twin.eval()


def test_cross_attention_matches_torch_with_the_same_weights():
    """Does attention with its own key and value tensors and a padding mask give the output and
    per-head weights of torch.nn.MultiheadAttention holding the same four projections?"""
    torch.manual_seed(10)
    mha = MultiHeadAttention(16, 4).eval()
    query, key, value = torch.randn(2, 3, 16), torch.randn(2, 5, 16), torch.randn(2, 5, 16)
    keep = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])  # (B, T_k)
    with torch.no_grad():
        output, weights = mha(query, key, value, keep[:, None, None, :], need_weights=True)
        want, want_weights = _torch_twin(mha)(query, key, value, key_padding_mask=~keep, average_attn_weights=False)
    assert isinstance(weights, torch.Tensor) and weights.shape == (2, 4, 3, 5), (
        f"with need_weights=True the weights should have shape (B, h, T_q, T_k) = (2, 4, 3, 5), got {_shape(weights)}"
        f" / con need_weights=True los pesos deben tener forma (B, h, T_q, T_k) = (2, 4, 3, 5), pero son "
        f"{_shape(weights)}")
    torch.testing.assert_close(weights, want_weights, msg=lambda m: (
        "each head's attention weights differ from torch's: split w_q(query) and w_k(key) into heads with "
        ".view(B, T, h, d_k).transpose(1, 2), so head i uses rows i*d_k:(i+1)*d_k, and pass the mask / los pesos de "
        "cada cabeza no coinciden con los de torch: divide w_q(query) y w_k(key) en cabezas con .view(B, T, h, d_k)"
        f".transpose(1, 2), para que la cabeza i use las filas i*d_k:(i+1)*d_k, y pasa la máscara\n{m}"))
    with torch.no_grad():
        no_w_o = _torch_twin(mha)
        no_w_o.out_proj.weight.copy_(torch.eye(16))
        no_w_o.out_proj.bias.zero_()
        bare, _ = no_w_o(query, key, value, key_padding_mask=~keep)
    if torch.allclose(output, bare, atol=1e-5):
        hint = ("that is the heads' concatenation without the output projection: return w_o(concat)",
                "es la concatenación de las cabezas sin la proyección de salida: devuelve w_o(concat)")
    else:
        hint = ("the weights match, so look at what they multiply and how heads are merged: the values come from "
                "w_v(value) (not the keys), and (B, h, T_q, d_k) goes back with .transpose(1, 2) before "
                ".reshape(B, T_q, d_model), then w_o",
                "los pesos coinciden, así que revisa qué multiplican y cómo se juntan las cabezas: los valores salen "
                "de w_v(value) (no de las claves), y (B, h, T_q, d_k) vuelve con .transpose(1, 2) antes de "
                ".reshape(B, T_q, d_model), y luego w_o")
    torch.testing.assert_close(output, want, msg=lambda m: (
        f"the output differs from torch.nn.MultiheadAttention with the same weights; {hint[0]} / la salida no "
        f"coincide con torch.nn.MultiheadAttention con los mismos pesos; {hint[1]}\n{m}"))


def test_a_square_causal_mask_matches_torch():
    """Does a (T, T) causal mask (broadcast over batch and heads) give the output of
    torch.nn.MultiheadAttention with the same weights and the same mask?"""
    torch.manual_seed(11)
    mha = MultiHeadAttention(16, 4).eval()
    x = torch.randn(2, 5, 16)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()  # True = may attend
    with torch.no_grad():
        output, _ = mha(x, x, x, causal)
        want, _ = _torch_twin(mha)(x, x, x, attn_mask=~causal)  # torch's True = may NOT attend
    torch.testing.assert_close(output, want, msg=lambda m: (
        "with a (T, T) causal mask the output differs from torch.nn.MultiheadAttention with the same weights and "
        "mask: pass the mask on to the attention as it is, it broadcasts to (B, h, T, T) / con una máscara causal "
        "(T, T) la salida no coincide con torch.nn.MultiheadAttention con los mismos pesos y máscara: pasa la "
        f"máscara a la atención tal cual, se extiende a (B, h, T, T)\n{m}"))


def test_attention_dropout_only_in_training():
    """With dropout 0.5, does training mode drop attention weights (and double the kept ones)
    while eval mode gives exactly the output without dropout?"""
    torch.manual_seed(12)
    mha, x = MultiHeadAttention(16, 4, dropout=0.5), torch.randn(2, 6, 16)
    mha.train()
    trained, _ = mha(x, x, x)
    mha.eval()
    with torch.no_grad():
        evaluated, _ = mha(x, x, x)
        want, _ = _torch_twin(mha)(x, x, x)
    assert not torch.allclose(trained, evaluated), (
        "in training mode with dropout 0.5 the output equals the eval output: apply self.dropout to the attention "
        "weights and use the result / en modo entrenamiento con dropout 0.5 la salida es igual a la de eval: "
        "aplica self.dropout a los pesos de atención y usa el resultado")
    torch.testing.assert_close(evaluated, want, msg=lambda m: (
        "in eval mode the output should be attention without dropout: use the module self.dropout (it does "
        "nothing in eval mode) / en modo eval la salida debe ser la atención sin dropout: usa el módulo "
        f"self.dropout (no hace nada en modo eval)\n{m}"))
    # Identity value and output projections and one-hot values (key t of head j is 1 in its
    # slot t) make each output the weight itself: out[b, i, 4 * j + t] = weights[b, j, i, t].
    # In training mode each must then be dropped (0) or kept and scaled by 1/(1 - p) = 2.
    with torch.no_grad():
        for layer in (mha.w_v, mha.w_o):
            layer.weight.copy_(torch.eye(16))
            layer.bias.zero_()
        value = torch.eye(4).repeat(2, 1, 4)  # (2, 4, 16): key t is one-hot at t in each head's 4 slots
        query, key = torch.randn(2, 3, 16), torch.randn(2, 4, 16)
        plain, _ = mha.eval()(query, key, value)
        dropped, _ = mha.train()(query, key, value)
    ok = (dropped == 0) | torch.isclose(dropped, 2 * plain, atol=1e-6, rtol=1e-5)
    assert bool(ok.all()) and bool((dropped == 0).any()), (
        "with dropout 0.5, identity projections and one-hot values, each training-mode output is one attention "
        "weight after dropout, so it must be 0 or twice the eval-mode one (nn.Dropout scales what it keeps by "
        f"1/(1 - p) = 2); {int((~ok).sum())} of {ok.numel()} are neither. Use out = self.dropout(weights) @ V and "
        "nothing more: no renormalisation, no second dropout after w_o, not added to the undropped output / con "
        "dropout 0.5, proyecciones identidad y valores one-hot, cada salida en modo entrenamiento es un peso de "
        "atención tras el dropout, así que debe valer 0 o el doble de la de modo evaluación (nn.Dropout escala lo "
        f"que conserva por 1/(1 - p) = 2); {int((~ok).sum())} de {ok.numel()} no son ninguna de las dos. Usa out = "
        "self.dropout(pesos) @ V y nada más: sin renormalizar, sin un segundo dropout tras w_o, sin sumarlo a la "
        "salida sin dropout")
    mha = MultiHeadAttention(16, 4, dropout=0.0)
    with torch.no_grad():
        silent, _ = mha.train()(x, x, x)
        plain, _ = mha.eval()(x, x, x)
    assert torch.allclose(silent, plain), (
        "MultiHeadAttention(16, 4, dropout=0.0) gives another output in training mode than in eval mode: a dropout "
        "acts with a rate of its own. Build it from the argument, self.dropout = nn.Dropout(dropout) / "
        "MultiHeadAttention(16, 4, dropout=0.0) da otra salida en modo entrenamiento que en modo evaluación: un "
        "dropout actúa con una tasa propia. Créalo a partir del argumento, self.dropout = nn.Dropout(dropout)")


def test_weights_are_none_unless_asked_for():
    """Without need_weights=True, is the second output None?"""
    torch.manual_seed(11)
    x = torch.randn(2, 3, 8)
    _, weights = _pair(MultiHeadAttention(8, 2)(x, x, x), "MultiHeadAttention(8, 2)(x, x, x)")
    assert weights is None, (
        f"MultiHeadAttention(8, 2)(x, x, x) returned weights of shape {_shape(weights)} without need_weights=True: "
        "return (self.w_o(out), weights if need_weights else None), as nn.MultiheadAttention does / "
        f"MultiHeadAttention(8, 2)(x, x, x) devolvió pesos de forma {_shape(weights)} sin need_weights=True: "
        "devuelve (self.w_o(out), weights if need_weights else None), como nn.MultiheadAttention")
