"""Does the reference translator train, resume, translate and evaluate through its real CLI?

One small model is trained once per session on the embedded corpus (an epoch budget, so
the result does not depend on how busy the machine is) and shared by the tests.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from autograder import course
from autograder.translator import checkpoint
from autograder.translator.examples import LECTURE_000
from helpers import interruptible

pytestmark = pytest.mark.xdist_group("translator")  # one worker builds its costly fixture (conftest.py)

# Small enough for CI's 2 cores, large enough to learn the grammar of the embedded corpus.
SMALL = ["--d-model", "128", "--d-ff", "512", "--num-layers", "2", "--lr", "2e-3"]
TINY = ["--d-model", "32", "--d-ff", "64", "--num-layers", "1", "--num-heads", "2", "--max-tokens", "1024"]
CORPUS = course.data_dir() / "translator" / "en-es.tsv"
TORCHRUN = shutil.which("torchrun", path=os.path.dirname(sys.executable))  # beside this Python, or None


def translator(*args, check=True, timeout=600, **kwargs):
    proc = subprocess.run([sys.executable, "-m", "autograder.translator", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"translator {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="session")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("translator") / "model.pt"
    # Two epochs (522 steps) reach validation BLEU 96 and every sentence these tests ask for;
    # the quickstart's three are for the larger default model.
    proc = translator("train", "--data", CORPUS, "--epochs", "2", *SMALL, "--out", out)
    return out, proc


def test_training_writes_checkpoint_curve_and_progress(trained):
    """Does training on the embedded corpus write one checkpoint, a loss curve and report progress?"""
    out, proc = trained
    state = checkpoint.load(out)
    assert {"config", "tokenizer", "model", "optimizer", "progress", "history"} <= state.keys()
    assert state["progress"]["epoch"] == 2 and state["progress"]["step"] > 0
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "en-es.tsv (anki): 25,000 pairs" in proc.stdout
    assert "tok/s" in proc.stderr and "validation loss" in proc.stderr
    # It ends as lecture 000 does, with its everyday sentences translated (the grammar corpus's
    # model has never seen most of their words: only their presence is checked here).
    shown = proc.stdout.split("lecture 000's sentences / las frases del cuaderno de clase 000:\n")[1].splitlines()
    assert [line.split("  ->  ")[0].strip() for line in shown[:16]] == list(LECTURE_000)
    first, last = state["history"]["valid"][0], state["history"]["valid"][-1]
    assert last["loss"] < first["loss"] and last["bleu"] > 50, state["history"]["valid"]


def test_translates_in_domain_sentences_exactly(trained):
    """Does the trained checkpoint render correct, cased, punctuated Spanish for in-domain sentences?"""
    out, _ = trained
    want = {
        "The water is cold.": "El agua está fría.",
        "Are you tired?": "¿Estás cansado?",
        "You have a big house.": "Tienes una casa grande.",
        "We like cats.": "Nos gustan los gatos.",
    }
    proc = translator("translate", "--checkpoint", out, *want)
    got = proc.stdout.splitlines()
    assert got == list(want.values())


def test_examples_are_lecture_000s_sentences(trained):
    """Does `translate --examples` show lecture 000's 16 sentences with a translation each, as
    `train` does when it ends, and refuse sentences given beside it?"""
    out, _ = trained
    shown = translator("translate", "--checkpoint", out, "--strategy", "greedy", "--examples").stdout.splitlines()
    assert shown[0] == "lecture 000's sentences / las frases del cuaderno de clase 000:" and len(shown) == 17
    rows = [line.split("  ->  ") for line in shown[1:]]
    assert [en.strip() for en, _ in rows] == list(LECTURE_000) and all(es.strip() for _, es in rows)
    both = translator("translate", "--checkpoint", out, "--examples", "Hello.", check=False)
    assert both.returncode == 2 and "--examples" in both.stderr


def test_file_translation_keeps_lines_in_order(trained, tmp_path):
    """Does --input/--output give one line per input line, in order, with blank lines kept blank?"""
    out, _ = trained
    lines = ["Are you tired?", "", "The water is cold.", "   ", "We like cats."]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    translator("translate", "--checkpoint", out, "--input", tmp_path / "in.txt", "--output", tmp_path / "out.txt")
    got = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    assert len(got) == len(lines)
    assert got[1] == got[3] == "" and all(got[i] for i in (0, 2, 4))
    assert got[0] == "¿Estás cansado?" and got[2] == "El agua está fría."


def test_other_strategies_and_long_input(trained):
    """Do beam search and seeded sampling work, does a line of 60 sentences give 60 translations,
    and is one sentence longer than the positional table truncated with a warning?"""
    out, _ = trained
    beam = translator("translate", "--checkpoint", out, "--strategy", "beam", "--beam-size", "3", "Are you tired?")
    assert beam.stdout.strip() == "¿Estás cansado?"
    runs = [translator("translate", "--checkpoint", out, "--strategy", "sample", "--top-k", "5", "--seed", "3",
                       "We like cats.").stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].strip()
    many = translator("translate", "--checkpoint", out, " ".join(["The water is cold."] * 60))
    assert many.stdout.strip() == " ".join(["El agua está fría."] * 60) and "truncated" not in many.stderr
    long = translator("translate", "--checkpoint", out, " and ".join(["the water is cold"] * 60))
    assert "1 sentence(s) longer than the model's" in long.stderr and "truncated" in long.stderr
    assert len(long.stdout.splitlines()) == 1 and long.stdout.strip()


def test_batched_beam_search_gives_a5s_ids_on_the_trained_model(trained):
    """Does the translator's batched beam search pick, on a trained model, exactly the ids of
    a5's beam_search (one sentence at a time), for in-domain sentences and lecture 000's
    (mostly unseen words: a less certain search), padded together in one batch?"""
    from autograder import reference
    from autograder.tokens import EOS, PAD, SOS
    from autograder.translator import beam
    from autograder.translator.translate import Translator

    out, _ = trained
    translator = Translator.load(out, "cpu")
    texts = [line.split("\t")[0] for line in CORPUS.read_text(encoding="utf-8").splitlines()[::1000]]
    rows = translator.tok.encode_src(texts + list(LECTURE_000))
    src = torch.full((len(rows), max(map(len, rows))), PAD, dtype=torch.long)
    for r, ids in enumerate(rows):
        src[r, :len(ids)] = torch.tensor(ids)
    for beam_size, length_penalty in ((4, 0.6), (2, 1.0)):
        want = reference.load("beam").beam_search(translator.model, src, beam_size, 30, SOS, EOS, PAD, length_penalty)
        got = beam.beam_search(translator.model, src, beam_size, 30, SOS, EOS, PAD, length_penalty)
        assert got.tolist() == want.tolist()


def test_evaluate_prints_scores_with_signatures(trained, tmp_path):
    """Does evaluate print sacreBLEU and chrF with their signatures, and the normalised BLEU?"""
    out, _ = trained
    test = tmp_path / "test.tsv"
    test.write_text("Are you tired?\t¿Estás cansado?\nThe water is cold.\tEl agua está fría.\n", encoding="utf-8")
    proc = translator("evaluate", "--checkpoint", out, "--data", test)
    assert "BLEU = 100.00" in proc.stdout and "nrefs:1|case:mixed" in proc.stdout
    assert "chrF2 = 100.00" in proc.stdout and "normalised BLEU" in proc.stdout


def test_ctrl_c_saves_and_resume_continues(tmp_path):
    """Does Ctrl-C leave a usable checkpoint, and does --resume continue from its step to the budget?"""
    out = tmp_path / "model.pt"
    proc = subprocess.Popen(interruptible([sys.executable, "-m", "autograder.translator", "train", "--epochs", "3",
                                          "--data", CORPUS, *TINY, "--out", out]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)  # the first checkpoint comes at the end of epoch 1
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-2000:]
    assert "interrupted" in stdout and "--resume" in stdout
    stopped = checkpoint.load(out)["progress"]
    assert stopped["epoch"] < 3
    translator("translate", "--checkpoint", out, "Hello.")  # usable as it is
    resumed = translator("train", "--resume", "--out", out)
    assert "resuming" in resumed.stdout
    final = checkpoint.load(out)["progress"]
    assert final["epoch"] == 3 and final["step"] > stopped["step"]


def test_bad_corpus_is_one_clear_error(tmp_path):
    """Does a corpus without a usable pair stop training with one error line, not a traceback?"""
    bad = tmp_path / "bad.txt"
    bad.write_text("only one column\n\nanother\n", encoding="utf-8")
    proc = translator("train", "--data", bad, "--out", tmp_path / "x.pt", check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr
    missing = translator("translate", "--checkpoint", tmp_path / "none.pt", "Hi.", check=False)
    assert missing.returncode == 2 and "no checkpoint" in missing.stderr


def test_word_level_pipeline_of_the_assignment(tmp_path):
    """Does --tokenizer word train with the a6 pipeline (clean_text + Vocab) and translate in its lower-case form?"""
    out = tmp_path / "word.pt"
    translator("train", "--data", CORPUS, "--tokenizer", "word", "--epochs", "0.3", *TINY, "--out", out)
    state = checkpoint.load(out)
    assert (state["tokenizer"]["kind"] == "word"
            and state["tokenizer"]["src"][:4] == ["<pad>", "<sos>", "<eos>", "<unk>"])
    text = translator("translate", "--checkpoint", out, "Are you tired?").stdout.strip()
    assert text == text.lower()


@pytest.mark.skipif(TORCHRUN is None, reason="no torchrun")
def test_torchrun_trains_with_distributed_data_parallel(tmp_path):
    """Does `torchrun --nproc_per_node 2` train with DistributedDataParallel on the gloo backend?"""
    out = tmp_path / "ddp.pt"
    proc = subprocess.run([TORCHRUN, "--nproc_per_node", "2", "-m", "autograder.translator", "train", "--epochs", "0.5",
                           "--data", str(CORPUS), *TINY, "--device", "cpu", "--out", str(out)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "x 2 processes (gloo)" in proc.stdout
    state = checkpoint.load(out)
    assert state["progress"]["world_size"] == 2 and state["progress"]["step"] > 0
    assert all(torch.isfinite(v).all() for v in state["model"].values())


def test_token_batches_cover_every_example_within_budget():
    """Does every example land in exactly one batch whose padded size respects max_tokens?"""
    from autograder.translator import buckets

    rng = torch.Generator().manual_seed(0)
    lengths = [(int(a), int(b)) for a, b in torch.randint(1, 40, (500, 2), generator=rng)]
    batches = buckets.token_batches(lengths, 256, seed=1)
    assert sorted(i for b in batches for i in b) == list(range(500))
    assert all(len(b) * max(max(lengths[i]) for i in b) <= 256 for b in batches)
    assert batches != buckets.token_batches(lengths, 256, seed=2)  # a new order every epoch
    shards = [buckets.shard(batches, r, 3) for r in range(3)]
    assert len({len(s) for s in shards}) == 1


def test_checkpoint_rejects_other_files(tmp_path):
    """Do a torch file of something else, a checkpoint of another version and a file torch
    cannot read each give one line that says what to give, never torch's advice to load with
    weights_only=False?"""
    files = {"other.pt": {"weights": torch.zeros(2)},
             "old.pt": {"format": "transformer-course-translator/0", "model": {}}}
    for name, state in files.items():
        torch.save(state, tmp_path / name)
    (tmp_path / "garbage.pt").write_bytes(b"not a zip")
    (tmp_path / "notes.txt").write_text("hola\n", encoding="utf-8")
    expected = {"other.pt": "is a torch file but not a translator checkpoint",
                "old.pt": "was written by another version of the translator",
                "garbage.pt": "is not a readable translator checkpoint",
                "notes.txt": "is not a readable translator checkpoint"}
    for name, needle in expected.items():
        with pytest.raises(ValueError) as error:
            checkpoint.load(tmp_path / name)
        text = str(error.value)
        assert needle in text and "\n" not in text and "weights_only" not in text, text
        assert "translator train" in text, text


def test_existing_checkpoint_is_never_overwritten_silently(tmp_path):
    """Does train refuse to replace an existing --out unless told to resume or overwrite?"""
    out = tmp_path / "model.pt"
    out.write_bytes(b"precious")
    proc = translator("train", "--out", out, check=False)
    assert proc.returncode == 2 and "--resume" in proc.stderr and out.read_bytes() == b"precious"


def test_input_file_errors_name_the_file_and_line(trained, tmp_path):
    """Does an empty --input give an empty output (exit 0, saying so), and does text that is not
    UTF-8 get the file, line and byte?"""
    out, _ = trained
    empty, result = tmp_path / "empty.txt", tmp_path / "result.txt"
    empty.write_bytes(b"")
    proc = translator("translate", "--checkpoint", out, "--input", empty, "--output", result, check=False)
    assert proc.returncode == 0 and f"0 lines translated: {empty} is empty" in proc.stderr, proc.stderr
    assert result.read_text(encoding="utf-8") == "" and proc.stdout == ""
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Hello.\nThe caf\u00e9 is open.\n".encode("latin-1"))
    proc = translator("translate", "--checkpoint", out, "--input", latin1, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{latin1}:2: byte 0xe9 at column 8 is not UTF-8" in proc.stderr and "save the file as UTF-8" in proc.stderr
    proc = translator("translate", "--checkpoint", out, "--input", tmp_path / "nothing.txt", check=False)
    assert proc.returncode == 2 and "--input: no such file" in proc.stderr


def test_no_repeat_ngram_is_on_by_default_and_can_be_turned_off(trained):
    """Does greedy translation keep exact in-domain output with the n-gram block, and accept --no-repeat-ngram 0?"""
    out, _ = trained
    on = translator("translate", "--checkpoint", out, "--strategy", "greedy", "Are you tired?",
                    "We like cats.").stdout.splitlines()
    off = translator("translate", "--checkpoint", out, "--strategy", "greedy", "--no-repeat-ngram", "0",
                     "Are you tired?", "We like cats.").stdout.splitlines()
    assert on == off == ["¿Estás cansado?", "Nos gustan los gatos."]


def test_text_as_people_type_it_translates_like_the_cased_sentences(trained):
    """Do the lower-case, upper-case and unpunctuated forms of in-domain sentences translate as
    the cased ones do, does a line of several sentences give each one's translation in order,
    and does --as-typed translate a line exactly as given?"""
    out, _ = trained
    cased = ["Are you tired?", "We like cats.", "The water is cold."]
    want = translator("translate", "--checkpoint", out, *cased).stdout.splitlines()
    forms = [s.lower() for s in cased] + [s.upper() for s in cased] + [s.rstrip(".?!") for s in cased]
    got = translator("translate", "--checkpoint", out, *forms).stdout.splitlines()
    assert got == want * 3, list(zip(forms, got))
    line = translator("translate", "--checkpoint", out, " ".join(cased)).stdout.splitlines()
    assert line == [" ".join(want)]
    typed = translator("translate", "--checkpoint", out, "--as-typed", " ".join(cased)).stdout.splitlines()
    assert len(typed) == 1 and typed[0]


def _small_corpus(path: Path, n: int) -> Path:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()[:n]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_too_few_pairs_for_validation_is_an_error(tmp_path):
    """Does a corpus smaller than the validation split stop with one line that says what to
    give (more pairs, or --valid-size 0), instead of training to a NaN validation?"""
    data = _small_corpus(tmp_path / "five.tsv", 5)
    proc = translator("train", "--data", data, "--epochs", "1", *TINY, "--tokenizer", "word", "--out",
                      tmp_path / "m.pt", check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and "5 pairs are too few to train and validate" in lines[-1], proc.stderr
    assert "--valid-size 0" in lines[-1] and "Traceback" not in proc.stderr and not (tmp_path / "m.pt").exists()


def test_no_validation_split_trains_and_says_so_without_nan(tmp_path):
    """With --valid-size 0, does training finish with a warning that nothing is validated, and
    print no NaN loss or BLEU?"""
    data = _small_corpus(tmp_path / "forty.tsv", 40)
    proc = translator("train", "--data", data, "--epochs", "1", "--valid-size", "0", *TINY, "--tokenizer", "word",
                      "--out", tmp_path / "m.pt")
    text = proc.stdout + proc.stderr
    assert "--valid-size 0: no validation pairs" in text and "nan" not in text.lower(), text
    assert "Warning" not in proc.stderr, proc.stderr  # no library's warning reaches the user (matplotlib's legend)
    assert (tmp_path / "m.pt").is_file()


def test_a_loss_that_turns_nan_stops_training_without_saving_it(tmp_path, monkeypatch):
    """When a step's loss is NaN, does training stop with an error that names the step and
    what to change, and leave no checkpoint of the diverged model?"""
    from autograder.translator import train as train_module
    from autograder.translator.config import TrainConfig

    def diverging(self, batch, fraction):
        return float("nan"), 10

    monkeypatch.setattr(train_module.Trainer, "_step", diverging)
    config = TrainConfig(data=str(_small_corpus(tmp_path / "c.tsv", 200)), tokenizer="word", d_model=32, d_ff=64,
                         num_layers=1, num_heads=2, epochs=1.0)
    with pytest.raises(train_module.Diverged) as error:
        train_module.train(config, tmp_path / "m.pt", device="cpu", log=lambda *a: None)
    assert "became nan at step 1" in str(error.value) and "--lr" in str(error.value)
    assert not (tmp_path / "m.pt").exists()


def _reference_model(d_model=32, fused=False):
    from autograder.translator.config import TrainConfig
    from autograder.translator.model import build_model

    class Tok:
        src_vocab_size = tgt_vocab_size = 50
        shared_vocab = True

    torch.manual_seed(0)
    config = TrainConfig(d_model=d_model, d_ff=2 * d_model, num_heads=4, num_layers=2, fused=fused)
    return build_model(config, Tok())


def test_fused_model_computes_what_the_reference_modules_do():
    """Does the translator's fused LayerNorm and attention give the reference model's logits and
    gradients (padded source and target rows included), with the same parameter names, and leave
    the reference classes of solutions/ as they are?"""
    from autograder import reference
    from autograder.translator.fused import fuse

    plain = _reference_model()
    fused = fuse(_reference_model())
    assert [n for n, _ in plain.named_parameters()] == [n for n, _ in fused.named_parameters()]
    assert type(plain.encoder_layers[0].norm1) is reference.load("layernorm").LayerNorm
    assert type(fused.encoder_layers[0].self_attn).__name__ == "FusedMultiHeadAttention"
    src, tgt = torch.randint(4, 50, (6, 9)), torch.randint(4, 50, (6, 7))
    src[:3, 5:], tgt[:2, 4:] = 0, 0  # padding, as in a length-bucketed batch
    labels = torch.randint(4, 50, (6, 7))
    grads = []
    for model in (plain, fused):
        logits = model(src, tgt)
        torch.nn.functional.cross_entropy(logits.reshape(-1, 50), labels.reshape(-1)).backward()
        grads.append((logits.detach(), {n: p.grad for n, p in model.named_parameters()}))
    (a, ga), (b, gb) = grads
    torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-5)
    scale = max(g.abs().max() for g in ga.values())
    for name in ga:
        torch.testing.assert_close(gb[name], ga[name], rtol=0, atol=1e-5 * scale, msg=name)
    with torch.no_grad():  # attention weights asked for: the reference forward, the same output
        x = torch.randn(2, 5, 32)
        out, weights = fused.encoder_layers[0].self_attn(x, x, x, need_weights=True)
        torch.testing.assert_close(out, plain.encoder_layers[0].self_attn(x, x, x)[0])
        assert weights.shape == (2, 4, 5, 5)


def test_bfloat16_autocast_keeps_the_loss_in_float32_and_follows_the_float32_model():
    """Under bfloat16 autocast (precision auto on a CPU with fast bfloat16, and CUDA), does the
    fused model give float32 logits within bfloat16's rounding of the float32 ones, and
    gradients that point the same way?"""
    from autograder.translator.fused import fuse

    model = fuse(_reference_model(d_model=64))
    src, tgt = torch.randint(4, 50, (6, 9)), torch.randint(4, 50, (6, 7))
    src[:3, 5:], tgt[:2, 4:] = 0, 0
    labels = torch.randint(4, 50, (6, 7))
    runs = []
    for bf16 in (False, True):
        model.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(src, tgt)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 50), labels.reshape(-1))
        loss.backward()
        runs.append((logits.detach(), torch.cat([p.grad.flatten() for p in model.parameters()])))
    (logits32, grad32), (logits16, grad16) = runs
    assert logits16.dtype == torch.float32
    torch.testing.assert_close(logits16, logits32, rtol=0, atol=0.03 * logits32.abs().max().item())
    assert torch.nn.functional.cosine_similarity(grad16, grad32, dim=0) > 0.99


def test_precision_auto_trains_in_bfloat16_only_where_it_is_fast(monkeypatch):
    """Does precision auto choose bfloat16 autocast for the fused model where bfloat16 is fast and
    float32 elsewhere, do bf16 and fp32 choose, and are an unknown precision and bf16 on MPS
    refused with what to give instead?"""
    from autograder.translator import model as translator_model
    from autograder.translator.config import TrainConfig

    cpu = torch.device("cpu")
    assert translator_model.uses_bf16(TrainConfig(precision="bf16"), cpu)
    assert not translator_model.uses_bf16(TrainConfig(precision="fp32"), cpu)
    for fast in (True, False):
        monkeypatch.setattr(translator_model, "fast_bf16", lambda device, fast=fast: fast)
        assert translator_model.uses_bf16(TrainConfig(), cpu) is fast
        assert not translator_model.uses_bf16(TrainConfig(fused=False), cpu)  # its softmaxes would be bfloat16
    with pytest.raises(ValueError, match="use --precision fp32"):
        translator_model.uses_bf16(TrainConfig(precision="bf16"), torch.device("mps"))
    with pytest.raises(ValueError, match="precision must be one of auto, bf16, fp32"):
        TrainConfig(precision="fp16")
    proc = translator("train", "--precision", "fp16", check=False)
    assert proc.returncode == 2 and "invalid choice: 'fp16'" in proc.stderr


def test_precision_auto_is_float32_on_every_cpu(monkeypatch):
    """Does precision auto train in float32 on a CPU even where its flags claim fast bfloat16
    (AVX512-BF16 measured slower than float32 on this project's machine)?"""
    from autograder.translator import model as translator_model
    from autograder.translator.config import TrainConfig

    for probe in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        monkeypatch.setattr(torch.cpu, probe, lambda: True, raising=False)
    assert not translator_model.uses_bf16(TrainConfig(), torch.device("cpu"))


@pytest.mark.skipif(TORCHRUN is None, reason="no torchrun")
def test_torchrun_with_one_process_joins_a_process_group(tmp_path):
    """Does `torchrun --nproc_per_node 1` train through DistributedDataParallel in a process group
    of one (the path NCCL takes on a single GPU), and say which backend it used?"""
    out = tmp_path / "one.pt"
    proc = subprocess.run([TORCHRUN, "--standalone", "--nproc_per_node", "1", "-m", "autograder.translator", "train",
                           "--data", _small_corpus(tmp_path / "c.tsv", 200), "--steps", "4", *TINY, "--device", "cpu",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "x 1 process (gloo)" in proc.stdout, proc.stdout
    assert checkpoint.load(out)["progress"]["step"] == 4


def test_weight_average_is_the_mean_of_the_last_steps():
    """Does the uniform average hold the mean of the weights after the steps from its start on
    (none before), and does the exponential one follow decay while starting as a plain mean?"""
    from autograder.translator.averaging import WeightAverage

    model = torch.nn.Linear(3, 2)
    uniform, ema = WeightAverage(model, start=0.5), WeightAverage(model, decay=0.5)
    seen = []
    for step in range(1, 5):
        with torch.no_grad():
            model.weight.fill_(float(step))
            model.bias.fill_(-float(step))
        done = step / 4
        uniform.update(model, done)
        ema.update(model, done)
        if done >= 0.5:
            seen.append(float(step))
    assert uniform.count == len(seen) == 3  # steps 2, 3 and 4 (done 0.5, 0.75, 1.0)
    want = sum(seen) / len(seen)
    torch.testing.assert_close(uniform.model.weight, torch.full((2, 3), want))
    torch.testing.assert_close(uniform.model.bias, torch.full((2,), -want))
    # EMA with decay 0.5: mean of 1 and 2 (1.5), then 0.5 * 1.5 + 0.5 * 3 = 2.25, then 3.125
    torch.testing.assert_close(ema.model.weight, torch.full((2, 3), 3.125))
    assert model.weight.requires_grad and not uniform.model.weight.requires_grad


def test_a_step_budget_stops_after_that_many_steps_and_translates_with_the_average(tmp_path):
    """Does --steps N train exactly N steps, replacing the default epoch budget, and with
    --average-last 0.25 keep the mean of the last quarter's weights in the checkpoint and
    translate with it (the last step's weights on request)?"""
    from autograder.translator.config import TrainConfig, config_from_args
    from autograder.translator.translate import Translator

    config = config_from_args(steps=12)
    assert (config.steps, config.epochs, config.minutes) == (12, None, None)
    assert config.done(6, 1e9, 1) == 0.5 and config.done(12, 0.0, 1) == 1.0
    with pytest.raises(ValueError, match="exactly one budget"):
        TrainConfig(steps=5, epochs=1.0)
    out = tmp_path / "m.pt"
    proc = translator("train", "--data", _small_corpus(tmp_path / "c.tsv", 400), "--steps", "12", *TINY,
                      "--average-last", "0.25", "--out", out)
    state = checkpoint.load(out)
    assert state["progress"]["step"] == 12 and "trained 12 steps" in proc.stdout
    assert state["average"]["count"] == 4 and "mean of the weights of the last 4 steps" in proc.stderr + proc.stdout
    averaged, last = Translator.load(out, "cpu"), Translator.load(out, "cpu", weights="last")
    torch.testing.assert_close(averaged.model.generator.weight, state["average"]["model"]["generator.weight"])
    torch.testing.assert_close(last.model.generator.weight, state["model"]["generator.weight"])
    assert not torch.equal(averaged.model.generator.weight, last.model.generator.weight)


def test_the_first_line_says_how_the_cpu_threads_wait(tmp_path):
    """Does a CPU run's first line name its torch threads and whether idle ones sleep, as the
    package sets them (OMP_WAIT_POLICY=PASSIVE), and does a user's own OMP_WAIT_POLICY and
    OMP_NUM_THREADS win?"""
    corpus_file = _small_corpus(tmp_path / "c.tsv", 200)
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    runs = {"shipped": {}, "user": {"OMP_WAIT_POLICY": "ACTIVE", "OMP_NUM_THREADS": "2"}}
    lines = {}
    for name, extra in runs.items():
        proc = translator("train", "--data", corpus_file, "--steps", "2", *TINY, "--valid-size", "0",
                          "--out", tmp_path / f"{name}.pt", env={**env, **extra})
        lines[name] = next(line for line in proc.stdout.splitlines() if "device cpu" in line)
    assert re.search(r"; (\d+ threads, idle ones sleep|1 thread)$", lines["shipped"]), lines["shipped"]
    assert lines["user"].endswith("; 2 threads, idle ones spin"), lines["user"]


def test_varied_copies_write_the_english_as_people_type_it():
    """Does varied_copies copy the asked share of the pairs with the English in lower or upper
    case or without its final mark, the Spanish untouched, the same for the same seed?"""
    from autograder.translator.sentences import TYPED_FORMS, varied_copies

    pairs = [(f"Tom has {n} cats.", f"Tom tiene {n} gatos.") for n in range(200)] + [("Is it far?", "¿Está lejos?")]
    copies = varied_copies(pairs, 0.5, seed=1)
    assert len(copies) == 100 and copies == varied_copies(pairs, 0.5, seed=1) != varied_copies(pairs, 0.5, seed=2)
    spanish = dict((es, en) for en, es in pairs)
    forms = set()
    for typed, es in copies:
        en = spanish[es]
        matches = [name for name, write in TYPED_FORMS.items() if write(en) == typed]
        assert matches and typed != en, (typed, en)
        forms.update(matches)
    assert forms == set(TYPED_FORMS)
    assert TYPED_FORMS["lower case, no final mark"]("Is it far?") == "is it far"
    assert varied_copies(pairs, 0.0) == []
