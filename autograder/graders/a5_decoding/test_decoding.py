"""Hidden graders for a5_decoding/decoding.py and beam.py.

The model is the reference Transformer with random weights, built in the student's
process from the configuration and weights sent here; the expected tokens come from plain
(uncached) decoding of the same model in this process.
"""

import itertools

import pytest
import torch

from autograder import checks, reference

PAD, SOS, EOS = 0, 1, 2


def _model(rng, tgt_vocab=None, eos_bias=0.0):
    t = reference.load("transformer")
    config = dict(src_vocab_size=15, tgt_vocab_size=tgt_vocab or checks.randint(rng, 10, 20), d_model=16,
                  num_heads=2, num_layers=2, d_ff=32, dropout=0.0, max_len=40, pad_id=PAD,
                  norm_first=bool(checks.randint(rng, 0, 1)))
    torch.manual_seed(checks.randint(rng, 0, 2**31))
    model = t.Transformer(t.TransformerConfig(**config)).double().eval()
    with torch.no_grad():
        model.generator.bias[EOS] += eos_bias  # makes rows finish at different steps
    spec = {"target": "transformer.Transformer", "config": ["transformer.TransformerConfig", config],
            "state": {n: p.detach().clone() for n, p in model.named_parameters()}, "dtype": "float64"}
    return model, spec


def _src(rng, B):
    src = torch.randint(3, 15, (B, 7), generator=rng)
    src[~checks.right_padding(rng, B, 7, min_len=2)] = PAD
    return src


@torch.no_grad()
def greedy(model, src, max_len):
    memory, src_mask = model.encode(src)
    tokens = torch.full((src.size(0), 1), SOS)
    finished = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_len):
        nxt = model.decode(tokens, memory, src_mask)[:, -1].argmax(-1).masked_fill(finished, PAD)
        tokens = torch.cat([tokens, nxt[:, None]], dim=1)
        finished |= nxt == EOS
        if finished.all():
            break
    return tokens[:, 1:]


def _greedy_case(student, rng, eos_bias):
    model, spec = _model(rng, eos_bias=eos_bias)
    src, max_len = _src(rng, checks.randint(rng, 3, 6)), checks.randint(rng, 3, 12)
    want = greedy(model, src, max_len)
    got = student.call("decoding.greedy_decode", src, max_len, SOS, EOS, PAD, model_spec=spec)
    checks.equal(got, want, f"greedy_decode(src {tuple(src.shape)}, max_len={max_len}) tokens")
    return model, spec, src


@pytest.mark.points(2)
def test_greedy_decode(student, rng):
    """Does batched greedy decoding stop each row at EOS, pad it, and match plain decoding? / ¿Para cada fila en EOS, la rellena y coincide con la decodificación simple?"""
    _greedy_case(student, rng, eos_bias=2.0 + 2 * torch.rand(1, generator=rng).item())


@pytest.mark.points(1)
def test_greedy_respects_max_len(student, rng):
    """When EOS never comes, is the output exactly max_len tokens long? / ¿Si nunca llega EOS, mide la salida exactamente max_len?"""
    _greedy_case(student, rng, eos_bias=-30.0)


@pytest.mark.points(1)
def test_sample_decode(student, rng):
    """Is sample_decode reproducible under a seed, greedy with top_k=1, and padded after EOS? / ¿Es sample_decode reproducible, voraz con top_k=1 y rellenado tras EOS?"""
    model, spec = _model(rng, eos_bias=3.0)
    src, max_len = _src(rng, 8), 10
    greedy_out = greedy(model, src, max_len)
    top1 = student.call("decoding.sample_decode", src, max_len, SOS, EOS, PAD, top_k=1, model_spec=spec, generator_seed=5)
    checks.equal(top1, greedy_out, "sample_decode(..., top_k=1) tokens (must equal greedy)")
    seed = checks.randint(rng, 0, 2**30)
    a = checks.tensor(student.call("decoding.sample_decode", src, max_len, SOS, EOS, PAD, model_spec=spec, generator_seed=seed), "sample_decode(...)")
    b = student.call("decoding.sample_decode", src, max_len, SOS, EOS, PAD, model_spec=spec, generator_seed=seed)
    checks.equal(b, a, "sample_decode(...) twice with the same generator seed")
    checks.expect(a.dim() == 2 and a.size(0) == 8 and 1 <= a.size(1) <= max_len,
                  f"sample_decode output must be (8, L) with L <= {max_len}, got {tuple(a.shape)}",
                  f"la salida de sample_decode debe ser (8, L) con L <= {max_len}, es {tuple(a.shape)}")
    after_eos = (a == EOS).long().cumsum(1) - (a == EOS).long() > 0
    checks.expect(bool((a[after_eos] == PAD).all()), "every token after a row's EOS must be pad_id",
                  "todo token tras el EOS de una fila debe ser pad_id")
    # All rows finished before the last column means one step too many (a 1-column output
    # whose rows all end at once is fine).
    finished = (a == EOS).cumsum(1) > 0
    checks.expect(a.size(1) == 1 or not bool(finished[:, -2].all()),
                  "decoding must stop as soon as every row has finished", "la decodificación debe parar en cuanto terminan todas las filas")


@pytest.mark.points(1)
def test_beam_of_one_is_greedy(student, rng):
    """Does beam_search with beam_size=1 return exactly the greedy tokens? / ¿Devuelve beam_search con beam_size=1 exactamente lo voraz?"""
    model, spec = _model(rng, eos_bias=2.5)
    src, max_len = _src(rng, 4), 8
    got = student.call("beam.beam_search", src, 1, max_len, SOS, EOS, PAD, 0.6, model_spec=spec)
    checks.equal(got, greedy(model, src, max_len), "beam_search(beam_size=1) tokens")


@torch.no_grad()
def best_by_brute_force(model, src, max_len, alpha):
    """The highest-scoring output among all of them: log P / ((5 + n) / 6) ** alpha."""
    memory, src_mask = model.encode(src)
    V = model.config.tgt_vocab_size
    best, best_score = None, float("-inf")
    for n in range(1, max_len + 1):
        for ys in itertools.product(range(V), repeat=n):
            if EOS in ys[:-1] or (n < max_len and ys[-1] != EOS):
                continue  # outputs end at their first EOS, or at max_len
            tokens = torch.tensor([(SOS, *ys)])
            logp = model.decode(tokens[:, :-1], memory, src_mask).log_softmax(-1)[0]
            score = logp[torch.arange(n), tokens[0, 1:]].sum().item() / ((5 + n) / 6) ** alpha
            if score > best_score:
                best, best_score = list(ys), score
    return best


@pytest.mark.points(2)
def test_wide_beam_finds_the_best_output(student, rng):
    """With a beam as wide as the whole search space, is the result the best-scoring output? / ¿Con un haz que cubre todo, el resultado es la mejor salida?"""
    model, spec = _model(rng, tgt_vocab=5, eos_bias=1.0)
    alpha = round(torch.rand(1, generator=rng).item(), 3)
    src, max_len = _src(rng, 1), 3
    want = best_by_brute_force(model, src, max_len, alpha)
    got = checks.tensor(student.call("beam.beam_search", src, 5 ** max_len, max_len, SOS, EOS, PAD, alpha, model_spec=spec),
                        "beam_search(...)", shape=(1, len(want)))
    checks.equal(got[0], torch.tensor(want), f"beam_search with a full-width beam (length_penalty={alpha})")


@pytest.mark.points(1)
def test_batched_beam_equals_one_by_one(student, rng):
    """Does a batch give each sentence the same result as searching it alone? / ¿Da el lote a cada frase lo mismo que buscarla sola?"""
    model, spec = _model(rng, eos_bias=2.0)
    src, max_len, k = _src(rng, 3), 6, checks.randint(rng, 2, 4)
    batch = checks.tensor(student.call("beam.beam_search", src, k, max_len, SOS, EOS, PAD, 0.6, model_spec=spec), "beam_search(batch)")
    for i in range(3):
        one = checks.tensor(student.call("beam.beam_search", src[i:i + 1], k, max_len, SOS, EOS, PAD, 0.6, model_spec=spec), f"beam_search(row {i})")
        checks.equal(batch[i, :one.size(1)], one[0], f"beam_search row {i} in the batch vs alone")
        checks.expect(bool((batch[i, one.size(1):] == PAD).all()), f"row {i}: the batch result must be padded after its end",
                      f"fila {i}: el resultado del lote debe rellenarse tras su final")
