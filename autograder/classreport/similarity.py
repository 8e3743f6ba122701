"""Code similarity across a class, per assignment, with copydetect's fingerprints.

Why copydetect (https://pypi.org/project/copydetect/, MIT): it implements winnowing, the
fingerprinting algorithm of MOSS, locally in Python and numpy; it tokenises with Pygments
and replaces every variable, function and class name by one letter, so renaming does not
hide a copy, and fingerprints do not depend on where a passage sits in a file, so
reordering functions does not either; it removes boilerplate fingerprints (here the released
stubs and given code) and returns the matching spans, which the side-by-side view shows.
The alternatives: ``pycode_similar`` (PyPI) compares functions' normalised ASTs with difflib,
one pair of files at a time, with no boilerplate and no spans to show; MOSS is a remote
service (an account, and the class's code leaves the machine); JPlag needs Java. None
of them runs here offline with what an instructor already installed.

Only what students wrote counts: each student's modules of an assignment are one document,
compared with the same document of every other student; fingerprints of the assignment's
stubs are removed first. A pair is flagged when at least ``THRESHOLD`` of *each* side's
fingerprinted code matches the other (copydetect's similarity, per side). It flags, it
never changes a grade.
"""

from __future__ import annotations

import ast
import hashlib
import io
import itertools
from collections import Counter
from dataclasses import dataclass

from .. import course
from ..stubs import stub_file

# copydetect's defaults (noise threshold 25, guarantee threshold 30): a match is at least 25
# characters of normalised code, and any common passage of 30 is certain to be found.
K = 25
WINDOW = 30 - 25 + 1
# Share of each side's code found in the other. Between independently written correct
# submissions (tests/correct_submissions/) most pairs are under 0.6 (see docs/class-report.md);
# a copy with renamed variables and reordered functions is above 0.9.
THRESHOLD = 0.8
# Fewer fingerprinted characters than this after the boilerplate (a stub handed back, a
# file of three lines) is too little to call a copy.
MIN_CODE = 100


@dataclass
class Pair:
    assignment: str
    a: str
    b: str
    similarity: float  # the smaller of the two sides' shares
    shares: tuple[float, float]
    texts: tuple[str, str] = ("", "")
    spans: tuple = ((), ())  # copydetect's matched slices of each text

    def as_dict(self) -> dict:
        return {"assignment": self.assignment, "students": [self.a, self.b], "similarity": round(self.similarity, 3),
                "shares": [round(x, 3) for x in self.shares]}

    def view(self) -> tuple[str, str]:
        """HTML of each side, escaped, the matching regions in ``<mark>``."""
        from copydetect.utils import highlight_overlap

        return tuple(highlight_overlap(text, spans.astype(int), "<mark>", "</mark>", escape_html=True)[0]
                     for text, spans in zip(self.texts, self.spans))


def canonical(code: str) -> str:
    """``code`` as ``ast.unparse`` writes it, docstrings left out, definitions sorted: one
    layout, quoting, bracketing and order for everyone, so that reformatting a copy or
    reordering its functions does not hide it (and the given docstrings do not make two
    submissions alike). Code that does not parse is kept as is."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            if len(body) == 1:
                body[0] = ast.Pass()
            else:
                del body[0]
    for node in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        _sort_definitions(node.body)
    return ast.unparse(tree)


def _sort_definitions(body: list) -> None:
    """Functions and classes of ``body`` in one order that does not depend on their names or
    places (by their code with every name replaced), the other statements where they were:
    moving functions around then changes nothing."""
    from copydetect.utils import filter_code

    slots = [i for i, n in enumerate(body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    ordered = sorted((body[i] for i in slots), key=lambda n: filter_code(ast.unparse(n), "x.py")[0])
    for i, node in zip(slots, ordered):
        body[i] = node


def document(modules: dict[str, str], assignment: str) -> str:
    """A student's modules of ``assignment`` as one text, in course order and
    :func:`canonical` form, each under a comment that names its file."""
    return "\n".join(f"# ===== {m}.py =====\n{canonical(modules[m])}"
                     for m in course.get(assignment).modules if m in modules)


def boilerplate(assignment: str) -> str:
    """What every student was given: the released stubs of ``assignment``."""
    folder = course.solutions_dir() / assignment
    return "\n".join(canonical(stub_file(folder / f"{m}.py")) for m in course.get(assignment).modules
                     if (folder / f"{m}.py").is_file())


def _fingerprint(text: str, boiler=None):
    from copydetect.detector import CodeFingerprint

    return CodeFingerprint("submission.py", K, WINDOW, boilerplate=boiler, fp=io.StringIO(text))


def compare(sources: dict[str, dict[str, str]], assignment: str, threshold: float = THRESHOLD) -> list[Pair]:
    """Flagged pairs of ``assignment``, most similar first. ``sources``: student -> module
    stem -> code."""
    from copydetect.detector import compare_files

    # Identical documents (the same files handed in twice) are fingerprinted and compared once.
    groups: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for student in sorted(sources):
        text = document(sources[student], assignment)
        key = hashlib.sha256(text.encode()).hexdigest()
        groups.setdefault(key, []).append(student)
        texts[key] = text
    boiler = list(_fingerprint(boilerplate(assignment)).hashes)
    prints = {key: _fingerprint(texts[key], boiler) for key in groups}
    prints = {key: p for key, p in prints.items() if p.token_coverage >= MIN_CODE}
    # Only documents that share enough fingerprints are compared in full: counting shared
    # hashes through an index grows with the matches, where comparing every pair grows
    # with the square of the class.
    holders: dict[int, list[str]] = {}
    for key, p in prints.items():
        for h in p.hashes:
            holders.setdefault(h, []).append(key)
    shared: Counter = Counter()
    for keys in holders.values():
        shared.update(itertools.combinations(keys, 2))
    candidates = [pair for pair, n in shared.items()
                  if n >= threshold / 2 * min(len(prints[pair[0]].hashes), len(prints[pair[1]].hashes))]
    candidates += [(key, key) for key in prints if len(groups[key]) > 1]
    pairs = []
    for x, y in candidates:
        _, shares, spans = compare_files(prints[x], prints[y])
        shares = (float(shares[0]), float(shares[1]))
        if min(shares) < threshold:
            continue
        students = itertools.combinations(groups[x], 2) if x == y else itertools.product(groups[x], groups[y])
        for a, b in students:
            if (a, x) < (b, y):
                pairs.append(Pair(assignment, a, b, min(shares), shares, (texts[x], texts[y]), spans))
            else:
                pairs.append(Pair(assignment, b, a, min(shares), shares[::-1], (texts[y], texts[x]), spans[::-1]))
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))


def compare_class(sources: dict[str, dict[str, dict[str, str]]], assignments: list[str],
                  threshold: float = THRESHOLD) -> list[Pair]:
    """Flagged pairs of every assignment, most similar first. ``sources``: student ->
    assignment -> module -> code."""
    pairs = []
    for a in assignments:
        part = {s: mods[a] for s, mods in sources.items() if mods.get(a)}
        if len(part) > 1:
            pairs += compare(part, a, threshold)
    pairs.sort(key=lambda p: (-p.similarity, p.assignment, p.a, p.b))
    return pairs
