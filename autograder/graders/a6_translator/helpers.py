"""Shared pieces of the a6 graders (not a test module): made-up words and sentences, and
reference Transformers sent to the student's process as model specs.

Words are random syllables, so no student can hard-code them; target words may carry
Spanish accents and ñ, which clean_text keeps.
"""

import torch

from autograder import reference, tokens
from autograder.grading import checks

SOURCE_SOUNDS = ("bdfgklmnprstvz", "aeiou")
TARGET_SOUNDS = ("bcdlmnñprst", "aeiouáéó")


def made_up(rng: torch.Generator, n: int, sounds=SOURCE_SOUNDS, taken=()) -> list[str]:
    """``n`` distinct words of 2 or 3 consonant-vowel syllables, none of them in ``taken``."""
    consonants, vowels = sounds
    found: list[str] = []
    while len(found) < n:
        word = "".join(consonants[checks.randint(rng, 0, len(consonants) - 1)]
                       + vowels[checks.randint(rng, 0, len(vowels) - 1)]
                       for _ in range(checks.randint(rng, 2, 3)))
        if word not in found and word not in taken:
            found.append(word)
    return found


def pick(rng: torch.Generator, items: list):
    return items[checks.randint(rng, 0, len(items) - 1)]


def sentence(rng: torch.Generator, words: list[str], low: int, high: int) -> str:
    """Between ``low`` and ``high`` words drawn with replacement, joined by spaces."""
    return " ".join(pick(rng, words) for _ in range(checks.randint(rng, low, high)))


def model_and_spec(rng: torch.Generator, src_vocab_size: int, tgt_vocab_size: int, *, dtype="float64", eos_bias=0.0,
                   unk_bias=0.0, **overrides):
    """A reference Transformer with random weights (in this process) and the spec that builds
    the same model in the student's process. Small sizes; ``overrides`` change the config."""
    t = reference.load("transformer")
    config = dict(src_vocab_size=src_vocab_size, tgt_vocab_size=tgt_vocab_size, d_model=16, num_heads=2,
                  num_layers=2, d_ff=32, dropout=0.0, max_len=24, pad_id=tokens.PAD,
                  norm_first=bool(checks.randint(rng, 0, 1)))
    config.update(overrides)
    torch.manual_seed(checks.randint(rng, 0, 2**31))
    model = t.Transformer(t.TransformerConfig(**config)).to(getattr(torch, dtype))
    with torch.no_grad():
        model.generator.bias[tokens.EOS] += eos_bias  # rows finish at different steps
        model.generator.bias[tokens.UNK] += unk_bias
    spec = {"target": "transformer.Transformer", "config": ["transformer.TransformerConfig", config],
            "state": {n: p.detach().clone() for n, p in model.named_parameters()}, "dtype": dtype}
    return model, spec


def target_batch(rng: torch.Generator, B: int, T: int, V: int) -> torch.Tensor:
    """(B, T) targets <sos> w1 .. wn <eos> <pad> ..: random words (ids 4..V-1), n >= 1 per row,
    the longest row filling T exactly and (B > 1, T > 3) another one padded."""
    lengths = torch.randint(1, T - 1, (B,), generator=rng)
    full = checks.randint(rng, 0, B - 1)
    lengths[full] = T - 2
    if B > 1 and T > 3:  # another row certainly shorter: <pad> labels, which the loss must ignore
        lengths[(full + 1) % B] = checks.randint(rng, 1, T - 3)
    tgt = torch.zeros(B, T, dtype=torch.long)
    for b, n in enumerate(lengths.tolist()):
        tgt[b, 0], tgt[b, n + 1] = 1, 2
        tgt[b, 1:n + 1] = torch.randint(4, V, (n,), generator=rng)
    return tgt


def source_batch(rng: torch.Generator, B: int, S: int, V: int) -> torch.Tensor:
    """(B, S) right-padded sources of random ids 4..V-1, at least one real token per row."""
    src = torch.randint(4, V, (B, S), generator=rng)
    src[~checks.right_padding(rng, B, S)] = 0
    return src
