"""`python -m autograder gradescope`: the zip Gradescope takes, and its run_autograder on a
folder laid out like Gradescope's /autograder (source/, submission/, results/,
submission_metadata.json), installed from the zip into a fresh virtual environment."""

import json
import os
import stat
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import attack_sources as src
import gradescope_spec
import pytest

from helpers import ASSIGNMENTS, ROOT, SOLUTIONS, course_notebook

ONLY = ("a1_attention", "a3_blocks")  # a3 needs a1 as a prerequisite
MEMORY = "1.5"  # GiB: correct code peaks near 0.7 GiB of address space; the hog below touches 6
pytestmark = pytest.mark.xdist_group("gradescope")


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gs") / "autograder.zip"
    args = [a for name in ONLY for a in ("--only", name)]
    proc = subprocess.run([sys.executable, "-m", "autograder", "gradescope", "--out", str(out), "--memory", MEMORY,
                           *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def gradescope_root(tmp_path_factory, autograder_zip) -> Path:
    """/autograder as setup.sh leaves it: source/ from the zip, a virtual environment with the
    requirements (here: this one's packages, through a .pth file, for lack of network) and the
    package installed from source/."""
    root = tmp_path_factory.mktemp("autograder")
    with zipfile.ZipFile(autograder_zip) as zf:
        for info in zf.infolist():
            if info.filename.startswith("source/") or info.filename == "run_autograder":
                zf.extract(info, root)
    (root / "run_autograder").chmod(0o755)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=300)
    purelib = subprocess.run([str(root / "venv" / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "course-requirements.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    proc = subprocess.run([str(root / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "-e", str(root / "source")], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def run_autograder(root: Path, files: dict[str, bytes]) -> tuple[dict, str, subprocess.CompletedProcess]:
    submission, results = root / "submission", root / "results"
    for folder in (submission, results):
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        folder.mkdir()
    for rel, data in files.items():
        (submission / rel).parent.mkdir(parents=True, exist_ok=True)
        (submission / rel).write_bytes(data)
    (root / "submission_metadata.json").write_text(json.dumps({"id": 1, "users": [{"name": "A"}]}), encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(root), "GRADESCOPE_ROOT": str(root),
           "GRADESCOPE_PYTHON": str(root / "venv" / "bin" / "python")}
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True,
                          timeout=900)
    text = (results / "results.json").read_text(encoding="utf-8")
    return json.loads(text), text, proc


def _modules(base: Path, names=ONLY, flat: bool = False) -> dict[str, bytes]:
    return {(p.name if flat else f"{name}/{p.name}"): p.read_bytes() for name in names
            for p in sorted((base / name).glob("*.py")) if not p.name.startswith("test_")}


def test_zip_has_gradescope_layout_and_nothing_more(autograder_zip):
    """Are setup.sh and an executable run_autograder at the zip's root, with the pinned CPU
    requirements, the graders of the chosen assignments only, and no project tests?"""
    with zipfile.ZipFile(autograder_zip) as zf:
        names = zf.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        requirements = zf.read("source/requirements.txt").decode()
        config = json.loads(zf.read("source/gradescope.json"))
    assert {"setup.sh", "run_autograder"} <= set(names)
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    graders = {n.split("/")[3] for n in names if n.startswith("source/autograder/graders/") and n.count("/") > 3}
    assert graders == set(ONLY)
    solutions = {n.split("/")[2] for n in names if n.startswith("source/solutions/") and n.count("/") > 2}
    assert solutions == set(ONLY)
    assert not [n for n in names if n.startswith(("source/tests/", "tests/")) or "__pycache__" in n]
    assert "download.pytorch.org/whl/cpu" in requirements and "\ntorch==" in requirements
    assert "+cpu" not in requirements
    assert config["only"] == list(ONLY) and config["memory_gib"] == float(MEMORY)


def test_run_autograder_grades_each_upload_shape(gradescope_root):
    """Does run_autograder give the solutions full marks (in folders and flat), the stubs 0,
    and an empty or foreign upload a valid results.json with a visible explanation?"""
    solved, text, proc = run_autograder(gradescope_root, _modules(SOLUTIONS))
    assert gradescope_spec.problems(text) == [], proc.stdout + proc.stderr
    best = solved["extra_data"]["max_score"]
    assert solved["score"] == best > 0, proc.stdout + proc.stderr
    assert {t["extra_data"]["assignment"] for t in solved["tests"]} == set(ONLY)

    flat, _, _ = run_autograder(gradescope_root, _modules(SOLUTIONS, flat=True))
    assert flat["score"] == best

    stubs, text, _ = run_autograder(gradescope_root, _modules(ASSIGNMENTS, flat=True))
    assert gradescope_spec.problems(text) == [] and stubs["score"] == 0 and stubs["extra_data"]["max_score"] == best

    for files in ({}, {"essay.docx": b"\x00\x01", "notes.txt": b"hola"}):
        empty, text, _ = run_autograder(gradescope_root, files)
        assert gradescope_spec.problems(text) == []
        assert empty["score"] == 0 and len(empty["tests"]) == 1
        assert empty["tests"][0]["visibility"] == "visible" and "attention.py" in empty["tests"][0]["output"]


@pytest.mark.parametrize("attack", ["memory", "fork"])
def test_run_autograder_limits_fail_only_the_tests_that_hit_them(gradescope_root, attack):
    """Does an upload whose target_mask touches 6 GiB (over the zip's 1.5 GiB limit) or forks
    1,000 sleepers lose only the tests that call it, with the limit named, and keep every
    other point?"""
    body = src.MEMORY_HOG.format(chunks=96) if attack == "memory" else \
        src.FORK_BOMB.format(children=1000, tag="course-gradescope-fork")
    files = _modules(SOLUTIONS, names=("a1_attention",))
    masks = files["a1_attention/masks.py"].decode()
    assert src.TARGET_MASK_BEGIN in masks
    files["a1_attention/masks.py"] = masks.replace(src.TARGET_MASK_BEGIN, body + src.TARGET_MASK_BEGIN).encode()
    data, text, proc = run_autograder(gradescope_root, files)
    assert gradescope_spec.problems(text) == [], proc.stdout + proc.stderr
    a1 = [t for t in data["tests"] if t["extra_data"]["assignment"] == "a1_attention"]
    hit = [t for t in a1 if "target_mask" in t["name"]]
    limit = f"memory limit ({MEMORY} GiB)" if attack == "memory" else "limit on processes and threads"
    assert hit and all(t["score"] == 0 and limit in t["output"] for t in hit), [t["output"] for t in hit]
    assert all(t["score"] == t["max_score"] for t in a1 if t not in hit)


def test_run_autograder_grades_course_notebooks_like_their_modules(gradescope_root):
    """Does a notebook upload (solved, released untouched, with one exercise left undone,
    or solved beside the release's untouched module stubs) get exactly the per-test
    scores of the same code handed in as modules?"""
    def scores(data):
        return {t["name"]: t["score"] for t in data["tests"]}

    names = {a: f"{a}.ipynb" for a in ONLY}
    solved, text, proc = run_autograder(gradescope_root, {names[a]: course_notebook(a) for a in ONLY})
    assert gradescope_spec.problems(text) == [], proc.stdout + proc.stderr
    modules, _, _ = run_autograder(gradescope_root, _modules(SOLUTIONS))
    assert scores(solved) == scores(modules) and solved["score"] == solved["extra_data"]["max_score"] > 0

    # the whole student repository: the release's untouched stubs beside the solved notebooks
    repository = {f"assignments/{rel}": data for rel, data in _modules(ASSIGNMENTS).items()}
    repository.update({f"notebooks/{a}/{names[a]}": course_notebook(a) for a in ONLY})
    whole, _, _ = run_autograder(gradescope_root, repository)
    assert scores(whole) == scores(modules), whole["output"]

    released, _, _ = run_autograder(gradescope_root, {names[a]: course_notebook(a, solved=False) for a in ONLY})
    stubs, _, _ = run_autograder(gradescope_root, _modules(ASSIGNMENTS, flat=True))
    assert scores(released) == scores(stubs) and released["score"] == 0

    # a1 solved but target_mask left as released; in module form: the same stub in masks.py
    masks_stub = (ASSIGNMENTS / "a1_attention" / "masks.py").read_text(encoding="utf-8")
    undone = next(part for part in masks_stub.split("\n\n\n") if part.startswith("def target_mask"))

    def keep_stub(source):
        return undone if source.lstrip().startswith("def target_mask") else None
    half_nb, _, _ = run_autograder(gradescope_root, {"mine.ipynb": course_notebook("a1_attention", edit=keep_stub)})
    half_files = _modules(SOLUTIONS, names=("a1_attention",))
    solved_masks = (SOLUTIONS / "a1_attention" / "masks.py").read_text(encoding="utf-8")
    done = next(part for part in solved_masks.split("\n\n\n") if part.startswith("def target_mask"))
    half_files["a1_attention/masks.py"] = solved_masks.replace(done, undone).encode()
    half_mod, _, _ = run_autograder(gradescope_root, half_files)
    assert scores(half_nb) == scores(half_mod)
    assert 0 < half_nb["score"] < sum(t["max_score"] for t in half_nb["tests"])


@pytest.mark.parametrize("lang", ["es", "en"])
def test_feedback_in_one_language_on_request(gradescope_root, lang):
    """With the zip's language set to one language, are the feedback and the test names
    in that language only, and are the scores those of the bilingual run?"""
    config = gradescope_root / "source" / "gradescope.json"
    original = config.read_text(encoding="utf-8")
    try:
        config.write_text(json.dumps({**json.loads(original), "lang": lang}), encoding="utf-8")
        data, text, proc = run_autograder(gradescope_root, _modules(ASSIGNMENTS, flat=True))
    finally:
        config.write_text(original, encoding="utf-8")
    assert gradescope_spec.problems(text) == [], proc.stdout + proc.stderr
    outputs = "\n".join(t["output"] for t in data["tests"])
    english, spanish = "not implemented yet", "aún sin implementar"
    shown, hidden = (spanish, english) if lang == "es" else (english, spanish)
    assert shown in outputs and hidden not in outputs, outputs[:500]
    assert all(" / " not in t["name"] for t in data["tests"])
    assert data["score"] == 0
