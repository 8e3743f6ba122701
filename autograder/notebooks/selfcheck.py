"""Check your notebook yourself: the public checks of one exercise, run on your code.

    from selfcheck import check
    check("masks")   # the checks in public_tests/test_masks.py, on the masks you wrote here
    check()          # every public check of this notebook

Each check prints one line, PASSED / SUPERADO or FAILED / NO SUPERADO, with the reason of a
failure. These are the public tests of the course (the ones ``pytest assignments`` runs),
not your grade: the grade comes from hidden tests that check more. Run the cells that
define your code first; a name the notebook has not defined yet counts as not implemented.

Compruébalo tú: ``check("masks")`` ejecuta las comprobaciones públicas de un ejercicio
sobre el código de este cuaderno y escribe una línea por comprobación. No es tu nota: la
nota sale de tests ocultos que comprueban más.

This file is copied next to each notebook by the course's build, with ``COURSE_MODULES``
filled in; it imports nothing of the course package (students do not have it), only the
standard library and pytest, which runs the checks in this kernel.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TESTS = HERE / "public_tests"
COURSE_MODULES: tuple[str, ...] = ()  # the course's module names, which the checks import (set by the build)
SKIP_VARIABLE = "COURSE_SELFCHECK"  # "off" while a notebook is autograded: the grade never depends on these
NOT_IMPLEMENTED = "not implemented yet: "
_PASS, _FAIL = "PASSED / SUPERADO", "FAILED / NO SUPERADO"


@dataclass
class Outcome:
    name: str  # the test function, e.g. "test_causal_mask_is_lower_triangular"
    question: str  # its docstring's first line
    passed: bool
    reason: str = ""  # why it failed, short


class _Missing:
    """Stands for a name the notebook has not defined (yet): using it fails as a stub would."""

    def __init__(self, qualified: str):
        self._qualified = qualified

    def _fail(self, *args, **kwargs):
        raise NotImplementedError(f"{NOT_IMPLEMENTED}{self._qualified}")

    __call__ = _fail

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._fail()


class _NotebookModule(types.ModuleType):
    """A module whose attributes are the notebook's definitions, so that a check's
    ``from masks import causal_mask`` gets the function written in the notebook.

    Setting or deleting an attribute changes the notebook's namespace: in a notebook every
    exercise shares one namespace, so a check that replaces ``decoding.decode`` (pytest's
    ``monkeypatch``) must replace the ``decode`` that the notebook's ``translate`` calls."""

    def __init__(self, name: str, namespace: dict):
        super().__init__(name)
        vars(self)["_namespace"] = namespace

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        namespace = vars(self)["_namespace"]
        if attr in namespace:
            return namespace[attr]
        return _Missing(f"{self.__name__}.{attr}")

    def __setattr__(self, attr, value):
        if attr.startswith("__"):
            super().__setattr__(attr, value)
        else:
            vars(self)["_namespace"][attr] = value

    def __delattr__(self, attr):
        if attr.startswith("__"):
            super().__delattr__(attr)
        else:
            vars(self)["_namespace"].pop(attr, None)


class _Collector:
    """pytest plugin: the fixture the public tests read, and each test's outcome."""

    def __init__(self):
        self.outcomes: list[Outcome] = []
        self._questions: dict[str, str] = {}  # test id -> its docstring's first line

    def _add(self, report, item_name: str, question: str) -> None:
        reason = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            reason = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
            if NOT_IMPLEMENTED in reason:
                missing = reason.split(NOT_IMPLEMENTED, 1)[1].strip()
                reason = f"{NOT_IMPLEMENTED}{missing} / aún sin implementar: {missing}"
            lines = reason.splitlines()
            reason = lines[0] + (" …" if len(lines) > 1 else "")
        self.outcomes.append(Outcome(item_name, question, report.passed, reason))

    def pytest_collectreport(self, report):
        if report.failed:
            text = str(report.longrepr).strip().splitlines()
            self.outcomes.append(Outcome(Path(str(report.nodeid)).name, "", False,
                                         "could not load the checks / no se pudieron cargar: "
                                         + (text[-1] if text else "")))

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self._add(report, report.nodeid.split("::")[-1], self._questions.get(report.nodeid, ""))

    def pytest_collection_modifyitems(self, items):
        self._questions = {
            item.nodeid: ((getattr(item.function, "__doc__", None) or "").strip().splitlines() or [""])[0]
            for item in items
        }

    @pytest.fixture(scope="session")
    def course_data(self):
        """``course_data("a1_attention/x.json")``: the data file of that name beside the notebook."""

        def load(relative):
            return json.loads((HERE / Path(relative).name).read_text(encoding="utf-8"))

        return load


@contextlib.contextmanager
def _course_modules(namespace: dict):
    saved = {name: sys.modules.get(name) for name in COURSE_MODULES}
    sys.modules.update({name: _NotebookModule(name, namespace) for name in COURSE_MODULES})
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _forget_test_modules() -> None:
    # pytest keeps imported test modules; a later check must import them afresh so that
    # their ``from masks import ...`` sees the notebook's current definitions.
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().parent == TESTS:
            del sys.modules[name]


def files(name: str | None = None) -> list[Path]:
    available = sorted(TESTS.glob("test_*.py"))
    if name is None:
        return available
    wanted = TESTS / f"test_{name.removeprefix('test_').removesuffix('.py')}.py"
    if wanted not in available:
        known = ", ".join(repr(p.stem.removeprefix("test_")) for p in available)
        raise ValueError(f"no public checks named {name!r}; this notebook has {known} / "
                         f"no hay comprobaciones llamadas {name!r}; este cuaderno tiene {known}")
    return [wanted]


def run(name: str | None = None, namespace: dict | None = None) -> list[Outcome]:
    """The outcome of every public check of ``name`` (all when None) on the definitions in
    ``namespace`` (the notebook's, by default)."""
    if namespace is None:
        namespace = vars(sys.modules["__main__"])
    paths = files(name)
    collector = _Collector()
    args = [*map(str, paths), "-c", str(TESTS / "pytest.ini"), "--rootdir", str(TESTS),
            "--import-mode=importlib", "--capture=sys", "-p", "no:cacheprovider", "-p", "no:terminal"]
    old_autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the student's other pytest plugins stay out
    try:
        _forget_test_modules()
        with _course_modules(namespace):
            code = pytest.main(args, plugins=[collector])
    finally:
        _forget_test_modules()
        if old_autoload is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = old_autoload
    if not collector.outcomes:
        collector.outcomes.append(Outcome(", ".join(p.name for p in paths), "", False,
                                          f"pytest could not run the checks (exit {int(code)}) / "
                                          f"pytest no pudo ejecutar las comprobaciones (salida {int(code)})"))
    return collector.outcomes


def check(name: str | None = None, namespace: dict | None = None) -> None:
    """Print one PASSED / FAILED line per public check of ``name`` (see the module's docstring)."""
    label = name or "all / todas"
    if os.environ.get(SKIP_VARIABLE) == "off":
        print(f"Self-check {label} skipped while grading / autocomprobación omitida durante la calificación")
        return
    outcomes = run(name, namespace)
    print(f"Public checks: {label} / Comprobaciones públicas: {label}")
    for outcome in outcomes:
        status = _PASS if outcome.passed else _FAIL
        print(f"  {'✓' if outcome.passed else '✗'} {status:<20}  {outcome.name}")
        if outcome.question:
            print(f"      {outcome.question}")
        if outcome.reason:
            print(f"      → {outcome.reason}")
    passed = sum(o.passed for o in outcomes)
    print(f"{passed}/{len(outcomes)} passed / superadas. Public checks only: your grade comes from hidden tests. "
          f"/ Solo comprobaciones públicas: la nota sale de tests ocultos.")
