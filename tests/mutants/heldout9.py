"""The ninth round of held-out classic mistakes: 105 edits of the reference solutions, each
one mistake as a student writes it (a1 14, a2 13, a3 15, a4 18, a5 20, a6 25). Every edit
lies inside a ``### BEGIN SOLUTION`` block; a5's incremental.py and a3's visualize.py, given to students
whole, are left alone.

They were written without looking at the public tests, the graders, their diagnoses or the
tuned corpus (tests/mutants/a*.py), so they measure how well the tests and the diagnoses
generalise to mistakes nobody tuned them on. Each loses points at seeds 1, 2 and 3 (only
scores were looked at); a real mistake that kept full or partial marks at some seed was
left out of this list. ``must_fail`` is empty and there are no ``names``: only
tests/mutants/public.py --heldout and console.py --heldout read this module.
"""
from mutants import Mutant

# Lines of the reference solutions that several mutants edit.
_SCORES_LINE = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"
_MASK_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
_HAS_KEY = "has_key = mask.any(dim=-1, keepdim=True)  # (..., T_q, 1)"
_EMPTY_SCORES = "scores = scores.masked_fill(~has_key, 0.0)"
_EMPTY_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_OUTPUT = "    output = weights @ v  # (..., T_q, d_v)"
_MSA = "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_PE_POSITION = "position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)"
_PE_FREQ = ("inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * "
            "(-math.log(10000.0) / d_model))")
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"
_MHA_K = "k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_RETURN = "return self.w_o(out), (weights if need_weights else None)"

_ENC_PRE = ("y = self.norm1(x)\n"
            "            x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])")
_ENC_PRE_ATTN = "x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])"
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_SELF = "x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])"
_DEC_POST_FF = "x = self.norm3(x + self.dropout3(self.ff(x)))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_SRC_MASK = "src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)"
_SRC_EMBED = "x = self.embed(self.src_embed, src)  # (B, S, d_model)"
_DEC_LAYER = "            x = layer(x, memory, tgt_mask, src_mask)\n"
_TGT_MASK = "tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)"
_DEC_RETURN = "return self.generator(self.decoder_norm(x))  # (B, T, V)"

_FINISHED_UPDATE = "        finished |= next_token == eos_id\n"
_FINISH = "finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))"
_TOP = "top = logp.flatten().topk(min(beam_size, logp.numel()))"
_OUT = ("    out = torch.full((src.size(0), max(len(h) for h in best)), pad_id, dtype=torch.long, device=src.device)\n"
        "    for b, hypothesis in enumerate(best):\n"
        "        out[b, :len(hypothesis)] = torch.tensor(hypothesis, dtype=torch.long)\n"
        "    return out\n")

_SPACE_PUNCT = 'text = re.sub(f"([{PUNCTUATION}])", r" \\1 ", text)'
_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_COLLAPSE = 'return " ".join(text.split())'
_ITOS = "self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]"
_STOI = "self.stoi = {word: i for i, word in enumerate(self.itos)}"
_WORD_LOOP = ("        for word in words:\n"
              "            if word not in self.stoi:\n"
              "                self.stoi[word] = len(self.itos)\n"
              "                self.itos.append(word)\n")
_TRUNCATE = ("            src_ids = src_ids[: self.max_len]\n"
             "            if len(tgt_ids) > self.max_len:\n"
             "                tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]\n")
_CE = ("    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
       "                           label_smoothing=label_smoothing)  # (B*T, V) vs (B*T,) -> ()\n")

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "mask tested with `if mask:` (a tensor's truth value is ambiguous)"): Mutant(
        "attention.py",
        [("    if mask is not None:\n        scores = scores.masked_fill",
          "    if mask:\n        scores = scores.masked_fill")],
        must_fail=[]),
    ("a1_attention", "d_k read as len(q), the size of the first axis"): Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = len(q)")],
        must_fail=[]),
    ("a1_attention", "has_key computed from ~mask (rows with any masked key are zeroed)"): Mutant(
        "attention.py",
        [(_HAS_KEY, "has_key = (~mask).any(dim=-1, keepdim=True)  # (..., T_q, 1)")],
        must_fail=[]),
    ("a1_attention", "rows that do have keys get the zero scores (~ forgotten on has_key)"): Mutant(
        "attention.py",
        [(_EMPTY_SCORES, "scores = scores.masked_fill(has_key, 0.0)")],
        must_fail=[]),
    ("a1_attention", "weights of the rows that do have keys zeroed (~ forgotten on the second has_key)"): Mutant(
        "attention.py",
        [(_EMPTY_WEIGHTS, "weights = torch.softmax(scores, dim=-1).masked_fill(has_key, 0.0)")],
        must_fail=[]),
    ("a1_attention", "mask given a leading axis with unsqueeze(0) 'to broadcast over the batch'"): Mutant(
        "attention.py",
        [(_MASK_FILL, "mask = mask.unsqueeze(0)  # broadcast over the batch\n        " + _MASK_FILL)],
        must_fail=[]),
    ("a1_attention", "queries and keys cast with .float() before the product (float64 inputs break)"): Mutant(
        "attention.py",
        [(_SCORES_LINE, "scores = q.float() @ k.float().transpose(-2, -1) / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "values mixed from the keys (weights @ k)"): Mutant(
        "attention.py",
        [(_OUTPUT, "    output = weights @ k  # (..., T_q, d_v)")],
        must_fail=[]),
    ("a1_attention", "unmasked branch takes the softmax over dim=0"): Mutant(
        "attention.py",
        [("    else:\n        weights = torch.softmax(scores, dim=-1)",
          "    else:\n        weights = torch.softmax(scores, dim=0)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention pre-scales Q by sqrt(d_k) (scaled twice)"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q / math.sqrt(Q.size(-1)), K, V, "
                "mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "masked self-attention passes K as the values (Q, K, K)"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q, K, K, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "padding mask built from tokens.t() (sequence-first habit): (S, 1, 1, B)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens.t() != pad_id)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "target mask expands the causal mask to (B, T, T) first (the AND gives (B, B, T, T))"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device).expand(tokens.size(0), T, T)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention rounds Z to 4 decimals (to match the lecture's table)"): Mutant(
        "attention.py",
        [(_MSA + "\n    return Z", _MSA + "\n    return Z.round(decimals=4)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "bias sized by normalized_shape[0] (tuple shapes break)"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(self.normalized_shape[0]))")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias assigned to local names (self. forgotten)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT + "\n        " + _LN_BIAS,
          "weight = nn.Parameter(torch.ones(self.normalized_shape))\n"
          "        bias = nn.Parameter(torch.zeros(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "variance by the shortcut E[x^2] - mean^2 (cancellation for large means)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = (x * x).mean(dim=dims, keepdim=True) - mean ** 2")],
        must_fail=[]),
    ("a2_layernorm", "divides by the weight instead of multiplying"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) / self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "dims taken as normalized_shape itself (the sizes used as axes)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = self.normalized_shape")],
        must_fail=[]),
    ("a2_layernorm", "mean subtracted after dividing (x / std - mean)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x / torch.sqrt(var + self.eps) - mean) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "eps added only in training mode"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "eps = self.eps if self.training else 0.0\n"
                      "        return (x - mean) / torch.sqrt(var + eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "normalised activations detached (no gradient reaches the input)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "x_hat = ((x - mean) / torch.sqrt(var + self.eps)).detach()\n"
                      "        return x_hat * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "statistics of the last training batch reused in eval mode (BatchNorm habit)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, _LN_VAR + "\n"
                   "        if self.training:\n"
                   "            self.saved_mean, self.saved_var = mean.detach(), var.detach()\n"
                   "        else:\n"
                   "            mean, var = self.saved_mean, self.saved_var")],
        must_fail=[]),
    ("a2_layernorm", "normalisation skipped in eval mode (input returned unchanged)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "if not self.training:\n            return x\n        " + _LN_DIMS)],
        must_fail=[]),
    ("a2_layernorm", "weight and bias kept in an nn.ParameterList (no weight/bias attributes)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT + "\n        " + _LN_BIAS,
          "self.params = nn.ParameterList([nn.Parameter(torch.ones(self.normalized_shape)),\n"
          "                                      nn.Parameter(torch.zeros(self.normalized_shape))])"),
         (_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.params[0] + self.params[1]")],
        must_fail=[]),
    ("a2_layernorm", "register_parameter given plain tensors (it requires nn.Parameter)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT + "\n        " + _LN_BIAS,
          'self.register_parameter("weight", torch.ones(self.normalized_shape))\n'
          '        self.register_parameter("bias", torch.zeros(self.normalized_shape))')],
        must_fail=[]),
    ("a2_layernorm", "bias built with zeros_like(self.weight) before self.weight exists"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT + "\n        " + _LN_BIAS,
          "self.bias = nn.Parameter(torch.zeros_like(self.weight))\n        " + _LN_WEIGHT)],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "cosines written to pe[:, 1:2] (a slice typo: one column)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1:2] = torch.cos(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "positions from torch.linspace(0, max_len, max_len) (step slightly above 1)"): Mutant(
        "positional.py",
        [(_PE_POSITION, "position = torch.linspace(0, max_len, max_len).unsqueeze(1)")],
        must_fail=[]),
    ("a3_blocks", "cosine columns computed from the sine columns (cos of the sine)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.cos(pe[:, 0::2])")],
        must_fail=[]),
    ("a3_blocks", "positions concatenated to the embeddings instead of added"): Mutant(
        "positional.py",
        [(_PE_ADD, "return torch.cat([x, self.pe[:T].expand(x.size(0), -1, -1)], dim=-1)")],
        must_fail=[]),
    ("a3_blocks", "frequencies multiplied by 2*pi (cycles taken for radians)"): Mutant(
        "positional.py",
        [(_PE_FREQ, _PE_FREQ + " * 2 * math.pi")],
        must_fail=[]),
    ("a3_blocks", "frequency exponent divided by d_model - 2 (so the last pair reaches 1/10000)"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * "
                    "(-math.log(10000.0) / (d_model - 2)))")],
        must_fail=[]),
    ("a3_blocks", "table rows scaled by sqrt(d_model) before being added"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[:T] * math.sqrt(self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout built with inplace=True (overwrites the ReLU output autograd needs)"): Mutant(
        "feedforward.py",
        [("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(dropout, inplace=True)")],
        must_fail=[]),
    ("a3_blocks", "second linear layer built inside forward (fresh random weights every call)"): Mutant(
        "feedforward.py",
        [(_FF, "linear2 = nn.Linear(self.linear1.out_features, self.linear1.in_features)\n"
               "        return linear2(self.dropout(torch.relu(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "multi-head attention adds its own residual (output + query)"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return self.w_o(out) + query, (weights if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "weights returned even when need_weights=False"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return self.w_o(out), weights")],
        must_fail=[]),
    ("a3_blocks", "keys pre-transposed to (B, h, d_k, T_k) before the a1 attention (transposed twice)"): Mutant(
        "multihead.py",
        [(_MHA_K, "k = self.w_k(key).view(B, T_k, h, d_k).permute(0, 2, 3, 1)")],
        must_fail=[]),
    ("a3_blocks", "divisibility failure raises a bare Exception, not ValueError"): Mutant(
        "multihead.py",
        [("            raise ValueError(\n", "            raise Exception(\n")],
        must_fail=[]),
    ("a3_blocks", "table built for max_len + 1 positions (0..max_len inclusive)"): Mutant(
        "positional.py",
        [(_PE_POSITION, "position = torch.arange(max_len + 1, dtype=torch.float32).unsqueeze(1)"),
         ("pe = torch.zeros(max_len, d_model)", "pe = torch.zeros(max_len + 1, d_model)")],
        must_fail=[]),
    ("a3_blocks", "cosines computed one position ahead ((pos + 1) * freq)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.cos((position + 1) * inv_freq)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "encoder calls self_attn(..., attn_mask=mask), PyTorch's keyword"): Mutant(
        "layers.py",
        [(_ENC_PRE_ATTN, "x = x + self.dropout1(self.self_attn(y, y, y, attn_mask=mask)[0])"),
         (_ENC_POST_ATTN, "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, attn_mask=mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder feed-forward sub-layer without its dropout"): Mutant(
        "layers.py",
        [(_ENC_POST_FF, "x = self.norm2(x + self.ff(x))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder attention dropout through nn.functional.dropout (stays on in eval)"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(x + nn.functional.dropout(self.self_attn(x, x, x, mask)[0], self.dropout1.p))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder drops out the attention input instead of its output"): Mutant(
        "layers.py",
        [(_ENC_PRE, "y = self.dropout1(self.norm1(x))\n"
                    "            x = x + self.self_attn(y, y, y, mask)[0]")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder self-attention sub-layer without its dropout"): Mutant(
        "layers.py",
        [(_DEC_PRE_SELF, "x = x + self.self_attn(y, y, y, tgt_mask)[0]")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder feed-forward input normalised again with norm2"): Mutant(
        "layers.py",
        [("            " + _DEC_POST_FF, "            x = self.norm3(x + self.dropout3(self.ff(self.norm2(x))))")],
        must_fail=[]),
    ("a4_transformer", "decoder layer returns (x, None), like the attention module"): Mutant(
        "layers.py",
        [("            " + _DEC_POST_FF + "\n        return x\n",
          "            " + _DEC_POST_FF + "\n        return x, None\n")],
        must_fail=[]),
    ("a4_transformer", "decoder layers given the source mask as both masks"): Mutant(
        "transformer.py",
        [(_DEC_LAYER, "            x = layer(x, memory, src_mask, src_mask)\n")],
        must_fail=[]),
    ("a4_transformer", "decoder layers called with memory_mask=src_mask (PyTorch's keyword)"): Mutant(
        "transformer.py",
        [(_DEC_LAYER, "            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=src_mask)\n")],
        must_fail=[]),
    ("a4_transformer", "decode zeroes the logits at the padded target positions"): Mutant(
        "transformer.py",
        [(_DEC_RETURN, "return self.generator(self.decoder_norm(x)) * (tgt != self.config.pad_id)[..., None]  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "encode drops out the embeddings a second time after embed"): Mutant(
        "transformer.py",
        [(_SRC_EMBED, "x = self.dropout(self.embed(self.src_embed, src))  # (B, S, d_model)")],
        must_fail=[]),
    ("a4_transformer", "encode transposes the source to (S, B) first (sequence-first habit)"): Mutant(
        "transformer.py",
        [(_SRC_MASK, "src = src.t()  # (S, B)\n        " + _SRC_MASK)],
        must_fail=[]),
    ("a4_transformer", "embed zeroes the embeddings of <pad> tokens (as padding_idx would)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)\n"
                  "                                             * (tokens != self.config.pad_id)[..., None]))")],
        must_fail=[]),
    ("a4_transformer", "decode gives the target mask another heads axis ((B, 1, 1, T, T))"): Mutant(
        "transformer.py",
        [(_TGT_MASK, "tgt_mask = target_mask(tgt, self.config.pad_id)[:, None]  # (B, 1, T, T)")],
        must_fail=[]),
    ("a4_transformer", "decode converts the target mask to floats (1.0 = may attend)"): Mutant(
        "transformer.py",
        [(_TGT_MASK, "tgt_mask = target_mask(tgt, self.config.pad_id).float()  # (B, 1, T, T)")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention sub-layer without its dropout"): Mutant(
        "layers.py",
        [("x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))",
          "x = self.norm2(x + self.cross_attn(x, memory, memory, src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder feed-forward dropout through nn.functional.dropout (stays on in eval)"): Mutant(
        "layers.py",
        [("x = x + self.dropout3(self.ff(self.norm3(x)))",
          "x = x + nn.functional.dropout(self.ff(self.norm3(x)), self.dropout3.p)")],
        must_fail=[]),
    ("a4_transformer", "encode applies the embedding dropout after every encoder layer too"): Mutant(
        "transformer.py",
        [("            x = layer(x, src_mask)\n", "            x = self.dropout(layer(x, src_mask))\n")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "top-p cumulates exp(logits) without normalising them"): Mutant(
        "sampling.py",
        [("probs = sorted_logits.softmax(dim=-1)", "probs = sorted_logits.exp()")],
        must_fail=[]),
    ("a5_decoding", "greedy argmax without dim (an index into the flattened batch)"): Mutant(
        "sampling.py",
        [("        return logits.argmax(dim=-1)\n", "        return logits.argmax()\n")],
        must_fail=[]),
    ("a5_decoding", "greedy test written `temperature is 0` (0.0 is not 0)"): Mutant(
        "sampling.py",
        [("    if temperature == 0 or top_k == 1:\n", "    if temperature is 0 or top_k == 1:\n")],
        must_fail=[]),
    ("a5_decoding", "top_k checked without `is not None` (None < 1 raises)"): Mutant(
        "sampling.py",
        [("    if top_k is not None and top_k < 1:\n", "    if top_k < 1:\n")],
        must_fail=[]),
    ("a5_decoding", "top_k larger than the vocabulary rejected instead of keeping every token"): Mutant(
        "sampling.py",
        [("    if top_p is not None and not 0 < top_p <= 1:\n",
          "    if top_k is not None and top_k > logits.size(-1):\n"
          '        raise ValueError(f"top_k must be at most the vocabulary size {logits.size(-1)}, got {top_k}")\n'
          "    if top_p is not None and not 0 < top_p <= 1:\n")],
        must_fail=[]),
    ("a5_decoding", "draws from exp(logits) without softmax (overflows at low temperature)"): Mutant(
        "sampling.py",
        [("probs = logits.softmax(dim=-1)  # renormalised", "probs = logits.exp()  # multinomial renormalises")],
        must_fail=[]),
    ("a5_decoding", "finished flags shaped (B, 1) (the padding broadcasts to (B, B))"): Mutant(
        "decoding.py",
        [("finished = torch.zeros(B, dtype=torch.bool, device=src.device)",
          "finished = torch.zeros(B, 1, dtype=torch.bool, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "steps with model.decode and reads the logits of position 0"): Mutant(
        "decoding.py",
        [("logits = decoder.step(tokens)  # (B, V)", "logits = model.decode(tokens, memory, src_mask)[:, 0]  # (B, V)")],
        must_fail=[]),
    ("a5_decoding", "rows marked finished on sos_id instead of eos_id"): Mutant(
        "decoding.py",
        [(_FINISHED_UPDATE, "        finished |= next_token == sos_id\n")],
        must_fail=[]),
    ("a5_decoding", "result sliced tokens[:, 1:max_len] (the last of max_len tokens dropped)"): Mutant(
        "decoding.py",
        [("    return tokens[:, 1:]\n", "    return tokens[:, 1:max_len]\n")],
        must_fail=[]),
    ("a5_decoding", "finished score leaves out the EOS token's log-probability (previous score used)"): Mutant(
        "beam.py",
        [(_FINISH, "finished.append((scores[beam].item() / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "length penalty written step ** alpha (not GNMT's ((5 + n) / 6) ** alpha)"): Mutant(
        "beam.py",
        [(_FINISH, "finished.append((score / step ** length_penalty, tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "beam tops the live hypotheses up to beam_size from 2 * beam_size candidates"): Mutant(
        "beam.py",
        [(_TOP, "top = logp.flatten().topk(min(2 * beam_size, logp.numel()))"),
         ("                else:\n                    live.append((score, beam, token))",
          "                elif len(live) < beam_size:\n                    live.append((score, beam, token))")],
        must_fail=[]),
    ("a5_decoding", "beam output built with torch.tensor(best) (ragged hypotheses)"): Mutant(
        "beam.py",
        [(_OUT, "    return torch.tensor(best, dtype=torch.long, device=src.device)\n")],
        must_fail=[]),
    ("a5_decoding", "beam hypotheses written from column 1 (column 0 left for a <sos>)"): Mutant(
        "beam.py",
        [("out[b, :len(hypothesis)] = torch.tensor(hypothesis, dtype=torch.long)",
          "out[b, 1:len(hypothesis) + 1] = torch.tensor(hypothesis, dtype=torch.long)")],
        must_fail=[]),
    ("a5_decoding", "temperatures above 1 rejected (checks temperature > 1 too)"): Mutant(
        "sampling.py",
        [("    if temperature < 0:\n", "    if temperature < 0 or temperature > 1:\n")],
        must_fail=[]),
    ("a5_decoding", "sampled ids taken with [0] (the first row's draw) instead of squeeze(-1)"): Mutant(
        "sampling.py",
        [("return torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
          "return torch.multinomial(probs, 1, generator=generator)[0]")],
        must_fail=[]),
    ("a5_decoding", "top-k guard compares top_k with logits.size(0), the batch size"): Mutant(
        "sampling.py",
        [("if top_k is not None and top_k < logits.size(-1):", "if top_k is not None and top_k < logits.size(0):")],
        must_fail=[]),
    ("a5_decoding", "beam loop counts steps from 0 (max_len + 1 tokens, lp(0) for the first)"): Mutant(
        "beam.py",
        [("for step in range(1, max_len + 1):", "for step in range(max_len + 1):")],
        must_fail=[]),
    ("a5_decoding", "beam searches range(B - 1) sentences (the last row left as padding)"): Mutant(
        "beam.py",
        [("for b in range(src.size(0))]", "for b in range(src.size(0) - 1)]")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "apostrophes kept among the allowed characters (don't stays don't)"): Mutant(
        "preprocessing.py",
        [(_DELETE, r'''text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}'\\s]", "", text)''')],
        must_fail=[]),
    ("a6_translator", "full stop made a punctuation token too ('hola .')"): Mutant(
        "preprocessing.py",
        [(_SPACE_PUNCT, 'text = re.sub(f"([{PUNCTUATION}.])", r" \\1 ", text)'),
         (_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}.\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "whitespace collapsed with re.sub(' +') (tabs and newlines kept)"): Mutant(
        "preprocessing.py",
        [(_COLLAPSE, 'return re.sub(" +", " ", text).strip()')],
        must_fail=[]),
    ("a6_translator", "words deduplicated with dict.fromkeys, specials in the list not skipped"): Mutant(
        "vocab.py",
        [(_ITOS + "\n        " + _STOI + "\n" + _WORD_LOOP,
          "self.itos = [self.PAD, self.SOS, self.EOS, self.UNK] + list(dict.fromkeys(words))\n"
          "        self.stoi = {word: i for i, word in enumerate(self.itos)}\n")],
        must_fail=[]),
    ("a6_translator", "min_freq ignored when sorting (every counted word kept)"): Mutant(
        "vocab.py",
        [("return cls(sorted(kept, key=lambda word: (-counts[word], word)))",
          "return cls(sorted(counts, key=lambda word: (-counts[word], word)))")],
        must_fail=[]),
    ("a6_translator", "decode range check i <= len(self) (id len(self) slips past it)"): Mutant(
        "vocab.py",
        [("if not 0 <= i < len(self.itos):", "if not 0 <= i <= len(self.itos):")],
        must_fail=[]),
    ("a6_translator", "target cut without checking its length (short targets get a second <eos>)"): Mutant(
        "batching.py",
        [(_TRUNCATE, "            src_ids = src_ids[: self.max_len]\n"
                     "            tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]\n")],
        must_fail=[]),
    ("a6_translator", "collate fills the target rows from the source (copy-paste)"): Mutant(
        "batching.py",
        [("        tgt_batch[b, : len(tgt)] = tgt\n", "        tgt_batch[b, : len(src)] = src\n")],
        must_fail=[]),
    ("a6_translator", "collate gives every target batch one extra pad column"): Mutant(
        "batching.py",
        [("    T = max(len(tgt) for _, tgt in batch)\n", "    T = max(len(tgt) for _, tgt in batch) + 1\n")],
        must_fail=[]),
    ("a6_translator", "mean loss divided again by the batch size"): Mutant(
        "training.py",
        [(_CE, "    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing) / logits.size(0)\n")],
        must_fail=[]),
    ("a6_translator", "ignore_index passed positionally (pad_id lands on weight)"): Mutant(
        "training.py",
        [(_CE, "    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), pad_id,\n"
               "                           label_smoothing=label_smoothing)  # (B*T, V) vs (B*T,) -> ()\n")],
        must_fail=[]),
    ("a6_translator", "sequence_loss reads V as logits.size(1), the target length"): Mutant(
        "training.py",
        [("    V = logits.size(-1)\n", "    V = logits.size(1)\n")],
        must_fail=[]),
    ("a6_translator", "teacher forcing also trims the source (model(src[:, :-1], ...))"): Mutant(
        "training.py",
        [("logits = model(src, tgt_in)  # (B, T - 1, V)", "logits = model(src[:, :-1], tgt_in)  # (B, T - 1, V)")],
        must_fail=[]),
    ("a6_translator", "clip_grad_norm_ given model.parameters uncalled"): Mutant(
        "training.py",
        [("clip_grad_norm_(model.parameters(), clip_norm)", "clip_grad_norm_(model.parameters, clip_norm)")],
        must_fail=[]),
    ("a6_translator", "evaluate feeds the labels (tgt[:, 1:]) to the decoder"): Mutant(
        "training.py",
        [("logits = model(src, tgt[:, :-1])  # (B, T - 1, V)", "logits = model(src, labels)  # (B, T - 1, V)")],
        must_fail=[]),
    ("a6_translator", "evaluate divides by zero when every label is pad (no ValueError)"): Mutant(
        "training.py",
        [('    if count == 0:\n        raise ValueError("no target tokens to evaluate (every label is pad_id)")\n', "")],
        must_fail=[]),
    ("a6_translator", "own punctuation list '?!,' forgets the inverted marks (¿ and ¡ deleted)"): Mutant(
        "preprocessing.py",
        [(_SPACE_PUNCT, 'text = re.sub(r"([?!,])", r" \\1 ", text)'),
         (_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}?!,\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "whitespace collapsed with one replace('  ', ' ') (runs of three stay double)"): Mutant(
        "preprocessing.py",
        [(_COLLAPSE, 'return text.replace("  ", " ").strip()')],
        must_fail=[]),
    ("a6_translator", "decode joins word + ' ' for each word (a trailing space)"): Mutant(
        "vocab.py",
        [('return " ".join(words)', 'return "".join(word + " " for word in words)')],
        must_fail=[]),
    ("a6_translator", "labels flattened to (B*T, 1)"): Mutant(
        "training.py",
        [("labels.reshape(-1), ignore_index=pad_id,\n                           label_smoothing",
          "labels.reshape(-1, 1), ignore_index=pad_id,\n                           label_smoothing")],
        must_fail=[]),
    ("a6_translator", "loss.backward written without the call (no gradients)"): Mutant(
        "training.py",
        [("    loss.backward()\n", "    loss.backward\n")],
        must_fail=[]),
    ("a6_translator", "train_step shifts a second time inside the loss (logits[:, :-1] vs labels[:, 1:])"): Mutant(
        "training.py",
        [("loss = sequence_loss(logits, labels, pad_id, label_smoothing)",
          "loss = sequence_loss(logits[:, :-1], labels[:, 1:], pad_id, label_smoothing)")],
        must_fail=[]),
    ("a6_translator", "evaluate writes `with torch.no_grad:` (the class, not an instance)"): Mutant(
        "training.py",
        [("        with torch.no_grad():\n", "        with torch.no_grad:\n")],
        must_fail=[]),
    ("a6_translator", "translate keeps the last max_len ids of a long source"): Mutant(
        "translation.py",
        [("encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]",
          "encoded = [src_vocab.encode(clean_text(s))[-limit:] for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate builds the batch with torch.tensor of the ragged id lists"): Mutant(
        "translation.py",
        [("    src = torch.full((len(rows), S), src_vocab.pad_id, dtype=torch.long, device=device)  # (B, S)\n"
          "    for b, i in enumerate(rows):\n"
          "        src[b, : len(encoded[i])] = torch.tensor(encoded[i], dtype=torch.long)\n",
          "    src = torch.tensor([encoded[i] for i in rows], dtype=torch.long, device=device)  # (B, S)\n")],
        must_fail=[]),
}
