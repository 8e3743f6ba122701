"""The fourth round of held-out classic mistakes: 108 edits of the reference solutions, each
one mistake as a student writes it (a1 13, a2 14, a3 15, a4 18, a5 18, a6 30).

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
_NOMASK_WEIGHTS = "        weights = torch.softmax(scores, dim=-1)\n    output"
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

_PE_POS = "position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)"
_PE_FREQ = "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))"
_PE_ZEROS = "pe = torch.zeros(max_len, d_model)"
_PE_SIN = "pe[:, 0::2] = torch.sin(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)"
_MHA_K = "k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_V = "v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_SDPA = "out, weights = scaled_dot_product_attention(q, k, v, mask)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_FF_L1 = "self.linear1 = nn.Linear(d_model, d_ff)"
_FF_L2 = "self.linear2 = nn.Linear(d_ff, d_model)"

_ENC_PRE_ATTN = "x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])"
_ENC_PRE_FF = "x = x + self.dropout2(self.ff(self.norm2(x)))"
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_SELF = "x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])"
_DEC_POST_SELF = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_DEC_POST_FF = "x = self.norm3(x + self.dropout3(self.ff(x)))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_ENC_LOOP = "x = layer(x, src_mask)"
_DEC_LOOP = "x = layer(x, memory, tgt_mask, src_mask)"
_GENERATE = "return self.generator(self.decoder_norm(x))  # (B, T, V)"

_STEP_SAMPLE = "next_token = sample_next_token(logits, temperature, top_k, top_p, generator)  # (B,)"
_PAD_FINISHED = "next_token = next_token.masked_fill(finished, pad_id)"
_APPEND = "tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)"
_KTH = "kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)"
_DRAW = "return torch.multinomial(probs, 1, generator=generator).squeeze(-1)"
_BEAM_LOGP = "logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]  # (k, V)"
_BEAM_FINISH = "finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))"
_BEAM_EXTEND = "tokens = torch.cat([tokens[index], new], dim=1)  # (k, t + 1)"

_CLEAN_SPACE = r'text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)'
_CLEAN_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_COUNT = "counts = Counter(word for sentence in sentences for word in sentence.split())"
_SORTED = "return cls(sorted(kept, key=lambda word: (-counts[word], word)))"
_ENCODE_IDS = "ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]"
_COLLATE_S = "S = max(len(src) for src, _ in batch)"
_CE = ("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
       "                           label_smoothing=label_smoothing)")
_SHIFT = "tgt_in, labels = tgt[:, :-1], tgt[:, 1:]  # (B, T - 1) each: shifted by one"
_FIT_STEP = "losses = [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader]"
_ENCODE = "encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]"
_DECODE_CALL = "out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id,"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "scaled by sqrt(T_k), the number of keys"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1) / math.sqrt(k.size(-2))")],
        must_fail=[]),
    ("a1_attention", "scale written d_k ** 1 / 2 (divides by d_k / 2)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1) / d_k ** 1 / 2")],
        must_fail=[]),
    ("a1_attention", "torch.sqrt called on the int d_k"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1) / torch.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "softmax called without dim (implicit dimension)"): Mutant(
        "attention.py",
        [("import torch\n", "import torch\nimport torch.nn.functional as F\n"),
         (_WEIGHTS, "weights = F.softmax(scores).masked_fill(~has_key, 0.0)"),
         (_NOMASK_WEIGHTS, "        weights = F.softmax(scores)\n    output")],
        must_fail=[]),
    ("a1_attention", "masked scores filled with +inf (minus sign forgotten)"): Mutant(
        "attention.py",
        [('scores = scores.masked_fill(~mask, float("-inf"))', 'scores = scores.masked_fill(~mask, float("inf"))')],
        must_fail=[]),
    ("a1_attention", "transposes the caller's keys in place (k.transpose_)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose_(-2, -1) / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "has_key computed with all() instead of any()"): Mutant(
        "attention.py",
        [("has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.all(dim=-1, keepdim=True)")],
        must_fail=[]),
    ("a1_attention", "values mixed with torch.bmm (only 3-D inputs work)"): Mutant(
        "attention.py",
        [("output = weights @ v  # (..., T_q, d_v)", "output = torch.bmm(weights, v)  # (..., T_q, d_v)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention passes Q as the keys"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q, Q, V, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "causal mask tril with diagonal=1 (sees one step ahead)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)")],
        must_fail=[]),
    ("a1_attention", "padding mask indexed [None, :, None, :]: (1, B, 1, S)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[None, :, None, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask tokens > pad_id (ids below pad_id hidden)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens > pad_id)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "target mask transposes the padding mask (hides padded queries)"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id).transpose(-2, -1) & causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "parameters sized by len(normalized_shape)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(len(self.normalized_shape)))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(len(self.normalized_shape)))")],
        must_fail=[]),
    ("a2_layernorm", "parameters created with an extra leading axis (1, *shape)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, "self.weight = nn.Parameter(torch.ones(1, *self.normalized_shape))"),
         (_LN_BIAS, "self.bias = nn.Parameter(torch.zeros(1, *self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias registered as buffers"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT, 'self.register_buffer("weight", torch.ones(self.normalized_shape))'),
         (_LN_BIAS, 'self.register_buffer("bias", torch.zeros(self.normalized_shape))')],
        must_fail=[]),
    ("a2_layernorm", "variance written (x - mean ** 2).mean() (parentheses misplaced)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = (x - mean ** 2).mean(dim=dims, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "mean detached from the graph"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.mean(dim=dims, keepdim=True).detach()")],
        must_fail=[]),
    ("a2_layernorm", "scales by the weight before centring"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x * self.weight - mean) / torch.sqrt(var + self.eps) + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "divides by the L2 norm of the centred input"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "norm = (x - mean).norm(dim=dims, keepdim=True)"),
         (_LN_RETURN, "return (x - mean) / (norm + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "RMSNorm instead of LayerNorm (no mean anywhere)"): Mutant(
        "layernorm.py",
        [(_LN_MEAN + "\n        ", ""),
         (_LN_VAR, "var = x.pow(2).mean(dim=dims, keepdim=True)"),
         (_LN_RETURN, "return x / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "normalises over one dimension too many"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(-len(self.normalized_shape) - 1, 0))")],
        must_fail=[]),
    ("a2_layernorm", "dims counted from len(normalized_shape) instead of from the end"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(len(self.normalized_shape), x.dim()))")],
        must_fail=[]),
    ("a2_layernorm", "(var + eps) ** 1/2 precedence: halves the variance"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / (var + self.eps) ** 1/2 * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "torch.var_mean unpacked as (mean, var)"): Mutant(
        "layernorm.py",
        [(_LN_MEAN + "\n        " + _LN_VAR,
          "mean, var = torch.var_mean(x, dim=dims, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "math.sqrt on the variance tensor"): Mutant(
        "layernorm.py",
        [("import torch\n", "import math\n\nimport torch\n"),
         (_LN_RETURN, "return (x - mean) / math.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "mean absolute deviation instead of the variance"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = (x - mean).abs().mean(dim=dims, keepdim=True)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "frequencies with log10 instead of the natural log"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log10(10000.0) / d_model))")],
        must_fail=[]),
    ("a3_blocks", "frequency exponents from the odd indices (arange(1, d_model, 2))"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.exp(torch.arange(1, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))")],
        must_fail=[]),
    ("a3_blocks", "positions laid out as a row (unsqueeze(0))"): Mutant(
        "positional.py",
        [(_PE_POS, "position = torch.arange(max_len, dtype=torch.float32).unsqueeze(0)")],
        must_fail=[]),
    ("a3_blocks", "sines written into the even rows (pe[0::2]) instead of columns"): Mutant(
        "positional.py",
        [(_PE_SIN, "pe[0::2] = torch.sin(position * inv_freq)"),
         ("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[1::2] = torch.cos(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "positional table built in float64"): Mutant(
        "positional.py",
        [(_PE_ZEROS, "pe = torch.zeros(max_len, d_model, dtype=torch.float64)")],
        must_fail=[]),
    ("a3_blocks", "positions added seq-first (pe[:T].unsqueeze(1), the tutorial's layout)"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[:T].unsqueeze(1)")],
        must_fail=[]),
    ("a3_blocks", "values split with the query length T_q"): Mutant(
        "multihead.py",
        [(_MHA_V, "v = self.w_v(value).view(B, T_q, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "heads split as (d_k, h): each head takes strided columns"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = self.w_q(query).view(B, T_q, d_k, h).permute(0, 3, 1, 2)"),
         (_MHA_K, "k = self.w_k(key).view(B, T_k, d_k, h).permute(0, 3, 1, 2)"),
         (_MHA_V, "v = self.w_v(value).view(B, T_k, d_k, h).permute(0, 3, 1, 2)")],
        must_fail=[]),
    ("a3_blocks", "heads merged with permute(0, 2, 3, 1) (features before heads)"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.permute(0, 2, 3, 1).reshape(B, T_q, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "query/key/value projections sized d_model -> d_k (one head)"): Mutant(
        "multihead.py",
        [("self.w_q = nn.Linear(d_model, d_model)", "self.w_q = nn.Linear(d_model, self.d_k)"),
         ("self.w_k = nn.Linear(d_model, d_model)", "self.w_k = nn.Linear(d_model, self.d_k)"),
         ("self.w_v = nn.Linear(d_model, d_model)", "self.w_v = nn.Linear(d_model, self.d_k)")],
        must_fail=[]),
    ("a3_blocks", "attention dropout fixed at 0.1, the argument ignored"): Mutant(
        "multihead.py",
        [("self.dropout = nn.Dropout(dropout)\n        ### END SOLUTION",
          "self.dropout = nn.Dropout(0.1)\n        ### END SOLUTION")],
        must_fail=[]),
    ("a3_blocks", "mask inverted before the attention (nn.MultiheadAttention's convention)"): Mutant(
        "multihead.py",
        [(_MHA_SDPA, "out, weights = scaled_dot_product_attention(q, k, v, None if mask is None else ~mask)")],
        must_fail=[]),
    ("a3_blocks", "divisibility checked with assert instead of ValueError"): Mutant(
        "multihead.py",
        [("        if d_model % num_heads != 0:\n"
          "            raise ValueError(\n"
          "                f\"d_model must be divisible by num_heads (got d_model={d_model}, num_heads={num_heads})\"\n"
          "            )\n",
          "        assert d_model % num_heads == 0, \"d_model must be divisible by num_heads\"\n")],
        must_fail=[]),
    ("a3_blocks", "second linear layer declared d_model -> d_ff (copy-paste)"): Mutant(
        "feedforward.py",
        [(_FF_L2, "self.linear2 = nn.Linear(d_model, d_ff)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward layers without bias"): Mutant(
        "feedforward.py",
        [(_FF_L1, "self.linear1 = nn.Linear(d_model, d_ff, bias=False)"),
         (_FF_L2, "self.linear2 = nn.Linear(d_ff, d_model, bias=False)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "embeddings scaled by sqrt(d_ff)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_ff)))")],
        must_fail=[]),
    ("a4_transformer", "embeddings scaled by sqrt of the vocabulary size"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * math.sqrt(embedding.num_embeddings)))")],
        must_fail=[]),
    ("a4_transformer", "embeddings scaled by d_model ** 1 / 2 (that is d_model / 2)"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * self.config.d_model ** 1 / 2))")],
        must_fail=[]),
    ("a4_transformer", "dropout applied both before and after the positions"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(self.dropout(embedding(tokens) * math.sqrt(self.config.d_model))))")],
        must_fail=[]),
    ("a4_transformer", "source embedded with the target embedding table"): Mutant(
        "transformer.py",
        [("x = self.embed(self.src_embed, src)", "x = self.embed(self.tgt_embed, src)")],
        must_fail=[]),
    ("a4_transformer", "an extra residual around every encoder layer"): Mutant(
        "transformer.py",
        [(_ENC_LOOP, "x = x + layer(x, src_mask)")],
        must_fail=[]),
    ("a4_transformer", "an extra residual around every decoder layer"): Mutant(
        "transformer.py",
        [(_DEC_LOOP, "x = x + layer(x, memory, tgt_mask, src_mask)")],
        must_fail=[]),
    ("a4_transformer", "decode shifts the target again (drops its last token)"): Mutant(
        "transformer.py",
        [("x = self.embed(self.tgt_embed, tgt)", "tgt = tgt[:, :-1]\n        x = self.embed(self.tgt_embed, tgt)")],
        must_fail=[]),
    ("a4_transformer", "decode returns only the last position's logits"): Mutant(
        "transformer.py",
        [(_GENERATE, "return self.generator(self.decoder_norm(x[:, -1]))  # (B, V)")],
        must_fail=[]),
    ("a4_transformer", "decode returns log-probabilities instead of logits"): Mutant(
        "transformer.py",
        [(_GENERATE, "return self.generator(self.decoder_norm(x)).log_softmax(dim=-1)  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "decoder output normalised with encoder_norm (copy-paste)"): Mutant(
        "transformer.py",
        [(_GENERATE, "return self.generator(self.encoder_norm(x))  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "encoder takes the attention weights ([1]) instead of the output"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[1]))"),
         (_ENC_PRE_ATTN, "x = x + self.dropout1(self.self_attn(y, y, y, mask)[1])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder normalises only the queries"): Mutant(
        "layers.py",
        [(_ENC_PRE_ATTN, "x = x + self.dropout1(self.self_attn(y, x, x, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder self-attention keys and values un-normalised"): Mutant(
        "layers.py",
        [(_DEC_PRE_SELF, "x = x + self.dropout1(self.self_attn(y, x, x, tgt_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder normalises the feed-forward input with norm1"): Mutant(
        "layers.py",
        [(_ENC_PRE_FF, "x = x + self.dropout2(self.ff(self.norm1(x)))")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder runs the feed-forward before the self-attention"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN + "\n            " + _ENC_POST_FF,
          _ENC_POST_FF + "\n            " + _ENC_POST_ATTN)],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder attends to the memory before its self-attention"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF + "\n            " + _DEC_POST_CROSS,
          _DEC_POST_CROSS + "\n            " + _DEC_POST_SELF)],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder: norm2 and norm3 swapped"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "x = self.norm3(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"),
         (_DEC_POST_FF, "x = self.norm2(x + self.dropout3(self.ff(x)))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "drops the first row (tokens[1:]) instead of the sos column"): Mutant(
        "decoding.py",
        [("return tokens[:, 1:]", "return tokens[1:]")],
        must_fail=[]),
    ("a5_decoding", "next token concatenated without its column axis"): Mutant(
        "decoding.py",
        [(_APPEND, "tokens = torch.cat([tokens, next_token], dim=1)  # (B, t + 1)")],
        must_fail=[]),
    ("a5_decoding", "finished flags initialised to True"): Mutant(
        "decoding.py",
        [("finished = torch.zeros(B, dtype=torch.bool, device=src.device)",
          "finished = torch.ones(B, dtype=torch.bool, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "pads the unfinished rows (mask inverted)"): Mutant(
        "decoding.py",
        [(_PAD_FINISHED, "next_token = next_token.masked_fill(~finished, pad_id)")],
        must_fail=[]),
    ("a5_decoding", "sample_decode passes top_p and top_k in the wrong order"): Mutant(
        "decoding.py",
        [(_STEP_SAMPLE, "next_token = sample_next_token(logits, temperature, top_p, top_k, generator)  # (B,)")],
        must_fail=[]),
    ("a5_decoding", "greedy_decode passes eos_id and sos_id swapped"): Mutant(
        "decoding.py",
        [("return sample_decode(model, src, max_len, sos_id, eos_id, pad_id, temperature=0.0, use_cache=use_cache)",
          "return sample_decode(model, src, max_len, eos_id, sos_id, pad_id, temperature=0.0, use_cache=use_cache)")],
        must_fail=[]),
    ("a5_decoding", "top_k = 0 accepted (checks top_k < 0)"): Mutant(
        "sampling.py",
        [("if top_k is not None and top_k < 1:", "if top_k is not None and top_k < 0:")],
        must_fail=[]),
    ("a5_decoding", "greedy argmax over dim 0 (the batch)"): Mutant(
        "sampling.py",
        [("return logits.argmax(dim=-1)", "return logits.argmax(dim=0)")],
        must_fail=[]),
    ("a5_decoding", "top-k threshold read from the largest value (keeps only the top token)"): Mutant(
        "sampling.py",
        [(_KTH, "kth = logits.topk(top_k, dim=-1).values[:, :1]  # (B, 1)")],
        must_fail=[]),
    ("a5_decoding", "top-p softmax over the batch axis"): Mutant(
        "sampling.py",
        [("probs = sorted_logits.softmax(dim=-1)", "probs = sorted_logits.softmax(dim=0)")],
        must_fail=[]),
    ("a5_decoding", "sampled tokens returned as (B, 1) (squeeze forgotten)"): Mutant(
        "sampling.py",
        [(_DRAW, "return torch.multinomial(probs, 1, generator=generator)")],
        must_fail=[]),
    ("a5_decoding", "beam starts with beam_size zero scores (the start is duplicated)"): Mutant(
        "beam.py",
        [("scores = torch.zeros(1, device=src.device)", "scores = torch.zeros(beam_size, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "beam scores added without [:, None]"): Mutant(
        "beam.py",
        [(_BEAM_LOGP, "logp = decoder.step(tokens).log_softmax(dim=-1) + scores  # (k, V)")],
        must_fail=[]),
    ("a5_decoding", "beam log_softmax over the hypotheses axis"): Mutant(
        "beam.py",
        [(_BEAM_LOGP, "logp = decoder.step(tokens).log_softmax(dim=0) + scores[:, None]  # (k, V)")],
        must_fail=[]),
    ("a5_decoding", "beam length penalty from len(tokens), the number of hypotheses"): Mutant(
        "beam.py",
        [(_BEAM_FINISH, "finished.append((score / lp(len(tokens), length_penalty), tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "beam appends the new tokens without reordering the histories"): Mutant(
        "beam.py",
        [(_BEAM_EXTEND, "tokens = torch.cat([tokens, new], dim=1)  # (k, t + 1)")],
        must_fail=[]),
    ("a5_decoding", "beam output always max_len columns wide"): Mutant(
        "beam.py",
        [("out = torch.full((src.size(0), max(len(h) for h in best)), pad_id,",
          "out = torch.full((src.size(0), max_len), pad_id,")],
        must_fail=[]),
    ("a5_decoding", "beam searches src[b] (the batch axis lost)"): Mutant(
        "beam.py",
        [("best = [search_one(src[b:b + 1]) for b in range(src.size(0))]",
          "best = [search_one(src[b]) for b in range(src.size(0))]")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", r"punctuation replacement not a raw string (\1 becomes a control character)"): Mutant(
        "preprocessing.py",
        [(_CLEAN_SPACE, r'text = re.sub(f"([{PUNCTUATION}])", " \1 ", text)')],
        must_fail=[]),
    ("a6_translator", "digits left out of the allowed characters"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z{ACCENTED}{PUNCTUATION}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "own list of accented letters forgets ñ"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9áéíóúü{PUNCTUATION}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "stoi starts empty (special tokens missing from it)"): Mutant(
        "vocab.py",
        [("self.stoi = {word: i for i, word in enumerate(self.itos)}", "self.stoi = {}")],
        must_fail=[]),
    ("a6_translator", "counts the sentences a word appears in, not its occurrences"): Mutant(
        "vocab.py",
        [(_COUNT, "counts = Counter(word for sentence in sentences for word in set(sentence.split()))")],
        must_fail=[]),
    ("a6_translator", "vocabulary words not sorted at all (first-seen order)"): Mutant(
        "vocab.py",
        [(_SORTED, "return cls(kept)")],
        must_fail=[]),
    ("a6_translator", "vocabulary sorted alphabetically, counts ignored"): Mutant(
        "vocab.py",
        [(_SORTED, "return cls(sorted(kept))")],
        must_fail=[]),
    ("a6_translator", "encode frames the target with <sos> at both ends (copy-paste)"): Mutant(
        "vocab.py",
        [("ids = [self.sos_id] + ids + [self.eos_id]", "ids = [self.sos_id] + ids + [self.sos_id]")],
        must_fail=[]),
    ("a6_translator", "encode splits on ' ' (an empty sentence gives one <unk>)"): Mutant(
        "vocab.py",
        [(_ENCODE_IDS, 'ids = [self.stoi.get(word, self.unk_id) for word in sentence.split(" ")]')],
        must_fail=[]),
    ("a6_translator", "decode stops at the first <eos>"): Mutant(
        "vocab.py",
        [("            if i not in (self.pad_id, self.sos_id, self.eos_id):",
          "            if i == self.eos_id:\n                break\n"
          "            if i not in (self.pad_id, self.sos_id, self.eos_id):")],
        must_fail=[]),
    ("a6_translator", "decode joins the words without spaces"): Mutant(
        "vocab.py",
        [('return " ".join(words)', 'return "".join(words)')],
        must_fail=[]),
    ("a6_translator", "source truncated to max_len - 2, as if it had <sos> and <eos>"): Mutant(
        "batching.py",
        [("src_ids = src_ids[: self.max_len]", "src_ids = src_ids[: self.max_len - 2]")],
        must_fail=[]),
    ("a6_translator", "truncated target one token shorter than max_len"): Mutant(
        "batching.py",
        [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
          "tgt_ids = tgt_ids[: self.max_len - 2] + [self.tgt_vocab.eos_id]")],
        must_fail=[]),
    ("a6_translator", "collate pads to the first item's length"): Mutant(
        "batching.py",
        [(_COLLATE_S, "S = len(batch[0][0])")],
        must_fail=[]),
    ("a6_translator", "collate returns (tgt, src)"): Mutant(
        "batching.py",
        [("return src_batch, tgt_batch", "return tgt_batch, src_batch")],
        must_fail=[]),
    ("a6_translator", "cross-entropy on probabilities (softmax applied first)"): Mutant(
        "training.py",
        [(_CE, "return F.cross_entropy(logits.softmax(dim=-1).reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing)")],
        must_fail=[]),
    ("a6_translator", "sequence_loss sums instead of averaging"): Mutant(
        "training.py",
        [(_CE, "return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing, reduction=\"sum\")")],
        must_fail=[]),
    ("a6_translator", "labels flattened with view (the sliced labels are not contiguous)"): Mutant(
        "training.py",
        [(_CE, "return F.cross_entropy(logits.view(-1, V), labels.view(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing)")],
        must_fail=[]),
    ("a6_translator", "teacher forcing shifted along the batch axis (tgt[:-1], tgt[1:])"): Mutant(
        "training.py",
        [(_SHIFT, "tgt_in, labels = tgt[:-1], tgt[1:]")],
        must_fail=[]),
    ("a6_translator", "optimizer.step() forgotten"): Mutant(
        "training.py",
        [("    optimizer.step()\n    return loss.item()", "    return loss.item()")],
        must_fail=[]),
    ("a6_translator", "evaluate returns the perplexity instead of the loss"): Mutant(
        "training.py",
        [("import torch\n", "import math\n\nimport torch\n"),
         ("return total / count", "return math.exp(total / count)")],
        must_fail=[]),
    ("a6_translator", "evaluate feeds the whole target to the decoder"): Mutant(
        "training.py",
        [("logits = model(src, tgt[:, :-1])  # (B, T - 1, V)", "logits = model(src, tgt)  # (B, T, V)")],
        must_fail=[]),
    ("a6_translator", "evaluate counts the target tokens, <sos> included"): Mutant(
        "training.py",
        [("count += int((labels != pad_id).sum())", "count += int((tgt != pad_id).sum())")],
        must_fail=[]),
    ("a6_translator", "fit records each epoch's list of batch losses"): Mutant(
        "training.py",
        [("history.append(sum(losses) / len(losses))", "history.append(losses)")],
        must_fail=[]),
    ("a6_translator", "fit resets its history every epoch (only the last epoch returned)"): Mutant(
        "training.py",
        [("    history = []\n    for _ in range(epochs):\n",
          "    for _ in range(epochs):\n        history = []\n")],
        must_fail=[]),
    ("a6_translator", "fit passes clip_norm and label_smoothing swapped"): Mutant(
        "training.py",
        [(_FIT_STEP, "losses = [train_step(model, src, tgt, optimizer, pad_id, clip_norm, label_smoothing) for src, tgt in loader]")],
        must_fail=[]),
    ("a6_translator", "translate truncates the source to the max_len argument"): Mutant(
        "translation.py",
        [(_ENCODE, "encoded = [src_vocab.encode(clean_text(s))[:max_len] for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate frames the source with <sos> and <eos>"): Mutant(
        "translation.py",
        [(_ENCODE, "encoded = [src_vocab.encode(clean_text(s), add_sos_eos=True)[:limit] for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate passes eos_id and sos_id swapped"): Mutant(
        "translation.py",
        [(_DECODE_CALL, "out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.eos_id, tgt_vocab.sos_id,")],
        must_fail=[]),
    ("a6_translator", "translate reads the output row of the sentence index, not the batch row"): Mutant(
        "translation.py",
        [("ids = out[b].tolist()", "ids = out[i].tolist()")],
        must_fail=[]),
}
