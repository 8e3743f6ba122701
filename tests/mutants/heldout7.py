"""The seventh round of held-out classic mistakes: 94 edits of the reference solutions, each
one mistake as a student writes it (a1 14, a2 13, a3 14, a4 15, a5 16, a6 22). Every edit
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
_CAUSAL = "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))"
_OUTPUT = "    output = weights @ v  # (..., T_q, d_v)"
_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_WEIGHTS_NOMASK = "        weights = torch.softmax(scores, dim=-1)\n    output"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_FF_DROPOUT = "self.dropout = nn.Dropout(dropout)"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)"
_MHA_ATTEND = "out, weights = scaled_dot_product_attention(q, k, v, mask)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_MHA_RETURN = "return self.w_o(out), (weights if need_weights else None)"
_PE_POSITION = "position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)"
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"

_ENC_PRE_ATTN = "x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])"
_ENC_PRE_FF = "x = x + self.dropout2(self.ff(self.norm2(x)))"
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_FF = "x = x + self.dropout3(self.ff(self.norm3(x)))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_TGT_MASK = "tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)"
_DEC_RETURN = "return self.generator(self.decoder_norm(x))  # (B, T, V)"

_TOP_K = ("        kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)\n"
          '        logits = logits.masked_fill(logits < kth, float("-inf"))\n')
_TOP_K_BLOCK = "    if top_k is not None and top_k < logits.size(-1):\n" + _TOP_K
_TOP_P_BLOCK = ("    if top_p is not None and top_p < 1:\n"
                "        sorted_logits, order = logits.sort(dim=-1, descending=True)  # (B, V)\n"
                "        probs = sorted_logits.softmax(dim=-1)\n"
                "        before = probs.cumsum(dim=-1) - probs  # probability of the tokens ranked above\n"
                '        sorted_logits = sorted_logits.masked_fill(before >= top_p, float("-inf"))\n'
                "        logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)\n")
_GREEDY = "    if temperature == 0 or top_k == 1:\n        return logits.argmax(dim=-1)\n"
_STEP = "        logits = decoder.step(tokens)  # (B, V)\n"
_FINISHED = "finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))"

_NFC = 'text = unicodedata.normalize("NFC", text).lower()'
_PUNCT = 'text = re.sub(f"([{PUNCTUATION}])", r" \\1 ", text)'
_RANGE = "if not 0 <= i < len(self.itos):"
_TRUNC_TGT = ("            if len(tgt_ids) > self.max_len:\n"
              "                tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]\n")
_FULL_SRC = "src_batch = torch.full((len(batch), S), pad_id, dtype=torch.long)  # (B, S)"
_FULL_TGT = "tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.long)  # (B, T)"
_CE = ("    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
       "                           label_smoothing=label_smoothing)  # (B*T, V) vs (B*T,) -> ()\n")
_EVAL_LOOP = """    try:
        with torch.no_grad():
            for src, tgt in batches:
                labels = tgt[:, 1:]  # (B, T - 1)
                logits = model(src, tgt[:, :-1])  # (B, T - 1, V)
                total += F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                                         ignore_index=pad_id, reduction="sum").item()
                count += int((labels != pad_id).sum())
    finally:
        model.train(was_training)
"""
_ENCODED = "encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]"
_DECODE_CALL = "out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id,"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "weights detached before mixing the values (no gradient reaches q and k)"): Mutant(
        "attention.py",
        [(_OUTPUT, "    output = weights.detach() @ v  # (..., T_q, d_v)")],
        must_fail=[]),
    ("a1_attention", "softmax taken in float64 for stability (weights float64, matmul with v fails)"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1, dtype=torch.float64).masked_fill(~has_key, 0.0)"),
         (_WEIGHTS_NOMASK, "        weights = torch.softmax(scores, dim=-1, dtype=torch.float64)\n    output")],
        must_fail=[]),
    ("a1_attention", "target mask takes T from tokens.size(0), the batch size"): Mutant(
        "masks.py",
        [("    T = tokens.size(1)\n", "    T = tokens.size(0)\n")],
        must_fail=[]),
    ("a1_attention", "target mask's causal part built for T - 1 positions (as if already shifted)"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id) & causal_mask(T - 1, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "causal mask is torch.eye: each position sees only itself"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.eye(T, dtype=torch.bool, device=device)")],
        must_fail=[]),
    ("a1_attention", "causal mask all True (the tril forgotten)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.ones(T, T, dtype=torch.bool, device=device)")],
        must_fail=[]),
    ("a1_attention", "output mixed with a fresh unmasked softmax; only the returned weights are masked"): Mutant(
        "attention.py",
        [(_OUTPUT, "    output = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ v")],
        must_fail=[]),
    ("a1_attention", "hand-written softmax subtracts the global max, not each row's"): Mutant(
        "attention.py",
        [(_WEIGHTS, "e = torch.exp(scores - scores.max())\n"
                    "        weights = (e / e.sum(dim=-1, keepdim=True)).masked_fill(~has_key, 0.0)"),
         (_WEIGHTS_NOMASK, "        e = torch.exp(scores - scores.max())\n"
                           "        weights = e / e.sum(dim=-1, keepdim=True)\n    output")],
        must_fail=[]),
    ("a1_attention", "causal mask cached on the function at the first call (later T ignored)"): Mutant(
        "masks.py",
        [(_CAUSAL, 'if getattr(causal_mask, "cached", None) is None:\n'
                   "        causal_mask.cached = torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))\n"
                   "    return causal_mask.cached")],
        must_fail=[]),
    ("a1_attention", "fully masked rows zeroed in place on the softmax output (masked_fill_, autograd fails)"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1)\n        weights.masked_fill_(~has_key, 0.0)")],
        must_fail=[]),
    ("a1_attention", "padding mask expanded to (B, 1, S, S) (queries assumed as many as keys)"): Mutant(
        "masks.py",
        [(_PADDING, "S = tokens.size(1)\n    return (tokens != pad_id)[:, None, None, :].expand(-1, 1, S, S)")],
        must_fail=[]),
    ("a1_attention", "target mask combined in place (&=) on the (B, 1, 1, T) padding mask"): Mutant(
        "masks.py",
        [(_TARGET, "mask = padding_mask(tokens, pad_id)\n    mask &= causal_mask(T, device=tokens.device)\n    return mask")],
        must_fail=[]),
    ("a1_attention", "masked weights clamped at 1e-9 (masked keys keep a little weight)"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1).clamp(min=1e-9).masked_fill(~has_key, 0.0)")],
        must_fail=[]),
    ("a1_attention", "scores floor-divided (//) by sqrt(d_k)"): Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1) // math.sqrt(d_k)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "parameters created with the shape reversed (normalized_shape[::-1])"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(self.normalized_shape[::-1]))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(self.normalized_shape[::-1]))")],
        must_fail=[]),
    ("a2_layernorm", "input cast to float32 first (float64 inputs come back float32)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "x = x.float()\n        " + _LN_DIMS)],
        must_fail=[]),
    ("a2_layernorm", "weight and bias flattened with view(-1) (tuple shapes break)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight.view(-1) + self.bias.view(-1)")],
        must_fail=[]),
    ("a2_layernorm", "parameters built with torch.Tensor(shape): a tensor of the sizes, not of that shape"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.Tensor(self.normalized_shape).fill_(1.0))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.Tensor(self.normalized_shape).zero_())")],
        must_fail=[]),
    ("a2_layernorm", "eps squared under the square root"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps ** 2) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "eps added to the centred input instead of the variance"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean + self.eps) / torch.sqrt(var) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "scale and shift applied only in training mode"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "y = (x - mean) / torch.sqrt(var + self.eps)\n"
                      "        if self.training:\n"
                      "            y = y * self.weight + self.bias\n"
                      "        return y")],
        must_fail=[]),
    ("a2_layernorm", "dims written as positive indices for 3-D inputs (range(3 - n, 3))"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(3 - len(self.normalized_shape), 3))")],
        must_fail=[]),
    ("a2_layernorm", "eps subtracted from the variance (sign slip)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var - self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "variance divided by x.numel(), the whole tensor's size"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = ((x - mean) ** 2).sum(dim=dims, keepdim=True) / x.numel()")],
        must_fail=[]),
    ("a2_layernorm", "eps used only where the variance is exactly zero (torch.where)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, _LN_VAR + "\n        var = torch.where(var == 0, torch.full_like(var, self.eps), var)"),
         (_LN_RETURN, "return (x - mean) / torch.sqrt(var) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "variance centred on the whole tensor's mean (dim forgotten inside the variance)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = ((x - x.mean()) ** 2).mean(dim=dims, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "mean summed over dims but divided by the number of dims"): Mutant(
        "layernorm.py",
        [("mean = x.mean(dim=dims, keepdim=True)", "mean = x.sum(dim=dims, keepdim=True) / len(dims)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "feed-forward dropout built with the keep probability (nn.Dropout(1 - p))"): Mutant(
        "feedforward.py",
        [(_FF_DROPOUT, "self.dropout = nn.Dropout(1 - dropout)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward flattens (B, T) into one axis and never restores it"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(torch.relu(self.linear1(x.reshape(-1, x.size(-1))))))")],
        must_fail=[]),
    ("a3_blocks", "w_q, w_k and w_v one shared Linear (chained assignment)"): Mutant(
        "multihead.py",
        [("        self.w_q = nn.Linear(d_model, d_model)\n"
          "        self.w_k = nn.Linear(d_model, d_model)\n"
          "        self.w_v = nn.Linear(d_model, d_model)\n",
          "        self.w_q = self.w_k = self.w_v = nn.Linear(d_model, d_model)\n")],
        must_fail=[]),
    ("a3_blocks", "returns only the first head's weights (weights[:, 0])"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return self.w_o(out), (weights[:, 0] if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "attention called as (k, q, v): keys attend to the queries"): Mutant(
        "multihead.py",
        [(_MHA_ATTEND, "out, weights = scaled_dot_product_attention(k, q, v, mask)")],
        must_fail=[]),
    ("a3_blocks", "output projection applied to each head before merging"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = self.w_o(out).transpose(1, 2).reshape(B, T_q, self.d_model)"),
         (_MHA_RETURN, "return out, (weights if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "queries not projected (w_q skipped)"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = query.view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)")],
        must_fail=[]),
    ("a3_blocks", "returned weights recomputed from q and k without the mask"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "weights = (q @ k.transpose(-2, -1) / d_k ** 0.5).softmax(dim=-1)\n        " + _MHA_RETURN)],
        must_fail=[]),
    ("a3_blocks", "adds T + 1 table rows (off by one)"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[:T + 1]")],
        must_fail=[]),
    ("a3_blocks", "table rows sliced by x.size(-1), the model size"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[:x.size(-1)]")],
        must_fail=[]),
    ("a3_blocks", "cosines computed as sqrt(1 - sin^2) (their sign lost)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.sqrt(1 - pe[:, 0::2] ** 2)")],
        must_fail=[]),
    ("a3_blocks", "ReLU moved after the second linear layer"): Mutant(
        "feedforward.py",
        [(_FF, "return torch.relu(self.linear2(self.dropout(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "values projected from the query input (self.w_v(query))"): Mutant(
        "multihead.py",
        [("v = self.w_v(value).view(B, T_k, h, d_k)", "v = self.w_v(query).view(B, T_k, h, d_k)")],
        must_fail=[]),
    ("a3_blocks", "frequency exponent divided by max_len instead of d_model"): Mutant(
        "positional.py",
        [("(-math.log(10000.0) / d_model))", "(-math.log(10000.0) / max_len))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "decode rebuilds the source mask from the target tokens"): Mutant(
        "transformer.py",
        [(_TGT_MASK, _TGT_MASK + "\n        src_mask = padding_mask(tgt, self.config.pad_id)")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder residual added in place (x += ...): autograd fails, caller's x changed"): Mutant(
        "layers.py",
        [(_ENC_PRE_ATTN, "x += self.dropout1(self.self_attn(y, y, y, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "embeddings scaled by sqrt of the sequence length (tokens.size(-1))"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.sqrt(tokens.size(-1))))")],
        must_fail=[]),
    ("a4_transformer", "decoder causal mask sized by the source length"): Mutant(
        "transformer.py",
        [(_TGT_MASK, "from masks import causal_mask\n"
                     "        tgt_mask = padding_mask(tgt, self.config.pad_id) & causal_mask(memory.size(1), device=tgt.device)")],
        must_fail=[]),
    ("a4_transformer", "encoder output detached between layers (only the last layer learns)"): Mutant(
        "transformer.py",
        [("            x = layer(x, src_mask)\n", "            x = layer(x, src_mask).detach()\n")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder discards the cross-attention result (assigned to another name)"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "y = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "decode applies encoder_norm to the memory again"): Mutant(
        "transformer.py",
        [(_TGT_MASK, "memory = self.encoder_norm(memory)\n        " + _TGT_MASK)],
        must_fail=[]),
    ("a4_transformer", "decoder layers called as layer(memory, x, ...)"): Mutant(
        "transformer.py",
        [("            x = layer(x, memory, tgt_mask, src_mask)\n", "            x = layer(memory, x, tgt_mask, src_mask)\n")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder also normalises its input (norm1 before and after)"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(x)\n            " + _ENC_POST_ATTN)],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder feed-forward without its residual"): Mutant(
        "layers.py",
        [(_DEC_PRE_FF, "x = self.dropout3(self.ff(self.norm3(x)))")],
        must_fail=[]),
    ("a4_transformer", "return inside the decoder loop (only the first decoder layer runs)"): Mutant(
        "transformer.py",
        [("            x = layer(x, memory, tgt_mask, src_mask)\n        " + _DEC_RETURN,
          "            x = layer(x, memory, tgt_mask, src_mask)\n            " + _DEC_RETURN)],
        must_fail=[]),
    ("a4_transformer", "embeddings scaled by math.isqrt(d_model) (integer square root)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.isqrt(self.config.d_model)))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder discards the feed-forward result (assigned to another name)"): Mutant(
        "layers.py",
        [(_ENC_POST_FF, "y = self.norm2(x + self.dropout2(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "logits divided by sqrt(d_model) (the tied-embedding rescale, always applied)"): Mutant(
        "transformer.py",
        [(_DEC_RETURN, "return self.generator(self.decoder_norm(x)) / math.sqrt(self.config.d_model)  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention residual taken from the memory"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "x = self.norm2(memory + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "top-k samples an index among the k kept values, not a vocabulary id"): Mutant(
        "sampling.py",
        [(_TOP_K, "        logits = logits.topk(top_k, dim=-1).values  # (B, k)\n")],
        must_fail=[]),
    ("a5_decoding", "top-p filtering applied before top-k"): Mutant(
        "sampling.py",
        [(_TOP_K_BLOCK + _TOP_P_BLOCK, _TOP_P_BLOCK + _TOP_K_BLOCK)],
        must_fail=[]),
    ("a5_decoding", "sampled ids returned as int32"): Mutant(
        "sampling.py",
        [("return torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
          "return torch.multinomial(probs, 1, generator=generator).squeeze(-1).int()")],
        must_fail=[]),
    ("a5_decoding", "decoder stepped on the prefix without its <sos> column"): Mutant(
        "decoding.py",
        [(_STEP, "        logits = decoder.step(tokens[:, 1:])  # (B, V)\n")],
        must_fail=[]),
    ("a5_decoding", "decoder re-made inside the loop (the key/value cache thrown away every step)"): Mutant(
        "decoding.py",
        [(_STEP, "        decoder = make_decoder(model, memory, src_mask, use_cache)\n" + _STEP)],
        must_fail=[]),
    ("a5_decoding", "beam finishes hypotheses at step max_len - 1 (one token short)"): Mutant(
        "beam.py",
        [("if token == eos_id or step == max_len:", "if token == eos_id or step == max_len - 1:")],
        must_fail=[]),
    ("a5_decoding", "beam calls lp(length_penalty, step), the arguments swapped"): Mutant(
        "beam.py",
        [(_FINISHED, "finished.append((score / lp(length_penalty, step), tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "beam searches src[0:1] for every sentence (copy slip)"): Mutant(
        "beam.py",
        [("best = [search_one(src[b:b + 1]) for b in range(src.size(0))]",
          "best = [search_one(src[0:1]) for b in range(src.size(0))]")],
        must_fail=[]),
    ("a5_decoding", "top-k threshold taken from the first row for the whole batch"): Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)",
          "kth = logits.topk(top_k, dim=-1).values[0, -1]")],
        must_fail=[]),
    ("a5_decoding", "beam starts from score 1 (a probability) instead of log-probability 0"): Mutant(
        "beam.py",
        [("scores = torch.zeros(1, device=src.device)", "scores = torch.ones(1, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "beam stops early when a finished normalised score beats the best raw live score"): Mutant(
        "beam.py",
        [("            if not live:\n                break",
          "            if not live or (finished and max(f[0] for f in finished) > live[0][0]):\n                break")],
        must_fail=[]),
    ("a5_decoding", "takes logits[:, -1] again after decoder.step (already (B, V))"): Mutant(
        "decoding.py",
        [(_STEP, "        logits = decoder.step(tokens)[:, -1]\n")],
        must_fail=[]),
    ("a5_decoding", "sample_decode does not pass the generator on"): Mutant(
        "decoding.py",
        [("sample_next_token(logits, temperature, top_k, top_p, generator)",
          "sample_next_token(logits, temperature, top_k, top_p)")],
        must_fail=[]),
    ("a5_decoding", "temperature ignored when top-k or top-p is set"): Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n",
          "    if top_k is None and top_p is None:\n        logits = logits / temperature\n")],
        must_fail=[]),
    ("a5_decoding", "top-p written as elif: ignored whenever top-k is set"): Mutant(
        "sampling.py",
        [("    if top_p is not None and top_p < 1:\n", "    elif top_p is not None and top_p < 1:\n")],
        must_fail=[]),
    ("a5_decoding", "top-k threshold taken along the batch axis (topk over dim=0)"): Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)",
          "kth = logits.topk(top_k, dim=0).values[-1:]  # (1, V)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "re.I passed positionally as re.sub's count (only the first 2 marks spaced)"): Mutant(
        "preprocessing.py",
        [(_PUNCT, 'text = re.sub(f"([{PUNCTUATION}])", r" \\1 ", text, re.I)')],
        must_fail=[]),
    ("a6_translator", "Vocab deduplicates the words with set() (their order scrambled)"): Mutant(
        "vocab.py",
        [("        for word in words:\n", "        for word in set(words):\n")],
        must_fail=[]),
    ("a6_translator", "decode range check starts at 1 (id 0, <pad>, raises)"): Mutant(
        "vocab.py",
        [(_RANGE, "if not 0 < i < len(self.itos):")],
        must_fail=[]),
    ("a6_translator", "decode stops at the first <pad>"): Mutant(
        "vocab.py",
        [("            if i not in (self.pad_id, self.sos_id, self.eos_id):\n",
          "            if i == self.pad_id:\n                break\n"
          "            if i not in (self.sos_id, self.eos_id):\n")],
        must_fail=[]),
    ("a6_translator", "long target keeps its last max_len ids (loses <sos>)"): Mutant(
        "batching.py",
        [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]", "tgt_ids = tgt_ids[-self.max_len:]")],
        must_fail=[]),
    ("a6_translator", "dataset items returned as Python lists, not tensors"): Mutant(
        "batching.py",
        [("return torch.tensor(src_ids, dtype=torch.long), torch.tensor(tgt_ids, dtype=torch.long)",
          "return src_ids, tgt_ids")],
        must_fail=[]),
    ("a6_translator", "collate allocates int32 batches"): Mutant(
        "batching.py",
        [(_FULL_SRC, "src_batch = torch.full((len(batch), S), pad_id, dtype=torch.int32)"),
         (_FULL_TGT, "tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.int32)")],
        must_fail=[]),
    ("a6_translator", "collate sorts the batch by source length (rows reordered)"): Mutant(
        "batching.py",
        [("    S = max(len(src) for src, _ in batch)\n",
          "    batch = sorted(batch, key=lambda item: len(item[0]), reverse=True)\n"
          "    S = max(len(src) for src, _ in batch)\n")],
        must_fail=[]),
    ("a6_translator", "sequence_loss averages per sentence, then over the batch"): Mutant(
        "training.py",
        [(_CE, "    loss = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               '                           label_smoothing=label_smoothing, reduction="none").view(labels.shape)\n'
               "    real = (labels != pad_id).float()\n"
               "    return ((loss * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)).mean()\n")],
        must_fail=[]),
    ("a6_translator", "sequence_loss uses nll_loss on the raw logits (log_softmax forgotten)"): Mutant(
        "training.py",
        [(_CE, "    return F.nll_loss(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id)\n")],
        must_fail=[]),
    ("a6_translator", "train_step returns the loss recomputed after the update"): Mutant(
        "training.py",
        [("    optimizer.step()\n    return loss.item()\n",
          "    optimizer.step()\n    return sequence_loss(model(src, tgt_in), labels, pad_id, label_smoothing).item()\n")],
        must_fail=[]),
    ("a6_translator", "train_step passes pad_id and label_smoothing to sequence_loss swapped"): Mutant(
        "training.py",
        [("loss = sequence_loss(logits, labels, pad_id, label_smoothing)",
          "loss = sequence_loss(logits, labels, label_smoothing, pad_id)")],
        must_fail=[]),
    ("a6_translator", "fit records each epoch's sum of batch losses, not their mean"): Mutant(
        "training.py",
        [("history.append(sum(losses) / len(losses))", "history.append(sum(losses))")],
        must_fail=[]),
    ("a6_translator", "translate truncates sources to max_len - 1 words"): Mutant(
        "translation.py",
        [(_ENCODED, "encoded = [src_vocab.encode(clean_text(s))[:limit - 1] for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate asks decode for one token fewer (min(...) - 1)"): Mutant(
        "translation.py",
        [(_DECODE_CALL, "out = decode(model, src, strategy, min(max_len, limit) - 1, tgt_vocab.sos_id, tgt_vocab.eos_id,")],
        must_fail=[]),
    ("a6_translator", "translate pads the source batch with <unk>"): Mutant(
        "translation.py",
        [("src = torch.full((len(rows), S), src_vocab.pad_id,", "src = torch.full((len(rows), S), src_vocab.unk_id,")],
        must_fail=[]),
    ("a6_translator", "decode raises ValueError for an out-of-range id"): Mutant(
        "vocab.py",
        [("raise IndexError(f\"id {i} is outside", "raise ValueError(f\"id {i} is outside")],
        must_fail=[]),
    ("a6_translator", "collate numbers the rows from 1 (enumerate(batch, 1))"): Mutant(
        "batching.py",
        [("for b, (src, tgt) in enumerate(batch):", "for b, (src, tgt) in enumerate(batch, 1):")],
        must_fail=[]),
    ("a6_translator", "sequence_loss flattens the labels time-major (labels.t()), the logits batch-major"): Mutant(
        "training.py",
        [("labels.reshape(-1), ignore_index=pad_id,\n                           label_smoothing",
          "labels.t().reshape(-1), ignore_index=pad_id,\n                           label_smoothing")],
        must_fail=[]),
    ("a6_translator", "clipping not guarded by clip_norm is not None (fails with the default)"): Mutant(
        "training.py",
        [("    if clip_norm is not None:\n        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n",
          "    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n")],
        must_fail=[]),
    ("a6_translator", "fit returns every batch loss in one flat list"): Mutant(
        "training.py",
        [("history.append(sum(losses) / len(losses))", "history.extend(losses)")],
        must_fail=[]),
    ("a6_translator", "translate reads model.device (an nn.Module has none)"): Mutant(
        "translation.py",
        [("device = next(model.parameters()).device", "device = model.device")],
        must_fail=[]),
}
