"""What student code can see, and for how long it may run (no torch import here, so the
command line starts fast).

Isolation "namespace" (Linux): the student's process runs in new user, mount, PID and
network namespaces. The course checkout's folders (solutions, graders, tests, git
history) and the results folder are covered by empty tmpfs mounts that a nested user
namespace locks in place (the student's process cannot unmount them), the grading
process is invisible in its /proc, and there is no network. Where the kernel refuses
namespaces (macOS, locked-down containers) "auto" falls back to "none": a plain child
process with a scratch working folder and a minimal environment, and the grade output
says so.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from .course import PACKAGE_DIR

DEFAULT_TIMEOUT = 10.0  # seconds per request to student code; reference calls take milliseconds
MOUNT_SCRIPT = (
    'while [ "$1" != "--" ]; do mount -t tmpfs -o size=16k course-hidden "$1" || exit 97; shift; done; shift; '
    'exec unshare --user --map-root-user --mount -- "$@"'
)


def hidden_paths(extra: list[Path] = ()) -> list[Path]:
    """Folders the student's process must not see: the checkout (but not a virtual
    environment or temporary folder inside it, which the worker needs) and any extra
    ones (the results)."""
    root = PACKAGE_DIR.parent
    keep = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.executable, tempfile.gettempdir())}
    hidden = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and not any(k == child or child in k.parents for k in keep):
            hidden.append(child)
    return list(dict.fromkeys(hidden + [Path(p) for p in extra]))  # each mounted over once


@lru_cache(maxsize=None)
def namespaces_available() -> bool:
    """Can this machine run the worker inside the namespace sandbox?"""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="course-ns-probe-"))
    try:
        cmd = namespace_prefix() + ["sh", "-c", MOUNT_SCRIPT, "sh", str(probe), "--", "true"]
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def namespace_prefix() -> list[str]:
    return [
        "unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child",
        "--mount-proc", "--net", "--",
    ]


def resolve_isolation(requested: str) -> str:
    if requested not in ("auto", "namespace", "none"):
        raise ValueError(f"isolation must be auto, namespace or none, got {requested!r}")
    if requested == "auto":
        return "namespace" if namespaces_available() else "none"
    if requested == "namespace" and not namespaces_available():
        raise RuntimeError("namespace isolation is not available on this machine (needs Linux user namespaces)")
    return requested
