"""`python -m autograder gradescope`: the zip Gradescope takes, laid out as Gradescope's
published specification says (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
"/autograder/source contains the extracted contents of your autograder zip file",
"/autograder/run_autograder is where your autograder script gets copied to", "when the
autograder executes, the working directory is /autograder", the upload is in
/autograder/submission and the results are read from /autograder/results/results.json.
Here a temporary ROOT stands for /autograder."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from pathlib import Path

import attack_sources as src
import gradescope_spec
import pytest
from packaging.requirements import Requirement

import helpers
from autograder.platforms import gradescope
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


def extract_as_gradescope(autograder_zip: Path, root: Path) -> None:
    """What Gradescope does with the zip when it builds the image: every entry extracted into
    ROOT/source (with its permissions, which zipfile does not restore), run_autograder copied
    from there to ROOT."""
    with zipfile.ZipFile(autograder_zip) as zf:
        zf.extractall(root / "source")
        for info in zf.infolist():
            if (info.external_attr >> 16) & stat.S_IXUSR:
                (root / "source" / info.filename).chmod(0o755)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")


@pytest.fixture(scope="module")
def gradescope_root(tmp_path_factory, autograder_zip) -> Path:
    """ROOT as Gradescope leaves it after setup.sh: the zip extracted into ROOT/source, then
    setup.sh's work, ROOT/venv with the requirements (here: this environment's packages,
    through a .pth file, for lack of torch's CPU index) and the package installed from
    ROOT/source as setup.sh's last step installs it."""
    root = tmp_path_factory.mktemp("autograder")
    extract_as_gradescope(autograder_zip, root)
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
    """One upload, graded as Gradescope grades it: ROOT/run_autograder run in ROOT, with no
    variable of ours telling it where it is."""
    submission, results = root / "submission", root / "results"
    for folder in (submission, results):
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        folder.mkdir()
    for rel, data in files.items():
        (submission / rel).parent.mkdir(parents=True, exist_ok=True)
        (submission / rel).write_bytes(data)
    (root / "submission_metadata.json").write_text(json.dumps({"id": 1, "users": [{"name": "A"}]}), encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(root)}
    proc = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True,
                          timeout=900)
    text = (results / "results.json").read_text(encoding="utf-8")
    return json.loads(text), text, proc


def _modules(base: Path, names=ONLY, flat: bool = False) -> dict[str, bytes]:
    return {(p.name if flat else f"{name}/{p.name}"): p.read_bytes() for name in names
            for p in sorted((base / name).glob("*.py")) if not p.name.startswith("test_")}


def test_zip_has_gradescope_layout_and_nothing_more(autograder_zip):
    """Are setup.sh, run_autograder (both executable), the requirements, the configuration,
    the package, the graders of the chosen assignments and their solutions at the zip's
    root, with no project tests?"""
    with zipfile.ZipFile(autograder_zip) as zf:
        names = zf.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        requirements = zf.read("requirements.txt").decode()
        config = json.loads(zf.read("gradescope.json"))
        setup = zf.read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", "requirements.txt", "pyproject.toml", "autograder/__init__.py"} <= set(names)
    assert not [n for n in names if n.startswith("source/")], "Gradescope extracts the zip into source/ itself"
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    graders = {n.split("/")[2] for n in names if n.startswith("autograder/graders/") and n.count("/") > 2}
    assert graders == set(ONLY)
    solutions = {n.split("/")[1] for n in names if n.startswith("solutions/") and n.count("/") > 1}
    assert solutions == set(ONLY)
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]
    assert f"torch=={gradescope.TORCH_VERSION}" in requirements.splitlines()
    assert gradescope.CPU_WHEELS in setup
    assert config["only"] == list(ONLY) and config["memory_gib"] == float(MEMORY)


def test_zip_depends_on_nothing_of_the_machine_that_built_it(autograder_zip):
    """Does the zip name no path of this checkout or environment, and does requirements.txt
    hold the package's own version ranges (pyproject.toml) rather than this machine's
    installed versions, with torch at the version constraints.txt pins?"""
    with zipfile.ZipFile(autograder_zip) as zf:
        texts = {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist()}
    local = [str(ROOT), sys.prefix, sys.base_prefix]
    assert not [(n, p) for n, t in texts.items() for p in local if p in t]
    tomllib = pytest.importorskip("tomllib")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    ranges = {str(Requirement(d)) for d in declared}
    for line in texts["requirements.txt"].splitlines():
        assert line.startswith("torch==") or str(Requirement(line)) in ranges, line
    pinned = re.search(r"^torch==(\S+)", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.M).group(1)
    assert gradescope.TORCH_VERSION == pinned


def test_setup_sh_names_only_paths_that_the_layout_has(tmp_path, autograder_zip):
    """Laid out as Gradescope lays it out, does every file setup.sh names under its own
    folder exist, is the folder it installs from a package, and does run_autograder look
    for the venv where setup.sh makes it?"""
    extract_as_gradescope(autograder_zip, tmp_path)
    setup = (tmp_path / "source" / "setup.sh").read_text(encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(tmp_path / "source" / "setup.sh")]).returncode == 0
    named = re.findall(r'\$source_dir/([\w./-]+)', setup)
    assert named, setup
    assert not [p for p in named if not (tmp_path / "source" / p).exists()]
    assert '-e "$source_dir"' in setup and (tmp_path / "source" / "pyproject.toml").is_file()
    assert '"$root/venv"' in setup and "$root/venv/bin/python" in (tmp_path / "run_autograder").read_text()


def test_setup_sh_failure_is_loud_and_names_the_step(tmp_path, autograder_zip):
    """With no package index reachable, does setup.sh stop with a non-zero exit and a line
    that names the step that failed (torch), instead of a silent half-built image?"""
    extract_as_gradescope(autograder_zip, tmp_path)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path),
           "PIP_CONFIG_FILE": os.devnull, "COURSE_PYTHON": getattr(sys, "_base_executable", sys.executable)}
    proc = subprocess.run(["bash", "setup.sh"], cwd=tmp_path / "source", env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode != 0
    failed = [line for line in proc.stderr.splitlines() if line.startswith("setup.sh FAILED")]
    assert failed and "torch==" in failed[0], proc.stdout + proc.stderr


PLATFORMS = {  # Gradescope's Ubuntu images: glibc 2.35 (22.04, Python 3.10) and 2.39 (24.04, Python 3.12)
    "3.10": [f"manylinux_2_{n}_x86_64" for n in range(35, 16, -1)] + ["manylinux2014_x86_64", "linux_x86_64"],
    "3.12": [f"manylinux_2_{n}_x86_64" for n in range(39, 16, -1)] + ["manylinux2014_x86_64", "linux_x86_64"],
}


def _reachable(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=15).close()
        return True
    except OSError:
        return False


# Full tier only: it waits 30 to 45 s on the package index, not on the CPU, and the fast
# tier's two workers would sit idle behind it; CI's full tier resolves for both Pythons.
@pytest.mark.network
@pytest.mark.full_only
@pytest.mark.parametrize("python", sorted(PLATFORMS))
def test_requirements_resolve_on_gradescope_pythons(tmp_path, autograder_zip, python):
    """Do the zip's requirements resolve, as wheels, for the Python of each of Gradescope's
    Ubuntu images (pip's resolver for that Python's tags, no interpreter of it needed)?"""
    if not _reachable("https://pypi.org/simple/pip/"):
        pytest.skip("needs the package index (pypi.org), unreachable here")
    (tmp_path / "requirements.txt").write_bytes(zipfile.ZipFile(autograder_zip).read("requirements.txt"))
    platforms = [a for p in PLATFORMS[python] for a in ("--platform", p)]
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}  # this machine's wheel folders and caps stay out
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                           "--only-binary=:all:", "--python-version", python, "--implementation", "cp",
                           *platforms, "--target", str(tmp_path / "target"), "--report", str(tmp_path / "report.json"),
                           "-r", str(tmp_path / "requirements.txt")],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    chosen = {i["metadata"]["name"].lower(): i["metadata"]["version"]
              for i in json.loads((tmp_path / "report.json").read_text())["install"]}
    assert chosen["torch"] == gradescope.TORCH_VERSION and "nbgrader" in chosen and "sacrebleu" in chosen


@pytest.mark.full_only  # the fast tier: test_uploads.py reads every upload shape
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


@pytest.mark.parametrize("attack", helpers.tiered(["memory", "fork"]))  # fast tier: the first
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


def _scores(data):
    return {t["name"]: t["score"] for t in data["tests"]}


NOTEBOOKS = {a: f"{a}.ipynb" for a in ONLY}


@pytest.mark.full_only  # the fast tier: test_uploads.py turns every notebook upload into the module form
def test_run_autograder_grades_course_notebooks_like_their_modules(gradescope_root):
    """Does a notebook upload (solved, or solved beside the release's untouched module
    stubs) get exactly the per-test scores of the same code handed in as modules?"""
    solved, text, proc = run_autograder(gradescope_root, {NOTEBOOKS[a]: course_notebook(a) for a in ONLY})
    assert gradescope_spec.problems(text) == [], proc.stdout + proc.stderr
    modules, _, _ = run_autograder(gradescope_root, _modules(SOLUTIONS))
    assert _scores(solved) == _scores(modules) and solved["score"] == solved["extra_data"]["max_score"] > 0

    # the whole student repository: the release's untouched stubs beside the solved notebooks
    repository = {f"assignments/{rel}": data for rel, data in _modules(ASSIGNMENTS).items()}
    repository.update({f"notebooks/{a}/{NOTEBOOKS[a]}": course_notebook(a) for a in ONLY})
    whole, _, _ = run_autograder(gradescope_root, repository)
    assert _scores(whole) == _scores(modules), whole["output"]


@pytest.mark.full_only
def test_run_autograder_grades_released_and_half_done_notebooks_like_their_modules(gradescope_root):
    """Does a notebook released untouched score as the module stubs do (0), and one with an
    exercise left undone as the same code in module form?"""
    released, _, _ = run_autograder(gradescope_root, {NOTEBOOKS[a]: course_notebook(a, solved=False) for a in ONLY})
    stubs, _, _ = run_autograder(gradescope_root, _modules(ASSIGNMENTS, flat=True))
    assert _scores(released) == _scores(stubs) and released["score"] == 0

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
    assert _scores(half_nb) == _scores(half_mod)
    assert 0 < half_nb["score"] < sum(t["max_score"] for t in half_nb["tests"])


@pytest.mark.parametrize("lang", helpers.tiered(["es", "en"]))  # fast tier: the first
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


def _score(trial_stdout: str) -> str:
    return re.search(r"^score (\S+ / \S+)", trial_stdout, re.M).group(1)


@pytest.mark.parametrize("name", helpers.tiered(["stubs", "solved", "notebook"]))  # fast tier: the first
def test_try_command_gives_the_scores_of_the_gradescope_layout(gradescope_root, autograder_zip, tmp_path, name):
    """Does `gradescope-try ZIP SUBMISSION` print the score that the layout of the
    specification gives, for the solutions (a folder), the untouched stubs (a zip) and a
    solved notebook, and the path of a results.json that says the same?"""
    if name == "stubs":
        path = tmp_path / "stubs.zip"
        files = _modules(ASSIGNMENTS)
        with zipfile.ZipFile(path, "w") as zf:
            for rel, data in files.items():
                zf.writestr(rel, data)
    elif name == "solved":
        path, files = tmp_path / "solved", _modules(SOLUTIONS)
        for rel, data in files.items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_bytes(data)
    else:
        path = tmp_path / "a1_attention.ipynb"
        path.write_bytes(course_notebook("a1_attention"))
        files = {path.name: path.read_bytes()}
    expected, _, _ = run_autograder(gradescope_root, files)
    verbose = ["-v"] if name == "stubs" else []  # -v in the fast tier, its absence in the full one
    proc = subprocess.run([sys.executable, "-m", "autograder", "gradescope-try", str(autograder_zip), str(path),
                           "--keep", str(tmp_path / f"try-{name}"), *verbose],
                          capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    total = sum(t["max_score"] for t in expected["tests"])
    assert _score(proc.stdout) == f"{expected['score']:g} / {total:g}", (name, proc.stdout)
    # -v adds what run_autograder printed for the instructor: the seed and each assignment's points
    summary = re.search(r"^graded with seed (\d+)\n((?:  .*\n)+)", proc.stdout, re.M)
    assert bool(summary) == bool(verbose), proc.stdout
    if verbose:
        assert f"  total: {expected['score']:g}/{total:g}" in summary.group(2), proc.stdout
        assert {t["extra_data"]["assignment"] for t in expected["tests"]} <= {
            line.strip().split(":")[0] for line in summary.group(2).splitlines()} - {"total"}
    results = tmp_path / f"try-{name}" / "results" / "results.json"
    assert f"results: {results}" in proc.stdout
    tried = json.loads(results.read_text(encoding="utf-8"))
    assert {t["name"]: t["score"] for t in tried["tests"]} == {t["name"]: t["score"] for t in expected["tests"]}
    if name == "notebook":
        assert 0 < expected["score"]  # a1 solved, a3 not handed in


def test_try_command_refuses_what_it_cannot_try(tmp_path, autograder_zip):
    """Do a missing zip, a zip that is not an autograder and a missing submission each get
    one line that says what to give, and exit 2?"""
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("notes.txt", "hola")
    cases = {"does not exist; build it": (tmp_path / "missing.zip", SOLUTIONS),
             "has no setup.sh and run_autograder at its root": (foreign, SOLUTIONS),
             "does not exist; give a folder, a zip or a notebook": (autograder_zip, tmp_path / "nothing")}
    for needle, (zip_path, submission) in cases.items():
        proc = subprocess.run([sys.executable, "-m", "autograder", "gradescope-try", str(zip_path), str(submission),
                               "--keep", str(tmp_path / f"k{len(needle)}")],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
