"""Hidden graders for a3_blocks/positional.py.

Over 350 lines: a wrong table is read column by column as waves (which wave, which
frequency, which base, which argument), and those readers belong beside the tests that
use them.
"""


import math

import pytest
import torch

from autograder.grading import checks

PE = "positional.PositionalEncoding"


def table(d_model, max_len, kind=None, base=10000.0):
    """The sinusoidal table, in float64, straight from the paper's formula; or the table
    that the classic mistake ``kind`` builds instead (or one with another ``base``)."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64) * {"i_not_2i": 0.5, "4i_not_2i": 2.0}.get(kind, 1.0)
    exponent = two_i / d_model * (-1 if kind == "positive_exponent" else 1)
    angle = pos / {"base_1000": 1000.0}.get(kind, base) ** exponent
    sin, cos = (angle.cos(), angle.sin()) if kind == "sin_cos_swapped" else (angle.sin(), angle.cos())
    if kind == "frequency_outside":
        omega = 1 / base ** exponent  # (d_model / 2,)
        sin, cos = pos.sin() * omega, pos.cos() * omega
    if kind == "halves":
        return torch.cat([sin, cos], dim=1)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = sin, cos
    return pe


TABLE_MISTAKES = {
    "sin_cos_swapped": ("sin and cos swapped: sines go in the even columns 0, 2, 4, ..., cosines in the odd ones",
                        "sin y cos intercambiados: los senos van en las columnas pares 0, 2, 4, ..., los cosenos en las impares"),
    "halves": ("sines in the first half and cosines in the second half: they must be interleaved (pe[:, 0::2], pe[:, 1::2])",
               "senos en la primera mitad y cosenos en la segunda: deben ir intercalados (pe[:, 0::2], pe[:, 1::2])"),
    "i_not_2i": ("wrong frequencies: the exponent is 2i/d_model with 2i = 0, 2, 4, ..., not i/d_model with i = 0, 1, 2, ...",
                 "frecuencias incorrectas: el exponente es 2i/d_model con 2i = 0, 2, 4, ..., no i/d_model con i = 0, 1, 2, ..."),
    "4i_not_2i": ("wrong frequencies: the exponent is 2i/d_model, but the even column index (already 2i) was doubled again",
                  "frecuencias incorrectas: el exponente es 2i/d_model, pero el índice de columna par (ya 2i) se duplicó otra vez"),
    "positive_exponent": ("wrong frequencies: pos is divided by 10000^(2i/d_model), not multiplied (check the exponent's sign)",
                          "frecuencias incorrectas: pos se divide entre 10000^(2i/d_model), no se multiplica (revisa el signo del exponente)"),
    "frequency_outside": ("the frequency multiplies the sine instead of its angle: sin(pos * ω_i) and cos(pos * ω_i), "
                          "ω_i = 1/10000^(2i/d_model) inside the brackets, not sin(pos) * ω_i",
                          "la frecuencia multiplica el seno en lugar de su ángulo: sin(pos * ω_i) y cos(pos * ω_i), "
                          "ω_i = 1/10000^(2i/d_model) dentro del paréntesis, no sin(pos) * ω_i"),
    "base_1000": ("wrong frequency base: the wavelengths grow as 10000^(2i/d_model), with base 10000",
                  "base de frecuencia incorrecta: las longitudes de onda crecen como 10000^(2i/d_model), con base 10000"),
}


def table_mistakes(d_model, max_len, rows=slice(None), apply=lambda pe: pe):
    """The classic mistakes of the table, each as ``apply`` of the rows it would give."""
    return [checks.Mistake(en, es, output=lambda kind=kind: apply(table(d_model, max_len, kind)[rows]))
            for kind, (en, es) in TABLE_MISTAKES.items()]


def check_table(actual, expected, what, atol, d_model, max_len, rows=slice(None), x=None, mistakes=()):
    """``checks.close`` with the table's mistakes (``x`` + the table if ``x`` is given); a
    float32 table has lost the fast waves' angles (up to 10000 x pos when the exponent's
    sign is wrong), so a failed table is also recognised by rows 0 and 1 of its first
    quarter of columns alone, where 2i/d_model is small and no angle exceeds 100."""
    add = (lambda pe: pe) if x is None else (lambda pe: (x.double() + pe).float())
    try:
        checks.close(actual, expected, what, atol=atol, rtol=0,
                     mistakes=list(mistakes) + table_mistakes(d_model, max_len, rows, apply=add))
    except checks.CheckFailure as failure:
        if failure.named or not isinstance(actual, torch.Tensor) or actual.shape != expected.shape:
            raise
        found_rows = actual.double() if x is None else actual.double() - x.double()
        cols = max(4, d_model // 4)
        found = checks.recognise(found_rows[..., :2, :cols],
                                 table_mistakes(d_model, max_len, rows, apply=lambda pe: pe[:2, :cols]),
                                 lambda a, m: bool(((a - m).abs() <= 2e-3).all()))
        if found:
            raise failure.naming(found) from None
        positions = torch.arange(max_len, dtype=torch.float64)[rows]
        found_rows = found_rows.reshape(-1, len(positions), d_model)
        raise failure.shaped(_scaled(found_rows, table(d_model, max_len)[rows], d_model)
                             or _other_base(found_rows[0], positions, d_model, max_len)
                             or _columns(found_rows, positions, d_model, table(d_model, max_len))) from None


def _scaled(found, pe, d_model):
    """The right rows multiplied by one constant c != 1, named when it is a known one."""
    c = ((found * pe).sum() / (pe * pe).sum()).item()
    if abs(c - 1) < 1e-3 or bool(((found - c * pe).abs() > 1e-3 * max(1.0, abs(c))).any()):
        return None
    known = {"sqrt(d_model)": math.sqrt(d_model), "d_model": float(d_model), "1/sqrt(d_model)": d_model ** -0.5}
    name = next((f" = {k}" for k, v in known.items() if abs(c - v) < 1e-3 * v), "")
    return (f"the table's rows are multiplied by {c:.4g}{name}: the positions are added as they are, x + pe[:T] "
            "(the sqrt(d_model) scaling belongs to the embeddings, in the Transformer, not to the table)",
            f"las filas de la tabla se multiplican por {checks.fmt(c, '.4g', 'es')}{name}: las posiciones se suman "
            "tal cual, x + pe[:T] (el escalado por sqrt(d_model) es de los embeddings, en el Transformer, no de la "
            "tabla)")


def _other_base(rows, positions, d_model, max_len):
    """The paper's table with another base than 10000, read off the slowest-but-one sine
    (column 2, sin(pos / base^(2/d_model))) at position 1, when the whole table fits it."""
    at_one = (positions == 1).nonzero().flatten()
    if d_model < 4 or not len(at_one) or not 0 < rows[at_one[0], 2].item() < 1:
        return None
    exponent = -d_model / 2 * math.log(math.asin(rows[at_one[0], 2].item()))  # log of the base
    if not math.log(1.5) < exponent < math.log(1e12):
        return None
    base = math.exp(exponent)
    near = positions < 64
    # Within 1 % of 10000 the table is the right one read through rounding (float16), not another base.
    if abs(base - 10000) < 100 or bool(
            ((rows[near] - table(d_model, max_len, base=base)[positions.long()][near]).abs() > 2e-3).any()):
        return None
    why = ("", "")
    if abs(base - math.e ** 4) < 1:
        why = (" (math.log10 where the natural log belongs: e^log10(10000) = e^4 = 54.6)",
               " (math.log10 donde va el logaritmo natural: e^log10(10000) = e^4 = 54,6)")
    elif abs(exponent - math.log(10000) * d_model / max_len) < 1e-3 * exponent:
        # 10000^(2i/max_len) = (10000^(d_model/max_len))^(2i/d_model): the base follows the table's length.
        why = (f" (the exponent is 2i/max_len where 2i/d_model belongs: 10000^(d_model/max_len) = {base:.4g})",
               f" (el exponente es 2i/max_len donde va 2i/d_model: 10000^(d_model/max_len) = "
               f"{checks.fmt(base, '.4g', 'es')})")
    return (f"the wavelengths grow with base {base:.4g} instead of 10000: pos / {base:.4g}^(2i/d_model){why[0]}; "
            "the frequencies are exp(-2i * math.log(10000.0) / d_model)",
            f"las longitudes de onda crecen con base {checks.fmt(base, '.4g', 'es')} en lugar de 10000: "
            f"pos / {checks.fmt(base, '.4g', 'es')}^(2i/d_model){why[1]}; las frecuencias son "
            "exp(-2i * math.log(10000.0) / d_model)")


def _column_kind(values, positions, d_model, wanted):
    """Which wave a column of the table holds: ``wanted`` when it fits, else the closest
    fitting ("sin" or "cos", k), f(pos / 10000^(k/d_model)) (k < 0: pos multiplied by
    10000^(-k/d_model)), ("0", None) for zeros, or None. Only the first rows are compared:
    float32 angles drift."""
    near = positions < 64
    values, positions = values[near], positions[near]
    if values.numel() < 2:
        return None
    ks = list(range(-d_model, d_model + 1))
    angles = positions[:, None] / 10000.0 ** (torch.tensor(ks, dtype=positions.dtype) / d_model)  # (n, K)
    # Every candidate's largest error at once, in the order (0), (sin, k), (cos, k), k ascending.
    # A negated wave too: sin(x + pi) = -sin(x) is a half-turn where cos needs a quarter.
    waves = torch.stack([angles.sin(), angles.cos(), -angles.sin(), -angles.cos()], dim=-1).flatten(1)  # (n, 4K)
    errors = torch.cat([values.abs().max()[None], (values[:, None] - waves).abs().max(0).values])
    candidates = [("0", None)] + [(name, k) for k in ks for name in ("sin", "cos", "-sin", "-cos")]
    if errors[candidates.index(wanted)] < 2e-3:
        return wanted
    best = int(errors.argmin())
    return candidates[best] if errors[best] < 2e-3 else None


def _wave(kind, d_model) -> str:
    if kind[0] == "0":
        return "zeros"
    if kind[1] < 0:
        return f"{kind[0]}(pos * 10000^({-kind[1]}/{d_model}))"
    return f"{kind[0]}(pos / 10000^({kind[1]}/{d_model}))"


def _columns(found, positions, d_model, full):
    """The first column of the table that holds another wave than the paper's, or the one
    row of the table that every position got; None when the rows fit neither."""
    rows = found[0]  # (T, d_model): the table rows of the first sequence
    if len(positions) > 1 and (rows - rows[:1]).abs().max() < 1e-4:
        same = ((full - rows[:1]).abs().max(dim=1).values < 2e-3).nonzero().flatten().tolist()
        if same:
            return (f"every position got the same row of the table, pe[{same[0]}]: position t needs row t "
                    "(pe[:T], the first T rows, not pe[T])",
                    f"todas las posiciones recibieron la misma fila de la tabla, pe[{same[0]}]: la posición t necesita "
                    "la fila t (pe[:T], las primeras T filas, no pe[T])")
    wanted = [("sin", j) if j % 2 == 0 else ("cos", j - 1) for j in range(d_model)]
    kinds = [_column_kind(rows[:, j], positions, d_model, wanted[j]) for j in range(d_model)]
    wrong = [j for j in range(d_model) if kinds[j] != wanted[j]]
    unknown = [j for j in wrong if kinds[j] is None]
    if unknown:
        return (_wrong_argument(rows, positions, unknown[0], len(wrong), d_model)
                or _frequency(rows[:, unknown[0]], positions, unknown[0], d_model))
    if not wrong:
        return None
    j = wrong[0]
    parity = {0: "even", 1: "odd"}
    sides = sorted({parity[w % 2] for w in wrong})
    where = f"{len(wrong)} of the {d_model} columns" + (f" (all {sides[0]})" if len(sides) == 1 else "")
    donde = f"{len(wrong)} de las {d_model} columnas" + (
        f" (todas {'pares' if sides[0] == 'even' else 'impares'})" if len(sides) == 1 else "")
    turn = ("", "")
    if kinds[j][0] == "-sin" and wanted[j][0] == "cos":
        turn = (": sin(x + pi) = -sin(x) is half a turn, cos(x) = sin(x + pi/2) a quarter",
                ": sin(x + pi) = -sin(x) es media vuelta, cos(x) = sin(x + pi/2) un cuarto")
    return (f"{where} hold another wave; the first, column {j}, holds {_wave(kinds[j], d_model)} where the paper "
            f"puts {_wave(wanted[j], d_model)} (column 2i: sin, column 2i+1: cos, both with 10000^(2i/d_model))"
            f"{turn[0]}",
            f"{donde} tienen otra onda; la primera, la columna {j}, tiene {_wave(kinds[j], d_model)} donde el "
            f"artículo pone {_wave(wanted[j], d_model)} (columna 2i: sin, columna 2i+1: cos, ambas con "
            f"10000^(2i/d_model)){turn[1]}")


def _wrong_argument(rows, positions, j, n_wrong, d_model):
    """The paper's wave of the right frequency at another argument: one position off
    ((pos ± 1) * freq), or applied to the paired column's values (cos of the sine)."""
    near = positions < 64
    values, pos = rows[near, j], positions[near]
    freq = 10000.0 ** (-(j - j % 2) / d_model)
    wave, name = (torch.sin, "sin") if j % 2 == 0 else (torch.cos, "cos")
    other, other_name = (torch.cos, "cos") if j % 2 == 0 else (torch.sin, "sin")
    columns = f"{n_wrong} of the {d_model} columns", f"{n_wrong} de las {d_model} columnas"
    for shift in (1, -1, 2):
        if bool(((wave((pos + shift) * freq) - values).abs() <= 2e-3).all()):
            at = f"pos {'+' if shift > 0 else '-'} {abs(shift)}"
            steps = {1: ("one position", "una posición"), 2: ("two positions", "dos posiciones")}[abs(shift)]
            return (f"{columns[0]} are off; the first, column {j}, holds {name}(({at}) * {freq:.4g}), the paper's wave "
                    f"{steps[0]} {'ahead' if shift > 0 else 'behind'}: the angle is pos * freq with "
                    "pos = 0, 1, ..., max_len - 1, the same for the sin and the cos columns",
                    f"{columns[1]} están mal; la primera, la columna {j}, tiene {name}(({at}) * "
                    f"{checks.fmt(freq, '.4g', 'es')}), la onda del artículo {steps[1]} "
                    f"{'adelantada' if shift > 0 else 'atrasada'}: el ángulo es pos * freq con pos = 0, 1, ..., "
                    "max_len - 1, el mismo para las columnas sin y cos")
    if bool(((wave(other(pos * freq)) - values).abs() <= 2e-3).all()):
        return (f"{columns[0]} are off; the first, column {j}, holds {name}({other_name}(pos * {freq:.4g})): the {name} "
                f"is taken of the {other_name} column's values, not of the angle: pe[:, {j % 2}::2] = "
                f"torch.{name}(position * inv_freq)",
                f"{columns[1]} están mal; la primera, la columna {j}, tiene {name}({other_name}(pos * "
                f"{checks.fmt(freq, '.4g', 'es')})): el {name} se toma de los valores de la columna {other_name}, no "
                f"del ángulo: pe[:, {j % 2}::2] = torch.{name}(position * inv_freq)")
    return None


def _frequency(values, positions, j, d_model):
    """Column ``j`` read as sin or cos of pos * w for some other frequency w (found on a grid
    over one turn, then refined), compared with the paper's 1 / 10000^(2i/d_model); None
    when no single frequency fits its first rows."""
    near = positions < 64
    values, positions = values[near], positions[near]
    if values.numel() < 4:
        return None
    wave = torch.sin if j % 2 == 0 else torch.cos
    grid = torch.linspace(-math.pi, math.pi, 20001, dtype=positions.dtype)
    errors = (wave(positions[:, None] * grid) - values[:, None]).abs().max(0).values
    w = grid[int(errors.argmin())].item()
    for step in (1e-4, 1e-5, 1e-6, 1e-7):  # refine: the grid is 3e-4 wide
        w = min((w + step * t for t in range(-5, 6)), key=lambda c: (wave(positions * c) - values).abs().max().item())
    if (wave(positions * w) - values).abs().max().item() > 2e-3:
        return None
    paper = 10000.0 ** (-(j - j % 2) / d_model)
    name = "sin" if j % 2 == 0 else "cos"
    why = ("", "")
    # On whole positions a frequency is only known up to whole turns (and, for cos, its sign).
    turns = [math.remainder(w - sign * math.log(paper), 2 * math.pi) for sign in ((1, -1) if j % 2 else (1,))]
    if min(abs(t) for t in turns) < 1e-3:
        w = math.log(paper)
        why = (f": w is the logarithm of the paper's frequency, ln({paper:.4g}) = {math.log(paper):.4g}, so the exp "
               "is missing (inv_freq = torch.exp(2i * -math.log(10000.0) / d_model))",
               f": w es el logaritmo de la frecuencia del artículo, ln({checks.fmt(paper, '.4g', 'es')}), así que "
               "falta la exp (inv_freq = torch.exp(2i * -math.log(10000.0) / d_model))")
    return (f"column {j} holds {name}(pos * {w:.4g}) where the paper puts {name}(pos * {paper:.4g}), "
            f"pos / 10000^({j - j % 2}/{d_model}){why[0]}",
            f"la columna {j} tiene {name}(pos * {checks.fmt(w, '.4g', 'es')}) donde el artículo pone "
            f"{name}(pos * {checks.fmt(paper, '.4g', 'es')}), pos / 10000^({j - j % 2}/{d_model}){why[1]}")


def _tolerance(max_len):
    """float32 angles pos * freq carry a rounding error that grows with pos (about
    pos x 6e-8), and sin/cos pass it on: allow for it, with a wide margin."""
    return 1e-5 + 5e-7 * max_len


PE_PARAMETER = checks.Mistake(
    "pe is an nn.Parameter, so the optimizer would train the table: register it with self.register_buffer('pe', pe)",
    "pe es un nn.Parameter, así que el optimizador entrenaría la tabla: regístrala con self.register_buffer('pe', pe)")
PE_PLAIN = checks.Mistake(
    "pe is a plain tensor attribute: it does not follow model.to(device) and is not saved in the state_dict; register "
    "it with self.register_buffer('pe', pe)",
    "pe es un atributo tensor normal: no sigue a model.to(device) ni se guarda en el state_dict; regístralo con "
    "self.register_buffer('pe', pe)")


def _pe_buffer(report, what):
    """The student's table as ``(max_len, d_model)``. Lecture 000 stores it as ``(1, max_len,
    d_model)`` and adds ``pe[:, :T]``, which is right too: a leading axis of size 1 is dropped."""
    if "pe" in report.get("buffers", []) and not report["parameters"]:
        pe = report["attributes"].get("pe")
        if isinstance(pe, torch.Tensor) and pe.dim() == 3 and pe.size(0) == 1:
            return pe[0]
        return pe
    failure = checks.CheckFailure(
        f"{what}: pe must be a registered buffer (self.register_buffer) and the module must have no parameters",
        f"{what}: pe debe ser un buffer registrado (self.register_buffer) y el módulo no debe tener parámetros")
    if "pe" in report["parameters"]:
        raise failure.naming(PE_PARAMETER)
    if "pe" not in report.get("buffers", []) and isinstance(report["attributes"].get("pe"), torch.Tensor):
        raise failure.naming(PE_PLAIN)
    raise failure


@pytest.mark.points(2)
def test_course_table(student, course_data):
    """Is the table for d_model = 4, max_len = 6 the course's? / ¿Es la tabla para d_model = 4, max_len = 6 la del curso?"""
    data = course_data("a3_blocks/positional_encoding.json")
    report = student.module(PE, data["d_model"], data["max_len"], attributes=["pe"])
    pe = _pe_buffer(report, "PositionalEncoding(4, 6)")
    check_table(checks.tensor(pe, "pe").double(), torch.tensor(data["pe"], dtype=torch.float64), "pe", data["atol"],
                data["d_model"], data["max_len"])


@pytest.mark.points(1)
def test_random_table(student, rng):
    """Is pe the paper's sin/cos table for a random even d_model and max_len? / ¿Es pe la tabla sin/cos del artículo para d_model par y max_len aleatorios?"""
    d_model, max_len = 2 * checks.randint(rng, 2, 32), checks.randint(rng, 10, 300)
    report = student.module(PE, d_model, max_len, attributes=["pe"])
    pe = checks.tensor(_pe_buffer(report, f"PositionalEncoding({d_model}, {max_len})"), "pe", shape=(max_len, d_model))
    check_table(pe.double(), table(d_model, max_len), f"pe for d_model={d_model}, max_len={max_len}",
                _tolerance(max_len), d_model, max_len)


DROPOUT = checks.Mistake(
    "PositionalEncoding drops values in training mode: this course's PositionalEncoding(d_model, max_len) has no "
    "dropout; the Transformer applies dropout to the sum of embeddings and positions itself (section 5.4)",
    "PositionalEncoding anula valores en modo de entrenamiento: la PositionalEncoding(d_model, max_len) del curso "
    "no tiene dropout; el Transformer aplica el dropout a la suma de embeddings y posiciones (sección 5.4)")


@pytest.mark.points(1)
def test_forward_adds_positions(student, rng):
    """Does forward add pe[:T] to every sequence, for T below max_len, and let the gradient through to x, also in training mode? / ¿Suma forward pe[:T] a cada secuencia, con T menor que max_len, y deja pasar el gradiente hasta x, también en modo de entrenamiento?"""
    d_model, max_len = 2 * checks.randint(rng, 2, 16), checks.randint(rng, 20, 60)
    pe = table(d_model, max_len)
    # One sequence first, then a batch: T >= 2 and B = 1 show a table indexed by the batch
    # size (pe[:B]) as a wrong sum rather than a shape error.
    for B in (1, checks.randint(rng, 2, 4)):
        T = checks.randint(rng, 2, 19)
        x = torch.randn(B, T, d_model, generator=rng)
        report = student.module(PE, d_model, max_len, inputs=[x])
        want = (x.double() + pe[:T]).float()
        forward_mistakes = [
            checks.Mistake("forward adds pe[:B] (B = x.size(0), the batch size) instead of pe[:T] (T = x.size(1))",
                           "forward suma pe[:B] (B = x.size(0), el tamaño del lote) en vez de pe[:T] (T = x.size(1))",
                           output=lambda: (x.double() + pe[:B]).float()),
            checks.Mistake("forward adds the last T rows of the table, pe[-T:]: position t needs row t, the first T "
                           "rows, pe[:T]",
                           "forward suma las últimas T filas de la tabla, pe[-T:]: la posición t necesita la fila t, las "
                           "primeras T filas, pe[:T]",
                           output=lambda: (x.double() + pe[max_len - T:]).float()),
            checks.Mistake("forward adds the first T rows in reverse order (pe[:T].flip(0)): position t needs row t",
                           "forward suma las primeras T filas en orden inverso (pe[:T].flip(0)): la posición t necesita "
                           "la fila t", output=lambda: (x.double() + pe[:T].flip(0)).float()),
            checks.Mistake("forward returns the table rows without adding x", "forward devuelve las filas de la tabla sin sumar x",
                           output=lambda: pe[:T].float().expand(B, T, d_model)),
            checks.Mistake("forward adds the table in the sequence-first layout, pe[:T].unsqueeze(1) of shape (T, 1, "
                           "d_model): here x is (B, T, d_model), batch first, so add pe[:T] (it broadcasts over B)",
                           "forward suma la tabla en el formato secuencia primero, pe[:T].unsqueeze(1) de forma (T, 1, "
                           "d_model): aquí x es (B, T, d_model), lote primero, así que suma pe[:T] (se difunde sobre B)",
                           output=lambda: (x.double() + pe[:T].unsqueeze(1)).float()),
            checks.Mistake("forward multiplies x by the table: the positions are added, x + pe[:T] (section 3.5)",
                           "forward multiplica x por la tabla: las posiciones se suman, x + pe[:T] (sección 3.5)",
                           output=lambda: (x.double() * pe[:T]).float()),
            checks.Mistake("forward scales x by sqrt(d_model): that belongs to the Transformer's embedding, not here",
                           "forward escala x por sqrt(d_model): eso corresponde al embedding del Transformer, no aquí",
                           output=lambda: (x.double() * d_model ** 0.5 + pe[:T]).float()),
        ]
        check_table(report.get("output"), want, f"PositionalEncoding({d_model}, {max_len})(x of shape {(B, T, d_model)})",
                    1e-5, d_model, max_len, slice(0, T), x=x, mistakes=forward_mistakes)
    checks.inputs_unchanged(student, PE, [x], f"PositionalEncoding({d_model}, {max_len})(x)", init_args=[d_model, max_len])
    _check_repeated_calls(student, rng, d_model, max_len, pe)
    # x + pe passes the gradient through unchanged: the embeddings below must learn. In training
    # mode, as a model being trained calls it (the dropout after the positions is the Transformer's).
    grad_output = torch.randn(x.shape, generator=rng)
    got = _grad_wrt_x(student, d_model, max_len, x, grad_output)
    try:
        checks.close(got, grad_output, f"gradient w.r.t. x of PositionalEncoding({d_model}, {max_len}) in training mode",
                     atol=1e-6, rtol=1e-6)
    except checks.CheckFailure as failure:
        if _drops_in_training(student, d_model, max_len):
            raise failure.naming(DROPOUT) from None
        raise


def _check_repeated_calls(student, rng, d_model, max_len, pe):
    """One module called twice, a short sequence and then a longer one, as a model calls it
    batch after batch: the second call adds pe[:T] too, and the table keeps its max_len rows."""
    T1, T2 = checks.randint(rng, 2, 5), checks.randint(rng, 8, 19)
    x1, x2 = torch.randn(1, T1, d_model, generator=rng), torch.randn(2, T2, d_model, generator=rng)
    what = f"the same PositionalEncoding({d_model}, {max_len}) called on T = {T1}, then on T = {T2}"
    what_es = f"el mismo PositionalEncoding({d_model}, {max_len}) llamado con T = {T1} y luego con T = {T2}"
    # In eval mode: this check is about what a call leaves behind, not about dropout.
    steps = [["pe", PE, [d_model, max_len], {}], ["_", "$pe.eval", [], {}], ["a", "$pe.__call__", [x1], {}],
             ["b", "$pe.__call__", [x2], {}], ["table", "getattr", [{"$": "pe"}, "pe"], {}]]
    error = student.script_error(steps)
    if error is not None:
        raise checks.CheckFailure(f"{what}: the second call raised {error['type']} ({error['shown']})",
                                  f"{what_es}: la segunda llamada lanzó {error['type']} ({error['shown']})"
                                  ).naming(CALL_CHANGES_TABLE)
    out = student.script(steps, returns=["b", "table"])
    try:
        checks.close(checks.tensor(out["b"], f"{what}: second output", shape=(2, T2, d_model)),
                     (x2.double() + pe[:T2]).float(), f"{what}: second output", atol=1e-5, rtol=1e-5)
    except checks.CheckFailure as failure:
        table = out["table"]
        changed = not isinstance(table, torch.Tensor) or tuple(table.shape)[-2:] != (max_len, d_model)
        raise (failure.naming(CALL_CHANGES_TABLE) if changed else failure) from None


CALL_CHANGES_TABLE = checks.Mistake(
    "forward changes the table it reads (self.pe = self.pe[:T], or an in-place edit): the first call cuts or alters "
    "it for every later call; read the rows without assigning, return x + self.pe[:T]",
    "forward cambia la tabla que lee (self.pe = self.pe[:T], o una modificación in situ): la primera llamada la "
    "recorta o altera para todas las siguientes; lee las filas sin asignar, devuelve x + self.pe[:T]")


def _grad_wrt_x(student, d_model, max_len, x, grad_output):
    """The gradient w.r.t. x of the student's PositionalEncoding in training mode, or None."""
    grads = student.module(PE, d_model, max_len, inputs=[x], grad_output=grad_output, train=True).get("input_grads")
    return grads[0] if isinstance(grads, list) and grads else None


def _drops_in_training(student, d_model, max_len) -> bool:
    """Whether the gradient w.r.t. x in training mode is an inverted dropout of the gradient
    from above, on an input large enough (8 x 16 positions) that some value is dropped."""
    g = torch.Generator().manual_seed(0)
    x, grad_output = torch.randn(8, 16, d_model, generator=g), torch.randn(8, 16, d_model, generator=g)
    try:
        got = _grad_wrt_x(student, d_model, max_len, x, grad_output)
    except checks.CheckFailure:
        return False
    return (isinstance(got, torch.Tensor) and got.shape == grad_output.shape
            and checks.dropout_rate(got, grad_output, 1e-6) is not None)


@pytest.mark.points(1)
def test_no_position_info_lost_at_long_range(student):
    """Are far positions still distinct (no overflow in 10000^(2i/d_model))? / ¿Siguen siendo distintas las posiciones lejanas?"""
    report = student.module(PE, 512, 2048, attributes=["pe"])
    pe = checks.tensor(_pe_buffer(report, "PositionalEncoding(512, 2048)"), "pe", shape=(2048, 512))
    rows = [0, 1, 1000, 2047]
    check_table(pe[rows].double(), table(512, 2048)[rows], "rows 0, 1, 1000, 2047 of pe", _tolerance(2048), 512, 2048, rows)
