"""Shared pieces of the a5 decoding graders (not a test module): random reference models
sent to the student's process as model specs, and plain greedy and beam decoders (no
key/value cache; the beam searches share each prefix's logits) run in the grading process,
each able to reproduce a classic mistake so that a failed check can name the one the
student's tokens match.
"""

import itertools

import torch

from autograder import reference
from autograder.graders.a5_decoding.distributions import recognise_all
from autograder.graders.a5_decoding.steps import first_step
from autograder.grading import checks
from autograder.grading.checks import Mistake
from autograder.tokens import EOS, PAD, SOS


def model_and_spec(rng, tgt_vocab=None, eos_bias=0.0, sharpness=1.0):
    t = reference.load("transformer")
    config = dict(src_vocab_size=15, tgt_vocab_size=tgt_vocab or checks.randint(rng, 10, 20), d_model=16,
                  num_heads=2, num_layers=2, d_ff=32, dropout=0.0, max_len=40, pad_id=PAD,
                  norm_first=bool(checks.randint(rng, 0, 1)))
    torch.manual_seed(checks.randint(rng, 0, 2**31))
    model = t.Transformer(t.TransformerConfig(**config)).double().eval()
    with torch.no_grad():
        model.generator.weight *= sharpness  # a random model is unsure of every token; a trained one is not
        model.generator.bias[EOS] += eos_bias  # makes rows finish at different steps
    spec = {"target": "transformer.Transformer", "config": ["transformer.TransformerConfig", config],
            "state": {n: p.detach().clone() for n, p in model.named_parameters()}, "dtype": "float64"}
    return model, spec


def source(rng, B, S=7):
    src = torch.randint(3, 15, (B, S), generator=rng)
    src[~checks.right_padding(rng, B, S, min_len=2)] = PAD
    return src


@torch.no_grad()
def greedy(model, src, max_len, mistake=None, gap=None):
    """Greedy tokens (B, L) without SOS; ``mistake`` in GREEDY_MISTAKES reproduces one.
    ``gap``, a list, receives the smallest margin between the best and second-best logit."""
    memory, src_mask = model.encode(src)
    tokens = torch.full((src.size(0), 1), SOS)
    finished = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_len):
        logits = model.decode(tokens, memory, src_mask)[:, -1]
        if gap is not None:
            top2 = logits.topk(2, dim=-1).values
            gap.append((top2[:, 0] - top2[:, 1]).min().item())
        nxt = logits.argmax(-1)
        if mistake != "no_pad":
            nxt = nxt.masked_fill(finished, PAD)
        if mistake == "last_eos_lost" and bool((finished | (nxt == EOS)).all()):
            break  # the stop test before the step's tokens are kept
        tokens = torch.cat([tokens, nxt[:, None]], dim=1)
        finished |= nxt == EOS
        if finished.any() if mistake == "stop_any" else finished.all():
            break
    return tokens[:, 1:]


GREEDY_MISTAKES = {
    "no_pad": ("rows that have finished are not padded: once a row has produced EOS, every later token of "
               "that row must be pad_id (mask the new tokens of finished rows)",
               "las filas terminadas no se rellenan: cuando una fila ha producido EOS, todos sus tokens "
               "posteriores deben ser pad_id (enmascara los tokens nuevos de las filas terminadas)"),
    "stop_any": ("decoding stops as soon as ANY row has finished; it must go on until EVERY row has "
                 "(finished.all(), not finished.any())",
                 "la decodificación para en cuanto termina ALGUNA fila; debe seguir hasta que terminen "
                 "TODAS (finished.all(), no finished.any())"),
    "last_eos_lost": ("the loop stops before it keeps the tokens of the step where the last row finishes, so that "
                      "row loses its EOS: append the step's tokens first, then test whether every row is finished",
                      "el bucle para antes de guardar los tokens del paso en que termina la última fila, así que "
                      "esa fila pierde su EOS: añade primero los tokens del paso y luego comprueba si todas las "
                      "filas han terminado"),
}


def greedy_mistakes(model, src, max_len):
    return [Mistake(en, es, output=lambda m=m: greedy(model, src, max_len, m)) for m, (en, es) in GREEDY_MISTAKES.items()]


# Near-ties closer than this (relative) are redrawn: a correct implementation may compute
# scores in float32 (a relative error near 1e-7 per step), and must not lose by rounding.
MARGIN = 1e-4


def lp(length, alpha):
    return ((5 + length) / 6) ** alpha


class _Prefixes:
    """The next-token logits of one source row after each target prefix, each computed once:
    the right search and the mistaken ones mostly extend the same prefixes."""

    @torch.no_grad()
    def __init__(self, model, row):
        self.model, self.known = model, {}
        self.memory, self.src_mask = model.encode(row)

    @torch.no_grad()
    def logits(self, tokens: torch.Tensor) -> torch.Tensor:  # (n, t) prefixes -> (n, V)
        keys = [tuple(p) for p in tokens.tolist()]
        new = [i for i, key in enumerate(keys) if key not in self.known]
        if new:
            n = len(new)
            out = self.model.decode(tokens[new], self.memory.expand(n, -1, -1),
                                    self.src_mask.expand(n, -1, -1, -1))[:, -1]  # (n, V)
            self.known.update((keys[i], row) for i, row in zip(new, out))
        return torch.stack([self.known[key] for key in keys])


@torch.no_grad()
def _finished(prefixes, k, max_len, mistake):
    """Beam search on one source row (``prefixes`` gives its decoder's logits): every
    finished hypothesis as (summed score, ids), in the order they finish, and whether no
    pruning decision was a near-tie. The length penalty only ranks finished hypotheses, so
    these do not depend on it."""
    tokens = torch.full((1, 1), SOS)
    scores = torch.zeros(1, dtype=torch.float64)
    finished, clear = [], True
    for step in range(1, max_len + 1):
        logits = prefixes.logits(tokens)
        logp = (logits.softmax(-1) if mistake == "probs" else logits.log_softmax(-1)) + scores[:, None]
        V = logp.size(-1)
        # The candidates looked at: k, or k minus those finished (a beam that shrinks), or 2k
        # of which k stay live (the width counts live hypotheses only).
        width = {"shrink": k - len(finished), "twice": 2 * k}.get(mistake, k)
        if width < 1:
            break
        top = logp.flatten().topk(min(width + 1, logp.numel()))
        if top.values.numel() > width and top.values[width - 1] - top.values[width] <= MARGIN * (
                1 + abs(top.values[width].item())):
            clear = False  # the last candidate and the next one nearly tie: rounding could swap them
        live = []
        for score, flat in list(zip(top.values.tolist(), top.indices.tolist()))[:width]:
            beam, token = divmod(flat, V)
            if token == EOS or step == max_len:
                ids = tokens[beam, 1:].tolist() + ([] if mistake == "eos_dropped" and token == EOS else [token])
                finished.append((score, ids))
                if mistake == "keep_expanding" and step < max_len:
                    live.append((score, beam, token))
            elif mistake != "twice" or len(live) < k:
                live.append((score, beam, token))
        if not live:
            break
        index = torch.tensor([beam for _, beam, _ in live])
        tokens = torch.cat([tokens[index], torch.tensor([[token] for _, _, token in live])], dim=1)
        scores = torch.tensor([score for score, _, _ in live], dtype=torch.float64)
    return finished, clear


def _ranking(finished, alpha, mistake):
    """Finished hypotheses' final scores as the correct search (or ``mistake``) ranks them."""
    if mistake == "first":
        return [0.0] + [-1.0] * (len(finished) - 1)
    shift, alpha = {"sos_len": 1, "len_minus": -1}.get(mistake, 0), (0.0 if mistake == "no_lp" else alpha)
    if mistake == "times_lp":
        return [score * lp(len(ids) + shift, alpha) for score, ids in finished]
    return [score / lp(len(ids) + shift, alpha) for score, ids in finished]


def _pick(finished, alpha, mistake, margin=None):
    """The chosen ids, and whether the choice is clear (no near-tie that rounding could flip)."""
    margin = MARGIN if margin is None else margin
    ranks = _ranking(finished, alpha, mistake)
    best = max(range(len(ranks)), key=ranks.__getitem__)
    rest = [r for i, r in enumerate(ranks) if i != best]
    return finished[best][1], not rest or ranks[best] - max(rest) > margin * (1 + abs(ranks[best]))


class Beams:
    """Beam search of each row of ``src`` done once, correctly and with each mistake that
    changes which hypotheses finish; any length penalty is then applied cheaply.

    A row whose search meets a near-tie (in any of these) is left out: ``rows`` are the
    kept ones, and ``clear`` says whether every row was kept."""

    def __init__(self, model, src, k, max_len, bookkeeping=()):
        # The searches each row is run with: the right one, those of the mistakes that change
        # which hypotheses finish, and the bookkeeping mistakes asked for (only where tested).
        self.rows, self.lists = [], {m: [] for m in (None, "keep_expanding", "probs", *bookkeeping)}
        for b in range(src.size(0)):
            found, prefixes = {}, _Prefixes(model, src[b:b + 1])
            for m in self.lists:
                found[m], clear = _finished(prefixes, k, max_len, m)
                if not clear:
                    break
            else:
                self.rows.append(b)
                for m, f in found.items():
                    self.lists[m].append(f)
        self.clear = len(self.rows) == src.size(0)

    def picks(self, alpha, mistake=None):
        return [_pick(f, alpha, mistake) for f in self.lists[mistake if mistake in self.lists else None]]

    def tokens(self, alpha, mistake=None):
        best = [ids for ids, _ in self.picks(alpha, mistake)]
        out = torch.full((len(best), max(len(h) for h in best)), PAD, dtype=torch.long)
        for b, hypothesis in enumerate(best):
            out[b, :len(hypothesis)] = torch.tensor(hypothesis, dtype=torch.long)
        return out

    def separates(self, alpha, differ, same=(), distinct=False):
        """At ``alpha``: every choice is clear, each mistake in ``differ`` changes some row's
        result (and, if ``distinct``, gives a result no other mistake gives) and none in
        ``same`` changes any."""
        right = self.picks(alpha)
        if not self.rows or not all(clear for _, clear in right):
            return False
        results = [[ids for ids, _ in right]]
        for mistake in (*differ, *same):
            wrong = self.picks(alpha, mistake)
            if not all(clear for _, clear in wrong):
                return False
            ids = [ids for ids, _ in wrong]
            if (ids != results[0]) != (mistake in differ) or (distinct and mistake in differ and ids in results):
                return False
            results.append(ids)
        return True

    def mistakes(self, alpha, which=None):
        known = {**BEAM_MISTAKES, **BOOKKEEPING}
        return [Mistake(*known[m], output=lambda m=m: self.tokens(alpha, m)) for m in which or BEAM_MISTAKES]


BEAM_MISTAKES = {
    "first": ("the search returns the first hypothesis that finished, not the finished hypothesis with the "
              "highest score (keep every finished one and take the max at the end)",
              "la búsqueda devuelve la primera hipótesis terminada, no la terminada de mayor puntuación "
              "(guarda todas las terminadas y toma la máxima al final)"),
    "times_lp": ("the score is multiplied by the length penalty; it must be divided: log P / lp(n)",
                 "la puntuación se multiplica por la penalización de longitud; hay que dividir: log P / lp(n)"),
    "sos_len": ("the length n in lp(n) counts <sos>; it must count the generated tokens only (EOS included)",
                "la longitud n de lp(n) cuenta <sos>; solo debe contar los tokens generados (EOS incluido)"),
    "len_minus": ("the length n in lp(n) misses one token; it must count every generated token, EOS included",
                  "a la longitud n de lp(n) le falta un token; debe contar todos los tokens generados, EOS incluido"),
    "keep_expanding": ("finished hypotheses keep being expanded: a hypothesis that produced EOS must leave the beam",
                       "las hipótesis terminadas se siguen expandiendo: una hipótesis que produjo EOS debe salir del haz"),
    "probs": ("the beam sums probabilities (softmax) instead of log-probabilities (log_softmax)",
              "el haz suma probabilidades (softmax) en lugar de log-probabilidades (log_softmax)"),
    "no_lp": ("the length penalty is ignored: finished hypotheses must be compared by log P / lp(n)",
              "se ignora la penalización de longitud: las hipótesis terminadas se comparan por log P / lp(n)"),
}

# Mistakes in the beam's bookkeeping, which change the hypotheses that finish.
BOOKKEEPING = {
    "shrink": ("the beam shrinks as hypotheses finish (beam_size minus the finished ones): take the beam_size best "
               "candidates at every step, set aside those that end, and go on with the others",
               "el haz se estrecha a medida que terminan hipótesis (beam_size menos las terminadas): toma los "
               "beam_size mejores candidatos en cada paso, aparta los que terminan y sigue con los demás"),
    "twice": ("the search looks at 2 × beam_size candidates and keeps beam_size live ones: take only the beam_size "
              "best candidates of each step, finished or not",
              "la búsqueda mira 2 × beam_size candidatos y mantiene beam_size vivos: toma solo los beam_size mejores "
              "candidatos de cada paso, terminados o no"),
    "eos_dropped": ("a hypothesis that ends with EOS is stored without it: keep the EOS in its ids (and in its "
                    "length n for lp(n))",
                    "una hipótesis que termina en EOS se guarda sin él: conserva el EOS en sus ids (y en su "
                    "longitud n para lp(n))"),
}


@torch.no_grad()
def best_by_brute_force(model, src, max_len, alpha):
    """The highest-scoring output among all of them: log P / ((5 + n) / 6) ** alpha."""
    memory, src_mask = model.encode(src)
    V = model.config.tgt_vocab_size
    full = torch.tensor(list(itertools.product(range(V), repeat=max_len)))  # every output, padded on
    prefixes = torch.cat([torch.full((len(full), 1), SOS), full[:, :-1]], dim=1)
    logp = model.decode(prefixes, memory.expand(len(full), -1, -1), src_mask.expand(len(full), -1, -1, -1))
    summed = logp.log_softmax(-1).gather(-1, full[..., None]).squeeze(-1).cumsum(-1).tolist()
    best, best_score = None, float("-inf")
    for ys, logps in zip(full.tolist(), summed):
        for n in range(1, max_len + 1):
            if EOS in ys[:n - 1]:
                break  # outputs end at their first EOS, or at max_len
            if n < max_len and ys[n - 1] != EOS:
                continue
            score = logps[n - 1] / lp(n, alpha)
            if score > best_score:
                best, best_score = ys[:n], score
    return best


def differs(a, b):
    return a.shape != b.shape or not torch.equal(a, b)


def equal_naming(got, want, what, mistakes, model=None, src=None, greedy=False, alpha=None):
    """checks.equal, naming the mistakes whose tokens the student's equal exactly, or else
    the first step that differs (``steps.first_step``; with the model's view of it, for
    greedy decoding or a beam search of length penalty ``alpha``, when ``model`` and
    ``src`` are given)."""
    try:
        checks.equal(got, want, what)
    except checks.CheckFailure as failure:
        # Several mistakes that give this very output: it is then a common one (the first
        # hypothesis to finish, say), which other mistakes give too; say where it differs.
        found = recognise_all(got, mistakes, lambda a, m: isinstance(a, torch.Tensor) and not differs(a, m),
                              several=False)
        if found:
            raise failure.naming(found) from None
        raise failure.shaped(first_step(got, want, model, src, greedy, alpha), replace=True) from None
