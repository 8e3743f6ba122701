"""The third round of held-out classic mistakes: 95 edits of the reference solutions, each
one mistake as a student writes it (a1 12, a2 21, a3 16, a4 11, a5 15, a6 20).

They were written without looking at the public tests, the graders, their diagnoses or the
tuned corpus (tests/mutants/a*.py), so they measure how well the tests and the diagnoses
generalise to mistakes nobody tuned them on. Each loses points at seeds 1, 2 and 3 (only
scores were looked at); a real mistake that kept full marks was left out of this list.
``must_fail`` is empty and there are no ``names``: only tests/mutants/public.py --heldout and
console.py --heldout read this module.
"""
from mutants import Mutant

# Lines of the reference solutions that several mutants edit.
_SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"
_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_CAUSAL = "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"
_MSA = "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_MEAN = "mean = x.mean(dim=dims, keepdim=True)"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)"
_MHA_SDPA = "out, weights = scaled_dot_product_attention(q, k, v, mask)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_PE_FREQ = "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))"
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"

_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_PRE_FF = "x = x + self.dropout2(self.ff(self.norm2(x)))"
_DEC_POST_SELF = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_DEC_PRE_CROSS = "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])"
_DEC_PRE_FF = "x = x + self.dropout3(self.ff(self.norm3(x)))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"

_KTH = "kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)"
_TOPK_FILL = 'logits = logits.masked_fill(logits < kth, float("-inf"))'
_SORT = "sorted_logits, order = logits.sort(dim=-1, descending=True)  # (B, V)"
_SCATTER = "logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)"
_DRAW = "probs = logits.softmax(dim=-1)  # renormalised over the kept tokens"

_CLEAN_SPACE = r'text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)'
_CLEAN_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_ENCODE = "encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "d_k read as q.size(1), the sequence length once there is a batch"): Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = q.size(1)")],
        must_fail=[]),
    ("a1_attention", "divides the weights by sqrt(d_k) after the softmax"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1)"),
         (_WEIGHTS, "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0) / math.sqrt(d_k)"),
         ("        weights = torch.softmax(scores, dim=-1)\n    output",
          "        weights = torch.softmax(scores, dim=-1) / math.sqrt(d_k)\n    output")],
        must_fail=[]),
    ("a1_attention", "scales the queries in place (q /= sqrt(d_k))"): Mutant(
        "attention.py",
        [(_SCORES, "q /= math.sqrt(d_k)\n    scores = q @ k.transpose(-2, -1)")],
        must_fail=[]),
    ("a1_attention", "has_key looks along the query axis (any over dim=-2)"): Mutant(
        "attention.py",
        [("has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.any(dim=-2, keepdim=True)")],
        must_fail=[]),
    ("a1_attention", "causal mask in the True-means-blocked convention (triu, diagonal=1)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)")],
        must_fail=[]),
    ("a1_attention", "padding mask gets its two new axes in front: (1, 1, B, S)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[None, None, :, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask compares with 0 instead of pad_id"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != 0)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask converted to floats"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id).float()[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "target mask is only the causal mask (padding forgotten)"): Mutant(
        "masks.py",
        [(_TARGET, "return causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "target mask combined with Python's and instead of &"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id) and causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention sizes the causal mask with Q.size(1) (d_k)"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(1), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "masked self-attention unpacks the weights as Z"): Mutant(
        "attention.py",
        [(_MSA, "_, Z = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "divides by rsqrt(var + eps) instead of multiplying by it"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.rsqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "dims range stops at -1, leaving out the last dimension"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(-len(self.normalized_shape), -1))")],
        must_fail=[]),
    ("a2_layernorm", "dims given as one int: only the first normalised dimension"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = -len(self.normalized_shape)")],
        must_fail=[]),
    ("a2_layernorm", "mean over the whole tensor (dim forgotten on mean)"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.mean()")],
        must_fail=[]),
    ("a2_layernorm", "variance over the whole tensor (dim forgotten on var)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = x.var(unbiased=False)")],
        must_fail=[]),
    ("a2_layernorm", "variance taken without keepdim"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = x.var(dim=dims, unbiased=False)")],
        must_fail=[]),
    ("a2_layernorm", "one scalar gain and one scalar shift for all features"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(1))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(1))")],
        must_fail=[]),
    ("a2_layernorm", "parameters frozen (requires_grad=False)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(self.normalized_shape), requires_grad=False)"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(self.normalized_shape), requires_grad=False)")],
        must_fail=[]),
    ("a2_layernorm", "weight initialised at random (randn) instead of ones"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.randn(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "bias created with torch.empty (never initialised)"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.bias = nn.Parameter(torch.empty(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "parameters created in float64"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(self.normalized_shape, dtype=torch.float64))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(self.normalized_shape, dtype=torch.float64))")],
        must_fail=[]),
    ("a2_layernorm", "standard deviation detached from the graph"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps).detach() * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "mean and variance computed on x.detach()"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.detach().mean(dim=dims, keepdim=True)"),
         (_LN_VAR, "var = x.detach().var(dim=dims, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias never applied"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps)")],
        must_fail=[]),
    ("a2_layernorm", "bias never added"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight")],
        must_fail=[]),
    ("a2_layernorm", "variance summed over dims but divided by the last dimension's size"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = ((x - mean) ** 2).sum(dim=dims, keepdim=True) / x.size(-1)")],
        must_fail=[]),
    ("a2_layernorm", "mean summed over dims but divided by the last dimension's size"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.sum(dim=dims, keepdim=True) / x.size(-1)")],
        must_fail=[]),
    ("a2_layernorm", "parameters named gamma and beta, as in the paper"): Mutant(
        "layernorm.py",
        [("self.weight", "self.gamma"), ("self.bias", "self.beta")],
        must_fail=[]),
    ("a2_layernorm", "parentheses put the weight in the denominator"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / (torch.sqrt(var + self.eps) * self.weight) + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "missing parentheses: x - mean / std"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return x - mean / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "variance clamped at eps instead of adding eps"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var.clamp(min=self.eps)) * self.weight + self.bias")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "feed-forward dropout on the input instead of the hidden layer"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(torch.relu(self.linear1(self.dropout(x))))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward hidden layer of size d_model (d_ff ignored)"): Mutant(
        "feedforward.py",
        [("self.linear1 = nn.Linear(d_model, d_ff)", "self.linear1 = nn.Linear(d_model, d_model)"),
         ("self.linear2 = nn.Linear(d_ff, d_model)", "self.linear2 = nn.Linear(d_model, d_model)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout fixed at 0.1, the argument ignored"): Mutant(
        "feedforward.py",
        [("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward adds its own residual"): Mutant(
        "feedforward.py",
        [(_FF, "return x + self.linear2(self.dropout(torch.relu(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "d_k computed with / (a float)"): Mutant(
        "multihead.py",
        [("self.d_k = d_model // num_heads", "self.d_k = d_model / num_heads")],
        must_fail=[]),
    ("a3_blocks", "divisibility checked the wrong way round (num_heads % d_model)"): Mutant(
        "multihead.py",
        [("if d_model % num_heads != 0:", "if num_heads % d_model != 0:")],
        must_fail=[]),
    ("a3_blocks", "projections without bias"): Mutant(
        "multihead.py",
        [("self.w_q = nn.Linear(d_model, d_model)", "self.w_q = nn.Linear(d_model, d_model, bias=False)"),
         ("self.w_k = nn.Linear(d_model, d_model)", "self.w_k = nn.Linear(d_model, d_model, bias=False)"),
         ("self.w_v = nn.Linear(d_model, d_model)", "self.w_v = nn.Linear(d_model, d_model, bias=False)"),
         ("self.w_o = nn.Linear(d_model, d_model)", "self.w_o = nn.Linear(d_model, d_model, bias=False)")],
        must_fail=[]),
    ("a3_blocks", "queries split with the key length T_k"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = self.w_q(query).view(B, T_k, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "attention dropout never applied"): Mutant(
        "multihead.py",
        [("        if self.training and self.dropout.p > 0:\n            out = self.dropout(weights) @ v  # (B, h, T_q, d_k)\n",
          "")],
        must_fail=[]),
    ("a3_blocks", "mask given an extra heads axis with unsqueeze(1)"): Mutant(
        "multihead.py",
        [(_MHA_SDPA, "out, weights = scaled_dot_product_attention(q, k, v, mask.unsqueeze(1) if mask is not None else None)")],
        must_fail=[]),
    ("a3_blocks", "heads merged with view after the transpose (not contiguous)"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.transpose(1, 2).view(B, T_q, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "frequency written -log(10000 / d_model) (parentheses misplaced)"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0 / d_model)))")],
        must_fail=[]),
    ("a3_blocks", "sines in the odd columns too (copy-paste)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.sin(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "cosine columns use the exponent (2i + 1) / d_model"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.cos(position * torch.exp(torch.arange(1, d_model, 2, dtype=torch.float32)"
                   " * (-math.log(10000.0) / d_model)))")],
        must_fail=[]),
    ("a3_blocks", "table sliced along the columns (pe[:, :T])"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[:, :T]")],
        must_fail=[]),
    ("a3_blocks", "adds the single row pe[T] to every position"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[T]")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "post-norm decoder cross-attention: queries from memory, keys from the decoder"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "x = self.norm2(x + self.dropout2(self.cross_attn(memory, x, x, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder feed-forward reuses y, normalised before the attention"): Mutant(
        "layers.py",
        [(_ENC_PRE_FF, "x = x + self.dropout2(self.ff(y))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder cross-attention reuses y, normalised before the self-attention"): Mutant(
        "layers.py",
        [(_DEC_PRE_CROSS, "x = x + self.dropout2(self.cross_attn(y, memory, memory, src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder feed-forward reads the un-normalised stream"): Mutant(
        "layers.py",
        [(_DEC_PRE_FF, "x = x + self.dropout3(self.ff(x))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder: dropout after the LayerNorm, on the whole stream"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.dropout1(self.norm1(x + self.self_attn(x, x, x, mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder forgets that attention returns (output, weights)"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)))")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention queries from the layer input"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF, "h = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"),
         (_DEC_POST_CROSS, "x = self.norm2(h + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder self-attention keys and values from memory (copy-paste)"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF, "x = self.norm1(x + self.dropout1(self.self_attn(x, memory, memory, tgt_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "dropout before the positions are added"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.positional(self.dropout(embedding(tokens) * math.sqrt(self.config.d_model)))")],
        must_fail=[]),
    ("a4_transformer", "source padding mask built with pad id 0, config.pad_id ignored"): Mutant(
        "transformer.py",
        [("src_mask = padding_mask(src, self.config.pad_id)", "src_mask = padding_mask(src, 0)")],
        must_fail=[]),
    ("a4_transformer", "decoder stack forgets its final LayerNorm"): Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))", "return self.generator(x)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "top-k threshold read at index k of the sorted logits (keeps k + 1)"): Mutant(
        "sampling.py",
        [(_KTH, "kth = logits.sort(dim=-1, descending=True).values[:, top_k:top_k + 1]")],
        must_fail=[]),
    ("a5_decoding", "top-k sets the dropped logits to 0 instead of -inf"): Mutant(
        "sampling.py",
        [(_TOPK_FILL, "logits = logits.masked_fill(logits < kth, 0.0)")],
        must_fail=[]),
    ("a5_decoding", "top-p sorts in ascending order"): Mutant(
        "sampling.py",
        [(_SORT, "sorted_logits, order = logits.sort(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "top-p cumulates the probabilities in vocabulary order, not sorted"): Mutant(
        "sampling.py",
        [("probs = sorted_logits.softmax(dim=-1)", "probs = logits.softmax(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "top-p undoes the sort with gather instead of scatter"): Mutant(
        "sampling.py",
        [(_SCATTER, "logits = sorted_logits.gather(-1, order)")],
        must_fail=[]),
    ("a5_decoding", "top_p = 0 accepted (0 <= top_p)"): Mutant(
        "sampling.py",
        [("if top_p is not None and not 0 < top_p <= 1:", "if top_p is not None and not 0 <= top_p <= 1:")],
        must_fail=[]),
    ("a5_decoding", "final softmax over dim 0 (the batch)"): Mutant(
        "sampling.py",
        [(_DRAW, "probs = logits.softmax(dim=0)")],
        must_fail=[]),
    ("a5_decoding", "greedy case returns argmax with keepdim=True, shape (B, 1)"): Mutant(
        "sampling.py",
        [("return logits.argmax(dim=-1)", "return logits.argmax(dim=-1, keepdim=True)")],
        must_fail=[]),
    ("a5_decoding", "temperature divides the probabilities instead of the logits"): Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", ""),
         (_DRAW, "probs = logits.softmax(dim=-1) / temperature")],
        must_fail=[]),
    ("a5_decoding", "finished rows padded with eos_id instead of pad_id"): Mutant(
        "decoding.py",
        [("next_token = next_token.masked_fill(finished, pad_id)", "next_token = next_token.masked_fill(finished, eos_id)")],
        must_fail=[]),
    ("a5_decoding", "loop runs max_len + 1 steps"): Mutant(
        "decoding.py",
        [("for _ in range(max_len):", "for _ in range(max_len + 1):")],
        must_fail=[]),
    ("a5_decoding", "greedy_decode does not pass pad_id on"): Mutant(
        "decoding.py",
        [("return sample_decode(model, src, max_len, sos_id, eos_id, pad_id, temperature=0.0, use_cache=use_cache)",
          "return sample_decode(model, src, max_len, sos_id, eos_id, temperature=0.0, use_cache=use_cache)")],
        must_fail=[]),
    ("a5_decoding", "beam index and token unpacked the wrong way round from divmod"): Mutant(
        "beam.py",
        [("beam, token = divmod(flat, V)", "token, beam = divmod(flat, V)")],
        must_fail=[]),
    ("a5_decoding", "beam returns the finished hypothesis with the lowest score"): Mutant(
        "beam.py",
        [("return max(finished, key=lambda f: f[0])[1]", "return min(finished, key=lambda f: f[0])[1]")],
        must_fail=[]),
    ("a5_decoding", "beam keeps extending hypotheses that already emitted EOS"): Mutant(
        "beam.py",
        [("                else:\n                    live.append((score, beam, token))",
          "                if step < max_len:\n                    live.append((score, beam, token))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "whitespace left out of the allowed characters (words glued)"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}]", "", text)')],
        must_fail=[]),
    ("a6_translator", "lower-cases at the end, after capitals were deleted"): Mutant(
        "preprocessing.py",
        [('text = unicodedata.normalize("NFC", text).lower()', 'text = unicodedata.normalize("NFC", text)'),
         ('return " ".join(text.split())', 'return " ".join(text.lower().split())')],
        must_fail=[]),
    ("a6_translator", "punctuation spaced on its left only"): Mutant(
        "preprocessing.py",
        [(_CLEAN_SPACE, r'text = re.sub(f"([{PUNCTUATION}])", r" \1", text)')],
        must_fail=[]),
    ("a6_translator", r"allowed characters written with \w (keeps _ and every Unicode letter)"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^\\w{PUNCTUATION}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "Counter over the characters of each sentence (split forgotten)"): Mutant(
        "vocab.py",
        [("counts = Counter(word for sentence in sentences for word in sentence.split())",
          "counts = Counter(word for sentence in sentences for word in sentence)")],
        must_fail=[]),
    ("a6_translator", "sorted with reverse=True, so ties go reverse-alphabetical"): Mutant(
        "vocab.py",
        [("return cls(sorted(kept, key=lambda word: (-counts[word], word)))",
          "return cls(sorted(kept, key=lambda word: (counts[word], word), reverse=True))")],
        must_fail=[]),
    ("a6_translator", "unknown words encoded as 0 (the pad id)"): Mutant(
        "vocab.py",
        [("ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]",
          "ids = [self.stoi.get(word, 0) for word in sentence.split()]")],
        must_fail=[]),
    ("a6_translator", "encode frames with the special strings instead of their ids"): Mutant(
        "vocab.py",
        [("ids = [self.sos_id] + ids + [self.eos_id]", "ids = [self.SOS] + ids + [self.EOS]")],
        must_fail=[]),
    ("a6_translator", "decode checks only the upper bound (negative ids wrap around)"): Mutant(
        "vocab.py",
        [("if not 0 <= i < len(self.itos):", "if not i < len(self.itos):")],
        must_fail=[]),
    ("a6_translator", "dataset never truncates the source"): Mutant(
        "batching.py",
        [("            src_ids = src_ids[: self.max_len]\n", "")],
        must_fail=[]),
    ("a6_translator", "collate sizes the target batch by the longest source (copy-paste)"): Mutant(
        "batching.py",
        [("T = max(len(tgt) for _, tgt in batch)", "T = max(len(src) for src, _ in batch)")],
        must_fail=[]),
    ("a6_translator", "collate uses pad_sequence without batch_first (time-major batches)"): Mutant(
        "batching.py",
        [("    src_batch = torch.full((len(batch), S), pad_id, dtype=torch.long)  # (B, S)\n"
          "    tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.long)  # (B, T)\n"
          "    for b, (src, tgt) in enumerate(batch):\n"
          "        src_batch[b, : len(src)] = src\n"
          "        tgt_batch[b, : len(tgt)] = tgt\n",
          "    src_batch = torch.nn.utils.rnn.pad_sequence([src for src, _ in batch], padding_value=pad_id)\n"
          "    tgt_batch = torch.nn.utils.rnn.pad_sequence([tgt for _, tgt in batch], padding_value=pad_id)\n")],
        must_fail=[]),
    ("a6_translator", "sequence_loss passes (B, T, V) logits to cross_entropy unflattened"): Mutant(
        "training.py",
        [("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,",
          "return F.cross_entropy(logits, labels, ignore_index=pad_id,")],
        must_fail=[]),
    ("a6_translator", "clips with clip_grad_value_ instead of clip_grad_norm_"): Mutant(
        "training.py",
        [("torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
          "torch.nn.utils.clip_grad_value_(model.parameters(), clip_norm)")],
        must_fail=[]),
    ("a6_translator", "evaluate divides by the number of sentences, not tokens"): Mutant(
        "training.py",
        [("count += int((labels != pad_id).sum())", "count += len(labels)")],
        must_fail=[]),
    ("a6_translator", "evaluate always switches the model back to training mode"): Mutant(
        "training.py",
        [("model.train(was_training)", "model.train()")],
        must_fail=[]),
    ("a6_translator", "fit's loss list never reset between epochs (running mean)"): Mutant(
        "training.py",
        [("    history = []\n    for _ in range(epochs):\n"
          "        losses = [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader]\n",
          "    history = []\n    losses = []\n    for _ in range(epochs):\n"
          "        losses += [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader]\n")],
        must_fail=[]),
    ("a6_translator", "translate does not pass decode_kwargs on"): Mutant(
        "translation.py",
        [("tgt_vocab.pad_id, **decode_kwargs)", "tgt_vocab.pad_id)")],
        must_fail=[]),
    ("a6_translator", "translate truncates the cleaned text's characters, not its ids"): Mutant(
        "translation.py",
        [(_ENCODE, "encoded = [src_vocab.encode(clean_text(s)[:limit]) for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate encodes the source with the target vocabulary"): Mutant(
        "translation.py",
        [(_ENCODE, "encoded = [tgt_vocab.encode(clean_text(s))[:limit] for s in sentences]")],
        must_fail=[]),
}
