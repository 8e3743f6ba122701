"""Hidden graders for a5_decoding/sampling.py: sharp, and false-failure probability < 1e-6.

Each statistical check draws tens of thousands of tokens in one call and compares their
frequencies with the exact renormalised distribution (``checks.frequencies``, false-failure
probability 1e-7 per check, at most four checks per test). The logits are chosen so that
each classic mistake moves some token's probability well beyond the tolerance.
"""

import pytest
import torch

from autograder import checks

SAMPLE = "sampling.sample_next_token"
V = 12
N = 40_000


def expected_probs(logits, temperature=1.0, top_k=None, top_p=None):
    """The distribution sample_next_token must draw from, in float64 (one row)."""
    logits = logits.double() / temperature
    order = logits.argsort(descending=True)
    keep = torch.zeros(V, dtype=torch.bool)
    keep[order[: top_k or V]] = True
    probs = torch.where(keep, logits, torch.tensor(float("-inf"), dtype=torch.float64)).softmax(-1)
    if top_p is not None:
        sorted_probs = probs[order]
        before = sorted_probs.cumsum(0) - sorted_probs
        keep[order[before >= top_p]] = False
        probs = torch.where(keep, probs, torch.zeros((), dtype=torch.float64))
        probs = probs / probs.sum()
    return probs, keep


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
    return student.call(SAMPLE, logits.expand(N, V).contiguous(), generator_seed=seed, **kwargs)


def _nucleus_case(rng, temperature=1.0, top_k=None):
    """Logits and a top_p that make an off-by-one nucleus visible."""
    while True:
        logits = _logits(rng)
        probs, _ = expected_probs(logits, temperature, top_k)
        top_p = _top_p_for(rng, probs.sort(descending=True).values)
        if top_p is not None:
            return logits, top_p


@pytest.mark.points(2)
def test_temperature(student, rng):
    """Do draws at temperature T follow softmax(logits / T)? / ¿Siguen las muestras a temperatura T a softmax(logits / T)?"""
    for temperature in (0.3 + 0.4 * torch.rand(1, generator=rng).item(), 1.5 + torch.rand(1, generator=rng).item()):
        logits = _logits(rng)
        probs, _ = expected_probs(logits, temperature)
        checks.frequencies(_draw(student, rng, logits, temperature=temperature), probs,
                           f"sample_next_token(temperature={temperature:.3f})")


@pytest.mark.points(2)
def test_top_k(student, rng):
    """Are top-k draws always among the k best, with renormalised frequencies? / ¿Salen siempre entre los k mejores, con frecuencias renormalizadas?"""
    logits, k = _logits(rng), checks.randint(rng, 2, 5)
    probs, keep = expected_probs(logits, top_k=k)
    draws = _draw(student, rng, logits, top_k=k)
    checks.support(draws, keep.expand(N, V), f"sample_next_token(top_k={k})")
    checks.frequencies(draws, probs, f"sample_next_token(top_k={k})")


@pytest.mark.points(2)
def test_top_p(student, rng):
    """Are top-p draws inside the nucleus (the smallest set reaching p), with renormalised frequencies? / ¿Salen dentro del núcleo, con frecuencias renormalizadas?"""
    logits, top_p = _nucleus_case(rng)
    probs, keep = expected_probs(logits, top_p=top_p)
    draws = _draw(student, rng, logits, top_p=top_p)
    what = f"sample_next_token(top_p={top_p:.4f}), nucleus of {int(keep.sum())} tokens"
    checks.support(draws, keep.expand(N, V), what)
    checks.frequencies(draws, probs, what)


@pytest.mark.points(1)
def test_temperature_top_k_and_top_p_together(student, rng):
    """With all three, is it temperature first, then top-k, then top-p? / ¿Con las tres, primero temperatura, luego top-k y luego top-p?"""
    # A temperature far from 1, so that ignoring it (or applying it late) shows.
    temperature, k = 0.4 + 0.2 * torch.rand(1, generator=rng).item(), checks.randint(rng, 5, 8)
    logits, top_p = _nucleus_case(rng, temperature, k)
    probs, keep = expected_probs(logits, temperature, k, top_p)
    draws = _draw(student, rng, logits, temperature=temperature, top_k=k, top_p=top_p)
    what = f"sample_next_token(temperature={temperature:.3f}, top_k={k}, top_p={top_p:.4f})"
    checks.support(draws, keep.expand(N, V), what)
    checks.frequencies(draws, probs, what)


@pytest.mark.points(1)
def test_rows_are_independent(student, rng):
    """Does each row of a batch follow its own logits? / ¿Sigue cada fila del lote sus propios logits?"""
    a, b = _logits(rng), _logits(rng)
    logits = torch.stack([a, b]).repeat(N // 2, 1)  # rows alternate a, b
    draws = checks.tensor(student.call(SAMPLE, logits, top_k=6, generator_seed=checks.randint(rng, 0, 2**31)),
                          "sample_next_token(...)", shape=(N,))
    for name, row, part in (("even rows", a, draws[0::2]), ("odd rows", b, draws[1::2])):
        probs, keep = expected_probs(row, top_k=6)
        checks.support(part, keep.expand(N // 2, V), f"sample_next_token(top_k=6), {name}")
        checks.frequencies(part, probs, f"sample_next_token(top_k=6), {name}")


@pytest.mark.points(1)
def test_generator_makes_draws_reproducible(student, rng):
    """Does the same generator seed give the same draws, and another seed other draws? / ¿La misma semilla da las mismas muestras, y otra semilla otras?"""
    logits = torch.randn(500, V, generator=rng)
    seed = checks.randint(rng, 0, 2**30)
    first = checks.tensor(student.call(SAMPLE, logits, generator_seed=seed), "draws", shape=(500,))
    again = checks.tensor(student.call(SAMPLE, logits, generator_seed=seed), "draws", shape=(500,))
    other = checks.tensor(student.call(SAMPLE, logits, generator_seed=seed + 1), "draws", shape=(500,))
    checks.equal(again, first, "draws with the same generator seed")
    checks.expect(not torch.equal(first, other),
                  "draws with a different generator seed should differ: pass generator= to torch.multinomial",
                  "con otra semilla las muestras deberían cambiar: pasa generator= a torch.multinomial")


@pytest.mark.points(1)
def test_greedy_limits(student, rng):
    """Do temperature=0, top_k=1 and a tiny temperature all give the argmax? / ¿Dan el argmax temperature=0, top_k=1 y una temperatura diminuta?"""
    logits = torch.randn(64, V, generator=rng)
    logits[torch.arange(64), logits.argmax(-1)] += 0.5  # a clear winner per row
    argmax = logits.argmax(-1)
    for kwargs in ({"temperature": 0.0}, {"top_k": 1}, {"temperature": 1e-3}):
        checks.equal(student.call(SAMPLE, logits, generator_seed=1, **kwargs), argmax,
                     f"sample_next_token({', '.join(f'{k}={v}' for k, v in kwargs.items())})")


@pytest.mark.points(1)
def test_invalid_arguments(student, rng):
    """Do temperature < 0, top_k < 1 and top_p outside (0, 1] raise ValueError saying what is allowed? / ¿Lanzan ValueError explicando qué se permite?"""
    logits = torch.randn(2, V, generator=rng)
    for name, value in (("temperature", -0.5), ("top_k", 0), ("top_p", 0.0), ("top_p", 1.2)):
        error = student.error_of(SAMPLE, logits, **{name: value})
        checks.expect(
            error is not None and error["type"] == "ValueError" and name in error["message"],
            f"sample_next_token({name}={value}) should raise ValueError naming {name}, got "
            f"{error['type'] + ': ' + error['shown'] if error else 'no error'}",
            f"sample_next_token({name}={value}) debería lanzar ValueError nombrando {name}",
        )
