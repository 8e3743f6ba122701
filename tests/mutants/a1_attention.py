"""Classic mistakes in a1_attention: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

TABLE = "Does masked_self_attention reproduce"
CAUSAL_RANDOM = "Is masked_self_attention causal attention on random"
SHAPES = "Does attention match softmax"
PADDING = "Does a (B, 1, 1, S) padding mask"
SQUARE = "Does a (T_q, T_k) mask broadcast"
FULLY = "Does a query with every key masked"
GRADS = "Do gradients w.r.t. q, k and v"
SOFTMAX = "        weights = torch.softmax(scores, dim=-1)"
# The whole masked branch of the reference, for mistakes that replace it.
MASKED_BLOCK = (
    "    if mask is not None:\n"
    "        scores = scores.masked_fill(~mask, float(\"-inf\"))\n"
    "        # A row that is -inf everywhere would softmax to NaN: give it finite scores, then\n"
    "        # zero its weights, so neither the output nor the gradients see a NaN.\n"
    "        has_key = mask.any(dim=-1, keepdim=True)  # (..., T_q, 1)\n"
    "        scores = scores.masked_fill(~has_key, 0.0)\n"
    "        weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)\n"
    "    else:\n"
    "        weights = torch.softmax(scores, dim=-1)\n"
)
DEAD_ROWS = [  # drop the handling of a query with no visible key
    ("        scores = scores.masked_fill(~has_key, 0.0)\n", ""),
    ("weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)", "weights = torch.softmax(scores, dim=-1)"),
]

MUTANTS = {
    "no 1/sqrt(d_k) scaling": Mutant(
        "attention.py",
        [(" / math.sqrt(d_k)", "")],
        must_fail=[TABLE, CAUSAL_RANDOM, SHAPES, PADDING, GRADS],
        names="not divided by √d_k",
    ),
    "scaled by sqrt(len(q))": Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = len(q)")],
        must_fail=[SHAPES, PADDING, GRADS],
        names="divided by √len(q)",
    ),
    "rows that have keys get the zero scores": Mutant(
        "attention.py",
        [("scores = scores.masked_fill(~has_key, 0.0)", "scores = scores.masked_fill(has_key, 0.0)")],
        must_fail=[PADDING],
        names="attend uniformly to every key",
    ),
    "scaled by sqrt(d_v)": Mutant(
        "attention.py",
        [("d_k = q.size(-1)", "d_k = v.size(-1)")],
        must_fail=[SHAPES, PADDING, GRADS],
        names="divided by √d_v",
    ),
    "scaled by d_k, not its square root": Mutant(
        "attention.py",
        [(" / math.sqrt(d_k)", " / d_k")],
        must_fail=[TABLE, CAUSAL_RANDOM, SHAPES, PADDING, GRADS],
        names="divided by d_k instead of √d_k",
    ),
    "softmax over the queries (dim=-2)": Mutant(
        "attention.py",
        [("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)")],
        must_fail=[TABLE, CAUSAL_RANDOM, SHAPES, PADDING, GRADS],
        names="softmax runs over the queries",
    ),
    "k.T on batched keys": Mutant(
        "attention.py",
        [("k.transpose(-2, -1)", "k.T")],
        must_fail=[SHAPES, PADDING, SQUARE, FULLY, GRADS],
        names="k.T reverses every dimension",
    ),
    "mask inverted": Mutant(
        "attention.py",
        [("scores.masked_fill(~mask, ", "scores.masked_fill(mask, ")],
        must_fail=[PADDING, SQUARE, TABLE],
        names="mask is used inverted",
    ),
    "mask applied after the softmax": Mutant(
        "attention.py",
        [("        scores = scores.masked_fill(~mask, float(\"-inf\"))\n", ""),
         ("weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)",
          "weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)")],
        must_fail=[TABLE, CAUSAL_RANDOM, PADDING, SQUARE, FULLY, GRADS],
        names="applied after the softmax",
    ),
    "NaN for fully masked rows": Mutant(
        "attention.py",
        DEAD_ROWS,
        must_fail=[FULLY, GRADS],
        names="gives NaN",
    ),
    "-1e9 fill, fully masked rows uniform": Mutant(
        "attention.py",
        [('masked_fill(~mask, float("-inf"))', "masked_fill(~mask, -1e9)"), *DEAD_ROWS],
        must_fail=[FULLY, GRADS],
        names="gets uniform weights",
    ),
    "weights returned before masking": Mutant(
        "attention.py",
        [("    if mask is not None:\n        scores = scores.masked_fill(~mask",
          "    raw = torch.softmax(scores, dim=-1)\n    if mask is not None:\n        scores = scores.masked_fill(~mask"),
         ("    return output, weights\n", "    return output, raw\n")],
        must_fail=[PADDING, SQUARE, FULLY],
        names="returned weights ignore the mask",
    ),
    "softmax without max subtraction": Mutant(
        "attention.py",
        [(SOFTMAX + "\n", "        weights = scores.exp() / scores.exp().sum(-1, keepdim=True)\n")],
        must_fail=["Do weight rows sum to 1 without overflow"],
        names="exp overflows",
    ),
    "hard-coded course table": Mutant(
        "attention.py",
        [("    Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))\n    return Z",
          "    return torch.tensor([[1.0, 0.0, 0.0], [0.4568, 0.5432, 0.0], [0.3219, 0.3332, 0.3449], [0.2309, 0.5130, 0.5260]])")],
        must_fail=[CAUSAL_RANDOM, TABLE],
        names="hard-coded values",
    ),
    "masked_self_attention without the causal mask": Mutant(
        "attention.py",
        [("scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))",
          "scaled_dot_product_attention(Q, K, V)")],
        must_fail=[CAUSAL_RANDOM, TABLE],
        names="does not apply a causal mask",
    ),
    "calls F.scaled_dot_product_attention": Mutant(
        "attention.py",
        [("    output = weights @ v  # (..., T_q, d_v)\n",
          "    output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n")],
        must_fail=[SHAPES, TABLE],
        names="uses what this exercise asks you to build",
    ),
    "padding mask (B, 1, S)": Mutant(
        "masks.py",
        [("return (tokens != pad_id)[:, None, None, :]", "return (tokens != pad_id)[:, None, :]")],
        must_fail=["Does padding_mask hide exactly", "Is target_mask the (B, 1, T, T)"],
        names="two singleton dimensions",
    ),
    "padding mask inverted": Mutant(
        "masks.py",
        [("return (tokens != pad_id)", "return (tokens == pad_id)")],
        must_fail=["Does padding_mask hide exactly", "Is target_mask the (B, 1, T, T)"],
        names="padding mask is inverted",
    ),
    "padding mask compares with 0": Mutant(
        "masks.py",
        [("return (tokens != pad_id)", "return (tokens != 0)")],
        must_fail=["Does padding_mask hide exactly", "Is target_mask the (B, 1, T, T)"],
        names="compares with 0 instead of pad_id",
    ),
    "target mask OR": Mutant(
        "masks.py",
        [("padding_mask(tokens, pad_id) & causal_mask(", "padding_mask(tokens, pad_id) | causal_mask(")],
        must_fail=["Is target_mask the (B, 1, T, T)"],
        names="| (or)",
    ),
    "causal mask upper triangle": Mutant(
        "masks.py",
        [("return torch.tril(", "return torch.triu(")],
        must_fail=["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)", TABLE, CAUSAL_RANDOM],
        names="upper triangle (torch.triu)",
    ),
    "causal mask inverted (triu, diagonal=1)": Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          "return torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)")],
        must_fail=["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)", TABLE, CAUSAL_RANDOM],
        names="causal mask is inverted",
    ),
    "causal mask without the diagonal": Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          "return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=-1)")],
        must_fail=["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)", TABLE, CAUSAL_RANDOM],
        names="leaves out the diagonal",
    ),
    "queries divided in place (q /= sqrt(d_k)), the caller's tensor changed": Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
          "q /= math.sqrt(d_k)\n    scores = q @ k.transpose(-2, -1)")],
        must_fail=["Does attention match softmax(QKᵀ/√d_k)V for random shapes"],
        names="changes its caller's tensor in place",
    ),
    "masked scores filled with math.inf (the sign left out)": Mutant(
        "attention.py",
        [('scores = scores.masked_fill(~mask, float("-inf"))', "scores = scores.masked_fill(~mask, math.inf)")],
        must_fail=[TABLE, CAUSAL_RANDOM, PADDING],
        names="filled with +inf",
    ),
    "target mask sized by the batch (T = tokens.size(0))": Mutant(
        "masks.py",
        [("T = tokens.size(1)", "T = tokens.size(0)")],
        must_fail=["Is target_mask the (B, 1, T, T)"],
    ),
    "padding mask built from lengths (assumes right padding)": Mutant(
        "masks.py",
        [("return (tokens != pad_id)[:, None, None, :]",
          "lengths = (tokens != pad_id).sum(dim=1, keepdim=True)\n"
          "    return (torch.arange(tokens.size(1))[None, :] < lengths)[:, None, None, :]")],
        must_fail=["Does padding_mask hide exactly the pad ids"],
        names="built from the lengths",
    ),
    "has_key read from the inverted mask ((~mask).any)": Mutant(
        "attention.py",
        [("has_key = mask.any(dim=-1, keepdim=True)  # (..., T_q, 1)",
          "has_key = (~mask).any(dim=-1, keepdim=True)  # (..., T_q, 1)")],
        must_fail=["Does a query with every key masked give zeros"],
        names="reads the inverted mask",
    ),
    "masked self-attention rounds Z to the table's 4 decimals": Mutant(
        "attention.py",
        [("    return Z\n", "    return Z.round(decimals=4)\n")],
        must_fail=["Is masked_self_attention causal attention on random"],
        names="rounded to 4 decimals",
    ),
    "masked self-attention squeezes Z (T = 1 loses its axis)": Mutant(
        "attention.py",
        [("    return Z\n", "    return Z.squeeze()\n")],
        must_fail=["Is masked_self_attention causal attention on random"],
        names=".squeeze() with no dim",
    ),
    "target mask returns the bare causal mask when no token is padding": Mutant(
        "masks.py",
        [("    return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)  # (B, 1, T, T)",
          "    if (tokens != pad_id).all():\n        return causal_mask(T, device=tokens.device)\n"
          "    return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)  # (B, 1, T, T)")],
        must_fail=["Is target_mask the (B, 1, T, T) AND"],
        names="leading axes",
    ),
    "returned weights detached (weights.detach(), for plotting)": Mutant(
        "attention.py",
        [("    output = weights @ v  # (..., T_q, d_v)\n    return output, weights\n",
          "    output = weights @ v  # (..., T_q, d_v)\n    return output, weights.detach()\n")],
        must_fail=["Do gradients w.r.t. q, k and v match"],
        names="cut off from the graph",
    ),
    "masked self-attention runs under torch.no_grad() (only the table was in mind)": Mutant(
        "attention.py",
        [("    Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))\n",
          "    with torch.no_grad():\n"
          "        Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))\n")],
        must_fail=["Is masked_self_attention causal attention on random"],
        names="cut off from the graph",
    ),
    "a mask with no allowed key skipped (if mask is not None and mask.any())": Mutant(
        "attention.py",
        [("    if mask is not None:\n        scores = scores.masked_fill(~mask, float(\"-inf\"))",
          "    if mask is not None and mask.any():\n        scores = scores.masked_fill(~mask, float(\"-inf\"))")],
        must_fail=["Does a query with every key masked give zeros"],
        names="`if mask.any():` shortcut",
    ),
    "scores with a 3-D einsum ('bqd,bkd->bqk': no other number of dimensions)": Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)",
          "scores = torch.einsum(\"bqd,bkd->bqk\", q, k) / math.sqrt(d_k)  # (..., T_q, T_k)")],
        must_fail=["Does attention match softmax(QKᵀ/√d_k)V for random shapes"],
        names="use an ellipsis",
    ),
    "target_mask's diagonal filled with True afterwards (so that no row is empty)": Mutant(
        "masks.py",
        [("    return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)",
          "    mask = padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)\n"
          "    mask.diagonal(dim1=-2, dim2=-1).fill_(True)\n    return mask")],
        must_fail=["Is target_mask the (B, 1, T, T)"],
        names="lets every position see itself",
    ),
    "scores divided by d_k ** 0.25 (a fourth root for a square root)": Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)",
          "scores = q @ k.transpose(-2, -1) / d_k ** 0.25  # (..., T_q, T_k)")],
        must_fail=["Does attention match softmax(QKᵀ/√d_k)V for random shapes"],
        names="d_k ** 0.25 instead of √d_k",
    ),
    "scores of F.normalize(q) and F.normalize(k) (cosine attention)": Mutant(
        "attention.py",
        [("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)",
          "scores = torch.nn.functional.normalize(q, dim=-1) @ torch.nn.functional.normalize(k, dim=-1)"
          ".transpose(-2, -1) / math.sqrt(d_k)  # (..., T_q, T_k)")],
        must_fail=["Does attention match softmax(QKᵀ/√d_k)V for random shapes"],
        names="cosine similarities",
    ),
    "the mask inverted by subtraction (inverted = 1 - mask, from uint8 masks)": Mutant(
        "attention.py",
        [('        scores = scores.masked_fill(~mask, float("-inf"))',
          '        inverted = 1 - mask\n        scores = scores.masked_fill(inverted, float("-inf"))')],
        must_fail=["Does a (B, 1, 1, S) padding mask give masked keys exactly zero weight"],
        names="invert it with ~mask",
    ),
    "keys viewed as (..., d_k, T_k) instead of transposed": Mutant(
        "attention.py",
        [("k.transpose(-2, -1)", "k.view(*k.shape[:-2], k.size(-1), k.size(-2))")],
        must_fail=[TABLE, SHAPES, GRADS],
        names="instead of transposed",
    ),
    "masked self-attention computed in float32 (Q.float(), K.float(), V.float())": Mutant(
        "attention.py",
        [("Z, _ = scaled_dot_product_attention(Q, K, V, mask=",
          "Z, _ = scaled_dot_product_attention(Q.float(), K.float(), V.float(), mask=")],
        must_fail=["Is masked_self_attention causal attention on random"],
    ),
    # The lectures' ways, which the course does not use (docs/errata.md): each named with the lecture.
    "lecture 002's additive causal mask (floats, 0 / -inf above the diagonal, shaped (1, 1, T, T))": Mutant(
        "masks.py",
        [("return torch.tril(torch.ones(T, T, dtype=torch.bool, device=device))",
          'return torch.full((1, 1, T, T), float("-inf"), device=device).triu(1)')],
        must_fail=["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)", TABLE, CAUSAL_RANDOM],
        names="lecture notebook 002",
    ),
    "scores + mask, lecture 002's way of applying its additive masks, given the course's boolean ones": Mutant(
        "attention.py",
        [(MASKED_BLOCK, "    if mask is not None:\n        scores = scores + mask\n" + SOFTMAX + "\n")],
        must_fail=[TABLE, CAUSAL_RANDOM, PADDING, SQUARE, FULLY, GRADS],
        names="lecture notebook 002",
    ),
    "scores * mask, lecture 004's masked scores \"set to zero\"": Mutant(
        "attention.py",
        [(MASKED_BLOCK, "    if mask is not None:\n        scores = scores * mask\n" + SOFTMAX + "\n")],
        must_fail=[TABLE, CAUSAL_RANDOM, PADDING, SQUARE, FULLY, GRADS],
        names="lecture notebook 004",
    ),
    "target mask in nn.MultiheadAttention's convention (True = blocked: padding | future)": Mutant(
        "masks.py",
        [("    return padding_mask(tokens, pad_id) & causal_mask(T, device=tokens.device)  # (B, 1, T, T)",
          "    return (tokens == pad_id)[:, None, None, :] | ~causal_mask(T, device=tokens.device)  # (B, 1, T, T)")],
        must_fail=["Is target_mask the (B, 1, T, T)"],
        names="nn.MultiheadAttention's convention",
    ),
    "masked scores made by adding (~mask) * -inf (0 * -inf is NaN)": Mutant(
        "attention.py",
        [('        scores = scores.masked_fill(~mask, float("-inf"))\n',
          '        scores = scores + (~mask).float() * float("-inf")\n')],
        must_fail=[TABLE, PADDING],
        names="values are NaN",
    ),
}
