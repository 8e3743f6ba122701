"""Run a hidden pytest grader inside a notebook's kernel: for trying a notebook
interactively only (an instructor checking a source notebook), **never for grades**.

Grades come from :mod:`autograder.notebooks.sandboxed` (the notebook's code graded in
module form, in the sandbox); generated notebooks no longer call this. In a kernel::

    from autograder.notebooks.kernel import run_grader
    run_grader('a1_attention/test_masks.py::test_causal_mask', globals())

:func:`run_grader` calls that very grader function, with the fixtures the pytest plugin
would give it: ``student`` (from :func:`kernel_student`), ``rng`` (seeded exactly as the
plugin seeds it, from ``COURSE_GRADE_SEED`` and the test's id) and ``course_data``. So
there is one implementation of every check, and a notebook is worth what the module form
is worth.

That student *is* a :class:`~autograder.grading.student.Student` (same ``call``, ``grad``,
``module``, ``error_of``, same failure messages, same redaction of reference code) whose
transport is the kernel itself (:class:`KernelTransport`): requests go through the very
same ``harness`` operations, with names like ``"masks.causal_mask"`` resolved in the
notebook's namespace instead of imported (:func:`notebook_resolver`), and with arguments
and results passed through the ``wire`` codec, so a grader sees exactly the plain data
it would get over the pipe.

Prerequisites: before grading, the hidden cell replaces the definitions the notebook
brought from earlier assignments (its "bring your code" cells) with the reference ones,
so a bug in a1 costs points in a1 only (as in the module form).

A failed check raises :class:`GradingFailure`, whose message is the check's bilingual
explanation. IPython shows that message alone, without a traceback (the exception's
``_render_traceback_``), so nbgrader's feedback never quotes a hidden cell's source. Anything the code
prints while being graded is discarded (nbgrader gives 0 points to a test cell that
writes to stderr).

A notebook that ``python -m autograder nbgrader autograde`` refused runs as a copy whose
exercise cells set ``__course_refused__`` to the refusal and raise; :func:`run_grader`
then fails every hidden test with that message.

Limits: nbgrader runs a submission and its hidden tests in one kernel, so unlike
``python -m autograder grade`` this is no sandbox: a notebook can tamper with the kernel
it is graded in. The autograde command refuses the known ways to do that
(:mod:`autograder.notebooks.scan`, a static scan); use the module form where that matters.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
import linecache
import os
import secrets
import signal
import threading
import warnings
from pathlib import Path

import torch

from .. import course, reference
from ..authoring.stubs import NOT_IMPLEMENTED
from ..course import Assignment
from ..grading import forbidden, rules
from ..grading.checks import CheckFailure
from ..grading.rules import SEED_VARIABLE
from ..grading.student import Student
from ..sandbox.child import harness, wire
from ..sandbox.process import StudentFailure
from ..settings import DEFAULT_TIMEOUT, pin_torch_threads
from .scan import REFUSED_NAME
from .sources import prerequisites


class GradingFailure(AssertionError):
    """A hidden test failed; ``str()`` is the explanation for the student (English, Spanish)."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of a traceback: the message alone, so a failed hidden
        cell never quotes its source (nbgrader's feedback shows this output)."""
        return ["\x1b[0;31mHidden test failed / Test oculto fallido\x1b[0m", *str(self).split("\n")]


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Interrupt the block after ``seconds`` (main thread on Unix; elsewhere no limit,
    and nbgrader's own per-cell timeout still applies)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def alarm(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _quiet():
    """Discard what the code under test prints and warns."""
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        yield


@functools.lru_cache(maxsize=None)
def _local_modules(name: str) -> frozenset[str]:
    """Module stems whose definitions live in the notebook of assignment ``name``."""
    return frozenset(stem for stem, owner in course.module_owners().items() if owner.name == name)


@functools.lru_cache(maxsize=None)
def _prerequisite_names(name: str) -> tuple[tuple[str, str], ...]:
    return tuple(item for _, items in prerequisites(course.get(name)) for item in items)


def use_reference_prerequisites(assignment: Assignment, namespace: dict) -> None:
    """Replace the definitions ``assignment``'s notebook brought from earlier assignments
    with the reference ones (autograde time only)."""
    with _quiet():
        for module, name in _prerequisite_names(assignment.name):
            namespace[name] = getattr(reference.load(module), name)


class KernelTransport:
    """The transport of a notebook's :class:`~autograder.grading.student.Student`: this
    kernel. Requests run through the worker's own ``harness.handle``, with ``resolve``
    looking names up in the notebook instead of importing them."""

    def __init__(self, resolve):
        self.resolve = resolve

    def request(self, message: dict, timeout: float, startup_timeout: float | None = None) -> dict:
        # Through the codec both ways, as over the pipe: the code gets its own copies of
        # the inputs, and the grader gets plain data back (tuples as lists, no objects).
        message = wire.from_plain(wire.to_plain(message))
        try:
            with _quiet(), _time_limit(timeout):
                reply = harness.handle(message, [], self.resolve)
        except _Timeout:
            reply = {"error": {"type": "_Timeout"}}
        error = reply.get("error")
        if isinstance(error, dict) and error.get("type") == "_Timeout":
            raise StudentFailure("timeout", "no reply in time")
        if isinstance(error, dict) and error.get("type") == "NotImplementedError" \
                and not str(error.get("message", "")).startswith(NOT_IMPLEMENTED):
            # nbgrader's stub raises a bare NotImplementedError()
            error["message"] = f"{NOT_IMPLEMENTED}{message.get('target')}"
        try:
            return wire.from_plain(wire.to_plain(reply))
        except wire.WireError as exc:
            raise StudentFailure("protocol", f"the reply is not valid plain data ({exc})") from None

    def close(self) -> None:
        pass


def notebook_resolver(assignment: Assignment, namespace: dict):
    """``resolve`` for the harness: ``"masks.causal_mask"`` -> the notebook's own definition
    for the assignment's modules, the reference one for a prerequisite's."""
    local_modules = _local_modules(assignment.name)

    def resolve(target: str):
        module, _, qualname = target.partition(".")
        parts = qualname.split(".")
        owner = course.module_owners().get(module)
        if module in local_modules:
            if parts[0] not in namespace:
                raise harness.HarnessError(
                    f"the notebook defines no {parts[0]!r}; keep the names from the exercise cells"
                )
            obj = namespace[parts[0]]
        elif owner is not None and owner.name in assignment.requires:
            obj = getattr(reference.load(module), parts[0])
        else:
            raise harness.HarnessError(f"{target!r} is not a name of {assignment.name}")
        for part in parts[1:]:
            if not hasattr(obj, part):
                raise harness.HarnessError(f"{parts[0]} has no {part!r}; keep the names from the exercise cells")
            obj = getattr(obj, part)
        return obj

    return resolve


def _cells_defining(namespace: dict, name: str) -> list[str]:
    """File names (IPython's, one per cell) of the cells that define ``name``."""
    obj = namespace.get(name)
    functions = []
    if inspect.isfunction(obj):
        functions.append(obj)
    elif inspect.isclass(obj):
        for value in vars(obj).values():
            value = getattr(value, "__func__", getattr(value, "fget", value))
            if inspect.isfunction(value):
                functions.append(value)
    return sorted({f.__code__.co_filename for f in functions if f.__module__ == namespace.get("__name__")})


def scan_cells(assignment: Assignment, namespace: dict) -> dict[str, list[forbidden.Finding]]:
    """Forbidden shortcuts per module, in the cells that define the module's names."""
    found = {}
    for module in assignment.modules:
        names = assignment.forbidden.get(module, ())
        hits = []
        path = course.solutions_dir() / assignment.name / f"{module}.py"
        for name in (n.name for n in _top_level(path)):
            for filename in _cells_defining(namespace, name):
                source = "".join(linecache.getlines(filename))
                hits += forbidden.scan(source, names, f"{name} cell")
        found[module] = sorted(set(hits), key=lambda f: (f.file, f.line, f.code))
    return found


def kernel_student(assignment: Assignment, namespace: dict, *, timeout: float = DEFAULT_TIMEOUT) -> Student:
    """A :class:`~autograder.grading.student.Student` (same requests, failure messages and
    redaction of reference code as the module form) whose code is the notebook's namespace."""
    return Student(assignment, None, transport=KernelTransport(notebook_resolver(assignment, namespace)),
                   refusals=scan_cells(assignment, namespace), timeout=timeout, references=course.solutions_dir())


@functools.lru_cache(maxsize=None)
def _top_level(path: Path):
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return tuple(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))


@functools.lru_cache(maxsize=1)
def _run_seed() -> int:
    value = os.environ.get(SEED_VARIABLE)
    return int(value) if value else secrets.randbits(31)


def run_grader(nodeid: str, namespace: dict) -> None:
    """Run one hidden grader test against the notebook's ``namespace`` (pass ``globals()``).

    Returns quietly when it passes; raises :class:`GradingFailure` with the bilingual
    explanation when it does not.
    """
    refused = namespace.get(REFUSED_NAME)
    if isinstance(refused, str) and refused:
        # set by the copy of a notebook that `nbgrader autograde` refused (notebook_scan)
        raise GradingFailure(refused)
    student = None
    try:
        fn = rules.load(nodeid)
        test = rules.describe(nodeid, fn)
        assignment = course.get(nodeid.partition("/")[0])
        use_reference_prerequisites(assignment, namespace)
        student = kernel_student(assignment, namespace, timeout=test.timeout or DEFAULT_TIMEOUT)
        fixtures = {
            "student": student,
            "rng": torch.Generator().manual_seed(rules.derive_seed(_run_seed(), nodeid)),
            "course_data": rules.course_data,
        }
        kwargs = {name: fixtures[name] for name in inspect.signature(fn).parameters}
        threads = pin_torch_threads()
        try:
            with _quiet():
                fn(**kwargs)
        finally:
            torch.set_num_threads(threads)
        return
    except CheckFailure as exc:
        message = str(exc)
    except BaseException as exc:  # a grader that could not run: never show its traceback
        kind = type(exc).__name__
        message = rules.internal_error(kind)
    finally:
        if student is not None:
            student.close()
    raise GradingFailure(message) from None
