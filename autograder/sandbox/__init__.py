"""The trust boundary: the student's code runs in a separate, disposable process.

- ``process``: the grading process's side (scratch copy, worker lifecycle, framed
  requests with time limits).
- ``isolation``: what that process can see and use (namespaces, read-only filesystem,
  rlimits).
- ``child/``: the code that runs *in* that process, next to untrusted code.
"""
