"""Classic mistakes in a5_decoding: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "top-k not renormalised (inverse-CDF draw)": Mutant(
        "sampling.py",
        [
            ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)\n",
             "    full = (logits_before_top_k / 1.0).softmax(dim=-1)\n    probs = torch.where(torch.isinf(logits), torch.zeros_like(full), full)  # kept mass < 1\n    u = torch.rand(probs.size(0), 1, generator=generator)\n    return (probs.cumsum(-1) < u).sum(-1).clamp(max=probs.size(-1) - 1)\n"),
            ("    logits = logits / temperature\n",
             "    logits = logits / temperature\n    logits_before_top_k = logits\n"),
        ],
        must_fail=["Are top-k draws always among the k best", "With all three"],
    ),
    "temperature applied after the softmax": Mutant(
        "sampling.py",
        [
            ("    logits = logits / temperature\n",
             ""),
            ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n",
             "    probs = logits.softmax(dim=-1) / temperature\n"),
        ],
        must_fail=["Do draws at temperature T follow softmax(logits / T)", "Do temperature=0, top_k=1 and a tiny temperature"],
    ),
    "top-p drops the token that crosses p": Mutant(
        "sampling.py",
        [
            ("masked_fill(before >= top_p,",
             "masked_fill(before + probs >= top_p,"),
        ],
        must_fail=["Are top-p draws inside the nucleus", "With all three"],
    ),
    "top-k masks with 0 instead of -inf": Mutant(
        "sampling.py",
        [
            ('logits.masked_fill(logits < kth, float("-inf"))',
             "logits.masked_fill(logits < kth, 0.0)"),
        ],
        must_fail=["Are top-k draws always among the k best"],
    ),
    "generator not passed to multinomial": Mutant(
        "sampling.py",
        [
            ("torch.multinomial(probs, 1, generator=generator)",
             "torch.multinomial(probs, 1)"),
        ],
        must_fail=["Does the same generator seed give the same draws"],
    ),
    "finished rows not padded": Mutant(
        "decoding.py",
        [
            ("        next_token = next_token.masked_fill(finished, pad_id)\n",
             ""),
        ],
        must_fail=["Does batched greedy decoding stop each row at EOS"],
    ),
    "beam search ignores the length penalty": Mutant(
        "beam.py",
        [
            ("score / lp(step, length_penalty)",
             "score"),
        ],
        must_fail=["With a beam as wide as the whole search space"],
    ),
}
