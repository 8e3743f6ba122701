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
        # torch's own text is several lines and suggests weights_only=False, which would run
        # whatever code a foreign file holds: one line, and no such advice.
        raise ValueError(f"{path} is not a readable translator checkpoint (torch cannot load it: "
                         f"{exc.__class__.__name__}); give the .pt file that `translator train` wrote") from None
    found = state.get("format") if isinstance(state, dict) else None
    if isinstance(found, str) and found.startswith(FORMAT.split("/")[0] + "/") and found != FORMAT:
        raise ValueError(f"{path} was written by another version of the translator (format {found!r}, this one "
                         f"reads {FORMAT!r}); train a new one with `translator train`")
    if found != FORMAT:
        raise ValueError(f"{path} is a torch file but not a translator checkpoint (expected format {FORMAT!r}); "
                         "give the .pt file that `translator train` wrote")
    return state
