"""The zygote: a process that has imported torch and the harness once, and forks a student
worker into a namespace sandbox that is already set up, instead of starting Python and
importing torch (about 1.5 s of CPU) for every worker.

``python -I zygote_server.py SOCKET_FD CHILD_DIR``, started by
:mod:`autograder.sandbox.zygote` with the worker's environment. It never runs student code
and never imports the course's package (nothing hidden is in its memory). On SOCKET_FD it
receives, per worker, three pipes (SCM_RIGHTS: the worker's requests, its replies, and one
for its pid and exit status) and ``{"outer": pid, "holder": pid, "cwd": path, "args":
[...]}``: ``outer`` is the sandbox's outer ``unshare`` (its user and network namespaces),
``holder`` the PID 1 of the sandbox (its inner user, mount and PID namespaces), ``args``
what ``worker.py`` takes after its two pipes. A fork joins those namespaces (``setns``),
forks again to be inside the PID namespace, drops every capability, and runs
``worker.serve``: from there on it is the worker ``worker.py`` would have been, as the
same uid, under the same mounts and limits, and it dies with the sandbox. The reply says
``{"ok": true}`` once the worker runs, or ``{"error": ...}``.
"""

import ctypes
import json
import os
import select
import socket
import struct
import sys

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
CAPABILITY_VERSION_3 = 0x20080522
_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _enter(outer: int, holder: int) -> None:
    """Join the sandbox's namespaces. The outer user namespace first: its capabilities
    let this process join the network namespace (which that one owns) and then the inner
    user namespace, whose capabilities let it join the mount and PID namespaces."""
    order = [(outer, "user", CLONE_NEWUSER), (outer, "net", CLONE_NEWNET), (holder, "user", CLONE_NEWUSER),
             (holder, "mnt", CLONE_NEWNS), (holder, "pid", CLONE_NEWPID)]
    fds = [os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY) for pid, name, _ in order]  # before any of them moves us
    try:
        for fd, (_, name, kind) in zip(fds, order):
            _check(_libc.setns(fd, kind), f"setns {name}")
    finally:
        for fd in fds:
            os.close(fd)


def _drop_capabilities() -> None:
    """Joining a user namespace grants every capability in it; the worker ``worker.py``
    would have been (exec'd as uid 1000 there) has none, so drop them all, for good."""
    for cap in range(64):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last capability
    _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(_CapHeader(CAPABILITY_VERSION_3, 0)), data), "capset")


def _worker(sockets: list[socket.socket], ok_w: int, request: dict, pipes: list[int], worker) -> None:
    """In the fork: become the worker's parent, and the worker; never returns."""
    try:
        for each in sockets:  # the zygote's, which neither the parent nor the worker may hold
            each.close()
        _enter(int(request["outer"]), int(request["holder"]))
        req_r, resp_w, status_w = pipes
        pid = os.fork()  # the worker, inside the PID namespace (which a setns applies to children only)
        if pid:
            _parent(pid, [ok_w, req_r, resp_w], status_w)
        os.close(status_w)
        os.setsid()
        _drop_capabilities()
        os.chdir(request["cwd"])
        os.environ["PWD"] = request["cwd"]  # as the shell that starts a lone worker sets it
        memory, file_size, tasks, forbidden, *folders = request["args"]
        os.write(ok_w, b"ok")
        os.close(ok_w)
        worker.serve(req_r, resp_w, int(memory), int(file_size), int(tasks),
                     [name for name in forbidden.split(",") if name], folders)
        os._exit(0)
    except BaseException as exc:  # noqa: BLE001 - whatever failed, the zygote must hear it, and this fork must end
        try:
            os.write(ok_w, f"{type(exc).__name__}: {exc}"[:500].encode())
        finally:
            os._exit(1)


def _parent(pid: int, close: list[int], status_w: int) -> None:
    """The worker's parent, outside the sandbox's PID namespace (so that the worker dies
    with the sandbox): it tells the grading process the worker's pid, then its wait
    status, and ends."""
    try:
        for fd in close:
            os.close(fd)
        os.write(status_w, struct.pack("i", pid))
        _, status = os.waitpid(pid, 0)
        os.write(status_w, struct.pack("i", status))
    finally:
        os._exit(0)


def spawn(sockets: list[socket.socket], request: dict, pipes: list[int], worker) -> dict:
    ok_r, ok_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ok_r)
        _worker(sockets, ok_w, request, pipes, worker)
    os.close(ok_w)
    said = b""
    while select.select([ok_r], [], [], 30)[0]:
        chunk = os.read(ok_r, 512)
        if not chunk:
            break
        said += chunk
        if said == b"ok":
            break
    os.close(ok_r)
    return {"ok": True} if said == b"ok" else {"error": said.decode(errors="replace") or "the fork said nothing"}


def _reap() -> None:
    """Reap the workers' parents that have ended (each lives as long as its worker)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _serve(conn: socket.socket, sockets: list[socket.socket], worker) -> bool:
    """Answer one request on ``conn``; False when its grading process has gone."""
    try:
        message, pipes, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    except OSError:
        return False
    if not message:
        return False
    _reap()
    try:
        reply = (spawn(sockets, json.loads(message), pipes, worker) if len(pipes) == 3
                 else {"error": "3 pipes expected"})
    except Exception as exc:  # noqa: BLE001 - one bad request must not end the zygote
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        for fd in pipes:
            os.close(fd)
    try:
        conn.sendall(json.dumps(reply).encode())
    except OSError:
        return False
    return True


def main() -> None:
    """SOCKET_FD is either one grading process's end of a socket pair (the zygote ends with
    it), or a listening socket that several grading processes connect to, started by the
    process that starts them (the zygote ends when its stdin, a pipe from that process,
    closes)."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    listening = bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
    sys.dont_write_bytecode = True
    sys.path.insert(0, sys.argv[2])
    import harness  # noqa: F401 - with torch, what every worker needs, imported once here
    import torch  # noqa: F401
    import wire  # noqa: F401
    import worker

    ready = json.dumps({"ready": True}).encode()
    conns = [] if listening else [sock]
    if not listening:
        sock.sendall(ready)
    while True:
        watched = conns + ([sock, sys.stdin] if listening else [])
        for each in select.select(watched, [], [])[0]:
            if each is sys.stdin:
                if not os.read(sys.stdin.fileno(), 1):
                    return
            elif listening and each is sock:
                conn, _ = sock.accept()
                conn.sendall(ready)
                conns.append(conn)
            elif not _serve(each, conns + [sock], worker):
                each.close()
                conns.remove(each)
                if not listening:
                    return


if __name__ == "__main__":
    main()
