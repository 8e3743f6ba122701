"""The course: its assignments, in order, and where their files live."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
GRADERS_DIR = PACKAGE_DIR / "graders"


@dataclass(frozen=True)
class Assignment:
    # Folder name under solutions/, assignments/, autograder/graders/ and source_data/.
    name: str
    # Student modules (file stems in the assignment folder), in the order they are taught.
    modules: tuple[str, ...]
    # Forbidden shortcuts: module -> attribute names that module may not reference, because
    # the exercise asks the student to build that thing.
    forbidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Assignments whose modules this one imports.
    requires: tuple[str, ...] = ()


# Lower-case names also stand for every torch function that contains them (the fused
# attention kernels, native_layer_norm), which raise when called in the student's process.
_SDPA = ("scaled_dot_product_attention", "scaled_dot_product", "MultiheadAttention", "multi_head_attention_forward")
_LAYERNORM = ("LayerNorm", "layer_norm", "native_layer_norm", "RMSNorm", "rms_norm", "GroupNorm", "group_norm")
_TORCH_TRANSFORMER = ("Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
                      "TransformerDecoderLayer")

ASSIGNMENTS: tuple[Assignment, ...] = (
    Assignment(
        name="a1_attention",
        modules=("masks", "attention"),
        forbidden={"masks": _SDPA, "attention": _SDPA},
    ),
    Assignment(
        name="a2_layernorm",
        modules=("layernorm",),
        forbidden={"layernorm": _LAYERNORM},
    ),
    Assignment(
        name="a3_blocks",
        modules=("positional", "multihead", "feedforward"),
        forbidden={"positional": _SDPA, "multihead": _SDPA, "feedforward": _SDPA},
        requires=("a1_attention",),
    ),
    Assignment(
        name="a4_transformer",
        modules=("layers", "transformer"),
        forbidden={"layers": _SDPA + _TORCH_TRANSFORMER, "transformer": _SDPA + _TORCH_TRANSFORMER},
        requires=("a1_attention", "a2_layernorm", "a3_blocks"),
    ),
    Assignment(
        name="a5_decoding",
        modules=("sampling", "decoding", "beam"),
        requires=("a1_attention", "a2_layernorm", "a3_blocks", "a4_transformer"),
    ),
    Assignment(
        name="a6_translator",
        modules=("corpus", "preprocessing", "vocab", "batching", "training", "checkpoint", "translation"),
        requires=("a1_attention", "a2_layernorm", "a3_blocks", "a4_transformer", "a5_decoding"),
    ),
)

BY_NAME = {a.name: a for a in ASSIGNMENTS}


def course_root() -> Path:
    """The checkout that holds solutions/, assignments/ and source_data/.

    ``COURSE_ROOT`` overrides; otherwise the folder above this package (an editable
    install, as the README installs it).
    """
    env = os.environ.get("COURSE_ROOT")
    root = Path(env).resolve() if env else PACKAGE_DIR.parent
    if not (root / "solutions").is_dir():
        raise FileNotFoundError(
            f"no solutions/ folder in {root}: install the course with `pip install -e .` "
            "from its checkout, or set COURSE_ROOT to that checkout"
        )
    return root


def solutions_dir() -> Path:
    return course_root() / "solutions"


def assignments_dir() -> Path:
    return course_root() / "assignments"


def data_dir() -> Path:
    return course_root() / "source_data"


def get(name: str) -> Assignment:
    try:
        return BY_NAME[name]
    except KeyError:
        known = ", ".join(BY_NAME)
        raise KeyError(f"unknown assignment {name!r}; the course has: {known}") from None


def module_owners() -> dict[str, Assignment]:
    """Module stem -> the assignment whose solutions/ folder holds it."""
    owner = {}
    for a in ASSIGNMENTS:
        for path in sorted((solutions_dir() / a.name).glob("*.py")):
            if not path.name.startswith("test_") and path.name != "conftest.py":
                owner.setdefault(path.stem, a)
    return owner
