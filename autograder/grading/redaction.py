"""What of a worker's replies may reach a student's feedback: the redaction policy.

An assignment that imports earlier ones (a4 imports a1-a3) runs against the *reference*
versions of those, so reference code sits in the student's process, which may read it and
try to send it back. So every text that comes back from that process is redacted of any
line of a reference solution region before it reaches feedback, and nothing it prints is
kept at all. Redaction alone cannot stop a line leaving encoded (base64, reversed, one
character at a time), so with reference code beside the student's no free text comes back
at all: an exception is its type (a built-in one, or "an exception of your own class") and
the file:line of the student's own code, checked against the student's files; its message
only when it is one the grading process can check (not implemented, a forbidden call); and
a long string the code returned is quoted by its first characters only.

Without reference code beside it (a1, a2) a message is kept, less any quote of the reference.
:class:`~autograder.grading.student.Student` applies this to every reply.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from ..course import Assignment
from ..markers import NOT_IMPLEMENTED
from ..sandbox.child import wire
from ..sandbox.child.harness import forbidden_name
from ..sandbox.child.wire import Unsupported
from ..stubs import solution_code_lines
from . import known_errors

QUOTE_LIMIT = 24  # characters of a returned string that feedback may quote, with reference code beside
WITHHELD = "[message withheld: it quoted reference code / mensaje ocultado: citaba código de referencia]"
# Exception type names shown as they are when reference code ran beside the student's.
_KNOWN_TYPES = frozenset(name for name, value in vars(builtins).items()
                         if isinstance(value, type) and issubclass(value, BaseException)) | {
    "HarnessError", "ForbiddenShortcut", "OutOfMemoryError", "LinAlgError",
    "UnpicklingError"}  # torch.load(..., weights_only=True) refusing a file (a6's checkpoint.py)
_KNOWN_VALUE_TYPES = frozenset(name for name, value in vars(builtins).items() if isinstance(value, type)) | {
    "Tensor", "Parameter", "Module", "Generator", "device", "dtype", "function", "method", "generator"}
_WHERE = re.compile(r"([\w.-]+\.py):(\d{1,6}) in ([\w<>]{1,80})")
_QUALNAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,3}")


def text(value, limit: int) -> str:
    """``value`` if it is a string, cut to ``limit`` characters; else empty."""
    return value[:limit] if isinstance(value, str) else ""


def own_sources(files: dict[str, bytes]):
    """(file name, text) of the student's modules, tests and conftest.py aside."""
    for name, data in files.items():
        if not (name.startswith("test_") or name == "conftest.py"):
            yield name, data.decode("utf-8", errors="replace")


def defined_names(sources) -> set[str]:
    """Functions and classes that ``sources`` ((name, text) pairs) define: the names an
    error location or "not implemented" may cite."""
    names = {"<module>", "<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"}
    for _, source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        names |= {n.name for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return names


def is_not_implemented(error: dict) -> bool:
    """Whether a redacted error is a stub's "not implemented yet"."""
    return error["type"] == "NotImplementedError" and error["message"].startswith(NOT_IMPLEMENTED)


class Redaction:
    """The policy for one assignment of one submission.

    Args:
        assignment: what is graded (its forbidden names are the forbidden calls a message
            may name).
        files: the student's modules, by file name (their definitions and file names may
            be cited).
        references: the reference solutions' folder (the assignment's own definitions may
            be cited too; its prerequisites' solution lines are the secrets).
    """

    def __init__(self, assignment: Assignment, files: dict[str, bytes], references: Path):
        self.assignment = assignment
        self.files = files
        prerequisites = [references / name for name in assignment.requires]
        # With reference code in the student's process, no free text comes back.
        self.beside_reference = bool(prerequisites)
        # Redaction errs on the wide side: every solution line of 8+ characters counts.
        self.secrets = solution_code_lines([p for f in prerequisites for p in f.glob("*.py")], min_len=8)
        reference = [(path.name, path.read_text(encoding="utf-8"))
                     for path in sorted((references / assignment.name).glob("*.py"))]
        self.defined = defined_names(own_sources(files)) | defined_names(reference)
        self.returned: set[str] = set()  # long strings from a worker that holds reference code

    def redact(self, value: str) -> str:
        """``value``, or a note in its place if it quotes a reference line."""
        if any(line in value for line in self.secrets):
            return WITHHELD
        return value

    def clean(self, value, depth: int = 0):
        """A reply as a grader may see it. With reference code in the student's process,
        the names of unsupported objects are free text too: only built-in type names stay;
        and long strings are noted, so that feedback quotes only their beginning
        (:meth:`shorten_quotes`)."""
        if not self.beside_reference or depth > wire.MAX_DEPTH:
            return value
        if isinstance(value, Unsupported):
            return value if value.type_name in _KNOWN_VALUE_TYPES else Unsupported("object")
        if isinstance(value, str):
            if len(value) > QUOTE_LIMIT and len(self.returned) < 100_000:
                self.returned.add(value)
            return value
        if isinstance(value, list):
            return [self.clean(v, depth + 1) for v in value]
        if isinstance(value, dict):
            return {self.clean(k, depth + 1): self.clean(v, depth + 1) for k, v in value.items()}
        return value

    def shorten_quotes(self, feedback: str) -> str:
        """``feedback`` with every long string that came back from a worker holding
        reference code cut to its first characters: a grader's message may quote what the
        code returned, and that could be reference code, encoded."""
        for value in sorted(self.returned, key=len, reverse=True):
            if self.checked(value):  # whole in one language, whole in the other: it can carry no code
                continue
            for form in {value, repr(value)[1:-1]}:  # quoted as is, or inside a repr
                head = form[:QUOTE_LIMIT]
                start = feedback.find(head)
                while start >= 0:  # quotes start at the beginning of a value, maybe cut short
                    end = start + QUOTE_LIMIT
                    while end < len(feedback) and end - start < len(form) and feedback[end] == form[end - start]:
                        end += 1
                    if end > start + QUOTE_LIMIT:
                        feedback = feedback[:start + QUOTE_LIMIT] + "…" + feedback[end:]
                    start = feedback.find(head, start + 1)
        return feedback

    def checked(self, value: str) -> bool:
        """Is ``value`` a string the grading process checks before it shows it, so that
        feedback may quote it whole: a "not implemented yet: Name.method" naming the
        student's own definitions, or a ``file.py:LINE in name`` of the student's own code?"""
        return self.names_own_stub(value) or bool(value) and self.where(value) == value

    def names_own_stub(self, message: str) -> bool:
        """Is ``message`` "not implemented yet: " and a name the student's files define?"""
        qualname = message[len(NOT_IMPLEMENTED):]
        return (message.startswith(NOT_IMPLEMENTED) and bool(_QUALNAME.fullmatch(qualname))
                and all(part in self.defined for part in qualname.split(".")))

    def where(self, where: str) -> str:
        """``file.py:LINE in name`` if it names the student's own file and definition."""
        match = _WHERE.fullmatch(where)
        if not match or match.group(1) not in self.files:
            return ""
        name = match.group(3) if match.group(3) in self.defined else "?"
        return f"{match.group(1)}:{int(match.group(2))} in {name}"

    def message(self, kind: str, message: str) -> str:
        """The exception's message, or, with reference code beside the student's, only
        the two messages the grading process can check: not implemented, forbidden call."""
        if not self.beside_reference:
            return self.redact(message)
        if kind == "NotImplementedError" and self.names_own_stub(message):
            return message
        if kind == "ForbiddenShortcut" and _QUALNAME.fullmatch(message) and message.startswith("torch"):
            names = {n for ns in self.assignment.forbidden.values() for n in ns}
            if forbidden_name(message.rsplit(".", 1)[-1], names):
                return message
        return ""

    def error(self, reply: dict, steps: tuple[str, ...] = ()) -> dict:
        """The student's exception in ``reply`` as {type, message, where, memory, tasks, known}:
        bounded, checked strings, and whether it ran out of memory or of processes;
        ``known``, the usual cause of a well-known error (one of ``known_errors``' fixed
        texts, also where the message is withheld); ``target``, the script step that
        raised, when it is one of ``steps``."""
        error = reply["error"] if isinstance(reply["error"], dict) else {}
        kind = text(error.get("type"), 80)
        if self.beside_reference:
            kind = kind if kind in _KNOWN_TYPES else "an exception of its own class"
            where = self.where(text(error.get("where"), 200))
        else:
            kind, where = self.redact(kind), self.redact(text(error.get("where"), 120))
        raw = text(error.get("message"), 300)
        message = self.message(kind, raw)
        found = {"type": kind, "message": message, "where": where,
                 "memory": kind in ("MemoryError", "OutOfMemoryError") or "can't allocate memory" in raw,
                 # fork() or a new thread refused by the sandbox's cap on processes and threads
                 "tasks": (kind == "BlockingIOError" and "Resource temporarily unavailable" in raw)
                 or (kind == "RuntimeError" and "can't start new thread" in raw),
                 "known": known_errors.explain(kind, raw, quote=False) if self.beside_reference
                 else known_errors.explain(kind, message),
                 "own": error.get("own") is True}
        step = text(error.get("target"), 120)
        if step in steps:  # the script step that raised; "$vocab.encode" reads "vocab.encode"
            found["target"] = step.lstrip("$")
        return found
