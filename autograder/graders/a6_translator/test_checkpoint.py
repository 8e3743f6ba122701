"""Hidden graders for a6_translator/checkpoint.py.

Models are reference Transformers with random weights and random sizes and options
(``helpers.model_and_spec``), built in the student's process from a spec, in eval mode,
with dropout on: a model reloaded in training mode gives other outputs. Files the
student's code writes and reads live in its process's scratch folder (``scratch_file``);
files this process writes (with the reference save_model: the documented format) travel
there as bytes. Nothing of the student's comes back but plain data: the outputs of the
saved model and of the reloaded one on the same batch, compared here exactly, the reloaded
model's mode and configuration field by field, the extra data, and the errors raised.

The file "saved on a GPU" is a reference checkpoint written with each tensor's location
tag set to "cuda:15" (what torch.save writes on a machine's sixteenth GPU): reading it
without map_location fails on a machine without that GPU, which a grading machine is.
The file that would run code holds an object whose unpickling sets a marked attribute on
``torch.nn.Module`` in the student's process; a later request reads it back, so a
load_model that unpickles unsafely is seen to have run the file's code, whatever it
raised afterwards.
"""

import dataclasses
import os
import tempfile
from unittest import mock

import pytest
import torch

from autograder import reference
from autograder.graders.a6_translator import variants
from autograder.graders.a6_translator.helpers import TARGET_SOUNDS, made_up, model_and_spec, source_batch, target_batch
from autograder.grading import checks

GPU = "cuda:15"
# What reading a dict of other keys (or another object) as the documented checkpoint raises.
FORMAT_ERRORS = ("KeyError", "TypeError", "AttributeError", "IndexError", "ValueError")


def _model(rng, **sizes):
    """A reference model with dropout on and random vocabulary sizes, and its spec. Unless
    ``sizes`` say otherwise, every option is away from TransformerConfig's default (dropout
    0.2-0.5, max_len 12-30, pre-norm, tied weights), so that a model rebuilt with a default
    in place of a saved value differs at every seed."""
    options = dict(dropout=0.1 * checks.randint(rng, 2, 5), max_len=checks.randint(rng, 12, 30), norm_first=True,
                   tie_weights=True)
    options.update(sizes)
    return model_and_spec(rng, checks.randint(rng, 8, 20), checks.randint(rng, 8, 20), dtype="float32", **options)


def _batch(rng, model):
    """A source batch and a decoder input batch for ``model``."""
    B, S, T = checks.randint(rng, 2, 4), checks.randint(rng, 3, 8), checks.randint(rng, 4, 9)
    src = source_batch(rng, B, S, model.config.src_vocab_size)
    tgt_in = target_batch(rng, B, T, model.config.tgt_vocab_size)[:, :-1]
    return src, tgt_in


def _extra(rng):
    """Plain data saved beside a model: vocabularies' itos lists, numbers, a flag, a nested dict."""
    return {"src_itos": variants.SPECIALS + made_up(rng, checks.randint(rng, 3, 8)),
            "tgt_itos": variants.SPECIALS + made_up(rng, checks.randint(rng, 3, 8), TARGET_SOUNDS),
            "epochs": checks.randint(rng, 1, 50), "loss": checks.randint(rng, 1, 999) / 100,
            "note": "año 2026, señal ñ", "history": [checks.randint(rng, 1, 99) / 10 for _ in range(3)],
            "options": {"lower": True, "max_words": None}}


def _fields():
    """The names of TransformerConfig's fields, each compared after a reload."""
    return [f.name for f in dataclasses.fields(reference.load("transformer").TransformerConfig)]


def _reloaded_steps(path, src, tgt_in):
    """Steps that load ``path`` with the student's load_model, run the model it gives on the
    batch and read its mode and its configuration, field by field."""
    return [["got", "checkpoint.load_model", [{"$": path}], {}],
            ["m", "$got.__getitem__", [0], {}],
            ["extra", "$got.__getitem__", [1], {}],
            ["training", "getattr", [{"$": "m"}, "training"], {}],
            ["after", "$m.__call__", [src, tgt_in], {}],
            ["config", "getattr", [{"$": "m"}, "config"], {}]] + [
            [f"c_{field}", "getattr", [{"$": "config"}, field], {}] for field in _fields()]


def _reloaded_returns():
    return ["extra", "training", "after"] + [f"c_{field}" for field in _fields()]


def _failed_load(student, failure, steps, spec=None, reference_file=False):
    """``failure`` of a script that loaded a checkpoint, naming what the error load_model
    raised says (the steps are run again, up to the first load_model, to read it), or else
    the shape of what load_model returned; a file written here (``reference_file``) that
    load_model cannot read as a dict of the documented keys is read in another format."""
    upto = steps[:next(i for i, step in enumerate(steps) if step[1] == "checkpoint.load_model") + 1]
    error = student.script_error(upto, model_spec=spec)
    found = variants.load_error(error)
    if found is None and error is not None and reference_file and error["type"] in FORMAT_ERRORS:
        found = checks.Mistake(*variants.FORMAT)
    if found is None and error is None:
        got = student.script(upto, model_spec=spec, returns=[upto[-1][0]])[upto[-1][0]]
        if not (isinstance(got, list) and len(got) == 2 and isinstance(got[1], dict)):
            found = checks.Mistake(*variants.NOT_A_PAIR)
    return failure.naming(found) if found else failure


def _check_reloaded(out, model, want, extra, call):
    """The reloaded model is in eval mode, has ``model``'s configuration, gives exactly
    ``want`` on the batch, and ``extra`` came back."""
    checks.expect(out["training"] is False,
                  f"{call}: the model it returns is in training mode (model.training is {out['training']!r})",
                  f"{call}: el modelo que devuelve está en modo de entrenamiento (model.training es "
                  f"{out['training']!r})", mistake=checks.Mistake(*variants.NO_EVAL_LOADED))
    config = dataclasses.asdict(model.config)
    wrong = {f: out[f"c_{f}"] for f in config if out[f"c_{f}"] != config[f]}
    checks.expect(not wrong, f"{call}: the reloaded model's config differs from the saved one's: "
                  + ", ".join(f"{f}={v!r} (saved {config[f]!r})" for f, v in wrong.items()),
                  f"{call}: la config del modelo recargado difiere de la del guardado: "
                  + ", ".join(f"{f}={v!r} (guardado {config[f]!r})" for f, v in wrong.items()),
                  mistake=checks.Mistake(*variants.OTHER_CONFIG))
    after = checks.tensor(out["after"], f"{call}: the reloaded model's output", want.shape, want.dtype)
    if not torch.equal(after, want):
        worst = (after.double() - want.double()).abs().max().item()
        raise checks.CheckFailure(
            f"{call}: the reloaded model's outputs differ from the saved model's on the same batch (largest "
            f"difference {worst:.3g}; they must be identical)",
            f"{call}: las salidas del modelo recargado difieren de las del modelo guardado con el mismo lote "
            f"(diferencia máxima {checks.fmt(worst, '.3g', 'es')}; deben ser idénticas)",
        ).naming(checks.Mistake(*variants.NOT_THE_WEIGHTS))
    try:
        checks.plain_equal(out["extra"], extra, f"{call}: the extra data")
    except checks.CheckFailure as failure:
        lost = bool(extra) and out["extra"] in ({}, None)
        raise (failure.naming(checks.Mistake(*variants.EXTRA_LOST)) if lost else failure) from None


def _round_trip(student, rng, models):
    """Save each (model, spec, extra) with the student's save_model, load it with load_model
    and check the model that comes back; one script per model (a spec builds one model)."""
    for i, (model, spec, extra) in enumerate(models):
        src, tgt_in = _batch(rng, model)
        steps = [["path", "scratch_file", [f"model{i}.pt"], {}],
                 ["before", "$model.__call__", [src, tgt_in], {}],
                 ["saved", "checkpoint.save_model", [{"$": "model"}, {"$": "path"}], extra],
                 *_reloaded_steps("path", src, tgt_in)]
        call = f"save_model(model, path{', **extra' if extra else ''}) then load_model(path)"
        try:
            out = student.script(steps, model_spec=spec, returns=["before", *_reloaded_returns()])
        except checks.CheckFailure as failure:
            raise _failed_load(student, failure, steps, spec) from None
        want = checks.tensor(out["before"], "the saved model's output", dtype=torch.float32)
        _check_reloaded(out, model, want, extra, call)


@pytest.mark.points(2)
def test_round_trip(student, rng):
    """Does load_model give back, from save_model's file, a model in eval mode with identical outputs and the extra data? / ¿Devuelve load_model, a partir del archivo de save_model, un modelo en modo de evaluación con salidas idénticas y los datos extra?"""
    model, spec = _model(rng)
    _round_trip(student, rng, [(model, spec, _extra(rng))])
    model, spec = _model(rng)
    _round_trip(student, rng, [(model, spec, {})])


@pytest.mark.points(1)
def test_other_sizes(student, rng):
    """Does load_model rebuild models of other sizes and options, each with the configuration it was saved with? / ¿Reconstruye load_model modelos de otros tamaños y opciones, cada uno con la configuración con la que se guardó?"""
    small = _model(rng, d_model=8, num_heads=checks.randint(rng, 1, 2), num_layers=1, d_ff=checks.randint(rng, 8, 24),
                   norm_first=False, tie_weights=False)
    large = _model(rng, d_model=24, num_heads=(2, 3, 4, 6)[checks.randint(rng, 0, 3)], num_layers=3, d_ff=checks.randint(rng, 24, 48),
                   norm_first=True)
    _round_trip(student, rng, [(*small, {"size": "small"}), (*large, {"size": "large"})])


def _file_bytes(write) -> torch.Tensor:
    """The bytes of the file ``write(path)`` makes, as a uint8 tensor (what carries them to
    the student's process, where ``scratch_file`` writes them back)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        write(path)
        with open(path, "rb") as f:
            return torch.frombuffer(bytearray(f.read()), dtype=torch.uint8).clone()


def _reference_file(model, *, location=None, **extra) -> torch.Tensor:
    """The reference save_model's file for ``model``, each tensor tagged with ``location``
    when given (as torch.save tags the tensors of a GPU)."""
    save_model = reference.load("checkpoint").save_model
    if location is None:
        return _file_bytes(lambda path: save_model(model, path, **extra))
    with mock.patch.object(torch.serialization, "location_tag", lambda storage: location):
        return _file_bytes(lambda path: save_model(model, path, **extra))


def _raw_file(checkpoint) -> torch.Tensor:
    """The file ``torch.save(checkpoint)`` makes."""
    return _file_bytes(lambda path: torch.save(checkpoint, path))


def _reference_output(model, src, tgt_in):
    model.eval()
    with torch.no_grad():
        return model(src, tgt_in)


@pytest.mark.points(2)
def test_loads_a_file_saved_on_a_gpu(student, rng):
    """Does load_model read a checkpoint in the documented format whose tensors were saved on a GPU, here on the CPU, by default and with map_location="cpu"? / ¿Lee load_model un checkpoint en el formato documentado cuyos tensores se guardaron en una GPU, aquí en la CPU, por defecto y con map_location="cpu"?"""
    model, _ = _model(rng)
    extra = _extra(rng)
    data = _reference_file(model, location=GPU, **extra)
    src, tgt_in = _batch(rng, model)
    want = _reference_output(model, src, tgt_in)
    steps = [["path", "scratch_file", ["gpu.pt", data], {}], *_reloaded_steps("path", src, tgt_in),
             ["cpu_got", "checkpoint.load_model", [{"$": "path"}], {"map_location": "cpu"}],
             ["cpu_m", "$cpu_got.__getitem__", [0], {}],
             ["cpu_after", "$cpu_m.__call__", [src, tgt_in], {}],
             ["cpu_training", "getattr", [{"$": "cpu_m"}, "training"], {}]]
    call = "load_model(path) on a file saved on a GPU"
    try:
        out = student.script(steps, returns=[*_reloaded_returns(), "cpu_after", "cpu_training"])
    except checks.CheckFailure as failure:
        raise _failed_load(student, failure, steps, reference_file=True) from None
    # The same computation as this process's, on the same weights: close, not bit for bit
    # (two processes may sum in another order).
    after = checks.tensor(out["after"], f"{call}: the reloaded model's output", want.shape, want.dtype)
    checks.expect(out["training"] is False, f"{call}: the model it returns is in training mode",
                  f"{call}: el modelo que devuelve está en modo de entrenamiento",
                  mistake=checks.Mistake(*variants.NO_EVAL_LOADED))
    checks.close(after, want, f"{call}: the reloaded model's output", atol=1e-5, rtol=1e-5)
    config = dataclasses.asdict(model.config)
    wrong = {f: out[f"c_{f}"] for f in config if out[f"c_{f}"] != config[f]}
    checks.expect(not wrong, f"{call}: the reloaded model's config differs from the file's: {wrong}",
                  f"{call}: la config del modelo recargado difiere de la del archivo: {wrong}",
                  mistake=checks.Mistake(*variants.OTHER_CONFIG))
    checks.plain_equal(out["extra"], extra, f"{call}: the extra data")
    checks.close(out["cpu_after"], want, 'load_model(path, map_location="cpu"): the reloaded model\'s output',
                 atol=1e-5, rtol=1e-5)


class _Trap:
    """Unpickled, it sets ``torch.nn.Module.<mark> = True``: code run by merely reading a file."""

    def __init__(self, mark):
        self.mark = mark

    def __reduce__(self):
        return (setattr, (torch.nn.Module, self.mark, True))


@pytest.mark.points(1)
def test_refuses_a_file_that_runs_code(student, rng):
    """Does load_model read a valid checkpoint but refuse, with pickle.UnpicklingError and before running it, one that holds an object carrying code? / ¿Lee load_model un checkpoint válido pero rechaza, con pickle.UnpicklingError y antes de ejecutarlo, uno que contiene un objeto con código?"""
    model, spec = _model(rng, norm_first=False, tie_weights=False)  # a valid file that any rebuild reads
    mark = f"_grader_mark_{checks.randint(rng, 0, 2**31)}"
    checkpoint = {"config": dataclasses.asdict(model.config), "state_dict": model.state_dict(),
                  "extra": {"epochs": 3, "trap": _Trap(mark)}}
    trap = _raw_file(checkpoint)
    error = student.script_error([["path", "scratch_file", ["trap.pt", trap], {}],
                                  ["got", "checkpoint.load_model", [{"$": "path"}], {}]])
    ran = student.script([["ran", "getattr", [{"$": "model"}, mark, False], {}]], model_spec=spec,
                         returns=["ran"])["ran"]
    call = "load_model(path) on a checkpoint whose extra data holds an object that runs code when unpickled"
    llamada = "load_model(path) con un checkpoint cuyos datos extra contienen un objeto que ejecuta código al deserializarse"
    checks.expect(ran is False, f"{call}: reading the file ran that code", f"{llamada}: leer el archivo ejecutó ese código",
                  mistake=checks.Mistake(*variants.UNSAFE))
    benign = _reference_file(model, epochs=3)
    steps = [["path", "scratch_file", ["model.pt", benign], {}], ["got", "checkpoint.load_model", [{"$": "path"}], {}]]
    ok = student.script_error(steps)
    checks.expect(ok is None, f"load_model(path) failed ({ok and ok['type']}) on a valid checkpoint in the documented "
                  "format; it must read that one, and refuse only the file holding other objects",
                  f"load_model(path) falló ({ok and ok['type']}) con un checkpoint válido en el formato documentado; "
                  "debe leerlo, y rechazar solo el archivo que contiene otros objetos",
                  mistake=variants.load_error(ok) or checks.Mistake(*variants.FORMAT))
    checks.expect(error is not None and error["type"] == "UnpicklingError",
                  f"{call}: expected pickle.UnpicklingError (torch.load(..., weights_only=True) refuses the object), "
                  f"{'it returned' if error is None else 'got ' + error['type']}",
                  f"{llamada}: se esperaba pickle.UnpicklingError (torch.load(..., weights_only=True) rechaza el "
                  f"objeto), {'devolvió un valor' if error is None else 'se obtuvo ' + error['type']}",
                  mistake=checks.Mistake(*variants.UNSAFE))


@pytest.mark.points(1)
def test_refuses_weights_that_do_not_fit(student, rng):
    """Does load_model raise RuntimeError for a checkpoint whose weights have names its configuration lacks, or lack some? / ¿Lanza load_model RuntimeError con un checkpoint cuyos pesos tienen nombres que su configuración no tiene, o les faltan algunos?"""
    layers = checks.randint(rng, 1, 2)
    short, _ = _model(rng, num_layers=layers, norm_first=False, tie_weights=False)
    config = dataclasses.asdict(short.config)
    torch.manual_seed(checks.randint(rng, 0, 2**31))
    t = reference.load("transformer")
    long = t.Transformer(t.TransformerConfig(**{**config, "num_layers": layers + 1}))
    files = {"the weights of one more layer than its config has": (config, long.state_dict()),
             "the weights of one layer fewer than its config has": (dataclasses.asdict(long.config), short.state_dict())}
    benign = _reference_file(short)
    ok = student.script_error([["path", "scratch_file", ["model.pt", benign], {}],
                               ["got", "checkpoint.load_model", [{"$": "path"}], {}]])
    checks.expect(ok is None, f"load_model(path) failed ({ok and ok['type']}) on a valid checkpoint in the documented "
                  "format; it must read that one, and refuse only weights that do not fit",
                  f"load_model(path) falló ({ok and ok['type']}) con un checkpoint válido en el formato documentado; "
                  "debe leerlo, y rechazar solo los pesos que no encajan",
                  mistake=variants.load_error(ok) or checks.Mistake(*variants.FORMAT))
    for what, (cfg, state) in files.items():
        data = _raw_file({"config": cfg, "state_dict": state, "extra": {}})
        error = student.script_error([["path", "scratch_file", ["bad.pt", data], {}],
                                      ["got", "checkpoint.load_model", [{"$": "path"}], {}]])
        checks.expect(error is not None and error["type"] == "RuntimeError",
                      f"load_model(path) on a checkpoint holding {what}: expected RuntimeError (load_state_dict "
                      f"refuses them), {'it returned a model' if error is None else 'got ' + error['type']}",
                      f"load_model(path) con un checkpoint con pesos que no encajan con su config ({what}): se "
                      "esperaba RuntimeError (load_state_dict los rechaza), "
                      f"{'devolvió un modelo' if error is None else 'se obtuvo ' + error['type']}",
                      mistake=checks.Mistake(*variants.NOT_STRICT) if error is None else None)
