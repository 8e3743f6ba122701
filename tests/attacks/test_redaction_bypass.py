"""4. Redaction bypass: an a3 worker sending the reference a1 out, encoded."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

import attack_sources as src
import pytest

import helpers
from attacks.harness import (
    A1,
    A3,
    Run,
    assert_no_gain,
    grade,
)
from helpers import SOLUTIONS, make_submission

pytestmark = pytest.mark.xdist_group("attacks")  # one worker grades the honest controls (conftest.py)


def _solution_lines(folder: Path, min_len: int = 8) -> list[str]:
    """Stripped code lines of the solution regions of a reference folder's modules."""
    lines = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("test_"):
            continue
        inside = False
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.strip()
            if code.startswith("### BEGIN SOLUTION"):
                inside = True
            elif code.startswith("### END SOLUTION"):
                inside = False
            elif inside and len(code) >= min_len and not code.startswith("#"):
                lines.append(code)
    return lines


def _b64_decodings(text: str) -> list[str]:
    found = []
    for token in re.findall(r"[A-Za-z0-9+/_-]{12,}={0,2}", text):
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                found.append(decode(token + "=" * (-len(token) % 4)).decode("utf-8"))
            except (binascii.Error, ValueError):
                pass
    return found


def _chunks(text: str) -> str:
    parts = {}
    for index, literal in re.findall(r"part (\d{3}) ('(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")", text):
        try:
            parts[int(index)] = eval(literal, {})  # noqa: S307 - a str literal, from this test's own attack
        except SyntaxError:
            pass
    return "".join(parts[i] if i in parts else "\0" for i in range(max(parts) + 1)) if parts else ""


def recovered_reference(texts: list[str], secrets: list[str]) -> list[str]:
    """The reference lines an attacker can get back from ``texts`` by undoing the encodings
    of the redaction attacks: verbatim, one character per line, reversed, base64 (whole or
    the first 50 characters of a line) and chunks of a few characters across tests."""
    joined = "\n".join(texts)
    flat = joined.replace("\n", "")
    decoded = _b64_decodings(joined)
    chunks = _chunks(joined)
    leaks = []
    for line in secrets:
        if (line in joined or line in flat or line[::-1] in joined or line[::-1] in flat
                or line in chunks or any(line in d or (len(d) >= 8 and d in line) for d in decoded)):
            leaks.append(line)
    return leaks


REDACTION_MODES = ("base64", "reversed", "chunks", "one-char-per-line", "exception-type", "where")


@pytest.fixture(scope="module")
def a3_control(tmp_path_factory) -> Run:
    tmp = tmp_path_factory.mktemp("control-a3")
    sub = make_submission(tmp / "sub", files={f"{A3}/{name}": text for name, text in src.HONEST_A3_MODULES.items()})
    return grade(tmp, "control", sub, A3)


@pytest.mark.parametrize("mode", helpers.tiered(REDACTION_MODES))  # fast tier: the first
def test_reference_code_cannot_be_smuggled_out_encoded(tmp_path, a3_control, mode):
    """Can an a3 submission, whose worker holds the reference a1 for its imports, send that
    reference back in exception messages, type names or function names that are encoded
    (base64, reversed, a few characters at a time, one character per line)? (It must not:
    no reference line can be recovered from results.json or the output.)"""
    secrets = _solution_lines(SOLUTIONS / A1)
    assert secrets
    files = {f"{A3}/{name}": text for name, text in src.LEAK_A3_MODULES.items()}
    files[f"{A3}/{src.LEAK_HELPER}"] = src.LEAK_MODULE.format(mode=mode)
    attack = grade(tmp_path, "attack", make_submission(tmp_path / "sub", files=files), A3)
    assert_no_gain(attack, a3_control, A3)
    assert not recovered_reference([a3_control.text], secrets)  # the detector itself is quiet
    leaks = recovered_reference([attack.text] + attack.outputs(A3), secrets)
    assert not leaks, f"reference lines recovered from the results ({mode}): {leaks}"
