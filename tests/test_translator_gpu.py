"""Does the translator train and translate on a CUDA GPU, in bfloat16 autocast, and under
torchrun with NCCL?

These run only where torch sees a CUDA GPU and are skipped, with the reason, everywhere
else (this project's CI has none): ``pytest tests/test_translator_gpu.py`` on a GPU machine.
"""

import subprocess

import pytest
import torch
from test_translator import CORPUS, SMALL, TORCHRUN, translator  # the CPU tests' corpus, model size and runners

from autograder.translator import checkpoint

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU visible to torch here: the GPU path "
                       "runs only on a machine with one (pytest tests/test_translator_gpu.py there)"),
    pytest.mark.xdist_group("translator"),
]


def test_trains_in_bfloat16_and_translates_on_cuda(tmp_path):
    """Does `translator train --device cuda` train in bfloat16 autocast with float32 weights to
    the BLEU the CPU reaches on the embedded corpus, and translate on the GPU?"""
    out = tmp_path / "gpu.pt"
    proc = translator("train", "--data", CORPUS, "--device", "cuda", "--epochs", "2", *SMALL, "--out", out,
                      timeout=900)
    assert "device cuda:0" in proc.stdout and "bfloat16 autocast" in proc.stdout, proc.stdout
    state = checkpoint.load(out)
    assert all(v.dtype == torch.float32 and torch.isfinite(v).all() for v in state["model"].values())
    assert state["history"]["valid"][-1]["bleu"] > 50, state["history"]["valid"]
    sentences = ["The water is cold.", "Are you tired?", "We like cats."]
    got = translator("translate", "--device", "cuda", "--checkpoint", out, *sentences).stdout.splitlines()
    assert len(got) == len(sentences) and all(got), got


@pytest.mark.skipif(TORCHRUN is None, reason="no torchrun")
def test_torchrun_trains_with_nccl_on_one_gpu(tmp_path):
    """Does `torchrun --nproc_per_node 1` on one GPU join an NCCL process group and train through
    DistributedDataParallel?"""
    out = tmp_path / "ddp.pt"
    proc = subprocess.run([TORCHRUN, "--standalone", "--nproc_per_node", "1", "-m", "autograder.translator", "train",
                           "--data", str(CORPUS), "--steps", "50", *SMALL, "--device", "cuda", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "x 1 process (nccl)" in proc.stdout and "bfloat16 autocast" in proc.stdout, proc.stdout
    assert checkpoint.load(out)["progress"]["step"] == 50
