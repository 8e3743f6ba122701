"""The adversarial suite (tests/attacks/): submissions against the grader: each one tries to earn points it has not
earned, to read what it must not read, or to outlive or swamp its grading.

Every test grades an attacking submission with the real command line
(``python -m autograder grade ... --only ASSIGNMENT``) and an HONEST CONTROL (the same
submission without the trick), and asserts that the attack scores no more than the
control on every test, that grading ends normally (exit 0, results.json written, no
"internal grader error"), and that nothing is left behind: each grading gets its own
TMPDIR, which must be empty afterwards, and no process may remain whose working folder or
command line points into the test's folder.

``harness.py`` grades and checks (the runs, the honest controls' builders); ``conftest.py``
grades the honest controls once for the suite; each ``test_*.py`` is one family of attacks,
numbered as in the figures below.
"""

# Scores before the hardening (commit 9f8aa4f), measured by running this file against a
# worktree of that commit (PYTHONPATH and COURSE_ROOT pointing to it; --memory and --budget
# dropped, that code has neither). Targeted points earned / available, attack vs the honest
# control (same submission without the trick):
#
#  1  resource.py planted in the grading folder, wrong attention: 13/13 vs 0/13 (the fork
#     that becomes the worker imports it outside the sandbox and rewrites the report: a1 15/15)
#  2a stub that runs another grading's scratch copy of the reference: 13/13 vs 0/13
#  2b attention.py as a symbolic link to the reference: 13/13 vs 0/13
#  2c env_dump.py -> /proc/self/environ: 0/13 vs 0/13, but the grading command's
#     COURSE_SECRET_TOKEN appeared in results.json and stdout
#  2d a named pipe in the submission: grading hung (killed at 400 s) vs 15/15 in ~4 s
#  3a `grad` replies forged with no gradients, wrong attention: 1/1 vs 0/1
#  3b tensor shapes [2**63, 0], [2**64, 0], [2**62, 4, 0]: exit 2, 8 internal grader errors,
#     vs 0/13 with exit 0; 200 dimensions of 1 and a 2**64-1 byte frame: 0/13, exit 0 (held)
#  4  a3 worker sending the reference a1 out (0/15 vs 0/15): reference lines recovered from
#     results.json out of 16: base64 10, reversed 11, 6-char chunks 1, one char per line 11,
#     exception type name 11, function name in "where" 10
#  5a target_mask touching 6 GiB: 0/1 vs 1/1, but only because it hit the 10 s call limit
#     after touching several GiB; no memory limit
#  5b target_mask forking 1,000 sleepers: 1/1 vs 1/1 (no process cap; none left behind)
#  5c 200 MB written to /tmp and /dev/shm: 1/1 vs 1/1, both files left on the machine
#  5d json.py / traceback.py / inspect.py / numpy.py that sleep at import: grading never
#     ended (killed at 600 s / 200 s; each worker start waits out the 120 s start-up limit)
#     vs 15/15 in ~4 s
#  5e every call a fresh worker plus a 30 s import: 0/15 in 377 s vs 0/15 in 19 s
#  6  sdpa via getattr(F | torch._C._nn | torch.ops.aten, built name): 13/13 each vs 0/13;
#     layer norm via getattr(F | torch | torch.ops.aten, built name): 8/8 each vs 0/8
#
# After the hardening (f979ff9 .. 943bd2f) every test here passes.
