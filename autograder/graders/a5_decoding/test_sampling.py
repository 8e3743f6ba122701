"""Hidden graders for a5_decoding/sampling.py: sharp, and false-failure probability < 1e-6.

Each statistical check draws tens of thousands of tokens in one call and compares their
frequencies with the exact renormalised distribution (``checks.frequencies``, false-failure
probability 1e-7 per check, at most four checks per test). The logits are chosen so that
each classic mistake moves some token's probability well beyond the tolerance.
"""

import pytest
import torch

from autograder.graders.a5_decoding import distributions as dist
from autograder.graders.a5_decoding.distributions import SAMPLE, check_draws, probs_of, separated
from autograder.grading import checks
from autograder.grading.checks import CheckFailure, Mistake

V = 12
N = 40_000
TEMPERATURE = ("t_ignored", "t_twice", "t_times")
TOP_K = ("k_plus", "k_minus", "k_zero", "k_indices", "not_renormalised")


def _logits(rng):
    return torch.randn(V, generator=rng) * 1.5


def _top_p_for(rng, probs_sorted, min_mass=0.08):
    """A p whose nucleus ends on a token of probability >= min_mass, halfway into it,
    so that dropping or adding one token is visible and p sits far from every boundary."""
    before = probs_sorted.cumsum(0) - probs_sorted
    choices = [j for j in range(1, V - 1) if probs_sorted[j] >= min_mass]
    if not choices:
        return None
    j = choices[checks.randint(rng, 0, len(choices) - 1)]
    return float(before[j] + 0.5 * probs_sorted[j])


def _draw(student, rng, logits, **kwargs):
    seed = checks.randint(rng, 0, 2**31)
    return dist.call(student, SAMPLE, logits.expand(N, V).contiguous(), generator_seed=seed, **kwargs)


def _case(rng, n=N, temperature=1.0, top_k=None, nucleus=False, which=(), same=()):
    """Logits (and a top_p when ``nucleus``) where every mistake in ``which`` shows and none
    in ``same`` does (so that each mistake costs the same points at every seed); searched
    once for the submissions graded together (``checks.searched``)."""
    return checks.searched(rng, f"sampling case {n} {temperature} {top_k} {nucleus} {which} {same}",
                           lambda r: _search_case(r, n, temperature, top_k, nucleus, which, same))


def _search_case(rng, n, temperature, top_k, nucleus, which, same):
    while True:
        logits = _logits(rng)
        top_p = None
        if nucleus:
            top_p = _top_p_for(rng, probs_of(logits, temperature, top_k).sort(descending=True).values)
            if top_p is None:
                continue
        if separated(logits, n, temperature, top_k, top_p, which, same):
            return logits, top_p


def _check(student, rng, what, temperature=1.0, top_k=None, nucleus=False, which=(), same=()):
    logits, top_p = _case(rng, N, temperature, top_k, nucleus, which, same)
    kwargs = {k: v for k, v in (("temperature", temperature), ("top_k", top_k), ("top_p", top_p)) if v not in (None, 1.0)}
    probs = probs_of(logits, temperature, top_k, top_p)
    shown = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kwargs.items())
    check_draws(_draw(student, rng, logits, **kwargs), probs,
                f"sample_next_token({shown}){what.format(int((probs > 0).sum()))}",
                dist.mistakes(logits, temperature, top_k, top_p, which))


@pytest.mark.points(2)
def test_temperature(student, rng):
    """Do draws at temperature T follow softmax(logits / T)? / ¿Siguen las muestras a temperatura T a softmax(logits / T)?"""
    for temperature in (0.3 + 0.4 * torch.rand(1, generator=rng).item(), 1.5 + torch.rand(1, generator=rng).item()):
        _check(student, rng, "", temperature=temperature, which=TEMPERATURE)


@pytest.mark.points(2)
def test_top_k(student, rng):
    """Are top-k draws always among the k best, with renormalised frequencies? / ¿Salen siempre entre los k mejores, con frecuencias renormalizadas?"""
    k = checks.randint(rng, 2, 5)
    _check(student, rng, "", top_k=k, which=TOP_K)
    checks.inputs_unchanged(student, SAMPLE, [torch.randn(4, V, generator=rng)], f"sample_next_token(logits, top_k={k})",
                            kwargs={"top_k": k})


@pytest.mark.points(2)
def test_top_p(student, rng):
    """Are top-p draws inside the nucleus (the smallest set reaching p), with renormalised frequencies? / ¿Salen dentro del núcleo, con frecuencias renormalizadas?"""
    _check(student, rng, ", nucleus of {} tokens", nucleus=True, which=("p_crossing", "not_renormalised"))
    checks.inputs_unchanged(student, SAMPLE, [torch.randn(4, V, generator=rng)], "sample_next_token(logits, top_p=0.8)",
                            kwargs={"top_p": 0.8})


@pytest.mark.points(1)
def test_temperature_top_k_and_top_p_together(student, rng):
    """With all three, is it temperature first, then top-k, then top-p? / ¿Con las tres, primero temperatura, luego top-k y luego top-p?"""
    # A temperature far from 1, so that ignoring it (or applying it late) shows.
    temperature, k = 0.4 + 0.2 * torch.rand(1, generator=rng).item(), checks.randint(rng, 5, 8)
    # When the nucleus is smaller than k, an off-by-one top-k cannot show: such mistakes are
    # left to test_top_k, and the inputs keep them invisible here; a nucleus chosen before
    # top-k is left to the next check, which names it.
    _check(student, rng, "", temperature=temperature, top_k=k, nucleus=True,
           which=(*TEMPERATURE, "t_after_p", "p_crossing", "not_renormalised", "not_renormalised_after_k",
                  "k_indices"),
           same=("k_plus", "k_minus", "k_zero", "p_before_k"))
    # At temperature 1 and a small k, top-k removes much of the mass: a nucleus chosen before
    # top-k, from the whole distribution, then keeps other tokens.
    _check(student, rng, "", top_k=checks.randint(rng, 3, 5), nucleus=True, which=("p_before_k",),
           same=("k_plus", "k_minus", "k_zero"))
    checks.inputs_unchanged(student, SAMPLE, [torch.randn(4, V, generator=rng)],
                            f"sample_next_token(logits, temperature={temperature:.3g}, top_k={k}, top_p=0.9)",
                            kwargs={"temperature": temperature, "top_k": k, "top_p": 0.9})


@pytest.mark.points(1)
def test_rows_are_independent(student, rng):
    """Does each row of a batch follow its own logits, and a batch of one give one draw of shape (1,)? / ¿Sigue cada fila del lote sus propios logits, y da un lote de una fila una muestra de forma (1,)?"""
    (a, _), (b, _) = _case(rng, N // 2, top_k=6, which=TOP_K), _case(rng, N // 2, top_k=6, which=TOP_K)
    # b lowered by 20 (its probabilities are the same): one threshold for the whole batch, taken
    # from b's row or from the smallest of all, then keeps every token of a's rows.
    b = b - 20
    logits = torch.stack([a, b]).repeat(N // 2, 1)  # rows alternate a, b
    draws = checks.tensor(dist.call(student, SAMPLE, logits, top_k=6, generator_seed=checks.randint(rng, 0, 2**31)),
                          "sample_next_token(...)", shape=(N,), dtype=torch.int64)
    for name, row, part in (("even rows", a, draws[0::2]), ("odd rows", b, draws[1::2])):
        check_draws(part, probs_of(row, top_k=6), f"sample_next_token(top_k=6), {name}",
                    dist.mistakes(row, top_k=6, which=TOP_K) + [_first_rows_threshold(a, row),
                                                                 _first_rows_threshold(b, row, smallest=True)])
    # .squeeze() instead of .squeeze(-1) passes every batch but a batch of one (a 0-d tensor).
    checks.tensor(dist.call(student, SAMPLE, a[None], top_k=6, generator_seed=checks.randint(rng, 0, 2**31)),
                  "sample_next_token(logits of shape (1, 12), top_k=6)", shape=(1,), dtype=torch.int64)
    # A batch no larger than k (and k below the vocabulary): top-k still applies. Half of
    # each row's tokens sit just below its k best, so every draw outside them has even odds.
    k = 24
    logits = torch.cat([torch.zeros(k, k), torch.full((k, k), -1e-3)], dim=1)
    logits = logits.gather(1, torch.stack([torch.randperm(2 * k, generator=rng) for _ in range(k)]))
    draws = checks.tensor(dist.call(student, SAMPLE, logits, top_k=k, generator_seed=checks.randint(rng, 0, 2**31)),
                          f"sample_next_token(logits of shape ({k}, {2 * k}), top_k={k})", shape=(k,), dtype=torch.int64)
    outside = logits.gather(1, draws.clamp(0, 2 * k - 1)[:, None]).squeeze(1) < 0
    try:
        checks.expect(not bool(outside.any()),
                      f"sample_next_token(logits of shape ({k}, {2 * k}), top_k={k}): {int(outside.sum())} of {k} "
                      f"draws are outside their row's {k} best tokens",
                      f"sample_next_token(logits de forma ({k}, {2 * k}), top_k={k}): {int(outside.sum())} de {k} "
                      f"muestras quedan fuera de los {k} mejores tokens de su fila")
    except CheckFailure as failure:
        raise failure.naming(TOP_K_GUARD) from None


TOP_K_GUARD = Mistake(
    "top-k is skipped when top_k is not below the batch size: compare top_k with the vocabulary size, "
    "logits.size(-1), not logits.size(0)",
    "top-k se omite cuando top_k no es menor que el tamaño del lote: compara top_k con el tamaño del vocabulario, "
    "logits.size(-1), no logits.size(0)")


def _first_rows_threshold(first, row, k=6, smallest=False):
    """The mistake of one top-k threshold for the whole batch: the first row's k-th largest
    logit, or (``smallest``) the smallest of the rows' k-th largest, which here is ``first``'s."""
    def probs():
        kept = row.double().masked_fill(row < first.topk(k).values[-1], float("-inf"))
        return kept.softmax(-1) if bool(torch.isfinite(kept).any()) else torch.zeros(row.numel(), dtype=torch.float64)
    which = ("the smallest k-th largest logit of all rows, .values.min()" if smallest
             else "the first row's k-th largest logit")
    cual = ("el menor k-ésimo mayor logit de todas las filas, .values.min()" if smallest
            else "el k-ésimo mayor logit de la primera fila")
    return Mistake(f"one top-k threshold for the whole batch ({which}): take each row's own, "
                   "logits.topk(k, dim=-1).values[:, -1:] of shape (B, 1)",
                   f"un solo umbral de top-k para todo el lote ({cual}): toma el de cada fila, "
                   "logits.topk(k, dim=-1).values[:, -1:] de forma (B, 1)", output=probs)


@pytest.mark.points(1)
def test_generator_makes_draws_reproducible(student, rng):
    """Does the same generator seed give the same draws, and another seed other draws? / ¿La misma semilla da las mismas muestras, y otra semilla otras?"""
    logits = torch.randn(500, V, generator=rng)
    seed = checks.randint(rng, 0, 2**30)
    first = checks.tensor(dist.call(student, SAMPLE, logits, generator_seed=seed), "draws", shape=(500,))
    again = checks.tensor(student.call(SAMPLE, logits, generator_seed=seed), "draws", shape=(500,))
    other = checks.tensor(student.call(SAMPLE, logits, generator_seed=seed + 1), "draws", shape=(500,))
    try:
        checks.equal(again, first, "draws with the same generator seed")
        checks.expect(not torch.equal(first, other), "draws with a different generator seed should differ",
                      "con otra semilla las muestras deberían cambiar")
    except CheckFailure as failure:
        raise failure.naming(dist.ARGMAX if dist.always_argmax(first, logits) else dist.GENERATOR) from None


@pytest.mark.points(1)
def test_greedy_limits(student, rng):
    """Do temperature=0 (also with top_k or top_p), top_k=1 and a tiny temperature all give the argmax? / ¿Dan el argmax temperature=0 (también con top_k o top_p), top_k=1 y una temperatura diminuta?"""
    logits = torch.randn(4096, V, generator=rng)
    logits[torch.arange(4096), logits.argmax(-1)] += 0.5  # a clear winner per row
    argmax = logits.argmax(-1)
    for kwargs in ({"temperature": 0.0}, {"top_k": 1}, {"temperature": 1e-3},
                   {"temperature": 0.0, "top_k": checks.randint(rng, 2, V - 1)}, {"temperature": 0.0, "top_p": 0.9}):
        t = kwargs.get("temperature")
        filtered_greedy = t == 0 and len(kwargs) > 1
        try:  # a crash at temperature 0 with a filter: the division by 0 the greedy shortcut avoids
            got = dist.call(student, SAMPLE, logits, generator_seed=1, **kwargs)
        except CheckFailure as failure:
            raise (failure.naming(GREEDY_WITH_FILTER) if filtered_greedy and not failure.named else failure) from None
        try:
            checks.equal(got, argmax, f"sample_next_token({', '.join(f'{k}={v}' for k, v in kwargs.items())})")
        except CheckFailure as failure:
            found = GREEDY_WITH_FILTER if filtered_greedy else None
            if t:  # which temperature mistake makes draws hit the argmax as often as these do
                rows = [Mistake(*dist.MISTAKES[m], output=lambda m=m: torch.stack(
                    [probs_of(row, t, mistake=m) for row in logits])) for m in ("t_ignored", "t_times")]
                found = checks.recognise(got, rows, lambda d, p: _hits_like(d, p, argmax))
                # How often the argmax comes is one number, which other mistakes share (a sampler
                # that draws every token alike hits it as rarely as logits * T does): the mistake
                # is named only when draws at another temperature follow its distribution too.
                if found and not _confirmed(student, found):
                    found = None
            raise (failure.naming(found) if found else failure) from None


CONFIRM_LOGITS = torch.linspace(-2.0, 2.0, V, dtype=torch.float64)  # distinct, far from uniform
CONFIRM_T = 2.0  # where softmax(logits), softmax(logits * T) and softmax(logits / T) are far apart


def _confirmed(student, found: Mistake) -> bool:
    """Whether draws at temperature CONFIRM_T follow the distribution of the temperature
    mistake ``found`` names (one of dist.MISTAKES), on logits where it stands apart."""
    which = next(m for m in ("t_ignored", "t_times") if dist.MISTAKES[m][0] == found.en)
    try:
        draws = student.call(SAMPLE, CONFIRM_LOGITS.expand(20_000, V).contiguous(), generator_seed=3,
                             temperature=CONFIRM_T)
        return dist.follows(draws, probs_of(CONFIRM_LOGITS, CONFIRM_T, mistake=which))
    except CheckFailure:
        return False


GREEDY_WITH_FILTER = Mistake(
    "temperature=0 is greedy only without top_k or top_p: return the argmax for temperature 0 whatever the filters "
    "(they cannot change which token is the most likely)",
    "temperature=0 solo es voraz sin top_k ni top_p: devuelve el argmax con temperatura 0 tengan los filtros lo que "
    "tengan (no pueden cambiar cuál es el token más probable)")


def _hits_like(draws, probs, argmax):
    """Draws (n,) hit each row's argmax about as often as rows ``probs`` (n, V) predict."""
    n = probs.size(0)
    hits = (checks.tensor(draws, "draws", shape=(n,)) == argmax).double().mean().item()
    return abs(hits - probs[torch.arange(n), argmax].mean().item()) <= dist.tolerance(n, 1)


@pytest.mark.points(1)
def test_invalid_arguments(student, rng):
    """Do temperature < 0, top_k < 1 and top_p outside (0, 1] raise ValueError saying what is allowed (also at temperature 0), while top_p=1 and top_k > V are accepted, top_k > V keeping every token? / ¿Lanzan ValueError explicando qué se permite (también a temperatura 0), y se aceptan top_p=1 y top_k > V, que conserva todos los tokens?"""
    logits = torch.randn(2, V, generator=rng)
    for name, value in (("top_p", 1.0), ("top_k", V + checks.randint(rng, 1, 5))):
        error = student.error_of(SAMPLE, logits, **{name: value})
        if error is not None:
            failure = CheckFailure(
                f"sample_next_token({name}={value}) with {V} tokens must work (it keeps every token), got "
                f"{error['type']}: {error['shown']}",
                f"sample_next_token({name}={value}) con {V} tokens debe funcionar (conserva todos los tokens)",
            )
            # The argument is to blame only when a plain call on the same logits works: a
            # sampler that fails on every call fails here too, whatever it does with top_k.
            if student.error_of(SAMPLE, logits) is not None:
                raise failure
            raise failure.naming(Mistake(
                f"{name}={value} is refused or crashes, though it is allowed and filters nothing: check the allowed "
                "range (top_p in (0, 1], top_k >= 1) and apply top-k only when top_k < V",
                f"{name}={value} se rechaza o falla, aunque está permitido y no filtra nada: revisa el rango "
                "permitido (top_p en (0, 1], top_k >= 1) y aplica top-k solo cuando top_k < V"))
    # top_k above V filters nothing: over 4096 rows of distinct logits every token is drawn
    # (the least likely, at 4.5 %, is missed with probability 0.955^4096, about 1e-82).
    k = V + checks.randint(rng, 1, 5)
    ramp = (0.1 * torch.arange(V, dtype=torch.float32)).expand(4096, V).contiguous()
    drawn = set(checks.tensor(dist.call(student, SAMPLE, ramp, generator_seed=2, top_k=k),
                              f"sample_next_token(top_k={k})", shape=(4096,)).tolist())
    if drawn != set(range(V)):
        missed = sorted(set(range(V)) - drawn)
        raise CheckFailure(
            f"sample_next_token(top_k={k}) with {V} tokens must keep every token; over 4096 rows of logits 0, 0.1, "
            f"0.2, ... (one per token), token(s) {missed} were never drawn",
            f"sample_next_token(top_k={k}) con {V} tokens debe conservar todos los tokens; en 4096 filas de logits "
            f"0; 0,1; 0,2; ... (uno por token), el/los token(s) {missed} no salieron nunca",
        ).naming(Mistake(
            f"top_k={k} above the vocabulary size ({V}) drops tokens: it must filter nothing; apply top-k only when "
            "top_k < V, without clamping it below V",
            f"top_k={k}, mayor que el tamaño del vocabulario ({V}), quita tokens: no debe filtrar nada; aplica top-k "
            "solo cuando top_k < V, sin recortarlo por debajo de V"))
    for name, value in (("temperature", -0.5), ("top_k", 0), ("top_p", 0.0), ("top_p", 1.2)):
        error = student.error_of(SAMPLE, logits, **{name: value})
        try:
            checks.expect(
                error is not None and error["type"] == "ValueError" and name in error["message"],
                f"sample_next_token({name}={value}) should raise ValueError naming {name}, got "
                f"{error['type'] + ': ' + error['shown'] if error else 'no error'}",
                f"sample_next_token({name}={value}) debería lanzar ValueError nombrando {name}",
            )
        except CheckFailure as failure:
            raise failure.naming(checks.unrefused(name, value, ALLOWED[name], error)) from None
    # The checks come first: temperature 0 (greedy) must not let an invalid value through.
    for name, value in (("top_p", 1.5), ("top_k", 0)):
        error = student.error_of(SAMPLE, logits, temperature=0.0, **{name: value})
        if error is None or error["type"] != "ValueError":
            raise CheckFailure(
                f"sample_next_token(temperature=0, {name}={value}) should raise ValueError naming {name}, got "
                f"{error['type'] + ': ' + error['shown'] if error else 'no error'}",
                f"sample_next_token(temperature=0, {name}={value}) debería lanzar ValueError nombrando {name}",
            ).naming(Mistake(
                f"the arguments are checked only after the greedy shortcut: with temperature=0, {name}={value} is "
                "accepted; check temperature, top_k and top_p first, then return the argmax for temperature 0",
                f"los argumentos se comprueban solo tras el atajo voraz: con temperature=0 se acepta {name}={value}; "
                "comprueba primero temperature, top_k y top_p, y luego devuelve el argmax para temperatura 0"))


ALLOWED = {"temperature": "temperature >= 0", "top_k": "top_k >= 1", "top_p": "0 < top_p <= 1"}

