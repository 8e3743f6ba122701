"""The encoder-decoder Transformer (Vaswani et al., 2017, section 3, figure 1).

    src tokens -> embedding * sqrt(d_model) + positions -> N encoder layers -> memory
    tgt tokens -> embedding * sqrt(d_model) + positions -> N decoder layers (attending to
    memory) -> linear -> logits over the target vocabulary

Legend: B = batch size, S = source length, T = target length, V = target vocabulary size.
"""

import math
from dataclasses import dataclass

from torch import nn

from layers import DecoderLayer, EncoderLayer
from layernorm import LayerNorm
from masks import padding_mask, target_mask
from positional import PositionalEncoding


@dataclass
class TransformerConfig:
    src_vocab_size: int  # number of source token ids
    tgt_vocab_size: int  # number of target token ids (V)
    d_model: int = 512  # embedding and residual-stream size
    num_heads: int = 8  # attention heads per attention layer
    num_layers: int = 6  # layers in the encoder, and again in the decoder
    d_ff: int = 2048  # hidden size of the feed-forward blocks
    dropout: float = 0.1  # after embeddings and on every sub-layer output
    max_len: int = 512  # longest sequence the positional table covers
    pad_id: int = 0  # the <pad> id, in both vocabularies
    norm_first: bool = False  # pre-norm layers (+ a final LayerNorm per stack) if True
    tie_weights: bool = False  # share the target embedding with the output projection

    def __post_init__(self):
        if self.d_model % self.num_heads != 0:
            raise ValueError(
                f"d_model must be divisible by num_heads (got d_model={self.d_model}, num_heads={self.num_heads})"
            )
        if self.d_model % 2 != 0:
            raise ValueError(f"d_model must be even for the positional encoding, got {self.d_model}")


class Transformer(nn.Module):
    """Encoder-decoder Transformer with ``encode`` / ``decode`` for step-by-step decoding.

    Attributes:
        src_embed, tgt_embed: ``nn.Embedding(vocab size, d_model)``.
        positional: a :class:`PositionalEncoding` shared by both sides.
        encoder_layers, decoder_layers: ``nn.ModuleList`` of ``num_layers`` layers each.
        encoder_norm, decoder_norm: final LayerNorms (pre-norm) or ``nn.Identity`` (post-norm).
        generator: ``nn.Linear(d_model, V)``; its weight *is* ``tgt_embed.weight`` when
            ``tie_weights`` is set.

    Shape:
        - src: ``(B, S)`` token ids; tgt: ``(B, T)`` token ids (the decoder input)
        - Output: logits ``(B, T, V)``
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        c = self.config = config
        self.src_embed = nn.Embedding(c.src_vocab_size, c.d_model)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.d_model)
        self.positional = PositionalEncoding(c.d_model, c.max_len)
        self.dropout = nn.Dropout(c.dropout)
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first) for _ in range(c.num_layers)
        )
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(c.d_model, c.num_heads, c.d_ff, c.dropout, c.norm_first) for _ in range(c.num_layers)
        )
        # A final LayerNorm per stack for pre-norm only: a post-norm layer already ends with one.
        # Unlike lecture notebook 001, the paper's post-norm stacks have none (an Identity here).
        # / A diferencia del cuaderno de clase 001, las pilas post-norm del artículo no llevan
        # LayerNorm final (aquí una Identity): cada capa post-norm ya termina con una.
        self.encoder_norm = LayerNorm(c.d_model) if c.norm_first else nn.Identity()
        self.decoder_norm = LayerNorm(c.d_model) if c.norm_first else nn.Identity()
        self.generator = nn.Linear(c.d_model, c.tgt_vocab_size)
        # Glorot initialisation of every matrix, as in the reference implementations.
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        if c.tie_weights:
            self.generator.weight = self.tgt_embed.weight

    def embed(self, embedding, tokens):
        """Token embeddings scaled by sqrt(d_model) (section 3.4), plus positions, dropout."""
        # Pista: (1 línea) embedding(tokens) * sqrt(d_model), luego self.positional y self.dropout.
        # A diferencia del cuaderno de clase 000, que no escala, se escala como en el 001 y el
        # artículo (3.4): así los embeddings no quedan pequeños frente a las posiciones.
        # Hint: (1 line) embedding(tokens) * sqrt(d_model), then self.positional and self.dropout.
        # Unlike lecture notebook 000, which does not scale, scale as lecture 001 and the paper
        # (3.4) do: the embeddings are then not small next to the positions.
        ### BEGIN SOLUTION
        return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))
        ### END SOLUTION

    def encode(self, src):
        """Run the encoder.

        Returns:
            ``(memory, src_mask)``: memory ``(B, S, d_model)`` and the source padding mask
            ``(B, 1, 1, S)`` that the decoder's cross-attention needs.
        """
        # Pista: (~5 líneas) padding_mask del origen; embed; cada capa del codificador con
        # esa máscara; encoder_norm al final (en post-norm es una Identity: a diferencia del
        # cuaderno de clase 001, no añadas otra LayerNorm).
        # Hint: (~5 lines) source padding_mask; embed; every encoder layer with that mask;
        # encoder_norm at the end (in post-norm an Identity: unlike lecture notebook 001, add
        # no LayerNorm of your own).
        ### BEGIN SOLUTION
        src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)
        x = self.embed(self.src_embed, src)  # (B, S, d_model)
        for layer in self.encoder_layers:
            x = layer(x, src_mask)
        return self.encoder_norm(x), src_mask
        ### END SOLUTION

    def decode(self, tgt, memory, src_mask):
        """Run the decoder on target tokens ``tgt`` (B, T) and return logits (B, T, V)."""
        # Pista: (~5 líneas) target_mask del destino; embed; cada capa del decodificador;
        # decoder_norm y generator.
        # Hint: (~5 lines) target_mask of the target; embed; every decoder layer;
        # decoder_norm and generator.
        ### BEGIN SOLUTION
        tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)
        x = self.embed(self.tgt_embed, tgt)  # (B, T, d_model)
        for layer in self.decoder_layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return self.generator(self.decoder_norm(x))  # (B, T, V)
        ### END SOLUTION

    def forward(self, src, tgt):
        memory, src_mask = self.encode(src)
        return self.decode(tgt, memory, src_mask)
