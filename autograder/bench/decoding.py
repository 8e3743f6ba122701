"""Cached vs uncached greedy decoding, and a5's vs the translator's beam search, on CPU:
``python -m autograder.bench.decoding``.

Trains a small reference Transformer on the toy reversal task, then decodes the same
batch with the key/value cache (solutions/a5_decoding/incremental.py) and without it,
checks both give identical tokens, and prints tokens per second for each. Then beam search
(``--beam-size``) on the same batch: a5's ``beam_search``, one sentence at a time, and the
translator's batched one (autograder/translator/beam.py), with whether their tokens are
identical and the tokens and sentences per second of each.
"""

from __future__ import annotations

import argparse
import time

import torch

from .. import reference
from ..translator import beam
from . import toy


def _timed(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-seconds", type=float, default=30.0)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--src-len", type=int, default=12, help="source length (the output is as long)")
    parser.add_argument("--max-len", type=int, default=20)
    parser.add_argument("--beam-size", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3, help="timing runs per variant; the best is kept")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    print(f"training the toy model for {args.train_seconds:g} s ...", flush=True)
    model, steps, loss = toy.train(args.train_seconds, min_len=args.src_len // 2, max_len=args.src_len,
                                   log=lambda m: print(m, flush=True))
    print(f"trained {steps} steps, final loss {loss:.3f}")

    decoding = reference.load("decoding")
    generator = torch.Generator().manual_seed(1)
    src, _, tgt_out = toy.batch(generator, args.batch, args.src_len, args.src_len)
    results = {}
    for name, use_cache in (("uncached", False), ("cached", True)):
        def run(use_cache=use_cache):
            return decoding.greedy_decode(model, src, args.max_len, toy.SOS, toy.EOS, toy.PAD, use_cache=use_cache)

        tokens, seconds = _timed(run, args.repeats)
        generated = int((tokens != toy.PAD).sum())
        results[name] = (tokens, generated / seconds, seconds)
        print(f"{name:>9}: {generated} tokens in {seconds:.3f} s = {generated / seconds:,.0f} tokens/s")
    same = torch.equal(results["cached"][0], results["uncached"][0])
    exact = sum(out[: len(want)].tolist() == want.tolist()
                for out, want in zip(results["cached"][0], tgt_out))
    print(f"identical tokens: {same}; sequences reversed exactly: {exact}/{args.batch}")
    print(f"speed-up cached / uncached: {results['cached'][1] / results['uncached'][1]:.2f}x "
          f"(batch {args.batch}, output length ~{args.src_len + 1}, threads {args.threads})")

    searches = {"a5 beam (one sentence at a time)": reference.load("beam").beam_search,
                "batched beam (translator)": beam.beam_search}
    for name, search in searches.items():
        def run(search=search):
            return search(model, src, args.beam_size, args.max_len, toy.SOS, toy.EOS, toy.PAD)

        tokens, seconds = _timed(run, args.repeats)
        generated = int((tokens != toy.PAD).sum())
        results[name] = (tokens, generated / seconds, seconds)
        print(f"{name:>33}: {generated} tokens in {seconds:.3f} s = {generated / seconds:,.0f} tokens/s, "
              f"{args.batch / seconds:,.1f} sentences/s")
    a5, batched = (results[name] for name in searches)
    print(f"beam {args.beam_size}: identical tokens: {torch.equal(a5[0], batched[0])}; "
          f"speed-up batched / a5: {batched[1] / a5[1]:.2f}x; batched beam / cached greedy time: "
          f"{batched[2] / results['cached'][2]:.2f}x")


if __name__ == "__main__":
    main()
