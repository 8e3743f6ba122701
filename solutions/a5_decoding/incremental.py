"""Step-by-step decoders: one new token in, next-token logits out (given code).

Auto-regressive decoding calls the decoder once per generated token. Re-running it on the
whole prefix (``FullDecoder``) costs O(t) positions at step t. ``CachedDecoder`` keeps each
decoder layer's keys and values from earlier steps (and the cross-attention keys/values
of the encoder output, computed once), so a step costs one position. Both give the same
logits; decoding code only sees ``step`` and ``reorder``.

Legend: B = batch (or beams), h = heads, S = source length, t = tokens so far.
"""

import math

import torch

from attention import scaled_dot_product_attention


class FullDecoder:
    """Works with any model that has ``decode(tgt, memory, src_mask) -> (B, T, V)``."""

    def __init__(self, model, memory, src_mask):
        self.model, self.memory, self.src_mask = model, memory, src_mask

    def step(self, tokens):
        """``tokens`` (B, t), the whole prefix -> logits (B, V) for the next token."""
        return self.model.decode(tokens, self.memory, self.src_mask)[:, -1]

    def reorder(self, index):
        """Keep rows ``index`` (beam search picks which hypotheses survive)."""
        self.memory, self.src_mask = self.memory[index], self.src_mask[index]


class CachedDecoder:
    """Key/value cache for the course's ``Transformer`` (a4): one position per step."""

    def __init__(self, model, memory, src_mask):
        self.model, self.src_mask = model, src_mask
        self.self_kv = [None] * len(model.decoder_layers)  # per layer: (k, v), each (B, h, t, d_k)
        # The full decoder masks <pad> target tokens as keys (target_mask); so must we, in
        # case a model ever emits the pad id as a token.
        self.keep = None  # (B, t), True where the token is not <pad>
        self.cross_kv = [
            (self._heads(layer.cross_attn, layer.cross_attn.w_k(memory)),
             self._heads(layer.cross_attn, layer.cross_attn.w_v(memory)))  # (B, h, S, d_k)
            for layer in model.decoder_layers
        ]

    @staticmethod
    def supports(model):
        return all(hasattr(model, name) for name in ("config", "decoder_layers", "tgt_embed", "positional", "generator"))

    @staticmethod
    def _heads(mha, x):
        B, T, _ = x.size()
        return x.view(B, T, mha.num_heads, mha.d_k).transpose(1, 2)  # (B, h, T, d_k)

    def _attend(self, mha, x, k, v, mask=None):
        q = self._heads(mha, mha.w_q(x))  # (B, h, 1, d_k)
        out, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, h, 1, d_k)
        return mha.w_o(out.transpose(1, 2).reshape(x.size(0), 1, mha.d_model))  # (B, 1, d_model)

    def _self_attend(self, i, mha, x):
        k, v = self._heads(mha, mha.w_k(x)), self._heads(mha, mha.w_v(x))  # (B, h, 1, d_k)
        if self.self_kv[i] is not None:
            k = torch.cat([self.self_kv[i][0], k], dim=2)  # (B, h, t, d_k)
            v = torch.cat([self.self_kv[i][1], v], dim=2)
        self.self_kv[i] = (k, v)
        # Only earlier positions are cached, so causality holds; just hide <pad> keys.
        return self._attend(mha, x, k, v, self.keep[:, None, None, :])

    def step(self, tokens):
        """``tokens`` (B, t); only the last one is new -> logits (B, V)."""
        model, t = self.model, tokens.size(1) - 1
        if t >= model.positional.max_len:
            raise ValueError(f"cannot decode past max_len={model.positional.max_len} positions")
        keep = tokens[:, -1:] != model.config.pad_id  # (B, 1)
        self.keep = keep if self.keep is None else torch.cat([self.keep, keep], dim=1)  # (B, t + 1)
        # The table as (max_len, d_model) rows: a table stored (1, max_len, d_model), as lecture 000
        # stores it, is right too, and a student's own a3 code runs here.
        row = model.positional.pe.reshape(-1, model.config.d_model)[t]  # (d_model,)
        x = model.tgt_embed(tokens[:, -1:]) * math.sqrt(model.config.d_model) + row  # (B, 1, d_model)
        for i, layer in enumerate(model.decoder_layers):
            mem_k, mem_v = self.cross_kv[i]
            if layer.norm_first:
                x = x + self._self_attend(i, layer.self_attn, layer.norm1(x))
                x = x + self._attend(layer.cross_attn, layer.norm2(x), mem_k, mem_v, self.src_mask)
                x = x + layer.ff(layer.norm3(x))
            else:
                x = layer.norm1(x + self._self_attend(i, layer.self_attn, x))
                x = layer.norm2(x + self._attend(layer.cross_attn, x, mem_k, mem_v, self.src_mask))
                x = layer.norm3(x + layer.ff(x))
        return model.generator(model.decoder_norm(x))[:, -1]  # (B, V)

    def reorder(self, index):
        self.src_mask = self.src_mask[index]
        self.cross_kv = [(k[index], v[index]) for k, v in self.cross_kv]
        self.self_kv = [kv if kv is None else (kv[0][index], kv[1][index]) for kv in self.self_kv]
        self.keep = None if self.keep is None else self.keep[index]


def make_decoder(model, memory, src_mask, use_cache=True):
    """A ``CachedDecoder`` when asked for and the model allows it, else a ``FullDecoder``."""
    if use_cache and CachedDecoder.supports(model):
        return CachedDecoder(model, memory, src_mask)
    return FullDecoder(model, memory, src_mask)
