"""The first cells of a released notebook: its setup when it is opened alone.

On a notebook service (Colab, Kaggle) a student opens the ``.ipynb`` without the folder it
sits in, so its data, ``selfcheck.py`` and ``public_tests/`` are missing. The release
(:mod:`autograder.authoring.release`) puts two cells before a notebook's first code cell:
a Markdown line saying what the next cell does, and that cell. Run where ``selfcheck.py``
sits next to the notebook (the release's folder, nbgrader's), the cell does nothing.
Otherwise it takes the course's zip (one uploaded next to the notebook first, else the
URL given at release time: a zip of the release, with or without one top folder, as
GitHub's ``archive/refs/heads/main.zip`` has), extracts the assignment's
``notebooks/<assignment>/`` into ``./<assignment>/``, moves there (the notebook reads its
data by relative paths) and ``pip install``s only the requirements that cannot be
imported (torch, when missing, in its CPU build and the release's pinned version). With
neither a zip nor a URL it prints, in one line and both languages, how to upload the zip,
and stops there. It uses the standard library only; it grades nothing and carries no
nbgrader metadata, and :mod:`.extract` leaves it out of the module form (:data:`SETUP_ID`).
"""

from __future__ import annotations

import re
from string import Template

from ..course import Assignment

SETUP_ID = "setup"  # the code cell's id (nbformat), which the module form skips
NOTE_ID = "setup-note"  # the Markdown cell above it
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
URL_SCHEMES = ("http://", "https://", "file://")
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

TEXT = {
    "es": {
        "note": ("**Antes de empezar**: ejecuta la celda siguiente. Si abriste este cuaderno solo (en Colab o "
                 "Kaggle, sin su carpeta), trae sus archivos (datos, `selfcheck.py`, tests públicos) "
                 "{source}, e instala los paquetes que falten. Si el cuaderno está en su carpeta, no hace nada."),
        "from_url": "de un zip del curso que hayas subido o, si no lo hay, de donde lo publicó tu docente",
        "from_upload": "del zip del curso, que subes antes (en Colab: panel *Archivos* → *Subir*)",
        "head": ("# Prepara el cuaderno si lo abriste solo (Colab, Kaggle): trae su carpeta y los paquetes\n"
                 "# que falten. Si selfcheck.py está al lado del cuaderno, no hace nada."),
        "url": "# Dónde publicó tu docente el zip del curso.",
        "no_url": "# Tu docente no dio dirección: sube el zip del curso.",
        "packages": "# Módulo: lo que instala pip si falta.",
        "zip": "# Un zip subido aquí va antes que la dirección: sirve también sin internet (Kaggle).",
        "members": "# De notebooks/<tarea>/ del zip (bajo su carpeta raíz si la tiene: GitHub la pone), lo que\n"
                    "            # va junto al cuaderno, sin otro cuaderno.",
        "chdir": "# El cuaderno lee sus datos y sus comprobaciones desde su carpeta.",
        "pip": "# Solo lo que falta; torch, si falta, para CPU (cientos de MB en vez de varios GB).",
    },
    "en": {
        "note": ("**Before you start**: run the next cell. If you opened this notebook alone (in Colab or Kaggle, "
                 "without its folder), it fetches its files (data, `selfcheck.py`, public tests) "
                 "{source}, and installs the packages that are missing. When the notebook sits in its folder, "
                 "it does nothing."),
        "from_url": "from a course zip you uploaded or, without one, from where your instructor published it",
        "from_upload": "from the course zip, which you upload first (in Colab: *Files* pane → *Upload*)",
        "head": ("# Sets the notebook up when you opened it alone (Colab, Kaggle): fetches its folder and the\n"
                 "# packages that are missing. With selfcheck.py beside the notebook it does nothing."),
        "url": "# Where your instructor published the course's zip.",
        "no_url": "# Your instructor gave no address: upload the course's zip.",
        "packages": "# Module: what pip installs when it is missing.",
        "zip": "# A zip uploaded here comes before the address: it works without internet too (Kaggle).",
        "members": "# From notebooks/<assignment>/ of the zip (under its top folder if it has one: GitHub's has),\n"
                    "            # what goes beside the notebook, no second notebook.",
        "chdir": "# The notebook reads its data and its checks from its folder.",
        "pip": "# Only what is missing; torch, when missing, for the CPU (hundreds of MB, not several GB).",
    },
}

# The cell's code; ``$name`` fields are filled in (comments in the release's language,
# printed lines in both). Standard library only: nothing else may be installed yet.
_CODE = Template('''$head
import glob
import importlib.util
import os
import subprocess
import sys
import urllib.request
import zipfile

ASSIGNMENT = $assignment
$url_comment
COURSE_ZIP = $url
$packages_comment
PACKAGES = {
$packages
}

here = os.path.isfile("selfcheck.py")
if not here and not os.path.isdir(ASSIGNMENT):
    $zip_comment
    source = min(glob.glob("*.zip"), default="") or COURSE_ZIP
    if source:
        archive = source if os.path.isfile(source) else urllib.request.urlretrieve(source)[0]
        with zipfile.ZipFile(archive) as course_zip:
            $members_comment
            for member in course_zip.infolist():
                _, found, inside = member.filename.partition(f"notebooks/{ASSIGNMENT}/")
                if found and inside and not inside.endswith(("/", ".ipynb")):
                    member.filename = inside
                    course_zip.extract(member, ASSIGNMENT)
    if not os.path.isdir(ASSIGNMENT):
        print(f"No files of {ASSIGNMENT} here: upload the course zip (Colab: Files pane) and run this cell again / "
              f"Faltan los archivos de {ASSIGNMENT}: sube el zip del curso (Colab: panel Archivos) y vuelve a "
              "ejecutar esta celda")
if not here and os.path.isdir(ASSIGNMENT):
    $chdir_comment
    os.chdir(ASSIGNMENT)
    sys.path.insert(0, os.getcwd())
    $pip_comment
    missing = [spec for module, spec in PACKAGES.items() if importlib.util.find_spec(module) is None]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *missing,
                        "--extra-index-url", $cpu_index], check=True)
    importlib.invalidate_caches()
    print(f"Ready: the files of {ASSIGNMENT} are in {os.getcwd()} / "
          f"Listo: los archivos de {ASSIGNMENT} están en {os.getcwd()}")''')


def _packages(packages: dict[str, str], width: int = 100) -> str:
    """The PACKAGES entries, packed into lines of at most ``width`` characters."""
    lines, line = [], ""
    for item in (f"{module!r}: {spec!r}," for module, spec in packages.items()):
        candidate = f"{line} {item}" if line else f"    {item}"
        if line and len(candidate) > width:
            lines.append(line)
            candidate = f"    {item}"
        line = candidate
    return "\n".join([*lines, line]).replace("'", '"')


def setup_source(assignment: Assignment, lang: str, url: str | None, packages: dict[str, str]) -> str:
    """The setup cell's code. ``url``: where the course's zip is published (an http(s) or
    file URL, or a path), None for none. ``packages``: importable module -> what pip
    installs when it cannot be imported (``{"torch": "torch==2.13.0", ...}``)."""
    text = TEXT[lang]
    for module, spec in packages.items():
        if not _MODULE_NAME.match(module) or not spec or any(c in spec for c in "\"'\\\n"):
            raise ValueError(f"not a module and a pip requirement: {module!r}: {spec!r}")
    return _CODE.substitute(
        head=text["head"], assignment=_quoted(assignment.name), url=_quoted(url or ""),
        url_comment=text["url" if url else "no_url"], packages_comment=text["packages"],
        packages=_packages(packages), zip_comment=text["zip"], members_comment=text["members"],
        chdir_comment=text["chdir"], pip_comment=text["pip"], cpu_index=_quoted(CPU_INDEX))


def setup_cells(assignment: Assignment, lang: str, url: str | None, packages: dict[str, str]) -> list:
    """The Markdown note and the setup cell (``nbformat`` nodes, no nbgrader metadata)."""
    import nbformat

    text = TEXT[lang]
    note = nbformat.v4.new_markdown_cell(text["note"].format(source=text["from_url" if url else "from_upload"]))
    note.id = NOTE_ID
    code = nbformat.v4.new_code_cell(setup_source(assignment, lang, url, packages))
    code.id = SETUP_ID
    return [note, code]


def _quoted(value: str) -> str:
    """``value`` as a Python string literal in double quotes (the style of the cell)."""
    if any(c in value for c in "\"\\\n\r"):
        raise ValueError(f"not a plain address or name: {value!r}")
    return f'"{value}"'
