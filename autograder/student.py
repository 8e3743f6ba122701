"""The grading process's handle on one assignment of a submission.

Hidden graders ask it to run the student's code (``call``, ``grad``, ``module``, and
``script`` to compose several calls on objects that stay in the student's process) and get
plain data back; they never import that code. Every failure on the student's side
(exception, time-out, crash, unreadable reply, forbidden shortcut, missing folder)
becomes a :class:`~autograder.checks.CheckFailure` with a message for the student.

Prerequisites: an assignment that imports earlier ones (a4 imports a1-a3) runs against
the *reference* versions of those, so a broken a1 costs points in a1 only. That puts
reference code in the student's process, which may read it; so every text that comes
back from that process is redacted of any line of a reference solution region before it
reaches feedback, and nothing it prints is kept at all.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from . import course, forbidden
from .checks import CheckFailure
from .course import Assignment
from .harness import SCRIPT_TORCH
from .isolation import DEFAULT_TIMEOUT
from .sandbox import StudentFailure, StudentProcess, make_scratch
from .stubs import NOT_IMPLEMENTED, solution_code_lines

RETRY_TIMEOUT = 3.0  # for a target that has already timed out once


def _text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _references(value) -> set[str]:
    """Names that ``{"$": name}`` / ``{"$params": name}`` placeholders in ``value`` refer to."""
    if isinstance(value, dict):
        if len(value) == 1 and ("$" in value or "$params" in value):
            return {next(iter(value.values()))}
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return set().union(*(_references(v) for v in value))
    return set()


class Student:
    def __init__(self, assignment: Assignment, submission: Path, *, isolation: str = "none",
                 timeout: float = DEFAULT_TIMEOUT, hidden: list[Path] = (), references: Path | None = None):
        self.assignment = assignment
        self.folder = Path(submission) / assignment.name
        references = references if references is not None else course.solutions_dir()
        self.prerequisites = {name: references / name for name in assignment.requires}
        # Redaction errs on the wide side: every solution line of 8+ characters counts.
        self.secrets = solution_code_lines([p for f in self.prerequisites.values() for p in f.glob("*.py")], min_len=8)
        self.isolation = isolation
        self.timeout = timeout
        self.hidden = list(hidden)
        self.hung: set[str] = set()
        self.refusals = self._scan() if self.folder.is_dir() else {}
        self._scratch: Path | None = None
        self._proc: StudentProcess | None = None

    def _scan(self) -> dict[str, list[forbidden.Finding]]:
        """Forbidden shortcuts per module; helper modules of the student's count for all."""
        names = tuple(sorted({n for ns in self.assignment.forbidden.values() for n in ns}))
        found: dict[str, list[forbidden.Finding]] = {}
        helpers: list[forbidden.Finding] = []
        for path in sorted(self.folder.glob("*.py")):
            if path.name.startswith("test_") or path.name == "conftest.py":
                continue
            own = self.assignment.forbidden.get(path.stem)
            hits = forbidden.scan(path.read_text(encoding="utf-8", errors="replace"), own or names, path.name)
            if path.stem in self.assignment.modules:
                found[path.stem] = hits
            else:
                helpers += hits
        return {m: found.get(m, []) + helpers for m in self.assignment.modules}

    # ---------------------------------------------------------------- process

    def _process(self) -> StudentProcess:
        if self._proc is None:
            folders = {self.assignment.name: self.folder, **self.prerequisites}
            self._scratch = make_scratch(folders)
            self._proc = StudentProcess(self._scratch, list(folders), self.hidden, self.isolation)
        return self._proc

    def close(self) -> None:
        if self._proc is not None:
            self._proc.stop()
            self._proc = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

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
            )

    def _request(self, op: str, target: str, fields: dict, *, checked: list[str] | None = None,
                 timeout: float | None = None) -> dict:
        """Send one request; the reply holds "ok" or "error". Transport failures raise.

        ``target`` names the request in messages; ``checked`` lists the submission targets
        it runs (default: ``[target]``), each checked as :meth:`_check_target` says.
        """
        name = self.assignment.name
        if not self.folder.is_dir():
            raise CheckFailure(
                f"{name}/ is missing from the submission",
                f"falta la carpeta {name}/ en la entrega",
            )
        for each in ([target] if checked is None else checked):
            self._check_target(each)
        limit = self.timeout if timeout is None else timeout
        limit = min(limit, RETRY_TIMEOUT) if target in self.hung else limit
        try:
            reply = self._process().request({"op": op, "target": target, **fields}, limit)
        except StudentFailure as exc:
            if exc.kind == "timeout":
                self.hung.add(target)
                raise CheckFailure(
                    f"{target} did not finish within {limit:g} s (an infinite loop?)",
                    f"{target} no terminó en {limit:g} s (¿un bucle infinito?)",
                ) from None
            raise CheckFailure(
                f"running {target} failed: {exc.detail}",
                f"la ejecución de {target} falló: {exc.detail}",
            ) from None
        return reply

    def _run(self, op: str, target: str, fields: dict, **options):
        reply = self._request(op, target, fields, **options)
        if "error" in reply:
            error = self._error(reply)
            raise self._error_failure(error.pop("target", None) or target, error)
        return reply["ok"]

    def _redact(self, text: str) -> str:
        if any(line in text for line in self.secrets):
            return "[message withheld: it quoted reference code / mensaje ocultado: citaba código de referencia]"
        return text

    def _error(self, reply: dict) -> dict:
        """The student's exception as {type, message, where}: bounded, redacted strings."""
        error = reply["error"] if isinstance(reply["error"], dict) else {}
        found = {
            "type": self._redact(_text(error.get("type"), 80)),
            "message": self._redact(_text(error.get("message"), 300)),
            "where": self._redact(_text(error.get("where"), 120)),
        }
        step = _text(error.get("target"), 120)
        if step:  # the script step that raised; "$vocab.encode" reads "vocab.encode"
            found["target"] = self._redact(step.lstrip("$"))
        return found

    @staticmethod
    def _not_implemented(error: dict) -> bool:
        return error["type"] == "NotImplementedError" and error["message"].startswith(NOT_IMPLEMENTED)

    @classmethod
    def _error_failure(cls, target: str, error: dict) -> CheckFailure:
        kind, message, where = error["type"], error["message"], error["where"]
        if cls._not_implemented(error):
            return CheckFailure(message, f"aún sin implementar: {message[len(NOT_IMPLEMENTED):]}")
        at = f" ({where})" if where else ""
        return CheckFailure(f"{target} raised {kind}: {message}{at}", f"{target} lanzó {kind}: {message}{at}")

    def error_of(self, target: str, *args, **kwargs) -> dict | None:
        """The exception ``target(*args, **kwargs)`` raises ({type, message, where}), or None.

        For graders that expect an error; "not implemented yet" still fails the check.
        """
        reply = self._request("call", target, {"args": list(args), "kwargs": kwargs})
        if "error" not in reply:
            return None
        error = self._error(reply)
        if self._not_implemented(error):
            raise self._error_failure(target, error)
        return error

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
        if not isinstance(reply, dict) or not isinstance(reply.get("grads"), list):
            raise CheckFailure(f"{target}: unreadable gradient reply", f"{target}: respuesta de gradientes ilegible")
        return reply.get("result"), reply["grads"]

    def module(self, target: str, *init_args, **fields) -> dict:
        """Build ``target(*init_args, **init_kwargs)`` and report on it; see ``harness.op_module``."""
        reply = self._run("module", target, {"init_args": list(init_args), **fields})
        if not isinstance(reply, dict) or not isinstance(reply.get("parameters"), dict):
            raise CheckFailure(f"{target}: unreadable module report", f"{target}: informe del módulo ilegible")
        return reply

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
        ``torch.Generator``, ``getattr``). ``model_spec`` is built first, in eval mode, and
        kept as ``"model"``. Returns ``{name: value for name in returns}`` as plain data
        (objects that have none arrive as ``wire.Unsupported``), plus ``"state"``, the
        model's parameters after the steps, when ``state`` is set. ``timeout`` replaces the
        per-request limit for this one request (a training run needs more than a call).
        """
        label, checked, fields = self._script_fields(steps, model_spec, returns, state)
        reply = self._run("script", label, fields, checked=checked, timeout=timeout)
        if not isinstance(reply, dict):
            raise CheckFailure(f"{label}: unreadable reply", f"{label}: respuesta ilegible")
        return reply

    def script_error(self, steps: list, *, model_spec: dict | None = None, timeout: float | None = None) -> dict | None:
        """The exception a script raises ({type, message, where, target}), or None if every
        step succeeds; like :meth:`error_of`, "not implemented yet" still fails the check."""
        label, checked, fields = self._script_fields(steps, model_spec, [], False)
        reply = self._request("script", label, fields, checked=checked, timeout=timeout)
        if "error" not in reply:
            return None
        error = self._error(reply)
        if self._not_implemented(error):
            raise self._error_failure(error.get("target") or label, error)
        return error
