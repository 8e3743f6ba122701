"""Public-test setup: which modules the tests import, and short "not implemented" reports.

By default the tests import the modules that sit beside them. Instructors point the same
tests at the reference code with ``--course-target solutions`` (or any folder laid out
like this one), or with the environment variable ``COURSE_TARGET``.

Por defecto los tests importan los módulos que están a su lado. Para probar otra carpeta
con la misma estructura: ``--course-target RUTA`` o la variable ``COURSE_TARGET``.
"""

import json
import os
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
COURSE = HERE.parent
NOT_IMPLEMENTED = "not implemented yet: "
_ASSIGNMENT = re.compile(r"a\d+_\w+")


def pytest_addoption(parser):
    try:
        parser.addoption(
            "--course-target",
            default=None,
            help="folder whose aN_* modules the public tests import (default: the tests' own "
            "folder; 'solutions' means the reference code)",
        )
    except ValueError:
        # `pytest assignments --course-target solutions` makes pytest load the twin
        # conftest in solutions/ too, which has registered the option already.
        pass


def _target(config):
    value = config.getoption("--course-target") or os.environ.get("COURSE_TARGET")
    if not value:
        return HERE
    path = Path(value)
    if not path.is_absolute() and not path.exists() and (COURSE / value).exists():
        path = COURSE / value
    path = path.resolve()
    if not path.is_dir():
        raise pytest.UsageError(f"--course-target/COURSE_TARGET: {value!r} is not a folder")
    return path


def pytest_configure(config):
    if hasattr(config, "_course_target"):
        return
    target = _target(config)
    config._course_target = target
    folders = sorted(p for p in target.iterdir() if p.is_dir() and _ASSIGNMENT.fullmatch(p.name))
    for folder in reversed(folders):
        sys.path.insert(0, str(folder))


def pytest_report_header(config):
    return f"course target: {config._course_target}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    if excinfo is None or not excinfo.errisinstance(NotImplementedError):
        return
    message = str(excinfo.value)
    if not message.startswith(NOT_IMPLEMENTED):
        return
    # One line instead of a traceback: the student has simply not written this part yet.
    entry = excinfo.traceback[-1]
    where = f"{Path(str(entry.path)).name}:{entry.lineno + 1}"
    name = message[len(NOT_IMPLEMENTED):]
    report.longrepr = f"{message} ({where}) / aún sin implementar: {name}"


@pytest.fixture(scope="session")
def course_data():
    """``course_data("a1_attention/masked_self_attention.json")`` -> the parsed fixture."""

    def load(relative):
        return json.loads((COURSE / "source_data" / relative).read_text(encoding="utf-8"))

    return load
