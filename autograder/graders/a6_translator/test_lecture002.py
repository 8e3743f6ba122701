"""Grader for lecture 002's closing exercise: the student's pipeline learns its 16 pairs.

Lecture 002 ends by training a small Transformer on 16 English-Spanish pairs
(source_data/a6_translator/lecture002_pairs.json) and trying it on five of them. In the
student's process: Vocab.build on each side, TranslationDataset, make_loader (batches of 8,
shuffled by a seeded torch.Generator), a reference Transformer of the fixture's size (d_model
32, 2 heads, 1 layer, d_ff 64, no dropout; post-norm or pre-norm by seed), torch.optim.Adam
(lr 3e-3) and the student's fit for the fixture's 60 epochs (about a second of one core),
then the student's translate (greedy) of the five test sentences. What comes back is plain
data: the loss history, both vocabularies' itos lists, the trained parameters and the
translations.

As in the toy-language grader (test_end_to_end.py), the result is computed in this process:
the itos lists are checked and turned into reference Vocabs, the trained parameters are
checked and loaded into the reference Transformer, and the reference translate decodes
all 16 English sentences greedily. Every one of the five test sentences, and at least 15 of
the 16, must come back exactly; the student's translate must then agree on the five.

The reference pipeline learned all 16 pairs, the five included, at each of 50 seeds with
half these epochs (30), in the model of this grader.
"""

import pytest

from autograder import reference
from autograder.graders.a6_translator.helpers import model_and_spec
from autograder.graders.a6_translator.test_end_to_end import _load_trained, _vocabulary
from autograder.grading import checks

FIXTURE = "a6_translator/lecture002_pairs.json"
ALL_BUT = 1  # of the 16 training sentences that may come back wrong (none of the five tests)
LIMIT = 90  # seconds for the whole run in the student's process; the reference needs about 2


@pytest.mark.points(2)
@pytest.mark.request_timeout(LIMIT)
def test_learns_lecture_002s_sixteen_pairs(student, rng, course_data):
    """Does the whole pipeline learn lecture 002's 16 pairs and translate its five test sentences exactly? / ¿Aprende todo el proceso los 16 pares del cuaderno de clase 002 y traduce exactamente sus cinco frases de prueba?"""
    data = course_data(FIXTURE)
    pairs = [tuple(pair) for pair in data["pairs"]]
    english = [en for en, _ in pairs]
    tests, want = data["tests"], [dict(pairs)[en] for en in data["tests"]]
    size = {side: 4 + len({w for s in sentences for w in s.split()})
            for side, sentences in (("src", english), ("tgt", [es for _, es in pairs]))}
    model, spec = model_and_spec(rng, size["src"], size["tgt"], dtype="float32", **data["model"])
    training = data["training"]
    out = student.script([
        ["sv", "vocab.Vocab.build", [english], {}],
        ["tv", "vocab.Vocab.build", [[es for _, es in pairs]], {}],
        ["data", "batching.TranslationDataset", [pairs, {"$": "sv"}, {"$": "tv"}], {}],
        ["gen", "torch.Generator", [], {}],
        ["_", "$gen.manual_seed", [checks.randint(rng, 0, 2**31)], {}],
        ["loader", "batching.make_loader", [{"$": "data"}, training["batch_size"]],
         {"shuffle": True, "generator": {"$": "gen"}}],
        ["opt", "torch.optim.Adam", [{"$params": "model"}], {"lr": training["lr"]}],
        ["history", "training.fit", [{"$": "model"}, {"$": "loader"}, {"$": "opt"}, training["epochs"]], {}],
        ["src_itos", "getattr", [{"$": "sv"}, "itos"], {}],
        ["tgt_itos", "getattr", [{"$": "tv"}, "itos"], {}],
        ["out", "translation.translate", [{"$": "model"}, tests, {"$": "sv"}, {"$": "tv"}], {}],
    ], model_spec=spec, returns=["history", "src_itos", "tgt_itos", "out"], state=True, timeout=LIMIT)

    history = out["history"]
    checks.expect(isinstance(history, list) and len(history) == training["epochs"],
                  f"fit(..., epochs={training['epochs']}) must return {training['epochs']} losses",
                  f"fit(..., epochs={training['epochs']}) debe devolver {training['epochs']} pérdidas")
    first, last = (checks.number(loss, "fit(...) epoch loss") for loss in (history[0], history[-1]))
    sv = _vocabulary(out["src_itos"], english, "English", "inglés")
    tv = _vocabulary(out["tgt_itos"], [es for _, es in pairs], "Spanish", "español")
    _load_trained(model, out["state"])
    learned = reference.load("translation").translate(model, english, sv, tv)
    wrong = [f"{en!r} -> {got!r} (expected {es!r})" for (en, es), got in zip(pairs, learned) if got != es]
    missed = [en for en, got in zip(english, learned) if en in tests and got != dict(pairs)[en]]
    checks.expect(
        not missed and len(wrong) <= ALL_BUT,
        f"after {training['epochs']} epochs on lecture 002's 16 pairs (training loss {first:.3f} -> {last:.3f}), greedy "
        f"decoding of the trained model gave {len(wrong)} of the 16 English sentences a wrong translation "
        f"({len(missed)} of the 5 test sentences), e.g. {'; '.join(wrong[:2])}",
        f"tras {training['epochs']} épocas con los 16 pares del cuaderno de clase 002 (pérdida {first:.3f} -> "
        f"{last:.3f}), la decodificación voraz del modelo entrenado tradujo mal {len(wrong)} de las 16 frases en "
        f"inglés ({len(missed)} de las 5 de prueba)",
    )
    got = out["out"]
    checks.expect(isinstance(got, list) and got == want,
                  f"the trained model translates the five test sentences right, but your translate gave "
                  f"{got!r:.200} where its greedy decoding gives {want}",
                  f"el modelo entrenado traduce bien las cinco frases de prueba, pero tu translate dio {got!r:.200} "
                  f"donde su decodificación voraz da {want}")
