"""Run a submission's code in a separate, disposable process: the worker's lifecycle.

The grading process never imports student code. Over a scratch copy of the submission's
modules (:mod:`.scratch`) it starts ``worker.py`` and exchanges plain-data messages with it
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
import subprocess
import sys
import time
from pathlib import Path

from ..settings import DEFAULT_MEMORY_GIB
from . import zygote
from .child import wire
from .isolation import MAX_FILE_BYTES, MAX_TASKS, UidSlot, children, sandbox_command, tasks_of, worker_env, worker_user
from .scratch import make_scratch

STARTUP_TIMEOUT = 120.0  # importing torch on a busy 2-core machine can take a while


class StudentFailure(Exception):
    """The student's process did not produce a reply: timeout, crash or garbage."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind  # "timeout", "crash", "protocol", "startup"
        self.detail = detail


def _process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (read from /proc; empty where there is none)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children(current)
    return found


def memory_peak_kib(pid: int) -> dict[str, int]:
    """The largest peak address space (VmPeak, what ``--memory`` limits) and peak resident
    memory (VmHWM, what a container's memory limit counts) among ``pid``'s process tree."""
    peak = {"address_space": 0, "resident": 0}
    for each in _process_tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            key = {"VmPeak:": "address_space", "VmHWM:": "resident"}.get(line.split(":")[0] + ":")
            if key:
                peak[key] = max(peak[key], int(line.split()[1]))
    return peak


class StudentProcess:
    """One worker over a scratch folder; restarted on demand after a failure."""

    def __init__(self, scratch: Path, folders: list[str], hidden: list[Path], isolation: str, *,
                 memory_gib: float = DEFAULT_MEMORY_GIB, forbidden: tuple[str, ...] = ()):
        self.scratch = scratch
        self.folders = [str(scratch / f) for f in folders]
        self.hidden = [str(p) for p in hidden if p.is_dir()]
        self.isolation = isolation
        self.memory_bytes = int(memory_gib * (1 << 30))
        self.forbidden = ",".join(forbidden)
        self.proc: subprocess.Popen | None = None
        self.req_w = self.resp_r = -1
        # A worker forked in by the zygote (not this process's child): its pid, and the pipe on
        # which its parent sends its wait status when it ends.
        self.worker_pid: int | None = None
        self.status_r = self.life_w = -1
        self.next_id = 0
        self.peak_kib = {"address_space": 0, "resident": 0}  # over every worker this object started
        # The answered request that came closest to its time limit: seconds, limit, target.
        self.slowest_call: dict | None = None
        self.slot: UidSlot | None = None

    # ------------------------------------------------------------------ lifecycle

    def _user(self) -> tuple[int, int] | None:
        """Without the namespace sandbox, grading as root runs student code as a uid of its
        own (:class:`UidSlot`), for which a process limit holds and nothing outlives it."""
        if self.isolation == "namespace" or worker_user() is None:
            return None
        if self.slot is not None and not self.slot.clean():  # a restart after a fork bomb
            self.slot.release()
            self.slot = None
        if self.slot is None:
            self.slot = UidSlot()
        return self.slot.uid, self.slot.gid

    def _command(self, req_fd: int, resp_fd: int) -> list[str]:
        # The PID namespace caps tasks itself; a uid of its own is capped exactly by
        # RLIMIT_NPROC; the grading user's cap counts what that user already runs.
        user = self._user()
        tasks = 0 if self.isolation == "namespace" else MAX_TASKS if user else tasks_of(os.getuid()) + MAX_TASKS
        worker = [sys.executable, "-I", str(self.scratch / "_harness" / "worker.py"), str(req_fd), str(resp_fd),
                  str(self.memory_bytes), str(MAX_FILE_BYTES), str(tasks), self.forbidden, *self.folders]
        if self.isolation == "namespace":
            return sandbox_command(self.scratch, self.hidden, worker)
        return worker

    def _env(self) -> dict[str, str]:
        return worker_env(self.isolation, self.scratch)

    def start(self, timeout: float = STARTUP_TIMEOUT) -> None:
        if self.isolation == "namespace":
            forked = zygote.shared(self._env())
            if forked is not None:
                try:
                    return self._start_forked(forked, timeout)
                except zygote.ZygoteError as exc:
                    zygote.give_up(str(exc))
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        env = self._env()
        user = self._user()
        if user is not None:
            for path in [self.scratch, *self.scratch.rglob("*")]:
                os.chown(path, *user, follow_symlinks=False)
        try:
            self.proc = subprocess.Popen(
                self._command(req_r, resp_w),
                **({"user": user[0], "group": user[1], "extra_groups": []} if user else {}),
                cwd=self.scratch,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(req_r, resp_w),
                start_new_session=True,
            )
        finally:
            os.close(req_r)
            os.close(resp_w)
        self.req_w, self.resp_r = req_w, resp_r
        self._await_ready(time.monotonic() + timeout)

    def _start_forked(self, forked: zygote.Zygote, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        args = [str(self.memory_bytes), str(MAX_FILE_BYTES), "0", self.forbidden, *self.folders]
        started = zygote.start_worker(forked, sandbox_command, self.scratch, self.hidden, self._env(), args,
                                      deadline)
        self.proc, self.worker_pid = started.proc, started.pid
        self.req_w, self.resp_r, self.status_r, self.life_w = started.req_w, started.resp_r, started.status_r, \
            started.life_w
        self._await_ready(deadline)

    def _await_ready(self, deadline: float) -> None:
        try:
            ready = self._read_reply(deadline)
        except StudentFailure as exc:
            self.stop()
            raise StudentFailure("startup",
                                 f"the grading process for your code could not start ({exc.detail})") from None
        if ready != {"ready": True}:
            self.stop()
            raise StudentFailure("startup", "the grading process for your code sent an unexpected first message")

    def stop(self) -> None:
        if self.proc is not None:
            # Measured before the kill, by the parent; a forked worker is not in the sandbox's tree.
            roots = [self.proc.pid] + ([self.worker_pid] if self.worker_pid and not self._worker_gone() else [])
            for root in roots:
                for key, value in memory_peak_kib(root).items():
                    self.peak_kib[key] = max(self.peak_kib[key], value)
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None
        if self.slot is not None:
            self.slot.kill_all()  # what left the process group (setsid, double fork) too
        for fd in (self.req_w, self.resp_r, self.status_r, self.life_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.req_w = self.resp_r = self.status_r = self.life_w = -1
        self.worker_pid = None

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
        if self.status_r >= 0:
            status = zygote.read_status(self.status_r, 5)
            code = None if status is None else os.waitstatus_to_exitcode(status)
        elif self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if code is None:
            return "the process closed its channel to the grader"
        if code < 0:
            return f"the process was killed by signal {signal.Signals(-code).name}"
        return f"the process exited with status {code} before answering"

    def _worker_gone(self) -> bool:
        """Whether a forked worker has ended (its parent sent the wait status)."""
        return self.status_r >= 0 and bool(select.select([self.status_r], [], [], 0)[0])

    def _read_reply(self, deadline: float):
        try:
            n = wire.frame_length(self._read_exact(wire.HEADER.size, deadline))
        except wire.WireError as exc:
            raise StudentFailure("protocol", f"the reply is refused ({exc})") from None
        data = self._read_exact(n, deadline)
        try:
            return wire.decode(data)
        except wire.WireError as exc:
            raise StudentFailure("protocol", f"the reply is not valid plain data ({exc})") from None
        except Exception as exc:  # noqa: BLE001 - whatever the bytes do to the decoder, it is this call's failure
            raise StudentFailure("protocol", f"the reply could not be decoded ({type(exc).__name__})") from None

    def _write(self, payload: bytes, deadline: float) -> None:
        data = memoryview(wire.frame(payload))
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

    def _note_duration(self, seconds: float, limit: float, target: str) -> None:
        slowest = self.slowest_call
        if slowest is None or seconds / limit > slowest["seconds"] / slowest["limit"]:
            self.slowest_call = {"seconds": round(seconds, 3), "limit": limit, "target": target}

    def request(self, message: dict, timeout: float, startup_timeout: float = STARTUP_TIMEOUT) -> dict:
        """Send one request and return the decoded reply dict (``ok`` or ``error``); a
        worker is started first (within ``startup_timeout``) if none is running."""
        if self.proc is None or self.proc.poll() is not None or self._worker_gone():
            self.stop()
            self.start(startup_timeout)
        self.next_id += 1
        message = dict(message, id=self.next_id)
        sent = time.monotonic()
        deadline = sent + timeout
        try:
            self._write(wire.encode(message), deadline)
            reply = self._read_reply(deadline)
            if not isinstance(reply, dict) or reply.get("id") != self.next_id or not ({"ok", "error"} & set(reply)):
                raise StudentFailure("protocol", "the reply does not answer the request")
            self._note_duration(time.monotonic() - sent, timeout, str(message.get("target", "")))
            return reply
        except StudentFailure:
            self.stop()
            raise


class ScratchWorker:
    """The transport of a module submission: a :class:`StudentProcess` over a scratch copy
    of ``folders`` (``{"a4_transformer": {"layers.py": b"..."}, "a1_attention": {...}}``,
    the student's folder first), both made on the first request and removed by
    :meth:`close`."""

    def __init__(self, folders: dict[str, dict[str, bytes]], hidden: list[Path], isolation: str, *,
                 memory_gib: float = DEFAULT_MEMORY_GIB, forbidden: tuple[str, ...] = ()):
        self.folders = folders
        self.options = dict(hidden=list(hidden), isolation=isolation, memory_gib=memory_gib, forbidden=forbidden)
        self.scratch: Path | None = None
        self.process: StudentProcess | None = None
        self.peak_kib = {"address_space": 0, "resident": 0}
        self.slowest_call: dict | None = None  # see StudentProcess.slowest_call

    def request(self, message: dict, timeout: float, startup_timeout: float = STARTUP_TIMEOUT) -> dict:
        if self.process is None:
            self.scratch = make_scratch(self.folders)
            options = self.options
            self.process = StudentProcess(self.scratch, list(self.folders), options["hidden"], options["isolation"],
                                          memory_gib=options["memory_gib"], forbidden=options["forbidden"])
        return self.process.request(message, timeout, startup_timeout=startup_timeout)

    def close(self) -> None:
        if self.process is not None:
            self.process.stop()
            if self.process.slot is not None:
                self.process.slot.release()
            self.peak_kib = dict(self.process.peak_kib)
            self.slowest_call = self.process.slowest_call
            self.process = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
