"""Operations the grading process asks the student's process to run.

This module runs inside the student's process (see ``worker.py``), next to untrusted
code. It only computes outputs, gradients and parameter values and hands them to the
codec in ``wire.py``; it never compares anything, so nothing here decides a verdict.

Each operation takes a request dict and returns plain data:

- ``call``: call ``target(*args, **kwargs)``; a ``model`` spec is built into a module
  passed first (eval mode), a ``generator_seed`` becomes ``generator=``;
- ``grad``: the same, then backpropagate ``grad_output`` through one output and return
  the gradients of the chosen arguments;
- ``module``: build ``target(*init_args, **init_kwargs)`` (an ``nn.Module``; a ``config``
  dataclass built from ``[class, kwargs]`` goes first when given), report its
  parameters and buffers, optionally load given values into the parameters, run
  ``forward(*inputs)`` (or ``encode``/``decode``) and, optionally, backpropagate
  ``grad_output``;
- ``script``: run ``[name, target, args, kwargs]`` steps in order, keeping each result
  under its name, so that graders can compose the student's functions and classes (a
  vocabulary, a dataset, an optimizer, a training loop) in this process, where objects
  live; a ``model`` spec is built first (eval mode) and kept as "model"; only the values
  named in ``returns`` go back, with the model's parameters when ``state`` is set.

Over 350 lines: it stands alone beside student code (importing nothing of the package), so every operation is here.
"""

from __future__ import annotations

import importlib
import inspect
import os
import tempfile
import traceback
from pathlib import Path

import torch


class HarnessError(Exception):
    """The submission does not have the shape the grader asked for (missing name, ...)."""


class ForbiddenShortcut(Exception):
    """The submission called what its exercise asks the student to build."""


def forbidden_name(attr: str, names) -> bool:
    """Is ``attr`` one of ``names``, or (for a function name) of its family? Lower-case
    names stand for every attribute that contains them: ``layer_norm`` also covers
    ``native_layer_norm``, ``scaled_dot_product`` the fused attention kernels."""
    return attr in names or any(name.islower() and name in attr for name in names)


def _blocked(value, qualified: str):
    message = qualified
    if isinstance(value, type):  # a class: still a class for isinstance, but cannot be built
        def refuse(cls, *args, **kwargs):
            raise ForbiddenShortcut(message)
        return type(value.__name__, (value,), {"__new__": refuse, "__module__": value.__module__})

    def refuse_call(*args, **kwargs):
        raise ForbiddenShortcut(message)
    return refuse_call


def forbid(names) -> None:
    """Make the forbidden torch names raise ``ForbiddenShortcut`` in this process, however
    the student reaches them (``getattr`` with a name built at run time, an alias, an
    import inside a function): the parser in the grading process sees only what is
    written. Runs before any student code is imported."""
    names = frozenset(names)
    if not names:
        return
    import sys

    import torch.nn.functional  # noqa: F401 - loaded, so that its names are replaced too

    spaces = {name: mod for name, mod in list(sys.modules.items())
              if mod is not None and (name == "torch" or name.startswith("torch."))}
    spaces.update({"torch._C._nn": torch._C._nn, "torch._C._VariableFunctions": torch._C._VariableFunctions})
    for space_name, space in spaces.items():
        try:
            items = list(vars(space).items())
        except TypeError:
            continue
        for attr, value in items:
            if forbidden_name(attr, names) and callable(value):
                try:
                    setattr(space, attr, _blocked(value, f"{space_name}.{attr}"))
                except (AttributeError, TypeError):
                    pass
    for op in torch._C._dispatch_get_all_op_names():
        namespace, _, attr = op.partition("::")
        attr = attr.split(".")[0]
        if namespace == "aten" and forbidden_name(attr, names):
            setattr(torch.ops.aten, attr, _blocked(None, f"torch.ops.aten.{attr}"))


def import_target(target: str):
    """``"attention.scaled_dot_product_attention"`` -> the object, imported from the submission.

    The worker's resolver; :func:`handle` takes another (a notebook's namespace, say)."""
    module_name, _, qualname = target.partition(".")
    module = importlib.import_module(module_name)
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise HarnessError(f"{module_name}.py has no {qualname!r}; keep the names from the stub")
        obj = getattr(obj, part)
    return obj


def _with_grad(values, indices):
    values = list(values)
    for i in indices:
        values[i] = values[i].detach().clone().requires_grad_(True)
    return values


def _pick(result, output):
    return result if output is None else result[output]


def _call_args(req, resolve):
    """Positional and keyword arguments; a model spec and a generator seed become objects."""
    args, kwargs = list(req.get("args", [])), dict(req.get("kwargs", {}))
    if req.get("model") is not None:
        model = _build(req["model"], resolve)
        model.eval()
        args.insert(0, model)
    if req.get("generator_seed") is not None:
        kwargs["generator"] = torch.Generator().manual_seed(int(req["generator_seed"]))
    return args, kwargs


def op_call(req, resolve):
    args, kwargs = _call_args(req, resolve)
    return resolve(req["target"])(*args, **kwargs)


def op_grad(req, resolve):
    fn = resolve(req["target"])
    args = _with_grad(req.get("args", []), req["wrt"])
    result = fn(*args, **req.get("kwargs", {}))
    out = _pick(result, req.get("output"))
    if not isinstance(out, torch.Tensor):
        raise HarnessError(f"expected a tensor to backpropagate through, got {type(out).__name__}")
    out.backward(req["grad_output"])
    return {"result": result, "grads": [args[i].grad for i in req["wrt"]]}


def _build(spec, resolve):
    """An nn.Module from ``{target, init_args, init_kwargs, config, dtype, state}``."""
    if spec.get("seed") is not None:
        torch.manual_seed(spec["seed"])
    cls = resolve(spec["target"])
    init_args = list(spec.get("init_args", []))
    if spec.get("config") is not None:  # e.g. ["transformer.TransformerConfig", {...}]
        config_class, config_kwargs = spec["config"]
        init_args.insert(0, resolve(config_class)(**config_kwargs))
    module = cls(*init_args, **spec.get("init_kwargs", {}))
    if not isinstance(module, torch.nn.Module):
        raise HarnessError(f"{spec['target']} must build a torch.nn.Module, got {type(module).__name__}")
    if spec.get("dtype") is not None:
        if spec["dtype"] not in ("float32", "float64"):
            raise HarnessError(f"unsupported dtype {spec['dtype']!r}")
        module = module.to(getattr(torch, spec["dtype"]))
    _load(module, spec.get("state") or {}, spec["target"])
    return module


def _parameter(module, name, params):
    """The parameter a grader calls ``name``: found by its attribute path first (the names
    the exercise documents, e.g. ``linear1.weight``, also when ``self.linear1`` is an alias
    of ``self.net[0]``), else by ``named_parameters()``."""
    obj = module
    for part in name.split("."):
        try:
            obj = obj[int(part)] if part.isdigit() and isinstance(obj, (torch.nn.Sequential, torch.nn.ModuleList)) \
                else getattr(obj, part, None)
        except IndexError:
            obj = None
        if obj is None:
            break
    return obj if isinstance(obj, torch.Tensor) else params.get(name)


def _load(module, state, target):
    params = dict(module.named_parameters())
    with torch.no_grad():
        for name, value in state.items():
            param = _parameter(module, name, params)
            if param is None:
                raise HarnessError(f"{target} has no parameter named {name!r}")
            if param.shape != value.shape:
                raise HarnessError(
                    f"parameter {name!r} has shape {tuple(param.shape)}, expected {tuple(value.shape)}"
                )
            param.copy_(value)


def op_module(req, resolve):
    module = _build({**req, "state": None}, resolve)
    params = dict(module.named_parameters())
    report = {
        "parameters": {
            name: {"value": p.detach().clone(), "requires_grad": p.requires_grad}
            for name, p in params.items()
        },
        "buffers": sorted(name for name, _ in module.named_buffers()),
        "num_parameters": sum(p.numel() for p in params.values()),
        "attributes": {},
    }
    for name in req.get("attributes", []):
        value = getattr(module, name, None)
        report["attributes"][name] = value.detach().clone() if isinstance(value, torch.Tensor) else value
    _load(module, req.get("state") or {}, req["target"])
    if "inputs" not in req:
        return report
    module.train(bool(req.get("train", False)))
    backward = req.get("grad_output") is not None
    wrt = [i for i, x in enumerate(req["inputs"]) if backward and isinstance(x, torch.Tensor) and x.is_floating_point()]
    inputs = _with_grad(req["inputs"], wrt)
    method = req.get("method")
    if method is not None and method not in ("encode", "decode"):
        raise HarnessError(f"method {method!r} is not one the graders call")
    result = (getattr(module, method) if method else module)(*inputs, **req.get("forward_kwargs", {}))
    report["output"] = result
    if backward:
        out = _pick(result, req.get("output"))
        out.backward(req["grad_output"])
        report["input_grads"] = [inputs[i].grad for i in wrt]
        report["param_grads"] = {name: p.grad for name, p in params.items()}
        for name in req.get("state") or {}:  # also under the names the grader loaded them by
            param = _parameter(module, name, params)
            report["param_grads"][name] = None if param is None else param.grad
    return report


def trace(module, *args, **kwargs):
    """``module(*args, **kwargs)``, recording each call of its direct sub-modules (dropout
    aside: it does nothing in eval mode) in order: ``{"output", "calls": [[name, args,
    output], ...]}``. Graders compare it with the reference's to say which sub-layer first
    gets a different input (``grading.localise``); it observes, it decides nothing. Each call
    is ``[name, parameter names, argument values, output]``, the arguments bound to the
    sub-module's ``forward`` signature with its defaults."""
    if not isinstance(module, torch.nn.Module):
        raise HarnessError(f"trace needs a torch.nn.Module, got {type(module).__name__}")
    calls, handles = [], []
    for name, child in module.named_children():
        if isinstance(child, torch.nn.Dropout):
            continue
        def record(child, args, kwargs, output, name=name):
            try:  # by the forward's own parameters, however the call spelled them
                bound = inspect.signature(child.forward).bind(*args, **kwargs)
                bound.apply_defaults()
                names, values = list(bound.arguments), list(bound.arguments.values())
            except (TypeError, ValueError):
                names = [f"argument {i + 1}" for i in range(len(args))] + list(kwargs)
                values = [*args, *kwargs.values()]
            values = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in values]
            calls.append([name, names, values, output[0] if isinstance(output, tuple) else output])
        handles.append(child.register_forward_hook(record, with_kwargs=True))
    try:
        output = module(*args, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    return {"output": output, "calls": calls}


class Watch:
    """Records, until :meth:`stop`, each forward call of ``module`` and of its sub-modules
    named in ``children`` (the arguments bound to ``forward``'s signature, and whether the
    module was in training mode), and the gradients of ``module``'s parameters each time
    ``optimizer.step()`` starts. A grader's script installs it around a training step or a
    translation to say which stage first differs (``grading.localise``); it observes, it
    decides nothing. :meth:`take` hands over what was recorded since the last take."""

    def __init__(self, module, optimizer=None, children=()):
        if not isinstance(module, torch.nn.Module):
            raise HarnessError(f"watch needs a torch.nn.Module, got {type(module).__name__}")
        self._calls, self._steps, self._handles = [], [], []
        for name in ["", *children]:
            watched = module.get_submodule(name) if name else module
            self._handles.append(watched.register_forward_pre_hook(
                lambda m, args, kwargs, name=name: self._record(name, m, args, kwargs), with_kwargs=True))
        if optimizer is not None:
            names = {id(p): n for n, p in module.named_parameters()}
            def grads(optimizer, args, kwargs):
                self._steps.append({names[id(p)]: (p.grad.detach().clone() if p.grad is not None else None)
                                    for group in optimizer.param_groups for p in group["params"] if id(p) in names})
            self._handles.append(optimizer.register_step_pre_hook(grads))

    def _record(self, name, module, args, kwargs):
        try:
            bound = inspect.signature(module.forward).bind(*args, **kwargs)
            values = dict(bound.arguments)
        except (TypeError, ValueError):
            values = {f"argument {i + 1}": a for i, a in enumerate(args)} | dict(kwargs)
        values = {k: v.detach().clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}
        self._calls.append([name, values, module.training])

    def take(self):
        """``{"calls": [[sub-module name ("" = the module), {argument: value}, training], ...],
        "steps": [{parameter name: gradient or None}, ...]}`` since the last take."""
        taken = {"calls": self._calls, "steps": self._steps}
        self._calls, self._steps = [], []
        return taken

    def stop(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []


def scratch_file(name, text=None):
    """A path named ``name`` in a fresh folder of the worker's temporary directory (private
    to the worker in the sandbox): the file that a grader of a function reading or writing
    files passes it. When given, ``text`` is its content: a str is written as UTF-8, line
    endings as given; a 1-D uint8 tensor is written as those bytes (a binary file, such as
    a torch checkpoint, which only a tensor carries across the wire)."""
    folder = tempfile.mkdtemp(prefix="grader-")
    path = os.path.join(folder, os.path.basename(str(name)) or "data")
    if isinstance(text, torch.Tensor):
        if text.dtype != torch.uint8 or text.dim() != 1:
            raise HarnessError(f"scratch_file's bytes come as a 1-D uint8 tensor, got {text.dtype} {tuple(text.shape)}")
        with open(path, "wb") as f:
            f.write(text.numpy().tobytes())
    elif text is not None:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(str(text))
    return path


# Torch objects a script may build besides the submission's own (optimizers for training
# steps, generators for shuffling), and files for it to read; anything else a grader needs
# comes from the submission.
SCRIPT_TORCH = {
    "torch.optim.SGD": lambda: torch.optim.SGD,
    "torch.optim.Adam": lambda: torch.optim.Adam,
    "torch.optim.AdamW": lambda: torch.optim.AdamW,
    "torch.Generator": lambda: torch.Generator,
    "torch.utils.data.DataLoader": lambda: torch.utils.data.DataLoader,
    "torch.manual_seed": lambda: torch.manual_seed,
    "torch.clone": lambda: torch.clone,
    "getattr": lambda: getattr,
    "trace": lambda: trace,
    "watch": lambda: Watch,
    "scratch_file": lambda: scratch_file,
}


def _substitute(value, env, depth=0):
    """Replace ``{"$": name}`` by ``env[name]`` and ``{"$params": name}`` by its parameters,
    at any depth of lists and dicts."""
    if depth > 32:
        raise HarnessError("script arguments are nested too deeply")
    if isinstance(value, dict):
        if len(value) == 1 and ("$" in value or "$params" in value):
            (tag, name), = value.items()
            if name not in env:
                raise HarnessError(f"script refers to {name!r} before any step stored it")
            return env[name] if tag == "$" else list(env[name].parameters())
        return {k: _substitute(v, env, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, env, depth + 1) for v in value]
    return value


def _script_target(target, env, resolve):
    """A callable for one step: ``"$name.method"``, an allowed torch name, or ``module.qualname``."""
    if target.startswith("$"):
        name, _, method = target[1:].partition(".")
        if name not in env or not method:
            raise HarnessError(f"script target {target!r} needs a stored object and a method name")
        obj = env[name]
        for part in method.split("."):
            if not hasattr(obj, part):
                raise HarnessError(f"{name} ({type(obj).__name__}) has no attribute {part!r}; "
                                   "keep the names from the stub")
            obj = getattr(obj, part)
        return obj
    if target in SCRIPT_TORCH:
        return SCRIPT_TORCH[target]()
    return resolve(target)


def op_script(req, resolve):
    env = {}
    if req.get("model") is not None:
        env["model"] = _build(req["model"], resolve)
        env["model"].eval()
    for name, target, args, kwargs in req["steps"]:
        req["_step"] = target  # names the step in an error report
        fn = _script_target(target, env, resolve)
        env[name] = fn(*_substitute(args, env), **_substitute(kwargs, env))
    req.pop("_step", None)
    reply = {name: env[name] for name in req.get("returns", [])}
    if req.get("state"):
        if "model" not in env or not isinstance(env["model"], torch.nn.Module):
            raise HarnessError("state=True needs a model")
        reply["state"] = {name: p.detach().clone() for name, p in env["model"].named_parameters()}
    return reply


OPS = {"call": op_call, "grad": op_grad, "module": op_module, "script": op_script}


def describe(exc: BaseException, roots: list[str]) -> dict:
    """Exception type, message and the last line of the student's own code it passed."""
    try:
        message = str(exc)
    except Exception:  # a student exception whose __str__ fails
        message = ""
    where, own = "", False
    for frame in traceback.extract_tb(exc.__traceback__):
        own = any(frame.filename.startswith(root) for root in roots)
        if own:
            where = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    # own: the innermost frame is the student's, so their code raised it (a check of their own)
    return {"type": type(exc).__name__, "message": message[:500], "where": where, "own": own}


def handle(request: dict, roots: list[str], resolve=import_target) -> dict:
    """Run one request; ``resolve`` turns a target name (``"masks.causal_mask"``) into the
    object it names."""
    op = OPS.get(request.get("op"))
    if op is None:
        return {"error": {"type": "HarnessError", "message": f"unknown operation {request.get('op')!r}", "where": ""}}
    try:
        return {"ok": op(request, resolve)}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
        if isinstance(exc, SystemExit):
            error = {"type": "SystemExit", "message": "the code called sys.exit()",
                     "where": describe(exc, roots)["where"]}
        else:
            error = describe(exc, roots)
        if isinstance(request.get("_step"), str):  # the script step that failed
            error["target"] = request["_step"]
        return {"error": error}
