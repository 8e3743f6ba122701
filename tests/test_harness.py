"""The script operation: graders compose student functions on objects that never leave the
student's process (autograder/sandbox/child/harness.py op_script, autograder/grading/student.py Student.script)."""

import pytest
import torch

from autograder.course import Assignment
from autograder.grading.checks import CheckFailure
from autograder.grading.student import Student
from autograder.sandbox.child.wire import Unsupported

TOY = '''
import time

import torch


class Counter:
    def __init__(self, start):
        self.n = start

    def add(self, k):
        self.n += k
        return self.n


class Line(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))

    def forward(self, x):
        return (self.w * x).sum()


def total(values, extra=None):
    return sum(values) + sum((extra or {}).values())


def sgd_step(model, optimizer, x):
    optimizer.zero_grad()
    loss = model(x)
    loss.backward()
    optimizer.step()
    return loss.item()


def boom(x):
    raise ValueError(f"bad value {x}")


def todo():
    raise NotImplementedError("not implemented yet: todo")


def slow():
    time.sleep(30)


def read_bytes(path):
    with open(path, "rb") as f:
        return list(f.read())
'''

CHEAT = '''
import torch.nn.functional as F


def attend(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)
'''

ASSIGNMENT = Assignment(name="zz_toy", modules=("toy", "cheat"),
                        forbidden={"cheat": ("scaled_dot_product_attention",)})
LINE = {"target": "toy.Line"}


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    root = tmp_path_factory.mktemp("submission")
    (root / "zz_toy").mkdir()
    (root / "zz_toy" / "toy.py").write_text(TOY, encoding="utf-8")
    (root / "zz_toy" / "cheat.py").write_text(CHEAT, encoding="utf-8")
    handle = Student(ASSIGNMENT, root, isolation="none", timeout=20, references=root)
    yield handle
    handle.close()


def test_steps_share_objects_in_order(student):
    """Do later steps see the objects earlier steps stored, and methods mutate them in place?"""
    out = student.script([
        ["c", "toy.Counter", [2], {}],
        ["a", "$c.add", [3], {}],
        ["b", "$c.add", [{"$": "a"}], {}],
        ["n", "getattr", [{"$": "c"}, "n"], {}],
    ], returns=["a", "b", "n"])
    assert out == {"a": 5, "b": 10, "n": 10}


def test_references_are_replaced_at_any_depth(student):
    """Is {"$": name} replaced inside nested lists and dicts, in args and kwargs alike?"""
    out = student.script([
        ["a", "toy.total", [[1, 2]], {}],
        ["b", "toy.total", [[{"$": "a"}, 10]], {"extra": {"x": {"$": "a"}}}],
    ], returns=["b"])
    assert out == {"b": 16}


def test_model_optimizer_and_state(student):
    """Do a model_spec, {"$params": "model"} and torch.optim.SGD give one real step, with the parameters after it?"""
    x = torch.tensor([0.5, 3.0])
    out = student.script([
        ["opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": 0.1}],
        ["loss", "toy.sgd_step", [{"$": "model"}, {"$": "opt"}, x], {}],
        ["training", "getattr", [{"$": "model"}, "training"], {}],
    ], model_spec=LINE, returns=["loss", "training"], state=True)
    assert out["loss"] == pytest.approx(0.5 - 6.0)
    assert out["training"] is False  # built in eval mode, like call's model
    assert torch.allclose(out["state"]["w"], torch.tensor([1.0, -2.0]) - 0.1 * x)


def test_objects_do_not_cross_the_wire(student):
    """Does a stored student object come back as an inert Unsupported marker?"""
    out = student.script([["c", "toy.Counter", [1], {}]], returns=["c"])
    assert isinstance(out["c"], Unsupported) and out["c"].type_name == "Counter"


def test_scratch_files_hold_text_or_bytes(student):
    """Does scratch_file write a str as UTF-8 with its line endings and a uint8 tensor as its
    bytes, and refuse other tensors?"""
    data = bytes([0, 255, 10, 13, 128, 7])
    out = student.script([
        ["text", "scratch_file", ["a.txt", "uno\r\ndós\n"], {}],
        ["raw", "scratch_file", ["b.pt", torch.tensor(list(data), dtype=torch.uint8)], {}],
        ["empty", "scratch_file", ["c"], {}],
        ["t", "toy.read_bytes", [{"$": "text"}], {}],
        ["b", "toy.read_bytes", [{"$": "raw"}], {}],
    ], returns=["t", "b", "empty"])
    assert bytes(out["t"]) == "uno\r\ndós\n".encode("utf-8") and bytes(out["b"]) == data
    assert isinstance(out["empty"], str) and out["empty"].endswith("c")
    error = student.script_error([["raw", "scratch_file", ["b.pt", torch.ones(3)], {}]])
    assert error["type"] == "HarnessError"


def test_student_exception_names_the_failing_step(student):
    """Does an exception in a step become a CheckFailure that names that step and the message?"""
    with pytest.raises(CheckFailure, match=r"toy\.boom raised ValueError: bad value 7 \(toy\.py:\d+ in boom\)"):
        student.script([["a", "toy.total", [[3, 4]], {}], ["b", "toy.boom", [{"$": "a"}], {}]], returns=["b"])
    error = student.script_error([["c", "toy.Counter", [1], {}], ["b", "$c.add", ["x"], {}]])
    assert error["type"] == "TypeError" and error["target"] == "c.add"
    assert student.script_error([["a", "toy.total", [[1]], {}]]) is None


def test_not_implemented_is_one_line(student):
    """Does a step that is not implemented yet fail with the short bilingual line?"""
    with pytest.raises(CheckFailure) as info:
        student.script([["t", "toy.todo", [], {}]], returns=["t"])
    assert str(info.value) == "not implemented yet: todo\naún sin implementar: todo"


def test_timeout_overrides_the_request_limit(student):
    """Does timeout= cut a script short with the usual time-out failure, and the next request still work?"""
    with pytest.raises(CheckFailure, match="did not finish within 1 s"):
        student.script([["s", "toy.slow", [], {}]], timeout=1)
    assert student.script([["a", "toy.total", [[2]], {}]], returns=["a"]) == {"a": 2}


def test_targets_are_checked_in_the_grading_process(student):
    """Are module targets outside the assignment a grader bug, and forbidden shortcuts refused?"""
    with pytest.raises(ValueError, match="grader bug"):
        student.script([["x", "os.getcwd", [], {}]])
    with pytest.raises(ValueError, match="grader bug"):
        student.script([["x", "$nothing.method", [], {}]])
    with pytest.raises(ValueError, match="grader bug"):
        student.script([["a", "toy.total", [[1]], {}]], returns=["b"])
    with pytest.raises(ValueError, match="refers to"):
        student.script([["a", "toy.total", [[{"$": "later"}]], {}], ["later", "toy.Counter", [1], {}]])
    with pytest.raises(CheckFailure, match="no credit for cheat.py"):
        student.script([["o", "cheat.attend", [1, 2, 3], {}]])
