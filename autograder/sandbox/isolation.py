"""What student code can see, what it may use, and for how long it may run (no torch
import here, so the command line starts fast).

Isolation "namespace" (Linux): the student's process runs in new user, mount, PID and
network namespaces, set up by ``SANDBOX_SCRIPT`` as the namespace's root and then handed
to the worker as an ordinary user (uid 1000 of a nested user namespace, so it holds no
capability and every mount is locked in place):

- the whole filesystem is read-only, the scratch copy of the submission included;
- the course checkout's folders (solutions, graders, tests, git history) and the results
  folder are covered by empty tmpfs mounts;
- ``/tmp``, ``/var/tmp``, ``/dev/shm`` and the scratch copy's parent folder are private,
  size-limited tmpfs mounts: other gradings' scratch copies are out of sight, and whatever
  the student writes vanishes with the namespace;
- the grading process is invisible in its ``/proc``, and there is no network;
- at most ``MAX_TASKS`` processes and threads (the PID namespace's ``pid_max``, on kernels
  that have one per namespace, 6.14 and later).

Every mode also caps the worker's address space (``--memory``), the size of a file it
writes and core dumps (rlimits), and the time its start-ups and calls may take together
per assignment (``--budget``, kept by ``student.Student``).

Where the kernel refuses namespaces (macOS, locked-down containers) "auto" falls back to
"none": a plain child process with a scratch working folder, a minimal environment and
the rlimits, and the grade output says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..course import PACKAGE_DIR
from ..settings import thread_env

MAX_TASKS = 301  # pid_max of the sandbox's PID namespace (the smallest the kernel accepts)
PRIVATE_TMP_SIZE = "256m"  # each of the private /tmp and /dev/shm
MAX_FILE_BYTES = 256 << 20  # largest file the worker may write (RLIMIT_FSIZE)
SANDBOX_UID = 1000  # the worker's user inside its namespace: not root, no capabilities

# Runs as root of the new user namespace: sh SCRIPT SCRATCH TMP_SIZE UID HIDDEN... -- KEEP... -- CMD...
# KEEP are the folders under a soon-private folder that must stay visible: the scratch copy,
# and the interpreter's when it lives under /tmp (CI makes its virtual environment with
# mktemp). Each is staged under the new /dev/shm, which no private folder covers, and moved
# back once the private ones are mounted. Every mount but /proc and the private ones then
# goes read-only; the nested user namespace locks all of them (an unprivileged process
# cannot unmount or remount what a more privileged namespace set up).
SANDBOX_SCRIPT = r"""
set -e
scratch=$1; size=$2; uid=$3; shift 3
while [ "$1" != "--" ]; do mount -t tmpfs -o size=16k,mode=0555 course-hidden "$1"; shift; done; shift
echo 301 > /proc/sys/kernel/pid_max 2>/dev/null || echo "course-sandbox: no pid_max" >&2
mount -t tmpfs -o size="$size",mode=1777 course-shm /dev/shm
stage=/dev/shm/.course-keep
mkdir "$stage"
n=0
while [ "$1" != "--" ]; do
  n=$((n + 1)); mkdir "$stage/$n"; mount --rbind "$1" "$stage/$n"; printf '%s\n' "$1" >> "$stage/list"; shift
done; shift
parent=$(dirname "$scratch")
private=" "
for d in /tmp /var/tmp "$parent"; do
  case "$private" in *" $d "*) continue ;; esac
  [ -d "$d" ] && mount -t tmpfs -o size="$size",mode=1777 course-tmp "$d" && private="$private$d "
done
n=0
while IFS= read -r keep; do
  n=$((n + 1)); mkdir -p "$keep"; mount --move "$stage/$n" "$keep"; rmdir "$stage/$n"
done < "$stage/list"
rm "$stage/list"; rmdir "$stage"
while read -r _ _ _ _ mp _; do
  case "$mp" in /tmp|/var/tmp|/dev/shm|"$parent"|/proc|/proc/*) continue ;; esac
  mp=$(printf '%b' "$mp")
  mount -o remount,bind,ro "$mp" 2>/dev/null || [ ! -e "$mp" ] || echo "course-sandbox: rw $mp" >&2
done < /proc/self/mountinfo
mount -o remount,bind,ro "$scratch"
exec unshare --user --map-user="$uid" --map-group="$uid" --mount --pid --fork --kill-child --mount-proc -- "$@"
"""


def worker_env(isolation: str, scratch: Path | None = None) -> dict[str, str]:
    """The student process's whole environment."""
    # Inside the namespace /tmp is private to this worker; outside it, the scratch copy.
    tmp = "/tmp" if isolation == "namespace" else str(scratch)
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        **thread_env(),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def interpreter_paths() -> list[str]:
    """Where the worker's Python and its packages live."""
    packages = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    return [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable),
            *packages]


def hidden_paths(extra: list[Path] = ()) -> list[Path]:
    """Folders the student's process must not see: the checkout (but not a virtual
    environment, site-packages or temporary folder inside it, which the worker needs) and
    any extra ones (the results)."""
    root = PACKAGE_DIR.parent
    keep = {Path(p).resolve() for p in (*interpreter_paths(), tempfile.gettempdir())}
    hidden = []
    for child in sorted(root.iterdir()):
        if child.is_dir() and not any(k == child or child in k.parents for k in keep):
            hidden.append(child)
    return list(dict.fromkeys(hidden + [Path(p) for p in extra]))  # each mounted over once


def namespace_prefix() -> list[str]:
    return [
        "unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child",
        "--mount-proc", "--net", "--",
    ]


def private_folders(scratch: Path) -> list[Path]:
    """Folders the sandbox covers with private tmpfs mounts (/dev/shm aside)."""
    return [Path("/tmp"), Path("/var/tmp"), scratch.parent]


def kept_paths(scratch: Path) -> list[str]:
    """Folders under a private folder that the worker needs: the scratch copy, and the
    interpreter with its standard library and site-packages (outermost ones only)."""
    wanted = {scratch}
    for p in interpreter_paths():
        wanted |= {Path(os.path.abspath(p)), Path(p).resolve()}
    private = private_folders(scratch)
    under = [p for p in wanted if any(p != d and p.is_relative_to(d) for d in private) and "\n" not in str(p)]
    return sorted(str(p) for p in under if not any(q != p and p.is_relative_to(q) for q in under))


def sandbox_command(scratch: Path, hidden: list[str], worker: list[str]) -> list[str]:
    """The command that runs ``worker`` inside the namespace sandbox over ``scratch``."""
    return namespace_prefix() + ["sh", "-c", SANDBOX_SCRIPT, "sh", str(scratch), PRIVATE_TMP_SIZE,
                                 str(SANDBOX_UID), *hidden, "--", *kept_paths(scratch), "--", *worker]


@dataclass(frozen=True)
class Probe:
    works: bool  # the sandbox starts at all
    task_limit: bool  # pid_max could be set in its PID namespace
    read_only: bool  # every mount could be made read-only


@lru_cache(maxsize=None)
def probe() -> Probe:
    """Can this machine run the worker inside the namespace sandbox, and with which limits?"""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return Probe(False, False, False)
    base = Path(tempfile.mkdtemp(prefix="course-ns-probe-"))
    try:
        (base / "scratch").mkdir()
        (base / "hidden").mkdir()
        # The worker's interpreter must start there and find torch (a virtual environment
        # under /tmp is moved into the private /tmp; one under /dev/shm cannot be).
        check = ("[ ! -w / ] && [ -w /tmp ] && [ \"$(id -u)\" != 0 ] && exec \"$0\" -I -c "
                 "'import importlib.util, sys; sys.exit(importlib.util.find_spec(\"torch\") is None)'")
        hidden = [str(p) for p in hidden_paths([base / "hidden"]) if p.is_dir()]
        cmd = sandbox_command(base / "scratch", hidden, ["sh", "-c", check, sys.executable])
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60)
        if proc.returncode != 0:
            return Probe(False, False, False)
        return Probe(True, "no pid_max" not in proc.stderr, "course-sandbox: rw" not in proc.stderr)
    except (OSError, subprocess.SubprocessError):
        return Probe(False, False, False)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def namespaces_available() -> bool:
    """Can this machine run the worker inside the namespace sandbox?"""
    return probe().works


def resolve_isolation(requested: str) -> str:
    if requested not in ("auto", "namespace", "none"):
        raise ValueError(f"isolation must be auto, namespace or none, got {requested!r}")
    if requested == "auto":
        return "namespace" if namespaces_available() else "none"
    if requested == "namespace" and not namespaces_available():
        raise RuntimeError("namespace isolation is not available on this machine (needs Linux user namespaces)")
    return requested


def limits_summary(isolation: str, memory_gib: float, budget: float) -> list[str]:
    """One line per limit on student code, saying where it is not enforced."""
    lines = [f"memory: {memory_gib:g} GiB of address space per process (rlimit)",
             f"time: {budget:g} s of start-ups and calls per assignment",
             f"files: {MAX_FILE_BYTES >> 20} MiB per file written (rlimit)"]
    if isolation == "namespace":
        found = probe()
        lines.append(f"processes: at most {MAX_TASKS - 1} processes and threads (PID namespace)" if found.task_limit
                     else "processes: NOT limited (this kernel has no per-namespace pid_max)")
        lines.append("disk: read-only, private /tmp and /dev/shm of " + PRIVATE_TMP_SIZE if found.read_only
                     else "disk: private /tmp and /dev/shm; some mounts could NOT be made read-only")
    elif os.geteuid() == 0 and worker_user() is None:
        lines.append(f"processes: NOT limited (no namespace sandbox, running as root, and an unprivileged uid "
                     f"cannot run {sys.executable} with torch; install Python where every user can read it)")
    elif os.geteuid() == 0:
        lines.append(f"processes: at most {MAX_TASKS} processes and threads (rlimit; no namespace sandbox: student "
                     f"code runs as an unprivileged uid of its own, {WORKER_UIDS.start}+, and all its processes "
                     "are killed after each worker)")
    else:
        lines.append(f"processes: at most {MAX_TASKS - 1} more processes and threads than this user already "
                     "runs (rlimit; no namespace sandbox, student code runs as this user)")
    return lines


WORKER_UIDS = range(61000, 62000)  # uids with no account: student code's, one per running worker
_SLOT_LOCKS = Path(tempfile.gettempdir()) / "course-worker-uids"


def _has_account(uid: int) -> bool:
    import pwd

    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


@lru_cache(maxsize=1)
def worker_user() -> tuple[int, int] | None:
    """(uid, gid) of the first worker slot when grading runs as root without the namespace
    sandbox and a uid with no account can start this interpreter and find torch; else None
    (student code runs as the grading user)."""
    if os.geteuid() != 0:
        return None
    uid = next((u for u in WORKER_UIDS if not _has_account(u)), None)
    if uid is None:
        return None
    code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"
    probe = [sys.executable, "-I", "-c", code]
    try:
        ok = subprocess.run(probe, cwd="/", user=uid, group=uid, extra_groups=[], env={"PATH": os.defpath},
                            capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return (uid, uid) if ok else None


class UidSlot:
    """A uid (and gid) of its own for one worker, without the namespace sandbox: held
    through a lock file, so parallel gradings (threads or processes) never share one.
    Owning the uid alone is what makes :meth:`kill_all` safe and RLIMIT_NPROC exact: every
    process of that uid is this worker's, however it forked or detached."""

    def __init__(self):
        import fcntl

        _SLOT_LOCKS.mkdir(mode=0o700, exist_ok=True)
        for uid in WORKER_UIDS:
            if _has_account(uid):
                continue
            fd = os.open(_SLOT_LOCKS / f"{uid}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            self.uid = self.gid = uid
            self._fd = fd
            self.kill_all()  # a grading killed half-way may have left some behind
            if not tasks_of(uid):
                return
            # Killed processes stay zombies (and count for RLIMIT_NPROC) until whoever adopted
            # them reaps them; take another uid meanwhile.
            os.close(fd)
        raise RuntimeError(f"all {len(WORKER_UIDS)} worker uids are in use")

    def clean(self) -> bool:
        """Whether no process of the uid is left (not even a zombie) after :meth:`kill_all`."""
        self.kill_all()
        return not tasks_of(self.uid)

    def kill_all(self) -> None:
        """SIGKILL every process of the uid: kill(-1) from a process of that uid reaches all
        of them in one pass of the kernel, so a fork in flight cannot slip through."""
        code = "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    pass"
        for _ in range(3):
            if not _live_tasks(self.uid):
                return
            subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd="/", user=self.uid, group=self.gid,
                           extra_groups=[], env={"PATH": os.defpath}, capture_output=True, timeout=60)

    def release(self) -> None:
        if self._fd >= 0:
            self.kill_all()
            os.close(self._fd)
            self._fd = -1


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s children (read from /proc; empty where there is none)."""
    found = []
    for listed in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(c) for c in listed.read_text().split()]
        except (OSError, ValueError):
            pass
    return found


def _tasks(uid: int) -> list[str]:
    """The state letter of every process and thread of ``uid`` (R, S, Z, ...)."""
    states = []
    for status in Path("/proc").glob("[0-9]*/task/[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                states.append(fields["State"].split()[0])
        except (OSError, ValueError, KeyError, IndexError):
            continue
    return states


def tasks_of(uid: int) -> int:
    """Processes and threads of ``uid``, zombies included (what RLIMIT_NPROC counts)."""
    return len(_tasks(uid))


def _live_tasks(uid: int) -> int:
    return sum(state != "Z" for state in _tasks(uid))
