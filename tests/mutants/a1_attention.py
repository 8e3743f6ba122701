"""Classic mistakes in a1_attention: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "no 1/sqrt(d_k) scaling": Mutant(
        "attention.py",
        [
            (" / math.sqrt(d_k)",
             ""),
        ],
        must_fail=["Does masked_self_attention reproduce", "Does attention match softmax"],
    ),
    "scaled by sqrt(d_v)": Mutant(
        "attention.py",
        [
            ("d_k = q.size(-1)",
             "d_k = v.size(-1)"),
        ],
        must_fail=["Does attention match softmax"],
    ),
    "mask inverted": Mutant(
        "attention.py",
        [
            ("scores.masked_fill(~mask, ",
             "scores.masked_fill(mask, "),
        ],
        must_fail=["Does a (B, 1, 1, S) padding mask", "Does a (T_q, T_k) mask broadcast"],
    ),
    "NaN for fully masked rows": Mutant(
        "attention.py",
        [
            ("scores = scores.masked_fill(~has_key, 0.0)\n",
             ""),
            (".masked_fill(~has_key, 0.0)",
             ""),
        ],
        must_fail=["Does a query with every key masked", "Do gradients w.r.t. q, k and v"],
    ),
    "softmax without max subtraction": Mutant(
        "attention.py",
        [
            ("weights = torch.softmax(scores, dim=-1)\n",
             "weights = scores.exp() / scores.exp().sum(-1, keepdim=True)\n"),
        ],
        must_fail=["Do weight rows sum to 1 without overflow"],
    ),
    "hard-coded course table": Mutant(
        "attention.py",
        [
            ("    Z, _ = scaled_dot_product_attention(Q, K, V, mask=causal_mask(Q.size(0), device=Q.device))\n    return Z",
             "    return torch.tensor([[1.0, 0.0, 0.0], [0.4568, 0.5432, 0.0], [0.3219, 0.3332, 0.3449], [0.2309, 0.5130, 0.5260]])"),
        ],
        must_fail=["Is masked_self_attention causal attention on random", "Does masked_self_attention reproduce"],
    ),
    "calls F.scaled_dot_product_attention": Mutant(
        "attention.py",
        [
            ("    output = weights @ v  # (..., T_q, d_v)\n",
             "    output = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n"),
        ],
        must_fail=["Does attention match softmax", "Does masked_self_attention reproduce"],
    ),
    "padding mask (B, 1, S)": Mutant(
        "masks.py",
        [
            ("return (tokens != pad_id)[:, None, None, :]",
             "return (tokens != pad_id)[:, None, :]"),
        ],
        must_fail=["Does padding_mask hide exactly"],
    ),
    "causal mask upper triangle": Mutant(
        "masks.py",
        [
            ("return torch.tril(",
             "return torch.triu("),
        ],
        must_fail=["Is causal_mask(T) the boolean lower triangle", "Is target_mask the (B, 1, T, T)"],
    ),
}
