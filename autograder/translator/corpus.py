"""Sentence-pair corpora: read English-Spanish pairs from the files students meet.

Three formats, one pair per line (or per row), in a plain file or one compressed with gzip,
xz or bzip2 (.gz, .xz, .bz2):

    tatoeba   id<TAB>English<TAB>id<TAB>Spanish        (Tatoeba's "sentence pairs" export, headerless;
              id;English;id;Spanish                     also ;-separated, as lecture 003 meets it)
    anki      English<TAB>Spanish[<TAB>attribution]    (manythings.org/Anki, spa-eng.txt)
    csv       ;-separated, header row naming the columns (en;es, english;spanish, inglés;español,
              source;target, in either order; or chosen with --src-column/--tgt-column); a
              header that names no English and Spanish column is refused, never guessed

Real files have flaws, so each line is decoded on its own: a bad line is skipped and counted
(LoadReport.skipped), never a crash, and a file without a single usable pair is an error.

    pairs, report = load_pairs("spa-eng.txt")
    print(report.summary())   # spa-eng.txt (anki): 118,964 pairs; nothing skipped
    train, test = split_pairs(pairs, test_size=2000)
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

FORMATS = ("tatoeba", "anki", "csv")
Pair = tuple[str, str]

# Header names of the English and the Spanish column, in English and Spanish, with the ISO
# 639 codes (a region suffix such as en-US or es_MX is allowed); compared case-insensitively.
EN_NAMES = ("en", "eng", "english", "inglés", "ingles", "source", "src", "origen")
ES_NAMES = ("es", "spa", "spanish", "español", "espanol", "castellano", "target", "tgt", "destino")
BOM = b"\xef\xbb\xbf"
SNIFF_LINES = 20
# Tatoeba's export with ; between its four fields: a sentence may hold a ; itself, so the
# fields are told apart by the two ids, never by counting separators.
TATOEBA_SEMICOLON = re.compile(r"\s*(\d+);(.*?);\s*(\d+)\s*;(.*)")
DECOMPRESS = {".gz": gzip.decompress, ".xz": lzma.decompress, ".bz2": bz2.decompress}


@dataclass
class LoadReport:
    """What load_pairs read: the file, its format, the pairs kept and why lines were skipped."""
    path: Path
    format: str
    pairs: int
    skipped: dict[str, int] = field(default_factory=dict)   # reason -> count
    columns: tuple[str, ...] = ()  # CSV: the header names of the English and Spanish columns read

    def summary(self) -> str:
        """One line, e.g. "spa-eng.txt (anki): 118,964 pairs; skipped 3 (2 wrong column count, 1 empty side)"."""
        read = ", English from {}, Spanish from {}".format(*map(column_name, self.columns)) if self.columns else ""
        head = f"{self.path.name} ({self.format}{read}): {plural(self.pairs, 'pair')}"
        if not self.skipped:
            return head + "; nothing skipped"
        return f"{head}; skipped {sum(self.skipped.values()):,} ({describe(self.skipped)})"


def column_name(name: str) -> str:
    """How the summary names a column read: its header name, or its number in a headerless file."""
    return f"column {name}" if name.isdigit() else repr(name)


def plural(n: int, word: str, words: str | None = None) -> str:
    """``plural(1, "pair")`` -> "1 pair"; ``plural(118964, "pair")`` -> "118,964 pairs"."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def describe(skipped: dict[str, int]) -> str:
    """{"empty side": 1, "wrong column count": 2} -> "2 wrong column count, 1 empty side"."""
    return ", ".join(f"{n:,} {reason}" for reason, n in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])))


def read_lines(path: str | Path) -> tuple[Path, list[str | None]]:
    """The file's lines, each decoded as UTF-8 on its own; None for a line that is not valid
    UTF-8 or holds U+FFFD (the mark of an earlier bad decode) or NUL (UTF-16 text, binary
    data). A leading BOM is dropped."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such corpus file: {path}")
    data = path.read_bytes()
    if path.suffix.lower() in DECOMPRESS:
        try:
            data = DECOMPRESS[path.suffix.lower()](data)
        except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable {path.suffix} file ({exc})") from None
    if data.startswith(BOM):
        data = data[len(BOM):]
    lines: list[str | None] = []
    for raw in data.split(b"\n"):
        try:
            text = raw.rstrip(b"\r").decode("utf-8")
        except UnicodeDecodeError:
            lines.append(None)
            continue
        lines.append(None if "\ufffd" in text or "\x00" in text else text)
    if lines and lines[-1] == "":
        lines.pop()          # the newline that ends the last line
    return path, lines


def sniff(lines: list[str | None]) -> str | None:
    """Guess the format from the first non-empty lines, or None."""
    sample = [line for line in lines if line is not None and line.strip()][:SNIFF_LINES]
    if not sample:
        return None
    if "\t" not in sample[0] and ";" in sample[0]:
        # Headerless id;English;id;Spanish (Tatoeba's export), or a CSV with a header row.
        semicolon_pairs = sum(bool(TATOEBA_SEMICOLON.fullmatch(line)) for line in sample)
        return "tatoeba" if semicolon_pairs > len(sample) // 2 else "csv"
    votes: Counter[str] = Counter()
    for line in sample:
        cols = line.split("\t")
        if len(cols) == 4 and is_int(cols[0]) and is_int(cols[2]):
            votes["tatoeba"] += 1
        elif len(cols) in (2, 3):
            votes["anki"] += 1
    if not votes:
        return None
    return max(votes, key=lambda f: (votes[f], f == "anki"))


def is_int(text: str) -> bool:
    return text.strip().isdigit()


def detect_format(path: str | Path) -> str:
    """The format of a corpus file ("tatoeba", "anki" or "csv"), sniffed from its first lines."""
    path, lines = read_lines(path)
    fmt = sniff(lines)
    if fmt is None:
        raise unknown_format(path, lines)
    return fmt


def unknown_format(path: Path, lines: list[str | None]) -> ValueError:
    """Why no format could be told from ``lines`` (the file's, as :func:`read_lines` gives them)."""
    if not any(line is not None and line.strip() for line in lines):
        undecodable = sum(line is None for line in lines)
        if undecodable:
            return ValueError(f"{path}: none of its {plural(len(lines), 'line')} is UTF-8 text; "
                              "save the file as UTF-8")
        return ValueError(f"{path} is empty: it holds no sentence pairs")
    return ValueError(f"cannot tell the format of {path.name}: expected one of {', '.join(FORMATS)} "
                      "(tab-separated id/text/id/text, tab-separated English/Spanish[/attribution], or "
                      ";-separated CSV with a header row); pass the format explicitly")


def _language(name: str) -> str:
    """A header name as compared with EN_NAMES and ES_NAMES: lower case, no region suffix."""
    name = name.strip().lower()
    return re.split(r"[-_]", name, maxsplit=1)[0] if re.fullmatch(r"[a-z]{2,3}[-_][a-z]{2,4}", name) else name


def _column(names: list[str], wanted: str, option: str) -> int:
    """The index of the column ``wanted`` (a header name, or a 1-based number) names."""
    if wanted.isdigit() and 1 <= int(wanted) <= len(names):
        return int(wanted) - 1
    found = [i for i, name in enumerate(names) if name.strip().lower() == wanted.strip().lower()]
    if not found:
        raise ValueError(f"{option} {wanted!r}: no such column; the header has {', '.join(map(repr, names))}")
    return found[0]


def csv_columns(header: list[str], src_column: str | None = None, tgt_column: str | None = None) -> tuple[int, int]:
    """Indices of the English and Spanish columns: those named by ``src_column`` and
    ``tgt_column`` (header names or 1-based numbers), else recognised by header name. Never
    guessed: a header that names no English and Spanish column is an error that lists it."""
    names = [_language(name) for name in header]
    en = _column(header, src_column, "--src-column") if src_column else next(
        (i for i, name in enumerate(names) if name in EN_NAMES), None)
    es = _column(header, tgt_column, "--tgt-column") if tgt_column else next(
        (i for i, name in enumerate(names) if name in ES_NAMES), None)
    if en is None or es is None or en == es:
        found = ", ".join(repr(name) for name in header)
        raise ValueError(f"cannot tell which column is English and which Spanish from the header ({found}); "
                         "name them with --src-column and --tgt-column (header names or numbers from 1)")
    return en, es


def parse_tab(lines: list[str | None], fmt: str, skipped: Counter[str]) -> list[Pair]:
    """Pairs from the tab-separated formats (tatoeba, anki)."""
    pairs: list[Pair] = []
    for line in lines:
        if line is None:
            skipped["broken encoding"] += 1
            continue
        if not line.strip():
            continue
        cols = line.split("\t")
        if fmt == "tatoeba" and len(cols) == 1 and ";" in line:
            match = TATOEBA_SEMICOLON.fullmatch(line)
            if not match:
                skipped["wrong column count"] += 1
                continue
            en, es = match.group(2), match.group(4)
        elif fmt == "tatoeba":
            if len(cols) != 4:
                skipped["wrong column count"] += 1
                continue
            if not (is_int(cols[0]) and is_int(cols[2])):
                skipped["bad id"] += 1
                continue
            en, es = cols[1], cols[3]
        else:
            if len(cols) not in (2, 3):
                skipped["wrong column count"] += 1
                continue
            en, es = cols[0], cols[1]
        keep(en, es, pairs, skipped)
    return pairs


def parse_csv(lines: list[str | None], skipped: Counter[str], name: str, src_column: str | None = None,
              tgt_column: str | None = None, used: list[str] | None = None) -> list[Pair]:
    """Pairs from a ;-separated CSV with a header row (quoted fields may span lines); the
    header names of the columns read are appended to ``used``."""
    good = []
    for line in lines:
        if line is None:
            skipped["broken encoding"] += 1
        else:
            good.append(line + "\n")
    reader = csv.reader(good, delimiter=";")
    header: list[str] | None = None
    pairs: list[Pair] = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = row
                headerless = any(is_int(cell) for cell in row)
                if headerless:  # ids: a sentence pair, never a header (Tatoeba's export has none)
                    header = [str(i + 1) for i in range(len(row))]
                    if not (src_column and tgt_column):
                        raise ValueError(f"{name} (csv): the first row holds ids ({';'.join(row)[:60]!r}), so the "
                                         "file has no header row; read it with --format tatoeba (id;English;id;"
                                         "Spanish) or name the columns by number with --src-column and --tgt-column")
                try:
                    en_col, es_col = csv_columns(header, src_column, tgt_column)
                except ValueError as exc:
                    raise ValueError(f"{name} (csv): {exc}") from None
                needed = max(en_col, es_col) + 1
                if used is not None:
                    used += [header[en_col].strip(), header[es_col].strip()]
                if headerless:
                    if needed <= len(row):
                        keep(row[en_col], row[es_col], pairs, skipped)
                    else:
                        skipped["wrong column count"] += 1
            elif not needed <= len(row) <= max(len(header), needed):
                skipped["wrong column count"] += 1
            else:
                keep(row[en_col], row[es_col], pairs, skipped)
    except csv.Error as e:      # e.g. an unclosed quote that swallows the rest of the file
        raise ValueError(f"{name} (csv): cannot parse near line {reader.line_num}: {e}") from None
    return pairs


def keep(en: str, es: str, pairs: list[Pair], skipped: Counter[str]) -> None:
    en, es = en.strip(), es.strip()
    if en and es:
        pairs.append((en, es))
    else:
        skipped["empty side"] += 1


def load_pairs(path: str | Path, format: str | None = None, src_column: str | None = None,
               tgt_column: str | None = None) -> tuple[list[Pair], LoadReport]:
    """(English, Spanish) pairs of a corpus file, in file order, and a report of what was skipped.

    format: one of FORMATS, or None to detect it. src_column, tgt_column: the CSV columns to
    read (header names or 1-based numbers; default: recognised by header name). Blank lines
    are ignored; lines with the wrong number of columns, an empty side or bytes that are not
    UTF-8 are skipped and counted.
    """
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown corpus format {format!r}: expected one of {', '.join(FORMATS)}")
    path, lines = read_lines(path)
    if format is None:
        format = sniff(lines)
        if format is None:
            raise unknown_format(path, lines)
    if format != "csv" and (src_column or tgt_column):
        raise ValueError(f"{path.name} ({format}): --src-column and --tgt-column are for CSV files; the {format} "
                         "format has its English and Spanish columns in a fixed place")
    skipped: Counter[str] = Counter()
    used: list[str] = []
    pairs = (parse_csv(lines, skipped, path.name, src_column, tgt_column, used) if format == "csv"
             else parse_tab(lines, format, skipped))
    report = LoadReport(path, format, len(pairs), dict(skipped), tuple(used))
    if not pairs:
        what = f"skipped {describe(report.skipped)}" if skipped else "the file has no data lines"
        raise ValueError(f"{path.name} ({format}): no usable sentence pairs; {what}")
    return pairs, report


def split_pairs(pairs: list[Pair], test_size: int, seed: int = 0) -> tuple[list[Pair], list[Pair]]:
    """(train, test): a held-out test set of about test_size pairs, split by English sentence.

    All pairs of one English sentence go to the same side, so no test sentence is seen in
    training; the test set is filled with whole groups, in an order shuffled by seed, until it
    holds at least test_size pairs. Both splits keep the input order.
    """
    if not 0 <= test_size < len(pairs):
        raise ValueError(f"test_size must be at least 0 and smaller than the {len(pairs):,} pairs, got {test_size:,}")
    groups = Counter(en for en, _ in pairs)
    sentences = list(groups)            # first-seen order, so the shuffle depends only on seed
    random.Random(seed).shuffle(sentences)
    held_out: set[str] = set()
    n = 0
    for en in sentences:
        if n >= test_size:
            break
        held_out.add(en)
        n += groups[en]
    train = [p for p in pairs if p[0] not in held_out]
    test = [p for p in pairs if p[0] in held_out]
    if not train:
        raise ValueError(f"test_size {test_size:,} leaves no training pairs once whole English sentences are held out")
    return train, test
