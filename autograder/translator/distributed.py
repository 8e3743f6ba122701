"""Who this process is under ``torchrun`` (or a single process without it)."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist


class Distributed:
    """Every process trains on its shard of the batches; DistributedDataParallel averages
    the gradients; process 0 (``main``) validates, logs and writes the checkpoint."""

    def __init__(self):
        self.world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.main = self.rank == 0

    @property
    def enabled(self) -> bool:
        # torchrun sets MASTER_ADDR: under it even one process joins a process group, so that
        # `torchrun --nproc_per_node 1` on one GPU runs the same NCCL path as on several.
        return self.world_size > 1 or "MASTER_ADDR" in os.environ

    @property
    def backend(self) -> str:
        """The process group's backend ("gloo", "nccl"), once started; "" without one."""
        return dist.get_backend() if self.enabled and dist.is_initialized() else ""

    def start(self, device: torch.device) -> None:
        if self.enabled and not dist.is_initialized():
            if device.type == "cuda":
                torch.cuda.set_device(device)
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")

    def wrap(self, model, device: torch.device):
        if not self.enabled:
            return model
        return torch.nn.parallel.DistributedDataParallel(model,
                                                         device_ids=[device.index] if device.type == "cuda" else None)

    def agree(self, progress: float, stop: bool, device) -> tuple[float, bool]:
        """Every process uses process 0's clock, so learning rates and the last step match."""
        if not self.enabled:
            return progress, stop
        flags = torch.tensor([progress, float(stop)], dtype=torch.float64, device=device)
        dist.broadcast(flags, src=0)
        return float(flags[0]), bool(flags[1])

    def barrier(self) -> None:
        if self.enabled:
            dist.barrier()

    def stop(self) -> None:
        if self.enabled and dist.is_initialized():
            dist.destroy_process_group()
