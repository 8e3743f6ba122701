"""The second round of held-out classic mistakes (measured once, then looked at, so no longer
held out: the unseen round is heldout3.py): 114 edits of the reference solutions, each
one mistake as a student writes it (a1 13, a2 13, a3 16, a4 19, a5 20, a6 33).

They were written without looking at the public tests, the graders, their diagnoses or the
tuned corpus (tests/mutants/a*.py, heldout.py), so they measure how well the tests and the
diagnoses generalise to mistakes nobody tuned them on. Each loses points at seeds 1, 2 and 3
(only scores were looked at); a real mistake that kept full marks was left out of this list.
``must_fail`` is empty and there are no ``names``: only tests/mutants/public.py --heldout and
console.py --heldout read this module.
"""
from mutants import Mutant

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "divides the scores by d_k instead of sqrt(d_k)"): Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1) / d_k")],
        must_fail=[]),
    ("a1_attention", "softmax over the query dimension instead of the keys"): Mutant(
        "attention.py",
        [("weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)",
          "weights = torch.softmax(scores, dim=-2).masked_fill(~has_key, 0.0)"),
         ("    else:\n        weights = torch.softmax(scores, dim=-1)",
          "    else:\n        weights = torch.softmax(scores, dim=-2)")],
        must_fail=[]),
    ("a1_attention", "fills -inf where the mask is True (polarity inverted)"): Mutant(
        "attention.py",
        [('scores = scores.masked_fill(~mask, float("-inf"))', 'scores = scores.masked_fill(mask, float("-inf"))')],
        must_fail=[]),
    ("a1_attention", "zeroes the masked weights after the softmax, without renormalising"): Mutant(
        "attention.py",
        [('        scores = scores.masked_fill(~mask, float("-inf"))\n', ""),
         ("weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)",
          "weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)")],
        must_fail=[]),
    ("a1_attention", "transposes k with transpose(1, 2), which only works for 3-D inputs"): Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(1, 2) / math.sqrt(d_k)")],
        must_fail=[]),
    ("a1_attention", "does not handle fully masked rows (softmax of all -inf gives NaN)"): Mutant(
        "attention.py",
        [("        scores = scores.masked_fill(~has_key, 0.0)\n", ""),
         ("weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)", "weights = torch.softmax(scores, dim=-1)")],
        must_fail=[]),
    ("a1_attention", "has_key computed without keepdim, so it broadcasts along the wrong axis"): Mutant(
        "attention.py",
        [("has_key = mask.any(dim=-1, keepdim=True)", "has_key = mask.any(dim=-1)")],
        must_fail=[]),
    ("a1_attention", "causal mask built with triu (attends to the future)"): Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          "return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device))")],
        must_fail=[]),
    ("a1_attention", "causal mask with diagonal=-1: a position cannot attend to itself"): Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=-1)")],
        must_fail=[]),
    ("a1_attention", "causal mask left as floats (no dtype=torch.bool)"): Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          "return torch.tril(torch.ones(T, T, device=device))")],
        must_fail=[]),
    ("a1_attention", "padding mask shaped (B, 1, S, 1): hides queries instead of keys"): Mutant(
        "masks.py",
        [("return (tokens != pad_id)[:, None, None, :]", "return (tokens != pad_id)[:, None, :, None]")],
        must_fail=[]),
    ("a1_attention", "target mask combines padding and causal with OR"): Mutant(
        "masks.py",
        [("return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)",
          "return padding_mask(tokens, pad_id) | causal_mask(T, device=tokens.device)")],
        must_fail=[]),
    ("a1_attention", "masked_self_attention forgets the causal mask"): Mutant(
        "attention.py",
        [("Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))",
          "Z, _ = scaled_dot_product_attention(Q, K, V)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "unbiased variance (divides by N - 1)"): Mutant(
        "layernorm.py",
        [("var = x.var(dim=dims, unbiased=False, keepdim=True)", "var = x.var(dim=dims, unbiased=True, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "adds eps to the standard deviation instead of the variance"): Mutant(
        "layernorm.py",
        [("return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
          "return (x - mean) / (torch.sqrt(var) + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "normalises over the last dimension only, whatever normalized_shape says"): Mutant(
        "layernorm.py",
        [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = (-1,)")],
        must_fail=[]),
    ("a2_layernorm", "mean taken without keepdim"): Mutant(
        "layernorm.py",
        [("mean = x.mean(dim=dims, keepdim=True)", "mean = x.mean(dim=dims)")],
        must_fail=[]),
    ("a2_layernorm", "uses the standard deviation where the variance goes"): Mutant(
        "layernorm.py",
        [("var = x.var(dim=dims, unbiased=False, keepdim=True)", "var = x.std(dim=dims, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "bias initialised to ones"): Mutant(
        "layernorm.py",
        [("self.bias = nn.Parameter(torch.zeros(self.normalized_shape))",
          "self.bias = nn.Parameter(torch.ones(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias are plain tensors, not nn.Parameter"): Mutant(
        "layernorm.py",
        [("self.weight = nn.Parameter(torch.ones(self.normalized_shape))",
          "self.weight = torch.ones(self.normalized_shape)"),
         ("self.bias = nn.Parameter(torch.zeros(self.normalized_shape))",
          "self.bias = torch.zeros(self.normalized_shape)")],
        must_fail=[]),
    ("a2_layernorm", "parameters sized by the last dimension only"): Mutant(
        "layernorm.py",
        [("self.weight = nn.Parameter(torch.ones(self.normalized_shape))",
          "self.weight = nn.Parameter(torch.ones(self.normalized_shape[-1]))"),
         ("self.bias = nn.Parameter(torch.zeros(self.normalized_shape))",
          "self.bias = nn.Parameter(torch.zeros(self.normalized_shape[-1]))")],
        must_fail=[]),
    ("a2_layernorm", "normalises over the leading dimensions (batch-norm style)"): Mutant(
        "layernorm.py",
        [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = tuple(range(len(self.normalized_shape)))")],
        must_fail=[]),
    ("a2_layernorm", "hard-codes eps = 1e-5 instead of using self.eps"): Mutant(
        "layernorm.py",
        [("return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
          "return (x - mean) / torch.sqrt(var + 1e-5) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "adds the bias before scaling"): Mutant(
        "layernorm.py",
        [("return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
          "return ((x - mean) / torch.sqrt(var + self.eps) + self.bias) * self.weight")],
        must_fail=[]),
    ("a2_layernorm", "variance as the mean of x squared (forgets to centre)"): Mutant(
        "layernorm.py",
        [("var = x.var(dim=dims, unbiased=False, keepdim=True)", "var = (x ** 2).mean(dim=dims, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "centres the input in place (x.sub_)"): Mutant(
        "layernorm.py",
        [("return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
          "x = x.sub_(mean)\n        return x / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "cosines in the even columns, sines in the odd ones"): Mutant(
        "positional.py",
        [("pe[:, 0::2] = torch.sin(position * inv_freq)", "pe[:, 0::2] = torch.cos(position * inv_freq)"),
         ("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:, 1::2] = torch.sin(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "frequency exponent i / d_model instead of 2i / d_model"): Mutant(
        "positional.py",
        [("torch.arange(0, d_model, 2, dtype=torch.float32)", "torch.arange(0, d_model // 2, dtype=torch.float32)")],
        must_fail=[]),
    ("a3_blocks", "frequencies 10000^(2i/d) instead of 1/10000^(2i/d) (sign of the log)"): Mutant(
        "positional.py",
        [("(-math.log(10000.0) / d_model)", "(math.log(10000.0) / d_model)")],
        must_fail=[]),
    ("a3_blocks", "positions counted from 1"): Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = torch.arange(1, max_len + 1, dtype=torch.float32).unsqueeze(1)")],
        must_fail=[]),
    ("a3_blocks", "sines in the first half of the columns, cosines in the second (concatenated)"): Mutant(
        "positional.py",
        [("pe[:, 0::2] = torch.sin(position * inv_freq)", "pe[:, : d_model // 2] = torch.sin(position * inv_freq)"),
         ("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:, d_model // 2:] = torch.cos(position * inv_freq)")],
        must_fail=[]),
    ("a3_blocks", "adds the table rows of the batch size instead of the sequence length"): Mutant(
        "positional.py",
        [("return x + self.pe[:T]", "return x + self.pe[: x.size(0)].unsqueeze(1)")],
        must_fail=[]),
    ("a3_blocks", "splits the heads with view(B, h, T, d_k), no transpose"): Mutant(
        "multihead.py",
        [("q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)", "q = self.w_q(query).view(B, h, T_q, d_k)"),
         ("k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)", "k = self.w_k(key).view(B, h, T_k, d_k)"),
         ("v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)", "v = self.w_v(value).view(B, h, T_k, d_k)")],
        must_fail=[]),
    ("a3_blocks", "merges the heads with reshape, no transpose back"): Mutant(
        "multihead.py",
        [("out = out.transpose(1, 2).reshape(B, T_q, self.d_model)", "out = out.reshape(B, T_q, self.d_model)")],
        must_fail=[]),
    ("a3_blocks", "dropout on the attention output instead of on the weights"): Mutant(
        "multihead.py",
        [("out = self.dropout(weights) @ v", "out = self.dropout(out)")],
        must_fail=[]),
    ("a3_blocks", "projects the keys with w_q (copy-paste)"): Mutant(
        "multihead.py",
        [("k = self.w_k(key).view(B, T_k, h, d_k)", "k = self.w_q(key).view(B, T_k, h, d_k)")],
        must_fail=[]),
    ("a3_blocks", "values projected from the key input"): Mutant(
        "multihead.py",
        [("v = self.w_v(value).view(B, T_k, h, d_k)", "v = self.w_v(key).view(B, T_k, h, d_k)")],
        must_fail=[]),
    ("a3_blocks", "no check that d_model is divisible by num_heads"): Mutant(
        "multihead.py",
        [("        if d_model % num_heads != 0:\n            raise ValueError(\n"
          "                f\"d_model must be divisible by num_heads (got d_model={d_model}, num_heads={num_heads})\"\n"
          "            )\n", "")],
        must_fail=[]),
    ("a3_blocks", "forgets the output projection w_o"): Mutant(
        "multihead.py",
        [("return self.w_o(out), (weights if need_weights else None)", "return out, (weights if need_weights else None)")],
        must_fail=[]),
    ("a3_blocks", "feed-forward without the ReLU"): Mutant(
        "feedforward.py",
        [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "return self.linear2(self.dropout(self.linear1(x)))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout after the second linear layer"): Mutant(
        "feedforward.py",
        [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "return self.dropout(self.linear2(torch.relu(self.linear1(x))))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward with GELU instead of ReLU"): Mutant(
        "feedforward.py",
        [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "return self.linear2(self.dropout(torch.nn.functional.gelu(self.linear1(x))))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "encoder feed-forward sub-layer without its residual (post-norm)"): Mutant(
        "layers.py",
        [("x = self.norm2(x + self.dropout2(self.ff(x)))\n        return x\n",
          "x = self.norm2(self.dropout2(self.ff(x)))\n        return x\n")],
        must_fail=[]),
    ("a4_transformer", "encoder post-norm adds the residual after the LayerNorm"): Mutant(
        "layers.py",
        [("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
          "x = x + self.norm1(self.dropout1(self.self_attn(x, x, x, mask)[0]))"),
         ("x = self.norm2(x + self.dropout2(self.ff(x)))\n        return x\n",
          "x = x + self.norm2(self.dropout2(self.ff(x)))\n        return x\n")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder: residual taken from the normalised input"): Mutant(
        "layers.py",
        [("x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])", "x = y + self.dropout1(self.self_attn(y, y, y, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "encoder layer ignores the padding mask"): Mutant(
        "layers.py",
        [("x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])", "x = x + self.dropout1(self.self_attn(y, y, y)[0])"),
         ("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
          "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x)[0]))")],
        must_fail=[]),
    ("a4_transformer", "encoder post-norm reuses norm1 for the feed-forward sub-layer"): Mutant(
        "layers.py",
        [("x = self.norm2(x + self.dropout2(self.ff(x)))\n        return x\n",
          "x = self.norm1(x + self.dropout2(self.ff(x)))\n        return x\n")],
        must_fail=[]),
    ("a4_transformer", "decoder cross-attention with the target mask instead of the source mask"): Mutant(
        "layers.py",
        [("x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])",
          "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, tgt_mask)[0])"),
         ("x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))",
          "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, tgt_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "decoder cross-attention without the source padding mask"): Mutant(
        "layers.py",
        [("x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])",
          "x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory)[0])"),
         ("x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))",
          "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory)[0]))")],
        must_fail=[]),
    ("a4_transformer", "decoder post-norm self-attention uses the cross_attn module (copy-paste)"): Mutant(
        "layers.py",
        [("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))",
          "x = self.norm1(x + self.dropout1(self.cross_attn(x, x, x, tgt_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder also normalises the encoder memory with norm2"): Mutant(
        "layers.py",
        [("x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])",
          "m = self.norm2(memory)\n            x = x + self.dropout2(self.cross_attn(self.norm2(x), m, m, src_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "encoder post-norm dropout on the residual sum instead of the sub-layer"): Mutant(
        "layers.py",
        [("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
          "x = self.norm1(self.dropout1(x + self.self_attn(x, x, x, mask)[0]))"),
         ("x = self.norm2(x + self.dropout2(self.ff(x)))\n        return x\n",
          "x = self.norm2(self.dropout2(x + self.ff(x)))\n        return x\n")],
        must_fail=[]),
    ("a4_transformer", "embeddings not scaled by sqrt(d_model)"): Mutant(
        "transformer.py",
        [("return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))",
          "return self.dropout(self.positional(embedding(tokens)))")],
        must_fail=[]),
    ("a4_transformer", "scales by sqrt(d_model) after adding the positions"): Mutant(
        "transformer.py",
        [("return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))",
          "return self.dropout(self.positional(embedding(tokens)) * math.sqrt(self.config.d_model))")],
        must_fail=[]),
    ("a4_transformer", "encoder layers called without the source mask"): Mutant(
        "transformer.py",
        [("x = layer(x, src_mask)", "x = layer(x)")],
        must_fail=[]),
    ("a4_transformer", "decoder masks only the future, not the target padding"): Mutant(
        "transformer.py",
        [("from masks import padding_mask, target_mask", "from masks import causal_mask, padding_mask"),
         ("tgt_mask = target_mask(tgt, self.config.pad_id)", "tgt_mask = causal_mask(tgt.size(1), device=tgt.device)")],
        must_fail=[]),
    ("a4_transformer", "target tokens embedded with the source embedding"): Mutant(
        "transformer.py",
        [("x = self.embed(self.tgt_embed, tgt)", "x = self.embed(self.src_embed, tgt)")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder stack forgets its final LayerNorm"): Mutant(
        "transformer.py",
        [("return self.encoder_norm(x), src_mask", "return x, src_mask")],
        must_fail=[]),
    ("a4_transformer", "decoder layer called with tgt_mask and src_mask swapped"): Mutant(
        "transformer.py",
        [("x = layer(x, memory, tgt_mask, src_mask)", "x = layer(x, memory, src_mask, tgt_mask)")],
        must_fail=[]),
    ("a4_transformer", "every encoder layer reads the embeddings (the stack is not chained)"): Mutant(
        "transformer.py",
        [("            x = layer(x, src_mask)\n        return self.encoder_norm(x), src_mask",
          "            h = layer(x, src_mask)\n        return self.encoder_norm(h), src_mask")],
        must_fail=[]),
    ("a4_transformer", "no dropout on the embeddings"): Mutant(
        "transformer.py",
        [("return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))",
          "return self.positional(embedding(tokens) * math.sqrt(self.config.d_model))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "multiplies the logits by the temperature"): Mutant(
        "sampling.py",
        [("logits = logits / temperature", "logits = logits * temperature")],
        must_fail=[]),
    ("a5_decoding", "top-k masks logits <= the k-th (keeps k - 1 tokens)"): Mutant(
        "sampling.py",
        [('logits = logits.masked_fill(logits < kth, float("-inf"))',
          'logits = logits.masked_fill(logits <= kth, float("-inf"))')],
        must_fail=[]),
    ("a5_decoding", "top-k threshold without keepdim (broadcasts across the batch)"): Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]", "kth = logits.topk(top_k, dim=-1).values[:, -1]")],
        must_fail=[]),
    ("a5_decoding", "top-p drops the token whose cumulative probability crosses p"): Mutant(
        "sampling.py",
        [("before = probs.cumsum(dim=-1) - probs", "before = probs.cumsum(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "top-p forgets to scatter the sorted logits back to vocabulary order"): Mutant(
        "sampling.py",
        [("logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)", "logits = sorted_logits")],
        must_fail=[]),
    ("a5_decoding", "applies the temperature after top-p filtering"): Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", ""),
         ("    probs = logits.softmax(dim=-1)  # renormalised", "    logits = logits / temperature\n"
          "    probs = logits.softmax(dim=-1)  # renormalised")],
        must_fail=[]),
    ("a5_decoding", "ignores the generator when drawing"): Mutant(
        "sampling.py",
        [("return torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
          "return torch.multinomial(probs, 1).squeeze(-1)")],
        must_fail=[]),
    ("a5_decoding", "rejects temperature 0 (checks temperature <= 0)"): Mutant(
        "sampling.py",
        [("if temperature < 0:", "if temperature <= 0:")],
        must_fail=[]),
    ("a5_decoding", "finished rows are not padded after their EOS"): Mutant(
        "decoding.py",
        [("        next_token = next_token.masked_fill(finished, pad_id)\n", "")],
        must_fail=[]),
    ("a5_decoding", "stops decoding as soon as any row has finished"): Mutant(
        "decoding.py",
        [("if finished.all():", "if finished.any():")],
        must_fail=[]),
    ("a5_decoding", "marks rows finished before padding them, so the EOS becomes pad"): Mutant(
        "decoding.py",
        [("        next_token = next_token.masked_fill(finished, pad_id)\n"
          "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n"
          "        finished |= next_token == eos_id\n",
          "        finished |= next_token == eos_id\n"
          "        next_token = next_token.masked_fill(finished, pad_id)\n"
          "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n")],
        must_fail=[]),
    ("a5_decoding", "counts the SOS in max_len (generates max_len - 1 tokens)"): Mutant(
        "decoding.py",
        [("for _ in range(max_len):", "for _ in range(max_len - 1):")],
        must_fail=[]),
    ("a5_decoding", "feeds only the last token to decoder.step"): Mutant(
        "decoding.py",
        [("logits = decoder.step(tokens)  # (B, V)", "logits = decoder.step(tokens[:, -1:])  # (B, V)")],
        must_fail=[]),
    ("a5_decoding", "overwrites finished each step instead of accumulating it"): Mutant(
        "decoding.py",
        [("finished |= next_token == eos_id", "finished = next_token == eos_id")],
        must_fail=[]),
    ("a5_decoding", "beam search without length normalisation"): Mutant(
        "beam.py",
        [("finished.append((score / lp(step, length_penalty), tokens[beam, 1:].tolist() + [token]))",
          "finished.append((score, tokens[beam, 1:].tolist() + [token]))")],
        must_fail=[]),
    ("a5_decoding", "length penalty on the length without the EOS"): Mutant(
        "beam.py",
        [("finished.append((score / lp(step, length_penalty),", "finished.append((score / lp(step - 1, length_penalty),")],
        must_fail=[]),
    ("a5_decoding", "beam scores are not accumulated over the steps"): Mutant(
        "beam.py",
        [("logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]", "logp = decoder.step(tokens).log_softmax(dim=-1)")],
        must_fail=[]),
    ("a5_decoding", "beam search adds probabilities (softmax) instead of log-probabilities"): Mutant(
        "beam.py",
        [("logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]",
          "logp = decoder.step(tokens).softmax(dim=-1) + scores[:, None]")],
        must_fail=[]),
    ("a5_decoding", "beam search stops at the first finished hypothesis"): Mutant(
        "beam.py",
        [("            if not live:\n                break", "            if finished or not live:\n                break")],
        must_fail=[]),
    ("a5_decoding", "beam hypotheses drop their last token (the EOS)"): Mutant(
        "beam.py",
        [("tokens[beam, 1:].tolist() + [token]))", "tokens[beam, 1:].tolist()))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "specials in the wrong order (<unk> first)"): Mutant(
        "vocab.py",
        [("self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]", "self.itos = [self.UNK, self.PAD, self.SOS, self.EOS]")],
        must_fail=[]),
    ("a6_translator", "vocabulary does not skip duplicate words"): Mutant(
        "vocab.py",
        [("            if word not in self.stoi:\n                self.stoi[word] = len(self.itos)\n"
          "                self.itos.append(word)\n",
          "            self.stoi[word] = len(self.itos)\n            self.itos.append(word)\n")],
        must_fail=[]),
    ("a6_translator", "min_freq compared with > (drops words seen exactly min_freq times)"): Mutant(
        "vocab.py",
        [("if n >= min_freq]", "if n > min_freq]")],
        must_fail=[]),
    ("a6_translator", "ties in frequency not broken alphabetically"): Mutant(
        "vocab.py",
        [("key=lambda word: (-counts[word], word)", "key=lambda word: -counts[word]")],
        must_fail=[]),
    ("a6_translator", "encode looks words up with stoi[word] (unknown words raise)"): Mutant(
        "vocab.py",
        [("ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]",
          "ids = [self.stoi[word] for word in sentence.split()]")],
        must_fail=[]),
    ("a6_translator", "decode also drops <unk>"): Mutant(
        "vocab.py",
        [("if i not in (self.pad_id, self.sos_id, self.eos_id):", "if i not in (self.pad_id, self.sos_id, self.eos_id, self.unk_id):")],
        must_fail=[]),
    ("a6_translator", "no Unicode NFC normalisation"): Mutant(
        "preprocessing.py",
        [('text = unicodedata.normalize("NFC", text).lower()', "text = text.lower()")],
        must_fail=[]),
    ("a6_translator", "punctuation not split off the words"): Mutant(
        "preprocessing.py",
        [('    text = re.sub(f"([{PUNCTUATION}])", r" \\1 ", text)\n', "")],
        must_fail=[]),
    ("a6_translator", "removes the meaningful punctuation too"): Mutant(
        "preprocessing.py",
        [('text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\\\s]", "", text)',
          'text = re.sub(f"[^a-z0-9{ACCENTED}\\\\s]", "", text)')],
        must_fail=[]),
    ("a6_translator", "replaces disallowed characters with a space instead of deleting them"): Mutant(
        "preprocessing.py",
        [('text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\\\s]", "", text)',
          'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\\\s]", " ", text)')],
        must_fail=[]),
    ("a6_translator", "only strips the ends, does not collapse inner whitespace"): Mutant(
        "preprocessing.py",
        [('return " ".join(text.split())', "return text.strip()")],
        must_fail=[]),
    ("a6_translator", "truncated target loses its <eos>"): Mutant(
        "batching.py",
        [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]", "tgt_ids = tgt_ids[: self.max_len]")],
        must_fail=[]),
    ("a6_translator", "source framed with <sos> and <eos> too"): Mutant(
        "batching.py",
        [("src_ids = self.src_vocab.encode(src)", "src_ids = self.src_vocab.encode(src, add_sos_eos=True)")],
        must_fail=[]),
    ("a6_translator", "target encoded with the source vocabulary"): Mutant(
        "batching.py",
        [("tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)", "tgt_ids = self.src_vocab.encode(tgt, add_sos_eos=True)")],
        must_fail=[]),
    ("a6_translator", "collate pads on the left"): Mutant(
        "batching.py",
        [("src_batch[b, : len(src)] = src", "src_batch[b, S - len(src):] = src"),
         ("tgt_batch[b, : len(tgt)] = tgt", "tgt_batch[b, T - len(tgt):] = tgt")],
        must_fail=[]),
    ("a6_translator", "collate fills with zeros, ignoring pad_id"): Mutant(
        "batching.py",
        [("src_batch = torch.full((len(batch), S), pad_id, dtype=torch.long)",
          "src_batch = torch.zeros((len(batch), S), dtype=torch.long)"),
         ("tgt_batch = torch.full((len(batch), T), pad_id, dtype=torch.long)",
          "tgt_batch = torch.zeros((len(batch), T), dtype=torch.long)")],
        must_fail=[]),
    ("a6_translator", "loss averaged over the padding labels too"): Mutant(
        "training.py",
        [("return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,",
          "return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1),")],
        must_fail=[]),
    ("a6_translator", "labels not shifted: predicts the decoder input itself"): Mutant(
        "training.py",
        [("tgt_in, labels = tgt[:, :-1], tgt[:, 1:]", "tgt_in, labels = tgt[:, :-1], tgt[:, :-1]")],
        must_fail=[]),
    ("a6_translator", "zero_grad after backward (the step sees no gradient)"): Mutant(
        "training.py",
        [("    optimizer.zero_grad()\n    loss.backward()\n", "    loss.backward()\n    optimizer.zero_grad()\n")],
        must_fail=[]),
    ("a6_translator", "clips the gradients after the optimizer step"): Mutant(
        "training.py",
        [("    if clip_norm is not None:\n        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
          "    optimizer.step()\n",
          "    optimizer.step()\n    if clip_norm is not None:\n"
          "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n")],
        must_fail=[]),
    ("a6_translator", "train_step does not pass label_smoothing on"): Mutant(
        "training.py",
        [("loss = sequence_loss(logits, labels, pad_id, label_smoothing)", "loss = sequence_loss(logits, labels, pad_id)")],
        must_fail=[]),
    ("a6_translator", "evaluate averages the batch means"): Mutant(
        "training.py",
        [('ignore_index=pad_id, reduction="sum").item()', "ignore_index=pad_id).item()"),
         ("count += int((labels != pad_id).sum())", "count += 1")],
        must_fail=[]),
    ("a6_translator", "evaluate counts the padding labels"): Mutant(
        "training.py",
        [("count += int((labels != pad_id).sum())", "count += labels.numel()")],
        must_fail=[]),
    ("a6_translator", "evaluate leaves the model in eval mode"): Mutant(
        "training.py",
        [("    finally:\n        model.train(was_training)\n", "    finally:\n        pass\n")],
        must_fail=[]),
    ("a6_translator", "evaluate forgets model.eval() (dropout stays on)"): Mutant(
        "training.py",
        [("    was_training = model.training\n    model.eval()\n", "    was_training = model.training\n")],
        must_fail=[]),
    ("a6_translator", "fit forgets model.train()"): Mutant(
        "training.py",
        [("    model.train()\n    history = []\n", "    history = []\n")],
        must_fail=[]),
    ("a6_translator", "fit records the last batch loss of each epoch"): Mutant(
        "training.py",
        [("history.append(sum(losses) / len(losses))", "history.append(losses[-1])")],
        must_fail=[]),
    ("a6_translator", "translate does not clean the input text"): Mutant(
        "translation.py",
        [("encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]",
          "encoded = [src_vocab.encode(s)[:limit] for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate does not cap max_len at the model's table"): Mutant(
        "translation.py",
        [("out = decode(model, src, strategy, min(max_len, limit),", "out = decode(model, src, strategy, max_len,")],
        must_fail=[]),
    ("a6_translator", "translate does not truncate long sources"): Mutant(
        "translation.py",
        [("encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]",
          "encoded = [src_vocab.encode(clean_text(s)) for s in sentences]")],
        must_fail=[]),
    ("a6_translator", "translate stores results by batch row, not by sentence index"): Mutant(
        "translation.py",
        [("results[i] = tgt_vocab.decode(ids)", "results[b] = tgt_vocab.decode(ids)")],
        must_fail=[]),
    ("a6_translator", "translate runs the model on empty sentences too"): Mutant(
        "translation.py",
        [("rows = [i for i, ids in enumerate(encoded) if ids]", "rows = list(range(len(encoded)))")],
        must_fail=[]),
    ("a6_translator", "translate never switches the model to eval mode"): Mutant(
        "translation.py",
        [("    model.eval()\n    out = decode(", "    out = decode(")],
        must_fail=[]),
}
