"""Tests for autograder/translator/corpus.py and the embedded corpus (source_data/translator)."""

import bz2
import gzip
import importlib.util
import lzma
import sys
from pathlib import Path

import pytest

from autograder.translator.corpus import FORMATS, LoadReport, detect_format, load_pairs, split_pairs

DATA = Path(__file__).resolve().parents[1] / "source_data" / "translator"
TATOEBA, ANKI, CSV = DATA / "sample-tatoeba.tsv", DATA / "sample-anki.txt", DATA / "sample.csv"
CORPUS = DATA / "en-es.tsv"
TATOEBA_DEFAULT = DATA / "spa-eng.txt.gz"


@pytest.fixture(scope="module")
def grammar():
    """source_data/translator/grammar.py, imported from its path (source_data is no package)."""
    spec = importlib.util.spec_from_file_location("translator_grammar", DATA / "grammar.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up while building
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# --- the three formats ------------------------------------------------------------------

def test_tatoeba_sample():
    """Does the Tatoeba sample give its 11 good pairs and count each kind of bad line?"""
    pairs, report = load_pairs(TATOEBA)
    assert report.format == "tatoeba" and report.pairs == len(pairs) == 11
    assert report.skipped == {"wrong column count": 2, "empty side": 1, "bad id": 1}
    assert pairs[0] == ("Good morning.", "Buenos días.")
    assert ("Thank you very much.", "Muchas gracias.") in pairs          # sides are stripped


def test_anki_sample():
    """Does the Anki sample drop the attribution column, ignore blank lines and count bad lines?"""
    pairs, report = load_pairs(ANKI)
    assert report.format == "anki" and len(pairs) == 10
    assert report.skipped == {"wrong column count": 2, "empty side": 1}
    assert pairs[:2] == [("Hi.", "Hola."), ("Run!", "¡Corre!")]
    assert pairs[-1] == ("The car is red.", "El coche es rojo.")


def test_csv_sample():
    """Does the CSV sample (header es;en;notes) give (English, Spanish) with quotes undone?"""
    pairs, report = load_pairs(CSV)
    assert report.format == "csv" and len(pairs) == 10
    assert report.skipped == {"wrong column count": 1, "empty side": 1}
    assert pairs[:3] == [("Hello.", "Hola."), ("Yes, of course.", "Sí, claro."),
                         ('He said "hello".', 'Dijo "hola".')]


@pytest.mark.parametrize("path, fmt", [(TATOEBA, "tatoeba"), (ANKI, "anki"), (CSV, "csv"), (CORPUS, "anki")])
def test_detect_format(path, fmt):
    """Is each format recognised from the file's first lines?"""
    assert detect_format(path) == fmt


def test_explicit_format(tmp_path):
    """Does an explicit format win over sniffing, and is a wrong or unknown one a clear error?"""
    pairs, report = load_pairs(ANKI, format="anki")
    assert report.format == "anki" and len(pairs) == 10
    # Mostly 4-column lines with numeric ids: sniffed as Tatoeba; told "anki", they are bad lines.
    path = write(tmp_path / "pairs.txt", "1\tHi.\t2\tHola.\n3\tYes.\t4\tSí.\nBye.\tAdiós.\n".encode())
    assert detect_format(path) == "tatoeba"
    pairs, report = load_pairs(path, format="anki")
    assert pairs == [("Bye.", "Adiós.")] and report.skipped == {"wrong column count": 2}
    with pytest.raises(ValueError, match=r"sample-anki\.txt \(tatoeba\).*wrong column count"):
        load_pairs(ANKI, format="tatoeba")
    with pytest.raises(ValueError, match="tatoeba, anki, csv"):
        load_pairs(ANKI, format="tsv")


# Tatoeba's own export as lecture 003 meets it: headerless, ; between the four fields, and the
# first pair a short one that a header-reading parser would swallow.
TATOEBA_SEMICOLON = ("1276;Go.;2481;Vaya.\n"
                     "1277;I have to go; now.;2482;Tengo que irme; ya.\n"
                     "1278;Let's try something.;2483;Intentemos algo.\n"
                     "not a pair at all\n")


def test_tatoeba_export_with_semicolons(tmp_path):
    """Is Tatoeba's headerless id;English;id;Spanish export detected as Tatoeba, its first pair
    kept (not taken for a header), and a ; inside a sentence kept in the sentence?"""
    path = write(tmp_path / "sentence_pairs.csv", TATOEBA_SEMICOLON.encode())
    assert detect_format(path) == "tatoeba"
    pairs, report = load_pairs(path)
    assert pairs == [("Go.", "Vaya."), ("I have to go; now.", "Tengo que irme; ya."),
                     ("Let's try something.", "Intentemos algo.")]
    assert report.skipped == {"wrong column count": 1}


def test_headerless_csv_never_takes_a_pair_for_its_header(tmp_path):
    """Read as CSV, does a first row holding ids count as data (with the columns given by number),
    and is it a clear error that names --format tatoeba when no columns are given?"""
    path = write(tmp_path / "pairs.csv", "1276;Go.;2481;Vaya.\n1278;Run!;2483;¡Corre!\n".encode())
    pairs, report = load_pairs(path, format="csv", src_column="2", tgt_column="4")
    assert pairs == [("Go.", "Vaya."), ("Run!", "¡Corre!")]
    assert report.summary() == "pairs.csv (csv, English from column 2, Spanish from column 4): 2 pairs; nothing skipped"
    with pytest.raises(ValueError, match=r"no header row; read it with --format tatoeba"):
        load_pairs(path, format="csv")


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)])
def test_compressed_files(tmp_path, suffix, compress):
    """Is a corpus compressed with gzip, xz or bzip2 read like the plain file, and a broken one one clear error?"""
    plain = ANKI.read_bytes()
    path = write(tmp_path / f"spa-eng.txt{suffix}", compress(plain))
    assert load_pairs(path) == (load_pairs(ANKI)[0], load_pairs(path)[1])
    assert load_pairs(path)[1].summary().startswith(f"spa-eng.txt{suffix} (anki): 10 pairs")
    with pytest.raises(ValueError, match=f"not a readable \\{suffix} file"):
        load_pairs(write(tmp_path / f"broken{suffix}", plain[:50]))


def test_undetectable_and_missing_files(tmp_path):
    """Is a file of plain prose a ValueError naming the formats, and a missing file FileNotFoundError?"""
    prose = write(tmp_path / "notes.txt", b"Just some prose.\nNo tabs, no semicolons.\n")
    for call in (detect_format, load_pairs):
        with pytest.raises(ValueError, match="tatoeba, anki, csv"):
            call(prose)
    missing = tmp_path / "nowhere.tsv"
    with pytest.raises(FileNotFoundError, match="nowhere.tsv"):
        load_pairs(missing)
    with pytest.raises(ValueError, match=r"empty\.tsv \(anki\)"):
        load_pairs(write(tmp_path / "empty.tsv", b""), format="anki")


def test_only_bad_lines(tmp_path):
    """Is a file without one usable pair a ValueError that names the file, format and reasons?"""
    path = write(tmp_path / "bad.tsv", "one column only\nHi.\t \n\tHola.\nA\tB\tC\tD\tE\n".encode())
    with pytest.raises(ValueError) as err:
        load_pairs(path, format="anki")
    message = str(err.value)
    assert "bad.tsv (anki)" in message and "2 wrong column count" in message and "2 empty side" in message


def test_broken_utf8_is_skipped_and_counted(tmp_path):
    """Are undecodable lines and lines with U+FFFD skipped and counted, with a BOM and CRLF tolerated?"""
    data = (b"\xef\xbb\xbfHi.\tHola.\r\n"
            b"Bad \xff\xfe bytes.\tMal.\r\n"
            b"Good night.\tBuenas noches.\r\n"
            + "Replaced \ufffd char.\tReemplazado.\r\n".encode()
            + b"Half a char \xc3.\tMedio.\r\n"
            b"Thanks.\tGracias.\r\n")
    pairs, report = load_pairs(write(tmp_path / "mixed.txt", data))
    assert report.format == "anki"
    assert pairs == [("Hi.", "Hola."), ("Good night.", "Buenas noches."), ("Thanks.", "Gracias.")]
    assert report.skipped == {"broken encoding": 3}
    assert report.summary() == "mixed.txt (anki): 3 pairs; skipped 3 (3 broken encoding)"


@pytest.mark.parametrize("header, row", [("es;en", "Hola.;Hello."), ("English;Spanish", "Hello.;Hola."),
                                         ("target;source", "Hola.;Hello."), ("TGT;SRC", "Hola.;Hello."),
                                         ("id;spa;eng", "7;Hola.;Hello."), ("español;inglés", "Hola.;Hello."),
                                         ("Inglés;Castellano", "Hello.;Hola."), ("es-MX;en_US", "Hola.;Hello."),
                                         ("origen;destino", "Hello.;Hola.")])
def test_csv_header_columns(tmp_path, header, row):
    """Are the English and Spanish columns found by header name (English, Spanish, ISO codes,
    with a region), whatever their order, and named in the summary?"""
    path = write(tmp_path / "export.csv", f"{header}\n{row}\n".encode())
    pairs, report = load_pairs(path)
    assert pairs == [("Hello.", "Hola.")]
    names = header.split(";")
    en = next(n for n in names if row.split(";")[names.index(n)] == "Hello.")
    es = next(n for n in names if row.split(";")[names.index(n)] == "Hola.")
    assert report.summary() == f"export.csv (csv, English from {en!r}, Spanish from {es!r}): 1 pair; nothing skipped"


@pytest.mark.parametrize("header", ["a;b", "english;french", "source;notes", "es;es"])
def test_csv_header_that_names_no_pair_is_refused(tmp_path, header):
    """Is a header without a recognisable English and Spanish column refused in one line that
    lists the columns and the options that choose them, instead of guessing the first two?"""
    path = write(tmp_path / "x.csv", f"{header}\nHello.;Hola.\n".encode())
    with pytest.raises(ValueError) as err:
        load_pairs(path)
    message = str(err.value)
    assert message.startswith("x.csv (csv): cannot tell which column is English") and "\n" not in message
    assert all(repr(name) in message for name in header.split(";")) and "--src-column" in message


def test_csv_columns_chosen_by_name_or_number(tmp_path):
    """Do --src-column/--tgt-column choose the columns by header name or by number from 1 (a
    quoted field may span lines), and is an unknown one, or one given for a tab format, an error?"""
    path = write(tmp_path / "x.csv", 'a;b\n"Dos\nlíneas.";"Two\nlines."\nSí.;Yes.\n'.encode())
    want = [("Two\nlines.", "Dos\nlíneas."), ("Yes.", "Sí.")]
    assert load_pairs(path, src_column="b", tgt_column="a")[0] == want
    pairs, report = load_pairs(path, src_column="2", tgt_column="1")
    assert pairs == want and "English from 'b', Spanish from 'a'" in report.summary()
    with pytest.raises(ValueError, match="--src-column 'c': no such column; the header has 'a', 'b'"):
        load_pairs(path, src_column="c", tgt_column="a")
    with pytest.raises(ValueError, match="are for CSV files"):
        load_pairs(ANKI, src_column="1", tgt_column="2")


def test_summary_line():
    """Is the summary one line with thousands separators and the reasons, most frequent first?"""
    report = LoadReport(Path("/data/spa-eng.txt"), "anki", 118964, {"empty side": 1, "wrong column count": 2})
    assert report.summary() == "spa-eng.txt (anki): 118,964 pairs; skipped 3 (2 wrong column count, 1 empty side)"
    assert LoadReport(Path("x.tsv"), "anki", 5, {}).summary() == "x.tsv (anki): 5 pairs; nothing skipped"
    assert FORMATS == ("tatoeba", "anki", "csv")


# --- the held-out split -------------------------------------------------------------------

def test_split_by_english_sentence():
    """Does no English sentence land in both splits, with the order kept and the seed deciding?"""
    pairs = [(f"Sentence {i % 37}.", f"Frase {i}.") for i in range(200)]   # 37 sentences, many translations
    train, test = split_pairs(pairs, test_size=40, seed=3)
    assert {en for en, _ in train}.isdisjoint(en for en, _ in test)
    assert 40 <= len(test) < 40 + 6 and len(train) + len(test) == 200
    assert train == [p for p in pairs if p in train] and test == [p for p in pairs if p in test]
    assert split_pairs(pairs, 40, seed=3) == (train, test)
    assert split_pairs(pairs, 40, seed=4) != (train, test)
    assert split_pairs(pairs, 0) == (pairs, [])


def test_split_rejects_bad_sizes():
    """Is a test_size that is negative or not smaller than the corpus an error?"""
    pairs = [("A.", "A."), ("B.", "B."), ("C.", "C.")]
    for size in (-1, 3, 4):
        with pytest.raises(ValueError, match="test_size"):
            split_pairs(pairs, size)
    with pytest.raises(ValueError, match="no training pairs"):
        split_pairs([("A.", "Uno."), ("A.", "Una.")], 1)


# --- the embedded corpus ---------------------------------------------------------------

def test_the_default_corpus_is_tatoeba_with_its_licence():
    """Is the translator's default corpus the embedded Tatoeba file (118,964 everyday pairs, read
    through its compression), shipped with manythings.org's notice, its licence and attribution?"""
    from autograder.translator.config import TrainConfig, corpus_path

    path = corpus_path(TrainConfig())
    assert path == TATOEBA_DEFAULT and path.stat().st_size < 3_000_000
    pairs, report = load_pairs(path)
    assert report.summary() == "spa-eng.txt.gz (anki): 118,964 pairs; nothing skipped"
    assert pairs[:2] == [("Go.", "Ve."), ("Go.", "Vete.")] and ("I'm hungry!", "Ya tengo hambre.") in pairs
    assert "tatoeba.org" in (DATA / "spa-eng.ABOUT.txt").read_text(encoding="utf-8")
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert "CC-BY 2.0 France" in readme and "Attribution: www.manythings.org/anki\nand tatoeba.org" in readme


def test_grammar_is_deterministic(grammar):
    """Does the same seed give the same pairs, and another seed other pairs?"""
    assert grammar.generate(seed=7, size=300) == grammar.generate(seed=7, size=300)
    assert grammar.generate(seed=7, size=300) != grammar.generate(seed=8, size=300)
    assert grammar.conjugate("comer", grammar.NOSOTROS) == "comemos"
    assert grammar.conjugate("vivir", grammar.NOSOTROS) == "vivimos"
    assert grammar.conjugate("tener", grammar.YO) == "tengo"


def test_committed_corpus_is_up_to_date(grammar, tmp_path):
    """Is the committed en-es.tsv exactly what grammar.py writes with its default seed?"""
    out = tmp_path / "en-es.tsv"
    grammar.main(["--out", str(out)])
    assert out.read_bytes() == CORPUS.read_bytes(), "run: python source_data/translator/grammar.py"


def test_corpus_shape():
    """Has the corpus >= 20,000 distinct English sentences, two non-empty columns per line and ¿...? questions?"""
    data = CORPUS.read_bytes()
    assert len(data) < 2_000_000 and data.endswith(b"\n") and b"\r" not in data
    lines = data.decode("utf-8").split("\n")[:-1]
    rows = [line.split("\t") for line in lines]
    assert all(len(row) == 2 and row[0].strip() and row[1].strip() for row in rows)
    english = [en for en, _ in rows]
    assert len(set(english)) == len(english) >= 20_000
    for en, es in rows:
        assert en.endswith("?") == es.endswith("?") == es.startswith("¿"), (en, es)
        assert en[0].isupper() and es.lstrip("¿¡")[0].isupper(), (en, es)
    pairs, report = load_pairs(CORPUS)
    assert report.skipped == {} and pairs == [tuple(row) for row in rows]


@pytest.mark.parametrize("pair", [
    ("The water is cold.", "El agua está fría."),
    ("We like cats.", "Nos gustan los gatos."),
    ("Are you tired?", "¿Estás cansado?"),
    ("He cannot help Maria.", "Él no puede ayudar a María."),
    ("You have a big house.", "Tienes una casa grande."),
])
def test_hand_checked_pairs(pair):
    """Does the corpus hold this pair, checked by hand for agreement, conjugation and accents?"""
    assert "\t".join(pair) + "\n" in CORPUS.read_text(encoding="utf-8")
