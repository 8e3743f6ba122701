"""Start student workers without importing torch each time: the grading process's side of
the zygote (``zygote_server.py``).

In the namespace sandbox a worker is started in two steps. The sandbox itself starts as
before (``isolation.sandbox_command``: the same namespaces, mounts and limits), but what
it runs as its PID 1 is :data:`HOLDER`, a few lines that only reap children. The zygote,
which imported torch and the harness once per grading process, then forks a process that
joins the holder's namespaces and becomes the worker (``worker.serve``). A worker thus
starts in about a tenth of a second instead of 1.5 s of CPU, while each one still gets a
fresh sandbox (its own namespaces and private /tmp), and killing the sandbox's process
group kills the worker with it, as before.

Where the zygote cannot start or join a sandbox (a kernel that refuses ``setns``), workers
start the old way, each a new interpreter; the verdicts are the same either way.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .isolation import children

ZYGOTE_SERVER = Path(__file__).with_name("zygote_server.py")
CHILD_DIR = Path(__file__).with_name("child")

# PID 1 of a sandbox whose worker the zygote forks in: it says when the sandbox is ready
# (b"R" on its first fd argument), reaps the processes it adopts, and exits, which ends
# the sandbox and everything in it, when its second fd (a pipe the grading process holds
# open) closes: the grading process stopped the worker, or itself ended.
HOLDER = """
import os, select, sys
ready, life = int(sys.argv[1]), int(sys.argv[2])
os.write(ready, b"R")
os.close(ready)
while True:
    if select.select([life], [], [], 1.0)[0] and not os.read(life, 1):
        os._exit(0)
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
"""


class ZygoteError(Exception):
    """The zygote could not start, or could not start a worker in a sandbox."""


def holder_pid(outer: int) -> int:
    """The sandbox's PID 1, as this process sees it: outer unshare -> inner unshare (the
    script execs it) -> the holder."""
    inner = children(outer)
    holder = children(inner[0]) if len(inner) == 1 else []
    if len(holder) != 1:
        raise ZygoteError(f"the sandbox's processes are not as expected ({inner}, {holder})")
    return holder[0]


def _server_command(fd: int) -> list[str]:
    return [sys.executable, "-I", str(ZYGOTE_SERVER), str(fd), str(CHILD_DIR)]


class Zygote:
    """A grading process's handle on a zygote: the one that the process which started it
    serves (``COURSE_ZYGOTE_SOCKET``, :func:`serve`), or else one of its own, started on
    the first :meth:`spawn`."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.lock = threading.Lock()

    def _start(self, timeout: float) -> None:
        path = os.environ.get(SOCKET_VARIABLE)
        if path:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                self.sock.connect(path)
            except OSError:
                self.sock.close()
                self.sock = None
                os.environ.pop(SOCKET_VARIABLE)  # gone: start one of our own from now on
        if self.sock is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                self.proc = subprocess.Popen(_server_command(theirs.fileno()), env=self.env, cwd="/",
                                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),))
            finally:
                theirs.close()
            self.sock = ours
        if self._reply(timeout) != {"ready": True}:
            self.close()
            raise ZygoteError("the zygote sent an unexpected first message")

    def _reply(self, timeout: float) -> dict:
        if not select.select([self.sock], [], [], max(timeout, 0))[0]:
            self.close()
            raise ZygoteError("the zygote did not answer in time")
        data = self.sock.recv(1 << 16)
        if not data:
            self.close()
            raise ZygoteError("the zygote exited")
        return json.loads(data)

    def spawn(self, outer: int, pipes: tuple[int, int, int], cwd: Path, args: list[str], timeout: float) -> None:
        """Fork a worker into the sandbox whose outer ``unshare`` is ``outer``, reading
        requests from ``pipes[0]`` and replying on ``pipes[1]``. On ``pipes[2]`` come the
        worker's pid, then its wait status when it ends (struct "i" each)."""
        deadline = time.monotonic() + timeout
        request = {"outer": outer, "holder": holder_pid(outer), "cwd": str(cwd), "args": list(args)}
        with self.lock:
            if self.sock is None or (self.proc is not None and self.proc.poll() is not None):
                self.close()
                self._start(deadline - time.monotonic())
            try:
                socket.send_fds(self.sock, [json.dumps(request).encode()], list(pipes))
            except OSError as exc:
                self.close()
                raise ZygoteError(f"the zygote is gone ({exc})") from None
            reply = self._reply(deadline - time.monotonic())
        if not reply.get("ok"):
            raise ZygoteError(str(reply.get("error")))

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


SOCKET_VARIABLE = "COURSE_ZYGOTE_SOCKET"  # a zygote served to grading processes (:func:`serve`)
_served: tuple[subprocess.Popen, Path] | None = None


def serve(env: dict[str, str]) -> dict[str, str]:
    """Start (once per process) a zygote that the grading processes this process starts
    share, listening on a socket in a private folder; the environment variable that names
    it to them (empty where the zygote is not used). It ends with this process: its stdin
    is a pipe from here."""
    global _served
    with _shared_lock:
        if _broken or os.environ.get("COURSE_ZYGOTE") == "0" or not sys.platform.startswith("linux"):
            return {}
        if _served is None or _served[0].poll() is not None:
            folder = Path(tempfile.mkdtemp(prefix="course-zygote-"))
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                listener.bind(str(folder / "socket"))
                listener.listen(16)
                proc = subprocess.Popen(_server_command(listener.fileno()), env=env, cwd="/", stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        pass_fds=(listener.fileno(),))
            except OSError:
                shutil.rmtree(folder, ignore_errors=True)
                return {}
            finally:
                listener.close()
            _served = (proc, folder)
            atexit.register(_stop_serving, proc, folder)
        return {SOCKET_VARIABLE: str(_served[1] / "socket")}


def served() -> dict[str, str]:
    """The environment variable naming the zygote this process serves, if it does."""
    with _shared_lock:
        running = _served is not None and _served[0].poll() is None
        return {SOCKET_VARIABLE: str(_served[1] / "socket")} if running else {}


def _stop_serving(proc: subprocess.Popen, folder: Path) -> None:
    proc.kill()
    proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


_shared: Zygote | None = None
_broken = False  # the zygote failed once: every later worker starts the old way
gave_up_because: str | None = None
_shared_lock = threading.Lock()


def shared(env: dict[str, str]) -> Zygote | None:
    """This process's zygote; None once it has failed, or where ``COURSE_ZYGOTE=0`` asks for
    workers started alone (then each is a new interpreter, as before the zygote)."""
    global _shared
    with _shared_lock:
        if _broken or os.environ.get("COURSE_ZYGOTE") == "0" or not sys.platform.startswith("linux"):
            return None
        if _shared is None:
            _shared = Zygote(env)
        return _shared


def give_up(reason: str) -> None:
    """Stop using the zygote in this process: it could not start a worker (``reason``)."""
    global _broken, gave_up_because
    with _shared_lock:
        _broken, gave_up_because = True, reason
        if _shared is not None:
            _shared.close()


def read_status(fd: int, timeout: float) -> int | None:
    """One struct "i" from a forked worker's parent: its pid, then its wait status."""
    if fd < 0 or not select.select([fd], [], [], max(timeout, 0))[0]:
        return None
    data = os.read(fd, 4)
    return struct.unpack("i", data)[0] if len(data) == 4 else None


@dataclass
class Started:
    """A worker forked into its sandbox: the sandbox's outer process, the worker's pid, the
    ends of its pipes that the grading process keeps, and the holder's lifeline."""

    proc: subprocess.Popen
    pid: int
    req_w: int
    resp_r: int
    status_r: int
    life_w: int


def start_worker(forked: Zygote, sandbox_command, scratch: Path, hidden: list[str], env: dict[str, str],
                 args: list[str], deadline: float) -> Started:
    """Start the sandbox over ``scratch`` with :data:`HOLDER` as its PID 1, and have the
    zygote fork the worker (``worker.py``'s ``args``) into it; raises ZygoteError."""
    req_r, req_w = os.pipe()
    resp_r, resp_w = os.pipe()
    ready_r, ready_w = os.pipe()
    status_r, status_w = os.pipe()
    life_r, life_w = os.pipe()
    proc = None
    holder = [sys.executable, "-I", "-S", "-c", HOLDER, str(ready_w), str(life_r)]
    try:
        proc = subprocess.Popen(sandbox_command(scratch, hidden, holder), cwd=scratch, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                pass_fds=(ready_w, life_r), start_new_session=True)
        os.close(ready_w)
        ready_w = -1
        if not select.select([ready_r], [], [], max(deadline - time.monotonic(), 0))[0] or \
                os.read(ready_r, 1) != b"R":
            raise ZygoteError("the sandbox did not start")
        forked.spawn(proc.pid, (req_r, resp_w, status_w), scratch, args, deadline - time.monotonic())
        os.close(status_w)
        status_w = -1
        pid = read_status(status_r, deadline - time.monotonic())
        if pid is None:
            raise ZygoteError("the worker's pid did not come")
    except (ZygoteError, OSError) as exc:
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
        for fd in (req_w, resp_r, status_r, life_w):
            os.close(fd)
        raise ZygoteError(str(exc)) from None
    finally:
        for fd in (req_r, resp_w, ready_r, ready_w, status_w, life_r):
            if fd >= 0:
                os.close(fd)
    return Started(proc, pid, req_w, resp_r, status_r, life_w)
