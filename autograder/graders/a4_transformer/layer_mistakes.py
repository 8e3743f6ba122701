"""The classic mistakes of the encoder and decoder layers, recomputed in the grading
process from torch's layers (the layer graders) or the reference layers (the model
graders) to name what a failed check most likely comes from."""

import itertools

import torch

from autograder.grading import checks


def _attend(mha, query, key, value, keep):
    """torch attention with the course's mask (True = may attend, broadcastable)."""
    B, T_q, T_k, h = query.size(0), query.size(1), key.size(1), mha.num_heads
    attn_mask = None if keep is None else (~keep).expand(B, h, T_q, T_k).reshape(B * h, T_q, T_k)
    return mha(query, key, value, attn_mask=attn_mask, need_weights=False)[0]


# How a sub-layer f with LayerNorm n updates x: the two right orders, and without residual.
STYLES = {
    "post": lambda x, f, n: n(x + f(x)),
    "pre": lambda x, f, n: x + f(n(x)),
    "post_no_residual": lambda x, f, n: n(f(x)),
    "pre_no_residual": lambda x, f, n: f(n(x)),
}


def torch_ops(layer):
    """The parts of a torch layer that :func:`variant` recombines."""
    cross = getattr(layer, "multihead_attn", None)
    return {
        "self_attn": lambda q, k, v, keep: _attend(layer.self_attn, q, k, v, keep),
        "cross_attn": None if cross is None else lambda q, k, v, keep: _attend(cross, q, k, v, keep),
        "ff": lambda y: layer.linear2(torch.relu(layer.linear1(y))),
        "norms": [layer.norm1, layer.norm2] + ([layer.norm3] if cross is not None else []),
        "norm_first": layer.norm_first,
    }


def course_ops(layer):
    """The same parts of one of the course's (reference) layers."""
    cross = getattr(layer, "cross_attn", None)
    return {
        "self_attn": lambda q, k, v, keep: layer.self_attn(q, k, v, keep)[0],
        "cross_attn": None if cross is None else lambda q, k, v, keep: cross(q, k, v, keep)[0],
        "ff": layer.ff,
        "norms": [layer.norm1, layer.norm2] + ([layer.norm3] if cross is not None else []),
        "norm_first": layer.norm_first,
    }


def variant(ops, x, memory=None, tgt_mask=None, src_mask=None, styles=None, kind=None):
    """What a layer computes with the sub-layer ``styles`` (default: the right ones) and
    the decoder mistake ``kind``: the diagnostics that name a failed check. ``tgt_mask``
    is the self-attention's mask (the padding mask in an encoder layer)."""
    self_mask = None if kind == "self_attention_unmasked" else tgt_mask
    sublayers = [lambda y: ops["self_attn"](y, y, y, self_mask)]
    if memory is not None:
        attend, norm2 = ops["cross_attn"], ops["norms"][1]
        sublayers.append({
            "cross_attends_to_itself": lambda y: attend(y, y, y, tgt_mask),
            "cross_attention_unmasked": lambda y: attend(y, memory, memory, None),
            "cross_attention_target_mask": lambda y: attend(y, memory, memory, tgt_mask),
            "memory_normalised": lambda y: attend(y, norm2(memory), norm2(memory), src_mask),
        }.get(kind, lambda y: attend(y, memory, memory, src_mask)))
    sublayers.append(ops["ff"])
    styles = styles or ["pre" if ops["norm_first"] else "post"] * len(sublayers)
    with torch.no_grad():
        for style, f, n in zip(styles, sublayers, ops["norms"]):
            x = STYLES[style](x, f, n)
    return x


KINDS = {
    "self_attention_unmasked": ("the decoder's self-attention is not causal: DecoderLayer must pass tgt_mask to self_attn",
                                "la autoatención del decodificador no es causal: DecoderLayer debe pasar tgt_mask a self_attn"),
    "cross_attends_to_itself": ("the cross-attention attends to the decoder itself: its keys and values must be memory",
                                "la atención cruzada se atiende a sí misma: sus claves y valores deben ser memory"),
    "cross_attention_unmasked": ("the cross-attention gets no src_mask, so it attends to source padding",
                                 "la atención cruzada no recibe src_mask, así que atiende al relleno del origen"),
    "cross_attention_target_mask": ("the cross-attention gets the target mask; it needs src_mask",
                                    "la atención cruzada recibe la máscara de destino; necesita src_mask"),
    "memory_normalised": ("pre-norm cross-attention normalises memory too: only the decoder's x goes through norm2",
                          "la atención cruzada pre-norm también normaliza memory: solo la x del decodificador pasa por norm2"),
}
NO_RESIDUAL = ("a residual connection is missing: every sub-layer adds its input back (x + ...)",
               "falta una conexión residual: cada subcapa vuelve a sumar su entrada (x + ...)")
NORM_PLACE = {
    True: ("LayerNorm in the wrong place for pre-norm: x = x + dropout(sublayer(norm(x))), not norm(x + sublayer(x))",
           "LayerNorm mal colocada para pre-norm: x = x + dropout(subcapa(norm(x))), no norm(x + subcapa(x))"),
    False: ("LayerNorm in the wrong place for post-norm: x = norm(x + dropout(sublayer(x))), not x + sublayer(norm(x))",
            "LayerNorm mal colocada para post-norm: x = norm(x + dropout(subcapa(x))), no x + subcapa(norm(x))"),
}


def mistake_specs(norm_first, decoder):
    """(en, es, styles, kind) of every sub-layer order or residual gone wrong, and of the
    decoder's own mistakes."""
    right = "pre" if norm_first else "post"
    for styles in itertools.product([right, "post" if norm_first else "pre", right + "_no_residual"],
                                    repeat=3 if decoder else 2):
        if any(s != right for s in styles):
            en, es = NO_RESIDUAL if any(s.endswith("no_residual") for s in styles) else NORM_PLACE[norm_first]
            yield en, es, list(styles), None
    if decoder:
        for kind, (en, es) in KINDS.items():
            yield en, es, None, kind


def mistakes(ops, x, memory=None, tgt_mask=None, src_mask=None):
    return [checks.Mistake(en, es, output=lambda styles=styles, kind=kind: variant(
                ops, x, memory, tgt_mask, src_mask, styles, kind))
            for en, es, styles, kind in mistake_specs(ops["norm_first"], memory is not None)]
