"""Look inside your model: a torchinfo summary and two figures saved as PNG.

Given code, nothing to write here. Examples / ejemplos::

    from positional import PositionalEncoding
    from visualize import plot_positional_encoding
    plot_positional_encoding(PositionalEncoding(64, max_len=100).pe, "pe.png")

    mha = MultiHeadAttention(64, 4)
    x = torch.randn(1, 10, 64)
    _, weights = mha(x, x, x, need_weights=True)
    plot_attention(weights, "head0.png", head=0, tokens=["yo", "tengo", ...])
"""

import matplotlib

matplotlib.use("Agg")  # draw to files; works without a screen (CI, servers)

import matplotlib.pyplot as plt  # noqa: E402
import torchinfo  # noqa: E402


def print_summary(model, *inputs, depth=3):
    """Print (and return) a torchinfo table: layers, output shapes, parameter counts."""
    stats = torchinfo.summary(
        model, input_data=list(inputs), depth=depth, verbose=0,
        col_names=("output_size", "num_params"), device="cpu",
    )
    print(stats)
    return stats


def plot_positional_encoding(pe, path, size=(8.0, 4.0), dpi=100):
    """Heatmap of a ``(max_len, d_model)`` positional table, saved to ``path`` (PNG); a
    ``(1, max_len, d_model)`` table (lecture 000's layout) is drawn the same.

    The image is ``size`` inches times ``dpi`` pixels: 800 x 400 by default.
    """
    fig, ax = plt.subplots(figsize=size, dpi=dpi)
    table = pe.detach().cpu().reshape(-1, pe.shape[-1])  # (max_len, d_model)
    image = ax.imshow(table.numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
    ax.set_xlabel("dimension / dimensión")
    ax.set_ylabel("position / posición")
    ax.set_title("Sinusoidal positional encoding / codificación posicional")
    fig.colorbar(image, ax=ax)
    fig.savefig(path, dpi=dpi, format="png")
    plt.close(fig)
    return path


def plot_attention(weights, path, head=0, batch=0, tokens=None, key_tokens=None, size=(5.0, 5.0), dpi=100):
    """Heatmap of one head's attention weights, saved to ``path`` (PNG).

    Args:
        weights: ``(B, h, T_q, T_k)`` from ``MultiHeadAttention(..., need_weights=True)``,
            or ``(T_q, T_k)``.
        head, batch: which head and which batch element to draw.
        tokens, key_tokens: optional labels for the queries (rows) and keys (columns);
            ``key_tokens`` defaults to ``tokens`` (self-attention).
    """
    w = weights.detach().cpu()
    if w.dim() == 4:
        w = w[batch, head]
    if w.dim() != 2:
        raise ValueError(f"weights must have shape (B, h, T_q, T_k) or (T_q, T_k), got {tuple(weights.shape)}")
    fig, ax = plt.subplots(figsize=size, dpi=dpi)
    ax.imshow(w.numpy(), cmap="viridis", vmin=0, vmax=1)
    key_tokens = key_tokens if key_tokens is not None else tokens
    if tokens is not None:
        ax.set_yticks(range(len(tokens)), labels=tokens)
    if key_tokens is not None:
        ax.set_xticks(range(len(key_tokens)), labels=key_tokens, rotation=90)
    ax.set_xlabel("key / clave")
    ax.set_ylabel("query / consulta")
    ax.set_title(f"head / cabeza {head}")
    fig.savefig(path, dpi=dpi, format="png")
    plt.close(fig)
    return path
