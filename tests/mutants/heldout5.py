"""The fifth round of held-out classic mistakes: 86 edits of the reference solutions, each
one mistake as a student writes it (a1 15, a2 14, a3 15, a4 14, a5 10, a6 18). Five more,
written for a5's incremental.py, were removed before the round was measured: that module is
given to students whole (it has no solution block), so its bugs are not theirs to make.

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
_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_OUTPUT = "output = weights @ v  # (..., T_q, d_v)"
_CAUSAL = "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"
_MSA = "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_MEAN = "mean = x.mean(dim=dims, keepdim=True)"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_FF_L1 = "self.linear1 = nn.Linear(d_model, d_ff)"
_FF_L2 = "self.linear2 = nn.Linear(d_ff, d_model)"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)"
_MHA_K = "k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)"
_MHA_V = "v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_MHA_DK = "self.d_k = d_model // num_heads"
_PE_FREQ = "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))"
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"

_ENC_BLOCK = ("        if self.norm_first:\n"
              "            y = self.norm1(x)\n"
              "            x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])\n"
              "            x = x + self.dropout2(self.ff(self.norm2(x)))\n"
              "        else:\n"
              "            x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))\n"
              "            x = self.norm2(x + self.dropout2(self.ff(x)))\n")
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_SELF = "x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])"
_DEC_PRE_CROSS = "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])"
_DEC_PRE_FF = "x = x + self.dropout3(self.ff(self.norm3(x)))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_ENC_RETURN = "return self.encoder_norm(x), src_mask"

_TOKENS0 = "tokens = torch.full((B, 1), sos_id, dtype=torch.long, device=src.device)  # (B, 1)"
_CACHED_X = ("x = model.tgt_embed(tokens[:, -1:]) * math.sqrt(model.config.d_model) + model.positional.pe[t]"
             "  # (B, 1, d_model)")

_CLEAN_SPACE = r'text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)'
_CLEAN_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_FULL_SRC = "src_batch = torch.full((len(batch), S), pad_id, dtype=torch.long)  # (B, S)"
_FULL_TGT = "tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.long)  # (B, T)"
_DECODE_CALL = "out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id,"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "mask added to the scores (additive-mask convention) instead of filling -inf"): Mutant(
        "attention.py",
        [(_FILL, "scores = scores + mask")],
        must_fail=[]),
    ("a1_attention", "log_softmax instead of softmax for the weights"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.log_softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"),
         ("        weights = torch.softmax(scores, dim=-1)\n    output",
          "        weights = torch.log_softmax(scores, dim=-1)\n    output")],
        must_fail=[]),
    ("a1_attention", "masked scores set by boolean indexing (fails when the mask only broadcasts)"): Mutant(
        "attention.py",
        [(_FILL, 'scores[~mask] = float("-inf")')],
        must_fail=[]),
    ("a1_attention", "keys not transposed (q @ k)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "transposes the queries instead of the keys (q^T k)"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q.transpose(-2, -1) @ k / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "values mixed with the transposed weights"): Mutant(
        "attention.py",
        [(_OUTPUT, "output = weights.transpose(-2, -1) @ v")],
        must_fail=[]),
    ("a1_attention", "values mixed element-wise (weights * v) instead of a matrix product"): Mutant(
        "attention.py",
        [(_OUTPUT, "output = weights * v")],
        must_fail=[]),
    ("a1_attention", "output mixed before the fully masked rows are zeroed"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1)\n"
                    "        output = weights @ v\n"
                    "        return output, weights.masked_fill(~has_key, 0.0)")],
        must_fail=[]),
    ("a1_attention", "renormalises the rows after zeroing (0/0 on fully masked rows)"): Mutant(
        "attention.py",
        [(_WEIGHTS, _WEIGHTS + "\n        weights = weights / weights.sum(dim=-1, keepdim=True)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention returns the (output, weights) pair"): Mutant(
        "attention.py",
        [(_MSA + "\n    return Z",
          "return scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "masked self-attention passes V as the keys and K as the values"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q, V, K, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "causal mask returned as (1, 1, T, T)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))[None, None]")],
        must_fail=[]),
    ("a1_attention", "padding mask with its new axes at the end: (B, S, 1, 1)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[:, :, None, None]")],
        must_fail=[]),
    ("a1_attention", "padding mask returned as (B, S), no singleton axes"): Mutant(
        "masks.py",
        [(_PADDING, "return tokens != pad_id")],
        must_fail=[]),
    ("a1_attention", "target mask squeezes the padding mask to (B, 1, T): no heads axis"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id).squeeze(1) & causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "weight and bias read through .data (no gradient reaches them)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight.data + self.bias.data")],
        must_fail=[]),
    ("a2_layernorm", "scale written (1 + weight), the zero-centred convention, with weight at ones"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * (1 + self.weight) + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "centres x, then subtracts the mean again in the return"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, _LN_MEAN + "\n        x = x - mean")],
        must_fail=[]),
    ("a2_layernorm", "keepdim emulated with unsqueeze(-1) (wrong for tuple shapes)"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.mean(dim=dims).unsqueeze(-1)"),
         (_LN_VAR, "var = x.var(dim=dims, unbiased=False).unsqueeze(-1)")],
        must_fail=[]),
    ("a2_layernorm", "casts the input to float64 for precision and returns float64"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "x = x.double()\n        " + _LN_DIMS)],
        must_fail=[]),
    ("a2_layernorm", "bias subtracted instead of added"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight - self.bias")],
        must_fail=[]),
    ("a2_layernorm", "dims range runs to 1, taking in dimension 0"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(-len(self.normalized_shape), 1))")],
        must_fail=[]),
    ("a2_layernorm", "dims passed as a range object, not a tuple"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = range(-len(self.normalized_shape), 0)")],
        must_fail=[]),
    ("a2_layernorm", "dims counted by the feature size instead of the number of normalised dims"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(range(-self.normalized_shape[-1], 0))")],
        must_fail=[]),
    ("a2_layernorm", "forward computes the result but never returns it"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "y = (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "forward reads eps, the constructor's argument, instead of self.eps"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "adds the input back (a residual inside the LayerNorm)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return x + (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "bias assigned to self.weight (copy-paste): weight zeros, no bias"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.weight = nn.Parameter(torch.zeros(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "floor division // in the normalisation"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) // torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "feed-forward never applies linear2 (returns the hidden layer)"): Mutant(
        "feedforward.py",
        [(_FF, "return self.dropout(torch.relu(self.linear1(x)))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward layers declared with in and out swapped"): Mutant(
        "feedforward.py",
        [(_FF_L1, "self.linear1 = nn.Linear(d_ff, d_model)"),
         (_FF_L2, "self.linear2 = nn.Linear(d_model, d_ff)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward wrapped in one nn.Sequential (no linear1/linear2 attributes)"): Mutant(
        "feedforward.py",
        [(_FF_L1 + "\n        " + _FF_L2 + "\n        self.dropout = nn.Dropout(dropout)",
          "self.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), "
          "nn.Linear(d_ff, d_model))"),
         (_FF, "return self.net(x)")],
        must_fail=[]),
    ("a3_blocks", "multi-head attention returns only the output, not (output, weights)"): Mutant(
        "multihead.py",
        [("return self.w_o(out), (weights if need_weights else None)", "return self.w_o(out)")],
        must_fail=[]),
    ("a3_blocks", "num_heads and d_k stored the wrong way round"): Mutant(
        "multihead.py",
        [("self.num_heads = num_heads\n        " + _MHA_DK,
          "self.num_heads = d_model // num_heads\n        self.d_k = num_heads")],
        must_fail=[]),
    ("a3_blocks", "d_k computed with % instead of //"): Mutant(
        "multihead.py",
        [(_MHA_DK, "self.d_k = d_model % num_heads")],
        must_fail=[]),
    ("a3_blocks", "divisibility tested with // instead of %"): Mutant(
        "multihead.py",
        [("if d_model % num_heads != 0:", "if d_model // num_heads != 0:")],
        must_fail=[]),
    ("a3_blocks", "one fused qkv projection of the query (keys and values never from key/value)"): Mutant(
        "multihead.py",
        [("self.w_q = nn.Linear(d_model, d_model)\n        self.w_k = nn.Linear(d_model, d_model)\n"
          "        self.w_v = nn.Linear(d_model, d_model)",
          "self.w_qkv = nn.Linear(d_model, 3 * d_model)"),
         (_MHA_Q + "\n        " + _MHA_K + "\n        " + _MHA_V,
          "q, k, v = self.w_qkv(query).chunk(3, dim=-1)\n"
          "        q = q.view(B, T_q, h, d_k).transpose(1, 2)\n"
          "        k = k.view(B, T_q, h, d_k).transpose(1, 2)\n"
          "        v = v.view(B, T_q, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "query and key projections swapped (w_k on the queries, w_q on the keys)"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = self.w_k(query).view(B, T_q, h, d_k).transpose(1, 2)"),
         (_MHA_K, "k = self.w_q(key).view(B, T_k, h, d_k).transpose(1, 2)")],
        must_fail=[]),
    ("a3_blocks", "heads merged with the key length T_k"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.transpose(1, 2).reshape(B, T_k, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "table given a batch axis (1, max_len, d_model) but still sliced pe[:T]"): Mutant(
        "positional.py",
        [(_PE_COS, _PE_COS + "\n        pe = pe.unsqueeze(0)")],
        must_fail=[]),
    ("a3_blocks", "positions multiplied into the embeddings instead of added"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x * self.pe[:T]")],
        must_fail=[]),
    ("a3_blocks", "forward returns the table rows without the input"): Mutant(
        "positional.py",
        [(_PE_ADD, "return self.pe[:T]")],
        must_fail=[]),
    ("a3_blocks", "frequency exponent doubles the already even index (2 * arange(0, d, 2))"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = 1.0 / 10000.0 ** (2 * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)")],
        must_fail=[]),
    ("a3_blocks", "positions built with arange(1, max_len): one row short"): Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = torch.arange(1, max_len, dtype=torch.float32).unsqueeze(1)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "embed forgets the positional encoding"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(embedding(tokens) * math.sqrt(self.config.d_model))")],
        must_fail=[]),
    ("a4_transformer", "embeddings scaled by sqrt(d_k), the head size"): Mutant(
        "transformer.py",
        [(_EMBED, "return self.dropout(self.positional(embedding(tokens) * "
                  "math.sqrt(self.config.d_model // self.config.num_heads)))")],
        must_fail=[]),
    ("a4_transformer", "encode returns (src_mask, memory), the pair swapped"): Mutant(
        "transformer.py",
        [(_ENC_RETURN, "return src_mask, self.encoder_norm(x)")],
        must_fail=[]),
    ("a4_transformer", "final encoder norm applied to the embeddings, before the layers"): Mutant(
        "transformer.py",
        [("x = self.embed(self.src_embed, src)  # (B, S, d_model)",
          "x = self.encoder_norm(self.embed(self.src_embed, src))"),
         (_ENC_RETURN, "return x, src_mask")],
        must_fail=[]),
    ("a4_transformer", "source mask squeezed to (B, S)"): Mutant(
        "transformer.py",
        [("src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)",
          "src_mask = padding_mask(src, self.config.pad_id).squeeze()")],
        must_fail=[]),
    ("a4_transformer", "decode returns (B, V, T) logits, ready for cross_entropy"): Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))  # (B, T, V)",
          "return self.generator(self.decoder_norm(x)).transpose(1, 2)  # (B, V, T) for F.cross_entropy")],
        must_fail=[]),
    ("a4_transformer", "final decoder norm applied after every decoder layer"): Mutant(
        "transformer.py",
        [("x = layer(x, memory, tgt_mask, src_mask)\n        return self.generator(self.decoder_norm(x))",
          "x = self.decoder_norm(layer(x, memory, tgt_mask, src_mask))\n        return self.generator(x)")],
        must_fail=[]),
    ("a4_transformer", "decoder layer: norm_first read the wrong way round"): Mutant(
        "layers.py",
        [("        if self.norm_first:\n            y = self.norm1(x)\n            " + _DEC_PRE_SELF,
          "        if not self.norm_first:\n            y = self.norm1(x)\n            " + _DEC_PRE_SELF)],
        must_fail=[]),
    ("a4_transformer", "encoder layer always pre-norm (norm_first ignored)"): Mutant(
        "layers.py",
        [(_ENC_BLOCK,
          "        y = self.norm1(x)\n"
          "        x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])\n"
          "        x = x + self.dropout2(self.ff(self.norm2(x)))\n")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder feed-forward reads the layer input, not the attention sub-layer's output"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "h = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"),
         (_ENC_POST_FF, "x = self.norm2(h + self.dropout2(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention uses the self_attn module (copy-paste)"): Mutant(
        "layers.py",
        [(_DEC_POST_CROSS, "x = self.norm2(x + self.dropout2(self.self_attn(x, memory, memory, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder normalises the feed-forward input with norm2 (copy-paste)"): Mutant(
        "layers.py",
        [(_DEC_PRE_FF, "x = x + self.dropout3(self.ff(self.norm2(x)))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder self-attention residual taken from the normalised input"): Mutant(
        "layers.py",
        [(_DEC_PRE_SELF, "x = y + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder cross-attention without its residual"): Mutant(
        "layers.py",
        [(_DEC_PRE_CROSS, "x = self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "top-p cumulative sum along the batch axis (dim=0)"): Mutant(
        "sampling.py",
        [("before = probs.cumsum(dim=-1) - probs", "before = probs.cumsum(dim=0) - probs")],
        must_fail=[]),
    ("a5_decoding", "top_k = 1 rejected (checks top_k <= 1)"): Mutant(
        "sampling.py",
        [("if top_k is not None and top_k < 1:", "if top_k is not None and top_k <= 1:")],
        must_fail=[]),
    ("a5_decoding", "negative temperature accepted (no check)"): Mutant(
        "sampling.py",
        [('    if temperature < 0:\n        raise ValueError(f"temperature must be >= 0 (0 means greedy), got {temperature}")\n',
          "")],
        must_fail=[]),
    ("a5_decoding", "next token concatenated along the batch axis (dim=0)"): Mutant(
        "decoding.py",
        [("tokens = torch.cat([tokens, next_token[:, None]], dim=1)",
          "tokens = torch.cat([tokens, next_token[:, None]], dim=0)")],
        must_fail=[]),
    ("a5_decoding", "finished update written finished | next_token == eos_id (precedence)"): Mutant(
        "decoding.py",
        [("finished |= next_token == eos_id", "finished = finished | next_token == eos_id")],
        must_fail=[]),
    ("a5_decoding", "decoding starts from eos_id instead of sos_id"): Mutant(
        "decoding.py",
        [(_TOKENS0, "tokens = torch.full((B, 1), eos_id, dtype=torch.long, device=src.device)  # (B, 1)")],
        must_fail=[]),
    ("a5_decoding", "start column built with torch.ones(B, 1) * sos_id (floats)"): Mutant(
        "decoding.py",
        [(_TOKENS0, "tokens = torch.ones(B, 1, device=src.device) * sos_id  # (B, 1)")],
        must_fail=[]),
    ("a5_decoding", "finished flags created as floats (torch.zeros without dtype)"): Mutant(
        "decoding.py",
        [("finished = torch.zeros(B, dtype=torch.bool, device=src.device)",
          "finished = torch.zeros(B, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "beam index and token from divmod by beam_size instead of V"): Mutant(
        "beam.py",
        [("beam, token = divmod(flat, V)", "beam, token = divmod(flat, beam_size)")],
        must_fail=[]),
    ("a5_decoding", "live scores taken as the first top-k values (finished ones not skipped)"): Mutant(
        "beam.py",
        [("scores = torch.tensor([score for score, _, _ in live], device=src.device)",
          "scores = top.values[: len(live)]")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", r"punctuation pattern without a capture group (\1 refers to nothing)"): Mutant(
        "preprocessing.py",
        [(_CLEAN_SPACE, r'text = re.sub(f"[{PUNCTUATION}]", r" \1 ", text)')],
        must_fail=[]),
    ("a6_translator", "character class without ^ deletes the allowed characters"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "clean_text returns the list of tokens, not a string"): Mutant(
        "preprocessing.py",
        [('return " ".join(text.split())', "return text.split()")],
        must_fail=[]),
    ("a6_translator", "min_freq = 0 accepted (checks min_freq < 0)"): Mutant(
        "vocab.py",
        [("if min_freq < 1:", "if min_freq < 0:")],
        must_fail=[]),
    ("a6_translator", "stoi numbers the specials from 1 (enumerate(..., 1))"): Mutant(
        "vocab.py",
        [("self.stoi = {word: i for i, word in enumerate(self.itos)}",
          "self.stoi = {word: i for i, word in enumerate(self.itos, 1)}")],
        must_fail=[]),
    ("a6_translator", "encode returns a tensor, not a list"): Mutant(
        "vocab.py",
        [("        return ids\n", "        return torch.tensor(ids, dtype=torch.long)\n")],
        must_fail=[]),
    ("a6_translator", "decode returns the list of words, not a string"): Mutant(
        "vocab.py",
        [('return " ".join(words)', "return words")],
        must_fail=[]),
    ("a6_translator", "dataset items built with torch.Tensor (float32)"): Mutant(
        "batching.py",
        [("return torch.tensor(src_ids, dtype=torch.long), torch.tensor(tgt_ids, dtype=torch.long)",
          "return torch.Tensor(src_ids), torch.Tensor(tgt_ids)")],
        must_fail=[]),
    ("a6_translator", "dataset unpacks each pair as (tgt, src)"): Mutant(
        "batching.py",
        [("src, tgt = self.pairs[i]", "tgt, src = self.pairs[i]")],
        must_fail=[]),
    ("a6_translator", "batches allocated as floats (torch.zeros(...).fill_(pad_id))"): Mutant(
        "batching.py",
        [(_FULL_SRC, "src_batch = torch.zeros(len(batch), S).fill_(pad_id)"),
         (_FULL_TGT, "tgt_batch = torch.zeros(len(batch), T).fill_(pad_id)")],
        must_fail=[]),
    ("a6_translator", "collate stacks the items with torch.stack (no padding)"): Mutant(
        "batching.py",
        [("    S = max(len(src) for src, _ in batch)\n    T = max(len(tgt) for _, tgt in batch)\n"
          "    " + _FULL_SRC + "\n    " + _FULL_TGT + "\n"
          "    for b, (src, tgt) in enumerate(batch):\n"
          "        src_batch[b, : len(src)] = src\n"
          "        tgt_batch[b, : len(tgt)] = tgt\n",
          "    src_batch = torch.stack([src for src, _ in batch])\n"
          "    tgt_batch = torch.stack([tgt for _, tgt in batch])\n")],
        must_fail=[]),
    ("a6_translator", "cross_entropy called with (labels, logits)"): Mutant(
        "training.py",
        [("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,",
          "return F.cross_entropy(labels.reshape(-1), logits.reshape(-1, V), ignore_index=pad_id,")],
        must_fail=[]),
    ("a6_translator", "optimizer.step() called before loss.backward()"): Mutant(
        "training.py",
        [("    optimizer.zero_grad()\n    loss.backward()\n    if clip_norm is not None:\n"
          "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n    optimizer.step()\n",
          "    optimizer.zero_grad()\n    optimizer.step()\n    loss.backward()\n    if clip_norm is not None:\n"
          "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n")],
        must_fail=[]),
    ("a6_translator", "train_step calls model(tgt_in, src), the arguments swapped"): Mutant(
        "training.py",
        [("logits = model(src, tgt_in)  # (B, T - 1, V)", "logits = model(tgt_in, src)  # (B, T - 1, V)")],
        must_fail=[]),
    ("a6_translator", "evaluate resets its sums inside the loop (only the last batch counts)"): Mutant(
        "training.py",
        [("    total, count = 0.0, 0\n    try:\n        with torch.no_grad():\n            for src, tgt in batches:\n",
          "    try:\n        with torch.no_grad():\n            for src, tgt in batches:\n"
          "                total, count = 0.0, 0\n")],
        must_fail=[]),
    ("a6_translator", "fit counts epochs from 1 (range(1, epochs)), one epoch short"): Mutant(
        "training.py",
        [("for _ in range(epochs):", "for _ in range(1, epochs):")],
        must_fail=[]),
    ("a6_translator", "translate passes max_len and strategy in the wrong order"): Mutant(
        "translation.py",
        [(_DECODE_CALL, "out = decode(model, src, min(max_len, limit), strategy, tgt_vocab.sos_id, tgt_vocab.eos_id,")],
        must_fail=[]),
    ("a6_translator", "translate drops the first generated token (as if <sos> were still there)"): Mutant(
        "translation.py",
        [("ids = out[b].tolist()", "ids = out[b, 1:].tolist()")],
        must_fail=[]),
}
