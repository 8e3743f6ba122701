"""Public tests for checkpoint.py. Run them with ``pytest assignments/a6_translator``."""

import dataclasses
import pickle
from unittest import mock

import pytest
import torch

from checkpoint import load_model, save_model
from transformer import Transformer, TransformerConfig

# Small, with dropout on: a model left in training mode gives other outputs at every call.
SMALL = dict(src_vocab_size=11, tgt_vocab_size=13, d_model=16, num_heads=2, num_layers=2, d_ff=32, dropout=0.1,
             max_len=12, norm_first=True)
SRC = torch.tensor([[4, 5, 6, 7, 0], [8, 9, 10, 0, 0]])
TGT_IN = torch.tensor([[1, 4, 5, 6], [1, 7, 0, 0]])
EXTRA = {"src_itos": ["<pad>", "<sos>", "<eos>", "<unk>", "hello"], "epochs": 8, "loss": 0.25}


def _model(**changes):
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(**{**SMALL, **changes}))
    return model.eval()


def _outputs(model):
    with torch.no_grad():
        return model(SRC, TGT_IN)


def _loaded(path, **kwargs):
    got = load_model(path, **kwargs)
    assert isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], Transformer), (
        f"load_model returned {type(got).__name__}; it must return a pair (model, extra), the model a Transformer. / "
        f"load_model devolvió {type(got).__name__}; debe devolver un par (model, extra), el modelo un Transformer.")
    return got


def test_round_trip_gives_identical_outputs(tmp_path):
    """Does the reloaded model give exactly the saved model's outputs, in eval mode, with the extra data?"""
    model = _model()
    want = _outputs(model)
    save_model(model, tmp_path / "model.pt", **EXTRA)
    again, extra = _loaded(tmp_path / "model.pt")
    assert not again.training and not any(m.training for m in again.modules()), (
        "The reloaded model is in training mode: call model.eval() before returning it, or dropout changes every "
        "output. / El modelo recargado está en modo de entrenamiento: llama a model.eval() antes de devolverlo, o el "
        "dropout cambia cada salida.")
    got = _outputs(again)
    assert torch.equal(got, want), (
        f"The reloaded model's outputs differ from the saved model's (largest difference "
        f"{(got - want).abs().max().item():.3g}): save model.state_dict() and load it with model.load_state_dict. / "
        f"Las salidas del modelo recargado difieren de las del modelo guardado (diferencia máxima "
        f"{(got - want).abs().max().item():.3g}): guarda model.state_dict() y cárgalo con model.load_state_dict.")
    assert extra == EXTRA, (
        f"load_model gave the extra data {extra!r}, expected {EXTRA!r}: save the keyword arguments of save_model "
        f"under \"extra\" and return them. / load_model dio los datos extra {extra!r}, se esperaba {EXTRA!r}: guarda "
        "los argumentos con nombre de save_model en \"extra\" y devuélvelos.")
    save_model(model, tmp_path / "bare.pt")
    assert _loaded(tmp_path / "bare.pt")[1] == {}, (
        "Without extra data, load_model must give {} as extra. / Sin datos extra, load_model debe dar {} como extra.")


def test_config_is_restored_for_other_sizes(tmp_path):
    """Does load_model rebuild models of other sizes and options, each with its own saved configuration?"""
    for changes in ({"d_model": 8, "num_layers": 1, "d_ff": 16, "norm_first": False},
                    {"d_model": 24, "num_heads": 3, "num_layers": 3, "tie_weights": True, "max_len": 30}):
        model = _model(**changes)
        save_model(model, tmp_path / "model.pt")
        again, _ = _loaded(tmp_path / "model.pt")
        want = dataclasses.asdict(model.config)
        got = dataclasses.asdict(again.config)
        assert got == want, (
            f"The reloaded model's config is {got}, expected {want}: save dataclasses.asdict(model.config) and "
            f"rebuild with Transformer(TransformerConfig(**config)). / La configuración del modelo recargado es {got}, "
            f"se esperaba {want}: guarda dataclasses.asdict(model.config) y reconstruye con "
            "Transformer(TransformerConfig(**config)).")
        assert torch.equal(_outputs(again), _outputs(model)), (
            f"With {changes}, the reloaded model's outputs differ from the saved model's. / Con {changes}, las salidas "
            "del modelo recargado difieren de las del modelo guardado.")


def test_a_file_saved_on_a_gpu_loads_on_the_cpu(tmp_path):
    """Does load_model read a file whose tensors were saved on a GPU, on a machine without that GPU?"""
    model = _model()
    # torch.save writes each tensor's device beside it; this is what it writes on a machine's 16th GPU.
    with mock.patch.object(torch.serialization, "location_tag", lambda storage: "cuda:15"):
        save_model(model, tmp_path / "gpu.pt", note="saved on a GPU")
    with pytest.raises(RuntimeError):  # the file really asks for a GPU this machine does not have
        torch.load(tmp_path / "gpu.pt", weights_only=True)
    for kwargs in ({}, {"map_location": "cpu"}):
        call = 'load_model(path, map_location="cpu")' if kwargs else "load_model(path)"
        try:
            again, extra = _loaded(tmp_path / "gpu.pt", **kwargs)
        except RuntimeError as error:
            raise AssertionError(
                f"{call} failed on a file saved on a GPU ({error.__class__.__name__}): pass "
                f"map_location=map_location on to torch.load. / {call} falló con un archivo guardado en una GPU "
                f"({error.__class__.__name__}): pasa map_location=map_location a torch.load.") from None
        assert all(p.device.type == "cpu" for p in again.parameters()), (
            "The reloaded model must be on the CPU. / El modelo recargado debe estar en la CPU.")
        assert torch.equal(_outputs(again), _outputs(model)) and extra == {"note": "saved on a GPU"}, (
            "The model read from the GPU file differs from the one saved. / El modelo leído del archivo de GPU "
            "difiere del guardado.")


class _Trap:
    """An object whose unpickling calls print: any function could stand in its place."""

    def __reduce__(self):
        return (print, ("this checkpoint just ran code on your machine",))


def test_a_file_holding_other_objects_is_refused(tmp_path, capsys):
    """Does load_model refuse (pickle.UnpicklingError) a checkpoint that would run code when read?"""
    model = _model()
    checkpoint = {"config": dataclasses.asdict(model.config), "state_dict": model.state_dict(),
                  "extra": {"trap": _Trap()}}
    torch.save(checkpoint, tmp_path / "trap.pt")
    try:
        load_model(tmp_path / "trap.pt")
        raised = None
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 - which exception it was is the test
        raised = error
    assert "just ran code" not in capsys.readouterr().out, (
        "Loading the checkpoint ran code it carried (it printed a message): load with torch.load(..., "
        "weights_only=True), which reads tensors and plain data only. / Cargar el checkpoint ejecutó código que "
        "traía (imprimió un mensaje): carga con torch.load(..., weights_only=True), que solo lee tensores y datos "
        "simples.")
    assert isinstance(raised, pickle.UnpicklingError), (
        f"load_model {'returned' if raised is None else 'raised ' + type(raised).__name__} on a checkpoint holding "
        "an object that is not plain data; torch.load(..., weights_only=True) refuses it with "
        "pickle.UnpicklingError: let that error through. / load_model "
        f"{'devolvió un valor' if raised is None else 'lanzó ' + type(raised).__name__} con un checkpoint que "
        "contiene un objeto que no es un dato simple; torch.load(..., weights_only=True) lo rechaza con "
        "pickle.UnpicklingError: deja pasar ese error.")


def test_weights_that_do_not_fit_are_an_error(tmp_path):
    """Does load_model raise RuntimeError when the weights have names the configuration lacks, or lack some?"""
    two = _model()
    one = _model(num_layers=1)
    for name, state in (("extra layer", two.state_dict()), ("missing layer", one.state_dict())):
        config = dataclasses.asdict((one if name == "extra layer" else two).config)
        torch.save({"config": config, "state_dict": state, "extra": {}}, tmp_path / "bad.pt")
        try:
            load_model(tmp_path / "bad.pt")
        except RuntimeError:
            continue
        pytest.fail(
            f"load_model accepted weights that do not fit the configuration ({name}): keep load_state_dict's "
            "default strict=True, which refuses them, rather than leave part of the model random. / "
            f"load_model aceptó pesos que no encajan con la configuración ({name}): conserva el strict=True por "
            "defecto de load_state_dict, que los rechaza, en lugar de dejar parte del modelo al azar.")
