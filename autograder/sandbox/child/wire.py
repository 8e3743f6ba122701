"""Plain-data codec between the grading process and the student's process.

The student's process is untrusted: whatever it sends back is decoded here into
``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``dict`` (string keys) and
plain ``torch.Tensor`` objects rebuilt from raw bytes. Nothing is unpickled and no
student-defined type can cross, so an object whose ``__eq__`` always returns True, a
tensor subclass or a patched ``torch.allclose`` never reaches a comparison.

A message is a JSON document; a tensor is ``{"$tensor": [dtype, shape, base64]}``.
Frames on a pipe are an 8-byte big-endian length followed by the message.
"""

from __future__ import annotations

import base64
import json
import math
import os
import struct

import torch

MAX_FRAME_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 32
MAX_DIMS = 16  # a tensor's rank
MAX_DIM_SIZE = 1 << 31  # one dimension's size, also of an empty tensor

_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
_NAMES = {v: k for k, v in _DTYPES.items()}


class WireError(ValueError):
    """The bytes received are not a valid message."""


class Unsupported:
    """Stands for a value the student returned that has no plain-data form."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<unsupported {self.type_name}>"


# ----------------------------------------------------------------------------- encode


def _encode_tensor(t: torch.Tensor) -> dict:
    # Detach from autograd, leave any device, drop subclasses and views: only the
    # values, dtype and shape travel.
    t = torch.Tensor.detach(t).cpu().contiguous()
    if t.dtype not in _NAMES:
        return {"$unsupported": f"tensor of dtype {t.dtype}"}
    flat = t.reshape(-1)
    raw = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
    return {"$tensor": [_NAMES[t.dtype], list(t.shape), base64.b64encode(raw).decode("ascii")]}


def to_plain(value, depth: int = 0):
    """Convert a Python value into JSON-ready plain data (both directions use it)."""
    if depth > MAX_DEPTH:
        return {"$unsupported": "structure nested too deeply"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        return {"$float": repr(float(value))}
    if isinstance(value, torch.Tensor):
        return _encode_tensor(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"$dict": {k: to_plain(v, depth + 1) for k, v in value.items()}}
    return {"$unsupported": type(value).__name__}


def encode(value) -> bytes:
    return json.dumps(to_plain(value), separators=(",", ":")).encode("utf-8")


# ----------------------------------------------------------------------------- decode


def _decode_tensor(spec) -> torch.Tensor:
    if not (isinstance(spec, list) and len(spec) == 3):
        raise WireError("malformed tensor")
    name, shape, data = spec
    if name not in _DTYPES:
        raise WireError(f"tensor dtype {name!r} is not allowed")
    if not (isinstance(shape, list) and len(shape) <= MAX_DIMS
            and all(type(s) is int and 0 <= s < MAX_DIM_SIZE for s in shape)):
        raise WireError("malformed tensor shape")
    if not isinstance(data, str):
        raise WireError("malformed tensor data")
    dtype = _DTYPES[name]
    numel = math.prod(shape)
    itemsize = torch.empty((), dtype=dtype).element_size()
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError as exc:
        raise WireError("tensor data is not base64") from exc
    if len(raw) != numel * itemsize:
        raise WireError(f"tensor data has {len(raw)} bytes, shape {shape} needs {numel * itemsize}")
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype)
    return flat.reshape(shape).clone()


def from_plain(obj, depth: int = 0):
    """Rebuild values from JSON data, accepting only the plain types listed above."""
    if depth > MAX_DEPTH:
        raise WireError("structure nested too deeply")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [from_plain(v, depth + 1) for v in obj]
    if isinstance(obj, dict) and len(obj) == 1:
        (tag, body), = obj.items()
        if tag == "$tensor":
            return _decode_tensor(body)
        if tag == "$float" and body in ("nan", "inf", "-inf"):
            return float(body)
        if tag == "$dict" and isinstance(body, dict):
            return {str(k): from_plain(v, depth + 1) for k, v in body.items()}
        if tag == "$unsupported" and isinstance(body, str):
            return Unsupported(body[:200])
    raise WireError("unexpected value in message")


def decode(data: bytes):
    """The message in ``data``; whatever is wrong with the bytes raises ``WireError``."""
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WireError(f"not a valid message: {exc.__class__.__name__}") from exc
    try:
        return from_plain(obj)
    except WireError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a shape torch cannot allocate
        raise WireError(f"not a valid message: {exc.__class__.__name__}") from exc


# ----------------------------------------------------------------------------- frames


HEADER = struct.Struct(">Q")  # a frame's length


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def frame_length(header: bytes) -> int:
    """The length a frame's header announces, refused above ``MAX_FRAME_BYTES``."""
    (n,) = HEADER.unpack(header)
    if n > MAX_FRAME_BYTES:
        raise WireError(f"message of {n} bytes is larger than the {MAX_FRAME_BYTES} allowed")
    return n


def write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(frame(payload))
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_exact(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes:
    return read_exact(fd, frame_length(read_exact(fd, HEADER.size)))
