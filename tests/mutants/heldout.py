"""Held-out classic mistakes in a4_transformer and a5_decoding, written without looking at
the public tests, the graders or the tuned corpus; only tests/mutants/public.py --heldout
reads them. Do not tune tests against this file."""
from mutants import Mutant

# Lines of the reference solutions that several mutants edit.
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_ENC_PRE_ATTN = "x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])"
_ENC_PRE_FF = "x = x + self.dropout2(self.ff(self.norm2(x)))"
_DEC_POST_SELF = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_DEC_PRE_SELF = "x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])"
_DEC_PRE_CROSS = "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"

MUTANTS = {
    # ---------------------------------------------------------------- a4: layers.py
    ("a4_transformer", "encoder post-norm attention sub-layer without its residual"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "encoder pre-norm residual adds the normalised input"): Mutant(
        "layers.py",
        [(_ENC_PRE_ATTN, "x = y + self.dropout1(self.self_attn(y, y, y, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "encoder pre-norm feed-forward reads the un-normalised stream"): Mutant(
        "layers.py",
        [(_ENC_PRE_FF, "x = x + self.dropout2(self.ff(x))")],
        must_fail=[]),
    ("a4_transformer", "encoder layer ignores the padding mask"): Mutant(
        "layers.py",
        [("self.self_attn(x, x, x, mask)[0]", "self.self_attn(x, x, x)[0]"),
         ("self.self_attn(y, y, y, mask)[0]", "self.self_attn(y, y, y)[0]")],
        must_fail=[]),
    ("a4_transformer", "encoder layer: norm_first read the wrong way round"): Mutant(
        "layers.py",
        [("if self.norm_first:\n            y = self.norm1(x)\n            " + _ENC_PRE_ATTN,
          "if not self.norm_first:\n            y = self.norm1(x)\n            " + _ENC_PRE_ATTN)],
        must_fail=[]),
    ("a4_transformer", "encoder post-norm: LayerNorm applied before the residual sum"): Mutant(
        "layers.py",
        [(_ENC_POST_FF, "x = x + self.norm2(self.dropout2(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "decoder self-attention without the causal/target mask"): Mutant(
        "layers.py",
        [("self.self_attn(x, x, x, tgt_mask)[0]", "self.self_attn(x, x, x)[0]"),
         ("self.self_attn(y, y, y, tgt_mask)[0]", "self.self_attn(y, y, y)[0]")],
        must_fail=[]),
    ("a4_transformer", "decoder cross-attention attends to itself instead of the memory"): Mutant(
        "layers.py",
        [("self.cross_attn(x, memory, memory, src_mask)[0]", "self.cross_attn(x, x, x, tgt_mask)[0]"),
         ("self.cross_attn(self.norm2(x), memory, memory, src_mask)[0]",
          "self.cross_attn(self.norm2(x), self.norm2(x), self.norm2(x), tgt_mask)[0]")],
        must_fail=[]),
    ("a4_transformer", "decoder cross-attention without the source padding mask"): Mutant(
        "layers.py",
        [("memory, memory, src_mask)[0]", "memory, memory)[0]")],
        must_fail=[]),
    ("a4_transformer", "decoder cross-attention takes its values from the decoder, not the memory"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, x, src_mask)[0]))"),
         (_DEC_PRE_CROSS, "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, self.norm2(x), src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "decoder pre-norm cross-attention queries not normalised"): Mutant(
        "layers.py",
        [(_DEC_PRE_CROSS, "x = x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "decoder post-norm skips the feed-forward residual"): Mutant(
        "layers.py",
        [("x = self.norm3(x + self.dropout3(self.ff(x)))", "x = self.norm3(self.dropout3(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "decoder layer always post-norm (norm_first ignored)"): Mutant(
        "layers.py",
        [("if self.norm_first:\n            y = self.norm1(x)\n            " + _DEC_PRE_SELF,
          "if False:\n            y = self.norm1(x)\n            " + _DEC_PRE_SELF)],
        must_fail=[]),
    # ----------------------------------------------------------- a4: transformer.py
    ("a4_transformer", "embeddings not scaled by sqrt(d_model)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens)))")],
        must_fail=[]),
    ("a4_transformer", "embeddings divided by sqrt(d_model)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) / math.sqrt(self.config.d_model)))")],
        must_fail=[]),
    ("a4_transformer", "positional encoding scaled along with the embeddings"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens)) * math.sqrt(self.config.d_model))")],
        must_fail=[]),
    ("a4_transformer", "positions added twice"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model))"
                  " + self.positional.pe[:tokens.size(1)])")],
        must_fail=[]),
    ("a4_transformer", "decoder embeds the target with the source embedding table"): Mutant(
        "transformer.py",
        [("x = self.embed(self.tgt_embed, tgt)", "x = self.embed(self.src_embed, tgt)")],
        must_fail=[]),
    ("a4_transformer", "encoder output returned without the final LayerNorm"): Mutant(
        "transformer.py",
        [("return self.encoder_norm(x), src_mask", "return x, src_mask")],
        must_fail=[]),
    ("a4_transformer", "decoder: final norm applied after the generator"): Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))", "return self.decoder_norm(self.generator(x))")],
        must_fail=[]),
    ("a4_transformer", "decode returns probabilities instead of logits"): Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))", "return self.generator(self.decoder_norm(x)).softmax(dim=-1)")],
        must_fail=[]),
    ("a4_transformer", "every decoder layer is fed the embeddings, only the last one counts"): Mutant(
        "transformer.py",
        [("x = layer(x, memory, tgt_mask, src_mask)", "out = layer(x, memory, tgt_mask, src_mask)"),
         ("return self.generator(self.decoder_norm(x))", "return self.generator(self.decoder_norm(out))")],
        must_fail=[]),
    ("a4_transformer", "only the first encoder layer applied"): Mutant(
        "transformer.py",
        [("for layer in self.encoder_layers:", "for layer in self.encoder_layers[:1]:")],
        must_fail=[]),
    ("a4_transformer", "one decoder layer instance repeated num_layers times"): Mutant(
        "transformer.py",
        [("self.decoder_layers = nn.ModuleList(\n            DecoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)"
          " for _ in range(c.num_layers)\n        )",
          "self.decoder_layers = nn.ModuleList(\n            [DecoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first)]"
          " * c.num_layers\n        )")],
        must_fail=[]),
    ("a4_transformer", "tie_weights copies the embedding instead of sharing it"): Mutant(
        "transformer.py",
        [("self.generator.weight = self.tgt_embed.weight",
          "self.generator.weight = nn.Parameter(self.tgt_embed.weight.detach().clone())")],
        must_fail=[]),
    ("a4_transformer", "encoder self-attention made causal"): Mutant(
        "transformer.py",
        [("x = layer(x, src_mask)", "x = layer(x, target_mask(src, self.config.pad_id))")],
        must_fail=[]),
    ("a4_transformer", "decoder uses only the padding mask (no causal mask)"): Mutant(
        "transformer.py",
        [("tgt_mask = target_mask(tgt, self.config.pad_id)", "tgt_mask = padding_mask(tgt, self.config.pad_id)")],
        must_fail=[]),
    ("a4_transformer", "encode does not hand the source mask to the decoder"): Mutant(
        "transformer.py",
        [("return self.encoder_norm(x), src_mask", "return self.encoder_norm(x), None")],
        must_fail=[]),
    ("a4_transformer", "final encoder norm applied after every layer"): Mutant(
        "transformer.py",
        [("x = layer(x, src_mask)\n        return self.encoder_norm(x), src_mask",
          "x = self.encoder_norm(layer(x, src_mask))\n        return x, src_mask")],
        must_fail=[]),
    ("a4_transformer", "no dropout on the embeddings"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.positional(embedding(tokens) * math.sqrt(self.config.d_model))")],
        must_fail=[]),

    # ------------------------------------------------------------ a5: sampling.py
    ("a5_decoding", "temperature multiplies the logits"): Mutant(
        "sampling.py",
        [("logits = logits / temperature", "logits = logits * temperature")],
        must_fail=[]),
    ("a5_decoding", "top-k keeps only k - 1 tokens (<= instead of <)"): Mutant(
        "sampling.py",
        [("logits.masked_fill(logits < kth,", "logits.masked_fill(logits <= kth,")],
        must_fail=[]),
    ("a5_decoding", "top-p drops the token that crosses p"): Mutant(
        "sampling.py",
        [("sorted_logits.masked_fill(before >= top_p,", "sorted_logits.masked_fill(probs.cumsum(dim=-1) > top_p,")],
        must_fail=[]),
    ("a5_decoding", "top-p forgets to undo the sort"): Mutant(
        "sampling.py",
        [("logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)", "logits = sorted_logits")],
        must_fail=[]),
    ("a5_decoding", "temperature 0 not treated as greedy"): Mutant(
        "sampling.py",
        [("if temperature == 0 or top_k == 1:", "if top_k == 1:")],
        must_fail=[]),
    ("a5_decoding", "argmax instead of drawing a sample"): Mutant(
        "sampling.py",
        [("return torch.multinomial(probs, 1, generator=generator).squeeze(-1)", "return probs.argmax(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "generator not passed to multinomial"): Mutant(
        "sampling.py",
        [("torch.multinomial(probs, 1, generator=generator)", "torch.multinomial(probs, 1)")],
        must_fail=[]),
    ("a5_decoding", "top-k mask computed but its result discarded"): Mutant(
        "sampling.py",
        [("logits = logits.masked_fill(logits < kth, float(\"-inf\"))", "logits.masked_fill(logits < kth, float(\"-inf\"))")],
        must_fail=[]),
    ("a5_decoding", "top-p result discarded (sorted copy filtered, logits unchanged)"): Mutant(
        "sampling.py",
        [("logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)", "torch.empty_like(logits).scatter_(-1, order, sorted_logits)")],
        must_fail=[]),

    # ------------------------------------------------------------ a5: decoding.py
    ("a5_decoding", "finished rows not padded after <eos>"): Mutant(
        "decoding.py",
        [("        next_token = next_token.masked_fill(finished, pad_id)\n", "")],
        must_fail=[]),
    ("a5_decoding", "<eos> replaced by padding (finished set before padding)"): Mutant(
        "decoding.py",
        [("        next_token = next_token.masked_fill(finished, pad_id)\n"
          "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n"
          "        finished |= next_token == eos_id\n",
          "        finished |= next_token == eos_id\n"
          "        next_token = next_token.masked_fill(finished, pad_id)\n"
          "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n")],
        must_fail=[]),
    ("a5_decoding", "decoding never stops early"): Mutant(
        "decoding.py",
        [("        if finished.all():\n            break\n", "")],
        must_fail=[]),
    ("a5_decoding", "decoding stops when any row finishes"): Mutant(
        "decoding.py",
        [("if finished.all():", "if finished.any():")],
        must_fail=[]),
    ("a5_decoding", "one token fewer than max_len"): Mutant(
        "decoding.py",
        [("for _ in range(max_len):", "for _ in range(max_len - 1):")],
        must_fail=[]),
    ("a5_decoding", "sos column returned with the output"): Mutant(
        "decoding.py",
        [("    return tokens[:, 1:]\n", "    return tokens\n")],
        must_fail=[]),
    ("a5_decoding", "finished flag overwritten instead of accumulated"): Mutant(
        "decoding.py",
        [("finished |= next_token == eos_id", "finished = next_token == eos_id")],
        must_fail=[]),
    ("a5_decoding", "decoder fed only the last token"): Mutant(
        "decoding.py",
        [("logits = decoder.step(tokens)  # (B, V)", "logits = decoder.step(tokens[:, -1:])  # (B, V)")],
        must_fail=[]),
    ("a5_decoding", "greedy decoding samples at temperature 1"): Mutant(
        "decoding.py",
        [("sos_id, eos_id, pad_id, temperature=0.0, use_cache=use_cache)", "sos_id, eos_id, pad_id, use_cache=use_cache)")],
        must_fail=[]),

    # ---------------------------------------------------------------- a5: beam.py
    ("a5_decoding", "beam scores add probabilities instead of log-probabilities"): Mutant(
        "beam.py",
        [("decoder.step(tokens).log_softmax(dim=-1)", "decoder.step(tokens).softmax(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "beam scores not accumulated over steps"): Mutant(
        "beam.py",
        [("decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]", "decoder.step(tokens).log_softmax(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "length penalty not applied"): Mutant(
        "beam.py",
        [("finished.append((score / lp(step, length_penalty),", "finished.append((score,")],
        must_fail=[]),
    ("a5_decoding", "length penalty multiplies the score"): Mutant(
        "beam.py",
        [("finished.append((score / lp(step, length_penalty),", "finished.append((score * lp(step, length_penalty),")],
        must_fail=[]),
    ("a5_decoding", "beam returns the first finished hypothesis, not the best"): Mutant(
        "beam.py",
        [("return max(finished, key=lambda f: f[0])[1]", "return finished[0][1]")],
        must_fail=[]),
    ("a5_decoding", "beam stops as soon as one hypothesis finishes"): Mutant(
        "beam.py",
        [("            if not live:\n                break", "            if finished or not live:\n                break")],
        must_fail=[]),
    ("a5_decoding", "beam decoder cache not reordered"): Mutant(
        "beam.py",
        [("            decoder.reorder(index)\n", "")],
        must_fail=[]),
    ("a5_decoding", "beam hypotheses reaching max_len never finish"): Mutant(
        "beam.py",
        [("if token == eos_id or step == max_len:", "if token == eos_id:")],
        must_fail=[]),
    ("a5_decoding", "beam output drops the last token (<eos>)"): Mutant(
        "beam.py",
        [("tokens[beam, 1:].tolist() + [token]))", "tokens[beam, 1:].tolist()))")],
        must_fail=[]),
    ("a5_decoding", "beam keeps beam_size even when the vocabulary is smaller"): Mutant(
        "beam.py",
        [("topk(min(beam_size, logp.numel()))", "topk(beam_size)")],
        must_fail=[]),
    ("a5_decoding", "beam output padded with <eos> instead of pad_id"): Mutant(
        "beam.py",
        [("max(len(h) for h in best)), pad_id,", "max(len(h) for h in best)), eos_id,")],
        must_fail=[]),
    ("a5_decoding", "beam keeps the sos token in the returned hypothesis"): Mutant(
        "beam.py",
        [("tokens[beam, 1:].tolist() + [token]", "tokens[beam].tolist() + [token]")],
        must_fail=[]),
}
