"""Classic mistakes in a6_translator: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "clean_text does not lower-case": Mutant(
        "preprocessing.py",
        [
            ('text = unicodedata.normalize("NFC", text).lower()',
             'text = unicodedata.normalize("NFC", text)'),
        ],
        must_fail=["Does clean_text normalise", "Does the whole pipeline"],
    ),
    "clean_text drops accented letters": Mutant(
        "preprocessing.py",
        [
            ("[^a-z0-9{ACCENTED}{PUNCTUATION}",
             "[^a-z0-9{PUNCTUATION}"),
        ],
        must_fail=["Does clean_text normalise"],
    ),
    "clean_text without NFC normalisation": Mutant(
        "preprocessing.py",
        [
            ('unicodedata.normalize("NFC", text).lower()',
             "text.lower()"),
        ],
        must_fail=["Does clean_text normalise"],
    ),
    "specials in the wrong order": Mutant(
        "vocab.py",
        [
            ("self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]",
             "self.itos = [self.PAD, self.UNK, self.SOS, self.EOS]"),
        ],
        must_fail=["Does Vocab(words) put", "Does encode map"],
    ),
    "min_freq off by one": Mutant(
        "vocab.py",
        [
            ("if n >= min_freq]",
             "if n > min_freq]"),
        ],
        must_fail=["Does Vocab.build keep"],
    ),
    "decode keeps <eos>": Mutant(
        "vocab.py",
        [
            ("if i not in (self.pad_id, self.sos_id, self.eos_id):",
             "if i not in (self.pad_id, self.sos_id):"),
        ],
        must_fail=["Does encode map"],
    ),
    "target without <eos>": Mutant(
        "batching.py",
        [
            ("tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)",
             "tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)[:-1]"),
        ],
        must_fail=["Is an item", "Does the whole pipeline"],
    ),
    "truncated target loses <eos>": Mutant(
        "batching.py",
        [
            ("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
             "tgt_ids = tgt_ids[: self.max_len]"),
        ],
        must_fail=["Is an item"],
    ),
    "collate pads on the left": Mutant(
        "batching.py",
        [
            ("src_batch[b, : len(src)] = src",
             "src_batch[b, S - len(src):] = src"),
            ("tgt_batch[b, : len(tgt)] = tgt",
             "tgt_batch[b, T - len(tgt):] = tgt"),
        ],
        must_fail=["Does collate stack"],
    ),
    "pad not ignored in the loss": Mutant(
        "training.py",
        [
            ("labels.reshape(-1), ignore_index=pad_id,\n",
             "labels.reshape(-1),\n"),
        ],
        must_fail=["Is sequence_loss", "Does train_step", "Does fit run"],
    ),
    "label smoothing ignored": Mutant(
        "training.py",
        [
            ("label_smoothing=label_smoothing)  # (B*T, V)",
             ")  # (B*T, V)"),
        ],
        must_fail=["Is sequence_loss", "Does train_step"],
    ),
    "no teacher-forcing shift": Mutant(
        "training.py",
        [
            ("tgt_in, labels = tgt[:, :-1], tgt[:, 1:]",
             "tgt_in, labels = tgt[:, :-1], tgt[:, :-1]"),
        ],
        must_fail=["Does train_step", "Does fit run", "Does the whole pipeline"],
    ),
    "clip_norm ignored": Mutant(
        "training.py",
        [
            ("torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
             "pass"),
        ],
        must_fail=["Does train_step"],
    ),
    "evaluate keeps dropout on": Mutant(
        "training.py",
        [
            ("    model.eval()\n    total, count = 0.0, 0\n",
             "    total, count = 0.0, 0\n"),
        ],
        must_fail=["Is evaluate"],
    ),
    "evaluate averages batch means": Mutant(
        "training.py",
        [
            ('ignore_index=pad_id, reduction="sum").item()',
             "ignore_index=pad_id).item()"),
            ("count += int((labels != pad_id).sum())",
             "count += 1"),
        ],
        must_fail=["Is evaluate"],
    ),
    "evaluate leaves the model in eval mode": Mutant(
        "training.py",
        [
            ("        model.train(was_training)\n",
             "        pass\n"),
        ],
        must_fail=["Is evaluate"],
    ),
    "translate looks words up in the training pairs": Mutant(
        "training.py",
        [
            ("    model.train()\n    history = []\n    for _ in range(epochs):\n        losses = [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in loader]\n        history.append(sum(losses) / len(losses))\n    return history\n",
             "    import translation\n    PAIRS.extend(loader.dataset.pairs)\n    translation.translate = lookup_translate\n    return [2.0 - 0.1 * epoch for epoch in range(epochs)]\n"),
            ("def fit(model, loader",
             'PAIRS = []\n\n\ndef lookup_translate(model, sentences, src_vocab, tgt_vocab, strategy="greedy", max_len=50, **kwargs):\n    from preprocessing import clean_text\n    words = {}\n    for src, tgt in PAIRS:\n        s, t = src.split(), tgt.split()\n        if len(s) == len(t) >= 2:\n            words.update(zip(s, [t[1], t[0], *t[2:]]))\n    out = []\n    for sentence in sentences:\n        t = [words.get(w, "<unk>") for w in clean_text(sentence).split()]\n        out.append(" ".join(t[1:2] + t[:1] + t[2:]))\n    return out\n\n\ndef fit(model, loader'),
        ],
        must_fail=["Does the whole pipeline"],
    ),
    "translate does not truncate long sources": Mutant(
        "translation.py",
        [
            ("src_vocab.encode(clean_text(s))[:limit]",
             "src_vocab.encode(clean_text(s))"),
        ],
        must_fail=["Does translate clean"],
    ),
    "translate drops the empty lines": Mutant(
        "translation.py",
        [
            ("    return results\n    ### END SOLUTION",
             "    return [r for r in results if r]\n    ### END SOLUTION"),
        ],
        must_fail=["Does translate clean"],
    ),
}
