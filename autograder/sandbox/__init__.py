"""The trust boundary: the student's code runs in a separate, disposable process.

- ``scratch``: a submission's modules taken in (read without following links, refused
  when they shadow a needed module) and copied into a scratch folder.
- ``process``: the grading process's side of a worker (its lifecycle, framed requests
  with time limits).
- ``isolation``: what that process can see and use (namespaces, read-only filesystem,
  rlimits).
- ``zygote`` and ``zygote_server``: a process that imported torch once forks each worker
  into its fresh namespace sandbox.
- ``child/``: the code that runs *in* that process, next to untrusted code.
"""
