"""Is grading immune to the pytest plugins a CI image happens to have installed?

The graders' per-request limit is the ``request_timeout`` marker; ``timeout`` belongs to the
widely installed pytest-timeout, which would turn it into a whole-test kill. The grading
pytest also loads no plugin but the course's own (PYTEST_DISABLE_PLUGIN_AUTOLOAD).
"""

import json
import site
import subprocess
import venv
from pathlib import Path

from helpers import ROOT, SOLUTIONS

# Stands in for pytest-timeout: the same marker name, and a visible effect when it is loaded.
FAKE_PLUGIN = '''
import pytest
from pathlib import Path

def pytest_configure(config):
    config.addinivalue_line("markers", "timeout(seconds): whole-test timeout (fake pytest-timeout)")
    Path({loaded!r}).write_text("loaded")

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    pytest.fail("fake pytest-timeout: every test fails while this plugin is loaded")
'''


def _environment_with_fake_pytest_timeout(tmp_path: Path) -> tuple[Path, Path]:
    """A virtual environment that sees this one's packages plus an installed distribution
    'pytest-timeout' whose pytest11 entry point pytest would autoload."""
    env_dir, loaded = tmp_path / "venv", tmp_path / "plugin-was-loaded"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    packages = Path(subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    (packages / "course.pth").write_text(
        "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages()))
    (packages / "fake_pytest_timeout.py").write_text(FAKE_PLUGIN.format(loaded=str(loaded)))
    info = packages / "pytest_timeout-9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pytest-timeout\nVersion: 9.9\n")
    (info / "entry_points.txt").write_text("[pytest11]\ntimeout = fake_pytest_timeout\n")
    return python, loaded


def test_an_installed_pytest_timeout_changes_nothing(tmp_path):
    """With a pytest-timeout-like plugin installed, is the plugin live for a plain pytest,
    yet never loaded by grading, and do the solutions still get full marks?"""
    python, loaded = _environment_with_fake_pytest_timeout(tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "test_x.py").write_text("def test_x():\n    pass\n")
    plain = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_x.py"],
                           cwd=tmp_path / "plain", capture_output=True, text=True, timeout=300)
    assert plain.returncode == 1 and "fake pytest-timeout" in plain.stdout, plain.stdout  # the plugin is live
    loaded.unlink()

    out = tmp_path / "out"
    proc = subprocess.run([python, "-m", "autograder", "grade", str(SOLUTIONS), "--out", str(out),
                           "--only", "a6_translator", "--seed", "3"], capture_output=True, text=True,
                          timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert not loaded.exists(), "the grading pytest loaded a third-party plugin"
    results = json.loads((out / "results.json").read_text())
    assert results["score"] == results["extra_data"]["max_score"] > 0, proc.stdout


def test_graders_use_request_timeout_not_pytest_timeouts_marker():
    """Does no grader carry pytest-timeout's marker name, whose meaning is a whole-test kill?"""
    graders = ROOT / "autograder" / "graders"
    offenders = [str(p.relative_to(ROOT)) for p in graders.rglob("*.py") if "mark.timeout(" in p.read_text()]
    assert not offenders, offenders
    assert any("mark.request_timeout(" in p.read_text() for p in graders.rglob("test_*.py"))
