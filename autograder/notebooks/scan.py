"""Static scan of a submitted notebook for code that tampers with nbgrader's run of it.

Grades come from the sandbox (:mod:`.sandboxed`), never from a kernel. But ``nbgrader
autograde`` still runs each notebook's cells in an IPython kernel, in the course folder,
and that run writes what the student and the instructor see: the outputs, the feedback
page, the gradebook until the sandbox's scores replace it. A cell that, say, installs an
IPython input transformer (``get_ipython().input_transformers_cleanup.append(lambda lines:
['pass\\n'])``) or rewrites files from the kernel could make that view lie. ``python -m
autograder nbgrader autograde`` therefore scans every submitted notebook first and refuses
(grades 0, without running any of its code) one that does any of:

* reach IPython's machinery: ``get_ipython``, ``input_transformers_cleanup`` / ``_post``,
  ``input_splitter``, ``ast_transformers``, ``register_magic_function``, ``events.register``,
  ``run_cell`` / ``run_line_magic`` / ``run_cell_magic``, ``user_ns``, imports of IPython
  (``IPython.display`` excepted), ipykernel, nbgrader...;
* change how errors are reported: ``showtraceback``, ``_render_traceback_``,
  ``sys.excepthook``, ``set_custom_exc``;
* reach the grader: any import of ``autograder`` (the reference solutions, the graders);
* patch what the tests use: assignment, deletion or ``setattr`` on an attribute or item of
  an imported module or of anything imported (``torch.allclose = ...``, ``F.softmax =
  ...``; ``torch.backends.*`` flags and ``matplotlib`` ``rcParams`` excepted), top-level
  redefinition of ``globals``, ``torch``, dunder names...;
* touch the built-ins (``builtins`` / ``__builtins__``) or run code indirectly (``exec``,
  ``eval``, ``compile``, ``__import__``, ``globals()``, ``sys.modules``, frames, ``gc``...);
* stop the kernel or run programs (``os._exit``, ``os.kill``, ``os.system``,
  ``subprocess``...), write files (``open(..., "w")``, ``write_text``...) or change the
  environment;
* use an IPython magic or a shell command other than the harmless ``%matplotlib``,
  ``%time`` / ``%timeit`` / ``%%time`` / ``%%timeit`` (whose code is scanned too),
  ``%who`` / ``%whos`` and ``obj?`` help.

Cells are turned into Python by IPython's own input transformer (what the kernel would
run), then parsed with :mod:`ast`; a cell that does not parse is scanned as text lines.
Scanned: every code cell except the ones the build wrote, i.e. whose source is, verbatim,
a locked cell of the assignment's source or release notebook (nbgrader restores locked
cells from its gradebook anyway). A locked cell the student edited is scanned like any
other cell: an edit with none of the above is harmless (nbgrader puts the original back).

This is a static check, not a sandbox: code that hides what it does well enough gets
through. It closes the tricks above; the grade itself is the module form's, graded in the
sandbox whatever the kernel did.

Over 350 lines: one scan; its rule tables and the syntax-tree visitor that applies them belong together.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

# The staged copy of a refused notebook sets this name to the refusal before raising it, so
# that its first cell's error names why (autograder.notebooks.nbgrader_autograde).
REFUSED_NAME = "__course_refused__"

KINDS = {
    "ipython": ("changes how IPython runs later cells", "cambia cómo IPython ejecuta las celdas siguientes"),
    "errors": ("changes how errors are reported", "cambia cómo se informan los errores"),
    "grader": ("reaches into the grader", "accede al corrector"),
    "patch": ("changes something the tests use", "modifica algo que usan los tests"),
    "builtins": ("changes Python's built-ins", "modifica las funciones integradas de Python"),
    "indirect": ("runs or reaches code indirectly", "ejecuta o alcanza código de forma indirecta"),
    "process": ("stops the kernel or runs programs", "detiene el kernel o ejecuta programas"),
    "files": ("writes files or changes the environment", "escribe archivos o cambia el entorno"),
    "magic": ("uses an IPython magic or a shell command", "usa una orden mágica de IPython o de la shell"),
    "unreadable": ("is not a notebook that can be read", "no es un cuaderno legible"),
}

# Names flagged wherever they appear: as a name, an attribute or an imported name.
NAMES = {
    **dict.fromkeys((
        "get_ipython", "input_transformers_cleanup", "input_transformers_post", "input_splitter",
        "input_transformer_manager", "ast_transformers", "register_magic_function", "register_magics",
        "register_line_magic", "register_cell_magic", "register_line_cell_magic", "magics_class",
        "run_cell", "run_line_magic", "run_cell_magic", "run_code", "run_ast_nodes", "transform_cell",
        "user_ns", "user_global_ns", "InteractiveShell",
    ), "ipython"),
    **dict.fromkeys((
        "showtraceback", "showsyntaxerror", "_showtraceback", "_render_traceback_", "excepthook",
        "set_custom_exc", "CustomTB", "InteractiveTB",
    ), "errors"),
    REFUSED_NAME: "grader",
    **dict.fromkeys(("__builtins__", "__builtin__"), "builtins"),
    **dict.fromkeys((
        "exec", "eval", "compile", "__import__", "globals", "locals",
        "__globals__", "__code__", "__closure__", "__subclasses__", "__loader__", "__spec__",
        "f_globals", "f_locals", "f_back", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "ag_frame",
        "_getframe", "settrace", "setprofile", "addaudithook", "meta_path", "path_hooks",
    ), "indirect"),
    "_exit": "process",
    **dict.fromkeys(("write_text", "write_bytes", "symlink_to", "hardlink_to"), "files"),
}
# Flagged as bare names only: ``eval(...)`` is, ``model.eval()`` and ``torch.compile`` are not.
NAME_ONLY = {"exec", "eval", "compile", "globals", "locals"}

# Attributes of a given module (resolved through the notebook's imports).
MODULE_ATTRS = {
    "sys": {"modules": "indirect", "path": "indirect", "displayhook": "errors"},
    "os": {**dict.fromkeys(("kill", "killpg", "abort", "system", "popen", "fork", "forkpty", "spawnl", "spawnv",
                            "posix_spawn", "execv", "execve", "execl", "execlp", "execvp", "execvpe"), "process"),
           **dict.fromkeys(("putenv", "unsetenv", "chdir", "mkdir", "makedirs", "remove", "unlink", "rename",
                            "renames", "replace", "rmdir", "removedirs", "symlink", "link", "write", "open",
                            "fdopen", "dup2", "truncate", "chmod"), "files")},
}
# Modules a notebook has no business importing (by their first dotted part).
MODULES = {
    **dict.fromkeys(("IPython", "ipykernel", "ipywidgets", "jupyter_client", "jupyter_core", "nbgrader",
                     "nbclient", "nbconvert", "nbformat", "traitlets", "zmq"), "ipython"),
    "autograder": "grader",
    **dict.fromkeys(("builtins", "__builtin__"), "builtins"),
    **dict.fromkeys(("importlib", "imp", "gc", "ctypes", "runpy", "marshal", "code", "codeop", "pydoc"), "indirect"),
    **dict.fromkeys(("subprocess", "signal", "atexit", "pty", "multiprocessing", "_thread"), "process"),
    **dict.fromkeys(("shutil", "tempfile"), "files"),
}
ALLOWED_IMPORTS = ("IPython.display",)  # display(), Image(): what the course's own cells use

# Top-level bindings (assignment, def, class, import as, global) of these names and of
# dunder names are flagged: the visible lines of a test cell use torch and the built-ins,
# and a dunder name (``__name__``, ``__builtins__``) changes how later cells run.
SENSITIVE_BINDINGS = {"get_ipython", "globals", "locals", "vars", "__import__", "exec", "eval",
                      "compile", "getattr", "setattr", "isinstance", "torch", "math", "json"}
# Patching these (canonical dotted names) is configuration, not tampering.
PATCH_ALLOWED = ("torch.backends", "matplotlib.rcParams", "matplotlib.pyplot.rcParams")
# Names bound in the course's notebooks by their locked imports cell.
DEFAULT_ALIASES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "math": "math",
                   "np": "numpy", "json": "json", "sys": "sys", "os": "os"}

ALLOWED_LINE_MAGICS = {"matplotlib", "time", "timeit", "pinfo", "pinfo2", "who", "whos"}
ALLOWED_CELL_MAGICS = {"time", "timeit"}
CODE_MAGICS = {"time", "timeit"}  # their argument and body are Python: scanned as such
MAGIC_CALLS = {"run_line_magic", "run_cell_magic", "system", "getoutput"}
TIMEIT_OPTIONS = re.compile(r"^\s*(?:-[a-z](?:\s*\d+)?\s+)*")
WRITE_MODE = re.compile(r"^[rwxabt+U]{1,4}$")
# In string literals (getattr(shell, "run_cell"), "autograder.reference"...).
STRING_WORDS = re.compile(
    r"\b(?:" + "|".join(sorted(re.escape(n) for n, k in NAMES.items() if k in ("ipython", "errors", "grader")))
    + r"|__builtins__|__globals__|f_globals|__import__)\b|^autograder(?:\.\w+)*$|autograder[/\\]")
# A cell that does not parse, line by line.
TEXT_RULES = [
    (re.compile(r"(?<![\w.])(?:" + "|".join(sorted(map(re.escape, NAME_ONLY))) + r")(?!\w)"), None),
    (re.compile(r"(?<!\w)(?:" + "|".join(sorted(map(re.escape, set(NAMES) - NAME_ONLY))) + r")(?!\w)"), None),
    (re.compile(r"(?<!\w)(?:sys\.(?:modules|path)|os\.(?:kill|system|popen|fork|exec\w*|spawn\w*))(?!\w)"), "indirect"),
    (re.compile(r"(?<!\w)(?:import|from)\s+(?:" + "|".join(MODULES) + r")(?!\w)"), "import"),
    (re.compile(r"(?<!\w)torch(?:\.\w+)+\s*=(?!=)"), "patch"),
]
MAX_NAME = 60


@dataclass(frozen=True, order=True)
class Finding:
    """One flagged construct: ``cell`` counts all the notebook's cells from 1, ``line`` the
    cell's lines from 1; ``name`` is what was found, ``kind`` a key of :data:`KINDS`."""

    cell: int
    line: int
    name: str
    kind: str

    def __str__(self) -> str:
        return f"cell {self.cell}:line {self.line}: {self.name} ({KINDS[self.kind][0]})"

    def english(self) -> str:
        if self.kind == "unreadable":
            return f"the file {KINDS[self.kind][0]} ({self.name})"
        return f"cell {self.cell} line {self.line} {KINDS[self.kind][0]} ({self.name})"

    def spanish(self) -> str:
        if self.kind == "unreadable":
            return f"el archivo {KINDS[self.kind][1]} ({self.name})"
        return f"la celda {self.cell}, línea {self.line}, {KINDS[self.kind][1]} ({self.name})"


def refusal(findings: list[Finding]) -> str:
    """One bilingual line for the student, the grade table and the printed grade."""
    # the most telling finding first: on one line, `get_ipython` is only the way in
    first = min(findings, key=lambda f: (f.cell, f.line, f.name == "get_ipython"))
    more = len(findings) - 1
    en = f"refused: {first.english()}" + (f" (+{more} more)" if more else "")
    es = f"rechazado: {first.spanish()}" + (f" (y {more} más)" if more else "")
    return f"{en} / {es}"


def _clean(name: str) -> str:
    name = re.sub(r"\s+", " ", "".join(c for c in name if c.isprintable())).strip()
    return name if len(name) <= MAX_NAME else name[:MAX_NAME - 3] + "..."


@functools.lru_cache(maxsize=1)
def _transformer():
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with ipykernel and nbgrader
        return None
    return TransformerManager()


def _to_python(source: str) -> str:
    """The Python IPython runs for a cell: magics become ``get_ipython()`` calls."""
    manager = _transformer()
    if manager is None:
        return source
    try:
        return manager.transform_cell(source)
    except Exception:
        return source


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None when the chain holds anything but names."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _root(node: ast.AST) -> ast.Name | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Starred)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node if isinstance(node, ast.Name) else None


def _module_kind(module: str) -> str | None:
    if any(module == a or module.startswith(a + ".") for a in ALLOWED_IMPORTS):
        return None
    return MODULES.get(module.split(".")[0])


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def imports_of(tree: ast.AST) -> dict[str, str]:
    """Names bound by the imports in ``tree`` -> canonical dotted name."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


class _Visitor(ast.NodeVisitor):
    def __init__(self, scan: "_CellScan", lines: list[str], offset: int):
        self.scan, self.lines, self.offset = scan, lines, offset
        self.depth = 0  # 0: the cell's top level, i.e. the notebook's global namespace

    def flag(self, node, name: str, kind: str) -> None:
        self.scan.add(self.offset + getattr(node, "lineno", 1), name, kind)

    def canonical(self, node) -> str | None:
        parts = _dotted(node)
        base = self.scan.aliases.get(parts[0]) if parts else None
        return ".".join([base, *parts[1:]]) if base else None

    def _binding(self, node, name: str) -> None:
        if self.depth == 0 and (name in SENSITIVE_BINDINGS or _dunder(name)):
            self.flag(node, f"redefines {name}", NAMES.get(name, "patch"))

    # scopes
    def _scope(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_FunctionDef(self, node):
        self._binding(node, node.name)
        if node.name in NAMES and node.name not in NAME_ONLY:  # def _render_traceback_(self)
            self.flag(node, f"def {node.name}", NAMES[node.name])
        self._scope(node)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef
    visit_Lambda = _scope

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a bare string (a docstring): it does nothing
        self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            if name in SENSITIVE_BINDINGS or _dunder(name):
                self.flag(node, f"global {name}", NAMES.get(name, "patch"))

    # names, attributes, strings
    def visit_Name(self, node):
        if node.id in NAMES:
            self.flag(node, node.id, NAMES[node.id])
        if isinstance(node.ctx, ast.Store):
            self._binding(node, node.id)

    def visit_Attribute(self, node):
        if node.attr in NAMES and node.attr not in NAME_ONLY:
            self.flag(node, node.attr, NAMES[node.attr])
        elif node.attr == "register" and (
                (isinstance(node.value, ast.Attribute) and node.value.attr == "events")
                or (isinstance(node.value, ast.Name) and node.value.id == "events")):
            self.flag(node, "events.register", "ipython")
        full = self.canonical(node)
        if full:
            module, _, attr = full.rpartition(".")
            if MODULE_ATTRS.get(module, {}).get(attr):
                self.flag(node, full, MODULE_ATTRS[module][attr])
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            found = STRING_WORDS.search(node.value)
            if found:
                self.flag(node, repr(found.group(0)), "indirect")

    # imports
    def visit_Import(self, node):
        for a in node.names:
            kind = _module_kind(a.name)
            if kind:
                self.flag(node, f"import {a.name}", kind)
            if a.asname and a.asname != a.name:
                self._binding(node, a.asname)

    def visit_ImportFrom(self, node):
        module = node.module or ""
        for a in node.names:
            full = f"{module}.{a.name}"
            kind = _module_kind(full) if not node.level else None
            if kind:
                self.flag(node, f"from {module} import {a.name}", kind)
            elif a.name in NAMES:
                self.flag(node, a.name, NAMES[a.name])
            elif MODULE_ATTRS.get(module, {}).get(a.name):
                self.flag(node, full, MODULE_ATTRS[module][a.name])
            if a.name != "*":
                self._binding(node, a.asname or a.name)

    # patching: assignment, deletion or setattr on what an import bound
    def _patched(self, target) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._patched(t)
            return
        if isinstance(target, ast.Starred):
            return self._patched(target.value)
        if not isinstance(target, (ast.Attribute, ast.Subscript)):
            return
        root = _root(target)
        if root is None or root.id not in self.scan.aliases:
            return
        full = self.canonical(target.value if isinstance(target, ast.Subscript) else target) or ""
        if any(full == p or full.startswith(p + ".") for p in PATCH_ALLOWED):
            return
        self.flag(target, _clean(ast.unparse(target)), "patch")

    def visit_Assign(self, node):
        for target in node.targets:
            self._patched(target)
        full = self.canonical(node.value)
        for target in node.targets:  # G = torch.nn.functional: G names a module too
            if isinstance(target, ast.Name):
                if full:
                    self.scan.aliases[target.id] = full
                else:
                    self.scan.aliases.pop(target.id, None)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._patched(node.target)
        self.generic_visit(node)

    visit_AnnAssign = visit_AugAssign

    def visit_Delete(self, node):
        for target in node.targets:
            self._patched(target)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        if node.target.id in SENSITIVE_BINDINGS or _dunder(node.target.id):
            self.flag(node, f"redefines {node.target.id}", NAMES.get(node.target.id, "patch"))
        self.generic_visit(node)

    # calls
    def visit_Call(self, node):
        if self._magic(node):
            return
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name == "open":
            modes = [a for a in node.args[:2]] + [k.value for k in node.keywords if k.arg == "mode"]
            if any(isinstance(m, ast.Constant) and isinstance(m.value, str) and WRITE_MODE.match(m.value)
                   and set(m.value) & set("wax+") for m in modes):
                self.flag(node, "open(..., write)", "files")
        elif name in ("mkdir", "makedirs", "touch") and isinstance(func, ast.Attribute):
            self.flag(node, name, "files")
        elif name in ("setattr", "delattr") and isinstance(func, ast.Name) and node.args:
            root = _root(node.args[0])
            if root is not None and (root.id in self.scan.aliases or root.id in NAMES):
                self.flag(node, f"{name}({_clean(ast.unparse(node.args[0]))}, ...)", "patch")
        elif name == "vars" and isinstance(func, ast.Name):
            root = _root(node.args[0]) if node.args else None
            if not node.args or (root is not None and root.id in self.scan.aliases):
                self.flag(node, "vars()", "indirect")
        elif name in ("update", "setdefault", "pop", "clear", "__setitem__") and isinstance(func, ast.Attribute) \
                and self.canonical(func.value) == "os.environ":
            self.flag(node, f"os.environ.{name}", "files")
        self.generic_visit(node)

    def _magic(self, node) -> bool:
        """A ``get_ipython().run_line_magic(...)`` (or ``run_cell_magic``, ``system``,
        ``getoutput``) that IPython wrote for a ``%`` or ``!`` line: judge the magic, scan
        the code it runs, and do not flag the call itself."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in MAGIC_CALLS
                and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "get_ipython" and not func.value.args and not func.value.keywords
                and not node.keywords
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)):
            return False
        line = self.lines[node.lineno - 1] if 0 < node.lineno <= len(self.lines) else ""
        if "get_ipython" in line and not line.lstrip().startswith(("%", "!")):
            return False  # the student wrote this call: get_ipython is flagged
        args = [a.value for a in node.args]
        if func.attr in ("system", "getoutput"):
            self.flag(node, "!" + ((args[0].split() or [""])[0] if args else ""), "magic")
        elif func.attr == "run_line_magic" and args:
            magic, arg = args[0], (args[1] if len(args) > 1 else "")
            if magic not in ALLOWED_LINE_MAGICS:
                self.flag(node, f"%{magic}", "magic")
            if magic in CODE_MAGICS:
                self.scan.code(TIMEIT_OPTIONS.sub("", arg), self.offset + node.lineno - 1)
        elif func.attr == "run_cell_magic" and args:
            magic, arg, body = (args + ["", ""])[:3]
            if magic not in ALLOWED_CELL_MAGICS:
                self.flag(node, f"%%{magic}", "magic")
            if magic in CODE_MAGICS and arg.strip():
                self.scan.code(TIMEIT_OPTIONS.sub("", arg), self.offset + node.lineno - 1)
            self.scan.code(body, self.offset + node.lineno)  # the body starts on the next line
        return True


class _CellScan:
    def __init__(self, cell: int, aliases: dict[str, str]):
        self.cell = cell
        self.aliases = dict(aliases)
        self.findings: set[Finding] = set()

    def add(self, line: int, name: str, kind: str) -> None:
        self.findings.add(Finding(self.cell, max(line, 1), _clean(name), kind))

    def code(self, source: str, offset: int = 0) -> None:
        """Scan ``source`` (IPython syntax) whose line 1 is the cell's line ``offset + 1``."""
        python = _to_python(source)
        try:
            tree = ast.parse(python)
        except (SyntaxError, ValueError):
            return self.text(source, offset)
        self.aliases.update(imports_of(tree))
        _Visitor(self, source.splitlines(), offset).visit(tree)

    def text(self, source: str, offset: int) -> None:
        """A cell that does not parse: look for the flagged names line by line."""
        for number, line in enumerate(source.splitlines(), offset + 1):
            code = line.split("#", 1)[0]
            for pattern, kind in TEXT_RULES:
                for found in pattern.finditer(code):
                    word = found.group(0)
                    if kind == "import":
                        self.add(number, word, MODULES[word.split()[-1]])
                    else:
                        self.add(number, word, kind or NAMES[word])
            magic = re.match(r"\s*(%%?|!)\s*(\w*)", code)
            if magic and not (magic.group(1) == "%" and magic.group(2) in ALLOWED_LINE_MAGICS) \
                    and not (magic.group(1) == "%%" and magic.group(2) in ALLOWED_CELL_MAGICS):
                self.add(number, magic.group(1) + magic.group(2), "magic")


def scan_source(source: str, cell: int = 1, aliases: dict[str, str] | None = None) -> list[Finding]:
    """Findings in one code cell's ``source`` (numbered ``cell`` in the notebook)."""
    scan = _CellScan(cell, DEFAULT_ALIASES if aliases is None else aliases)
    scan.code(source)
    return sorted(scan.findings)


def _text(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def normalize(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip("\n").splitlines())


def trusted_sources(*notebooks: dict) -> frozenset[str]:
    """The normalized sources of the locked code cells (hidden tests, given code, imports) of
    the notebooks the build wrote: the assignment's source and release notebooks."""
    found = set()
    for nb in notebooks:
        for cell in nb.get("cells", []):
            meta = (cell.get("metadata") or {}).get("nbgrader") or {}
            if cell.get("cell_type") == "code" and (meta.get("locked") or meta.get("grade")) \
                    and not meta.get("solution"):
                found.add(normalize(_text(cell)))
    return frozenset(found)


def scan_notebook(nb: dict, trusted: frozenset[str] = frozenset()) -> list[Finding]:
    """Findings in every code cell of ``nb`` (a notebook as JSON data) except those whose
    source is, verbatim, one of ``trusted`` (see :func:`trusted_sources`)."""
    cells = nb.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return [Finding(0, 0, "no list of cells", "unreadable")]
    code = [(i, _text(c)) for i, c in enumerate(cells, 1) if c.get("cell_type") == "code"]
    aliases = dict(DEFAULT_ALIASES)
    for _, source in code:  # what any cell imports is bound in every later one (one kernel)
        try:
            aliases.update(imports_of(ast.parse(_to_python(source))))
        except (SyntaxError, ValueError):
            pass
    findings = []
    for number, source in code:
        if normalize(source) not in trusted:
            findings += scan_source(source, number, aliases)
    return sorted(findings)


def read_notebook(path: Path) -> dict | None:
    """The notebook at ``path`` as JSON data, or None when it cannot be read as one."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return nb if isinstance(nb, dict) else None


def scan_file(path: Path, trusted: frozenset[str] = frozenset()) -> list[Finding]:
    nb = read_notebook(path)
    if nb is None:
        return [Finding(0, 0, "not JSON", "unreadable")]
    return scan_notebook(nb, trusted)
