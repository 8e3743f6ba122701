"""The first round of held-out classic mistakes in every assignment (a1_attention to
a6_translator), written without looking at the public tests, the graders or the tuned corpus.
Its figures were measured once (issue 26, November 2026) and the mistakes have been looked at
since, so it is no longer held out: the unseen round is heldout2.py. Read by
tests/mutants/public.py and console.py with ``--heldout heldout``."""
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

# a1 .. a3, a6: lines of the reference solutions that several mutants edit.
_SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"
_MASK_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_CAUSAL = "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"
_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)"
_MHA_K = "k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_V = "v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_DROP = "out = self.dropout(weights) @ v"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_MHA_RETURN = "return self.w_o(out), (weights if need_weights else None)"
_PE_FREQ = "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))"
_PE_SIN = "pe[:, 0::2] = torch.sin(position * inv_freq)"
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_CLEAN_LOWER = 'text = unicodedata.normalize("NFC", text).lower()'
_CLEAN_SPACE = r'text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)'
_CLEAN_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_VOCAB_SORT = "return cls(sorted(kept, key=lambda word: (-counts[word], word)))"
_SHIFT = "tgt_in, labels = tgt[:, :-1], tgt[:, 1:]"
_LOSS = ("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
         "                           label_smoothing=label_smoothing)")
_COPY_SRC = "src_batch[b, : len(src)] = src"
_COPY_TGT = "tgt_batch[b, : len(tgt)] = tgt"

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

    # --------------------------------------------------------- a1: attention.py
    ("a1_attention", "scores not scaled by sqrt(d_k)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1)")],
        must_fail=[]),
    ("a1_attention", "scores divided by d_k instead of sqrt(d_k)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1) / d_k")],
        must_fail=[]),
    ("a1_attention", "scores multiplied by sqrt(d_k)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1) * math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "scale taken from the value size d_v"): Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = v.size(-1)")],
        must_fail=[]),
    ("a1_attention", "scores computed as K Q^T (query and key roles swapped)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = k @ q.transpose(-2, -1) / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "softmax over the query axis"): Mutant(
        "attention.py",
        [("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")],
        must_fail=[]),
    ("a1_attention", "mask polarity inverted (True treated as masked)"): Mutant(
        "attention.py",
        [(_MASK_FILL, 'scores = scores.masked_fill(mask, float("-inf"))')],
        must_fail=[]),
    ("a1_attention", "masked scores set to 0 instead of -inf"): Mutant(
        "attention.py",
        [(_MASK_FILL, "scores = scores.masked_fill(~mask, 0.0)")],
        must_fail=[]),
    ("a1_attention", "masked_fill result not assigned back"): Mutant(
        "attention.py",
        [(_MASK_FILL, 'scores.masked_fill(~mask, float("-inf"))')],
        must_fail=[]),
    ("a1_attention", "fully masked rows not handled (softmax of -inf gives NaN)"): Mutant(
        "attention.py",
        [("        scores = scores.masked_fill(~has_key, 0.0)\n", ""),
         (_WEIGHTS, "weights = torch.softmax(scores, dim=-1)")],
        must_fail=[]),
    ("a1_attention", "fully masked rows get uniform weights instead of zeros"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1)")],
        must_fail=[]),
    ("a1_attention", "returns the raw scores instead of the attention weights"): Mutant(
        "attention.py",
        [("    return output, weights\n", "    return output, scores\n")],
        must_fail=[]),
    ("a1_attention", "masked self-attention forgets the causal mask"): Mutant(
        "attention.py",
        [("mask=causal_mask(Q.size(0), device=Q.device)", "mask=None")],
        must_fail=[]),

    # ------------------------------------------------------------- a1: masks.py
    ("a1_attention", "causal mask upper-triangular (looks ahead)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device))")],
        must_fail=[]),
    ("a1_attention", "causal mask hides the diagonal (a position cannot see itself)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=-1)")],
        must_fail=[]),
    ("a1_attention", "padding mask True on the padding"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens == pad_id)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask hides padded queries instead of keys"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[:, None, :, None]")],
        must_fail=[]),
    ("a1_attention", "padding mask missing the heads dimension (B, 1, S)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[:, None, :]")],
        must_fail=[]),
    ("a1_attention", "target mask combines padding and causal with OR"): Mutant(
        "masks.py",
        [("padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)",
          "padding_mask(tokens, pad_id) | causal_mask(T, device=tokens.device)")],
        must_fail=[]),

    # ---------------------------------------------------------- a2: layernorm.py
    ("a2_layernorm", "unbiased variance (divides by N - 1)"): Mutant(
        "layernorm.py",
        [("x.var(dim=dims, unbiased=False, keepdim=True)", "x.var(dim=dims, unbiased=True, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "eps added to the standard deviation, outside the square root"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / (torch.sqrt(var) + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "eps forgotten"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "eps fixed at 1e-5, the argument ignored"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + 1e-5) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "divides by the variance instead of the standard deviation"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / (var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "input not centred (mean not subtracted)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return x / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "gamma and beta swapped"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.bias + self.weight")],
        must_fail=[]),
    ("a2_layernorm", "shift added before the scale"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return ((x - mean) / torch.sqrt(var + self.eps) + self.bias) * self.weight")],
        must_fail=[]),
    ("a2_layernorm", "statistics over the last dimension only (tuple shapes ignored)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = (-1,)")],
        must_fail=[]),
    ("a2_layernorm", "statistics over every dimension but the batch"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(1, x.dim()))")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias initialised the wrong way round"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.zeros(self.normalized_shape))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.ones(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias plain tensors, not parameters"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = torch.ones(self.normalized_shape)"),
         (_LN_BIAS, "self.bias = torch.zeros(self.normalized_shape)")],
        must_fail=[]),
    ("a2_layernorm", "parameters sized by the last dimension only"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(self.normalized_shape[-1]))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(self.normalized_shape[-1]))")],
        must_fail=[]),

    # -------------------------------------------------------- a3: feedforward.py
    ("a3_blocks", "GELU instead of ReLU"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(torch.nn.functional.gelu(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward without the activation"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(self.linear1(x)))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout after the second linear layer"): Mutant(
        "feedforward.py",
        [(_FF, "return self.dropout(self.linear2(torch.relu(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "ReLU also after the second linear layer"): Mutant(
        "feedforward.py",
        [(_FF, "return torch.relu(self.linear2(self.dropout(torch.relu(self.linear1(x)))))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout applied in eval mode too"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(torch.nn.functional.dropout(torch.relu(self.linear1(x)), self.dropout.p))")],
        must_fail=[]),

    # ---------------------------------------------------------- a3: multihead.py
    ("a3_blocks", "keys projected with w_q"): Mutant(
        "multihead.py",
        [(_MHA_K, "k = self.w_q(key).view(B, T_k, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "values projected with w_k"): Mutant(
        "multihead.py",
        [(_MHA_V, "v = self.w_k(value).view(B, T_k, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "heads split with view(B, h, T, d_k) instead of view + transpose"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = self.w_q(query).view(B, h, T_q, d_k)"),
         (_MHA_K, "k = self.w_k(key).view(B, h, T_k, d_k)"),
         (_MHA_V, "v = self.w_v(value).view(B, h, T_k, d_k)")],
        must_fail=[]),
    ("a3_blocks", "heads merged without transposing back"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.reshape(B, T_q, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "output projection w_o forgotten"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return out, (weights if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "mask not passed to the attention"): Mutant(
        "multihead.py",
        [("scaled_dot_product_attention(q, k, v, mask)", "scaled_dot_product_attention(q, k, v)")],
        must_fail=[]),
    ("a3_blocks", "attention dropout applied in eval mode too"): Mutant(
        "multihead.py",
        [("if self.training and self.dropout.p > 0:", "if self.dropout.p > 0:"),
         (_MHA_DROP, "out = nn.functional.dropout(weights, self.dropout.p) @ v")],
        must_fail=[]),
    ("a3_blocks", "dropout on the heads' output instead of the weights"): Mutant(
        "multihead.py",
        [(_MHA_DROP, "out = self.dropout(out)")],
        must_fail=[]),
    ("a3_blocks", "attention weights averaged over the heads"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return self.w_o(out), (weights.mean(dim=1) if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "key length taken from the query"): Mutant(
        "multihead.py",
        [("T_k = key.size(1)", "T_k = T_q")],
        must_fail=[]),

    # --------------------------------------------------------- a3: positional.py
    ("a3_blocks", "sines and cosines swapped"): Mutant(
        "positional.py",
        [(_PE_SIN, "pe[:, 0::2] = torch.cos(position * inv_freq)"),
         (_PE_COS, "pe[:, 1::2] = torch.sin(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "frequency exponent uses i instead of 2i"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(0, d_model // 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))")],
        must_fail=[]),
    ("a3_blocks", "frequencies 10000^(2i/d) instead of 1/10000^(2i/d)"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (math.log(10000.0) / d_model))")],
        must_fail=[]),
    ("a3_blocks", "sines in the first half, cosines in the second, not interleaved"): Mutant(
        "positional.py",
        [(_PE_SIN, "pe[:, : d_model // 2] = torch.sin(position * inv_freq)"),
         (_PE_COS, "pe[:, d_model // 2 :] = torch.cos(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "positions counted from 1"): Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32)",
          "position = torch.arange(1, max_len + 1, dtype=torch.float32)")],
        must_fail=[]),
    ("a3_blocks", "positional table a plain attribute, not a buffer"): Mutant(
        "positional.py",
        [('self.register_buffer("pe", pe)', "self.pe = pe")],
        must_fail=[]),
    ("a3_blocks", "positional table a trainable parameter"): Mutant(
        "positional.py",
        [('self.register_buffer("pe", pe)', "self.pe = nn.Parameter(pe)")],
        must_fail=[]),

    # ------------------------------------------------------ a6: preprocessing.py
    ("a6_translator", "text not lower-cased"): Mutant(
        "preprocessing.py",
        [(_CLEAN_LOWER, 'text = unicodedata.normalize("NFC", text)')],
        must_fail=[]),
    ("a6_translator", "no Unicode normalisation"): Mutant(
        "preprocessing.py",
        [(_CLEAN_LOWER, "text = text.lower()")],
        must_fail=[]),
    ("a6_translator", "NFD instead of NFC: accents split off and deleted"): Mutant(
        "preprocessing.py",
        [(_CLEAN_LOWER, 'text = unicodedata.normalize("NFD", text).lower()')],
        must_fail=[]),
    ("a6_translator", "punctuation not spaced out into tokens"): Mutant(
        "preprocessing.py",
        [(_CLEAN_SPACE, "pass")],
        must_fail=[]),
    ("a6_translator", "meaningful punctuation deleted with the rest"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "accented letters deleted"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9{PUNCTUATION}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "other characters replaced by a space instead of deleted"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", " ", text)')],
        must_fail=[]),
    ("a6_translator", "whitespace runs not collapsed"): Mutant(
        "preprocessing.py",
        [('return " ".join(text.split())', "return text.strip()")],
        must_fail=[]),

    # -------------------------------------------------------------- a6: vocab.py
    ("a6_translator", "special tokens in the wrong order"): Mutant(
        "vocab.py",
        [("self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]", "self.itos = [self.PAD, self.UNK, self.SOS, self.EOS]")],
        must_fail=[]),
    ("a6_translator", "duplicate words get a second id"): Mutant(
        "vocab.py",
        [("            if word not in self.stoi:\n                self.stoi[word] = len(self.itos)\n"
          "                self.itos.append(word)\n",
          "            self.stoi[word] = len(self.itos)\n            self.itos.append(word)\n")],
        must_fail=[]),
    ("a6_translator", "min_freq off by one (> instead of >=)"): Mutant(
        "vocab.py",
        [("if n >= min_freq]", "if n > min_freq]")],
        must_fail=[]),
    ("a6_translator", "vocabulary sorted least frequent first"): Mutant(
        "vocab.py",
        [(_VOCAB_SORT, "return cls(sorted(kept, key=lambda word: (counts[word], word)))")],
        must_fail=[]),
    ("a6_translator", "ties kept in corpus order, not alphabetical"): Mutant(
        "vocab.py",
        [(_VOCAB_SORT, "return cls(sorted(kept, key=lambda word: -counts[word]))")],
        must_fail=[]),
    ("a6_translator", "encode forgets <eos> when framing a target"): Mutant(
        "vocab.py",
        [("ids = [self.sos_id] + ids + [self.eos_id]", "ids = [self.sos_id] + ids")],
        must_fail=[]),
    ("a6_translator", "decode drops <unk> too"): Mutant(
        "vocab.py",
        [("if i not in (self.pad_id, self.sos_id, self.eos_id):",
          "if i not in (self.pad_id, self.sos_id, self.eos_id, self.unk_id):")],
        must_fail=[]),
    ("a6_translator", "decode keeps <sos> and <eos>"): Mutant(
        "vocab.py",
        [("if i not in (self.pad_id, self.sos_id, self.eos_id):", "if i != self.pad_id:")],
        must_fail=[]),

    # ----------------------------------------------------------- a6: batching.py
    ("a6_translator", "target not framed by <sos> and <eos>"): Mutant(
        "batching.py",
        [("tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)", "tgt_ids = self.tgt_vocab.encode(tgt)")],
        must_fail=[]),
    ("a6_translator", "source framed by <sos> and <eos> too"): Mutant(
        "batching.py",
        [("src_ids = self.src_vocab.encode(src)", "src_ids = self.src_vocab.encode(src, add_sos_eos=True)")],
        must_fail=[]),
    ("a6_translator", "source encoded with the target vocabulary"): Mutant(
        "batching.py",
        [("src_ids = self.src_vocab.encode(src)", "src_ids = self.tgt_vocab.encode(src)")],
        must_fail=[]),
    ("a6_translator", "truncated target loses its <eos>"): Mutant(
        "batching.py",
        [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]", "tgt_ids = tgt_ids[: self.max_len]")],
        must_fail=[]),
    ("a6_translator", "truncated target one token longer than max_len"): Mutant(
        "batching.py",
        [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
          "tgt_ids = tgt_ids[: self.max_len] + [self.tgt_vocab.eos_id]")],
        must_fail=[]),
    ("a6_translator", "batches padded on the left"): Mutant(
        "batching.py",
        [(_COPY_SRC, "src_batch[b, S - len(src):] = src"),
         (_COPY_TGT, "tgt_batch[b, T - len(tgt):] = tgt")],
        must_fail=[]),
    ("a6_translator", "collate pads with 0 whatever pad_id is"): Mutant(
        "batching.py",
        [("torch.full((len(batch), S), pad_id,", "torch.full((len(batch), S), 0,"),
         ("torch.full((len(batch), T), pad_id,", "torch.full((len(batch), T), 0,")],
        must_fail=[]),

    # ----------------------------------------------------------- a6: training.py
    ("a6_translator", "loss counts the padding labels"): Mutant(
        "training.py",
        [(_LOSS, "return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1),\n"
                 "                           label_smoothing=label_smoothing)")],
        must_fail=[]),
    ("a6_translator", "label smoothing ignored"): Mutant(
        "training.py",
        [(_LOSS, "return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id)")],
        must_fail=[]),
    ("a6_translator", "teacher forcing not shifted (labels = decoder input)"): Mutant(
        "training.py",
        [(_SHIFT, "tgt_in, labels = tgt[:, :-1], tgt[:, :-1]")],
        must_fail=[]),
    ("a6_translator", "decoder input and labels swapped"): Mutant(
        "training.py",
        [(_SHIFT, "tgt_in, labels = tgt[:, 1:], tgt[:, :-1]")],
        must_fail=[]),
    ("a6_translator", "optimizer.zero_grad forgotten"): Mutant(
        "training.py",
        [("    optimizer.zero_grad()\n    loss.backward()\n", "    loss.backward()\n")],
        must_fail=[]),
    ("a6_translator", "gradients zeroed between backward and step"): Mutant(
        "training.py",
        [("    optimizer.zero_grad()\n    loss.backward()\n", "    loss.backward()\n    optimizer.zero_grad()\n")],
        must_fail=[]),
    ("a6_translator", "gradients clipped after the update"): Mutant(
        "training.py",
        [("    if clip_norm is not None:\n        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
          "    optimizer.step()\n",
          "    optimizer.step()\n    if clip_norm is not None:\n"
          "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n")],
        must_fail=[]),
    ("a6_translator", "evaluate leaves dropout on (no model.eval())"): Mutant(
        "training.py",
        [("    model.eval()\n", "")],
        must_fail=[]),
    ("a6_translator", "evaluate leaves the model in eval mode"): Mutant(
        "training.py",
        [("model.train(was_training)", "pass")],
        must_fail=[]),
    ("a6_translator", "evaluate averages batch means instead of tokens"): Mutant(
        "training.py",
        [('ignore_index=pad_id, reduction="sum").item()', "ignore_index=pad_id).item()"),
         ("count += int((labels != pad_id).sum())", "count += 1")],
        must_fail=[]),
    ("a6_translator", "evaluate divides by every label, padding included"): Mutant(
        "training.py",
        [("count += int((labels != pad_id).sum())", "count += labels.numel()")],
        must_fail=[]),
    ("a6_translator", "evaluate labels not shifted"): Mutant(
        "training.py",
        [("labels = tgt[:, 1:]  # (B, T - 1)", "labels = tgt[:, :-1]  # (B, T - 1)")],
        must_fail=[]),
    ("a6_translator", "fit reports the last batch loss, not the epoch mean"): Mutant(
        "training.py",
        [("history.append(sum(losses) / len(losses))", "history.append(losses[-1])")],
        must_fail=[]),
    ("a6_translator", "fit drops label smoothing and clipping"): Mutant(
        "training.py",
        [("train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm)",
          "train_step(model, src, tgt, optimizer, pad_id)")],
        must_fail=[]),
    ("a6_translator", "fit does not put the model in training mode"): Mutant(
        "training.py",
        [("    model.train()\n    history = []\n", "    history = []\n")],
        must_fail=[]),

    # -------------------------------------------------------- a6: translation.py
    ("a6_translator", "translate does not clean the input"): Mutant(
        "translation.py",
        [("src_vocab.encode(clean_text(s))", "src_vocab.encode(s)")],
        must_fail=[]),
    ("a6_translator", "translate ignores the model's max_len"): Mutant(
        "translation.py",
        [("min(max_len, limit)", "max_len")],
        must_fail=[]),
    ("a6_translator", "translate does not truncate long sources"): Mutant(
        "translation.py",
        [("src_vocab.encode(clean_text(s))[:limit]", "src_vocab.encode(clean_text(s))")],
        must_fail=[]),
    ("a6_translator", "translate pads the batch on the left"): Mutant(
        "translation.py",
        [("src[b, : len(encoded[i])] =", "src[b, S - len(encoded[i]):] =")],
        must_fail=[]),
    ("a6_translator", "translations stored by batch row, not by sentence"): Mutant(
        "translation.py",
        [("results[i] = tgt_vocab.decode(ids)", "results[b] = tgt_vocab.decode(ids)")],
        must_fail=[]),
    ("a6_translator", "translate leaves dropout on (no model.eval())"): Mutant(
        "translation.py",
        [("    model.eval()\n", "")],
        must_fail=[]),
    ("a6_translator", "translate decodes with the source vocabulary"): Mutant(
        "translation.py",
        [("results[i] = tgt_vocab.decode(ids)", "results[i] = src_vocab.decode(ids)")],
        must_fail=[]),
    ("a6_translator", "translate always decodes greedily"): Mutant(
        "translation.py",
        [("decode(model, src, strategy,", 'decode(model, src, "greedy",')],
        must_fail=[]),
}
