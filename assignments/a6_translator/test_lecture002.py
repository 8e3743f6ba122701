"""Public test: lecture 002's closing exercise, a tiny English-to-Spanish translator.

Lecture 002 ends by training a small Transformer on 16 sentence pairs and trying it on five
of them. Here your own pipeline does it: ``Vocab.build``, ``TranslationDataset``,
``make_loader``, ``fit`` and ``translate``, with the course's Transformer (assignment 4).
Run it with ``pytest assignments/a6_translator/test_lecture002.py``.
"""

import torch

from batching import TranslationDataset, make_loader
from training import fit
from transformer import Transformer, TransformerConfig
from translation import translate
from vocab import Vocab


def test_learns_lecture_002s_sixteen_pairs(course_data):
    """Does the whole pipeline learn lecture 002's 16 pairs and translate its five test sentences exactly?"""
    data = course_data("a6_translator/lecture002_pairs.json")
    pairs = [tuple(pair) for pair in data["pairs"]]
    torch.manual_seed(0)
    src_vocab = Vocab.build([en for en, _ in pairs])
    tgt_vocab = Vocab.build([es for _, es in pairs])
    model = Transformer(TransformerConfig(len(src_vocab.itos), len(tgt_vocab.itos), **data["model"]))
    training = data["training"]
    loader = make_loader(TranslationDataset(pairs, src_vocab, tgt_vocab), training["batch_size"], shuffle=True,
                         generator=torch.Generator().manual_seed(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=training["lr"])
    history = fit(model, loader, optimizer, training["epochs"])
    assert history[-1] < history[0], (
        f"fit's loss went from {history[0]:.3f} (epoch 1) to {history[-1]:.3f} (epoch {len(history)}): it should "
        "fall on 16 pairs; run the public tests of training.py first. / "
        f"la pérdida de fit pasó de {history[0]:.3f} (época 1) a {history[-1]:.3f} (época {len(history)}): debería "
        "bajar con 16 pares; ejecuta antes las pruebas públicas de training.py.")
    got = translate(model, data["tests"], src_vocab, tgt_vocab)
    want = [dict(pairs)[en] for en in data["tests"]]
    wrong = [f"{en!r} -> {g!r} (expected {w!r})" for en, g, w in zip(data["tests"], got, want) if g != w]
    assert not wrong, (
        f"after {len(history)} epochs on lecture 002's 16 pairs (final loss {history[-1]:.3f}), "
        f"{len(wrong)} of 5 test sentences came back wrong: {'; '.join(wrong)}. A low loss with wrong words points at "
        "translate (the vocabularies, cutting at <eos>); a loss that stays high at the training functions. / "
        f"tras {len(history)} épocas con los 16 pares del cuaderno de clase 002 (pérdida final {history[-1]:.3f}), "
        f"{len(wrong)} de 5 frases de prueba salieron mal: {'; '.join(wrong)}. Una pérdida baja con palabras erróneas "
        "apunta a translate (los vocabularios, el corte en <eos>); una pérdida que sigue alta, a las funciones de "
        "entrenamiento.")
