"""Is the tree clean under the project's ruff configuration (pyproject.toml)?"""

import subprocess
import sys

from helpers import ROOT


def test_ruff_finds_nothing():
    """Does ruff (pyflakes, import order, line length) report nothing on the tree?"""
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
