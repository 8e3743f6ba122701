"""The twelfth round of held-out classic mistakes: 54 edits of the reference solutions, each
one mistake as a student writes it (a1 9, a2 6, a3 4, a4 12, a5 9, a6 14). Every edit lies inside a
``### BEGIN SOLUTION`` block; a5's incremental.py and a3's visualize.py, given to students
whole, are left alone.

Three helpers wrote them reading only the non-test reference modules and the notebooks'
text, never the public tests, the graders, their diagnoses or the tuned corpus
(tests/mutants/a*.py), and with the names of the 1,292 mistakes of the earlier rounds and
the tuned corpus, so as not to repeat them. Each loses points at seeds 1, 2 and 3 (only
scores were looked at); the 12 of 66 candidates that kept full marks at some seed are
listed at the end of this file (grader holes, or mistakes no grader can see). ``must_fail``
is empty and there are no ``names``: only tests/mutants/public.py --heldout and
console.py --heldout read this module.
"""
from mutants import Mutant

MUTANTS = {
    ('a1_attention', '-inf scores reset with nan_to_num(neginf=0) to avoid NaN (masked keys regain weight)'): Mutant(
        'attention.py',
        [('        scores = scores.masked_fill(~has_key, 0.0)',
          '        scores = scores.nan_to_num(neginf=0.0)')],
        must_fail=[]),
    ('a1_attention', 'causal mask copied from nn.Transformer.generate_square_subsequent_mask (float 0 / -inf)'): Mutant(
        'masks.py',
        [('    return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))',
          '    return torch.triu(torch.full((T, T), float("-inf"), device=device), diagonal=1)')],
        must_fail=[]),
    ('a1_attention', "mask expanded to (..., T_q, T_q) from q's shape (self-attention assumed: T_k != T_q breaks)"): Mutant(
        'attention.py',
        [('    if mask is not None:\n        scores = scores.masked_fill(~mask, float("-inf"))',
          '    if mask is not None:\n        mask = mask.expand(*q.shape[:-1], q.size(-2))\n        scores = scores.masked_fill(~mask, float("-inf"))')],
        must_fail=[]),
    ('a1_attention', 'mask inverted with 1 - mask (the uint8 idiom; bool subtraction raises)'): Mutant(
        'attention.py',
        [('scores = scores.masked_fill(~mask, float("-inf"))',
          'scores = scores.masked_fill(1 - mask, float("-inf"))')],
        must_fail=[]),
    ('a1_attention', 'mask read as a key-padding mask (..., T_k): a query axis always inserted (mask[..., None, :])'): Mutant(
        'attention.py',
        [('    if mask is not None:\n        scores = scores.masked_fill(~mask, float("-inf"))',
          '    if mask is not None:\n        mask = mask[..., None, :]  # (..., 1, T_k), like an attention_mask\n        scores = scores.masked_fill(~mask, float("-inf"))')],
        must_fail=[]),
    ('a1_attention', "output viewed as the queries' shape (view_as(q)): d_v != d_k breaks"): Mutant(
        'attention.py',
        [('    output = weights @ v  # (..., T_q, d_v)',
          '    output = (weights @ v).view_as(q)  # same shape as the queries')],
        must_fail=[]),
    ('a1_attention', 'scores as cosine similarities (q and k normalised to unit length first)'): Mutant(
        'attention.py',
        [('    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)',
          '    q = q / q.norm(dim=-1, keepdim=True)\n    k = k / k.norm(dim=-1, keepdim=True)\n    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)')],
        must_fail=[]),
    ('a1_attention', "softmax with a +1 in the denominator ('attention is off by one' softmax_1): rows sum to less than 1"): Mutant(
        'attention.py',
        [('        weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)',
          '        weights = (scores.exp() / (1 + scores.exp().sum(dim=-1, keepdim=True))).masked_fill(~has_key, 0.0)'),
         ('    else:\n        weights = torch.softmax(scores, dim=-1)',
          '    else:\n        weights = scores.exp() / (1 + scores.exp().sum(dim=-1, keepdim=True))')],
        must_fail=[]),
    ('a1_attention', 'target mask ANDs the bare (B, T) comparison tokens != pad_id with the causal mask (no singleton axes)'): Mutant(
        'masks.py',
        [('    return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)',
          '    return (tokens != pad_id) & causal_mask(T, device=tokens.device)')],
        must_fail=[]),
    ('a2_layernorm', 'eps made a learnable nn.Parameter (a third parameter, trained with the rest)'): Mutant(
        'layernorm.py',
        [('        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))',
          '        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))\n        self.eps = nn.Parameter(torch.tensor(float(eps)))')],
        must_fail=[]),
    ('a2_layernorm', "eps written 1e-12 (BERT's LayerNorm value), self.eps ignored"): Mutant(
        'layernorm.py',
        [('torch.sqrt(var + self.eps)',
          'torch.sqrt(var + 1e-12)')],
        must_fail=[]),
    ('a2_layernorm', 'forward insists on a batch axis: an unbatched input of shape normalized_shape raises'): Mutant(
        'layernorm.py',
        [('        dims = tuple(range(-len(self.normalized_shape), 0))',
          '        if x.dim() <= len(self.normalized_shape):\n            raise ValueError(f"expected a batch of inputs, got shape {tuple(x.shape)}")\n        dims = tuple(range(-len(self.normalized_shape), 0))')],
        must_fail=[]),
    ('a2_layernorm', 'parentheses group the bias with the weight: x_hat * (weight + bias)'): Mutant(
        'layernorm.py',
        [('* self.weight + self.bias',
          '* (self.weight + self.bias)')],
        must_fail=[]),
    ('a2_layernorm', 'tuple normalized_shape rejected (only one normalised dimension supported)'): Mutant(
        'layernorm.py',
        [('        self.weight = nn.Parameter(torch.ones(self.normalized_shape))',
          '        if len(self.normalized_shape) != 1:\n            raise ValueError("normalized_shape must be the size of the last dimension")\n        self.weight = nn.Parameter(torch.ones(self.normalized_shape))')],
        must_fail=[]),
    ('a2_layernorm', 'variance divided by sum(normalized_shape) instead of its product (tuple shapes wrong)'): Mutant(
        'layernorm.py',
        [('        var = x.var(dim=dims, unbiased=False, keepdim=True)',
          '        var = ((x - mean) ** 2).sum(dim=dims, keepdim=True) / sum(self.normalized_shape)')],
        must_fail=[]),
    ('a3_blocks', "ReLU transcribed as Python's max(0, h) from the paper's formula"): Mutant(
        'feedforward.py',
        [('self.dropout(torch.relu(self.linear1(x)))',
          'self.dropout(max(0, self.linear1(x)))')],
        must_fail=[]),
    ('a3_blocks', 'length check compares the key with the query (cross-attention with T_k != T_q rejected)'): Mutant(
        'multihead.py',
        [('        h, d_k = self.num_heads, self.d_k',
          '        if T_k != T_q:\n            raise ValueError(f"query and key lengths differ: {T_q} != {T_k}")\n        h, d_k = self.num_heads, self.d_k')],
        must_fail=[]),
    ('a3_blocks', 'mask=None replaced by a causal mask (decoder habit): unmasked attention only looks back'): Mutant(
        'multihead.py',
        [('        out, weights = scaled_dot_product_attention(q, k, v, mask)',
          '        if mask is None:\n            mask = query.new_ones(T_q, T_k).tril().bool()  # (T_q, T_k)\n        out, weights = scaled_dot_product_attention(q, k, v, mask)')],
        must_fail=[]),
    ('a3_blocks', 'table allocated with requires_grad=True (the in-place column writes then raise)'): Mutant(
        'positional.py',
        [('        pe = torch.zeros(max_len, d_model)',
          '        pe = torch.zeros(max_len, d_model, requires_grad=True)')],
        must_fail=[]),
    ('a4_transformer', 'decode builds the causal mask by hand with tril(-1) (no position may attend to itself)'): Mutant(
        'transformer.py',
        [('tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)',
          'tgt_mask = padding_mask(tgt, self.config.pad_id) & tgt.new_ones(tgt.size(1), tgt.size(1)).tril(-1).bool()  # (B, 1, T, T)')],
        must_fail=[]),
    ('a4_transformer', 'decode joins the padding and causal masks with | instead of & (non-pad future tokens visible)'): Mutant(
        'transformer.py',
        [('tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)',
          'tgt_mask = padding_mask(tgt, self.config.pad_id) | tgt.new_ones(tgt.size(1), tgt.size(1)).tril().bool()  # (B, 1, T, T)')],
        must_fail=[]),
    ('a4_transformer', "decode projects by hand with generator.weight (the generator's bias forgotten)"): Mutant(
        'transformer.py',
        [('return self.generator(self.decoder_norm(x))  # (B, T, V)',
          'return self.decoder_norm(x) @ self.generator.weight.T  # (B, T, V)')],
        must_fail=[]),
    ('a4_transformer', "decode's hand-built causal mask sized by tgt.size(0), the batch size"): Mutant(
        'transformer.py',
        [('tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)',
          'T = tgt.size(0)\n        tgt_mask = padding_mask(tgt, self.config.pad_id) & tgt.new_ones(T, T).tril().bool()  # (B, 1, T, T)')],
        must_fail=[]),
    ('a4_transformer', 'embeddings scaled by d_model itself (the square root forgotten)'): Mutant(
        'transformer.py',
        [('embedding(tokens) * math.sqrt(self.config.d_model)',
          'embedding(tokens) * self.config.d_model')],
        must_fail=[]),
    ('a4_transformer', 'encode expands the source mask to (B, h, S, S) (cross-attention breaks when T != S)'): Mutant(
        'transformer.py',
        [('src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)',
          'src_mask = padding_mask(src, self.config.pad_id).expand(-1, self.config.num_heads, src.size(1), -1)  # (B, h, S, S)')],
        must_fail=[]),
    ('a4_transformer', 'encode indexes encoder_layers[0] on every pass (typo for [i]: the first layer applied N times)'): Mutant(
        'transformer.py',
        [('for layer in self.encoder_layers:\n            x = layer(x, src_mask)',
          'for i in range(len(self.encoder_layers)):\n            x = self.encoder_layers[0](x, src_mask)')],
        must_fail=[]),
    ('a4_transformer', 'encoder layers applied in reverse order'): Mutant(
        'transformer.py',
        [('for layer in self.encoder_layers:',
          'for layer in reversed(self.encoder_layers):')],
        must_fail=[]),
    ('a4_transformer', 'final decoder norm applied to the target embeddings, before the decoder layers'): Mutant(
        'transformer.py',
        [('x = self.embed(self.tgt_embed, tgt)  # (B, T, d_model)',
          'x = self.decoder_norm(self.embed(self.tgt_embed, tgt))  # (B, T, d_model)'),
         ('return self.generator(self.decoder_norm(x))  # (B, T, V)',
          'return self.generator(x)  # (B, T, V)')],
        must_fail=[]),
    ('a4_transformer', 'post-norm decoder drops out the skip branch (dropout3(x)) instead of the feed-forward output'): Mutant(
        'layers.py',
        [('x = self.norm3(x + self.dropout3(self.ff(x)))',
          'x = self.norm3(self.dropout3(x) + self.ff(x))')],
        must_fail=[]),
    ('a4_transformer', "post-norm decoder layer's output left un-normalised (norm3 forgotten, left to the stack)"): Mutant(
        'layers.py',
        [('x = self.norm3(x + self.dropout3(self.ff(x)))',
          'x = x + self.dropout3(self.ff(x))')],
        must_fail=[]),
    ('a4_transformer', 'pre-norm decoder cross-attention written post-norm (copy-paste from the other branch)'): Mutant(
        'layers.py',
        [('x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])',
          'x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)[0]))')],
        must_fail=[]),
    ('a5_decoding', 'beam adds the running scores before log_softmax (the normalisation cancels them)'): Mutant(
        'beam.py',
        [('logp = decoder.step(tokens).log_softmax(dim=-1) + scores[:, None]',
          'logp = (decoder.step(tokens) + scores[:, None]).log_softmax(dim=-1)')],
        must_fail=[]),
    ('a5_decoding', 'beam inlines the length penalty with floor division ((5 + step) // 6)'): Mutant(
        'beam.py',
        [('score / lp(step, length_penalty)',
          'score / ((5 + step) // 6) ** length_penalty')],
        must_fail=[]),
    ('a5_decoding', 'beam loops over src.size(1), the source length, instead of the batch'): Mutant(
        'beam.py',
        [('for b in range(src.size(0))]',
          'for b in range(src.size(1))]')],
        must_fail=[]),
    ('a5_decoding', 'beam reads V from logp.size(0), the number of live hypotheses'): Mutant(
        'beam.py',
        [('V = logp.size(-1)',
          'V = logp.size(0)')],
        must_fail=[]),
    ('a5_decoding', "beam reorders the decoder cache with every candidate's beam, finished ones included"): Mutant(
        'beam.py',
        [('decoder.reorder(index)',
          'decoder.reorder(top.indices // V)')],
        must_fail=[]),
    ('a5_decoding', 'sample_decode does not pass the temperature on (always 1.0, so greedy_decode samples too)'): Mutant(
        'decoding.py',
        [('sample_next_token(logits, temperature, top_k, top_p, generator)',
          'sample_next_token(logits, top_k=top_k, top_p=top_p, generator=generator)')],
        must_fail=[]),
    ('a5_decoding', 'top-k fills the dropped logits with +inf (the minus sign forgotten)'): Mutant(
        'sampling.py',
        [('masked_fill(logits < kth, float("-inf"))',
          'masked_fill(logits < kth, float("inf"))')],
        must_fail=[]),
    ('a5_decoding', 'top-k threshold taken from the probabilities, compared with the logits'): Mutant(
        'sampling.py',
        [('kth = logits.topk(top_k, dim=-1).values[:, -1:]',
          'kth = logits.softmax(dim=-1).topk(top_k, dim=-1).values[:, -1:]')],
        must_fail=[]),
    ('a5_decoding', "top-p unpacks sort's (values, indices) the wrong way round"): Mutant(
        'sampling.py',
        [('sorted_logits, order = logits.sort(dim=-1, descending=True)',
          'order, sorted_logits = logits.sort(dim=-1, descending=True)')],
        must_fail=[]),
    ('a6_translator', 'Vocab stops at the first duplicate or special word (break instead of skipping it)'): Mutant(
        'vocab.py',
        [('            if word not in self.stoi:\n                self.stoi[word] = len(self.itos)\n                self.itos.append(word)',
          '            if word in self.stoi:\n                break\n            self.stoi[word] = len(self.itos)\n            self.itos.append(word)')],
        must_fail=[]),
    ('a6_translator', 'build clamps min_freq to 1 instead of raising ValueError'): Mutant(
        'vocab.py',
        [('            raise ValueError(f"min_freq must be >= 1 (1 keeps every word), got {min_freq}")',
          '            min_freq = 1')],
        must_fail=[]),
    ('a6_translator', 'build counts "".join(sentences).split() (last and first words of neighbouring sentences glued)'): Mutant(
        'vocab.py',
        [('counts = Counter(word for sentence in sentences for word in sentence.split())',
          'counts = Counter("".join(sentences).split())')],
        must_fail=[]),
    ('a6_translator', 'dataset items built with dtype=torch.int (int32, not int64)'): Mutant(
        'batching.py',
        [('return torch.tensor(src_ids, dtype=torch.long), torch.tensor(tgt_ids, dtype=torch.long)',
          'return torch.tensor(src_ids, dtype=torch.int), torch.tensor(tgt_ids, dtype=torch.int)')],
        must_fail=[]),
    ('a6_translator', 'decode compares the ids with the special strings (no special token dropped)'): Mutant(
        'vocab.py',
        [('if i not in (self.pad_id, self.sos_id, self.eos_id):',
          'if i not in (self.PAD, self.SOS, self.EOS):')],
        must_fail=[]),
    ('a6_translator', 'encode tests add_sos_eos is not None (False still frames every sentence)'): Mutant(
        'vocab.py',
        [('        if add_sos_eos:\n',
          '        if add_sos_eos is not None:\n')],
        must_fail=[]),
    ('a6_translator', "evaluate counts the labels after the loop (only the last batch's tokens in the count)"): Mutant(
        'training.py',
        [('                                         ignore_index=pad_id, reduction="sum").item()\n                count += int((labels != pad_id).sum())',
          '                                         ignore_index=pad_id, reduction="sum").item()\n            count += int((labels != pad_id).sum())')],
        must_fail=[]),
    ('a6_translator', 'fit puts the model in eval mode when training ends'): Mutant(
        'training.py',
        [('        history.append(sum(losses) / len(losses))\n    return history',
          '        history.append(sum(losses) / len(losses))\n    model.eval()\n    return history')],
        must_fail=[]),
    ('a6_translator', "full stop added to the allowed characters ('hola.' stays a word of its own)"): Mutant(
        'preprocessing.py',
        [('text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\\\s]", "", text)',
          'text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}.\\\\s]", "", text)')],
        must_fail=[]),
    ('a6_translator', 'label smoothing written by hand: its uniform term averaged over the pad positions too'): Mutant(
        'training.py',
        [('    V = logits.size(-1)\n    return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=pad_id,\n                           label_smoothing=label_smoothing)  # (B*T, V) vs (B*T,) -> ()',
          '    V = logits.size(-1)\n    logp = F.log_softmax(logits.reshape(-1, V), dim=-1)  # (B*T, V)\n    nll = F.nll_loss(logp, labels.reshape(-1), ignore_index=pad_id)\n    smooth = -logp.mean(dim=-1).mean()  # uniform part of the smoothed target\n    return (1 - label_smoothing) * nll + label_smoothing * smooth')],
        must_fail=[]),
    ('a6_translator', 'translate capitalises each translation (decode(...).capitalize())'): Mutant(
        'translation.py',
        [('results[i] = tgt_vocab.decode(ids)',
          'results[i] = tgt_vocab.decode(ids).capitalize()')],
        must_fail=[]),
    ('a6_translator', 'translate fills batch row b with sentence b (empty lines shift the others)'): Mutant(
        'translation.py',
        [('src[b, : len(encoded[i])] = torch.tensor(encoded[i], dtype=torch.long)',
          'src[b, : len(encoded[b])] = torch.tensor(encoded[b], dtype=torch.long)')],
        must_fail=[]),
    ('a6_translator', "translate sizes its results by the non-empty sentences ([''] * len(rows))"): Mutant(
        'translation.py',
        [('results = [""] * len(encoded)',
          'results = [""] * len(rows)')],
        must_fail=[]),
    ('a6_translator', "translate slices the list of sentences to the model's max_len, not each sentence's ids"): Mutant(
        'translation.py',
        [('encoded = [src_vocab.encode(clean_text(s))[:limit] for s in sentences]',
          'encoded = [src_vocab.encode(clean_text(s)) for s in sentences][:limit]')],
        must_fail=[]),
}

# Candidates that kept full marks at some seed (score at seeds 1, 2, 3 / maximum), left out:
# - a1_attention: masked self-attention casts Q, K and V with .float() (float64 inputs come back float32) (15/15/15 of 15)
# - a2_layernorm: eps=0 rejected with a ValueError (eps assumed strictly positive) (9/9/9 of 9)
# - a2_layernorm: input flattened with view(-1, N) for the statistics (non-contiguous inputs raise) (9/9/9 of 9)
# - a3_blocks: attention dropout given the keep probability (nn.Dropout(1 - dropout)): the default 0 drops everything (18/18/18 of 18)
# - a3_blocks: d_model not stored on the module (heads merged with reshape(B, T_q, -1)) (18/18/18 of 18)
# - a3_blocks: divisibility check copied from the positional encoding (d_model % 2): only an even d_model required (17/18/16 of 18)
# - a3_blocks: feed-forward dropout built as nn.Dropout1d (whole positions dropped, not single units) (18/18/18 of 18)
# - a3_blocks: feed-forward unpacks B, T, _ = x.shape and flattens with view (only contiguous 3-D inputs) (18/18/18 of 18)
# - a3_blocks: returned weights squeezed on the head axis (one head gives (B, T_q, T_k)) (18/18/18 of 18)
# - a5_decoding: beam caps the candidates at V instead of k * V (small vocabularies keep fewer hypotheses) (20/20/20 of 20)
# - a5_decoding: temperature 0 is greedy only when top_k is off (with a top_k it divides by zero) (20/20/20 of 20)
# - a5_decoding: top-k larger than the vocabulary clamped to V - 1 (the least likely token always dropped) (20/20/20 of 20)
