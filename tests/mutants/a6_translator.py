"""Classic mistakes in a6_translator: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

# fit_and_validate's epoch, as the reference writes it (its mutants below edit these lines).
TRAIN_EPOCH = '        losses = [train_step(model, src, tgt, optimizer, pad_id=pad_id, label_smoothing=label_smoothing,\n                             clip_norm=clip_norm) for src, tgt in train_loader]\n'
VALID_EPOCH = '        curves["valid"].append(evaluate(model, valid_loader, pad_id))'

# checkpoint.py's two bodies, as the reference writes them (its mutants below edit these lines).
CHECKPOINT_SAVE = ('    checkpoint = {"config": dataclasses.asdict(model.config), "state_dict": model.state_dict(), '
                   '"extra": dict(extra)}\n')
CHECKPOINT_LOAD = ('    checkpoint = torch.load(path, map_location=map_location, weights_only=True)\n'
                   '    model = Transformer(TransformerConfig(**checkpoint["config"]))\n'
                   '    model.load_state_dict(checkpoint["state_dict"])\n'
                   '    model.eval()\n'
                   '    return model, checkpoint["extra"]\n')

MUTANTS = {
    "read_pairs skips the first line as a header": Mutant(
        "corpus.py",
        [
            ("        for line in f:\n",
             "        for line in list(f)[1:]:\n"),
        ],
        must_fail=["Does read_pairs read"],
        names="skips the first line as if it were a header",
    ),
    "read_pairs takes a header line for a pair (no id check)": Mutant(
        "corpus.py",
        [
            ("if len(fields) == 4 and fields[0].isdigit() and fields[2].isdigit():",
             "if len(fields) == 4:"),
        ],
        must_fail=["Does read_pairs read"],
        names="takes a line such as a header",
    ),
    "read_pairs does not strip the fields": Mutant(
        "corpus.py",
        [
            ("fields = [field.strip() for field in line.split(sep)]",
             "fields = line.split(sep)"),
        ],
        must_fail=["Does read_pairs read"],
        names="does not strip the sentences",
    ),
    "drop_long_pairs off by one (< max_words)": Mutant(
        "corpus.py",
        [
            ("if len(en.split()) <= max_words and len(es.split()) <= max_words]",
             "if len(en.split()) < max_words and len(es.split()) < max_words]"),
        ],
        must_fail=["Does drop_long_pairs keep"],
        names="drops the sides of exactly max_words words",
    ),
    "drop_long_pairs checks the English side only": Mutant(
        "corpus.py",
        [
            ("if len(en.split()) <= max_words and len(es.split()) <= max_words]",
             "if len(en.split()) <= max_words]"),
        ],
        must_fail=["Does drop_long_pairs keep"],
        names="checks only the English side",
    ),
    "drop_long_pairs sorts short to long (lecture 003's sort)": Mutant(
        "corpus.py",
        [
            ("    return [(en, es) for en, es in pairs if len(en.split()) <= max_words and len(es.split()) <= max_words]",
             "    kept = [(en, es) for en, es in pairs if len(en.split()) <= max_words and len(es.split()) <= max_words]"
             "\n    return sorted(kept, key=lambda p: len(p[0]))"),
        ],
        must_fail=["Does drop_long_pairs keep"],
        names="come back in another order",
    ),
    "split by line (the lecture's random_split)": Mutant(
        "corpus.py",
        [
            ("    sentences = list(count)  # first-seen order: a dict keeps it, a set would not\n"
             "    random.Random(seed).shuffle(sentences)\n"
             "    held_out, n = set(), 0\n"
             "    for en in sentences:\n"
             "        if n >= wanted:\n"
             "            break\n"
             "        held_out.add(en)\n"
             "        n += count[en]\n"
             "    train = [(en, es) for en, es in pairs if en not in held_out]\n"
             "    valid = [(en, es) for en, es in pairs if en in held_out]\n",
             "    lines = list(range(len(pairs)))\n"
             "    random.Random(seed).shuffle(lines)\n"
             "    held_out = set(lines[:wanted])\n"
             "    train = [p for i, p in enumerate(pairs) if i not in held_out]\n"
             "    valid = [p for i, p in enumerate(pairs) if i in held_out]\n"),
        ],
        must_fail=["Does split_by_source keep all pairs", "Does split_by_source give"],
        names="splits line by line",
    ),
    "split not deterministic (global random state)": Mutant(
        "corpus.py",
        [
            ("random.Random(seed).shuffle(sentences)",
             "random.shuffle(sentences)"),
        ],
        must_fail=["Does split_by_source give"],
        names="gives another split each time for the same seed",
    ),
    "split ignores the seed": Mutant(
        "corpus.py",
        [
            ("random.Random(seed).shuffle(sentences)",
             "random.Random(0).shuffle(sentences)"),
        ],
        must_fail=["Does split_by_source give"],
        names="the same split whatever the seed",
    ),
    "split sorts the pairs": Mutant(
        "corpus.py",
        [
            ("    return train, valid\n",
             "    return sorted(train), sorted(valid)\n"),
        ],
        must_fail=["Does split_by_source keep all pairs", "Does split_by_source give"],
        names="changes the order of the pairs",
    ),
    "clean_text does not lower-case": Mutant(
        "preprocessing.py",
        [
            ('text = unicodedata.normalize("NFC", text).lower()',
             'text = unicodedata.normalize("NFC", text)'),
        ],
        must_fail=["Does clean_text normalise", "Does translate clean", "Does the whole pipeline"],
        names='does not lower-case the text',
    ),
    "clean_text drops accented letters": Mutant(
        "preprocessing.py",
        [
            ("[^a-z0-9{ACCENTED}{PUNCTUATION}",
             "[^a-z0-9{PUNCTUATION}"),
        ],
        must_fail=["Does clean_text normalise"],
        names='deletes the Spanish letters',
    ),
    "clean_text without NFC normalisation": Mutant(
        "preprocessing.py",
        [
            ('unicodedata.normalize("NFC", text).lower()',
             "text.lower()"),
        ],
        must_fail=["Does clean_text normalise"],
        names='does not apply unicodedata.normalize',
    ),
    "specials in the wrong order": Mutant(
        "vocab.py",
        [
            ("self.itos = [self.PAD, self.SOS, self.EOS, self.UNK]",
             "self.itos = [self.PAD, self.UNK, self.SOS, self.EOS]"),
        ],
        must_fail=["Does Vocab(words) put", "Does Vocab.build keep", "Does encode map", "Does translate clean",
                   "Does the whole pipeline"],
        names='does not put the four special tokens first',
    ),
    "min_freq off by one": Mutant(
        "vocab.py",
        [
            ("if n >= min_freq]",
             "if n > min_freq]"),
        ],
        must_fail=["Does Vocab.build keep"],
        names='drops the words seen exactly min_freq times',
    ),
    "decode keeps <eos>": Mutant(
        "vocab.py",
        [
            ("if i not in (self.pad_id, self.sos_id, self.eos_id):",
             "if i not in (self.pad_id, self.sos_id):"),
        ],
        must_fail=["Does encode map"],
        names='decode does not drop <pad>, <sos> and <eos>',
    ),
    "target without <eos>": Mutant(
        "batching.py",
        [
            ("tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)",
             "tgt_ids = self.tgt_vocab.encode(tgt, add_sos_eos=True)[:-1]"),
        ],
        must_fail=["Is an item", "Does the whole pipeline"],
        names='lacks <eos> at the end',
    ),
    "truncated target loses <eos>": Mutant(
        "batching.py",
        [
            ("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
             "tgt_ids = tgt_ids[: self.max_len]"),
        ],
        must_fail=["Is an item"],
        names='without putting <eos> back',
    ),
    "truncated target keeps its last words after <sos>": Mutant(
        "batching.py",
        [
            ("tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
             "tgt_ids = [self.tgt_vocab.sos_id] + tgt_ids[len(tgt_ids) - self.max_len + 1:]"),
        ],
        must_fail=["Is an item"],
        names="keeps the end of the sentence",
    ),
    "source cut one id short (max_len - 1, as if it had <eos>)": Mutant(
        "batching.py",
        [
            ("src_ids = src_ids[: self.max_len]",
             "src_ids = src_ids[: self.max_len - 1]"),
        ],
        must_fail=["Is an item"],
        names="ids, not max_len",
    ),
    "collate pads on the left": Mutant(
        "batching.py",
        [
            ("src_batch[b, : len(src)] = src",
             "src_batch[b, S - len(src):] = src"),
            ("tgt_batch[b, : len(tgt)] = tgt",
             "tgt_batch[b, T - len(tgt):] = tgt"),
        ],
        must_fail=["Does collate stack", "Does the whole pipeline"],
        names='collate pads on the left',
    ),
    "pad not ignored in the loss": Mutant(
        "training.py",
        [
            ("labels.reshape(-1), ignore_index=pad_id,\n",
             "labels.reshape(-1),\n"),
        ],
        must_fail=["Is sequence_loss", "Does train_step", "Does fit run"],
        names='does not ignore the <pad> labels',
    ),
    "label smoothing ignored": Mutant(
        "training.py",
        [
            ("label_smoothing=label_smoothing)  # (B*T, V)",
             ")  # (B*T, V)"),
        ],
        must_fail=["Is sequence_loss", "Does train_step", "Does fit run"],
        names='label_smoothing is not passed on',
    ),
    "no teacher-forcing shift": Mutant(
        "training.py",
        [
            ("tgt_in, labels = tgt[:, :-1], tgt[:, 1:]",
             "tgt_in, labels = tgt[:, :-1], tgt[:, :-1]"),
        ],
        must_fail=["Does train_step", "Does fit run", "Does the whole pipeline"],
        names='teacher forcing is off by one',
    ),
    "clip_norm ignored": Mutant(
        "training.py",
        [
            ("torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
             "pass"),
        ],
        must_fail=["Does train_step"],
        names='clip_norm is ignored',
    ),
    "evaluate keeps dropout on": Mutant(
        "training.py",
        [
            ("    model.eval()\n    total, count = 0.0, 0\n",
             "    total, count = 0.0, 0\n"),
        ],
        must_fail=["Is evaluate"],
        names='evaluate does not put the model in eval mode',
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
        names='evaluate averages the batch means',
    ),
    "evaluate leaves the model in eval mode": Mutant(
        "training.py",
        [
            ("        model.train(was_training)\n",
             "        pass\n"),
        ],
        must_fail=["Is evaluate"],
        names='does not put the model back in the mode it had',
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
        names='does not cut a source to model.config.max_len',
    ),
    "translate drops the empty lines": Mutant(
        "translation.py",
        [
            ("    return results\n    ### END SOLUTION",
             "    return [r for r in results if r]\n    ### END SOLUTION"),
        ],
        must_fail=["Does translate clean"],
        names='drops the sentences that are empty',
    ),
    "clean_text does not space out punctuation": Mutant(
        "preprocessing.py",
        [
            ('    text = re.sub(f"([{PUNCTUATION}])", r" \\1 ", text)\n', ""),
        ],
        must_fail=["Does clean_text normalise", "Does translate clean"],
        names="does not put a space on each side",
    ),
    "clean_text turns symbols into spaces": Mutant(
        "preprocessing.py",
        [
            ('{PUNCTUATION}\\\\s]", "", text)', '{PUNCTUATION}\\\\s]", " ", text)'),
        ],
        must_fail=["Does clean_text normalise"],
        names="turns the other symbols into spaces",
    ),
    "ties in first-seen order": Mutant(
        "vocab.py",
        [
            ("return cls(sorted(kept, key=lambda word: (-counts[word], word)))",
             "return cls([word for word, n in counts.most_common() if n >= min_freq])"),
        ],
        must_fail=["Does Vocab.build keep"],
        names="ties must be alphabetical",
    ),
    "encode adds unknown words to stoi (setdefault)": Mutant(
        "vocab.py",
        [("ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]",
          "ids = [self.stoi.setdefault(word, self.unk_id) for word in sentence.split()]")],
        must_fail=["Does encode map unknown words to <unk>"],
        names="encode adds the unknown words to stoi",
    ),
    "encode drops unknown words": Mutant(
        "vocab.py",
        [
            ("ids = [self.stoi.get(word, self.unk_id) for word in sentence.split()]",
             "ids = [self.stoi[word] for word in sentence.split() if word in self.stoi]"),
        ],
        must_fail=["Does encode map", "Is an item", "Does translate clean"],
        names="encode drops the unknown words",
    ),
    "collate ignores pad_id": Mutant(
        "batching.py",
        [
            ("torch.full((len(batch), S), pad_id,", "torch.full((len(batch), S), 0,"),
            ("torch.full((len(batch), T), pad_id,", "torch.full((len(batch), T), 0,"),
        ],
        must_fail=["Does collate stack"],
        names="fills with 0 instead of the pad_id",
    ),
    "source not cut to max_len": Mutant(
        "batching.py",
        [
            ("            src_ids = src_ids[: self.max_len]\n", ""),
        ],
        must_fail=["Is an item"],
        names="does not cut the source",
    ),
    "optimizer.zero_grad() missing": Mutant(
        "training.py",
        [
            ("    optimizer.zero_grad()\n    loss.backward()\n", "    loss.backward()\n"),
        ],
        must_fail=["Does train_step", "Does fit run", "Does the whole pipeline"],
        names="optimizer.zero_grad() is missing",
    ),
    "zero_grad after backward": Mutant(
        "training.py",
        [
            ("    optimizer.zero_grad()\n    loss.backward()\n", "    loss.backward()\n    optimizer.zero_grad()\n"),
        ],
        must_fail=["Does train_step", "Does fit run", "Does the whole pipeline"],
        names="runs after loss.backward()",
    ),
    "train_step returns early without optimizer.step() when clip_norm is None": Mutant(
        "training.py",
        [
            ("    if clip_norm is not None:\n        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n",
             "    if clip_norm is None:\n        return loss.item()\n"
             "    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"),
        ],
        must_fail=["Does fit run", "Does the whole pipeline"],
        names="optimizer.step() is skipped when clip_norm is None",
    ),
    "train_step returns the loss tensor": Mutant(
        "training.py",
        [
            ("    optimizer.step()\n    return loss.item()\n", "    optimizer.step()\n    return loss\n"),
        ],
        must_fail=["Does train_step", "Does fit run", "Does the whole pipeline"],
        names=".item()",
    ),
    "fit keeps the last batch loss": Mutant(
        "training.py",
        [
            ("history.append(sum(losses) / len(losses))", "history.append(losses[-1])"),
        ],
        must_fail=["Does fit run"],
        names="last batch loss",
    ),
    "fit divides by len(loader.dataset)": Mutant(
        "training.py",
        [
            ("history.append(sum(losses) / len(losses))", "history.append(sum(losses) / len(loader.dataset))"),
        ],
        must_fail=["Does fit run"],
        names="len(loader.dataset), the number of sentence pairs",
    ),
    "evaluate without torch.no_grad()": Mutant(
        "training.py",
        [
            ("        with torch.no_grad():\n            for src, tgt in batches:",
             "        if True:\n            for src, tgt in batches:"),
        ],
        must_fail=["Is evaluate"],
        names="wrap the loop in torch.no_grad()",
    ),
    "translate without model.eval()": Mutant(
        "translation.py",
        [
            ("    model.eval()\n    out = decode(", "    out = decode("),
        ],
        must_fail=["Does translate clean"],
        names="translate does not put the model in eval mode",
    ),
    "translate does not cap max_len": Mutant(
        "translation.py",
        [
            ("min(max_len, limit)", "max_len"),
        ],
        must_fail=["Does translate clean"],
        names="does not cap max_len",
    ),
    "translate skips clean_text": Mutant(
        "translation.py",
        [
            ("src_vocab.encode(clean_text(s))[:limit]", "src_vocab.encode(s)[:limit]"),
        ],
        must_fail=["Does translate clean", "Does the whole pipeline"],
        names="does not run clean_text",
    ),
    # A hole the held-out set found (it kept full marks at one seed of three).
    "translate decodes the sentences that are empty after cleaning": Mutant(
        "translation.py",
        [("rows = [i for i, ids in enumerate(encoded) if ids]", "rows = list(range(len(encoded)))"),
         ("S = max(len(encoded[i]) for i in rows)", "S = max(1, *(len(encoded[i]) for i in rows))")],
        must_fail=["Does translate clean"],
        names="empty after cleaning to the model",
    ),
    "decode accepts negative ids": Mutant(
        "vocab.py",
        [("if not 0 <= i < len(self.itos):", "if i >= len(self.itos):")],
        must_fail=["Does encode map unknown words to <unk>"],
    ),
    "collate returns the target batch first": Mutant(
        "batching.py",
        [("return src_batch, tgt_batch", "return tgt_batch, src_batch")],
        must_fail=["Does collate stack"],
        names="collate returns (target batch, source batch)",
    ),
    "decode's range check off by one (i <= len(self.itos))": Mutant(
        "vocab.py",
        [("if not 0 <= i < len(self.itos):", "if not 0 <= i <= len(self.itos):")],
        must_fail=["Does encode map unknown words to <unk>"],
        names="one past the last, passes the range check",
    ),
    "every target cut and re-terminated, so short ones get two <eos>": Mutant(
        "batching.py",
        [("            if len(tgt_ids) > self.max_len:\n                tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]",
          "            tgt_ids = tgt_ids[: self.max_len - 1] + [self.tgt_vocab.eos_id]")],
        must_fail=["Is an item (source ids"],
        names="ends with two <eos>",
    ),
    "items built with torch.tensor(ids), float32 for an empty source": Mutant(
        "batching.py",
        [("return torch.tensor(src_ids, dtype=torch.long), torch.tensor(tgt_ids, dtype=torch.long)",
          "return torch.tensor(src_ids), torch.tensor(tgt_ids)")],
        must_fail=["Is an item (source ids"],
        names="build them with dtype=torch.long",
    ),
    "decode breaks at the first special id instead of skipping it": Mutant(
        "vocab.py",
        [("            if i not in (self.pad_id, self.sos_id, self.eos_id):\n                words.append(self.itos[i])",
          "            if i in (self.pad_id, self.sos_id, self.eos_id):\n                break\n"
          "            words.append(self.itos[i])")],
        must_fail=["Does encode map unknown words to <unk>"],
        names="decode stops at the first special id",
    ),
    "fit lists the loader once, so every epoch repeats the first one's batch order": Mutant(
        "training.py",
        [("    for _ in range(epochs):\n        losses = [train_step(model, src, tgt, optimizer, pad_id, label_smoothing, "
          "clip_norm) for src, tgt in loader]",
          "    batches = list(loader)\n    for _ in range(epochs):\n        losses = [train_step(model, src, tgt, "
          "optimizer, pad_id, label_smoothing, clip_norm) for src, tgt in batches]")],
        must_fail=["Does fit run train_step"],
        names="repeats the first one's order",
    ),
    "translate ignores its max_len (decodes up to the model's)": Mutant(
        "translation.py",
        [("min(max_len, limit)", "limit")],
        must_fail=["Does translate clean, truncate"],
        names="translate ignores its max_len",
    ),
    "evaluate divides by a count of 0 (no check for an all-padding set)": Mutant(
        "training.py",
        [("    if count == 0:\n        raise ValueError(\"no target tokens to evaluate (every label is pad_id)\")\n", "")],
        must_fail=["Is evaluate the per-token mean"],
        names="raise ValueError when the count of scored tokens is 0",
    ),
    "dataset serves the next pair (pairs[(i + 1) % n])": Mutant(
        "batching.py",
        [("src, tgt = self.pairs[i]", "src, tgt = self.pairs[(i + 1) % len(self.pairs)]")],
        must_fail=["Is an item (source ids"],
        names="item i holds pair i + 1",
    ),
    "collate fills the batch after the loop (only the last row)": Mutant(
        "batching.py",
        [("    for b, (src, tgt) in enumerate(batch):\n        src_batch[b, : len(src)] = src\n"
          "        tgt_batch[b, : len(tgt)] = tgt\n",
          "    for b, (src, tgt) in enumerate(batch):\n        pass\n    src_batch[b, : len(src)] = src\n"
          "    tgt_batch[b, : len(tgt)] = tgt\n")],
        must_fail=["Does collate stack items"],
        names="only the last row is filled",
    ),
    "collate fills the target rows from the source": Mutant(
        "batching.py",
        [("        tgt_batch[b, : len(tgt)] = tgt\n", "        tgt_batch[b, : len(src)] = src\n")],
        must_fail=["Does collate stack items"],
        names="batch is filled from the",
    ),
    "clip_grad_norm_ given model.parameters uncalled": Mutant(
        "training.py",
        [("clip_grad_norm_(model.parameters(), clip_norm)", "clip_grad_norm_(model.parameters, clip_norm)")],
        must_fail=["Does train_step shift the target"],
        names="a method passed where its result belongs",
    ),
    "labels flattened to (B*T, 1)": Mutant(
        "training.py",
        [("labels.reshape(-1), ignore_index=pad_id,\n                           label_smoothing",
          "labels.reshape(-1, 1), ignore_index=pad_id,\n                           label_smoothing")],
        must_fail=["Is sequence_loss the cross-entropy"],
        names="cross_entropy's labels have an axis too many",
    ),
    "evaluate writes with torch.no_grad: (the class)": Mutant(
        "training.py",
        [("        with torch.no_grad():\n", "        with torch.no_grad:\n")],
        must_fail=["Is evaluate the per-token mean"],
        names="a class used in a with statement",
    ),
    "evaluate counts the labels that are not 0": Mutant(
        "training.py",
        [("count += int((labels != pad_id).sum())", "count += int((labels != 0).sum())")],
        must_fail=["Is evaluate the per-token mean"],
        names="instead of those equal to its pad_id argument",
    ),
    "fit does not pass pad_id on to train_step": Mutant(
        "training.py",
        [("train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm)",
          "train_step(model, src, tgt, optimizer, label_smoothing=label_smoothing, clip_norm=clip_norm)")],
        must_fail=["Does fit run train_step"],
        names="fit does not pass its pad_id on",
    ),
    "source cut only when the target is too long": Mutant(
        "batching.py",
        [("            src_ids = src_ids[: self.max_len]\n            if len(tgt_ids) > self.max_len:\n",
          "            if len(tgt_ids) > self.max_len:\n                src_ids = src_ids[: self.max_len]\n")],
        must_fail=["Is an item (source ids, <sos> + target ids + <eos>)"],
    ),
    "clean_text normalises with NFKC": Mutant(
        "preprocessing.py",
        [('unicodedata.normalize("NFC", text)', 'unicodedata.normalize("NFKC", text)')],
        must_fail=["Does clean_text normalise"],
        names='applies unicodedata.normalize("NFKC"',
    ),
    "an empty sentence is not framed": Mutant(
        "vocab.py",
        [("        if add_sos_eos:\n", "        if add_sos_eos and ids:\n")],
        must_fail=["Does encode map unknown words"],
        names="an empty sentence is not framed",
    ),
    "translate returns a bare string for one sentence": Mutant(
        "translation.py",
        [("        results[i] = tgt_vocab.decode(ids)\n    return results",
          "        results[i] = tgt_vocab.decode(ids)\n    return results[0] if len(results) == 1 else results")],
        must_fail=["Does translate clean, truncate"],
        names="list of one sentence must return a list",
    ),
    "translate batches even when no line has a word": Mutant(
        "translation.py",
        [("    if not rows:\n        return results\n", "")],
        must_fail=["Does translate clean, truncate"],
        names="no line has a word left after cleaning",
    ),
    "fit returns each epoch's perplexity, torch.tensor(mean loss).exp().item()": Mutant(
        "training.py",
        [("        history.append(sum(losses) / len(losses))",
          "        history.append(torch.tensor(sum(losses) / len(losses)).exp().item())")],
        must_fail=["Does fit run"],
        names="perplexity",
    ),
    "every row of collate's batch filled with each item (src_batch[..., :len(src)], the row not chosen)": Mutant(
        "batching.py",
        [("        src_batch[b, : len(src)] = src\n", "        src_batch[..., : len(src)] = src\n")],
        must_fail=["Does collate stack"],
        names="written into every index of that axis",
    ),
    "evaluate restores the mode by assigning model.training (the submodules stay in eval mode)": Mutant(
        "training.py",
        [("        model.train(was_training)", "        model.training = was_training")],
        must_fail=["Is evaluate the per-token mean"],
        names="by assigning model.training",
    ),
    "Vocab's id counter goes up for every word, repeated ones too (ids with gaps)": Mutant(
        "vocab.py",
        [("        for word in words:\n            if word not in self.stoi:\n                self.stoi[word] = len(self.itos)\n"
          "                self.itos.append(word)\n",
          "        next_id = len(self.itos)\n        for word in words:\n            if word not in self.stoi:\n"
          "                self.stoi[word] = next_id\n                self.itos.append(word)\n            next_id += 1\n")],
        must_fail=["Does Vocab(words) put <pad>"],
        names="the ids have gaps",
    ),
    "translate gives \"\" for a sentence of unknown words only": Mutant(
        "translation.py",
        [("    rows = [i for i, ids in enumerate(encoded) if ids]",
          "    rows = [i for i, ids in enumerate(encoded) if set(ids) - {src_vocab.unk_id}]")],
        must_fail=["Does translate clean, truncate"],
        names="made only of unknown words",
    ),
    "collate pads both sides to one common length": Mutant(
        "batching.py",
        [("    S = max(len(src) for src, _ in batch)\n    T = max(len(tgt) for _, tgt in batch)\n",
          "    S = T = max(max(len(src), len(tgt)) for src, tgt in batch)\n")],
        must_fail=["Does collate stack items"],
        names="one common length",
    ),
    "long source cut like the target (max_len - 1 ids, then <eos>)": Mutant(
        "batching.py",
        [("src_ids = src_ids[: self.max_len]",
          "src_ids = src_ids[: self.max_len - 1] + [self.src_vocab.eos_id] if len(src_ids) > self.max_len else src_ids")],
        must_fail=["Is an item"],
        names="only the target is framed",
    ),

    "fit_and_validate validates before each epoch's training": Mutant(
        "training.py",
        [(TRAIN_EPOCH, VALID_EPOCH + "\n" + TRAIN_EPOCH),
         (VALID_EPOCH + "  # after the epoch's updates, in eval mode\n", "")],
        must_fail=["Does fit_and_validate train each epoch"],
        names="before each epoch's training",
    ),
    "fit_and_validate validates in training mode (its own loop, no model.eval())": Mutant(
        "training.py",
        [("evaluate(model, valid_loader, pad_id))",
          "sum(F.cross_entropy(model(s, t[:, :-1]).flatten(0, 1), t[:, 1:].flatten(), ignore_index=pad_id, "
          "reduction=\"sum\").item() for s, t in valid_loader) / sum(int((t[:, 1:] != pad_id).sum()) "
          "for _, t in valid_loader))")],
        must_fail=["Does fit_and_validate train each epoch"],
        names="validates with the model in training mode",
    ),
    "fit_and_validate returns the training loss as the validation loss": Mutant(
        "training.py",
        [(VALID_EPOCH, '        curves["valid"].append(curves["train"][-1])')],
        must_fail=["Does fit_and_validate train each epoch"],
        names="holds the training losses",
    ),
    "fit_and_validate evaluates once, after the loop, one value for every epoch": Mutant(
        "training.py",
        [(VALID_EPOCH + "  # after the epoch's updates, in eval mode\n    return curves",
          '    curves["valid"] = [evaluate(model, valid_loader, pad_id)] * epochs\n    return curves')],
        must_fail=["Does fit_and_validate train each epoch"],
        names="the validation loss of the last one",
    ),
    "fit_and_validate evaluates the training loader": Mutant(
        "training.py",
        [("evaluate(model, valid_loader, pad_id))", "evaluate(model, train_loader, pad_id))")],
        must_fail=["Does fit_and_validate train each epoch"],
        names="evaluates the training batches",
    ),
    "fit_and_validate calls model.eval() before evaluate and never model.train() again": Mutant(
        "training.py",
        [(VALID_EPOCH, "        model.eval()\n" + VALID_EPOCH)],
        must_fail=["Does fit_and_validate train each epoch"],
        names="trains the next epoch in eval mode",
    ),
    "fit_and_validate does not pass pad_id on to evaluate": Mutant(
        "training.py",
        [("evaluate(model, valid_loader, pad_id))", "evaluate(model, valid_loader))")],
        must_fail=["Does fit_and_validate train each epoch"],
        names="does not pass its pad_id on to evaluate",
    ),

    "checkpoint pickles the whole model and loads it with weights_only=False": Mutant(
        "checkpoint.py",
        [(CHECKPOINT_SAVE, '    checkpoint = {"model": model, "extra": dict(extra)}\n'),
         (CHECKPOINT_LOAD, '    checkpoint = torch.load(path, map_location=map_location, weights_only=False)\n'
                           '    model = checkpoint["model"]\n'
                           '    model.eval()\n'
                           '    return model, checkpoint["extra"]\n')],
        must_fail=["Does load_model read a valid checkpoint but refuse", "Does load_model read a checkpoint in the"],
        names="the code the checkpoint carried ran",
    ),
    "checkpoint stores the TransformerConfig object, not dataclasses.asdict": Mutant(
        "checkpoint.py",
        [('checkpoint = {"config": dataclasses.asdict(model.config)', 'checkpoint = {"config": model.config'),
         ('Transformer(TransformerConfig(**checkpoint["config"]))', 'Transformer(checkpoint["config"])')],
        must_fail=["Does load_model give back", "Does load_model rebuild"],
        names="weights_only=True) refuses to read",
    ),
    "checkpoint keeps only the vocabulary sizes of the config (the rest rebuilt at its defaults)": Mutant(
        "checkpoint.py",
        [('checkpoint = {"config": dataclasses.asdict(model.config)',
          'checkpoint = {"config": {"src_vocab_size": model.config.src_vocab_size, '
          '"tgt_vocab_size": model.config.tgt_vocab_size}')],
        must_fail=["Does load_model give back", "Does load_model rebuild"],
        names="rebuilt with another configuration",
    ),
    "load_model rebuilds without the saved norm_first": Mutant(
        "checkpoint.py",
        [('Transformer(TransformerConfig(**checkpoint["config"]))',
          'Transformer(TransformerConfig(**{k: v for k, v in checkpoint["config"].items() if k != "norm_first"}))')],
        must_fail=["Does load_model give back", "Does load_model rebuild", "Does load_model read a checkpoint in the"],
        names="rebuilt with another configuration",
    ),
    "load_model does not call model.eval()": Mutant(
        "checkpoint.py",
        [("    model.eval()\n    return model, checkpoint", "    return model, checkpoint")],
        must_fail=["Does load_model give back", "Does load_model read a checkpoint in the"],
        names="returns the model in training mode",
    ),
    "load_model without map_location (a GPU's file fails on the CPU)": Mutant(
        "checkpoint.py",
        [("    checkpoint = torch.load(path, map_location=map_location, weights_only=True)",
          "    checkpoint = torch.load(path, weights_only=True)")],
        must_fail=["Does load_model read a checkpoint in the"],
        names="does not pass map_location on",
    ),
    "load_state_dict(strict=False)": Mutant(
        "checkpoint.py",
        [('model.load_state_dict(checkpoint["state_dict"])',
          'model.load_state_dict(checkpoint["state_dict"], strict=False)')],
        must_fail=["Does load_model raise RuntimeError"],
        names="accepts weights that do not fit",
    ),
    "save_model saves named_parameters only (the buffers are lost)": Mutant(
        "checkpoint.py",
        [('"state_dict": model.state_dict(), "extra": dict(extra)}',
          '"state_dict": dict(model.named_parameters()), "extra": dict(extra)}')],
        must_fail=["Does load_model give back", "Does load_model rebuild"],
        names="lack the model's buffers",
    ),
    "save_model saves a fresh model's weights (as if saved before training)": Mutant(
        "checkpoint.py",
        [('"state_dict": model.state_dict(), "extra": dict(extra)}',
          '"state_dict": Transformer(model.config).state_dict(), "extra": dict(extra)}')],
        must_fail=["Does load_model give back", "Does load_model rebuild"],
        names="weights are not those of the model saved",
    ),
    "save_model drops the extra data": Mutant(
        "checkpoint.py",
        [('"extra": dict(extra)}', '"extra": {}}')],
        must_fail=["Does load_model give back"],
        names="does not give back the extra data",
    ),
    "load_model returns the model alone, not (model, extra)": Mutant(
        "checkpoint.py",
        [('    return model, checkpoint["extra"]\n', "    return model\n")],
        must_fail=["Does load_model give back", "Does load_model rebuild", "Does load_model read a checkpoint in the"],
        names="must return a pair (model, extra)",
    ),
}
