"""Hidden graders for a5_decoding/decoding.py and beam.py.

The model is the reference Transformer with random weights, built in the student's
process from the configuration and weights sent here; the expected tokens come from plain
(uncached) decoding of the same model in this process (``decoders.py``). Each test redraws
its inputs until every classic mistake it aims at changes the result, and the mistakes it
does not aim at leave it unchanged: so each mistake costs the same points at every seed,
and a failed check names the mistake whose output the student's matches.
"""

import pytest
import torch

from autograder import reference
from autograder.graders.a5_decoding import distributions as dist
from autograder.graders.a5_decoding.decoders import (
    BEAM_MISTAKES,
    BOOKKEEPING,
    EOS,
    PAD,
    SOS,
    Beams,
    best_by_brute_force,
    differs,
    equal_naming,
    greedy,
    greedy_mistakes,
    model_and_spec,
    source,
)
from autograder.grading import checks
from autograder.grading.checks import CheckFailure

ALPHAS = [round(0.1 * i, 1) for i in range(1, 21)]  # length penalties a test may pick from

NOT_PADDED = checks.Mistake(
    "a finished row goes on generating: once a row has emitted EOS, every later token of it must be pad_id "
    "(torch.where(finished, pad_id, next_token))",
    "una fila terminada sigue generando: cuando una fila ha emitido EOS, todos sus tokens posteriores deben ser "
    "pad_id (torch.where(terminadas, pad_id, siguiente))")
STOPS_LATE = checks.Mistake(
    "the loop goes on after every row has emitted EOS: stop (break) as soon as all rows are finished, not at max_len",
    "el bucle sigue cuando todas las filas ya han emitido EOS: para (break) en cuanto todas terminen, no en max_len")


def _greedy_case(rng, B, max_len, eos_bias, all_finish=False):
    """A model and sources whose rows finish at different steps, so that stopping at the
    first finished row, or not padding finished rows, changes the tokens; with
    ``all_finish``, every row ends with EOS before max_len, so that the step where the last
    row finishes is the loop's last and its EOS must still be kept. The search is shared by
    the submissions graded together (``checks.searched``): ``max_len`` and ``eos_bias``
    draw from ``rng`` alone."""
    return checks.searched(rng, f"greedy case {B} {all_finish}",
                           lambda r: _search_greedy_case(r, B, max_len, eos_bias, all_finish))


def _search_greedy_case(rng, B, max_len, eos_bias, all_finish):
    while True:
        model, spec = model_and_spec(rng, eos_bias=eos_bias(), sharpness=2.0)
        src, n, gap = source(rng, B), max_len(), []
        want = greedy(model, src, n, gap=gap)
        if min(gap) <= 1e-3 or (all_finish and not bool((want == EOS).any(dim=1).all())):
            continue
        outputs = [m.output() for m in greedy_mistakes(model, src, n)]
        # Each mistake gives its own tokens, so that the one named is the one made.
        if all(differs(o, want) and all(differs(o, other) for other in outputs[:i])
                                   for i, o in enumerate(outputs)):
            return model, spec, src, n, want


@pytest.mark.points(2)
def test_greedy_decode(student, rng):
    """Does batched greedy decoding stop each row at EOS, pad it, and match plain decoding? / ¿Para cada fila en EOS, la rellena y coincide con la decodificación simple?"""
    model, spec, src, max_len, want = _greedy_case(rng, checks.randint(rng, 3, 6), lambda: checks.randint(rng, 4, 12),
                                                   lambda: 1.0 + 2 * torch.rand(1, generator=rng).item(), all_finish=True)
    got = student.call("decoding.greedy_decode", src, max_len, SOS, EOS, PAD, model_spec=spec)
    equal_naming(got, want, f"greedy_decode(src {tuple(src.shape)}, max_len={max_len}) tokens",
                 greedy_mistakes(model, src, max_len), model, src, greedy=True)
    for target in ("decoding.greedy_decode", "decoding.sample_decode"):
        source_unchanged(student, spec, target, src, [max_len, SOS, EOS, PAD])


def source_unchanged(student, spec, target, src, args, kwargs=None):
    """``target(model, src, *args)`` leaves the caller's source as it was: a copy is sent and
    comes back after the call."""
    after = student.script([["src", "torch.clone", [src], {}],
                            ["out", target, [{"$": "model"}, {"$": "src"}, *args], dict(kwargs or {})]],
                           model_spec=spec, returns=["src"])["src"]
    if not (isinstance(after, torch.Tensor) and after.shape == src.shape and torch.equal(after, src)):
        name = target.rpartition(".")[2]
        raise CheckFailure(f"{name}(model, src, ...) changed the caller's src in place",
                           f"{name}(model, src, ...) cambió in situ el src de quien llama").naming(checks.IN_PLACE_ON_INPUT)


def _after_eos(tokens):
    """True at the positions after each row's first EOS."""
    return (tokens == EOS).long().cumsum(1) - (tokens == EOS).long() > 0


EOS_FORCED = checks.Mistake(
    "eos_id is forced at the last step (at max_len = 1 that is every token): the last step keeps the token it "
    "chose; a row cut at max_len simply ends there, without EOS",
    "se fuerza eos_id en el último paso (con max_len = 1, en todos los tokens): el último paso conserva el token "
    "elegido; una fila cortada en max_len termina ahí, sin EOS")
PAD_DEFAULT = checks.Mistake(
    "finished rows are filled with 0 (a default) instead of the pad_id argument: pass pad_id on and fill with it",
    "las filas terminadas se rellenan con 0 (un valor por defecto) en lugar del argumento pad_id: pásalo y rellena "
    "con él")


@pytest.mark.points(1)
def test_padding_uses_the_given_pad_id(student, rng):
    """Do greedy decoding and beam search fill finished rows with the pad_id they are given, not 0? / ¿Rellenan la decodificación voraz y la búsqueda en haz las filas terminadas con el pad_id que reciben, no con 0?"""
    decoding, beam = reference.load("decoding"), reference.load("beam")

    while True:  # until both outputs hold padding, so that the pad id shows in each
        model, spec, src, max_len, _ = _greedy_case(rng, checks.randint(rng, 3, 6),
                                                    lambda: checks.randint(rng, 4, 12),
                                                    lambda: 1.0 + 2 * torch.rand(1, generator=rng).item())
        pad = checks.randint(rng, 4, model.generator.out_features - 1)
        k = checks.randint(rng, 2, 3)
        with torch.no_grad():
            cases = [("decoding.greedy_decode", [src, max_len, SOS, EOS, pad],
                      decoding.greedy_decode(model, src, max_len, SOS, EOS, pad), "greedy_decode"),
                     ("beam.beam_search", [src, k, max_len, SOS, EOS, pad],
                      beam.beam_search(model, src, k, max_len, SOS, EOS, pad), f"beam_search(beam_size={k})")]
        if all(bool(_after_eos(want).any()) for _, _, want, _ in cases):
            break
    for target, args, want, name in cases:
        # Only the padding is judged here (the tokens are other tests' business), so that a
        # mistake elsewhere in the search loses these points at no seed.
        got = checks.tensor(student.call(target, *args, model_spec=spec), f"{name} tokens")
        if got.dim() != 2 or not bool(_after_eos(got).any()):
            continue
        padding = got[_after_eos(got)]
        if not bool((padding == pad).all()):
            failure = checks.CheckFailure(
                f"{name}(src {tuple(src.shape)}, max_len={max_len}, pad_id={pad}): after a row's EOS every token "
                f"must be pad_id={pad}, got {sorted(set(padding.tolist()))[:6]}",
                f"{name}(src {tuple(src.shape)}, max_len={max_len}, pad_id={pad}): tras el EOS de una fila cada "
                f"token debe ser pad_id={pad}, se obtuvo {sorted(set(padding.tolist()))[:6]}")
            raise failure.naming(PAD_DEFAULT) if bool((padding == 0).all()) else failure


@pytest.mark.points(1)
def test_greedy_respects_max_len(student, rng):
    """When EOS never comes, is the output exactly max_len tokens long? / ¿Si nunca llega EOS, mide la salida exactamente max_len?"""
    model, spec = model_and_spec(rng, eos_bias=-30.0)
    src, max_len = source(rng, checks.randint(rng, 3, 6)), checks.randint(rng, 3, 12)
    got = student.call("decoding.greedy_decode", src, max_len, SOS, EOS, PAD, model_spec=spec)
    equal_naming(got, greedy(model, src, max_len), f"greedy_decode(src {tuple(src.shape)}, max_len={max_len}) tokens",
                 [], model, src, greedy=True)


def _first_token_case(rng, n):
    """A model, one source sentence and a temperature far from 1 at which each temperature
    mistake moves the distribution of the first generated token beyond the tolerance."""
    while True:
        model, spec = model_and_spec(rng, sharpness=2.0)
        src = source(rng, 1, S=2)  # a short sentence: the n copies are encoded, at a cost in S
        temperature = (0.4 + 0.3 * torch.rand(1, generator=rng).item(), 1.6 + torch.rand(1, generator=rng).item())[
            checks.randint(rng, 0, 1)]
        with torch.no_grad():
            memory, src_mask = model.encode(src)
            logits = model.decode(torch.tensor([[SOS]]), memory, src_mask)[0, -1]
        if dist.separated(logits, n, temperature, which=("t_ignored", "t_twice", "t_times")):
            return spec, src.expand(n, -1).contiguous(), temperature, logits


@pytest.mark.points(1)
def test_sample_decode(student, rng):
    """Is sample_decode reproducible under a seed, greedy with top_k=1, padded after EOS, and at temperature T? / ¿Es sample_decode reproducible, voraz con top_k=1, rellenado tras EOS y a temperatura T?"""
    model, spec, src, max_len, greedy_out = _greedy_case(rng, 8, lambda: 10, lambda: 1.0 + torch.rand(1, generator=rng).item())
    top1 = student.call("decoding.sample_decode", src, max_len, SOS, EOS, PAD, top_k=1, model_spec=spec, generator_seed=5)
    equal_naming(top1, greedy_out, "sample_decode(..., top_k=1) tokens (must equal greedy)",
                 greedy_mistakes(model, src, max_len), model, src, greedy=True)
    seed = checks.randint(rng, 0, 2**30)
    a = checks.tensor(dist.call(student, "decoding.sample_decode", src, max_len, SOS, EOS, PAD, model_spec=spec,
                                generator_seed=seed), "sample_decode(...)")
    b = student.call("decoding.sample_decode", src, max_len, SOS, EOS, PAD, model_spec=spec, generator_seed=seed)
    try:
        checks.equal(b, a, "sample_decode(...) twice with the same generator seed")
    except CheckFailure as failure:
        raise failure.naming(dist.GENERATOR) from None
    checks.expect(a.dim() == 2 and a.size(0) == 8 and 1 <= a.size(1) <= max_len,
                  f"sample_decode output must be (8, L) with L <= {max_len}, got {tuple(a.shape)}",
                  f"la salida de sample_decode debe ser (8, L) con L <= {max_len}, es {tuple(a.shape)}")
    after_eos = _after_eos(a)
    if not bool((a[after_eos] == PAD).all()):
        raise checks.CheckFailure("every token after a row's EOS must be pad_id",
                                  "todo token tras el EOS de una fila debe ser pad_id").naming(NOT_PADDED)
    # All rows finished before the last column means one step too many (a 1-column output
    # whose rows all end at once is fine).
    finished = (a == EOS).cumsum(1) > 0
    if a.size(1) > 1 and bool(finished[:, -2].all()):
        raise checks.CheckFailure("decoding must stop as soon as every row has finished",
                                  "la decodificación debe parar en cuanto terminan todas las filas").naming(STOPS_LATE)
    # The temperature: the first token of many copies of one sentence follows softmax(logits / T).
    n = 20_000
    spec, many, temperature, logits = _first_token_case(rng, n)
    out = checks.tensor(dist.call(student, "decoding.sample_decode", many, 1, SOS, EOS, PAD, temperature=temperature,
                                  model_spec=spec, generator_seed=checks.randint(rng, 0, 2**30)),
                        f"sample_decode(src {tuple(many.shape)}, max_len=1, temperature={temperature:.3f})", shape=(n, 1))
    if bool((out[:, 0] == EOS).all()) and float(dist.probs_of(logits, temperature)[EOS]) < 0.5:
        raise CheckFailure(
            f"sample_decode(max_len=1, temperature={temperature:.3f}): all {n} rows give eos_id, where the first token "
            "is drawn from softmax(logits / temperature)",
            f"sample_decode(max_len=1, temperature={temperature:.3f}): las {n} filas dan eos_id, donde el primer token "
            "se extrae de softmax(logits / temperature)").naming(EOS_FORCED)
    dist.check_draws(out[:, 0], dist.probs_of(logits, temperature),
                     f"sample_decode(temperature={temperature:.3f}) first tokens of {n} copies of one sentence",
                     dist.mistakes(logits, temperature, which=("t_ignored", "t_twice", "t_times")))


@pytest.mark.points(1)
def test_beam_of_one_is_greedy(student, rng):
    """Does beam_search with beam_size=1 return exactly the greedy tokens? / ¿Devuelve beam_search con beam_size=1 exactamente lo voraz?"""
    while True:  # a hypothesis that went on after its EOS must not win here (the beam tests catch that)
        model, spec = model_and_spec(rng, eos_bias=2.5)
        src, max_len = source(rng, 4), 8
        want, beams = greedy(model, src, max_len), Beams(model, src, 1, max_len, ("twice", "shrink"))
        if beams.clear and not differs(beams.tokens(0.6), want) and beams.separates(0.6, (), (*BEAM_MISTAKES, "twice", "shrink")):
            break
    got = student.call("beam.beam_search", src, 1, max_len, SOS, EOS, PAD, 0.6, model_spec=spec)
    equal_naming(got, want, "beam_search(beam_size=1) tokens", [], model, src, greedy=True)
    source_unchanged(student, spec, "beam.beam_search", src, [2, max_len, SOS, EOS, PAD, 0.6])


def _alpha(rng, beams, differ, same=(), longer_than=0, distinct=False):
    """A length penalty at which the mistakes in ``differ`` change the result (each in its
    own way, if ``distinct``) and those in ``same`` do not, or None."""
    good = [a for a in ALPHAS if beams.separates(a, differ, same, distinct) and beams.tokens(a).size(1) > longer_than]
    return good[checks.randint(rng, 0, len(good) - 1)] if good else None


WIDE_DIFFER = ("first", "times_lp", "no_lp")


@pytest.mark.points(2)
def test_wide_beam_finds_the_best_output(student, rng):
    """With a beam as wide as the whole search space, is the result the best-scoring output? / ¿Con un haz que cubre todo, el resultado es la mejor salida?"""
    max_len = 3
    while True:  # the best output is several tokens long and depends on the length penalty
        model, spec = model_and_spec(rng, tgt_vocab=5, eos_bias=1.0)
        src = source(rng, 1)
        beams = Beams(model, src, 5 ** max_len, max_len)
        if not beams.clear:
            continue
        alpha = _alpha(rng, beams, WIDE_DIFFER, tuple(m for m in BEAM_MISTAKES if m not in WIDE_DIFFER), longer_than=1)
        if alpha is not None:
            break
    want = torch.tensor(best_by_brute_force(model, src, max_len, alpha))
    got = student.call("beam.beam_search", src, 5 ** max_len, max_len, SOS, EOS, PAD, alpha, model_spec=spec)
    equal_naming(got, want[None], f"beam_search with a full-width beam (length_penalty={alpha})",
                 beams.mistakes(alpha, WIDE_DIFFER), model, src, alpha=alpha)


def _beam_case(rng, n, bookkeeping=()):
    """``n`` sentences, the near-ties left out, on which every scoring mistake changes the
    result of some sentence, each in its own way; or, with ``bookkeeping``, on which each of
    those bookkeeping mistakes (a beam that shrinks, one that looks at twice the candidates,
    hypotheses stored without their EOS) changes some result."""
    max_len = 8
    while True:
        model, spec = model_and_spec(rng, tgt_vocab=6, eos_bias=2.0, sharpness=2.0)
        src, k = source(rng, n), checks.randint(rng, 2, 4)
        beams = Beams(model, src, k, max_len, bookkeeping)
        if len(beams.rows) < 4:
            continue
        alpha = (_alpha(rng, beams, bookkeeping) if bookkeeping
                 else _alpha(rng, beams, tuple(BEAM_MISTAKES), distinct=True))
        if alpha is not None:
            return model, spec, src[beams.rows], k, max_len, beams, alpha


@pytest.mark.points(1)
def test_batched_beam_equals_one_by_one(student, rng):
    """Does beam search with beams of 2 to 4 match the reference, each sentence of a batch as if searched alone? / ¿Coincide la búsqueda con haces de 2 a 4 con la de referencia, cada frase del lote como si fuera sola?"""
    # The searches cost seconds; submissions graded together share them (checks.searched).
    model, spec, src, k, max_len, beams, alpha = checks.searched(rng, "batched beam", lambda r: _beam_case(r, 12))
    batch = student.call("beam.beam_search", src, k, max_len, SOS, EOS, PAD, alpha, model_spec=spec)
    equal_naming(batch, beams.tokens(alpha), f"beam_search(src {tuple(src.shape)}, beam_size={k}, max_len={max_len}, "
                 f"length_penalty={alpha}) tokens", beams.mistakes(alpha), model, src, alpha=alpha)
    for i in range(3):
        one = checks.tensor(student.call("beam.beam_search", src[i:i + 1], k, max_len, SOS, EOS, PAD, alpha, model_spec=spec),
                            f"beam_search(row {i})")
        checks.equal(batch[i, :one.size(1)], one[0], f"beam_search row {i} in the batch vs alone")
        checks.expect(bool((batch[i, one.size(1):] == PAD).all()), f"row {i}: the batch result must be padded after its end",
                      f"fila {i}: el resultado del lote debe rellenarse tras su final")
    model, spec, src, k, max_len, beams, alpha = checks.searched(rng, "beam bookkeeping",
                                                                lambda r: _beam_case(r, 8, tuple(BOOKKEEPING)))
    got = student.call("beam.beam_search", src, k, max_len, SOS, EOS, PAD, alpha, model_spec=spec)
    equal_naming(got, beams.tokens(alpha), f"beam_search(src {tuple(src.shape)}, beam_size={k}, max_len={max_len}, "
                 f"length_penalty={alpha}) tokens", beams.mistakes(alpha, (*BOOKKEEPING, *BEAM_MISTAKES)), model, src,
                 alpha=alpha)
