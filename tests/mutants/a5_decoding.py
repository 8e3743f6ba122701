"""Classic mistakes in a5_decoding: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

TOP_K_BLOCK = """    if top_k is not None and top_k < logits.size(-1):
        kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)
        logits = logits.masked_fill(logits < kth, float("-inf"))
"""

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
        names="not renormalised",
    ),
    "temperature applied after the softmax": Mutant(
        "sampling.py",
        [
            ("    logits = logits / temperature\n",
             ""),
            ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n",
             "    probs = logits.softmax(dim=-1) / temperature\n"),
        ],
        must_fail=["Do draws at temperature T follow softmax(logits / T)", "Do temperature=0 (also with top_k or top_p)",
                   "With all three", "Is sample_decode reproducible"],
        names="temperature is not applied before the softmax",
    ),
    "top-p drops the token that crosses p": Mutant(
        "sampling.py",
        [
            ("masked_fill(before >= top_p,",
             "masked_fill(before + probs >= top_p,"),
        ],
        must_fail=["Are top-p draws inside the nucleus", "With all three"],
        names="drops the token that crosses p",
    ),
    "top-k masks with 0 instead of -inf": Mutant(
        "sampling.py",
        [
            ('logits.masked_fill(logits < kth, float("-inf"))',
             "logits.masked_fill(logits < kth, 0.0)"),
        ],
        must_fail=["Are top-k draws always among the k best", "Does each row of a batch follow its own logits"],
        names="instead of -inf",
    ),
    "generator not passed to multinomial": Mutant(
        "sampling.py",
        [
            ("torch.multinomial(probs, 1, generator=generator)",
             "torch.multinomial(probs, 1)"),
        ],
        must_fail=["Does the same generator seed give the same draws", "Is sample_decode reproducible"],
        names="generator is not passed",
    ),
    "finished rows not padded": Mutant(
        "decoding.py",
        [
            ("        next_token = next_token.masked_fill(finished, pad_id)\n",
             ""),
        ],
        must_fail=["Does batched greedy decoding stop each row at EOS", "Is sample_decode reproducible"],
        names="not padded",
    ),
    "beam search ignores the length penalty": Mutant(
        "beam.py",
        [
            ("score / lp(step, length_penalty)",
             "score"),
        ],
        must_fail=["With a beam as wide as the whole search space", "Does beam search with beams of 2 to 4"],
        names="length penalty is ignored",
    ),
    "sampled decoding applies the temperature twice": Mutant(
        "decoding.py",
        [
            ("        logits = decoder.step(tokens)  # (B, V)\n",
             "        logits = decoder.step(tokens)  # (B, V)\n        if temperature > 0:\n            logits = logits / temperature\n"),
        ],
        must_fail=["Is sample_decode reproducible"],
        names="temperature is applied twice",
    ),
    "decoding stops when any row has finished": Mutant(
        "decoding.py",
        [("        if finished.all():\n", "        if finished.any():\n")],
        must_fail=["Does batched greedy decoding stop each row at EOS", "Is sample_decode reproducible"],
        names="stops as soon as any row has finished",
    ),
    "top-k keeps k + 1 tokens": Mutant(
        "sampling.py",
        [("logits.topk(top_k, dim=-1)", "logits.topk(top_k + 1, dim=-1)")],
        must_fail=["Are top-k draws always among the k best", "Does each row of a batch follow its own logits"],
        names="keeps k + 1 tokens",
    ),
    "top-k keeps k - 1 tokens": Mutant(
        "sampling.py",
        [("logits.topk(top_k, dim=-1)", "logits.topk(top_k - 1, dim=-1)")],
        must_fail=["Are top-k draws always among the k best", "Does each row of a batch follow its own logits"],
        names="keeps k - 1 tokens",
    ),
    "top-p not renormalised (inverse-CDF draw)": Mutant(
        "sampling.py",
        [
            ("    if top_p is not None and top_p < 1:\n",
             "    logits_before_top_p = logits\n    if top_p is not None and top_p < 1:\n"),
            ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)\n",
             "    full = logits_before_top_p.softmax(dim=-1)\n    probs = torch.where(torch.isinf(logits), torch.zeros_like(full), full)  # kept mass < 1\n"
             "    u = torch.rand(probs.size(0), 1, generator=generator)\n    return (probs.cumsum(-1) < u).sum(-1).clamp(max=probs.size(-1) - 1)\n"),
        ],
        must_fail=["Are top-p draws inside the nucleus", "With all three"],
        names="not renormalised",
    ),
    "samples from the logits instead of the probabilities": Mutant(
        "sampling.py",
        [("torch.multinomial(probs, 1, generator=generator)", "torch.multinomial(logits, 1, generator=generator)")],
        must_fail=["Do draws at temperature T follow softmax(logits / T)", "Are top-k draws always among the k best",
                   "Are top-p draws inside the nucleus", "With all three", "Does each row of a batch follow its own logits",
                   "Does the same generator seed give the same draws", "Do temperature=0 (also with top_k or top_p)",
                   "Is sample_decode reproducible"],
        names="sampling from the logits",
    ),
    "temperature multiplies the logits": Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", "    logits = logits * temperature\n")],
        must_fail=["Do draws at temperature T follow softmax(logits / T)", "Do temperature=0 (also with top_k or top_p)",
                   "With all three", "Is sample_decode reproducible"],
        names="multiplied by the temperature",
    ),
    "beam search returns the first finished hypothesis": Mutant(
        "beam.py",
        [("return max(finished, key=lambda f: f[0])[1]", "return finished[0][1]")],
        must_fail=["With a beam as wide as the whole search space", "Does beam search with beams of 2 to 4"],
        names="first hypothesis that finished",
    ),
    "beam search multiplies by the length penalty": Mutant(
        "beam.py",
        [("score / lp(step, length_penalty)", "score * lp(step, length_penalty)")],
        must_fail=["With a beam as wide as the whole search space", "Does beam search with beams of 2 to 4"],
        names="multiplied by the length penalty",
    ),
    "beam search counts <sos> in the length": Mutant(
        "beam.py",
        [("score / lp(step, length_penalty)", "score / lp(step + 1, length_penalty)")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names="counts <sos>",
    ),
    "beam search keeps expanding finished hypotheses": Mutant(
        "beam.py",
        [("                else:\n                    live.append((score, beam, token))\n",
          "                if step < max_len:\n                    live.append((score, beam, token))\n")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names="keep being expanded",
    ),
    "beam search sums probabilities, not log-probabilities": Mutant(
        "beam.py",
        [("decoder.step(tokens).log_softmax(dim=-1)", "decoder.step(tokens).softmax(dim=-1)")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names="sums probabilities",
    ),
    # Four holes the held-out set of an earlier session found (each kept full marks then).
    "temperature applied after top-p": Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", ""),
         ("    probs = logits.softmax(dim=-1)  # renormalised", "    logits = logits / temperature\n    probs = logits.softmax(dim=-1)  # renormalised")],
        must_fail=["With all three, is it temperature first"],
        names="temperature is applied after top-p",
    ),
    "top-k guard against k > V removed": Mutant(
        "sampling.py",
        [("if top_k is not None and top_k < logits.size(-1):", "if top_k is not None:")],
        must_fail=["Do temperature < 0, top_k < 1"],
    ),
    "top_p = 1 rejected": Mutant(
        "sampling.py",
        [("not 0 < top_p <= 1", "not 0 < top_p < 1")],
        must_fail=["Do temperature < 0, top_k < 1"],
    ),
    "beam length penalty misses a token": Mutant(
        "beam.py",
        [("score / lp(step, length_penalty)", "score / lp(step - 1, length_penalty)")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names="misses one token",
    ),
    "greedy decoding pads with the default 0, not pad_id": Mutant(
        "decoding.py",
        [("return sample_decode(model, src, max_len, sos_id, eos_id, pad_id, temperature=0.0, use_cache=use_cache)",
          "return sample_decode(model, src, max_len, sos_id, eos_id, temperature=0.0, use_cache=use_cache)")],
        must_fail=["Do greedy decoding and beam search fill finished rows"],
        names="instead of the pad_id argument",
    ),
    "beam search pads with zeros, not pad_id": Mutant(
        "beam.py",
        [("out = torch.full((src.size(0), max(len(h) for h in best)), pad_id, dtype=torch.long, device=src.device)",
          "out = torch.zeros((src.size(0), max(len(h) for h in best)), dtype=torch.long, device=src.device)")],
        must_fail=["Do greedy decoding and beam search fill finished rows"],
        names="instead of the pad_id argument",
    ),
    "temperature divides the caller's logits in place (logits /= temperature)": Mutant(
        "sampling.py",
        [("    logits = logits / temperature", "    logits /= temperature")],
        must_fail=["With all three, is it temperature first"],
        names="changes its caller's tensor in place",
    ),
    "top-p applied before top-k": Mutant(
        "sampling.py",
        [(TOP_K_BLOCK, ""),
         ("    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n",
          TOP_K_BLOCK + "    probs = logits.softmax(dim=-1)  # renormalised over the kept tokens\n")],
        must_fail=["With all three, is it temperature first"],
        names="top-p is applied before top-k",
    ),
    "draws squeezed with .squeeze(), a 0-d tensor for a batch of one": Mutant(
        "sampling.py",
        [("torch.multinomial(probs, 1, generator=generator).squeeze(-1)",
          "torch.multinomial(probs, 1, generator=generator).squeeze()")],
        must_fail=["Does each row of a batch follow its own logits"],
        names=".squeeze() with no dim",
    ),
    "top-k guard compares top_k with the batch size": Mutant(
        "sampling.py",
        [("if top_k is not None and top_k < logits.size(-1):", "if top_k is not None and top_k < logits.size(0):")],
        must_fail=["Does each row of a batch follow its own logits"],
        names="not below the batch size",
    ),
    "the beam shrinks by one for every finished hypothesis": Mutant(
        "beam.py",
        [("top = logp.flatten().topk(min(beam_size, logp.numel()))",
          "top = logp.flatten().topk(max(0, min(beam_size - len(finished), logp.numel())))")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names=None,
    ),
    "2 × beam_size candidates, beam_size of them kept live": Mutant(
        "beam.py",
        [("top = logp.flatten().topk(min(beam_size, logp.numel()))",
          "top = logp.flatten().topk(min(2 * beam_size, logp.numel()))"),
         ("                else:\n                    live.append((score, beam, token))",
          "                elif len(live) < beam_size:\n                    live.append((score, beam, token))")],
        must_fail=["Does beam search with beams of 2 to 4"],
        names=None,
    ),
    "finished hypotheses stored without their EOS": Mutant(
        "beam.py",
        [("tokens[beam, 1:].tolist() + [token]))", "tokens[beam, 1:].tolist() + ([] if token == eos_id else [token])))")],
        must_fail=["Does beam search with beams of 2 to 4", "Does beam_search with beam_size=1"],
        names="EOS dropped",
    ),
    "sample_decode tests for the end before keeping the step's tokens (the last EOS is lost)": Mutant(
        "decoding.py",
        [("        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n"
          "        finished |= next_token == eos_id\n        if finished.all():\n            break\n",
          "        finished |= next_token == eos_id\n        if finished.all():\n            break\n"
          "        tokens = torch.cat([tokens, next_token[:, None]], dim=1)  # (B, t + 1)\n")],
        must_fail=["Does batched greedy decoding stop each row at EOS"],
        names="that row loses its EOS",
    ),
    "top-k threshold read from .indices instead of .values": Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)",
          "kth = logits.topk(top_k, dim=-1).indices[:, -1:]  # (B, 1)")],
        must_fail=["Are top-k draws always among the k best"],
        names="only top_k=3 makes the call fail",
    ),
    "temperature applied as a power of the logits (logits ** (1 / T))": Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", "    logits = logits ** (1 / temperature)\n")],
        must_fail=["Do draws at temperature T follow"],
        names="only a temperature (0.7, no top-k or top-p) makes the call fail",
    ),
    "no greedy case for temperature 0 (divides by it)": Mutant(
        "sampling.py",
        [("    if temperature == 0 or top_k == 1:\n", "    if top_k == 1:\n")],
        must_fail=["Do temperature=0 (also with top_k or top_p)"],
        names="only temperature=0 makes the call fail",
    ),
    "greedy shortcut taken before the argument checks": Mutant(
        "sampling.py",
        [("    if temperature < 0:\n", "    if temperature == 0 or top_k == 1:\n        return logits.argmax(dim=-1)\n"
          "    if temperature < 0:\n")],
        must_fail=["Do temperature < 0, top_k < 1"],
        names="checked only after the greedy shortcut",
    ),
    "beam's winner unpacked as (ids, score), the pair's order reversed": Mutant(
        "beam.py",
        [("        return max(finished, key=lambda f: f[0])[1]",
          "        ids, score = max(finished, key=lambda f: f[0])\n        return ids")],
        must_fail=["Does beam_search with beam_size=1", "Does beam search with beams of 2 to 4"],
        names="max(finished",
    ),
    "temperature 0 greedy only without top_p (temperature == 0 and top_p is None)": Mutant(
        "sampling.py",
        [("    if temperature == 0 or top_k == 1:\n", "    if (temperature == 0 and top_p is None) or top_k == 1:\n")],
        must_fail=["Do temperature=0 (also with top_k or top_p)"],
        names="greedy only without top_k or top_p",
    ),
    "top_k capped at V - 1 before the filter (top_k = min(top_k, V - 1))": Mutant(
        "sampling.py",
        [("    if top_k is not None and top_k < logits.size(-1):\n",
          "    if top_k is not None:\n        top_k = min(top_k, logits.size(-1) - 1)\n"
          "    if top_k is not None and top_k < logits.size(-1):\n")],
        must_fail=["Do temperature < 0, top_k < 1"],
        names="without clamping it below V",
    ),
    "sample_decode leaves top_k out of the call (top_p lands on top_k, the generator on top_p)": Mutant(
        "decoding.py",
        [("sample_next_token(logits, temperature, top_k, top_p, generator)",
          "sample_next_token(logits, temperature, top_p, generator)")],
        must_fail=["Is sample_decode reproducible"],
        names="generator=generator",
    ),
    "top-k threshold taken over the whole batch (.values.min(), no dim)": Mutant(
        "sampling.py",
        [("kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1)",
          "kth = logits.topk(top_k, dim=-1).values.min()")],
        must_fail=["Does each row of a batch follow its own logits"],
        names="one top-k threshold for the whole batch",
    ),
    "top-k masks the caller's logits in place at temperature 1": Mutant(
        "sampling.py",
        [("    logits = logits / temperature\n", "    if temperature != 1:\n        logits = logits / temperature\n"),
         ("        logits = logits.masked_fill(logits < kth, float(\"-inf\"))\n",
          "        logits.masked_fill_(logits < kth, float(\"-inf\"))\n")],
        must_fail=["Are top-k draws always among the k best"],
        names="changes its caller's tensor in place",
    ),
    "greedy decoding starts from src[:, :1].fill_(sos_id) (the caller's source overwritten)": Mutant(
        "decoding.py",
        [("    tokens = torch.full((B, 1), sos_id, dtype=torch.long, device=src.device)  # (B, 1)\n",
          "    tokens = src[:, :1].fill_(sos_id)  # (B, 1)\n")],
        must_fail=["Does batched greedy decoding stop each row"],
        names="changed the caller's src in place",
    ),
    "sample_decode puts eos_id on every unfinished row at the last step": Mutant(
        "decoding.py",
        [("    for _ in range(max_len):\n        logits = decoder.step(tokens)  # (B, V)\n"
          "        next_token = sample_next_token(logits, temperature, top_k, top_p, generator)  # (B,)\n",
          "    for step in range(max_len):\n        logits = decoder.step(tokens)  # (B, V)\n"
          "        next_token = sample_next_token(logits, temperature, top_k, top_p, generator)  # (B,)\n"
          "        if step == max_len - 1:\n            next_token = torch.where(finished, next_token, eos_id)\n")],
        must_fail=["Is sample_decode reproducible"],
        names="eos_id is forced at the last step",
    ),
    # issue 48's unseen mistakes, read as several wrong causes before the diagnoses were narrowed
    "top-k draws uniformly among the k best (their probabilities ignored)": Mutant(
        "sampling.py",
        [('        logits = logits.masked_fill(logits < kth, float("-inf"))\n',
          '        logits = torch.zeros_like(logits).masked_fill(logits < kth, float("-inf"))  # the k best alike\n')],
        must_fail=["Are top-k draws always among the k best"],
    ),
}
# Left out: "sample_decode's loop one step short (range(max_len - 1))" loses points at every
# seed but not the same total (18 at seeds 1, 3, 4, 5; 16 at seed 2, where test_greedy_decode's
# check that sample_decode leaves src unchanged also fails): a grader whose verdict on one
# function depends on another's, to mend before the mistake can join the corpus.
