"""One-file checkpoints: weights, tokenizer, configuration and training progress.

``translate`` rebuilds the model from the file alone; ``train --resume`` also restores the
optimizer and where training stopped. Writes are atomic (a temporary file in the same
folder, then ``os.replace``), so an interrupted save never leaves a half-written file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import torch

FORMAT = "transformer-course-translator/1"


def save(path: Path, state: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save({"format": FORMAT, **state}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load(path: Path, map_location="cpu") -> dict:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; train one with `translator train --out {path}`")
    try:
        state = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as exc:
        raise ValueError(f"{path} is not a readable translator checkpoint ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{path} is not a translator checkpoint (expected format {FORMAT!r})")
    return state
