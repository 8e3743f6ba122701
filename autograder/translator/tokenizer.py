"""Text <-> token ids for the translator: joint subwords, or the a6 assignment's words.

Both kinds share the course's special ids (``<pad>`` = 0, ``<sos>`` = 1, ``<eos>`` = 2,
``<unk>`` = 3) and serialise to a small dict that a checkpoint stores, so ``translate``
needs nothing but the checkpoint file.

- ``subword`` (default): one SentencePiece unigram model trained on both languages. A
  few thousand pieces cover every word (no ``<unk>`` for a new name), source and target
  can share one embedding matrix, and decoding gives real text: cased, punctuated,
  detokenised.
- ``word``: the a6 assignment's pipeline, ``clean_text`` + one ``Vocab`` per language.
  Output is lower-case with spaced punctuation, as the assignment defines it.
"""

from __future__ import annotations

import io

from .. import reference
from ..tokens import EOS, PAD, SOS, UNK

KINDS = ("subword", "word")


class SubwordTokenizer:
    kind = "subword"
    shared_vocab = True  # one id space for both languages: embeddings can be tied

    def __init__(self, model_proto: bytes):
        import sentencepiece as spm

        self.model_proto = model_proto
        self.sp = spm.SentencePieceProcessor(model_proto=model_proto)
        self.src_vocab_size = self.tgt_vocab_size = self.sp.get_piece_size()

    @classmethod
    def train(cls, texts: list[str], vocab_size: int = 4000) -> SubwordTokenizer:
        """A unigram model over ``texts`` (both sides); deterministic for the same texts."""
        import sentencepiece as spm

        buffer = io.BytesIO()
        # A small corpus cannot fill a large vocabulary; SentencePiece would refuse it.
        vocab_size = min(vocab_size, max(64, _distinct_words(texts) // 2))
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=buffer, vocab_size=vocab_size, model_type="unigram",
            pad_id=PAD, bos_id=SOS, eos_id=EOS, unk_id=UNK, character_coverage=1.0,
            # Every sentence, unshuffled: the same corpus always gives the same pieces.
            input_sentence_size=0, shuffle_input_sentence=False, hard_vocab_limit=False,
            num_threads=2, minloglevel=2,
        )
        return cls(buffer.getvalue())

    def encode_src(self, texts: list[str]) -> list[list[int]]:
        return self.sp.encode(list(texts))

    encode_tgt = encode_src

    def decode_tgt(self, rows: list[list[int]]) -> list[str]:
        return [self.sp.decode(_strip(row)) for row in rows]

    def state(self) -> dict:
        return {"kind": self.kind, "model": self.model_proto}


class WordTokenizer:
    kind = "word"
    shared_vocab = False

    def __init__(self, src_words: list[str], tgt_words: list[str]):
        Vocab = reference.load("vocab").Vocab
        self.clean_text = reference.load("preprocessing").clean_text
        # Vocab(words) puts the four specials first; itos includes them, so skip them here.
        self.src, self.tgt = Vocab(src_words[4:]), Vocab(tgt_words[4:])
        self.src_vocab_size, self.tgt_vocab_size = len(self.src), len(self.tgt)

    @classmethod
    def train(cls, pairs: list[tuple[str, str]], min_freq: int = 1) -> WordTokenizer:
        Vocab = reference.load("vocab").Vocab
        clean_text = reference.load("preprocessing").clean_text
        src = Vocab.build((clean_text(s) for s, _ in pairs), min_freq)
        tgt = Vocab.build((clean_text(t) for _, t in pairs), min_freq)
        return cls(src.itos, tgt.itos)

    def encode_src(self, texts: list[str]) -> list[list[int]]:
        return [self.src.encode(self.clean_text(t)) for t in texts]

    def encode_tgt(self, texts: list[str]) -> list[list[int]]:
        return [self.tgt.encode(self.clean_text(t)) for t in texts]

    def decode_tgt(self, rows: list[list[int]]) -> list[str]:
        return [self.tgt.decode(_strip(row)) for row in rows]

    def state(self) -> dict:
        return {"kind": self.kind, "src": list(self.src.itos), "tgt": list(self.tgt.itos)}


def train(kind: str, pairs: list[tuple[str, str]], vocab_size: int = 4000, min_freq: int = 1):
    if kind == "subword":
        return SubwordTokenizer.train([s for pair in pairs for s in pair], vocab_size)
    if kind == "word":
        return WordTokenizer.train(pairs, min_freq)
    raise ValueError(f"tokenizer must be one of {', '.join(KINDS)}, got {kind!r}")


def from_state(state: dict):
    if state["kind"] == "subword":
        return SubwordTokenizer(state["model"])
    if state["kind"] == "word":
        return WordTokenizer(state["src"], state["tgt"])
    raise ValueError(f"unknown tokenizer kind {state['kind']!r} in the checkpoint")


def _strip(row) -> list[int]:
    """Ids up to the first <eos>, without <sos>/<pad>."""
    out = []
    for i in row:
        if i == EOS:
            break
        if i not in (PAD, SOS):
            out.append(int(i))
    return out


def _distinct_words(texts: list[str]) -> int:
    words: set[str] = set()
    for t in texts:
        words.update(t.split())
    return len(words)
