"""The grading process's handle on one assignment of a submission: the requests API.

Hidden graders ask it to run the student's code (``call``, ``grad``, ``module``, and
``script`` to compose several calls on objects that stay in the student's process) and get
plain data back; they never import that code. Every failure on the student's side
(exception, time-out, crash, unreadable reply, forbidden shortcut, missing folder)
becomes a :class:`~autograder.grading.checks.CheckFailure` with a message for the student.

Prerequisites: an assignment that imports earlier ones (a4 imports a1-a3) runs against
the *reference* versions of those, so a broken a1 costs points in a1 only. What of the
replies may then reach feedback is :mod:`.redaction`'s policy, applied to every reply.

Every reply is checked against its request (counts, types) before a grader sees it, and
the student's side has a time budget per assignment that covers worker start-ups as well
as calls.

Over 350 lines: one request API (call, grad, module, script and their error forms), each checking its reply.
"""

from __future__ import annotations

import time
from pathlib import Path

import torch

from .. import course
from ..course import Assignment
from ..markers import NOT_IMPLEMENTED
from ..sandbox.child.harness import SCRIPT_TORCH
from ..sandbox.isolation import MAX_TASKS
from ..sandbox.process import STARTUP_TIMEOUT, ScratchWorker, StudentFailure
from ..sandbox.scratch import SubmissionRefused, read_modules, refuse_shadowing
from ..settings import DEFAULT_BUDGET, DEFAULT_MEMORY_GIB, DEFAULT_TIMEOUT
from ..stubs import given_modules
from . import checks, forbidden, known_errors
from .checks import CheckFailure
from .redaction import Redaction, is_not_implemented, own_sources, text

RETRY_TIMEOUT = 3.0  # for a target that has already timed out once
def _references(value) -> set[str]:
    """Names that ``{"$": name}`` / ``{"$params": name}`` placeholders in ``value`` refer to."""
    if isinstance(value, dict):
        if len(value) == 1 and ("$" in value or "$params" in value):
            return {next(iter(value.values()))}
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return set().union(*(_references(v) for v in value))
    return set()


def _step_targets(fields: dict) -> tuple[str, ...]:
    return tuple(step[1] for step in fields.get("steps") or ())


def _mismatch(target: str, what: str) -> CheckFailure:
    return CheckFailure(
        f"{target}: the reply from your code's process does not match the request ({what})",
        f"{target}: la respuesta del proceso de tu código no corresponde a la petición ({what})",
    )


def _tensor_or_none(value) -> bool:
    return value is None or isinstance(value, torch.Tensor)


class Student:
    """The student's code for one assignment of a submission, run by a sandboxed worker
    over a scratch copy of the submission's modules and the reference prerequisites
    (:class:`~autograder.sandbox.process.ScratchWorker`, :attr:`transport`).

    Args:
        assignment: what is graded.
        submission: the folder that holds ``<assignment>/``.
    """

    def __init__(self, assignment: Assignment, submission: Path, *, isolation: str = "none",
                 timeout: float = DEFAULT_TIMEOUT, hidden: list[Path] = (), references: Path | None = None,
                 memory_gib: float = DEFAULT_MEMORY_GIB, budget: float = DEFAULT_BUDGET):
        self.assignment = assignment
        self.folder = Path(submission) / assignment.name
        references = references if references is not None else course.solutions_dir()
        prerequisites = {name: references / name for name in assignment.requires}
        self.timeout = timeout
        self.memory_gib = memory_gib  # named in a failure's message
        self.budget = budget
        self.spent = 0.0  # seconds of start-ups and calls so far
        self.hung: set[str] = set()
        self.files: dict[str, bytes] = {}
        self.refused: SubmissionRefused | None = None
        if self.folder.is_dir() or self.folder.is_symlink():
            try:
                self.files = read_modules(self.folder)
                taken = {path.stem for f in prerequisites.values() for path in f.glob("*.py")}
                refuse_shadowing(assignment.name, self.files, taken)
            except SubmissionRefused as exc:
                self.refused, self.files = exc, {}
            else:
                # Given code the submission leaves out (a5's incremental.py), as released, so
                # that the student's modules import it as in their copy (uploads do the same).
                for name, text in given_modules(references / assignment.name).items():
                    self.files.setdefault(name, text.encode("utf-8"))
        self.redaction = Redaction(assignment, self.files, references)
        self.refusals = self._scan() if self.files else {}
        folders = {assignment.name: self.files}
        folders.update({name: read_modules(path) if path.is_dir() else {} for name, path in prerequisites.items()})
        forbidden_names = tuple(sorted({n for ns in assignment.forbidden.values() for n in ns}))
        # Started on the first request; its peak memory and slowest call are read after close().
        self.transport = ScratchWorker(folders, hidden, isolation, memory_gib=memory_gib, forbidden=forbidden_names)

    def _scan(self) -> dict[str, list[forbidden.Finding]]:
        """Forbidden shortcuts per module; helper modules of the student's count for all."""
        names = tuple(sorted({n for ns in self.assignment.forbidden.values() for n in ns}))
        found: dict[str, list[forbidden.Finding]] = {}
        helpers: list[forbidden.Finding] = []
        for name, source in own_sources(self.files):
            stem = Path(name).stem
            own = self.assignment.forbidden.get(stem)
            hits = forbidden.scan(source, own or names, name)
            if stem in self.assignment.modules:
                found[stem] = hits
            else:
                helpers += hits
        return {m: found.get(m, []) + helpers for m in self.assignment.modules}

    def close(self) -> None:
        self.transport.close()

    # ---------------------------------------------------------------- requests

    def _check_target(self, target: str) -> None:
        """``target`` names one of the assignment's modules and uses no forbidden shortcut."""
        name = self.assignment.name
        module = target.split(".")[0]
        if module not in self.assignment.modules:
            raise ValueError(f"grader bug: {target!r} is not in {name}'s modules {self.assignment.modules}")
        if self.refusals.get(module):
            uses = "; ".join(str(f) for f in self.refusals[module])
            raise CheckFailure(
                f"no credit for {module}.py: it uses what this exercise asks you to build ({uses})",
                f"sin puntos para {module}.py: usa lo que este ejercicio te pide construir ({uses})",
            ).naming(checks.Mistake(
                f"a built-in does the exercise for you ({uses}): write it yourself with tensor operations",
                f"una función ya hecha resuelve el ejercicio por ti ({uses}): escríbelo tú con operaciones de "
                "tensores"))

    def _request(self, op: str, target: str, fields: dict, *, checked: list[str] | None = None,
                 timeout: float | None = None) -> dict:
        """Send one request; the reply holds "ok" or "error". Transport failures raise.

        ``target`` names the request in messages; ``checked`` lists the submission targets
        it runs (default: ``[target]``), each checked as :meth:`_check_target` says.
        """
        name = self.assignment.name
        if self.refused is not None:
            raise CheckFailure(self.refused.en, self.refused.es)
        if not self.folder.is_dir():
            raise CheckFailure(
                f"{name}/ is missing from the submission",
                f"falta la carpeta {name}/ en la entrega",
            )
        for each in ([target] if checked is None else checked):
            self._check_target(each)
        left = self.budget - self.spent
        budget_used = CheckFailure(
            f"the time budget of {self.budget:g} s for your code in {name} (start-ups and calls together) "
            "is used up, so this check did not run",
            f"se agotó el tiempo total de {self.budget:g} s para tu código en {name} (arranques y llamadas "
            "juntos), así que esta prueba no se ejecutó",
        )
        if left <= 0:
            raise budget_used
        limit = self.timeout if timeout is None else timeout
        limit = min(limit, RETRY_TIMEOUT) if target in self.hung else limit
        by_budget = left < limit
        limit = min(limit, left)
        started = time.monotonic()
        try:
            reply = self.transport.request({"op": op, "target": target, **fields}, limit,
                                            startup_timeout=min(STARTUP_TIMEOUT, left))
        except StudentFailure as exc:
            if exc.kind == "timeout" or (exc.kind == "startup" and time.monotonic() - started >= left):
                if by_budget or time.monotonic() - started >= left:
                    raise budget_used from None
                self.hung.add(target)
                raise CheckFailure(
                    f"{target} did not finish within {limit:g} s (an infinite loop?)",
                    f"{target} no terminó en {limit:g} s (¿un bucle infinito?)",
                ) from None
            raise CheckFailure(
                f"running {target} failed: {exc.detail}",
                f"la ejecución de {target} falló: {exc.detail}",
            ) from None
        finally:
            self.spent += time.monotonic() - started
        return self.redaction.clean(reply)

    def _run(self, op: str, target: str, fields: dict, **options):
        reply = self._request(op, target, fields, **options)
        if "error" in reply:
            error = self.redaction.error(reply, _step_targets(fields))
            raise self._error_failure(error.pop("target", None) or target, error)
        return reply["ok"]

    def shorten_quotes(self, feedback: str) -> str:
        """``feedback`` with long strings the worker returned cut short (:mod:`.redaction`)."""
        return self.redaction.shorten_quotes(feedback)

    def _error_failure(self, target: str, error: dict) -> CheckFailure:
        kind, message, where = error["type"], error["message"], error["where"]
        if is_not_implemented(error):
            return CheckFailure(message, f"aún sin implementar: {message[len(NOT_IMPLEMENTED):]}")
        at = f" ({where})" if where else ""
        if kind == "ForbiddenShortcut" and message:
            return CheckFailure(
                f"no credit for {target}: it called {message}{at}, which this exercise asks you to build",
                f"sin puntos para {target}: llamó a {message}{at}, que este ejercicio te pide construir",
            )
        if error.get("memory"):
            return CheckFailure(
                f"{target} exceeded the memory limit ({self.memory_gib:g} GiB){at}",
                f"{target} superó el límite de memoria ({self.memory_gib:g} GiB){at}",
            )
        if error.get("tasks"):
            return CheckFailure(
                f"{target} exceeded the limit on processes and threads ({MAX_TASKS - 1}){at}",
                f"{target} superó el límite de procesos e hilos ({MAX_TASKS - 1}){at}",
            )
        known = error.get("known")
        if known is None and kind in ("ValueError", "AssertionError") and where.endswith(" in __init__"):
            known = known_errors.REFUSED_VALID_ARGUMENTS
        elif known is None and kind in ("ValueError", "AssertionError", "IndexError") and error.get("own"):
            known = known_errors.REFUSED_BY_OWN_CHECK
        if self.redaction.beside_reference and not message:
            return CheckFailure(
                f"{target} raised {kind}{at}; its message is not shown because reference code runs beside "
                "yours here (the public tests show it)",
                f"{target} lanzó {kind}{at}; su mensaje no se muestra porque aquí se ejecuta código de "
                "referencia junto al tuyo (las pruebas públicas lo muestran)",
            ).shaped(known)
        return CheckFailure(f"{target} raised {kind}: {message}{at}", f"{target} lanzó {kind}: {message}{at}").shaped(
            known)

    def _expected_error(self, reply: dict, fields: dict, label: str) -> dict | None:
        if "error" not in reply:
            return None
        error = self.redaction.error(reply, _step_targets(fields))
        if is_not_implemented(error):
            raise self._error_failure(error.get("target") or label, error)
        raw = reply["error"].get("message") if isinstance(reply["error"], dict) else None
        error["shown"] = (error["message"]
                          or "[message not shown: reference code runs beside yours / mensaje no mostrado]")
        error["message"] = text(raw, 300)
        return error

    def error_of(self, target: str, *args, **kwargs) -> dict | None:
        """The exception ``target(*args, **kwargs)`` raises ({type, message, shown, where}), or None.

        For graders that expect an error; "not implemented yet" still fails the check.
        ``message`` is the exception's own text, for checks only; a failure message
        quotes ``shown``, which is empty of free text when reference code ran beside the
        student's (it could carry that code out, encoded).
        """
        fields = {"args": list(args), "kwargs": kwargs}
        return self._expected_error(self._request("call", target, fields), fields, target)

    def call(self, target: str, *args, model_spec: dict | None = None, generator_seed: int | None = None, **kwargs):
        """``target(*args, **kwargs)`` in the student's process; the result as plain data.

        ``model_spec`` (``{target, config, state, dtype}``) builds a module there and passes
        it first, in eval mode; ``generator_seed`` passes ``generator=`` a seeded
        ``torch.Generator``. Neither object could cross the wire itself.
        """
        fields = {"args": list(args), "kwargs": kwargs, "model": model_spec, "generator_seed": generator_seed}
        return self._run("call", target, fields)

    def grad(self, target: str, *args, wrt, grad_output, output=None, **kwargs):
        """Call ``target``, backpropagate ``grad_output`` through the result (or through
        ``result[output]``) and return ``(result, [grad of args[i] for i in wrt])``."""
        reply = self._run("grad", target, {
            "args": list(args), "kwargs": kwargs, "wrt": list(wrt), "output": output, "grad_output": grad_output,
        })
        if not isinstance(reply, dict) or not isinstance(reply.get("grads"), list) or "result" not in reply:
            raise _mismatch(target, "no gradient list")
        grads = reply["grads"]
        if len(grads) != len(wrt) or not all(_tensor_or_none(g) for g in grads):
            raise _mismatch(target, f"{len(wrt)} gradients asked for, {len(grads)} values came back")
        return reply["result"], grads

    def module(self, target: str, *init_args, **fields) -> dict:
        """Build ``target(*init_args, **init_kwargs)`` and report on it; see ``harness.op_module``."""
        reply = self._run("module", target, {"init_args": list(init_args), **fields})
        self._check_module_report(target, reply, fields)
        return reply

    @staticmethod
    def _check_module_report(target: str, reply, fields: dict) -> None:
        if not isinstance(reply, dict) or not isinstance(reply.get("parameters"), dict):
            raise _mismatch(target, "no parameter report")
        for entry in reply["parameters"].values():
            if not (isinstance(entry, dict) and isinstance(entry.get("value"), torch.Tensor)
                    and isinstance(entry.get("requires_grad"), bool)):
                raise _mismatch(target, "a parameter without a tensor value")
        if not (isinstance(reply.get("buffers"), list) and all(isinstance(b, str) for b in reply["buffers"])
                and type(reply.get("num_parameters")) is int and isinstance(reply.get("attributes"), dict)):
            raise _mismatch(target, "buffers, parameter count or attributes missing")
        if "inputs" in fields and "output" not in reply:
            raise _mismatch(target, "no output")
        if "inputs" in fields and fields.get("grad_output") is not None:
            wrt = [x for x in fields["inputs"] if isinstance(x, torch.Tensor) and x.is_floating_point()]
            grads, param_grads = reply.get("input_grads"), reply.get("param_grads")
            if not (isinstance(grads, list) and len(grads) == len(wrt) and all(_tensor_or_none(g) for g in grads)):
                raise _mismatch(target, f"{len(wrt)} input gradients asked for")
            if not (isinstance(param_grads, dict) and param_grads.keys() >= reply["parameters"].keys()
                    and all(_tensor_or_none(g) for g in param_grads.values())):
                raise _mismatch(target, "parameter gradients missing")

    def _script_fields(self, steps, model_spec, returns, state):
        """Validate a script in this process: (label for messages, submission targets, request fields)."""
        kept = {"model"} if model_spec is not None else set()
        checked = []
        for step in steps:
            if not (isinstance(step, (list, tuple)) and len(step) == 4 and isinstance(step[0], str)
                    and isinstance(step[1], str) and isinstance(step[2], (list, tuple)) and isinstance(step[3], dict)):
                raise ValueError(f"grader bug: a script step is [name, target, args, kwargs], got {step!r}")
            name, target = step[0], step[1]
            unknown = sorted(_references(step[2:]) - kept)
            if unknown:
                raise ValueError(f"grader bug: script step {name!r} refers to {unknown} before they are stored")
            if target.startswith("$"):
                if target[1:].partition(".")[0] not in kept:
                    raise ValueError(f"grader bug: script step {name!r} calls {target!r} before it is stored")
            elif target not in SCRIPT_TORCH:
                checked.append(target)
            kept.add(name)
        missing = [name for name in returns if name not in kept]
        if missing or (state and "state" in returns) or (state and model_spec is None):
            raise ValueError(f"grader bug: script returns {list(returns)} (state={state}) but stores {sorted(kept)}")
        label = ", ".join(dict.fromkeys(checked)) or "script"
        fields = {"steps": [list(step) for step in steps], "model": model_spec, "returns": list(returns),
                  "state": state}
        return label, checked, fields

    def script(self, steps: list, *, model_spec: dict | None = None, returns: list[str] = (),
               timeout: float | None = None, state: bool = False) -> dict:
        """Run ``steps`` one after the other in the student's process; see ``harness.op_script``.

        Each step is ``[name, target, args, kwargs]``; its result is kept under ``name``.
        In ``args`` and ``kwargs``, at any depth, ``{"$": name}`` stands for a kept object
        and ``{"$params": name}`` for ``list(obj.parameters())``. A target is a
        ``"module.qualname"`` of the submission (checked like :meth:`call`'s), a method
        ``"$name.method"`` of a kept object, or one of ``harness.SCRIPT_TORCH`` (optimizers,
        ``torch.Generator``, ``getattr``, ``scratch_file`` for a file to read or write,
        text or bytes). ``model_spec`` is built first, in eval mode, and kept as
        ``"model"``. Returns ``{name: value for name in returns}`` as plain data (objects
        that have none arrive as ``wire.Unsupported``), plus ``"state"``, the model's
        parameters after the steps, when ``state`` is set. ``timeout`` replaces the
        per-request limit for this one request (a training run needs more than a call).
        """
        label, checked, fields = self._script_fields(steps, model_spec, returns, state)
        reply = self._run("script", label, fields, checked=checked, timeout=timeout)
        expected = set(returns) | ({"state"} if state else set())
        if not isinstance(reply, dict) or set(reply) != expected:
            raise _mismatch(label, f"values {sorted(expected)} asked for")
        if state and not (isinstance(reply["state"], dict)
                          and all(isinstance(v, torch.Tensor) for v in reply["state"].values())):
            raise _mismatch(label, "model parameters missing")
        return reply

    def script_error(self, steps: list, *, model_spec: dict | None = None, timeout: float | None = None) -> dict | None:
        """The exception a script raises ({type, message, shown, where, target}), or None if
        every step succeeds; like :meth:`error_of`, "not implemented yet" still fails the
        check, and failure messages quote ``shown``, never ``message``."""
        label, checked, fields = self._script_fields(steps, model_spec, [], False)
        reply = self._request("script", label, fields, checked=checked, timeout=timeout)
        return self._expected_error(reply, fields, label)
