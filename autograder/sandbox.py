"""Run a submission's code in a separate, disposable process.

The grading process never imports student code. It copies the submission's modules into
a scratch folder, starts ``worker.py`` there and exchanges plain-data messages with it
(``wire.py``) over two pipes, with a time limit on every request. A request that times
out, a worker that dies (``os._exit``, a segfault) or one that writes garbage is killed
and replaced by a fresh one for the next request.

Isolation (what the process can see) is set up as ``isolation.py`` describes.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import wire
from .isolation import MOUNT_SCRIPT, namespace_prefix

HARNESS_FILES = ("worker.py", "harness.py", "wire.py")
STARTUP_TIMEOUT = 120.0  # importing torch on a busy 2-core machine can take a while
MAX_SUBMISSION_FILE = 1 << 20  # bytes; a bigger .py file is not copied


class StudentFailure(Exception):
    """The student's process did not produce a reply: timeout, crash or garbage."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind  # "timeout", "crash", "protocol", "startup"
        self.detail = detail


def make_scratch(folders: dict[str, Path | None]) -> Path:
    """A scratch copy: ``{"a1_attention": source folder}`` -> scratch/a1_attention/*.py.

    Only Python modules are copied (test files too, they are public); a folder mapped to
    None is created empty, so imports from it fail the ordinary way.
    """
    scratch = Path(tempfile.mkdtemp(prefix="course-grade-"))
    harness = scratch / "_harness"
    harness.mkdir()
    for name in HARNESS_FILES:
        shutil.copy2(Path(__file__).with_name(name), harness / name)
    for name, src in folders.items():
        dst = scratch / name
        dst.mkdir()
        if src is None or not src.is_dir():
            continue
        for path in sorted(src.glob("*.py")):
            if path.is_file() and path.stat().st_size <= MAX_SUBMISSION_FILE:
                shutil.copyfile(path, dst / path.name)
    return scratch


def _limits() -> None:  # runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


class StudentProcess:
    """One worker over a scratch folder; restarted on demand after a failure."""

    def __init__(self, scratch: Path, folders: list[str], hidden: list[Path], isolation: str):
        self.scratch = scratch
        self.folders = [str(scratch / f) for f in folders]
        self.hidden = [str(p) for p in hidden if p.is_dir()]
        self.isolation = isolation
        self.proc: subprocess.Popen | None = None
        self.req_w = self.resp_r = -1
        self.next_id = 0

    # ------------------------------------------------------------------ lifecycle

    def _command(self, req_fd: int, resp_fd: int) -> list[str]:
        worker = [sys.executable, "-I", str(self.scratch / "_harness" / "worker.py"), str(req_fd), str(resp_fd)]
        worker += self.folders
        if self.isolation == "namespace":
            return namespace_prefix() + ["sh", "-c", MOUNT_SCRIPT, "sh", *self.hidden, "--", *worker]
        return worker

    def start(self) -> None:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.scratch),
            "TMPDIR": str(self.scratch),
            "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        try:
            self.proc = subprocess.Popen(
                self._command(req_r, resp_w),
                cwd=self.scratch,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(req_r, resp_w),
                start_new_session=True,
                preexec_fn=_limits,
            )
        finally:
            os.close(req_r)
            os.close(resp_w)
        self.req_w, self.resp_r = req_w, resp_r
        try:
            ready = self._read_reply(time.monotonic() + STARTUP_TIMEOUT)
        except StudentFailure as exc:
            self.stop()
            raise StudentFailure("startup", f"the grading process for your code could not start ({exc.detail})") from None
        if ready != {"ready": True}:
            self.stop()
            raise StudentFailure("startup", "the grading process for your code sent an unexpected first message")

    def stop(self) -> None:
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None
        for fd in (self.req_w, self.resp_r):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.req_w = self.resp_r = -1

    # ------------------------------------------------------------------ messages

    def _read_exact(self, n: int, deadline: float) -> bytes:
        chunks, left = [], n
        while left:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StudentFailure("timeout", "no reply in time")
            ready, _, _ = select.select([self.resp_r], [], [], remaining)
            if not ready:
                raise StudentFailure("timeout", "no reply in time")
            chunk = os.read(self.resp_r, min(left, 1 << 20))
            if not chunk:
                raise StudentFailure("crash", self._exit_description())
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _exit_description(self) -> str:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if code is None:
            return "the process closed its channel to the grader"
        if code < 0:
            return f"the process was killed by signal {signal.Signals(-code).name}"
        return f"the process exited with status {code} before answering"

    def _read_reply(self, deadline: float):
        (n,) = struct.unpack(">Q", self._read_exact(8, deadline))
        if n > wire.MAX_FRAME_BYTES:
            raise StudentFailure("protocol", f"a reply of {n} bytes is larger than allowed")
        try:
            return wire.decode(self._read_exact(n, deadline))
        except wire.WireError as exc:
            raise StudentFailure("protocol", f"the reply is not valid plain data ({exc})") from None

    def _write(self, payload: bytes, deadline: float) -> None:
        data = memoryview(struct.pack(">Q", len(payload)) + payload)
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StudentFailure("timeout", "the process stopped reading requests")
            _, ready, _ = select.select([], [self.req_w], [], remaining)
            if ready:
                try:
                    n = os.write(self.req_w, data[: 1 << 16])
                except BrokenPipeError:
                    raise StudentFailure("crash", self._exit_description()) from None
                data = data[n:]

    def request(self, message: dict, timeout: float) -> dict:
        """Send one request and return the decoded reply dict (``ok`` or ``error``)."""
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        self.next_id += 1
        message = dict(message, id=self.next_id)
        deadline = time.monotonic() + timeout
        try:
            self._write(wire.encode(message), deadline)
            reply = self._read_reply(deadline)
            if not isinstance(reply, dict) or reply.get("id") != self.next_id or not ({"ok", "error"} & set(reply)):
                raise StudentFailure("protocol", "the reply does not answer the request")
            return reply
        except StudentFailure:
            self.stop()
            raise
