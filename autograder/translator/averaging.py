"""Weight averaging: translate with the mean of the weights of the last part of training.

The weights after the last step sit somewhere in the noise of the last updates; their
mean over the end of the run is closer to the middle of the valley the optimizer is
circling, and usually translates better (checkpoint averaging: Vaswani et al., 2017,
section 6.1, averaged the last 5 or 20 checkpoints; stochastic weight averaging, Izmailov
et al., 2018). :class:`WeightAverage` keeps that mean as a copy of the model, updated in
place after every step of the last ``share`` of the budget (one ``lerp`` per parameter
tensor: a small fraction of a step), or as an exponential moving average with ``decay``.
"""

from __future__ import annotations

import copy

import torch


class WeightAverage:
    """A running mean of ``model``'s parameters over the steps from ``start`` (a share of the
    budget, 0 to 1) on, or an exponential moving average of them (``decay``, from the first step).

    ``model`` holds the mean (a copy of the model, buffers and tied weights included);
    ``count`` is how many steps it has averaged.
    """

    def __init__(self, model: torch.nn.Module, start: float = 0.75, decay: float | None = None):
        self.start, self.decay, self.count = start, decay, 0
        self.model = copy.deepcopy(model).requires_grad_(False)
        self._mean = list(self.model.parameters())

    @torch.no_grad()
    def update(self, model: torch.nn.Module, done: float) -> None:
        """Fold in ``model``'s weights after a step; ``done``: the share of the budget spent."""
        if self.decay is None and done < self.start:
            return
        self.count += 1
        weight = 1.0 / self.count if self.decay is None else max(1.0 - self.decay, 1.0 / self.count)
        torch._foreach_lerp_(self._mean, [p.detach() for p in model.parameters()], weight)

    def state(self) -> dict:
        return {"model": self.model.state_dict(), "count": self.count, "start": self.start, "decay": self.decay}

    def restore(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.count = state["count"]
