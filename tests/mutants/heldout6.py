"""The sixth round of held-out classic mistakes: 89 edits of the reference solutions, each
one mistake as a student writes it (a1 14, a2 11, a3 15, a4 15, a5 15, a6 19). Every edit
lies inside a ``### BEGIN SOLUTION`` block; a5's incremental.py and a3's visualize.py, given
to students whole, are left alone.

They were written without looking at the public tests, the graders, their diagnoses or the
tuned corpus (tests/mutants/a*.py), so they measure how well the tests and the diagnoses
generalise to mistakes nobody tuned them on. Each loses points at seeds 1, 2 and 3 (only
scores were looked at); a real mistake that kept full or partial marks at some seed was
left out of this list. ``must_fail`` is empty and there are no ``names``: only
tests/mutants/public.py --heldout and console.py --heldout read this module.
"""
from mutants import Mutant

# Lines of the reference solutions that several mutants edit.
_SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)"
_FILL = 'scores = scores.masked_fill(~mask, float("-inf"))'
_HAS_KEY = "has_key = mask.any(dim=-1, keepdim=True)"
_WEIGHTS = "weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)"
_WEIGHTS_NOMASK = "        weights = torch.softmax(scores, dim=-1)\n    output"
_MSA = "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_MEAN = "mean = x.mean(dim=dims, keepdim=True)"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_MHA_Q = "q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)"
_MHA_K = "k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)"
_MHA_V = "v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_MHA_RETURN = "return self.w_o(out), (weights if need_weights else None)"
_PE_FREQ = "inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))"
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"

_ENC_PRE_FF = "x = x + self.dropout2(self.ff(self.norm2(x)))"
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_CROSS = "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])"
_DEC_POST_SELF = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"
_DEC_POST_CROSS = "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))"
_DEC_POST_FF = "            x = self.norm3(x + self.dropout3(self.ff(x)))\n"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_DEC_LOOP = "for layer in self.decoder_layers:\n            x = layer(x, memory, tgt_mask, src_mask)"

_FINISHED = "finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))"

_CLEAN_DELETE = r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)'
_FULL_SRC = "src_batch = torch.full((len(batch), S), pad_id, dtype=torch.long)  # (B, S)"
_FULL_TGT = "tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.long)  # (B, T)"
_EVAL_SUM = 'ignore_index=pad_id, reduction="sum").item()'
_DECODE_CALL = "out = decode(model, src, strategy, min(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id,"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "returns (weights, output), the pair in the wrong order"): Mutant(
        "attention.py",
        [("    return output, weights\n", "    return weights, output\n")],
        must_fail=[]),
    ("a1_attention", "softmax over a hard-coded dim=1 (the keys only for 2-D inputs)"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=1).masked_fill(~has_key, 0.0)"),
         (_WEIGHTS_NOMASK, "        weights = torch.softmax(scores, dim=1)\n    output")],
        must_fail=[]),
    ("a1_attention", "d_k stored as its square root, then square-rooted again in the scale"): Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = q.size(-1) ** 0.5")],
        must_fail=[]),
    ("a1_attention", "mask squeezed before use ((B, 1, 1, S) becomes (B, S))"): Mutant(
        "attention.py",
        [(_FILL, "mask = mask.squeeze()\n        " + _FILL)],
        must_fail=[]),
    ("a1_attention", "has_key requires more than one key (sum > 1)"): Mutant(
        "attention.py",
        [(_HAS_KEY, "has_key = mask.sum(dim=-1, keepdim=True) > 1")],
        must_fail=[]),
    ("a1_attention", "scores scaled only inside the masked branch"): Mutant(
        "attention.py",
        [(_SCORES, "scores = q @ k.transpose(-2, -1)"),
         ("    if mask is not None:\n        " + _FILL,
          "    if mask is not None:\n        scores = scores / math.sqrt(d_k)\n        " + _FILL)],
        must_fail=[]),
    ("a1_attention", "softmax applied twice (once before the masking)"): Mutant(
        "attention.py",
        [(_SCORES, _SCORES + "\n    scores = torch.softmax(scores, dim=-1)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention passes K as the queries and Q as the keys"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(K, Q, V, mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "padding mask viewed as (-1, 1, 1, tokens.size(0)): B taken for S"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id).view(-1, 1, 1, tokens.size(0))")],
        must_fail=[]),
    ("a1_attention", "target mask combines padding and causal with ^ (XOR)"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id) ^ causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "target mask builds its padding mask with pad id 0, pad_id ignored"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, 0) & causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "fully masked rows: output zeroed but the weights left uniform"): Mutant(
        "attention.py",
        [(_WEIGHTS, "weights = torch.softmax(scores, dim=-1)"),
         ("    output = weights @ v  # (..., T_q, d_v)\n",
          "    output = weights @ v  # (..., T_q, d_v)\n"
          "    if mask is not None:\n        output = output.masked_fill(~has_key, 0.0)\n")],
        must_fail=[]),
    ("a1_attention", "padding mask shared across the batch (a column hidden if any row pads it)"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id).all(dim=0)[None, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "target mask also hides the padded queries (pad & pad^T & causal)"): Mutant(
        "masks.py",
        [(_TARGET, "pad = padding_mask(tokens, pad_id)\n"
                   "    return pad & pad.transpose(-2, -1) & causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "dims written -i for i in range(n): starts at dimension 0"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(-i for i in range(len(self.normalized_shape)))")],
        must_fail=[]),
    ("a2_layernorm", "dims written (-1,) * n (the same dimension repeated)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = (-1,) * len(self.normalized_shape)")],
        must_fail=[]),
    ("a2_layernorm", "divides by (var + eps) ** 2 instead of its square root"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / (var + self.eps) ** 2 * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "eps added twice (to the variance and again under the root)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = x.var(dim=dims, unbiased=False, keepdim=True) + self.eps")],
        must_fail=[]),
    ("a2_layernorm", "variance over the last dimension only, mean over all normalised dims"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = x.var(dim=-1, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "mean over the last dimension only, variance over all normalised dims"): Mutant(
        "layernorm.py",
        [(_LN_MEAN, "mean = x.mean(dim=-1, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "bias initialised with small random values (randn * 0.02)"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.bias = nn.Parameter(torch.randn(self.normalized_shape) * 0.02)")],
        must_fail=[]),
    ("a2_layernorm", "parameters created lazily in forward (re-initialised at every call)"): Mutant(
        "layernorm.py",
        [(_LN_WEIGHT + "\n        " + _LN_BIAS, "self.weight = None\n        self.bias = None"),
         (_LN_DIMS, "self.weight = nn.Parameter(torch.ones(self.normalized_shape, device=x.device))\n"
                    "        self.bias = nn.Parameter(torch.zeros(self.normalized_shape, device=x.device))\n"
                    "        " + _LN_DIMS)],
        must_fail=[]),
    ("a2_layernorm", "torch.std_mean taken for the variance (root of the standard deviation)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var, _ = torch.std_mean(x, dim=dims, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "scale and shift applied before dividing by the standard deviation"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return ((x - mean) * self.weight + self.bias) / torch.sqrt(var + self.eps)")],
        must_fail=[]),
    ("a2_layernorm", "adds the mean back at the end (un-centres the output)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias + mean")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "ReLU written clamp(max=0): keeps the negatives"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(torch.clamp(self.linear1(x), max=0)))")],
        must_fail=[]),
    ("a3_blocks", "ReLU applied to the input, before linear1"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(self.linear1(torch.relu(x))))")],
        must_fail=[]),
    ("a3_blocks", "need_weights ignored: the weights are always None"): Mutant(
        "multihead.py",
        [(_MHA_RETURN, "return self.w_o(out), None")],
        must_fail=[]),
    ("a3_blocks", "heads merged with transpose(2, 3) (length and head size swapped)"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.transpose(2, 3).reshape(B, T_q, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "heads split with transpose(-2, -1) (the last two axes)"): Mutant(
        "multihead.py",
        [(_MHA_Q, "q = self.w_q(query).view(B, T_q, h, d_k).transpose(-2, -1)"),
         (_MHA_K, "k = self.w_k(key).view(B, T_k, h, d_k).transpose(-2, -1)"),
         (_MHA_V, "v = self.w_v(value).view(B, T_k, h, d_k).transpose(-2, -1)")],
        must_fail=[]),
    ("a3_blocks", "queries pre-scaled by sqrt(d_k) before the a1 attention (scaled twice)"): Mutant(
        "multihead.py",
        [(_MHA_Q, _MHA_Q + "\n        q = q / d_k ** 0.5")],
        must_fail=[]),
    ("a3_blocks", "divisibility error message does not name d_model and num_heads"): Mutant(
        "multihead.py",
        [('f"d_model must be divisible by num_heads (got d_model={d_model}, num_heads={num_heads})"',
          '"d_model must be divisible by num_heads"')],
        must_fail=[]),
    ("a3_blocks", "integer division // in the frequency exponent (every frequency 1)"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = 1.0 / 10000.0 ** (torch.arange(0, d_model, 2) // d_model)")],
        must_fail=[]),
    ("a3_blocks", "cosines divide the positions by the frequency instead of multiplying"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.cos(position / inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "table rows taken from the end (pe[-T:])"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe[-T:]")],
        must_fail=[]),
    ("a3_blocks", "positional encoding also scales x by sqrt(d_model)"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x * math.sqrt(self.d_model) + self.pe[:T]")],
        must_fail=[]),
    ("a3_blocks", "table always built for 5000 positions, max_len ignored"): Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = torch.arange(5000, dtype=torch.float32).unsqueeze(1)"),
         ("pe = torch.zeros(max_len, d_model)", "pe = torch.zeros(5000, d_model)")],
        must_fail=[]),
    ("a3_blocks", "ReLU written nn.ReLU(h): a module built, never applied"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(nn.ReLU(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "table allocated with the positions' integer dtype (values truncated)"): Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = torch.arange(max_len).unsqueeze(1)"),
         ("pe = torch.zeros(max_len, d_model)", "pe = torch.zeros(max_len, d_model, dtype=position.dtype)")],
        must_fail=[]),
    ("a3_blocks", "table also assigned to self.pe before the given register_buffer"): Mutant(
        "positional.py",
        [(_PE_COS, _PE_COS + "\n        self.pe = pe")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "pre-norm encoder feed-forward written post-norm (copy-paste from the other branch)"): Mutant(
        "layers.py",
        [(_ENC_PRE_FF, "x = self.norm2(x + self.dropout2(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder runs the self-attention twice, never the feed-forward"): Mutant(
        "layers.py",
        [(_ENC_PRE_FF, "y = self.norm2(x)\n            x = x + self.dropout2(self.self_attn(y, y, y, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder: norm1 and norm2 swapped"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm2(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"),
         (_ENC_POST_FF, "x = self.norm1(x + self.dropout2(self.ff(x)))")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder forgets its feed-forward sub-layer"): Mutant(
        "layers.py",
        [(_DEC_POST_FF, "")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention residual taken from the layer input"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF, "h = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"),
         (_DEC_POST_CROSS, "x = self.norm2(x + self.dropout2(self.cross_attn(h, memory, memory, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder normalises the cross-attention queries with norm1 (copy-paste)"): Mutant(
        "layers.py",
        [(_DEC_PRE_CROSS, "x = x + self.dropout2(self.cross_attn(self.norm1(x), memory, memory, src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "decoder layers applied in reverse order"): Mutant(
        "transformer.py",
        [(_DEC_LOOP, "for layer in reversed(self.decoder_layers):\n            x = layer(x, memory, tgt_mask, src_mask)")],
        must_fail=[]),
    ("a4_transformer", "decoder loop assigns each layer's output to memory, not x"): Mutant(
        "transformer.py",
        [(_DEC_LOOP, "for layer in self.decoder_layers:\n            memory = layer(x, memory, tgt_mask, src_mask)")],
        must_fail=[]),
    ("a4_transformer", "embedding dropout through F.dropout (stays on in eval mode)"): Mutant(
        "transformer.py",
        [(_EMBED, "return nn.functional.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)), "
                  "self.config.dropout)")],
        must_fail=[]),
    ("a4_transformer", "last encoder layer skipped (encoder_layers[:-1])"): Mutant(
        "transformer.py",
        [("for layer in self.encoder_layers:", "for layer in self.encoder_layers[:-1]:")],
        must_fail=[]),
    ("a4_transformer", "decoder target mask built with pad id 0, config.pad_id ignored"): Mutant(
        "transformer.py",
        [("tgt_mask = target_mask(tgt, self.config.pad_id)", "tgt_mask = target_mask(tgt, 0)")],
        must_fail=[]),
    ("a4_transformer", "decoder embeds inline without the sqrt(d_model) scale"): Mutant(
        "transformer.py",
        [("x = self.embed(self.tgt_embed, tgt)  # (B, T, d_model)",
          "x = self.dropout(self.positional(self.tgt_embed(tgt)))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder attention sub-layer also normalises the residual sum"): Mutant(
        "layers.py",
        [("            x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])\n",
          "            x = self.norm1(x + self.dropout1(self.self_attn(y, y, y, mask)[0]))\n")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder self-attention sub-layer without its LayerNorm"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF, "x = x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "decode loops over the encoder layers (copy-paste from encode)"): Mutant(
        "transformer.py",
        [(_DEC_LOOP, "for layer in self.encoder_layers:\n            x = layer(x, memory, tgt_mask, src_mask)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "greedy case returns logits.max(dim=-1), the (values, indices) pair"): Mutant(
        "sampling.py",
        [("return logits.argmax(dim=-1)", "return logits.max(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "logits divided by the temperature before the greedy check (0 divides)"): Mutant(
        "sampling.py",
        [("    if temperature == 0 or top_k == 1:\n        return logits.argmax(dim=-1)\n"
          "    logits = logits / temperature\n",
          "    logits = logits / temperature\n"
          "    if temperature == 0 or top_k == 1:\n        return logits.argmax(dim=-1)\n")],
        must_fail=[]),
    ("a5_decoding", "top-k threshold from torch.kthvalue (the k-th smallest)"): Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)",
          "kth = logits.kthvalue(top_k, dim=-1, keepdim=True).values  # (B, 1)")],
        must_fail=[]),
    ("a5_decoding", "top-p mask shifted with roll, the wrapped-around first column not cleared"): Mutant(
        "sampling.py",
        [("        before = probs.cumsum(dim=-1) - probs  # probability of the tokens ranked above\n"
          '        sorted_logits = sorted_logits.masked_fill(before >= top_p, float("-inf"))\n',
          "        remove = (probs.cumsum(dim=-1) > top_p).roll(1, dims=-1)\n"
          '        sorted_logits = sorted_logits.masked_fill(remove, float("-inf"))\n')],
        must_fail=[]),
    ("a5_decoding", "sample_decode does not pass top_k and top_p on"): Mutant(
        "decoding.py",
        [("sample_next_token(logits, temperature, top_k, top_p, generator)",
          "sample_next_token(logits, temperature, generator=generator)")],
        must_fail=[]),
    ("a5_decoding", "batch size read from src.size(1), the source length"): Mutant(
        "decoding.py",
        [("    B = src.size(0)\n", "    B = src.size(1)\n")],
        must_fail=[]),
    ("a5_decoding", "beam hypotheses cut at max_len not length-normalised"): Mutant(
        "beam.py",
        [(_FINISHED, "finished.append((score / lp(step, length_penalty) if token == eos_id else score, "
                     "tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "beam live scores length-normalised at every step (the penalty compounds)"): Mutant(
        "beam.py",
        [("live.append((score, beam, token))", "live.append((score / lp(step, length_penalty), beam, token))")],
        must_fail=[]),
    ("a5_decoding", "beam length penalty alpha fixed at 0.6, the argument ignored"): Mutant(
        "beam.py",
        [(_FINISHED, "finished.append((score / lp(step, 0.6), tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "beam stops once beam_size hypotheses have finished"): Mutant(
        "beam.py",
        [("            if not live:\n                break",
          "            if not live or len(finished) >= beam_size:\n                break")],
        must_fail=[]),
    ("a5_decoding", "beam sums raw logits instead of log-probabilities"): Mutant(
        "beam.py",
        [("logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]",
          "logp = decoder.step(tokens) + scores[:, None]")],
        must_fail=[]),
    ("a5_decoding", "beam output left-padded (hypotheses written at the end of their rows)"): Mutant(
        "beam.py",
        [("out[b, :len(hypothesis)] = torch.tensor(hypothesis, dtype=torch.long)",
          "out[b, out.size(1) - len(hypothesis):] = torch.tensor(hypothesis, dtype=torch.long)")],
        must_fail=[]),
    ("a5_decoding", "stop test written finished.all without the call (always true: one step)"): Mutant(
        "decoding.py",
        [("        if finished.all():\n", "        if finished.all:\n")],
        must_fail=[]),
    ("a5_decoding", "beam searches src[b].unsqueeze(1), a (S, 1) batch, not (1, S)"): Mutant(
        "beam.py",
        [("best = [search_one(src[b:b + 1]) for b in range(src.size(0))]",
          "best = [search_one(src[b].unsqueeze(1)) for b in range(src.size(0))]")],
        must_fail=[]),
    ("a5_decoding", "beam's finished list shared by every sentence of the batch"): Mutant(
        "beam.py",
        [("        finished = []  # (normalised score, ids)\n", ""),
         ("    def search_one(row):", "    finished = []  # (normalised score, ids)\n\n    def search_one(row):")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "allowed characters list a space instead of \\s (tabs and newlines glue words)"): Mutant(
        "preprocessing.py",
        [(_CLEAN_DELETE, r'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION} ]", "", text)')],
        must_fail=[]),
    ("a6_translator", "whitespace collapsed with re.sub but the ends never stripped"): Mutant(
        "preprocessing.py",
        [('return " ".join(text.split())', r'return re.sub(r"\s+", " ", text)')],
        must_fail=[]),
    ("a6_translator", "stoi set after appending to itos (word ids one too high)"): Mutant(
        "vocab.py",
        [("                self.stoi[word] = len(self.itos)\n                self.itos.append(word)",
          "                self.itos.append(word)\n                self.stoi[word] = len(self.itos)")],
        must_fail=[]),
    ("a6_translator", "Counter over whole sentences (each sentence counted as one word)"): Mutant(
        "vocab.py",
        [("counts = Counter(word for sentence in sentences for word in sentence.split())",
          "counts = Counter(sentences)")],
        must_fail=[]),
    ("a6_translator", "build splits on ' ' (an empty sentence adds the word '')"): Mutant(
        "vocab.py",
        [("for word in sentence.split())", 'for word in sentence.split(" "))')],
        must_fail=[]),
    ("a6_translator", "unknown words encoded as the string '<unk>', not its id"): Mutant(
        "vocab.py",
        [("self.stoi.get(word, self.unk_id)", "self.stoi.get(word, self.UNK)")],
        must_fail=[]),
    ("a6_translator", "min_freq passed to Counter.most_common (keeps the min_freq commonest words)"): Mutant(
        "vocab.py",
        [("kept = [word for word, n in counts.items() if n >= min_freq]",
          "kept = [word for word, n in counts.most_common(min_freq)]")],
        must_fail=[]),
    ("a6_translator", "target framed <eos> ... <sos>, the specials swapped"): Mutant(
        "vocab.py",
        [("ids = [self.sos_id] + ids + [self.eos_id]", "ids = [self.eos_id] + ids + [self.sos_id]")],
        must_fail=[]),
    ("a6_translator", "train_step feeds the whole target to the decoder (T, not T - 1)"): Mutant(
        "training.py",
        [("logits = model(src, tgt_in)  # (B, T - 1, V)", "logits = model(src, tgt)  # (B, T, V)")],
        must_fail=[]),
    ("a6_translator", "source truncated from the front (keeps its last max_len ids)"): Mutant(
        "batching.py",
        [("src_ids = src_ids[: self.max_len]", "src_ids = src_ids[-self.max_len:]")],
        must_fail=[]),
    ("a6_translator", "collate takes the batch size from len(batch[0]), the pair (always 2)"): Mutant(
        "batching.py",
        [(_FULL_SRC, "src_batch = torch.full((len(batch[0]), S), pad_id, dtype=torch.long)"),
         (_FULL_TGT, "tgt_batch = torch.full((len(batch[0]), T), pad_id, dtype=torch.long)")],
        must_fail=[]),
    ("a6_translator", "sequence_loss ignores label 0 instead of pad_id"): Mutant(
        "training.py",
        [("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,",
          "return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=0,")],
        must_fail=[]),
    ("a6_translator", "train_step runs the forward pass under torch.no_grad()"): Mutant(
        "training.py",
        [("    logits = model(src, tgt_in)  # (B, T - 1, V)\n",
          "    with torch.no_grad():\n        logits = model(src, tgt_in)  # (B, T - 1, V)\n")],
        must_fail=[]),
    ("a6_translator", "evaluate returns a tensor, not a float (.item() forgotten)"): Mutant(
        "training.py",
        [(_EVAL_SUM, 'ignore_index=pad_id, reduction="sum")')],
        must_fail=[]),
    ("a6_translator", "evaluate applies label smoothing 0.1 (copied from training)"): Mutant(
        "training.py",
        [(_EVAL_SUM, 'ignore_index=pad_id, reduction="sum", label_smoothing=0.1).item()')],
        must_fail=[]),
    ("a6_translator", "fit returns only the last epoch's loss"): Mutant(
        "training.py",
        [("    return history\n", "    return history[-1]\n")],
        must_fail=[]),
    ("a6_translator", "translate caps max_len with max() instead of min()"): Mutant(
        "translation.py",
        [(_DECODE_CALL, "out = decode(model, src, strategy, max(max_len, limit), tgt_vocab.sos_id, tgt_vocab.eos_id,")],
        must_fail=[]),
    ("a6_translator", "translate gives None for the sentences that are empty after cleaning"): Mutant(
        "translation.py",
        [('results = [""] * len(encoded)', "results = [None] * len(encoded)")],
        must_fail=[]),
    ("a6_translator", "translate cuts at ids.index(eos_id) without checking <eos> is there"): Mutant(
        "translation.py",
        [("        if tgt_vocab.eos_id in ids:\n            ids = ids[: ids.index(tgt_vocab.eos_id)]\n",
          "        ids = ids[: ids.index(tgt_vocab.eos_id)]\n")],
        must_fail=[]),
}
