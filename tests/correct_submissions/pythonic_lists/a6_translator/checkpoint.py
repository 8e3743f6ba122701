"""Saving a trained model to one file, and loading it back on any machine.

Lecture 003 keeps only the weights, ``torch.save(model.state_dict(), path)``. Weights
alone cannot be used later: rebuilding the model needs its configuration (how many
layers, which d_model, ...) before the weights fit in it, and translating needs the
vocabularies too. A checkpoint here is one file that holds one dict:

    {"config": dataclasses.asdict(model.config),   # plain numbers and booleans
     "state_dict": model.state_dict(),             # every parameter AND buffer, by name
     "extra": {"src_itos": [...], ...}}            # plain data saved beside the model

It is read back with ``torch.load(path, map_location=..., weights_only=True)``:

- a ``.pt`` file is a pickle, and a pickle may name any function to call while it is read:
  with ``weights_only=False``, opening a checkpoint someone else made can run their code
  on your machine. ``weights_only=True`` reads tensors and plain data only, and refuses
  anything else before running it;
- every tensor remembers the device it was saved from: a file saved on a GPU asks for that
  GPU, and fails on a machine without one, unless ``map_location`` says where to put it.
"""

import torch

from transformer import Transformer, TransformerConfig


def save_model(model, path, **extra):
    """Save a model's configuration and weights, and ``extra`` data, to one file.

    Args:
        model: the course's Transformer; ``model.config`` is its TransformerConfig.
        path: the file to write (a str or a pathlib.Path), e.g. ``"translator.pt"``.
        **extra: plain data to keep beside the model, e.g. ``src_itos=src_vocab.itos``:
            str, int, float, bool, None, lists, tuples and dicts of them, tensors. An
            object of another class (a whole Vocab) would make the file unreadable with
            ``weights_only=True``: save its plain parts instead.

    Returns:
        None. The file holds the dict ``{"config": dataclasses.asdict(model.config),
        "state_dict": model.state_dict(), "extra": extra}``.
    """
    # Pista: (~2 líneas) un solo torch.save de un dict con tres claves: "config" con
    # dataclasses.asdict(model.config) (un dict de números, no el objeto TransformerConfig,
    # que weights_only=True no sabe leer), "state_dict" con model.state_dict() (parámetros
    # Y buffers como positional.pe; list(model.parameters()) no basta) y "extra" con extra.
    # Hint: (~2 lines) one torch.save of a dict with three keys: "config" holding
    # dataclasses.asdict(model.config) (a dict of numbers, not the TransformerConfig object,
    # which weights_only=True cannot read), "state_dict" holding model.state_dict()
    # (parameters AND buffers such as positional.pe; list(model.parameters()) is not
    # enough) and "extra" holding extra.
    config = dict(vars(model.config))  # a dataclass keeps its fields in __dict__
    torch.save({"config": config, "state_dict": model.state_dict(),
                "extra": {key: value for key, value in extra.items()}}, path)


def load_model(path, map_location="cpu"):
    """Rebuild a model saved by :func:`save_model`, ready to use.

    Args:
        path: a file written by ``save_model``.
        map_location: where ``torch.load`` puts the tensors it reads, as in ``torch.load``.
            ``"cpu"`` reads a file saved on a GPU on a machine without one. The model is
            built on the CPU; ``model.to(device)`` moves it afterwards.

    Returns:
        ``(model, extra)``: a Transformer built with the saved configuration, holding the
        saved weights, in eval mode; and the dict of extra data saved with it (``{}`` when
        there was none).

    Raises:
        pickle.UnpicklingError: the file holds something besides tensors and plain data
            (``torch.load(..., weights_only=True)`` refuses it before running any of it).
        RuntimeError: the weights do not fit the configuration (a name missing or
            unexpected, another shape); ``load_state_dict``'s default ``strict=True`` says
            so rather than leave part of the model with random weights.
    """
    # Pista: (~5 líneas) torch.load(path, map_location=map_location, weights_only=True);
    # reconstruye con Transformer(TransformerConfig(**config)); carga los pesos con
    # model.load_state_dict (estricto: strict=False callaría los pesos que faltan o sobran);
    # model.eval() (dropout apagado); devuelve (model, extra). Si torch.load falla y su
    # mensaje sugiere weights_only=False, hazlo solo con un archivo que hayas creado tú.
    # Hint: (~5 lines) torch.load(path, map_location=map_location, weights_only=True);
    # rebuild with Transformer(TransformerConfig(**config)); load the weights with
    # model.load_state_dict (strict: strict=False would hide missing or unexpected
    # weights); model.eval() (dropout off); return (model, extra). If torch.load fails and
    # its message suggests weights_only=False, do that only with a file you made yourself.
    checkpoint = torch.load(path, map_location=map_location, weights_only=True)
    config, state, extra = (checkpoint[key] for key in ("config", "state_dict", "extra"))
    model = Transformer(TransformerConfig(**config))
    model.load_state_dict(state)
    model.eval()
    return model, extra
