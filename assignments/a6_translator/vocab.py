"""A word-level vocabulary: words <-> integer ids.

The model sees ids, people see words. Four special tokens come first, with fixed ids in
every vocabulary (the Transformer's ``pad_id`` and the decoder's ``sos_id``/``eos_id``
rely on them):

    0 <pad>  fills short sentences up to the batch length (never a real token)
    1 <sos>  start of sentence: the decoder's first input
    2 <eos>  end of sentence: the decoder's last output
    3 <unk>  any word the vocabulary does not know

Then the words, most frequent first, so that ids are stable for a given corpus.
"""

from collections import Counter

import torch


class Vocab:
    """Maps words to ids (``stoi``) and back (``itos``).

    Attributes:
        itos: list of words; ``itos[i]`` is the word of id ``i`` (the four specials first).
        stoi: dict word -> id, the inverse of ``itos``.
    """

    PAD, SOS, EOS, UNK = "<pad>", "<sos>", "<eos>", "<unk>"
    pad_id, sos_id, eos_id, unk_id = 0, 1, 2, 3

    def __init__(self, words=()):
        """A vocabulary of the four specials followed by ``words``, in the order given.

        Duplicates and special tokens in ``words`` are skipped (their first id stays).
        """
        # Pista: (~6 líneas) itos empieza con los cuatro especiales; añade cada palabra
        # nueva al final; stoi[palabra] es su posición en itos. Los nombres son los de la
        # clase (<sos>, no el <bos> del cuaderno de clase 002 ni el <SOS> del 000), y cada
        # idioma tiene su vocabulario (el 002 comparte uno).
        # Hint: (~6 lines) itos starts with the four specials; append every new word;
        # stoi[word] is its position in itos. The names are the class's (<sos>, not lecture
        # notebook 002's <bos> nor 000's <SOS>), and each language has its own vocabulary
        # (002 shares one).
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: Vocab.__init__")

    @classmethod
    def build(cls, sentences, min_freq=1):
        """The vocabulary of a corpus of cleaned sentences.

        Args:
            sentences: iterable of cleaned strings (see ``preprocessing.clean_text``);
                their words are separated by whitespace.
            min_freq: keep only words seen at least this many times (>= 1); rarer words
                will be encoded as ``<unk>``.

        Returns:
            A ``Vocab`` whose words are sorted by count, most frequent first; words with
            the same count in alphabetical order.

        Raises:
            ValueError: ``min_freq < 1``.
        """
        # Pista: (~5 líneas) valida min_freq; cuenta con collections.Counter las palabras
        # de s.split(); ordena con key=lambda w: (-cuenta[w], w); devuelve cls(palabras). A
        # diferencia del cuaderno de clase 000 (orden de primera aparición), los ids dependen
        # así solo del corpus, no del orden de sus frases.
        # Hint: (~5 lines) validate min_freq; count the words of s.split() with
        # collections.Counter; sort with key=lambda w: (-count[w], w); return cls(words).
        # Unlike lecture notebook 000 (order of first appearance), the ids then depend on the
        # corpus only, not on the order of its sentences.
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: Vocab.build")

    def __len__(self):
        return len(self.itos)

    def encode(self, sentence, add_sos_eos=False):
        """Ids of the words of a cleaned sentence.

        Args:
            sentence: a cleaned string; words separated by whitespace.
            add_sos_eos: put ``sos_id`` before and ``eos_id`` after the words (a decoder
                target).

        Returns:
            A list of ints; unknown words become ``unk_id``.
        """
        # Pista: (~4 líneas) stoi.get(palabra, unk_id) para cada palabra de sentence.split().
        # Hint: (~4 lines) stoi.get(word, unk_id) for every word of sentence.split().
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: Vocab.encode")

    def decode(self, ids):
        """The sentence of a list (or 1-D tensor) of ids.

        ``<pad>``, ``<sos>`` and ``<eos>`` are dropped (they are not words); ``<unk>``
        stays visible. Words are joined with one space.

        Raises:
            IndexError: an id outside ``0 .. len(self) - 1``; the message names the size.
        """
        # Pista: (~8 líneas) un tensor pasa a lista con .tolist(); comprueba el rango de
        # cada id; salta pad, sos y eos; " ".join de las palabras. A diferencia del cuaderno
        # de clase 000, que da <UNK>, un id fuera de rango lanza IndexError: es un fallo, no
        # una palabra desconocida.
        # Hint: (~8 lines) a tensor becomes a list with .tolist(); check each id's range;
        # skip pad, sos and eos; " ".join the words. Unlike lecture notebook 000, which gives
        # <UNK>, an id out of range raises IndexError: it is a bug, not an unknown word.
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: Vocab.decode")
