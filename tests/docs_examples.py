"""The examples of README.md and docs/*.md as Sybil examples (tests/test_docs.py runs them).

Sybil (https://sybil.readthedocs.io) finds the examples in a page and evaluates each in
order; what is found and how it is checked:

- ```` ```python ```` blocks run, in one namespace per page (torch, pytest and
  `autograder.grading.checks` imported), so a later block may use an earlier one's names.
  `<!-- skip: next "reason" -->` above a block skips it (Sybil's skip directive).
- ```` ```bash ```` blocks: every command of every line (`&&` separates them) is checked.
  `python -m autograder ...`, `python -m autograder.bench.NAME ...` and `translator ...`
  are parsed by the program's own argparse parser, `[optional]` parts dropped; the cheap
  ones (`sync --check`, `--help`) run. `pytest ARGS` runs as `pytest ARGS --collect-only
  -q`, which must collect tests. `pip install` must name files and extras that exist;
  `mkdir`/`cp` are file operations, not checked; any other program fails the example, so a
  new kind of command is a decision.
- ```` ```console ```` blocks: each `$ command` is checked as in a bash block, then run
  (only what is cheap: `pytest --collect-only`, `sync --check`, `--help`), and the lines
  below it are its output, compared with doctest's rules (`...` matches anything).
- Prose: every `python -m autograder ...` or `` `translator ...` `` outside a code block
  is parsed as above (a bare name, `python -m autograder grade`, may leave out what the
  command requires); every quoted full score ("scored 166/166") is the course's total or
  one assignment's; and each of CLAIMS (test counts, classic mistakes) is what the suite
  has today.

Output that takes minutes to produce (a trained translator's sentences, times, BLEU) is
not rerun here: README's quoted translations are checked by the full tier's
tests/test_quickstart.py, and the rest are dated measurements.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import doctest
import importlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from unittest import SkipTest, mock

from sybil import Document, Example, Region, Sybil
from sybil.example import SybilFailure
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from helpers import ROOT

FENCE = re.compile(r"^\s*(```|~~~)")


def documents(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def prose_spans(text: str, but: str = "") -> list[tuple[int, int]]:
    """(start, end) character spans of the lines outside fenced code blocks (but those whose
    language `but` matches: "(?:text)?" keeps the plain and the text blocks)."""
    spans, inside, start, offset = [], None, 0, 0
    for line in text.split("\n"):
        fence = FENCE.match(line)
        if fence and (inside is None or not line.strip().strip("`~")):
            if inside is None and not (but and re.fullmatch(but, line.strip().strip("`~").strip())):
                if offset > start:
                    spans.append((start, offset))
                inside = fence.group(1)
            elif inside is not None:
                inside, start = None, offset + len(line) + 1
        offset += len(line) + 1
    if inside is None and len(text) > start:
        spans.append((start, len(text)))
    return spans


# --- Commands: parsed by the program's own parser, the cheap ones run -----------------------

class _Parsed(Exception):
    """Raised in place of running a command once its arguments are parsed."""


def _program(words: list[str]) -> tuple[str, Callable, list[str]] | None:
    """(name, main, argv) of a `python -m autograder...` or `translator` command line."""
    if words[:2] == ["python", "-m"] and len(words) > 2:
        module = words[2]
        if module == "autograder":
            from autograder import cli
            return module, cli.main, words[3:]
        if re.fullmatch(r"autograder\.bench\.\w+", module):
            try:
                return module, importlib.import_module(module).main, words[3:]
            except ModuleNotFoundError:
                return module, None, words[3:]
    if words[0] == "translator":
        from autograder.translator import cli
        return "translator", cli.main, words[1:]
    return None


# argparse's complaint about a placeholder: `--epochs N`, `--out ...`, `python -m autograder ...`
PLACEHOLDER = re.compile(r"argument ([\w/-]+): invalid [\w ]+: '([A-Z][A-Z0-9_]*|\.\.\.)'")


def refusal(main: Callable | None, argv: list[str]) -> str | None:
    """What argparse says against `main(argv)`'s arguments, or None when they parse. The
    command is not run: main's parse_args raises as soon as it has parsed (every entry point
    of the package parses its arguments first thing). A placeholder where a value belongs
    (`--epochs N`) is not held against it: the option and its placeholder are dropped and the
    rest parsed again."""
    if main is None:
        return "no such module"
    for _ in range(len(argv) + 1):
        why = _parse(main, argv)
        found = PLACEHOLDER.search(why or "")
        if not found:
            return why
        option, value = found.groups()
        at = argv.index(value)
        if "/" in option or not option.startswith("-") or at == 0 or argv[at - 1] != option:
            return None  # a positional placeholder (`python -m autograder ...`): nothing after it to check
        argv = argv[:at - 1] + argv[at + 1:]
    return None


def _parse(main: Callable, argv: list[str]) -> str | None:
    original = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        original(self, args, namespace)
        raise _Parsed

    err = io.StringIO()
    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_only), \
            contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
        except _Parsed:
            return None
        except SystemExit as exc:
            why = (err.getvalue().strip().splitlines() or [f"exit {exc.code}"])[-1]
            return why if exc.code else None  # exit 0: --help
    return "ran without parsing its arguments"


def _drop_optional(command: str) -> str:
    while re.search(r"\[[^\[\]]*\]", command):
        command = re.sub(r"\[[^\[\]]*\]", "", command)
    return command


def _cheap(words: list[str]) -> bool:
    """Run for real: a help page, or sync's check (half a second)."""
    return words[-1] in ("--help", "-h") or words == ["python", "-m", "autograder", "sync", "--check"]


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    # The child is a fresh pytest or CLI: not an xdist worker of ours, not our COURSE_TARGET.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "COURSE_TARGET"}
    return {**env, **extra}


_started: dict[tuple, tuple[subprocess.Popen, object]] = {}
_done: dict[tuple, tuple[int, str]] = {}


def start(command: tuple[str, ...], env: tuple[tuple[str, str], ...] = ()) -> None:
    """Start a command in the checkout, unless it ran or runs already: the docs test starts
    every command of every page at once (prefetch), so that they share the cores."""
    key = (command, env)
    if key in _done or key in _started:
        return
    words = list(command)
    if words[0] in ("python", "pytest"):  # this interpreter, whatever is first on PATH
        words = [sys.executable, *(["-m", "pytest"] if words[0] == "pytest" else []), *words[1:]]
    out = tempfile.TemporaryFile("w+", encoding="utf-8")  # a file: a full pipe would stall the child
    _started[key] = subprocess.Popen(words, cwd=ROOT, env=_clean_env(dict(env)), stdout=out,
                                     stderr=subprocess.STDOUT, text=True), out


def run(command: tuple[str, ...], env: tuple[tuple[str, str], ...] = ()) -> tuple[int, str]:
    """(exit code, stdout and stderr) of a command run in the checkout; cached, so the
    commands that several pages quote run once per session."""
    key = (command, env)
    if key not in _done:
        start(command, env)
        process, out = _started.pop(key)
        with out:
            process.wait(timeout=300)
            out.seek(0)
            _done[key] = process.returncode, out.read()
    return _done[key]


COLLECTED = re.compile(r"^(?:(\d+)/)?(\d+) tests? collected", re.M)


def _collect_command(args: Iterable[str]) -> tuple[str, ...]:
    args = tuple(args)
    return ("pytest", *args, *(a for a in ("--collect-only", "-q") if a not in args))


def collect(args: Iterable[str], env: tuple[tuple[str, str], ...] = ()) -> tuple[int, str]:
    """`pytest ARGS --collect-only -q`: (exit code, output)."""
    return run(_collect_command(args), env)


def collected(args: Iterable[str] = ()) -> tuple[int, int]:
    """(selected, total) test ids that `pytest ARGS --collect-only -q` collects."""
    code, out = collect(tuple(args))
    found = COLLECTED.search(out)
    assert code == 0 and found, out[-2000:]
    return int(found.group(1) or found.group(2)), int(found.group(2))


def _words(command: str) -> tuple[list[str], tuple[tuple[str, str], ...]]:
    """A command's words, `[optional]` parts dropped, and the VAR=value before it."""
    words = shlex.split(_drop_optional(command), comments=True)
    env = []
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env.append((name, value))
    return words, tuple(env)


def runs_of(command: str) -> list[tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """The commands that checking a shell block's command runs (check_command, prefetch)."""
    try:
        words, env = _words(command)
    except ValueError:
        return []
    if words[:1] == ["pytest"]:
        return [(_collect_command(words[1:]), env)]
    return [(tuple(words), env)] if words and _cheap(words) else []


def check_command(command: str, prose: bool = False) -> str | None:
    """What is wrong with one shell command of the docs, or None. `prose`: a mention in a
    sentence, which may leave out what the command requires (`python -m autograder grade`)."""
    try:
        words, env = _words(command)
    except ValueError as exc:
        return f"{command.strip()}: {exc}"
    if not words:
        return None
    where = " ".join(words)
    program = _program(words)
    if program is not None:
        name, main, argv = program
        why = refusal(main, argv)
        if why and not (prose and "required" in why and all(not w.startswith("-") for w in argv)):
            return f"{where} ({why})"
        if _cheap(words) and not prose:
            code, out = run(tuple(words), env)
            if code != 0:
                return f"{where} exited {code}: {out[-1000:]}"
        return None
    if prose:
        return None
    if words[0] == "pytest":
        code, out = collect(words[1:], env)
        found = COLLECTED.search(out)
        if code != 0 or not found or int(found.group(1) or found.group(2)) == 0:
            return f"{where}: --collect-only exited {code}: {out[-1000:]}"
        return None
    if words[:2] == ["pip", "install"]:
        files = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-c", "-r")]
        missing = [f for f in files if not (ROOT / f).exists()]
        extras = re.findall(r"\[([\w,-]+)\]", " ".join(w for w in words if w.startswith(".")))
        pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        section = pyproject.split("[project.optional-dependencies]", 1)[-1].split("\n[", 1)[0]
        declared = re.findall(r"^([\w-]+)\s*=", section, re.M)
        unknown = [e for group in extras for e in group.split(",") if e not in declared]
        return f"{where}: no {missing + unknown}" if missing or unknown else None
    if words[0] in ("mkdir", "cp"):
        return None  # file operations around the commands: nothing to check
    return f"{where}: a program the docs test does not know (docs_examples.check_command)"


def shell_lines(source: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, `&&` split."""
    joined = re.sub(r"\\\n", " ", source)
    return [part for line in joined.split("\n") for part in line.split("&&") if part.strip()]


def evaluate_bash(example: Example) -> str | None:
    wrong = [why for command in shell_lines(example.parsed) if (why := check_command(command))]
    return "\n".join(wrong) or None


def evaluate_console(example: Example) -> str | None:
    """`$ command` lines, each followed by its output; a command that is not cheap to run is
    only checked (there is then no output to compare with)."""
    wrong, checker = [], doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    blocks = re.split(r"^\$ ", example.parsed, flags=re.M)[1:]
    if not blocks:
        return "a console block without a `$ command`"
    for block in blocks:
        command, _, want = block.partition("\n")
        if why := check_command(command):
            wrong.append(why)
            continue
        words, env = _words(command)
        if words[0] == "pytest" and "--collect-only" in words:
            got = collect(words[1:], env)[1]
        elif _cheap(words):
            got = run(tuple(words), env)[1]
        elif want.strip():
            wrong.append(f"{command}: shows output, but is not run here (docs_examples._cheap)")
            continue
        else:
            continue
        if want.strip() and not checker.check_output(want, got, flags):
            wrong.append(f"$ {command}\nexpected:\n{want}\ngot (end):\n{got[-1500:]}")
    return "\n".join(wrong) or None


# --- Prose: commands, full scores and counts --------------------------------------------------

# An inline code span that is a command (also wrapped over lines), else the rest of the line.
PROSE_COMMAND = re.compile(r"`((?:python -m autograder|translator )[^`]*)`"
                           r"|python -m autograder(?:\.bench\.\w+)?\b[^`#\n]*")


def parse_prose_commands(document: Document) -> Iterable[Region]:
    for begin, end in prose_spans(document.text):
        for found in PROSE_COMMAND.finditer(document.text, begin, end):
            yield Region(found.start(), found.end(), found.group(1) or found.group(0), evaluate_prose_command)


def evaluate_prose_command(example: Example) -> str | None:
    wrong = [why for command in shell_lines(example.parsed.replace("\n", " "))
             if (why := check_command(command, prose=True))]
    return "\n".join(wrong) or None


def graders_points() -> dict[str, int]:
    """Each assignment's points: the sum of its hidden graders' @pytest.mark.points(n)."""
    points = {}
    for folder in sorted((ROOT / "autograder" / "graders").glob("a*_*")):
        total = 0
        for path in folder.glob("test_*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                    names = [ast.unparse(d) for d in node.decorator_list]
                    assert not any("parametrize" in n for n in names), f"{path.name}::{node.name}"  # one count each
                    total += sum(int(d.args[0].value) for d in node.decorator_list
                                 if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("mark.points"))
        points[folder.name] = total
    return points


FULL_MARKS = re.compile(r"\b(?:scored|scores|score|gets?|got|keeps?)\s+(\d+)/(\d+)\b")


def parse_full_marks(document: Document) -> Iterable[Region]:
    """A quoted full score ("scored 115/115", also across a line break); a partial one
    (12/14) is not a total."""
    for begin, end in prose_spans(document.text):
        for found in FULL_MARKS.finditer(document.text, begin, end):
            got, top = found.groups()
            if got == top:
                yield Region(found.start(), found.end(), int(top), evaluate_full_marks)


def evaluate_full_marks(example: Example) -> str | None:
    points = graders_points()
    if example.parsed in {sum(points.values()), *points.values()}:
        return None
    return f"{example.parsed}/{example.parsed} is neither the course's total ({sum(points.values())}) nor one " \
           f"assignment's points ({points})"


SUITE = ("--collect-only", "-q", "-m", "full_only")  # as testing.md's console block runs it: one run


def _suite() -> dict[str, int]:
    selected, total = collected(SUITE)
    return {"tests": total, "full_only": selected}


def _mutants() -> dict[str, int]:
    import mutants

    corpus = mutants.load()
    return {"mistakes": len(corpus), "fast": len(mutants.fast(corpus))}


TIERS = (("-n", "auto", "--dist", "loadgroup", "--durations=15"),  # the two commands of the README
         ("--full", "-n", "auto", "--dist", "loadgroup", "--durations=15"))


def _same_tests_in_both_tiers() -> dict[str, bool]:
    runs = [collect(args) for args in TIERS]
    ids = [sorted(line for line in out.split("\n") if "::" in line) for _, out in runs]
    return {"holds": all(code == 0 for code, _ in runs) and ids[0] == ids[1] != []}


# Numbers quoted as facts of today: (pattern with named groups, what each group must be).
# Every pattern must be found in the docs at least once (test_docs.py checks), so rewording a
# sentence does not quietly drop its check.
CLAIMS: list[tuple[re.Pattern, Callable[[], dict]]] = [
    (re.compile(r"Both collect the same (?P<tests>\d+) tests, (?P<full_only>\d+) of them marked `full_only`"), _suite),
    (re.compile(r"the (?P<full_only>\d+) of its (?P<tests>\d+) tests that it leaves to the full tier"), _suite),
    (re.compile(r"So `pytest --collect-only -q` lists the same test ids in both tiers"), _same_tests_in_both_tiers),
    (re.compile(r"(?P<fast>\d+) of the (?P<mistakes>\d+) classic mistakes"), _mutants),
    (re.compile(r"the (?P<mistakes>\d+) classic mistakes"), _mutants),  # after the one that holds it
    (re.compile(r"tests/mutants/ (?P<mistakes>\d+) classic mistakes"), _mutants),
]


def parse_claims(document: Document) -> Iterable[Region]:
    taken: list[tuple[int, int]] = []
    for begin, end in prose_spans(document.text, but="(?:text)?"):  # architecture.md's tree is a plain block
        for pattern, facts in CLAIMS:
            flat = re.compile(pattern.pattern.replace(" ", r"\s+"))  # also across a line break
            for found in flat.finditer(document.text, begin, end):
                if any(s < found.end() and found.start() < e for s, e in taken):
                    continue  # "18 of the 288 classic mistakes" holds "288 classic mistakes"
                taken.append(found.span())
                yield Region(found.start(), found.end(), (found, facts), evaluate_claim)


def evaluate_claim(example: Example) -> str | None:
    found, facts = example.parsed
    today = facts()
    wrong = {k: f"{v} quoted, {today[k]} today" for k, v in found.groupdict().items() if int(v) != today[k]}
    if not today.get("holds", True):
        wrong["holds"] = "not today"
    return f"{' '.join(found.group(0).split())}: {wrong}" if wrong else None


# --- The Sybil that parses a page -------------------------------------------------------------

def _namespace(namespace: dict) -> None:
    import pytest
    import torch

    from autograder.grading import checks

    namespace.update(torch=torch, pytest=pytest, checks=checks)


def sybil() -> Sybil:
    return Sybil(
        parsers=[
            SkipParser(),
            PythonCodeBlockParser(),
            CodeBlockParser(language="bash", evaluator=evaluate_bash),
            CodeBlockParser(language="console", evaluator=evaluate_console),
            parse_prose_commands,
            parse_full_marks,
            parse_claims,
        ],
        setup=_namespace,
    )


# The blocks that must become examples: fenced, or Sybil's hidden `<!-- invisible-code-block: python`.
LANGUAGES = re.compile(r"^\s*(?:```|~~~|<!--+\s*invisible-code(?:-block)?:\s*)(python|bash|console)\s*$", re.M)


def prefetch(paths: Iterable[Path]) -> None:
    """Start every command that the examples of these pages run, and the suite's collection
    that CLAIMS use, all at once: on two cores this halves the docs test's time."""
    for args in (SUITE, *TIERS):
        start(_collect_command(args))
    for path in paths:
        for example in sybil().parse(path).examples():
            evaluator = example.region.evaluator
            if evaluator is evaluate_bash:
                commands = shell_lines(example.parsed)
            elif evaluator is evaluate_console:
                commands = [block.partition("\n")[0] for block in re.split(r"^\$ ", example.parsed, flags=re.M)[1:]]
            else:
                continue
            for command in commands:
                for planned in runs_of(command):
                    start(*planned)


def examine(path: Path) -> tuple[dict[str, int], list[str]]:
    """Run every example of one page in order: ({kind: count}, failures as 'file:line: why')."""
    prefetch([path])
    document = sybil().parse(path)
    namespace = document.namespace
    _namespace(namespace)
    counts: dict[str, int] = {}
    failures = []
    for example in document.examples():
        evaluator = example.region.evaluator
        kind = getattr(evaluator, "__name__", type(evaluator).__name__)
        try:
            example.evaluate()
            counts[kind] = counts.get(kind, 0) + 1
        except SkipTest:
            counts["skipped"] = counts.get("skipped", 0) + 1
        except Exception as exc:  # a Sybil failure, or a python block's own exception
            why = str(exc) if isinstance(exc, SybilFailure) else f"{type(exc).__name__}: {exc}"
            failures.append(f"{path.name}:{example.line}: {why}")
    return counts, failures
