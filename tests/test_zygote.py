"""Is a worker that the zygote forks into the sandbox as confined, as mortal and as well
described as one started alone (autograder/sandbox/zygote.py)?"""

import os
import select
import struct

import pytest

from autograder.sandbox import isolation, process, zygote
from autograder.sandbox.isolation import SANDBOX_UID, namespaces_available
from autograder.sandbox.scratch import make_scratch
from helpers import ROOT

pytestmark = pytest.mark.skipif(not namespaces_available(), reason="needs Linux user namespaces")

PROBE = f"""
import os, socket

def _writes(path):
    try:
        with open(path, "w"):
            return True
    except OSError:
        return False

def observe():
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1)
        net = "up"
    except OSError as exc:
        net = type(exc).__name__
    try:
        graders = os.listdir({str(ROOT / 'autograder')!r})
    except FileNotFoundError:
        graders = []
    return {{
        "uid": os.getuid(), "ppid": os.getppid(), "net": net, "graders": graders,
        "caps": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapAmb")],
        "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "writes": [_writes(p) for p in ("/etc/course-probe", os.path.join(os.getcwd(), "probe.txt"))],
        "tmp_writable": _writes("/tmp/probe.txt"),
        "fds": len(os.listdir("/proc/self/fd")) - 1,  # the listing's own
        "env": dict(os.environ),
    }}

def leave(code):
    os._exit(code)
"""


@pytest.fixture
def worker(monkeypatch):
    """A StudentProcess over a probe module, in the namespace sandbox, forked or not."""
    scratch = make_scratch({"a1_attention": {"probe.py": PROBE.encode()}})
    hidden = [p for p in isolation.hidden_paths() if p.is_dir()]
    started = []

    def start(forked: bool) -> process.StudentProcess:
        monkeypatch.setenv("COURSE_ZYGOTE", "1" if forked else "0")
        p = process.StudentProcess(scratch, ["a1_attention"], hidden, "namespace")
        started.append(p)
        return p

    yield start
    for p in started:
        p.stop()


def _call(p, target, *args):
    reply = p.request({"op": "call", "target": f"probe.{target}", "args": list(args), "kwargs": {}}, 60)
    assert "ok" in reply, reply
    return reply["ok"]


@pytest.mark.parametrize("forked", [True, False], ids=["forked by the zygote", "started alone"])
def test_a_worker_is_confined_either_way(worker, forked):
    """Does the worker run as the sandbox's unprivileged uid with no capability, no network,
    no view of the graders or the grading process, a read-only disk but a private /tmp,
    and nothing open but its two pipes?"""
    p = worker(forked)
    seen = _call(p, "observe")
    assert (p.worker_pid is not None) == forked  # the path this case means to test was taken
    assert seen["uid"] == SANDBOX_UID
    assert seen["caps"] == ["0000000000000000"] * 4, seen["caps"]
    assert seen["ppid"] == 0  # the grading process (or the zygote) is outside this PID namespace
    assert seen["net"] != "up" and seen["graders"] == []
    assert seen["writes"] == [False, False] and seen["tmp_writable"]
    assert seen["fds"] == 5, seen  # stdin, stdout, stderr (/dev/null) and the two pipes
    assert max(seen["pids"]) <= 3, seen["pids"]  # the worker (and the holder): no one else's process


def test_forked_and_lone_workers_get_the_same_environment(worker):
    """Does a forked worker see exactly the environment (names and values) of one started alone?"""
    assert _call(worker(True), "observe")["env"] == _call(worker(False), "observe")["env"]


def test_a_crash_is_described_as_for_a_lone_worker(worker):
    """Does a forked worker that exits with status 3 get the lone worker's description,
    and is the next request served by a new worker?"""
    described = []
    for forked in (True, False):
        p = worker(forked)
        with pytest.raises(process.StudentFailure) as failure:
            p.request({"op": "call", "target": "probe.leave", "args": [3], "kwargs": {}}, 60)
        described.append((failure.value.kind, failure.value.detail))
        assert _call(p, "observe")["uid"] == SANDBOX_UID
    assert described[0] == described[1] == ("crash", "the process exited with status 3 before answering")


def _ended(fd: int, timeout: float = 30) -> int | None:
    """The wait status that a forked worker's parent sends when the worker ends."""
    if not select.select([fd], [], [], timeout)[0]:
        return None
    data = os.read(fd, 4)
    return struct.unpack("i", data)[0] if len(data) == 4 else None


def test_a_forked_worker_dies_with_its_sandbox(worker):
    """When the grading process stops the worker, or only lets go of the sandbox (as when it
    dies itself), is the worker killed?"""
    p = worker(True)
    _call(p, "observe")
    status_r = os.dup(p.status_r)  # stop() closes its own
    pid = p.worker_pid
    p.stop()
    assert os.waitstatus_to_exitcode(_ended(status_r)) == -9
    os.close(status_r)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)

    p = worker(True)
    _call(p, "observe")
    os.close(p.life_w)  # the holder's lifeline, and nothing else
    p.life_w = -1
    assert os.waitstatus_to_exitcode(_ended(p.status_r)) == -9


def test_a_zygote_that_cannot_join_gives_way_to_lone_workers(worker, monkeypatch):
    """When the zygote fails to fork a worker into the sandbox (here: it is sent to join
    namespaces it cannot), does the worker start alone instead, and later ones too?"""
    monkeypatch.setattr(zygote, "_broken", False)
    monkeypatch.setattr(zygote, "gave_up_because", None)
    monkeypatch.setattr(zygote, "holder_pid", lambda outer: os.getpid())  # our own: setns refuses
    p = worker(True)
    assert _call(p, "observe")["uid"] == SANDBOX_UID
    assert p.worker_pid is None and "setns" in zygote.gave_up_because
    assert zygote.shared({}) is None


def test_grading_processes_share_the_zygote_their_parent_serves(worker, monkeypatch):
    """When the process that starts grading processes serves a zygote (``grade`` does, in the
    namespace sandbox), does a grading process fork its workers from that one instead of
    starting its own, and does it fall back to its own when the socket is gone?"""
    served = zygote.serve(isolation.worker_env("namespace"))
    assert set(served) == {zygote.SOCKET_VARIABLE} and zygote.served() == served
    monkeypatch.setenv(zygote.SOCKET_VARIABLE, served[zygote.SOCKET_VARIABLE])
    monkeypatch.setattr(zygote, "_shared", None)
    p = worker(True)
    assert _call(p, "observe")["uid"] == SANDBOX_UID
    assert p.worker_pid is not None and zygote._shared.proc is None  # connected, not started

    monkeypatch.setattr(zygote, "_shared", None)
    monkeypatch.setenv(zygote.SOCKET_VARIABLE, served[zygote.SOCKET_VARIABLE] + "-gone")
    p = worker(True)
    assert _call(p, "observe")["uid"] == SANDBOX_UID
    assert p.worker_pid is not None and zygote._shared.proc is not None  # its own
