"""The eighth round of held-out classic mistakes: 102 edits of the reference solutions, each
one mistake as a student writes it (a1 14, a2 13, a3 14, a4 17, a5 18, a6 26). Every edit
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
_HAS_KEY = "has_key = mask.any(dim=-1, keepdim=True)  # (..., T_q, 1)"
_PADDING = "return (tokens != pad_id)[:, None, None, :]"
_TARGET = "return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)"
_MSA = "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))"

_LN_RETURN = "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias"
_LN_DIMS = "dims = tuple(range(-len(self.normalized_shape), 0))"
_LN_VAR = "var = x.var(dim=dims, unbiased=False, keepdim=True)"
_LN_WEIGHT = "self.weight = nn.Parameter(torch.ones(self.normalized_shape))"
_LN_BIAS = "self.bias = nn.Parameter(torch.zeros(self.normalized_shape))"
_LN_PARAMS = _LN_WEIGHT + "\n        " + _LN_BIAS

_FF = "return self.linear2(self.dropout(torch.relu(self.linear1(x))))"
_PE_ZEROS = "pe = torch.zeros(max_len, d_model)"
_PE_POSITION = "position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)"
_PE_FREQ = ("inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * "
            "(-math.log(10000.0) / d_model))")
_PE_COS = "pe[:, 1::2] = torch.cos(position * inv_freq)"
_PE_ADD = "return x + self.pe[:T]"
_MHA_V = "v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)"
_MHA_MERGE = "out = out.transpose(1, 2).reshape(B, T_q, self.d_model)"
_MHA_RETURN = "return self.w_o(out), (weights if need_weights else None)"

_ENC_PRE = ("y = self.norm1(x)\n"
            "            x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])")
_ENC_PRE_ATTN = "x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])"
_ENC_POST_ATTN = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))"
_ENC_POST_FF = "x = self.norm2(x + self.dropout2(self.ff(x)))"
_DEC_PRE_CROSS = "            x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])\n"
_DEC_POST_SELF = "x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)[0]))"
_EMBED = "return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))"
_ENC_LOOP = "        for layer in self.encoder_layers:\n            x = layer(x, src_mask)\n"
_DEC_LAYER = "            x = layer(x, memory, tgt_mask, src_mask)\n"
_TGT_MASK = "tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)"
_TGT_EMBED = "x = self.embed(self.tgt_embed, tgt)  # (B, T, d_model)"
_DEC_RETURN = "return self.generator(self.decoder_norm(x))  # (B, T, V)"

_KTH = "kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)"
_TOP_K_FILL = 'logits = logits.masked_fill(logits < kth, float("-inf"))'
_TEMPERATURE = "    logits = logits / temperature\n"
_SORT = "sorted_logits, order = logits.sort(dim=-1, descending=True)  # (B, V)"
_TOP_P_FILL = 'sorted_logits = sorted_logits.masked_fill(before >= top_p, float("-inf"))'
_SCATTER = "logits = torch.empty_like(logits).scatter_(-1, order, sorted_logits)"
_DRAW = "return torch.multinomial(probs, 1, generator=generator).squeeze(-1)"
_FINISHED_UPDATE = "        finished |= next_token == eos_id\n"
_APPEND = "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n"
_STOP = "        if finished.all():\n            break\n"
_TOP = "top = logp.flatten().topk(min(beam_size, logp.numel()))"
_INDEX = "index = torch.tensor([beam for _, beam, _ in live], device=src.device)"
_NEW = "new = torch.tensor([[token] for _, _, token in live], device=src.device)"
_SCORES = "scores = torch.tensor([score for score, _, _ in live], device=src.device)"

_NFC = 'text = unicodedata.normalize("NFC", text).lower()'
_COLLAPSE = 'return " ".join(text.split())'
_ITOS = "self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]"
_STOI = "self.stoi = {word: i for i, word in enumerate(self.itos)}"
_WORD_LOOP = ("        for word in words:\n"
              "            if word not in self.stoi:\n"
              "                self.stoi[word] = len(self.itos)\n"
              "                self.itos.append(word)\n")
_ENCODE = "ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]"
_RAISE = ('                raise IndexError(f"id {i} is outside this vocabulary of {len(self.itos)} words '
          '(ids 0..{len(self.itos) - 1})")\n')
_ITEM = "return torch.tensor(src_ids, dtype=torch.long), torch.tensor(tgt_ids, dtype=torch.long)"
_COPY = ("    for b, (src, tgt) in enumerate(batch):\n"
         "        src_batch[b, : len(src)] = src\n"
         "        tgt_batch[b, : len(tgt)] = tgt\n")
_CE = ("    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
       "                           label_smoothing=label_smoothing)  # (B*T, V) vs (B*T,) -> ()\n")
_CLIP = ("    if clip_norm is not None:\n"
         "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n")
_EVAL_SUM = ('                                         ignore_index=pad_id, reduction="sum").item()\n')
_COUNT = "                count += int((labels != pad_id).sum())\n"
_FIT_STEP = "train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader"
_SRC_FULL = "src = torch.full((len(rows), S), src_vocab.pad_id, dtype=torch.long, device=device)"
_SRC_ROW = "src[b, : len(encoded[i])] = torch.tensor(encoded[i], dtype=torch.long)"
_DECODE_TAIL = "tgt_vocab.pad_id, **decode_kwargs)  # (B, L)\n"

MUTANTS = {
    # ----------------------------------------------------------------------------- a1
    ("a1_attention", "has_key taken from the first sequence's mask only (mask[0])"): Mutant(
        "attention.py",
        [(_HAS_KEY, "has_key = mask[0].any(dim=-1, keepdim=True)  # (..., T_q, 1)")],
        must_fail=[]),
    ("a1_attention", "has_key reduced over the whole mask (any() without dim)"): Mutant(
        "attention.py",
        [(_HAS_KEY, "has_key = mask.any()")],
        must_fail=[]),
    ("a1_attention", "values transposed before mixing (weights @ v^T)"): Mutant(
        "attention.py",
        [(_OUTPUT, "    output = weights @ v.transpose(-2, -1)  # (..., T_q, d_v)")],
        must_fail=[]),
    ("a1_attention", "values and weights multiplied in the wrong order (v @ weights)"): Mutant(
        "attention.py",
        [(_OUTPUT, "    output = v @ weights  # (..., T_q, d_v)")],
        must_fail=[]),
    ("a1_attention", "mask inverted in place with logical_not_ (the caller's mask flipped)"): Mutant(
        "attention.py",
        [('scores = scores.masked_fill(~mask, float("-inf"))',
          'scores = scores.masked_fill(mask.logical_not_(), float("-inf"))')],
        must_fail=[]),
    ("a1_attention", "masked self-attention passes the causal mask transposed (sees the future)"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device).T)")],
        must_fail=[]),
    ("a1_attention", "masked self-attention returns only the last row of Z"): Mutant(
        "attention.py",
        [(_MSA + "\n    return Z", _MSA + "\n    return Z[-1]")],
        must_fail=[]),
    ("a1_attention", "masked self-attention adds a batch axis and never removes it (1, T, d_v)"): Mutant(
        "attention.py",
        [(_MSA, "Z, _ = scaled_dot_product_attention(Q[None], K[None], V[None], "
                "mask=causal_mask(Q.size(0), device=Q.device))")],
        must_fail=[]),
    ("a1_attention", "causal mask built with numpy (np.tril), not a tensor"): Mutant(
        "masks.py",
        [(_CAUSAL, "import numpy as np\n    return np.tril(np.ones((T, T), dtype=bool))")],
        must_fail=[]),
    ("a1_attention", "causal mask built one size too large (T + 1)"): Mutant(
        "masks.py",
        [(_CAUSAL, "return torch.tril(torch.ones(T + 1, T + 1, dtype=torch.bool, device=device))")],
        must_fail=[]),
    ("a1_attention", "padding mask tested with `is not` instead of !="): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens is not pad_id)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask computed in place with tokens.ne_ (the caller's ids overwritten)"): Mutant(
        "masks.py",
        [(_PADDING, "return tokens.ne_(pad_id)[:, None, None, :]")],
        must_fail=[]),
    ("a1_attention", "padding mask expanded to 8 heads, the paper's h, hard-coded"): Mutant(
        "masks.py",
        [(_PADDING, "return (tokens != pad_id)[:, None, None, :].expand(-1, 8, 1, -1)")],
        must_fail=[]),
    ("a1_attention", "target mask calls causal_mask(T, T) (the second argument is the device)"): Mutant(
        "masks.py",
        [(_TARGET, "return padding_mask(tokens, pad_id) & causal_mask(T, T)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a2
    ("a2_layernorm", "eps added to the normalised output instead of the variance"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var) * self.weight + self.bias + self.eps")],
        must_fail=[]),
    ("a2_layernorm", "parameters given a trailing singleton axis (*shape, 1)"): Mutant(
        "layernorm.py",
        [(_LN_PARAMS, "self.weight = nn.Parameter(torch.ones(self.normalized_shape + (1,)))\n"
                      "        self.bias = nn.Parameter(torch.zeros(self.normalized_shape + (1,)))")],
        must_fail=[]),
    ("a2_layernorm", "bias initialised to eps instead of zeros"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.bias = nn.Parameter(torch.full(self.normalized_shape, eps))")],
        must_fail=[]),
    ("a2_layernorm", "variance taken one axis at a time (a variance of variances)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = x\n"
                   "        for d in dims:\n"
                   "            var = var.var(dim=d, unbiased=False, keepdim=True)")],
        must_fail=[]),
    ("a2_layernorm", "forward also returns the mean and variance (a tuple)"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias, mean, var")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias kept in a plain dict (not registered with the module)"): Mutant(
        "layernorm.py",
        [(_LN_PARAMS, 'self.params = {"weight": nn.Parameter(torch.ones(self.normalized_shape)),\n'
                      '                       "bias": nn.Parameter(torch.zeros(self.normalized_shape))}'),
         (_LN_RETURN, 'return (x - mean) / torch.sqrt(var + self.eps) * self.params["weight"] + self.params["bias"]')],
        must_fail=[]),
    ("a2_layernorm", "eps multiplies the variance instead of being added"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var * self.eps) * self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "bias derived as weight * 0 (a computed tensor, not a parameter)"): Mutant(
        "layernorm.py",
        [(_LN_BIAS, "self.bias = self.weight * 0")],
        must_fail=[]),
    ("a2_layernorm", "weight and bias one shared Parameter of ones (chained assignment)"): Mutant(
        "layernorm.py",
        [(_LN_PARAMS, "self.weight = self.bias = nn.Parameter(torch.ones(self.normalized_shape))")],
        must_fail=[]),
    ("a2_layernorm", "input flattened to (N, features) and the output never reshaped back"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "x = x.reshape(-1, self.weight.numel())\n        dims = (-1,)"),
         (_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) * self.weight.reshape(-1) + self.bias.reshape(-1)")],
        must_fail=[]),
    ("a2_layernorm", "weight applied with @ (a matrix product) instead of element-wise"): Mutant(
        "layernorm.py",
        [(_LN_RETURN, "return (x - mean) / torch.sqrt(var + self.eps) @ self.weight + self.bias")],
        must_fail=[]),
    ("a2_layernorm", "dims computed as x.dim() - i (off by one: the first index is out of range)"): Mutant(
        "layernorm.py",
        [(_LN_DIMS, "dims = tuple(x.dim() - i for i in range(len(self.normalized_shape)))")],
        must_fail=[]),
    ("a2_layernorm", "variance taken of the squared deviations (var of (x - mean) ** 2)"): Mutant(
        "layernorm.py",
        [(_LN_VAR, "var = ((x - mean) ** 2).var(dim=dims, unbiased=False, keepdim=True)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a3
    ("a3_blocks", "table allocated with d_model // 2 columns"): Mutant(
        "positional.py",
        [(_PE_ZEROS, "pe = torch.zeros(max_len, d_model // 2)")],
        must_fail=[]),
    ("a3_blocks", "table allocated (d_model, max_len), the axes swapped"): Mutant(
        "positional.py",
        [(_PE_ZEROS, "pe = torch.zeros(d_model, max_len)")],
        must_fail=[]),
    ("a3_blocks", "positions normalised to [0, 1) (divided by max_len)"): Mutant(
        "positional.py",
        [(_PE_POSITION, _PE_POSITION + " / max_len")],
        must_fail=[]),
    ("a3_blocks", "frequencies left in log space (the exp forgotten)"): Mutant(
        "positional.py",
        [(_PE_FREQ, "inv_freq = torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)")],
        must_fail=[]),
    ("a3_blocks", "cosines written sin(angle + pi) (a half-turn, not a quarter)"): Mutant(
        "positional.py",
        [(_PE_COS, "pe[:, 1::2] = torch.sin(position * inv_freq + math.pi)")],
        must_fail=[]),
    ("a3_blocks", "positions added to x.detach() (no gradient reaches the embeddings)"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x.detach() + self.pe[:T]")],
        must_fail=[]),
    ("a3_blocks", "adds the whole table (the [:T] slice forgotten)"): Mutant(
        "positional.py",
        [(_PE_ADD, "return x + self.pe")],
        must_fail=[]),
    ("a3_blocks", "ReLU written torch.max(h, 0) (a reduction over dim 0)"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(torch.max(self.linear1(x), 0)))")],
        must_fail=[]),
    ("a3_blocks", "feed-forward dropout applied twice (after the ReLU and again at the output)"): Mutant(
        "feedforward.py",
        [(_FF, "return self.dropout(self.linear2(self.dropout(torch.relu(self.linear1(x)))))")],
        must_fail=[]),
    ("a3_blocks", "hidden layer divided by (1 - p) by hand on top of nn.Dropout (also in eval)"): Mutant(
        "feedforward.py",
        [(_FF, "return self.linear2(self.dropout(torch.relu(self.linear1(x))) / (1 - self.dropout.p))")],
        must_fail=[]),
    ("a3_blocks", "output projection declared d_model -> d_k"): Mutant(
        "multihead.py",
        [("self.w_o = nn.Linear(d_model, d_model)", "self.w_o = nn.Linear(d_model, self.d_k)")],
        must_fail=[]),
    ("a3_blocks", "num_heads not stored on the module"): Mutant(
        "multihead.py",
        [("        self.num_heads = num_heads\n", "")],
        must_fail=[]),
    ("a3_blocks", "values split into heads without the transpose (only q and k transposed)"): Mutant(
        "multihead.py",
        [(_MHA_V, "v = self.w_v(value).view(B, T_k, h, d_k)")],
        must_fail=[]),
    ("a3_blocks", "heads merged with flatten(1) (the time axis folded in too)"): Mutant(
        "multihead.py",
        [(_MHA_MERGE, "out = out.transpose(1, 2).flatten(1)")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a4
    ("a4_transformer", "post-norm encoder calls self_attn(x, x, mask): the mask taken as the values"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN, "x = self.norm1(x + self.dropout1(self.self_attn(x, x, mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "logits from the target embedding matrix always (generator unused, as if tied)"): Mutant(
        "transformer.py",
        [(_DEC_RETURN, "return self.decoder_norm(x) @ self.tgt_embed.weight.T  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "embedding table itself scaled in place at every call (weight.data.mul_)"): Mutant(
        "transformer.py",
        [(_EMBED, "embedding.weight.data.mul_(math.sqrt(self.config.d_model))\n"
                  "        return self.dropout(self.positional(embedding(tokens)))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm encoder queries from the un-normalised stream (keys and values normalised)"): Mutant(
        "layers.py",
        [(_ENC_PRE_ATTN, "x = x + self.dropout1(self.self_attn(x, y, y, mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "post-norm encoder feed-forward reads the attention output, not the normalised sum"): Mutant(
        "layers.py",
        [(_ENC_POST_ATTN + "\n            " + _ENC_POST_FF,
          "a = self.dropout1(self.self_attn(x, x, x, mask)[0])\n"
          "            x = self.norm1(x + a)\n"
          "            x = self.norm2(x + self.dropout2(self.ff(a)))")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder skips its cross-attention sub-layer (memory never read)"): Mutant(
        "layers.py",
        [(_DEC_PRE_CROSS, "")],
        must_fail=[]),
    ("a4_transformer", "source mask given to the first encoder layer only"): Mutant(
        "transformer.py",
        [(_ENC_LOOP, "        x = self.encoder_layers[0](x, src_mask)\n"
                     "        for layer in self.encoder_layers[1:]:\n"
                     "            x = layer(x)\n")],
        must_fail=[]),
    ("a4_transformer", "encode embeds the source inline, without the positional encoding"): Mutant(
        "transformer.py",
        [("x = self.embed(self.src_embed, src)  # (B, S, d_model)",
          "x = self.dropout(self.src_embed(src) * math.sqrt(self.config.d_model))")],
        must_fail=[]),
    ("a4_transformer", "decode calls embed(tgt, self.tgt_embed), the arguments swapped"): Mutant(
        "transformer.py",
        [(_TGT_EMBED, "x = self.embed(tgt, self.tgt_embed)  # (B, T, d_model)")],
        must_fail=[]),
    ("a4_transformer", "scaled embeddings added twice (e + positional(e))"): Mutant(
        "transformer.py",
        [(_EMBED, "e = embedding(tokens) * math.sqrt(self.config.d_model)\n"
                  "        return self.dropout(e + self.positional(e))")],
        must_fail=[]),
    ("a4_transformer", "decoder loop takes [0] of each layer's output (as if it returned a pair)"): Mutant(
        "transformer.py",
        [(_DEC_LAYER, "            x = layer(x, memory, tgt_mask, src_mask)[0]\n")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder unpacks the self-attention output into x (residual overwritten)"): Mutant(
        "layers.py",
        [(_DEC_POST_SELF, "x, _ = self.self_attn(x, x, x, tgt_mask)\n"
                          "            x = self.norm1(x + self.dropout1(x))")],
        must_fail=[]),
    ("a4_transformer", "decoder self-attention mask also ANDed with the source mask"): Mutant(
        "transformer.py",
        [(_TGT_MASK, "tgt_mask = target_mask(tgt, self.config.pad_id) & src_mask  # (B, 1, T, T)")],
        must_fail=[]),
    ("a4_transformer", "decode returns the hidden states (generator never applied)"): Mutant(
        "transformer.py",
        [(_DEC_RETURN, "return self.decoder_norm(x)  # (B, T, V)")],
        must_fail=[]),
    ("a4_transformer", "pre-norm decoder self-attention queries from the un-normalised stream"): Mutant(
        "layers.py",
        [("x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])",
          "x = x + self.dropout1(self.self_attn(x, y, y, tgt_mask)[0])")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder cross-attention keys from the decoder stream (values from memory)"): Mutant(
        "layers.py",
        [("x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))",
          "x = self.norm2(x + self.dropout2(self.cross_attn(x, x, memory, src_mask)[0]))")],
        must_fail=[]),
    ("a4_transformer", "post-norm decoder feed-forward reads the cross-attention output, not the normalised sum"): Mutant(
        "layers.py",
        [("x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))\n"
          "            x = self.norm3(x + self.dropout3(self.ff(x)))",
          "c = self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0])\n"
          "            x = self.norm2(x + c)\n"
          "            x = self.norm3(x + self.dropout3(self.ff(c)))")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a5
    ("a5_decoding", "top-k threshold read from .indices instead of .values"): Mutant(
        "sampling.py",
        [(_KTH, "kth = logits.topk(top_k, dim=-1).indices[:, -1:]  # (B, 1)")],
        must_fail=[]),
    ("a5_decoding", "top-k mask written logits > kth (keeps the smallest tokens)"): Mutant(
        "sampling.py",
        [(_TOP_K_FILL, 'logits = logits.masked_fill(logits > kth, float("-inf"))')],
        must_fail=[]),
    ("a5_decoding", "top-p scatters the sorted logits back along the batch axis (scatter_(0, ...))"): Mutant(
        "sampling.py",
        [(_SCATTER, "logits = torch.empty_like(logits).scatter_(0, order, sorted_logits)")],
        must_fail=[]),
    ("a5_decoding", "top-p keeps the tokens whose own probability reaches p (a threshold, not a nucleus)"): Mutant(
        "sampling.py",
        [(_TOP_P_FILL, 'sorted_logits = sorted_logits.masked_fill(probs < top_p, float("-inf"))')],
        must_fail=[]),
    ("a5_decoding", "sampled ids squeezed without a dim (a batch of one gives a 0-d tensor)"): Mutant(
        "sampling.py",
        [(_DRAW, "return torch.multinomial(probs, 1, generator=generator).squeeze()")],
        must_fail=[]),
    ("a5_decoding", "temperature applied as a power of the logits (logits ** (1 / T))"): Mutant(
        "sampling.py",
        [(_TEMPERATURE, "    logits = logits ** (1 / temperature)\n")],
        must_fail=[]),
    ("a5_decoding", "top-p sorts the logits from before top-k (its result overwrites the top-k filter)"): Mutant(
        "sampling.py",
        [(_TEMPERATURE, "    logits = scaled = logits / temperature\n"),
         (_SORT, "sorted_logits, order = scaled.sort(dim=-1, descending=True)  # (B, V)")],
        must_fail=[]),
    ("a5_decoding", "finished flags updated with &= instead of |="): Mutant(
        "decoding.py",
        [(_FINISHED_UPDATE, "        finished &= next_token == eos_id\n")],
        must_fail=[]),
    ("a5_decoding", "sample_decode returns a Python list of lists, not a tensor"): Mutant(
        "decoding.py",
        [("    return tokens[:, 1:]\n", "    return tokens[:, 1:].tolist()\n")],
        must_fail=[]),
    ("a5_decoding", "EOS test written with `is` (a tensor is never the int eos_id)"): Mutant(
        "decoding.py",
        [(_FINISHED_UPDATE, "        finished |= next_token is eos_id\n")],
        must_fail=[]),
    ("a5_decoding", "live scores rebuilt as a long tensor (log-probabilities truncated)"): Mutant(
        "beam.py",
        [(_SCORES, "scores = torch.tensor([score for score, _, _ in live], dtype=torch.long, device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "hypotheses reordered by the token ids instead of the beam ids"): Mutant(
        "beam.py",
        [(_INDEX, "index = torch.tensor([token for _, _, token in live], device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "hypotheses extended with their beam index instead of the new token"): Mutant(
        "beam.py",
        [(_NEW, "new = torch.tensor([[beam] for _, beam, _ in live], device=src.device)")],
        must_fail=[]),
    ("a5_decoding", "beam finish test written with and (EOS finishes only at max_len)"): Mutant(
        "beam.py",
        [("if token == eos_id or step == max_len:", "if token == eos_id and step == max_len:")],
        must_fail=[]),
    ("a5_decoding", "beam output width taken from the first sentence's hypothesis"): Mutant(
        "beam.py",
        [("max(len(h) for h in best)", "len(best[0])")],
        must_fail=[]),
    ("a5_decoding", "beam encodes the whole batch for each sentence (model.encode(src))"): Mutant(
        "beam.py",
        [("memory, src_mask = model.encode(row)", "memory, src_mask = model.encode(src)")],
        must_fail=[]),
    ("a5_decoding", "beam returns the longest finished hypothesis, not the best scored"): Mutant(
        "beam.py",
        [("return max(finished, key=lambda f: f[0])[1]", "return max(finished, key=lambda f: len(f[1]))[1]")],
        must_fail=[]),
    ("a5_decoding", "top_p above 1 accepted (only the lower bound checked)"): Mutant(
        "sampling.py",
        [("if top_p is not None and not 0 < top_p <= 1:", "if top_p is not None and not 0 < top_p:")],
        must_fail=[]),
    # ----------------------------------------------------------------------------- a6
    ("a6_translator", "whitespace collapsed before the punctuation is spaced out (double spaces left)"): Mutant(
        "preprocessing.py",
        [(_NFC, 'text = " ".join(unicodedata.normalize("NFC", text).lower().split())'),
         (_COLLAPSE, "return text.strip()")],
        must_fail=[]),
    ("a6_translator", "NFC normalisation moved after the deletion (combining accents deleted)"): Mutant(
        "preprocessing.py",
        [(_NFC, "text = text.lower()"),
         (_COLLAPSE, 'return " ".join(unicodedata.normalize("NFC", text).split())')],
        must_fail=[]),
    ("a6_translator", "specials appended after the words (the words take ids 0, 1, 2...)"): Mutant(
        "vocab.py",
        [(_ITOS + "\n        " + _STOI + "\n" + _WORD_LOOP,
          "self.itos, self.stoi = [], {}\n"
          "        for word in list(words) + [self.PAD, self.SOS, self.EOS, self.UNK]:\n"
          "            if word not in self.stoi:\n"
          "                self.stoi[word] = len(self.itos)\n"
          "                self.itos.append(word)\n")],
        must_fail=[]),
    ("a6_translator", "stoi filled from itos before the words are appended (the words never reach stoi)"): Mutant(
        "vocab.py",
        [(_WORD_LOOP, "        for word in words:\n"
                      "            if word not in self.itos:\n"
                      "                self.itos.append(word)\n")],
        must_fail=[]),
    ("a6_translator", "min_freq = 1 rejected (checks min_freq <= 1)"): Mutant(
        "vocab.py",
        [("if min_freq < 1:", "if min_freq <= 1:")],
        must_fail=[]),
    ("a6_translator", "build hands (word, count) pairs to the Vocab, not the words"): Mutant(
        "vocab.py",
        [("kept = [word for word, n in counts.items() if n >= min_freq]\n"
          "        return cls(sorted(kept, key=lambda word: (-counts[word], word)))",
          "kept = [(word, n) for word, n in counts.items() if n >= min_freq]\n"
          "        return cls(sorted(kept, key=lambda item: (-item[1], item[0])))")],
        must_fail=[]),
    ("a6_translator", "unknown words given the id len(self), one past the vocabulary"): Mutant(
        "vocab.py",
        [(_ENCODE, "ids = [self.stoi.get(word, len(self.itos)) for word in sentence.split()]")],
        must_fail=[]),
    ("a6_translator", "stoi.get without a default (unknown words become None)"): Mutant(
        "vocab.py",
        [(_ENCODE, "ids = [self.stoi.get(word) for word in sentence.split()]")],
        must_fail=[]),
    ("a6_translator", "out-of-range ids decoded as <unk> instead of raising"): Mutant(
        "vocab.py",
        [(_RAISE, "                words.append(self.UNK)\n                continue\n")],
        must_fail=[]),
    ("a6_translator", "dataset items returned as a dict {'src', 'tgt'}, not a pair"): Mutant(
        "batching.py",
        [(_ITEM, 'return {"src": torch.tensor(src_ids, dtype=torch.long), "tgt": torch.tensor(tgt_ids, dtype=torch.long)}')],
        must_fail=[]),
    ("a6_translator", "dataset serves pairs[i - 1] (off by one: item 0 is the last pair)"): Mutant(
        "batching.py",
        [("src, tgt = self.pairs[i]", "src, tgt = self.pairs[i - 1]")],
        must_fail=[]),
    ("a6_translator", "collate copies the rows after the loop (only the last row filled)"): Mutant(
        "batching.py",
        [(_COPY, "    for b, (src, tgt) in enumerate(batch):\n"
                 "        n_src, n_tgt = len(src), len(tgt)\n"
                 "    src_batch[b, :n_src] = src\n"
                 "    tgt_batch[b, :n_tgt] = tgt\n")],
        must_fail=[]),
    ("a6_translator", "labels cast to float (cross_entropy reads them as probabilities)"): Mutant(
        "training.py",
        [("labels.reshape(-1), ignore_index=pad_id,\n                           label_smoothing",
          "labels.reshape(-1).float(), ignore_index=pad_id,\n                           label_smoothing")],
        must_fail=[]),
    ("a6_translator", "sequence_loss returns loss.item(), a float with no graph"): Mutant(
        "training.py",
        [(_CE, "    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing).item()\n")],
        must_fail=[]),
    ("a6_translator", "sequence_loss flattens logits.transpose(1, 2), (B, V, T), into (B*T, V)"): Mutant(
        "training.py",
        [(_CE, "    return F.cross_entropy(logits.transpose(1, 2).reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n"
               "                           label_smoothing=label_smoothing)\n")],
        must_fail=[]),
    ("a6_translator", "gradients clipped before backward (the new gradients never clipped)"): Mutant(
        "training.py",
        [("    loss.backward()\n" + _CLIP, _CLIP + "    loss.backward()\n")],
        must_fail=[]),
    ("a6_translator", "gradients clipped by their L1 norm (norm_type=1)"): Mutant(
        "training.py",
        [("clip_grad_norm_(model.parameters(), clip_norm)", "clip_grad_norm_(model.parameters(), clip_norm, norm_type=1)")],
        must_fail=[]),
    ("a6_translator", "evaluate's loss sum includes the pad labels (ignore_index forgotten), the count does not"): Mutant(
        "training.py",
        [(_EVAL_SUM, '                                         reduction="sum").item()\n')],
        must_fail=[]),
    ("a6_translator", "evaluate reads model.training after model.eval() (training mode never restored)"): Mutant(
        "training.py",
        [("    was_training = model.training\n    model.eval()\n", "    model.eval()\n    was_training = model.training\n")],
        must_fail=[]),
    ("a6_translator", "evaluate returns inside the loop (only the first batch counts)"): Mutant(
        "training.py",
        [(_COUNT, _COUNT + "                return total / count\n")],
        must_fail=[]),
    ("a6_translator", "fit runs epochs + 1 passes (range(epochs + 1))"): Mutant(
        "training.py",
        [("    for _ in range(epochs):\n", "    for _ in range(epochs + 1):\n")],
        must_fail=[]),
    ("a6_translator", "fit calls train_step(model, tgt, src, ...), the batch the wrong way round"): Mutant(
        "training.py",
        [(_FIT_STEP, "train_step(model, tgt, src, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader")],
        must_fail=[]),
    ("a6_translator", "translate calls model.eval() only after decoding"): Mutant(
        "translation.py",
        [("    model.eval()\n    out = decode(", "    out = decode("),
         (_DECODE_TAIL, _DECODE_TAIL + "    model.eval()\n")],
        must_fail=[]),
    ("a6_translator", "translate builds the source batch as floats"): Mutant(
        "translation.py",
        [(_SRC_FULL, "src = torch.full((len(rows), S), src_vocab.pad_id, dtype=torch.float, device=device)")],
        must_fail=[]),
    ("a6_translator", "decode_kwargs passed on as one positional dict (** forgotten)"): Mutant(
        "translation.py",
        [(_DECODE_TAIL, "tgt_vocab.pad_id, decode_kwargs)  # (B, L)\n")],
        must_fail=[]),
    ("a6_translator", "translate copies each sentence into the whole batch row (src[b] = ids)"): Mutant(
        "translation.py",
        [(_SRC_ROW, "src[b] = torch.tensor(encoded[i], dtype=torch.long)")],
        must_fail=[]),
}
