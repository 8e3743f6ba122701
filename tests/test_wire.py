"""Tests for autograder/sandbox/child/wire.py: only plain data crosses from the student's process."""

import base64
import json

import pytest
import torch

from autograder.sandbox.child.wire import MAX_DEPTH, Unsupported, WireError, decode, encode


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                   torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool])
def test_tensor_roundtrip(dtype):
    """Does every allowed dtype come back with the same values, shape and dtype?"""
    t = (torch.arange(24).reshape(2, 3, 4) % 7).to(dtype)
    back = decode(encode(t))
    assert type(back) is torch.Tensor and back.dtype == dtype and torch.equal(back, t)


def test_scalar_empty_and_noncontiguous_tensors():
    """Do 0-dim, empty and transposed tensors round-trip?"""
    for t in (torch.tensor(3.5), torch.empty(0, 4), torch.arange(6.0).reshape(2, 3).t()):
        back = decode(encode(t))
        assert back.shape == t.shape and torch.equal(back, t)


def test_nested_plain_values():
    """Do lists, tuples, dicts and non-finite floats come back as plain values?"""
    value = {"a": [1, 2.5, None, True, "x", (torch.ones(2), float("nan"))], "inf": float("-inf")}
    back = decode(encode(value))
    assert back["a"][:5] == [1, 2.5, None, True, "x"]
    assert torch.equal(back["a"][5][0], torch.ones(2))
    assert back["a"][5][1] != back["a"][5][1] and back["inf"] == float("-inf")


def test_foreign_objects_become_unsupported():
    """Does an object with a rigged __eq__ arrive as an inert marker, not as itself?"""

    class AlwaysEqual:
        def __eq__(self, other):
            return True

    back = decode(encode(AlwaysEqual()))
    assert isinstance(back, Unsupported) and back.type_name == "AlwaysEqual"
    assert not (back == torch.ones(1))


def test_tensor_subclass_arrives_as_plain_tensor():
    """Does a tensor subclass arrive as a plain torch.Tensor with the same values?"""

    class Sneaky(torch.Tensor):
        pass

    t = torch.ones(3).as_subclass(Sneaky)
    back = decode(encode(t))
    assert type(back) is torch.Tensor and torch.equal(back, torch.ones(3))


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        json.dumps({"$tensor": ["float32", [2], base64.b64encode(b"\0" * 4).decode()]}).encode(),  # too few bytes
        json.dumps({"$tensor": ["object", [1], ""]}).encode(),  # dtype not allowed
        json.dumps({"$tensor": ["float32", [-1], ""]}).encode(),  # negative size
        json.dumps({"$pickle": "gASV"}).encode(),  # unknown tag
        json.dumps({"a": 1, "b": 2}).encode(),  # untagged dict
        ("[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)).encode(),  # too deep
    ],
)
def test_malformed_messages_are_rejected(payload):
    """Is anything that is not well-formed plain data refused?"""
    with pytest.raises(WireError):
        decode(payload)
