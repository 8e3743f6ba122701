"""The loss curve drawn beside each checkpoint (``translator.png``)."""

from __future__ import annotations

from pathlib import Path


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: works without a display
    import matplotlib.pyplot as plt

    return plt


def plot_losses(history: dict, path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    if history["train"]:
        steps, losses = zip(*history["train"])
        ax.plot(steps, losses, label="train (label-smoothed)")
    if history["valid"]:
        steps, losses = zip(*[(h["step"], h["loss"]) for h in history["valid"]])
        ax.plot(steps, losses, "o-", label="validation")
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy per token")
    if ax.get_legend_handles_labels()[0]:  # a short run may log no loss yet: an empty legend only warns
        ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
