"""Public tests for positional.py. Run them with ``pytest assignments/a3_blocks``."""

import math

import torch

from positional import PositionalEncoding


def _rounded(t):
    """A tensor's values as a compact list, rounded to 4 decimals (for messages)."""
    return torch.as_tensor(t).detach().double().round(decimals=4).tolist()


def _shape(t):
    """A shape as a plain tuple, or what the value is when it is not a tensor (for messages)."""
    if isinstance(t, torch.Tensor):
        return tuple(t.shape)
    return "None" if t is None else f"{type(t).__name__} {t!r:.60}"


def _rows(table):
    """The table as ``(max_len, d_model)``: lecture 000 stores it as ``(1, max_len, d_model)``
    (and adds ``pe[:, :T]``), which is right too, so a leading axis of size 1 is dropped."""
    if isinstance(table, torch.Tensor) and table.dim() == 3 and table.size(0) == 1:
        return table[0]
    return table


def _near(a, b, tol=1e-4):
    """Are two tensors of the same shape equal up to ``tol`` (to recognise a mistake, not to grade)?"""
    return a.shape == b.shape and bool(((a - b).abs() <= tol).all())


def _table_hint(got, want):
    """What a wrong course table points to, in both languages, recognised from the course table
    itself: its columns swapped in pairs, split in halves, shifted by a row, or a wrong second
    frequency read off row 1."""
    a, e = got.detach().double(), want.double()
    d_model = e.shape[1]
    pairs_swapped = torch.arange(d_model).view(-1, 2).flip(1).flatten()
    if _near(a, e[:, pairs_swapped]):
        return ("sin and cos are swapped: sines go in the even columns 0, 2, ..., cosines in the odd ones 1, 3, ...",
                "sin y cos están intercambiados: los senos van en las columnas pares 0, 2, ..., los cosenos en las "
                "impares 1, 3, ...")
    if _near(a, torch.cat([e[:, 0::2], e[:, 1::2]], dim=1)):
        return ("sines in the first half and cosines in the second: they must be interleaved, sines in the even "
                "columns and cosines in the odd ones",
                "senos en la primera mitad y cosenos en la segunda: deben ir intercalados, senos en las columnas "
                "pares y cosenos en las impares")
    if _near(a[:-1], e[1:]):
        return ("every row is the next position's: positions start at 0 (row 0 is sin 0 = 0, cos 0 = 1)",
                "cada fila es la de la posición siguiente: las posiciones empiezan en 0 (la fila 0 es sin 0 = 0, "
                "cos 0 = 1)")
    if _near(a[:, 0::2], e[:, 0::2]) and bool((a[:, 1::2] == 0).all()):
        return ("the odd columns are all zero: the cosines are missing",
                "las columnas impares son todas cero: faltan los cosenos")
    if _near(a[:, 1::2], e[:, 1::2]) and bool((a[:, 0::2] == 0).all()):
        return ("the even columns are all zero: the sines are missing",
                "las columnas pares son todas cero: faltan los senos")
    if _near(a[:, :2], e[:, :2]):
        # Pair i = 1 (columns 2, 3): at pos = 1 its angle is 1 / 10000^(2/d_model); with i in
        # the exponent instead of 2i it is the square root of that, with 4i its square, and
        # with the sign of the exponent flipped its inverse.
        angle = math.atan2(e[1, 2], e[1, 3])
        candidates = [
            (math.sqrt(angle),
             "the exponent uses i (0, 1, 2, ...) instead of 2i (0, 2, 4, ..., the even column index)",
             "el exponente usa i (0, 1, 2, ...) en vez de 2i (0, 2, 4, ..., el índice de la columna par)"),
            (angle ** 2,
             "the exponent uses 4i: the even column index 0, 2, 4, ... is already 2i, do not double it",
             "el exponente usa 4i: el índice de columna par 0, 2, 4, ... ya es 2i, no lo dupliques"),
            (1 / angle,
             "pos is multiplied by 10000^(2i/d_model) instead of divided: check the exponent's sign",
             "pos se multiplica por 10000^(2i/d_model) en vez de dividirse: revisa el signo del exponente"),
        ]
        for wrong, en, es in candidates:
            if abs(a[1, 2] - math.sin(wrong)) < 1e-4 and abs(a[1, 3] - math.cos(wrong)) < 1e-4:
                return ("columns 0, 1 are right but the next frequencies are not: " + en,
                        "las columnas 0, 1 están bien pero las frecuencias siguientes no: " + es)
        return ("columns 0, 1 (frequency 1) are right but the next ones are not: check the frequencies "
                "1/10000^(2i/d_model), with 2i = 0, 2, 4, ... the even column index, base 10000, dividing pos",
                "las columnas 0, 1 (frecuencia 1) están bien pero las siguientes no: revisa las frecuencias "
                "1/10000^(2i/d_model), con 2i = 0, 2, 4, ... el índice de la columna par, base 10000, dividiendo pos")
    return ("compare it with the formula in the module's docstring",
            "compárala con la fórmula del docstring del módulo")


def _shape_hint(shape):
    """What a wrong shape of the (6, 4) course table points to, in both languages."""
    if shape == (6, 1, 4):
        return (" (yours is (max_len, 1, d_model), the sequence-first layout of lecture notebooks 001 and 003: "
                "here x is (B, T, d_model), batch first; (1, max_len, d_model), as in lecture 000, is accepted too)",
                " (la tuya es (max_len, 1, d_model), el formato secuencia primero de los cuadernos de clase 001 y "
                "003: aquí x es (B, T, d_model), lote primero; (1, max_len, d_model), como en el cuaderno 000, "
                "también se acepta)")
    if shape == (4, 6):
        return " (yours is transposed: one row per position)", " (la tuya está traspuesta: una fila por posición)"
    return "", ""


def test_course_table(course_data):
    """Is the table for d_model = 4, max_len = 6 the course's?"""
    data = course_data("a3_blocks/positional_encoding.json")
    pe = PositionalEncoding(data["d_model"], data["max_len"])
    expected = torch.tensor(data["pe"])
    table = _rows(getattr(pe, "pe", None))
    assert isinstance(table, torch.Tensor), (
        f"PositionalEncoding(4, 6).pe is {_shape(table)}, expected a tensor of shape (max_len, d_model) = (6, 4): "
        "build the table in __init__ as a local pe and keep the given line that registers it / "
        f"PositionalEncoding(4, 6).pe es {_shape(table)} y se esperaba un tensor de forma (max_len, d_model) = "
        "(6, 4): construye la tabla en __init__ como una variable local pe y conserva la línea dada que la registra"
    )
    shape_en, shape_es = _shape_hint(tuple(table.shape))
    assert table.shape == expected.shape, (
        f"PositionalEncoding(4, 6).pe has shape {_shape(table)}, expected (max_len, d_model) = (6, 4){shape_en} / "
        f"PositionalEncoding(4, 6).pe tiene forma {_shape(table)} y se esperaba (max_len, d_model) = (6, 4){shape_es}"
    )
    assert table.dtype == expected.dtype, (
        f"PositionalEncoding(4, 6).pe has dtype {table.dtype}, expected {expected.dtype} (torch's default): build "
        f"the table from float32 tensors, not float64 ones or NumPy arrays / PositionalEncoding(4, 6).pe tiene "
        f"dtype {table.dtype} y se esperaba {expected.dtype} (el de torch por defecto): construye la tabla con "
        "tensores float32, no float64 ni arrays de NumPy"
    )

    def message(default):
        wrong = ((table.detach().double() - expected.double()).abs() > data["atol"]).any(dim=1)
        rows = wrong.nonzero().flatten().tolist()
        row = rows[0] if rows else 0
        en, es = _table_hint(table, expected)
        return (f"PositionalEncoding(4, 6).pe differs from the course table in rows {rows}, e.g. row {row} is "
                f"{_rounded(table[row])}, expected {_rounded(expected[row])}; {en} / PositionalEncoding(4, 6).pe "
                f"difiere de la tabla del curso en las filas {rows}, p. ej. la fila {row} es {_rounded(table[row])} "
                f"y se esperaba {_rounded(expected[row])}; {es}\n{default}")

    torch.testing.assert_close(table, expected, atol=data["atol"], rtol=0, msg=message)


def test_far_positions_follow_the_formula():
    """For max_len = 1000, do far rows (257, 600, 999) hold sin/cos of pos / 10000^(2i/d_model),
    computed from exact positions?"""
    d_model, rows = 16, [0, 1, 257, 600, 999]
    table = _rows(PositionalEncoding(d_model, max_len=1000).pe)
    assert isinstance(table, torch.Tensor) and table.shape == (1000, d_model), (
        f"PositionalEncoding({d_model}, max_len=1000).pe must have shape (1000, {d_model}), got {_shape(table)} / "
        f"PositionalEncoding({d_model}, max_len=1000).pe debe tener forma (1000, {d_model}), pero tiene "
        f"{_shape(table)}")
    pos = torch.tensor(rows, dtype=torch.float64)[:, None]
    angle = pos / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    expected = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)  # columns sin, cos, sin, cos, ...
    got = table[rows].double()
    bad = [r for r, g, e in zip(rows, got, expected) if not bool(((g - e).abs() <= 1e-3).all())]
    assert not bad, (
        f"rows {bad} of PositionalEncoding({d_model}, max_len=1000).pe differ from sin/cos(pos / "
        f"10000^(2i/d_model)) by more than 0.001 (row {bad[0]}: got {_rounded(got[rows.index(bad[0])][:4])}..., "
        f"expected {_rounded(expected[rows.index(bad[0])][:4])}...); the near rows may be right: build the "
        "positions in float32 or float64 (bfloat16 and float16 cannot hold every integer above 256, or 2048), and "
        "compute the angles the same way for every row / las filas "
        f"{bad} de PositionalEncoding({d_model}, max_len=1000).pe difieren de sin/cos(pos / 10000^(2i/d_model)) en "
        f"más de 0,001 (fila {bad[0]}: {_rounded(got[rows.index(bad[0])][:4])}..., se esperaba "
        f"{_rounded(expected[rows.index(bad[0])][:4])}...); las filas cercanas pueden estar bien: construye las "
        "posiciones en float32 o float64 (bfloat16 y float16 no pueden representar todos los enteros por encima de "
        "256, o de 2048) y calcula los ángulos igual para todas las filas")


def test_pe_is_a_buffer_not_a_parameter():
    """Is pe a registered buffer (saved, moved with .to) and not trained?"""
    pe = PositionalEncoding(8, max_len=10)
    buffers, parameters = dict(pe.named_buffers()), dict(pe.named_parameters())
    if "pe" in parameters:
        where_en = ("it is registered as an nn.Parameter, so it counts among the model's parameters; it must be a "
                    "buffer: keep the given register_buffer line")
        where_es = ("está registrado como nn.Parameter, así que cuenta entre los parámetros del modelo; debe ser un "
                    "buffer: conserva la línea dada con register_buffer")
    elif isinstance(getattr(pe, "pe", None), torch.Tensor):
        where_en = ("it is a plain attribute, so it is neither saved in state_dict nor moved by .to(device): keep the "
                    "given register_buffer line and do not assign self.pe yourself")
        where_es = ("es un atributo normal, así que ni se guarda en state_dict ni se mueve con .to(device): conserva "
                    "la línea dada con register_buffer y no asignes self.pe por tu cuenta")
    else:
        where_en, where_es = "there is no pe at all", "no hay ningún pe"
    assert "pe" in buffers, (
        f"PositionalEncoding(8, max_len=10): pe is not among the buffers {sorted(buffers)}; {where_en} / "
        f"PositionalEncoding(8, max_len=10): pe no está entre los buffers {sorted(buffers)}; {where_es}"
    )
    assert not parameters, (
        f"PositionalEncoding(8, max_len=10) has parameters {sorted(parameters)}: the sinusoidal table is fixed, "
        "nothing here is trained, so the module must have none / PositionalEncoding(8, max_len=10) tiene "
        f"parámetros {sorted(parameters)}: la tabla sinusoidal es fija, aquí no se entrena nada, así que el módulo "
        "no debe tener ninguno"
    )


def _forward_hint(out, x, rows, table):
    """What a wrong forward (expected x + rows) points to, in both languages."""
    d_model = x.shape[-1]
    o, x, rows = out.detach().double(), x.double(), rows.detach().double()
    if _near(o, rows.expand_as(o)):
        return ("it returns the table rows without adding x", "devuelve las filas de la tabla sin sumar x")
    if _near(o, x):
        return ("it returns x unchanged: add the first T rows of pe", "devuelve x sin cambios: suma las T primeras "
                                                                       "filas de pe")
    if _near(o, x * math.sqrt(d_model) + rows):
        return ("it scales x by sqrt(d_model): that belongs to the Transformer's embedding, not here",
                "escala x por sqrt(d_model): eso corresponde al embedding del Transformer, no aquí")
    T = x.shape[1]
    if table.shape[0] > T and _near(o, x + table[1:T + 1].detach().double()):
        return ("it adds rows 1..T of pe instead of rows 0..T-1", "suma las filas 1..T de pe en vez de las 0..T-1")
    if bool(((o == 0) & ((x + rows) != 0)).any()):
        return ("some outputs are exactly 0: is there a dropout in forward? This module has none (in the Transformer "
                "the dropout comes after it)",
                "algunas salidas son exactamente 0: ¿hay un dropout en forward? Este módulo no tiene (en el "
                "Transformer el dropout va después)")
    return ("forward must return x + pe[:T], with T = x.size(1), the same rows for every sequence of the batch",
            "forward debe devolver x + pe[:T], con T = x.size(1), las mismas filas para cada secuencia del lote")


def test_forward_adds_the_first_rows():
    """Does forward add pe[:T] to every sequence of the batch?"""
    pe = PositionalEncoding(6, max_len=20)
    x = torch.randn(3, 7, 6)
    out = pe(x)
    table = _rows(pe.pe)
    try:
        expected = x + table[:7]
    except RuntimeError:
        expected = None
    assert expected is not None, (
        f"x (3, 7, 6) + pe[:7] does not broadcast: PositionalEncoding(6, max_len=20).pe has shape {_shape(pe.pe)}, "
        "expected (max_len, d_model) = (20, 6), or (1, 20, 6) as in lecture notebook 000 / x (3, 7, 6) + pe[:7] no "
        f"se puede difundir: PositionalEncoding(6, max_len=20).pe tiene forma {_shape(pe.pe)} y se esperaba "
        "(max_len, d_model) = (20, 6), o (1, 20, 6) como en el cuaderno de clase 000"
    )
    assert isinstance(out, torch.Tensor) and out.shape == expected.shape, (
        f"PositionalEncoding(6, max_len=20)(x) with x (3, 7, 6) gave {_shape(out)}, expected the shape of x, "
        f"(B, T, d_model) = (3, 7, 6) / PositionalEncoding(6, max_len=20)(x) con x (3, 7, 6) dio {_shape(out)} y "
        "se esperaba la forma de x, (B, T, d_model) = (3, 7, 6)"
    )
    assert out.dtype == expected.dtype, (
        f"the output has dtype {out.dtype}, expected {expected.dtype} (that of x + pe[:T]) / la salida tiene dtype "
        f"{out.dtype} y se esperaba {expected.dtype} (el de x + pe[:T])"
    )

    def message(default):
        en, es = _forward_hint(out, x, table[:7], table)
        return (f"PositionalEncoding(6, max_len=20)(x) with x (3, 7, 6) should be x + pe[:7] (T = 7), the same rows "
                f"added to each of the 3 sequences, but {en} / PositionalEncoding(6, max_len=20)(x) con x (3, 7, 6) "
                f"debería ser x + pe[:7] (T = 7), las mismas filas sumadas a cada una de las 3 secuencias, pero {es}"
                f"\n{default}")

    torch.testing.assert_close(out, expected, msg=message)


def test_the_gradient_reaches_x():
    """Does the gradient of pe(x).sum() reach x, one for every entry (the table adds a constant)?"""
    x = torch.randn(2, 5, 6, requires_grad=True)
    out = PositionalEncoding(6, max_len=20)(x)
    assert out.requires_grad, (
        "PositionalEncoding(6, max_len=20)(x) is cut from the graph (x.detach(), x.data or torch.no_grad): no gradient "
        "would reach the embeddings, which then never train; add the rows of the table to x itself / "
        "PositionalEncoding(6, max_len=20)(x) está separado del grafo (x.detach(), x.data o torch.no_grad): ningún "
        "gradiente llegaría a los embeddings, que nunca se entrenarían; suma las filas de la tabla al propio x"
    )
    out.sum().backward()
    assert x.grad is not None and torch.equal(x.grad, torch.ones_like(x)), (
        "the gradient of PositionalEncoding(6, max_len=20)(x).sum() with respect to x should be 1 everywhere (the "
        "table is a constant added to x) / el gradiente de PositionalEncoding(6, max_len=20)(x).sum() respecto a x "
        "debería ser 1 en todas partes (la tabla es una constante sumada a x)"
    )
