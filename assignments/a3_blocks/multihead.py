"""Multi-head attention (Vaswani et al., 2017, section 3.2.2).

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V)

Each head attends in its own d_k = d_model / h dimensional subspace. The same module does
self-attention (query = key = value) and cross-attention (queries from the decoder, keys
and values from the encoder output, so T_q and T_k may differ).

Legend: B = batch size, h = num_heads, T_q = query length, T_k = key/value length,
d_k = d_model // num_heads.
"""

from torch import nn

from attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    """Project into ``num_heads`` subspaces, attend in each, concatenate, project back.

    Args:
        d_model: model size; must be divisible by ``num_heads``.
        num_heads: number of heads h.
        dropout: dropout probability on the attention weights (training only).

    Attributes:
        d_model, num_heads: the constructor's arguments.
        d_k: ``d_model // num_heads``, the size of each head.
        w_q, w_k, w_v: ``nn.Linear(d_model, d_model)`` projections; rows
            ``i*d_k:(i+1)*d_k`` of each weight belong to head i.
        w_o: ``nn.Linear(d_model, d_model)`` output projection.

    Shape:
        - query: ``(B, T_q, d_model)``; key, value: ``(B, T_k, d_model)``
        - mask: boolean, broadcastable to ``(B, h, T_q, T_k)``, True = may attend;
          e.g. a padding mask ``(B, 1, 1, T_k)`` or a target mask ``(B, 1, T_q, T_q)``.
        - Output: ``(output, weights)``: output ``(B, T_q, d_model)``; weights
          ``(B, h, T_q, T_k)`` when ``need_weights=True``, else None.

    Raises:
        ValueError: if d_model is not divisible by num_heads (the message names both).
    """

    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        # Pista: (~8 líneas) comprueba la divisibilidad con un ValueError claro; guarda
        # d_model, num_heads y d_k; crea w_q, w_k, w_v, w_o y self.dropout = nn.Dropout(dropout).
        # Las cuatro proyecciones llevan sesgo (nn.Linear por defecto), como en los cuadernos de
        # clase 000, 001 y 003 y a diferencia del 002 (bias=False).
        # Hint: (~8 lines) check divisibility with a clear ValueError; store d_model,
        # num_heads and d_k; create w_q, w_k, w_v, w_o and self.dropout = nn.Dropout(dropout).
        # The four projections have a bias (nn.Linear's default), as in lecture notebooks 000,
        # 001 and 003 and unlike 002 (bias=False).
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: MultiHeadAttention.__init__")

    def forward(self, query, key, value, mask=None, need_weights=False):
        B, T_q, _ = query.size()  # batch, query length, d_model
        T_k = key.size(1)
        # Pista: (~9 líneas) proyecta y parte en cabezas con view + transpose(1, 2);
        # scaled_dot_product_attention de a1; dropout sobre los pesos; junta las cabezas
        # con transpose + reshape y aplica w_o.
        # A diferencia del cuaderno de clase 000, que recibe (values, keys, queries) y devuelve solo
        # la salida, aquí el orden es (query, key, value) y se devuelve (salida, pesos).
        # Hint: (~9 lines) project and split into heads with view + transpose(1, 2);
        # scaled_dot_product_attention from a1; dropout on the weights; merge the heads with
        # transpose + reshape and apply w_o. Unlike lecture notebook 000, which takes (values,
        # keys, queries) and returns the output only, the order is (query, key, value) and the
        # result is (output, weights).
        # YOUR CODE HERE
        raise NotImplementedError("not implemented yet: MultiHeadAttention.forward")
