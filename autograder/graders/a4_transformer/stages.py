"""The Transformer's stages, run one by one with the student's code on the reference's
inputs, to say where a model whose logits are off first goes wrong (``grading.localise``).

The stages, in the order of the forward pass: the source embedding, each encoder layer,
the encoder's final norm, the target embedding, each decoder layer, the decoder's final
norm and the generator; then the student's own ``encode`` and ``decode`` chaining the
reference's stages. Only run after a failed check, so it costs nothing on correct code.
"""

import math

import torch

from autograder import reference
from autograder.grading import checks, localise, shapes
from autograder.sandbox.child.harness import _load

ATOL, RTOL = 1e-6, 1e-6
AXES = ("batch", "position", "feature")


def _hints(config, **tensors) -> shapes.Hints:
    d_model = config["d_model"]
    return shapes.Hints(axes=AXES, num_heads=config["num_heads"],
                        constants={"sqrt(d_model)": math.sqrt(d_model), "d_model": float(d_model),
                                   "sqrt(d_k)": math.sqrt(d_model // config["num_heads"])},
                        tensors=tensors)


def _embedding_hints(config, model, embedding, tokens) -> shapes.Hints:
    with torch.no_grad():
        return _hints(config, **{"the positional encoding": model.positional.pe[:tokens.size(1)].double(),
                                 "the token embedding embedding(tokens)":
                                 (embedding(tokens).double(), math.sqrt(config["d_model"]))})


def _reference_stages(model, src, tgt):
    """Every stage's input and output in the reference model, in eval mode."""
    masks = reference.load("masks")
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            src_mask = masks.padding_mask(src, model.config.pad_id)
            tgt_mask = masks.target_mask(tgt, model.config.pad_id)
            out = {"src_mask": src_mask, "tgt_mask": tgt_mask, "src_embed": model.embed(model.src_embed, src)}
            x = out["src_embed"]
            for i, layer in enumerate(model.encoder_layers):
                out[f"enc_in{i}"] = x
                x = out[f"enc{i}"] = layer(x, src_mask)
            out["enc_norm_in"] = x
            memory = out["memory"] = model.encoder_norm(x)
            y = out["tgt_embed"] = model.embed(model.tgt_embed, tgt)
            for i, layer in enumerate(model.decoder_layers):
                out[f"dec_in{i}"] = y
                y = out[f"dec{i}"] = layer(y, memory, tgt_mask, src_mask)
            out["dec_norm_in"] = y
            out["dec_norm"] = model.decoder_norm(y)
            out["logits"] = model.generator(out["dec_norm"])
    finally:
        model.train(was)
    return out


def first_difference(student, model_spec: dict, config: dict, model, src, tgt) -> tuple[str, str] | None:
    """Where the student's Transformer first differs from the reference on (src, tgt)."""
    ref = _reference_stages(model, src, tgt)
    n = len(model.encoder_layers)
    steps = [["src_embedding", "getattr", [{"$": "model"}, "src_embed"], {}],
             ["tgt_embedding", "getattr", [{"$": "model"}, "tgt_embed"], {}],
             ["src_embed", "$model.embed", [{"$": "src_embedding"}, src], {}]]
    steps += [[f"enc{i}", f"$model.encoder_layers.{i}", [ref[f"enc_in{i}"], ref["src_mask"]], {}] for i in range(n)]
    steps += [["memory", "$model.encoder_norm", [ref["enc_norm_in"]], {}],
              ["tgt_embed", "$model.embed", [{"$": "tgt_embedding"}, tgt], {}]]
    steps += [[f"dec{i}", f"$model.decoder_layers.{i}",
               [ref[f"dec_in{i}"], ref["memory"], ref["tgt_mask"], ref["src_mask"]], {}] for i in range(n)]
    steps += [["dec_norm", "$model.decoder_norm", [ref["dec_norm_in"]], {}],
              ["logits", "$model.generator", [ref["dec_norm"]], {}],
              ["encoded", "$model.encode", [src], {}],
              ["decoded", "$model.decode", [tgt, ref["memory"], ref["src_mask"]], {}]]
    names = [step[0] for step in steps if step[1] != "getattr"]
    try:
        got = student.script(steps, model_spec=model_spec, returns=names)
    except checks.CheckFailure:  # a stage that cannot run alone: nothing to localise with
        return None
    encoded = got["encoded"] if isinstance(got["encoded"], list) and len(got["encoded"]) == 2 else [None, None]
    stages = [localise.Stage("the source embedding, embed(src_embed, src) = embedding × sqrt(d_model) + positions",
                             "el embedding de origen, embed(src_embed, src) = embedding × sqrt(d_model) + posiciones",
                             got["src_embed"], ref["src_embed"], _embedding_hints(config, model, model.src_embed, src))]

    def layer(side, es, i, args, tensors):  # side: "encoder" or "decoder"; es: its Spanish name
        cls, layers = f"layers.{side.capitalize()}Layer", getattr(model, f"{side}_layers")
        return localise.Stage(f"{side} layer {i} ({cls})", f"la capa {i} del {es} ({cls})", got[f"{side[:3]}{i}"],
                              ref[f"{side[:3]}{i}"], _hints(config, **tensors),
                              deeper=lambda found: _in_layer(found, student, model_spec, layers[i], args, tensors,
                                                             (f"{side}_layers", str(i))))

    stages += [layer("encoder", "codificador", i, [ref[f"enc_in{i}"], ref["src_mask"]],
                     {"the layer's input x": ref[f"enc_in{i}"]}) for i in range(n)]
    stages += [localise.Stage("the encoder's final norm (encoder_norm)", "la norma final del codificador (encoder_norm)",
                              got["memory"], ref["memory"], _hints(config, **{"the norm's input": ref["enc_norm_in"]})),
               localise.Stage("the target embedding, embed(tgt_embed, tgt)", "el embedding de destino, embed(tgt_embed, tgt)",
                              got["tgt_embed"], ref["tgt_embed"], _embedding_hints(config, model, model.tgt_embed, tgt))]
    stages += [layer("decoder", "decodificador", i,
                     [ref[f"dec_in{i}"], ref["memory"], ref["tgt_mask"], ref["src_mask"]],
                     {"the layer's input x": ref[f"dec_in{i}"], "the memory": ref["memory"]}) for i in range(n)]
    stages += [localise.Stage("the decoder's final norm (decoder_norm)", "la norma final del decodificador (decoder_norm)",
                              got["dec_norm"], ref["dec_norm"], _hints(config, **{"the norm's input": ref["dec_norm_in"]})),
               localise.Stage("the generator (the output projection)", "el generador (la proyección de salida)",
                              got["logits"], ref["logits"], _hints(config)),
               localise.Stage(
                   "encode(src): each of its stages is right alone, so they are chained wrongly (each layer takes the "
                   "previous layer's output and the source padding mask; encoder_norm comes last; the memory is "
                   "the first value returned)",
                   "encode(src): cada etapa está bien por separado, así que se encadenan mal (cada capa toma la "
                   "salida de la anterior y la máscara de relleno del origen; encoder_norm va al final; la memoria "
                   "es el primer valor devuelto)", encoded[0], ref["memory"], _hints(config)),
               localise.Stage(
                   "decode(tgt, memory, src_mask): each of its stages is right alone, so they are chained wrongly "
                   "(target_mask of tgt for the self-attention, memory and src_mask for the cross-attention of every "
                   "layer, each layer on the previous one's output, decoder_norm then the generator)",
                   "decode(tgt, memory, src_mask): cada etapa está bien por separado, así que se encadenan mal "
                   "(target_mask de tgt para la autoatención, memory y src_mask para la atención cruzada de cada "
                   "capa, cada capa sobre la salida de la anterior, decoder_norm y luego el generador)",
                   got["decoded"], ref["logits"], _hints(config))]
    return localise.first_difference(stages, atol=ATOL, rtol=RTOL, chained=(
        "every stage, encode and decode agree with the reference: forward must return "
        "decode(tgt, *encode(src)), the memory and the source mask that encode returned",
        "todas las etapas, encode y decode coinciden con la referencia: forward debe devolver "
        "decode(tgt, *encode(src)), con la memoria y la máscara de origen que devolvió encode"))


def layer_difference(student, model_spec: dict, ref_layer, args: list, tensors: dict, path=()):
    """``localise.traced_difference`` at the Transformer's tolerance and axis names."""
    return localise.traced_difference(student, model_spec, ref_layer, args, tensors, path, atol=ATOL, rtol=RTOL,
                                      axes=AXES)


def _in_layer(found, student, model_spec, ref_layer, args, tensors, path):
    """A stage that is a layer: say which of its sub-layers goes wrong, when one does."""
    traced, inner = layer_difference(student, model_spec, ref_layer, args, tensors, path)
    if not traced:  # nothing more can be said of its inside
        return found
    if not inner:
        return (f"{found[0]}; its sub-layers all get the reference's inputs, so the layer's output is combined "
                "differently at the end (the last residual sum or norm)",
                f"{found[1]}; todas sus subcapas reciben las entradas de la referencia, así que la salida de la capa "
                "se combina de otra forma al final (la última suma residual o norma)")
    return f"{found[0]}; {inner[0]}", f"{found[1]}; {inner[1]}"


def layer_localiser(student, target: str, init_args: list, init_kwargs: dict, state: dict, args: list, tensors: dict):
    """For checks.close in the layer graders: which sub-layer of the student's
    ``layers.EncoderLayer``/``DecoderLayer`` first differs from the reference layer's."""
    def find():
        ref_layer = getattr(reference.load("layers"), target.split(".")[-1])(
            *init_args, **{**init_kwargs, "dropout": 0.0}).double()
        _load(ref_layer, state, target)
        spec = {"target": target, "init_args": init_args, "init_kwargs": init_kwargs, "state": state,
                "dtype": "float64"}
        return layer_difference(student, spec, ref_layer, args, tensors)[1]
    return find
