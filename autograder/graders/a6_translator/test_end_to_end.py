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
grader expects: 4 specials + 10 words per side), torch.optim.Adam (lr 3e-3; foreach, the
default loop's updates in fewer kernel calls, which cuts about an eighth of fit's time), the
student's fit for 10 epochs (2-3 s of one CPU core), then the student's translate
(greedy) on the test sentences. What comes back is plain data: the loss history, both
vocabularies' itos lists, the trained parameters and the student's translations.

The accuracy is computed in this process, not from the student's strings (a fit could
stash the training pairs and a translate look the words up in them): the itos lists are
checked (the four specials, then each word of that side once) and turned into reference
Vocabs, the trained parameters are checked (every name, shape and dtype) and loaded into
the reference Transformer of the same config, and the reference translate decodes the test
sentences greedily (max_len 10). Exact matches must reach 80 %. The student's own
translate must then agree with those translations (at most 4 of 40 may differ).

When a check fails, what else came back names the likely mistake: the student's clean_text
of five test sentences, the first five dataset items and their collate, two train_steps taken before fit with
SGD(lr=0, momentum) (the model does not move; the momentum buffer keeps the gradients the
steps saw) and the student's translations, each compared with the reference variants of
the classic mistakes (variants.py).

The reference solution gets 95-100 % (mean 99.3 %) on each of the 45 run seeds tried
(0-19, 100-119, 42, 1234, 2024, 7777, 31337), and its translate agreed with this
process's on every sentence of every one of them. With the foreach Adam, the same pipeline
run in one process over those 45 seeds reached the same accuracies as with the default
Adam (lowest 92.5 %, mean 98.9 %, both ways).
"""

import pytest
import torch

from autograder import reference, tokens
from autograder.graders.a6_translator import stages, variants
from autograder.graders.a6_translator.helpers import (
    SOURCE_SOUNDS,
    TARGET_SOUNDS,
    made_up,
    model_and_spec,
    source_batch,
    target_batch,
)
from autograder.grading import checks

WORDS, TRAIN, TEST, EPOCHS, BATCH, LR, THRESHOLD = 10, 1000, 40, 10, 32, 3e-3, 0.8
ITEMS = 5  # dataset items and cleaned test sentences that come back for the diagnostics
PROBE_MOMENTUM = 0.5
MAY_DIFFER = 4  # of the student's own translations from this process's (room for float noise)
SPECIALS = list(tokens.SPECIALS)
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
    checks.expect(not variants.counts_characters(itos),
                  f"Vocab.build(the {side} sentences).itos holds single characters, not the words of the sentences",
                  f"Vocab.build(las frases de {lang}).itos contiene caracteres sueltos, no las palabras de las frases",
                  mistake=checks.Mistake(*variants.CHARACTERS))
    checks.expect(not variants.counts_sentences(itos),
                  f"Vocab.build(the {side} sentences).itos holds entries with spaces, not the words of the sentences",
                  f"Vocab.build(las frases de {lang}).itos contiene entradas con espacios, no las palabras de las frases",
                  mistake=checks.Mistake(*variants.SENTENCES))
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
@pytest.mark.request_timeout(LIMIT)
def test_learns_a_toy_translation(student, rng):
    """Does the whole pipeline (Vocab.build, TranslationDataset, make_loader, fit, translate) learn a toy language to 80 % exact matches? / ¿Aprende todo el proceso (Vocab.build, TranslationDataset, make_loader, fit, translate) un idioma de juguete con un 80 % de aciertos exactos?"""
    pairs, sources, expected = toy_task(rng)
    size = 4 + WORDS  # the specials, then every word (all occur in training)
    model, spec = model_and_spec(rng, size, size, dtype="float32", d_model=32, num_heads=2, num_layers=1, d_ff=64,
                                 max_len=16, norm_first=False)
    seed = checks.randint(rng, 0, 2**31)
    # Diagnostics that name a failure's likely cause, cheap beside the training: the student's
    # clean_text on test sentences, the first dataset items, and two train_steps with
    # SGD(lr=0, momentum) on a random batch: the model does not move, and the momentum buffer
    # of the last bias, (1 + momentum) g when each step starts from zeroed gradients, keeps
    # what the steps saw (the parameter's .grad itself changes during fit).
    probe_src, probe_tgt = source_batch(rng, 4, 5, size), target_batch(rng, 4, 6, size)
    initial = variants.deep(model)
    out = student.script([
        ["sv", "vocab.Vocab.build", [[src for src, _ in pairs]], {}],
        ["tv", "vocab.Vocab.build", [[tgt for _, tgt in pairs]], {}],
        ["data", "batching.TranslationDataset", [pairs, {"$": "sv"}, {"$": "tv"}], {}],
        ["gen", "torch.Generator", [], {}],
        ["_", "$gen.manual_seed", [seed], {}],
        ["loader", "batching.make_loader", [{"$": "data"}, BATCH], {"shuffle": True, "generator": {"$": "gen"}}],
        *[[f"item{i}", "$data.__getitem__", [i], {}] for i in range(ITEMS)],
        *[[f"clean{i}", "preprocessing.clean_text", [sources[i]], {}] for i in range(ITEMS)],
        ["batch", "batching.collate", [[{"$": f"item{i}"} for i in range(ITEMS)]], {}],
        ["probe_opt", "torch.optim.SGD", [{"$params": "model"}], {"lr": 0.0, "momentum": PROBE_MOMENTUM}],
        *[[f"probe{k}", "training.train_step", [{"$": "model"}, probe_src, probe_tgt, {"$": "probe_opt"}], {}]
          for k in range(2)],
        ["last", "getattr", [{"$": "model"}, "generator"], {}], ["bias", "getattr", [{"$": "last"}, "bias"], {}],
        ["probe_state", "getattr", [{"$": "probe_opt"}, "state"], {}],
        ["bias_state", "$probe_state.get", [{"$": "bias"}, {}], {}],
        ["probe_grad", "$bias_state.get", ["momentum_buffer"], {}],
        ["opt", "torch.optim.Adam", [{"$params": "model"}], {"lr": LR, "foreach": True}],
        ["history", "training.fit", [{"$": "model"}, {"$": "loader"}, {"$": "opt"}, EPOCHS], {}],
        ["src_itos", "getattr", [{"$": "sv"}, "itos"], {}],
        ["tgt_itos", "getattr", [{"$": "tv"}, "itos"], {}],
        ["watch", "watch", [{"$": "model"}], {"children": ["src_embed"]}],
        ["out", "translation.translate", [{"$": "model"}, sources, {"$": "sv"}, {"$": "tv"}], {"max_len": 10}],
        ["watched", "$watch.take", [], {}],
    ], model_spec=spec, returns=["history", "src_itos", "tgt_itos", "out", "watched", "probe0", "probe1", "probe_grad",
                                 "batch", *[f"{k}{i}" for k in ("item", "clean") for i in range(ITEMS)]],
       state=True, timeout=LIMIT)
    mine = watched = None
    try:
        mine, watched = _check_learned(out, model, pairs, sources, expected)
        _check_translate(out, sources, mine)
    except checks.CheckFailure as failure:
        failure = variants.named(failure, out, _mistakes(initial, model, pairs, sources, probe_src, probe_tgt),
                                 lambda got, test: test(got))
        if mine is not None:  # the model learned: what differs is in the student's translate
            failure = failure.shaped(stages.translation_difference(
                out["watched"], watched, ("in your translate", "en tu translate")), replace=True)
        raise failure from None


def _check_learned(out, model, pairs, sources, expected):
    """The trained model translates the test sentences (decoded here, with the reference
    translate and the student's vocabularies): that translation, and what the model saw."""
    history = out["history"]
    checks.expect(isinstance(history, list) and len(history) == EPOCHS,
                  f"fit(..., epochs={EPOCHS}) must return {EPOCHS} losses", f"fit(..., epochs={EPOCHS}) debe devolver {EPOCHS} pérdidas",
                  mistake=variants.history_shape(history, EPOCHS))
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
    watch = stages.watch(model, children=["src_embed"])
    with torch.no_grad():
        mine = reference.load("translation").translate(model, sources, sv, tv, max_len=10)
    watched = watch.take()
    watch.stop()
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
    return mine, watched


def _check_translate(out, sources, mine):
    """The student's own translate says what the trained model says."""
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


def _mistakes(initial, trained, pairs, sources, probe_src, probe_tgt):
    """The classic mistakes this grader can name, each as a test of what came back: the
    student's values match what the mistake gives, and that differs from the right values."""
    def telling(variant):  # variant(out, **switches) -> what those switches make of these inputs
        def with_switches(**switches):
            def test(out):
                made = variant(out, **switches)
                return not _same(made, variant(out)) and _same(made, variant(out, student=True))
            return test
        return with_switches

    @telling
    def cleans(out, student=False, **switches):
        return [out[f"clean{i}"] for i in range(ITEMS)] if student else [
            variants.clean(s, **switches) for s in sources[:ITEMS]]

    @telling
    def items(out, student=False, **switches):
        if student:
            return [[t.tolist() for t in out[f"item{i}"]] for i in range(ITEMS)]
        sv, tv = ({w: i for i, w in enumerate(itos)} for itos in (out["src_itos"], out["tgt_itos"]))
        return [list(variants.item(pairs[i], sv, tv, **switches)) for i in range(ITEMS)]

    @telling
    def batches(out, student=False, **switches):  # collate of the student's own first items
        if student:
            return [t.tolist() for t in out["batch"]]
        return [t.tolist() for t in variants.collate([out[f"item{i}"] for i in range(ITEMS)], 0, **switches)]

    @telling
    def steps(out, student=False, **switches):  # the two SGD(lr=0) steps of the diagnostics
        if student:
            return [out["probe0"], out["probe1"]], out["probe_grad"]
        model = variants.deep(initial)
        opt = torch.optim.SGD(model.parameters(), lr=0.0, momentum=PROBE_MOMENTUM)
        losses = [variants.step(model, probe_src, probe_tgt, opt, **switches) for _ in range(2)]
        return losses, opt.state.get(model.generator.bias, {}).get("momentum_buffer")

    @telling
    def translates(out, student=False, **switches):
        return out["out"] if student else variants.translate(trained, sources, *_vocabs(out), max_len=10, **switches)

    found = [variants.mistake(variants.SPECIALS_MISPLACED.en, variants.SPECIALS_MISPLACED.es, lambda: lambda out: (
        variants.specials_misplaced(out["src_itos"]) or variants.specials_misplaced(out["tgt_itos"])))]
    found += [variants.mistake(*variants.CLEAN[k], lambda k=k: cleans(**{k: False})) for k in variants.CLEAN]
    found += [variants.mistake(*names, lambda sw=sw: items(**sw)) for names, sw in (
        (variants.NO_EOS, {"eos": False}), (variants.UNKNOWN_DROPPED, {"keep_unknown": False}))]
    found.append(variants.mistake(*variants.LEFT_PADDED, lambda: batches(right=False)))
    found += [variants.mistake(*names, lambda names=names: steps(**variants.STEP_SWITCHES[names])) for names in (
        variants.NO_SHIFT, variants.NO_ZERO_GRAD, variants.ZERO_GRAD_LATE, variants.PAD_COUNTED)]
    found += [variants.mistake(*names, lambda sw=sw: translates(**sw)) for names, sw in variants.TRANSLATE_SWITCHES]
    return found


def _same(a, b) -> bool:
    """Plain values equal; floats and tensors (the float32 model's) close; a gradient of None
    (zero_grad(set_to_none=True)) the same as zeros."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-4 * abs(a) + 1e-6
    if a is None or b is None or isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        a, b = (None if x is None or not bool(x.any()) else x for x in (a, b))
        return (a is None and b is None) or (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                                              and a.shape == b.shape and torch.allclose(a, b, rtol=1e-3, atol=1e-5))
    return a == b


def _vocabs(out):
    vocab = reference.load("vocab")
    made = []
    for itos in (out["src_itos"], out["tgt_itos"]):
        v = vocab.Vocab(itos[4:])
        v.itos, v.stoi = list(itos), {w: i for i, w in enumerate(itos)}
        made.append(v)
    return made
