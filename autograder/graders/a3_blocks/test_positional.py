"""Hidden graders for a3_blocks/positional.py."""


import pytest
import torch

from autograder import checks

PE = "positional.PositionalEncoding"


def table(d_model, max_len):
    """The sinusoidal table, in float64, straight from the paper's formula."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = pos / 10000 ** (i / d_model)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe


def _tolerance(max_len):
    """float32 angles pos * freq carry a rounding error that grows with pos (about
    pos x 6e-8), and sin/cos pass it on: allow for it, with a wide margin."""
    return 1e-5 + 5e-7 * max_len


def _pe_buffer(report, what):
    checks.expect(
        "pe" in report.get("buffers", []) and not report["parameters"],
        f"{what}: pe must be a registered buffer (self.register_buffer) and the module must have no parameters",
        f"{what}: pe debe ser un buffer registrado (self.register_buffer) y el módulo no debe tener parámetros",
    )
    return report["attributes"].get("pe")


@pytest.mark.points(2)
def test_course_table(student, course_data):
    """Is the table for d_model = 4, max_len = 6 the course's? / ¿Es la tabla para d_model = 4, max_len = 6 la del curso?"""
    data = course_data("a3_blocks/positional_encoding.json")
    report = student.module(PE, data["d_model"], data["max_len"], attributes=["pe"])
    pe = _pe_buffer(report, "PositionalEncoding(4, 6)")
    checks.close(checks.tensor(pe, "pe").double(), torch.tensor(data["pe"], dtype=torch.float64), "pe", atol=data["atol"], rtol=0)


@pytest.mark.points(1)
def test_random_table(student, rng):
    """Is pe the paper's sin/cos table for a random even d_model and max_len? / ¿Es pe la tabla sin/cos del artículo para d_model par y max_len aleatorios?"""
    d_model, max_len = 2 * checks.randint(rng, 2, 32), checks.randint(rng, 10, 300)
    report = student.module(PE, d_model, max_len, attributes=["pe"])
    pe = checks.tensor(_pe_buffer(report, f"PositionalEncoding({d_model}, {max_len})"), "pe", shape=(max_len, d_model))
    checks.close(pe.double(), table(d_model, max_len), f"pe for d_model={d_model}, max_len={max_len}",
                 atol=_tolerance(max_len), rtol=0)


@pytest.mark.points(1)
def test_forward_adds_positions(student, rng):
    """Does forward add pe[:T] to every sequence, for T below max_len? / ¿Suma forward pe[:T] a cada secuencia, con T menor que max_len?"""
    d_model, max_len = 2 * checks.randint(rng, 2, 16), checks.randint(rng, 20, 60)
    B, T = checks.randint(rng, 1, 4), checks.randint(rng, 1, 19)
    x = torch.randn(B, T, d_model, generator=rng)
    report = student.module(PE, d_model, max_len, inputs=[x])
    want = (x.double() + table(d_model, max_len)[:T]).float()
    checks.close(report.get("output"), want, f"PositionalEncoding({d_model}, {max_len})(x of shape {(B, T, d_model)})", atol=1e-5)


@pytest.mark.points(1)
def test_no_position_info_lost_at_long_range(student):
    """Are far positions still distinct (no overflow in 10000^(2i/d_model))? / ¿Siguen siendo distintas las posiciones lejanas?"""
    report = student.module(PE, 512, 2048, attributes=["pe"])
    pe = checks.tensor(_pe_buffer(report, "PositionalEncoding(512, 2048)"), "pe", shape=(2048, 512))
    checks.close(pe[[0, 1, 1000, 2047]].double(), table(512, 2048)[[0, 1, 1000, 2047]], "rows 0, 1, 1000, 2047 of pe",
                 atol=_tolerance(2048), rtol=0)
