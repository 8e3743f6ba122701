"""Main loop of the student's process:
``python -I worker.py REQ_FD RESP_FD MEMORY_BYTES FILE_BYTES TASKS FORBIDDEN FOLDER...``.

The first FOLDER holds the student's modules; the others hold reference prerequisites.
TASKS caps the processes and threads of the worker's user (RLIMIT_NPROC; 0 where a PID
namespace caps them instead). FORBIDDEN is a comma-separated list of torch names the
exercise asks the student to build; they raise here when called (``harness.forbid``).

Started by ``autograder.sandbox.process.StudentProcess`` from a scratch copy of the
submission. Before any student code can run, it caps its own resources, points
stdout/stderr at /dev/null (nothing the student prints can look like a grading result),
imports the harness, the codec and torch, and only then puts the submission's folders on
the import path, so no submitted file can stand in for a module the harness uses. It
reads requests from REQ_FD, runs them with ``harness.handle`` and writes replies to
RESP_FD. The first frame it writes is ``{"ready": true}``.
"""

import os
import resource
import sys


def main() -> None:
    serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
          [name for name in sys.argv[6].split(",") if name], sys.argv[7:])


def serve(req_fd: int, resp_fd: int, memory: int, file_size: int, tasks: int, forbidden: list[str],
          folders: list[str]) -> None:
    """Cap this process, then answer requests until the grading process closes REQ_FD.
    Also entered, with the same arguments, by a fork of ``autograder/sandbox/zygote_server.py``
    that has already imported torch and the harness."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if tasks:
        resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    # Nothing but the two pipes stays open (a fork of the zygote inherits its descriptors).
    keep = sorted({0, 1, 2, req_fd, resp_fd})
    for low, high in zip(keep, keep[1:] + [os.sysconf("SC_OPEN_MAX")]):
        os.closerange(low + 1, high)

    sys.dont_write_bytecode = True
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    import harness
    import wire

    harness.forbid(forbidden)
    sys.path[:0] = folders

    # Error locations point into the student's own files only.
    roots = [os.path.abspath(folders[0]) + os.sep]
    wire.write_frame(resp_fd, wire.encode({"ready": True}))
    while True:
        try:
            request = wire.decode(wire.read_frame(req_fd))
        except EOFError:
            return
        reply = harness.handle(request, roots)
        reply["id"] = request.get("id")
        try:
            payload = wire.encode(reply)
        except BaseException as exc:
            payload = wire.encode({
                "id": request.get("id"),
                "error": {"type": type(exc).__name__, "message": "the result could not be sent back to the grader",
                          "where": ""},
            })
        wire.write_frame(resp_fd, payload)


if __name__ == "__main__":
    main()
