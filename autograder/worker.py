"""Main loop of the student's process: ``python -I worker.py REQ_FD RESP_FD FOLDER...``.

The first FOLDER holds the student's modules; the others hold reference prerequisites.

Started by ``sandbox.StudentProcess`` from a scratch copy of the submission. It reads
requests from REQ_FD, runs them with ``harness.handle`` and writes replies to RESP_FD.
The student's own stdout and stderr go to /dev/null: nothing the student prints can
look like a grading result. The first frame it writes is ``{"ready": true}``.
"""

import os
import sys


def main() -> None:
    req_fd, resp_fd = int(sys.argv[1]), int(sys.argv[2])
    folders = sys.argv[3:]

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)

    # The harness sits beside this file; the submission's folders come first on the path.
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = folders
    sys.dont_write_bytecode = True

    import harness
    import wire

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
                "error": {"type": type(exc).__name__, "message": "the result could not be sent back to the grader", "where": ""},
            })
        wire.write_frame(resp_fd, payload)


if __name__ == "__main__":
    main()
