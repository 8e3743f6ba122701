"""Public tests for positional.py. Run them with ``pytest assignments/a3_blocks``."""

import torch

from positional import PositionalEncoding


def test_course_table(course_data):
    """Is the table for d_model = 4, max_len = 6 the course's?"""
    data = course_data("a3_blocks/positional_encoding.json")
    pe = PositionalEncoding(data["d_model"], data["max_len"])
    torch.testing.assert_close(pe.pe, torch.tensor(data["pe"]), atol=data["atol"], rtol=0)


def test_pe_is_a_buffer_not_a_parameter():
    """Is pe a registered buffer (saved, moved with .to) and not trained?"""
    pe = PositionalEncoding(8, max_len=10)
    assert "pe" in dict(pe.named_buffers()) and not list(pe.parameters())


def test_forward_adds_the_first_rows():
    """Does forward add pe[:T] to every sequence of the batch?"""
    pe = PositionalEncoding(6, max_len=20)
    x = torch.randn(3, 7, 6)
    torch.testing.assert_close(pe(x), x + pe.pe[:7])
