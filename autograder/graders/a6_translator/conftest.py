"""a6 graders replay training steps and translations with the reference code in the
grading process. One torch thread keeps those small computations fast and steady on a busy
machine (several threads on oversubscribed cores can be ten times slower), as in the
student's worker, which runs with OMP_NUM_THREADS=1."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
