"""Speed beside other work: ``python -m autograder.bench.contention [--work train translate grade]``.

A lab server, a laptop with a browser open or a CI runner shares its cores. This runs the
same piece of work quiet, beside one and beside two busy processes (each a Python loop that
keeps one core busy), under each thread setting, all in one run, and prints the seconds and
the slowdown against the same setting's quiet run. The fair slowdown is what the work's
share of the cores costs: t threads beside b busy processes on c cores get
min(t, c * t / (t + b)) cores.

Work:
    train      ``--steps`` training steps of the translator's default model (float32 unless
               ``--precision``), on batches of the embedded corpus; setup not timed.
    translate  greedy translation of ``--sentences`` sentences, batched as ``translate`` does,
               with a fixed random model (every sentence runs to its length budget).
    grade      ``python -m autograder grade solutions --only a1_attention --only a3_blocks``:
               grading processes and sandboxed workers, one torch thread each (settings.py).

Settings (train and translate; grading keeps its own):
    torch      what the course shipped before: torch's defaults (threads = cores, OpenMP's
               default wait policy, which spins a while before it sleeps).
    passive    what ships now: idle OpenMP threads sleep (OMP_WAIT_POLICY=PASSIVE).
    passive+interop1  the same with one inter-op thread (torch.set_num_interop_threads(1)).
    1 thread   torch.set_num_threads(1).

``--isa avx2`` runs the work as on a CPU without AVX-512 (and so without fast bfloat16, like
the AVX2-only AMD EPYC of issue 47): MKL, oneDNN and torch's own kernels are held to AVX2
(on an Intel CPU: the instructions of such a machine, not its caches or clocks).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..grading.runner import default_jobs

SETTINGS = {
    "torch": {"wait": None, "threads": None, "interop": None},
    "passive": {"wait": "PASSIVE", "threads": None, "interop": None},
    "passive+interop1": {"wait": "PASSIVE", "threads": None, "interop": 1},
    "1 thread": {"wait": "PASSIVE", "threads": 1, "interop": None},
}
WORK = ("train", "translate", "grade")
SPIN = "while True:\n    pass\n"
# torch (and its OpenMP) loads before the course package, whose import would otherwise make
# idle threads wait passively: the "torch" setting runs as the course ran before.
CHILD = "import sys, torch; from autograder.bench import contention; contention.main(sys.argv[1:])"


def child_env(setting: str, isa: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("OMP_NUM_THREADS", None)
    wait = SETTINGS[setting]["wait"]
    if wait:
        env["OMP_WAIT_POLICY"] = wait
    if isa == "avx2":
        env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
        env["ATEN_CPU_CAPABILITY"] = "avx2"
        env["MKL_ENABLE_INSTRUCTIONS"] = "AVX2"
    return env


def fair_slowdown(threads: int, busy: int, cores: int) -> float:
    share = min(threads, cores * threads / (threads + busy))
    return min(threads, cores) / share


# --- the work, run in a child process --------------------------------------------------------

def _setup_threads(setting: str) -> None:
    import torch

    if SETTINGS[setting]["interop"]:
        torch.set_num_interop_threads(SETTINGS[setting]["interop"])
    if SETTINGS[setting]["threads"]:
        torch.set_num_threads(SETTINGS[setting]["threads"])


def prepare(path: str, batches: int) -> None:
    """Tokenize a sample of the embedded corpus once, for every child: the tokenizer, the
    source rows and the first ``batches`` training batches."""
    import random

    import torch

    from ..translator import buckets, corpus, tokenizer
    from ..translator.config import TrainConfig, corpus_path

    config = TrainConfig()
    pairs, _ = corpus.load_pairs(str(corpus_path(config)))
    pairs = random.Random(0).sample(pairs, 20_000)
    tok = tokenizer.train(config.tokenizer, pairs, config.vocab_size, config.min_freq)
    src, tgt = tok.encode_src([s for s, _ in pairs]), tok.encode_tgt([t for _, t in pairs])
    order = buckets.token_batches([(len(s), len(t) + 2) for s, t in zip(src, tgt)], config.max_tokens, 0)
    random.Random(0).shuffle(order)
    torch.save({"tokenizer": tok.state(), "src": src,
                "batches": [buckets.make_batch(src, tgt, b) for b in order[:batches]]}, path)


def _load(path: str):
    import torch

    from ..translator import tokenizer

    data = torch.load(path, weights_only=False)
    return tokenizer.from_state(data["tokenizer"]), data["src"], data["batches"]


def run_train(data: str, steps: int, precision: str) -> float:
    import torch

    from .. import reference
    from ..tokens import PAD
    from ..translator.config import TrainConfig
    from ..translator.model import autocast, build_model, build_optimizer

    config = TrainConfig(precision=precision)
    tok, _, batches = _load(data)
    batches = batches[:steps + 5]
    torch.manual_seed(0)
    model = build_model(config, tok)
    optimizer = build_optimizer(config, model, torch.device("cpu"))
    train_step = reference.load("training").train_step
    context = autocast(config, torch.device("cpu"))
    for n, (src, tgt) in enumerate(batches):
        if n == 5:  # the first steps allocate
            start = time.perf_counter()
        with context:
            train_step(model, src, tgt, optimizer, PAD, config.label_smoothing, config.clip_norm)
    return time.perf_counter() - start


def run_translate(data: str, sentences: int) -> float:
    import torch

    from ..translator.config import TrainConfig
    from ..translator.model import build_model
    from ..translator.translate import translate_ids

    config = TrainConfig()
    tok, src, _ = _load(data)
    torch.manual_seed(0)
    model = build_model(config, tok).eval()
    rows = [r for r in src if r][:sentences]
    start = time.perf_counter()
    translate_ids(model, rows, torch.device("cpu"), config.max_len, "greedy")
    return time.perf_counter() - start


def run_grade() -> tuple[float, str]:
    from .. import course

    with tempfile.TemporaryDirectory(prefix="course-bench-") as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "autograder", "grade", str(course.solutions_dir()), "--out", out,
                        "--only", "a1_attention", "--only", "a3_blocks", "--seed", "1"],
                       check=True, capture_output=True)
        seconds = time.perf_counter() - start
        data = json.loads(Path(out, "results.json").read_text(encoding="utf-8"))
        return seconds, f"{data['score']:g}/{data['extra_data']['max_score']:g}"


def child(args) -> None:
    _setup_threads(args.setting)
    score = None
    if args.child == "train":
        seconds = run_train(args.data, args.steps, args.precision)
    elif args.child == "translate":
        seconds = run_translate(args.data, args.sentences)
    else:
        seconds, score = run_grade()
    import torch

    print(json.dumps({"seconds": seconds, "threads": torch.get_num_threads(), "score": score}))


# --- the driver -----------------------------------------------------------------------------

def measure(work: str, setting: str, busy: int, args) -> dict:
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(busy)]
    try:
        time.sleep(0.5 if busy else 0)
        cmd = [sys.executable, "-c", CHILD, "--child", work, "--setting", setting,
               "--steps", str(args.steps), "--sentences", str(args.sentences), "--precision", args.precision,
               "--data", args.data]
        proc = subprocess.run(cmd, env=child_env(setting, args.isa), capture_output=True, text=True, timeout=3600)
        if proc.returncode:
            raise SystemExit(f"{work} / {setting} failed:\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", nargs="+", choices=WORK, default=list(WORK))
    parser.add_argument("--settings", nargs="+", choices=SETTINGS, default=list(SETTINGS),
                        help="thread settings of train and translate (default: all)")
    parser.add_argument("--busy", nargs="+", type=int, default=[0, 1, 2], help="busy processes beside (default 0 1 2)")
    parser.add_argument("--steps", type=int, default=40, help="train: timed steps (default 40)")
    parser.add_argument("--sentences", type=int, default=300, help="translate: sentences (default 300)")
    parser.add_argument("--precision", default="fp32", choices=("fp32", "auto", "bf16"),
                        help="train: arithmetic (default fp32, as on a CPU without fast bfloat16)")
    parser.add_argument("--isa", choices=("native", "avx2"), default="native",
                        help="avx2: hold the kernels to AVX2, as on a CPU without AVX-512 (default: native)")
    parser.add_argument("--child", choices=WORK, help=argparse.SUPPRESS)
    parser.add_argument("--setting", default="passive", choices=SETTINGS, help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="course-bench-") as tmp:
        args.data = os.path.join(tmp, "data.pt")
        if set(args.work) - {"grade"}:
            print("tokenizing a sample of the embedded corpus ...", flush=True)
            prepare(args.data, args.steps + 5)
        table(args, cores)


def table(args, cores: int) -> None:
    print(f"{cores} cores; busy processes: {', '.join(map(str, args.busy))}; isa {args.isa}; "
          f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    header = " | ".join(f"beside {b} busy: s (slowdown)" if b else "quiet: s" for b in args.busy)
    print(f"\n| work | setting | {header} |\n|---|---|" + "---|" * len(args.busy), flush=True)
    for work in args.work:
        for setting in (args.settings if work != "grade" else ["passive"]):
            cells, quiet = [], None
            for busy in args.busy:
                result = measure(work, setting, busy, args)
                seconds = result["seconds"]
                # grade runs default_jobs() grading processes at once, one thread each
                threads = default_jobs() if work == "grade" else result["threads"]
                score = f", {result['score']}" if result["score"] else ""  # the verdict must not change
                if busy == 0:
                    quiet = seconds
                    cells.append(f"{seconds:.1f}{score}")
                elif quiet:
                    fair = fair_slowdown(threads, busy, cores)
                    cells.append(f"{seconds:.1f} ({seconds / quiet:.2f}x, fair {fair:.2f}x{score})")
                else:
                    cells.append(f"{seconds:.1f}{score}")
            label = (f"shipped ({threads} processes of 1 thread)" if work == "grade"
                     else f"{setting} ({threads} thread{'s' if threads > 1 else ''})")
            print(f"| {work} | {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
