"""The special tokens the whole course agrees on: their ids and their text.

The a6 ``Vocab`` puts them first in this order, the a1 masks and the a5 decoders take
``pad_id``/``sos_id``/``eos_id`` with these as defaults, and the translator, the graders
and the benchmarks import them from here.
"""

PAD, SOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ("<pad>", "<sos>", "<eos>", "<unk>")  # text of ids 0, 1, 2, 3
