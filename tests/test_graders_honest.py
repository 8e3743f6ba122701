"""Are the hidden graders honest: failing on stubs, passing on solutions, catching real bugs?"""

import ast

import pytest

from autograder import course

from helpers import make_submission, run_grade


def test_every_grader_fails_on_stubs_and_passes_on_solutions(graded_solutions, graded_stubs):
    """Does every hidden grader test give full points to the solutions and zero to the stubs?"""
    solved = {t["name"]: t for t in graded_solutions.results["tests"]}
    stubbed = {t["name"]: t for t in graded_stubs.results["tests"]}
    assert solved.keys() == stubbed.keys() and len(solved) >= 15
    for name in solved:
        assert solved[name]["score"] == solved[name]["max_score"] > 0, f"solutions fail: {name}: {solved[name]['output']}"
        assert stubbed[name]["score"] == 0, f"stubs pass: {name}"


def test_every_assignment_has_graders():
    """Does every assignment have a folder of hidden graders?"""
    for a in course.ASSIGNMENTS:
        assert list((course.GRADERS_DIR / a.name).glob("test_*.py")), a.name


def test_graders_report_only_through_checks():
    """Do graders avoid bare `assert`, whose failure text would quote grader source?"""
    for path in course.GRADERS_DIR.rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        assert not asserts, f"{path.name} uses assert on lines {asserts}; use autograder.checks"


# Each mutant is a classic mistake: (assignment, file, edits, graders that must catch it).
MUTANTS = {
    "no 1/sqrt(d_k) scaling": (
        "a1_attention", "attention.py", [(" / math.sqrt(d_k)", "")],
        ["Does masked_self_attention reproduce", "Does attention match softmax"],
    ),
    "scaled by sqrt(d_v)": (
        "a1_attention", "attention.py", [("d_k = q.size(-1)", "d_k = v.size(-1)")],
        ["Does attention match softmax"],
    ),
    "mask inverted": (
        "a1_attention", "attention.py", [("scores.masked_fill(~mask, ", "scores.masked_fill(mask, ")],
        ["Does a (B, 1, 1, S) padding mask", "Does a (T_q, T_k) mask broadcast"],
    ),
    "NaN for fully masked rows": (
        "a1_attention", "attention.py", [("scores = scores.masked_fill(~has_key, 0.0)\n", ""),
                                          (".masked_fill(~has_key, 0.0)", "")],
        ["Does a query with every key masked", "Do gradients w.r.t. q, k and v"],
    ),
    "softmax without max subtraction": (
        "a1_attention", "attention.py",
        [("weights = torch.softmax(scores, dim=-1)\n", "weights = scores.exp() / scores.exp().sum(-1, keepdim=True)\n")],
        ["Do weight rows sum to 1 without overflow"],
    ),
    "hard-coded course table": (
        "a1_attention", "attention.py",
        [("    Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))\n    return Z",
          "    return torch.tensor([[1.0, 0.0, 0.0], [0.4568, 0.5432, 0.0], [0.3219, 0.3332, 0.3449], [0.2309, 0.5130, 0.5260]])")],
        ["Is masked_self_attention causal attention on random", "Does masked_self_attention reproduce"],
    ),
    "calls F.scaled_dot_product_attention": (
        "a1_attention", "attention.py",
        [("    output = weights @ v  # (..., T_q, d_v)\n",
          "    output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n")],
        ["Does attention match softmax", "Does masked_self_attention reproduce"],
    ),
    "padding mask (B, 1, S)": (
        "a1_attention", "masks.py", [("return (tokens != pad_id)[:, None, None, :]", "return (tokens != pad_id)[:, None, :]")],
        ["Does padding_mask hide exactly"],
    ),
    "causal mask upper triangle": (
        "a1_attention", "masks.py", [("return torch.tril(", "return torch.triu(")],
        ["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)"],
    ),
    "unbiased variance": (
        "a2_layernorm", "layernorm.py", [("unbiased=False", "unbiased=True")],
        ["Does LayerNorm(3) give the course's outputs", "Are the variance biased", "Does the output match torch's layer_norm"],
    ),
    "eps outside the square root": (
        "a2_layernorm", "layernorm.py", [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
        ["Are the variance biased"],
    ),
    "normalises the last dim only": (
        "a2_layernorm", "layernorm.py", [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = (-1,)")],
        ["Does it normalise over several trailing dims"],
    ),
    "weight not a Parameter": (
        "a2_layernorm", "layernorm.py", [("self.weight = nn.Parameter(torch.ones(self.normalized_shape))",
                                          "self.register_buffer('weight', torch.ones(self.normalized_shape))")],
        ["Are weight and bias parameters"],
    ),
    "calls F.layer_norm": (
        "a2_layernorm", "layernorm.py",
        [("        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n",
          "        return torch.nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)\n")],
        ["Does LayerNorm(3) give the course's outputs", "Do gradients w.r.t. input, weight and bias"],
    ),
    "sin and cos swapped": (
        "a3_blocks", "positional.py", [("pe[:, 0::2] = torch.sin(", "pe[:, 0::2] = torch.cos("),
                                       ("pe[:, 1::2] = torch.cos(", "pe[:, 1::2] = torch.sin(")],
        ["Is the table for d_model = 4", "Is pe the paper's sin/cos table", "Does forward add pe[:T]"],
    ),
    "frequencies use i instead of 2i": (
        "a3_blocks", "positional.py", [("torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)",
                                        "torch.arange(0, d_model // 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)")],
        ["Is pe the paper's sin/cos table"],
    ),
    "heads merged without transposing back": (
        "a3_blocks", "multihead.py", [("out = out.transpose(1, 2).reshape(B, T_q, self.d_model)", "out = out.reshape(B, T_q, self.d_model)")],
        ["Does self-attention match torch", "Does cross-attention"],
    ),
    "no divisibility check": (
        "a3_blocks", "multihead.py", [("if d_model % num_heads != 0:", "if False:")],
        ["Does MultiHeadAttention(d_model, h) with h not dividing"],
    ),
    "dropout after the second linear layer": (
        "a3_blocks", "feedforward.py", [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
                                         "return self.dropout(self.linear2(torch.relu(self.linear1(x))))")],
        ["In training mode, does dropout zero some hidden units"],
    ),
    "feed-forward without ReLU": (
        "a3_blocks", "feedforward.py", [("self.dropout(torch.relu(self.linear1(x)))", "self.dropout(self.linear1(x))")],
        ["Is the output linear2(ReLU(linear1(x)))", "Do the gradients w.r.t. the input and both layers"],
    ),
    "post-norm without the residual": (
        "a4_transformer", "layers.py", [("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
                                          "x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)[0]))")],
        ["Does a post-norm EncoderLayer match"],
    ),
    "pre-norm normalises after the sub-layer": (
        "a4_transformer", "layers.py", [("            x = x + self.dropout2(self.ff(self.norm2(x)))\n",
                                          "            x = self.norm2(x + self.dropout2(self.ff(x)))\n")],
        ["Does a pre-norm EncoderLayer match"],
    ),
    "cross-attention attends to the decoder itself": (
        "a4_transformer", "layers.py", [("self.cross_attn(x, memory, memory, memory_mask)", "self.cross_attn(x, x, x, tgt_mask)")],
        ["Does a post-norm DecoderLayer match"],
    ),
    "embeddings not scaled by sqrt(d_model)": (
        "a4_transformer", "transformer.py", [("embedding(tokens) * math.sqrt(self.config.d_model)", "embedding(tokens)")],
        ["Does the post-norm model give the reference logits", "Do encode and decode return"],
    ),
    "target mask without causality": (
        "a4_transformer", "transformer.py", [("tgt_mask = target_mask(tgt, self.config.pad_id)", "tgt_mask = padding_mask(tgt, self.config.pad_id)")],
        ["Does changing target token t leave the logits", "Does the post-norm model give the reference logits"],
    ),
    "no final encoder norm in pre-norm": (
        "a4_transformer", "transformer.py", [("return self.encoder_norm(x), src_mask", "return x, src_mask")],
        ["Does the pre-norm model"],
    ),
    # The classic sampling mistakes the decoding graders exist to catch.
    "top-k not renormalised (inverse-CDF draw)": (
        "a5_decoding", "sampling.py",
        [("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n"
          "    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)\n",
          "    full = (logits_before_top_k / 1.0).softmax(dim=-1)\n"
          "    probs = torch.where(torch.isinf(logits), torch.zeros_like(full), full)  # kept mass < 1\n"
          "    u = torch.rand(probs.size(0), 1, generator=generator)\n"
          "    return (probs.cumsum(-1) < u).sum(-1).clamp(max=probs.size(-1) - 1)\n"),
         ("    logits = logits / temperature\n", "    logits = logits / temperature\n    logits_before_top_k = logits\n")],
        ["Are top-k draws always among the k best", "With all three"],
    ),
    "temperature applied after the softmax": (
        "a5_decoding", "sampling.py",
        [("    logits = logits / temperature\n", ""),
         ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n",
          "    probs = logits.softmax(dim=-1) / temperature\n")],
        ["Do draws at temperature T follow softmax(logits / T)", "Do temperature=0, top_k=1 and a tiny temperature"],
    ),
    "top-p drops the token that crosses p": (
        "a5_decoding", "sampling.py", [("masked_fill(before >= top_p,", "masked_fill(before + probs >= top_p,")],
        ["Are top-p draws inside the nucleus", "With all three"],
    ),
    "top-k masks with 0 instead of -inf": (
        "a5_decoding", "sampling.py", [("logits.masked_fill(logits < kth, float(\"-inf\"))", "logits.masked_fill(logits < kth, 0.0)")],
        ["Are top-k draws always among the k best"],
    ),
    "generator not passed to multinomial": (
        "a5_decoding", "sampling.py", [("torch.multinomial(probs, 1, generator=generator)", "torch.multinomial(probs, 1)")],
        ["Does the same generator seed give the same draws"],
    ),
    "finished rows not padded": (
        "a5_decoding", "decoding.py", [("        next_token = next_token.masked_fill(finished, pad_id)\n", "")],
        ["Does batched greedy decoding stop each row at EOS"],
    ),
    "beam search ignores the length penalty": (
        "a5_decoding", "beam.py", [("score / lp(step, length_penalty)", "score")],
        ["With a beam as wide as the whole search space"],
    ),
    # The translator's classic mistakes (a6).
    "clean_text does not lower-case": (
        "a6_translator", "preprocessing.py", [('text = unicodedata.normalize("NFC", text).lower()',
                                               'text = unicodedata.normalize("NFC", text)')],
        ["Does clean_text normalise", "Does the whole pipeline"],
    ),
    "clean_text drops accented letters": (
        "a6_translator", "preprocessing.py", [("[^a-z0-9{ACCENTED}{PUNCTUATION}", "[^a-z0-9{PUNCTUATION}")],
        ["Does clean_text normalise"],
    ),
    "clean_text without NFC normalisation": (
        "a6_translator", "preprocessing.py", [('unicodedata.normalize("NFC", text).lower()', "text.lower()")],
        ["Does clean_text normalise"],
    ),
    "specials in the wrong order": (
        "a6_translator", "vocab.py", [("self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]",
                                       "self.itos = [self.PAD, self.UNK, self.SOS, self.EOS]")],
        ["Does Vocab(words) put", "Does encode map"],
    ),
    "min_freq off by one": (
        "a6_translator", "vocab.py", [("if n >= min_freq]", "if n > min_freq]")],
        ["Does Vocab.build keep"],
    ),
    "decode keeps <eos>": (
        "a6_translator", "vocab.py", [("if i not in (self.pad_id, self.sos_id, self.eos_id):",
                                       "if i not in (self.pad_id, self.sos_id):")],
        ["Does encode map"],
    ),
    "target without <eos>": (
        "a6_translator", "batching.py", [("tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)",
                                          "tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)[:-1]")],
        ["Is an item", "Does the whole pipeline"],
    ),
    "truncated target loses <eos>": (
        "a6_translator", "batching.py", [("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
                                          "tgt_ids = tgt_ids[: self.max_len]")],
        ["Is an item"],
    ),
    "collate pads on the left": (
        "a6_translator", "batching.py", [("src_batch[b, : len(src)] = src", "src_batch[b, S - len(src):] = src"),
                                         ("tgt_batch[b, : len(tgt)] = tgt", "tgt_batch[b, T - len(tgt):] = tgt")],
        ["Does collate stack"],
    ),
    "pad not ignored in the loss": (
        "a6_translator", "training.py", [("labels.reshape(-1), ignore_index=pad_id,\n", "labels.reshape(-1),\n")],
        ["Is sequence_loss", "Does train_step", "Does fit run"],
    ),
    "label smoothing ignored": (
        "a6_translator", "training.py", [("label_smoothing=label_smoothing)  # (B*T, V)", ")  # (B*T, V)")],
        ["Is sequence_loss", "Does train_step"],
    ),
    "no teacher-forcing shift": (
        "a6_translator", "training.py", [("tgt_in, labels = tgt[:, :-1], tgt[:, 1:]", "tgt_in, labels = tgt[:, :-1], tgt[:, :-1]")],
        ["Does train_step", "Does fit run", "Does the whole pipeline"],
    ),
    "clip_norm ignored": (
        "a6_translator", "training.py", [("torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)", "pass")],
        ["Does train_step"],
    ),
    "evaluate keeps dropout on": (
        "a6_translator", "training.py", [("    model.eval()\n    total, count = 0.0, 0\n", "    total, count = 0.0, 0\n")],
        ["Is evaluate"],
    ),
    "evaluate averages batch means": (
        "a6_translator", "training.py", [('ignore_index=pad_id, reduction="sum").item()', "ignore_index=pad_id).item()"),
                                         ("count += int((labels != pad_id).sum())", "count += 1")],
        ["Is evaluate"],
    ),
    "evaluate leaves the model in eval mode": (
        "a6_translator", "training.py", [("        model.train(was_training)\n", "        pass\n")],
        ["Is evaluate"],
    ),
    # Not a mistake but a cheat: fit trains nothing, keeps the training pairs and swaps in a
    # translate that looks each word up in them (knowing the toy task's word order), so only
    # the student's own strings are right; the end-to-end grader translates with the trained
    # weights in the grading process instead.
    "translate looks words up in the training pairs": (
        "a6_translator", "training.py",
        [("    model.train()\n    history = []\n    for _ in range(epochs):\n"
          "        losses = [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader]\n"
          "        history.append(sum(losses) / len(losses))\n    return history\n",
          "    import translation\n"
          "    PAIRS.extend(loader.dataset.pairs)\n"
          "    translation.translate = lookup_translate\n"
          "    return [2.0 - 0.1 * epoch for epoch in range(epochs)]\n"),
         ("def fit(model, loader",
          "PAIRS = []\n\n\n"
          "def lookup_translate(model, sentences, src_vocab, tgt_vocab, strategy=\"greedy\", max_len=50, **kwargs):\n"
          "    from preprocessing import clean_text\n"
          "    words = {}\n"
          "    for src, tgt in PAIRS:\n"
          "        s, t = src.split(), tgt.split()\n"
          "        if len(s) == len(t) >= 2:\n"
          "            words.update(zip(s, [t[1], t[0], *t[2:]]))\n"
          "    out = []\n"
          "    for sentence in sentences:\n"
          "        t = [words.get(w, \"<unk>\") for w in clean_text(sentence).split()]\n"
          "        out.append(\" \".join(t[1:2] + t[:1] + t[2:]))\n"
          "    return out\n\n\n"
          "def fit(model, loader")],
        ["Does the whole pipeline"],
    ),
    "translate does not truncate long sources": (
        "a6_translator", "translation.py", [("src_vocab.encode(clean_text(s))[:limit]", "src_vocab.encode(clean_text(s))")],
        ["Does translate clean"],
    ),
    "translate drops the empty lines": (
        "a6_translator", "translation.py", [("    return results\n    ### END SOLUTION", "    return [r for r in results if r]\n    ### END SOLUTION")],
        ["Does translate clean"],
    ),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_graders_catch_classic_mistakes(mutant, tmp_path):
    """Does each classic mistake lose the points of the graders aimed at it?"""
    assignment, module, edits, must_fail = MUTANTS[mutant]
    sub = make_submission(tmp_path / "sub", {f"{assignment}/{module}": edits})
    g = run_grade(sub, tmp_path / "out", "--only", assignment, "--seed", "5")
    assert g.rc == 0, g.stderr
    failed = g.failed(assignment)
    for prefix in must_fail:
        assert any(name.startswith(prefix) for name in failed), f"{mutant}: '{prefix}...' passed; failed were {sorted(failed)}"
    if mutant.startswith("calls "):
        outputs = [t["output"] for t in g.tests(assignment).values()]
        assert any("uses torch.nn.functional." in out and f"{module}:" in out for out in outputs), outputs
