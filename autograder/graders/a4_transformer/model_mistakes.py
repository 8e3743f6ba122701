"""The classic mistakes of the whole Transformer (and of its layers, seen through it),
recomputed in the grading process with the reference model's own modules to name what a
failed check most likely comes from."""

import math

from autograder import reference
from autograder.graders.a4_transformer.layer_mistakes import course_ops, mistake_specs
from autograder.graders.a4_transformer.layer_mistakes import variant as layer_variant
from autograder.grading import checks


def embed(model, embedding, tokens, kind):
    scale = math.sqrt(model.config.d_model)
    if kind == "no_scale":
        return model.positional(embedding(tokens))
    if kind == "scale_after_positions":
        return model.positional(embedding(tokens)) * scale
    return model.positional(embedding(tokens) * scale)


def _stack(layers, x, run, kind):
    """The layers one after the other, or (a mistake) each on the stack's input."""
    out = x
    for layer in layers:
        out = run(layer, x if kind == "not_chained" else out)
    return out


def variant_encode(model, src, kind=None):
    """(memory, src_mask) as the reference computes them, or as the mistake ``kind`` does."""
    masks = reference.load("masks")
    src_mask = masks.padding_mask(src, model.config.pad_id)
    x = embed(model, model.src_embed, src, kind)
    if kind != "encoder_skipped":
        x = _stack(model.encoder_layers, x, lambda layer, y: layer(y, None if kind == "encoder_unmasked" else src_mask),
                   "not_chained" if kind == "encoder_not_chained" else None)
    return (x if kind == "no_encoder_norm" else model.encoder_norm(x)), src_mask


def variant_decode(model, tgt, memory, src_mask, kind=None):
    """Logits as the reference decodes them, or as the mistake ``kind`` does."""
    masks = reference.load("masks")
    pad = model.config.pad_id
    tgt_mask = {"no_causal": masks.padding_mask(tgt, pad),
                "no_target_padding": masks.causal_mask(tgt.size(1))}.get(kind, masks.target_mask(tgt, pad))
    cross_mask = {"cross_target_mask": tgt_mask, "cross_unmasked": None}.get(kind, src_mask)
    x = embed(model, model.src_embed if kind == "source_embedding" else model.tgt_embed, tgt, kind)
    x = _stack(model.decoder_layers, x, lambda layer, y: layer(y, memory, tgt_mask, cross_mask),
               "not_chained" if kind == "decoder_not_chained" else None)
    return model.generator(x if kind == "no_decoder_norm" else model.decoder_norm(x))


def variant(model, src, tgt, kind=None):
    memory, src_mask = variant_encode(model, src, kind)
    return variant_decode(model, tgt, memory, src_mask, kind)


NOT_CHAINED = ("the layers are not chained: each encoder/decoder layer must take the previous layer's output",
               "las capas no están encadenadas: cada capa del codificador/decodificador toma la salida de la anterior")
ENCODE_MISTAKES = {
    "no_scale": ("embed does not scale the token embeddings by sqrt(d_model)",
                 "embed no escala los embeddings de los tokens por sqrt(d_model)"),
    "scale_after_positions": ("embed scales by sqrt(d_model) after adding the positions: scale the token embeddings, "
                              "then add the positions",
                              "embed escala por sqrt(d_model) después de sumar las posiciones: escala los embeddings "
                              "de los tokens y luego suma las posiciones"),
    "encoder_skipped": ("encode returns the embeddings, not the encoder layers' output, as memory",
                        "encode devuelve como memory los embeddings, no la salida de las capas del codificador"),
    "encoder_not_chained": NOT_CHAINED,
    "encoder_unmasked": ("the source padding mask is not passed to the encoder layers",
                         "la máscara de relleno del origen no llega a las capas del codificador"),
    "no_encoder_norm": ("encode does not apply the final encoder_norm to memory",
                        "encode no aplica la encoder_norm final a memory"),
}
DECODE_MISTAKES = {
    "no_scale": ENCODE_MISTAKES["no_scale"],
    "scale_after_positions": ENCODE_MISTAKES["scale_after_positions"],
    "no_causal": ("the decoder's self-attention is not causal: decode must give the layers target_mask(tgt, pad_id) "
                  "(padding AND causal), and each layer must pass it to self_attn",
                  "la autoatención del decodificador no es causal: decode debe dar a las capas target_mask(tgt, pad_id) "
                  "(relleno Y causal), y cada capa pasarla a self_attn"),
    "no_target_padding": ("the decoder's mask ignores target padding: use target_mask(tgt, pad_id) (padding AND causal)",
                          "la máscara del decodificador ignora el relleno del destino: usa target_mask(tgt, pad_id)"),
    "cross_target_mask": ("the decoder layers get the target mask for their cross-attention, which needs src_mask",
                          "las capas del decodificador reciben la máscara de destino para su atención cruzada, "
                          "que necesita src_mask"),
    "cross_unmasked": ("decode does not pass src_mask to the decoder layers, so they attend to source padding",
                       "decode no pasa src_mask a las capas del decodificador, así que atienden al relleno del origen"),
    "source_embedding": ("decode embeds the target tokens with src_embed; use tgt_embed",
                         "decode representa los tokens destino con src_embed; usa tgt_embed"),
    "decoder_not_chained": NOT_CHAINED,
    "no_decoder_norm": ("decode does not apply the final decoder_norm before the generator",
                        "decode no aplica la decoder_norm final antes del generator"),
}


def with_layer_mistake(model, decoder, styles, kind, run):
    """``run()`` with every encoder (or decoder) layer of ``model`` making one of the
    layers' classic mistakes: a mistake in layers.py shows in the whole model too."""
    layers = model.decoder_layers if decoder else model.encoder_layers
    for layer in layers:
        ops = course_ops(layer)
        if decoder:
            layer.forward = lambda x, memory, tgt_mask=None, src_mask=None, ops=ops: layer_variant(
                ops, x, memory, tgt_mask, src_mask, styles, kind)
        else:
            layer.forward = lambda x, mask=None, ops=ops: layer_variant(ops, x, None, mask, None, styles)
    try:
        return run()
    finally:
        for layer in layers:
            del layer.forward


def mistakes(model, src, tgt):
    """Every classic mistake, of the model or of its layers, as the logits it would give
    for ``src`` and ``tgt``."""
    found = [checks.Mistake(en, es, output=lambda kind=kind: variant(model, src, tgt, kind).detach())
             for kind, (en, es) in {**ENCODE_MISTAKES, **DECODE_MISTAKES}.items()]
    for decoder in (False, True):
        found += [checks.Mistake(en, es, output=lambda decoder=decoder, styles=styles, kind=kind: with_layer_mistake(
                      model, decoder, styles, kind, lambda: variant(model, src, tgt)).detach())
                  for en, es, styles, kind in mistake_specs(model.config.norm_first, decoder)]
    return found
