"""End-to-end grader for a6_translator: the student's pipeline learns a toy language.

The toy task, made up afresh from each run's seed:

- a source language of 10 made-up words (random consonant-vowel syllables) and a target
  language of 10 others (which may carry á, é, ó, ñ); a random one-to-one dictionary
  between them;
- a sentence is 2 to 6 different source words; its translation is the word-by-word
  translation with the first two words swapped (as Spanish puts most adjectives after
  the noun): "a b c d" -> "B A C D";
- 1000 distinct training pairs, and 40 test sentences that never occur in training,
  typed with a capital letter and a final full stop (clean_text must remove both).

In the student's process: Vocab.build on each side, TranslationDataset, make_loader
(batches of 32, shuffled by a seeded torch.Generator), a tiny reference Transformer
(d_model 32, 2 heads, 1 layer, d_ff 64, no dropout; sized from the vocabularies this
grader expects: 4 specials + 10 words per side), torch.optim.Adam (lr 3e-3), the
student's fit for 10 epochs (3-4 s of one CPU core), then the student's translate
(greedy) on the test sentences. What comes back is plain data: the loss history, both
vocabularies' itos lists, the trained parameters and the student's translations.

The accuracy is computed in this process, not from the student's strings (a fit could
stash the training pairs and a translate look the words up in them): the itos lists are
checked (the four specials, then each word of that side once) and turned into reference
Vocabs, the trained parameters are checked (every name, shape and dtype) and loaded into
the reference Transformer of the same config, and the reference translate decodes the test
sentences greedily (max_len 10). Exact matches must reach 80 %. The student's own
translate must then agree with those translations (at most 4 of 40 may differ).

The reference solution gets 95-100 % (mean 99.3 %) on each of the 45 run seeds tried
(0-19, 100-119, 42, 1234, 2024, 7777, 31337), and its translate agreed with this
process's on every sentence of every one of them.
"""

import pytest
import torch

from autograder import checks, reference
from autograder.graders.a6_translator.helpers import SOURCE_SOUNDS, TARGET_SOUNDS, made_up, model_and_spec

WORDS, TRAIN, TEST, EPOCHS, BATCH, LR, THRESHOLD = 10, 1000, 40, 10, 32, 3e-3, 0.8
MAY_DIFFER = 4  # of the student's own translations from this process's (room for float noise)
SPECIALS = ["<pad>", "<sos>", "<eos>", "<unk>"]
LIMIT = 90  # seconds for the whole run in the student's process; the reference needs about 3


def toy_task(rng):
    """(training pairs, test sources as typed, expected test translations)."""
    src_words = made_up(rng, WORDS, SOURCE_SOUNDS)
    tgt_words = made_up(rng, WORDS, TARGET_SOUNDS)
    dictionary = dict(zip(src_words, (tgt_words[i] for i in torch.randperm(WORDS, generator=rng).tolist())))

    def translation(words):
        words = [dictionary[w] for w in words]
        return " ".join([words[1], words[0], *words[2:]])

    seen, sentences = set(), []
    while len(sentences) < TRAIN + TEST:
        n = checks.randint(rng, 2, 6)
        words = tuple(src_words[i] for i in torch.randperm(WORDS, generator=rng)[:n].tolist())
        if words not in seen:
            seen.add(words)
            sentences.append(words)
    train, test = sentences[:TRAIN], sentences[TRAIN:]
    pairs = [(" ".join(s), translation(s)) for s in train]
    return pairs, [" ".join(s).capitalize() + "." for s in test], [translation(s) for s in test]


def _short(text: str, limit: int = 80) -> str:
    """A string from the student's process, quoted and cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _vocabulary(itos, sentences, side: str, lang: str):
    """A reference ``Vocab`` with exactly the ids of the student's vocabulary ``itos`` (plain
    data from the student's process), once it is checked to hold the four specials, then
    every word of ``sentences`` once."""
    words = sorted({w for s in sentences for w in s.split()})
    checks.expect(
        isinstance(itos, list) and all(isinstance(w, str) for w in itos),
        f"Vocab.build(the {side} sentences).itos must be a list of strings",
        f"Vocab.build(las frases de {lang}).itos debe ser una lista de cadenas",
    )
    # Only this grader's own words are quoted back, never the student's strings.
    missing = [w for w in SPECIALS + words if w not in itos]
    checks.expect(
        len(itos) == len(SPECIALS) + len(words) and len(set(itos)) == len(itos) and itos[:4] == SPECIALS
        and not missing,
        f"Vocab.build(the {side} sentences).itos must hold the four specials {SPECIALS} and then each of the "
        f"{len(words)} words of those sentences once: {len(SPECIALS) + len(words)} distinct strings; got "
        f"{len(itos)} entries ({len(set(itos))} distinct, specials first: {'yes' if itos[:4] == SPECIALS else 'no'}), "
        f"missing {missing[:5]}",
        f"Vocab.build(las frases de {lang}).itos debe tener los cuatro especiales {SPECIALS} y después cada una de "
        f"las {len(words)} palabras de esas frases una vez: {len(SPECIALS) + len(words)} cadenas distintas; tiene "
        f"{len(itos)} entradas ({len(set(itos))} distintas, especiales primero: {'sí' if itos[:4] == SPECIALS else 'no'}), "
        f"faltan {missing[:5]}",
    )
    vocab = reference.load("vocab").Vocab(itos[4:])
    vocab.itos, vocab.stoi = list(itos), {w: i for i, w in enumerate(itos)}
    return vocab


def _load_trained(model, state):
    """Copy the trained parameters that came back from the student's process into ``model``
    (the reference Transformer of the same config, in this process), checking each one."""
    params = dict(model.named_parameters())  # only these names are quoted back, never the student's
    missing, extra = sorted(set(params) - set(state)), sorted(set(state) - set(params))
    checks.expect(
        not missing and not extra,
        f"the trained model must keep exactly its {len(params)} parameters (missing: {missing[:3]}; {len(extra)} unexpected)",
        f"el modelo entrenado debe conservar exactamente sus {len(params)} parámetros (faltan: {missing[:3]}; "
        f"sobran {len(extra)})",
    )
    with torch.no_grad():
        for name, p in params.items():
            p.copy_(checks.tensor(state[name], f"trained parameter {name}", shape=p.shape, dtype=p.dtype))
    model.eval()
    return model


@pytest.mark.points(3)
@pytest.mark.timeout(LIMIT)
def test_learns_a_toy_translation(student, rng):
    """Does the whole pipeline (Vocab.build, TranslationDataset, make_loader, fit, translate) learn a toy language to 80 % exact matches? / ¿Aprende todo el proceso (Vocab.build, TranslationDataset, make_loader, fit, translate) un idioma de juguete con un 80 % de aciertos exactos?"""
    pairs, sources, expected = toy_task(rng)
    size = 4 + WORDS  # the specials, then every word (all occur in training)
    model, spec = model_and_spec(rng, size, size, dtype="float32", d_model=32, num_heads=2, num_layers=1, d_ff=64,
                                 max_len=16, norm_first=False)
    seed = checks.randint(rng, 0, 2**31)
    out = student.script([
        ["sv", "vocab.Vocab.build", [[src for src, _ in pairs]], {}],
        ["tv", "vocab.Vocab.build", [[tgt for _, tgt in pairs]], {}],
        ["data", "batching.TranslationDataset", [pairs, {"$": "sv"}, {"$": "tv"}], {}],
        ["gen", "torch.Generator", [], {}],
        ["_", "$gen.manual_seed", [seed], {}],
        ["loader", "batching.make_loader", [{"$": "data"}, BATCH], {"shuffle": True, "generator": {"$": "gen"}}],
        ["opt", "torch.optim.Adam", [{"$params": "model"}], {"lr": LR}],
        ["history", "training.fit", [{"$": "model"}, {"$": "loader"}, {"$": "opt"}, EPOCHS], {}],
        ["src_itos", "getattr", [{"$": "sv"}, "itos"], {}],
        ["tgt_itos", "getattr", [{"$": "tv"}, "itos"], {}],
        ["out", "translation.translate", [{"$": "model"}, sources, {"$": "sv"}, {"$": "tv"}], {"max_len": 10}],
    ], model_spec=spec, returns=["history", "src_itos", "tgt_itos", "out"], state=True, timeout=LIMIT)
    history = out["history"]
    checks.expect(isinstance(history, list) and len(history) == EPOCHS,
                  f"fit(..., epochs={EPOCHS}) must return {EPOCHS} losses", f"fit(..., epochs={EPOCHS}) debe devolver {EPOCHS} pérdidas")
    first, last = (checks.number(loss, "fit(...) epoch loss") for loss in (history[0], history[-1]))
    checks.expect(last < first, f"the training loss did not go down (epoch 1: {first:.4f}, epoch {EPOCHS}: {last:.4f})",
                  f"la pérdida de entrenamiento no bajó (época 1: {first:.4f}, época {EPOCHS}: {last:.4f})")

    # The accuracy is measured here, not from the student's strings: the trained weights and
    # the vocabularies come back as plain data and the reference translate decodes with them,
    # so only a model that has learned the language scores (a translate that looked words up
    # in the training pairs would not).
    sv = _vocabulary(out["src_itos"], [src for src, _ in pairs], "source", "origen")
    tv = _vocabulary(out["tgt_itos"], [tgt for _, tgt in pairs], "target", "destino")
    _load_trained(model, out["state"])
    with torch.no_grad():
        mine = reference.load("translation").translate(model, sources, sv, tv, max_len=10)
    right = [g == e for g, e in zip(mine, expected)]
    accuracy = sum(right) / TEST
    wrong = [f"{s!r} -> {g!r} (expected {e!r})" for s, g, e, ok in zip(sources, mine, expected, right) if not ok][:2]
    checks.expect(
        accuracy >= THRESHOLD,
        f"after training, greedy decoding of the trained model translated {sum(right)} of {TEST} held-out sentences "
        f"exactly ({accuracy:.0%}; at least {THRESHOLD:.0%} needed; final training loss {last:.4f}). "
        f"For example: {'; '.join(wrong)}",
        f"tras el entrenamiento, la decodificación voraz del modelo entrenado tradujo exactamente {sum(right)} de "
        f"{TEST} frases de prueba ({accuracy:.0%}; se necesita al menos {THRESHOLD:.0%}; pérdida final {last:.4f})",
    )

    # The student's own translate must say what that model says.
    got = out["out"]
    checks.expect(isinstance(got, list) and len(got) == TEST and all(isinstance(s, str) for s in got),
                  f"translate(model, {TEST} sentences, ...) must return a list of {TEST} strings",
                  f"translate(model, {TEST} frases, ...) debe devolver una lista de {TEST} cadenas")
    same = [g == m for g, m in zip(got, mine)]
    differ = [f"{s!r} -> {_short(g)} (the model's greedy translation: {m!r})"
              for s, g, m, ok in zip(sources, got, mine, same) if not ok][:2]
    checks.expect(
        TEST - sum(same) <= MAY_DIFFER,
        f"the trained model translates well, but your translate(model, sentences, src_vocab, tgt_vocab, max_len=10) "
        f"gave {TEST - sum(same)} of {TEST} held-out sentences a different translation from the model's greedy "
        f"decoding (at most {MAY_DIFFER} may differ). For example: {'; '.join(differ)}",
        f"el modelo entrenado traduce bien, pero tu translate(model, sentences, src_vocab, tgt_vocab, max_len=10) "
        f"dio a {TEST - sum(same)} de {TEST} frases de prueba una traducción distinta de la decodificación voraz del "
        f"modelo (como mucho pueden diferir {MAY_DIFFER})",
    )
