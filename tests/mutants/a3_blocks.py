"""Classic mistakes in a3_blocks: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

TABLES = ["Is the table for d_model = 4", "Is pe the paper's sin/cos table", "Does forward add pe[:T]",
          "Are far positions still distinct"]

MUTANTS = {
    "sin and cos swapped": Mutant(
        "positional.py",
        [
            ("pe[:, 0::2] = torch.sin(",
             "pe[:, 0::2] = torch.cos("),
            ("pe[:, 1::2] = torch.cos(",
             "pe[:, 1::2] = torch.sin("),
        ],
        must_fail=TABLES,
        names="sin and cos swapped",
    ),
    "positional encoding with its own dropout": Mutant(
        "positional.py",
        [("        return x + self.pe[:T]", "        return torch.nn.functional.dropout(x + self.pe[:T], 0.1, self.training)")],
        must_fail=["Does forward add pe[:T]"],
        names="PositionalEncoding drops values in training mode",
    ),
    "frequencies use i instead of 2i": Mutant(
        "positional.py",
        [
            ("torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)",
             "torch.arange(0, d_model // 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)"),
        ],
        must_fail=TABLES,
        names="not i/d_model",
    ),
    "frequency base 1000 instead of 10000": Mutant(
        "positional.py",
        [("-math.log(10000.0) / d_model", "-math.log(1000.0) / d_model")],
        must_fail=TABLES,
        names="wrong frequency base",
    ),
    "frequencies multiply instead of divide": Mutant(
        "positional.py",
        [("-math.log(10000.0) / d_model", "math.log(10000.0) / d_model")],
        must_fail=TABLES,
        names="not multiplied",
    ),
    "sines and cosines in halves, not interleaved": Mutant(
        "positional.py",
        [
            ("pe[:, 0::2] = torch.sin(position * inv_freq)\n        pe[:, 1::2] = torch.cos(position * inv_freq)",
             "pe = torch.cat([torch.sin(position * inv_freq), torch.cos(position * inv_freq)], dim=1)"),
        ],
        must_fail=TABLES,
        names="must be interleaved",
    ),
    "positions indexed by the batch size": Mutant(
        "positional.py",
        [("return x + self.pe[:T]", "return x + self.pe[:x.size(0)]")],
        must_fail=["Does forward add pe[:T]"],
        names="instead of pe[:T]",
    ),
    "heads merged without transposing back": Mutant(
        "multihead.py",
        [
            ("out = out.transpose(1, 2).reshape(B, T_q, self.d_model)",
             "out = out.reshape(B, T_q, self.d_model)"),
        ],
        must_fail=["Does self-attention match torch", "Does cross-attention", "Does a (T, T) causal mask"],
        names="heads merged without transposing back",
    ),
    "heads split without transpose": Mutant(
        "multihead.py",
        [
            ("q = self.w_q(query).view(B, T_q, h, d_k).transpose(1, 2)", "q = self.w_q(query).view(B, h, T_q, d_k)"),
            ("k = self.w_k(key).view(B, T_k, h, d_k).transpose(1, 2)", "k = self.w_k(key).view(B, h, T_k, d_k)"),
            ("v = self.w_v(value).view(B, T_k, h, d_k).transpose(1, 2)", "v = self.w_v(value).view(B, h, T_k, d_k)"),
        ],
        must_fail=["Does self-attention match torch", "Does cross-attention", "Does a (T, T) causal mask"],
        names="heads split without transpose",
    ),
    "key and value swapped": Mutant(
        "multihead.py",
        [
            ("k = self.w_k(key).view(B, T_k, h, d_k)", "k = self.w_k(value).view(B, T_k, h, d_k)"),
            ("v = self.w_v(value).view(B, T_k, h, d_k)", "v = self.w_v(key).view(B, T_k, h, d_k)"),
        ],
        must_fail=["Does cross-attention"],
        names="key and value swapped",
    ),
    "no output projection": Mutant(
        "multihead.py",
        [("return self.w_o(out), (weights", "return out, (weights")],
        must_fail=["Does self-attention match torch", "Does cross-attention", "Does a (T, T) causal mask"],
        names="output projection w_o is not applied",
    ),
    "mask not passed to the attention": Mutant(
        "multihead.py",
        [("scaled_dot_product_attention(q, k, v, mask)", "scaled_dot_product_attention(q, k, v)")],
        must_fail=["Does cross-attention", "Does a (T, T) causal mask"],
        names="mask is not passed on",
    ),
    "no divisibility check": Mutant(
        "multihead.py",
        [
            ("if d_model % num_heads != 0:",
             "if False:"),
        ],
        must_fail=["Does MultiHeadAttention(d_model, h) with h not dividing"],
        names="does not check that num_heads divides",
    ),
    "attention dropout also in eval mode": Mutant(
        "multihead.py",
        [
            ("if self.training and self.dropout.p > 0:\n            out = self.dropout(weights) @ v",
             "if self.dropout.p > 0:\n            out = nn.functional.dropout(weights, self.dropout.p) @ v"),
        ],
        must_fail=["Does cross-attention"],
        names="dropout is applied in eval mode",
    ),
    "attention dropout result unused": Mutant(
        "multihead.py",
        [("out = self.dropout(weights) @ v", "self.dropout(weights) @ v")],
        must_fail=["Does cross-attention"],
        names="dropout is never applied to the attention weights",
    ),
    "dropout on the heads' outputs, not the weights": Mutant(
        "multihead.py",
        [("out = self.dropout(weights) @ v", "out = self.dropout(out)")],
        must_fail=["Does cross-attention"],
        names="instead of on the attention weights",
    ),
    "dropout after the second linear layer": Mutant(
        "feedforward.py",
        [
            ("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
             "return self.dropout(self.linear2(torch.relu(self.linear1(x))))"),
        ],
        must_fail=["In training mode, does dropout zero some hidden units"],
        names="dropout after linear2",
    ),
    "feed-forward without ReLU": Mutant(
        "feedforward.py",
        [
            ("self.dropout(torch.relu(self.linear1(x)))",
             "self.dropout(self.linear1(x))"),
        ],
        must_fail=["Is the output linear2(ReLU(linear1(x)))", "Do the gradients w.r.t. the input and both layers"],
        names="no ReLU between linear1 and linear2",
    ),
    "GELU instead of ReLU": Mutant(
        "feedforward.py",
        [("self.dropout(torch.relu(self.linear1(x)))", "self.dropout(nn.functional.gelu(self.linear1(x)))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))", "Do the gradients w.r.t. the input and both layers"],
        names="GELU instead of ReLU",
    ),
    "feed-forward dropout result unused": Mutant(
        "feedforward.py",
        [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "return self.linear2(torch.relu(self.linear1(x)))")],
        must_fail=["In training mode, does dropout zero some hidden units"],
        names="dropout never acts on the hidden units",
    ),
    # From held-out round 3, once it was measured: diagnosed by general mechanisms (the
    # table's columns read as waves; the parameters' shapes), not by a named mistake.
    "cosines with the exponent (2i + 1) / d_model": Mutant(
        "positional.py",
        [("pe[:, 1::2] = torch.cos(position * inv_freq)",
          "pe[:, 1::2] = torch.cos(position * torch.exp(torch.arange(1, d_model, 2, dtype=torch.float32)"
          " * (-math.log(10000.0) / d_model)))")],
        must_fail=TABLES,
        names="hold another wave",
    ),
    "projections without bias": Mutant(
        "multihead.py",
        [("nn.Linear(d_model, d_model)\n", "nn.Linear(d_model, d_model, bias=False)\n")],
        must_fail=["Do MultiHeadAttention(256, 8) and (64, 1) have"],
        names="biases left out",
    ),
    "forward adds the table into the caller's x in place (x += pe)": Mutant(
        "positional.py",
        [("        return x + self.pe[:T]", "        x += self.pe[:T]\n        return x")],
        must_fail=["Does forward add pe[:T]"],
        names="changes its caller's tensor in place",
    ),
    "frequency base 100000 (a zero too many)": Mutant(
        "positional.py",
        [("torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)",
          "torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(100000.0) / d_model)")],
        must_fail=TABLES,
        names="grow with base 1e+05 instead of 10000",
    ),
    "feed-forward dropout given the keep probability (nn.Dropout(1 - dropout))": Mutant(
        "feedforward.py",
        [("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(1 - dropout)")],
        must_fail=["In training mode, does dropout zero some hidden units"],
        names="= 1 - dropout",
    ),
    # Round 7's author found the grader itself crashing on it (an overflow reading the base).
    "positions divided by max_len": Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = (torch.arange(max_len, dtype=torch.float32) / max_len).unsqueeze(1)")],
        must_fail=["Is pe the paper's sin/cos table", "Are far positions still distinct"],
        names="hold another wave",
    ),
    "forward adds the table to x.detach() (no gradient reaches the embeddings)": Mutant(
        "positional.py",
        [("return x + self.pe[:T]", "return x.detach() + self.pe[:T]")],
        must_fail=["Does forward add pe[:T] to every sequence"],
        names="cut off from the graph",
    ),
    "nn.Dropout(inplace=True) on the ReLU's output (its backward needs it)": Mutant(
        "feedforward.py",
        [("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(dropout, inplace=True)")],
        must_fail=["In training mode, does dropout zero some hidden units"],
        names="no inplace=True on nn.Dropout",
    ),
    "weights returned even when need_weights is False": Mutant(
        "multihead.py",
        [("return self.w_o(out), (weights if need_weights else None)", "return self.w_o(out), weights")],
        must_fail=["Does self-attention match torch.nn.MultiheadAttention"],
        names="returned even when need_weights is False",
    ),
    "frequency exponent 2i/max_len instead of 2i/d_model": Mutant(
        "positional.py",
        [("(-math.log(10000.0) / d_model))", "(-math.log(10000.0) / max_len))")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="the exponent is 2i/max_len",
    ),
    "frequencies left as logarithms (exp forgotten)": Mutant(
        "positional.py",
        [("inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))",
          "inv_freq = torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="so the exp is missing",
    ),
    "odd columns -sin instead of cos": Mutant(
        "positional.py",
        [("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:, 1::2] = -torch.sin(position * inv_freq)")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="holds -sin(",
    ),
    "hidden layer scaled by 1/(1 - p) by hand as well": Mutant(
        "feedforward.py",
        [("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
          "return self.linear2(self.dropout(torch.relu(self.linear1(x))) * (1 / (1 - self.dropout.p)))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))"],
        names="divided by (1 - p)",
    ),
    "cosine columns taken of the sine columns (cos(sin(angle)))": Mutant(
        "positional.py",
        [("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:, 1::2] = torch.cos(pe[:, 0::2])")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="is taken of the sin column's values",
    ),
    "cosines one position ahead ((pos + 1) * freq)": Mutant(
        "positional.py",
        [("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:, 1::2] = torch.cos((position + 1) * inv_freq)")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="one position ahead",
    ),
    "table for max_len + 1 positions": Mutant(
        "positional.py",
        [("position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)",
          "position = torch.arange(max_len + 1, dtype=torch.float32).unsqueeze(1)"),
         ("pe = torch.zeros(max_len, d_model)", "pe = torch.zeros(max_len + 1, d_model)")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="one too many",
    ),
    "table rows scaled by sqrt(d_model) when added": Mutant(
        "positional.py",
        [("return x + self.pe[:T]", "return x + self.pe[:T] * math.sqrt(self.d_model)")],
        must_fail=["Does forward add pe[:T]"],
        names="the table's rows are multiplied by",
    ),
    "one head gets no output projection (nn.Identity)": Mutant(
        "multihead.py",
        [("self.w_o = nn.Linear(d_model, d_model)",
          "self.w_o = nn.Linear(d_model, d_model) if num_heads > 1 else nn.Identity()")],
        must_fail=["Do MultiHeadAttention(256, 8) and (64, 1)"],
    ),
    "tanh instead of ReLU in the feed-forward (an RNN habit)": Mutant(
        "feedforward.py",
        [("self.dropout(torch.relu(self.linear1(x)))", "self.dropout(torch.tanh(self.linear1(x)))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))"],
        names="tanh instead of ReLU",
    ),
    "attention weights divided by their row sum after the dropout (to sum to 1 again)": Mutant(
        "multihead.py",
        [("            out = self.dropout(weights) @ v  # (B, h, T_q, d_k)\n",
          "            kept = self.dropout(weights)\n"
          "            out = (kept / kept.sum(-1, keepdim=True).clamp_min(1e-12)) @ v  # (B, h, T_q, d_k)\n")],
        must_fail=["Does cross-attention"],
        names="scaled by a factor that changes from row to row",
    ),
    "ReLU6 instead of ReLU in the feed-forward (a MobileNet habit)": Mutant(
        "feedforward.py",
        [("self.dropout(torch.relu(self.linear1(x)))",
          "self.dropout(torch.nn.functional.relu6(self.linear1(x)))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))"],
        names="ReLU6 (capped at 6",
    ),
    "sine and cosine of the bare position, divided by the wavelength afterwards": Mutant(
        "positional.py",
        [("        pe[:, 0::2] = torch.sin(position * inv_freq)\n        pe[:, 1::2] = torch.cos(position * inv_freq)\n",
          "        wavelength = 10000.0 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)\n"
          "        pe[:, 0::2] = torch.sin(position) / wavelength\n"
          "        pe[:, 1::2] = torch.cos(position) / wavelength\n")],
        must_fail=["Is the table for d_model = 4", "Is pe the paper's sin/cos table"],
        names="the frequency multiplies the sine instead of its angle",
    ),
    "the table's last position left at zero (the rows filled stop one short)": Mutant(
        "positional.py",
        [("pe[:, 0::2] = torch.sin(position * inv_freq)", "pe[:-1, 0::2] = torch.sin(position[:-1] * inv_freq)"),
         ("pe[:, 1::2] = torch.cos(position * inv_freq)", "pe[:-1, 1::2] = torch.cos(position[:-1] * inv_freq)")],
        must_fail=["Is the table for d_model = 4", "Is pe the paper's sin/cos table"],
        names="(the last) of",
    ),
    "attention dropout given the keep probability (keep = 1 - dropout; nn.Dropout(keep))": Mutant(
        "multihead.py",
        [("        self.dropout = nn.Dropout(dropout)", "        keep = 1.0 - dropout\n        self.dropout = nn.Dropout(keep)")],
        must_fail=["Does cross-attention (T_q ≠ T_k, key ≠ value) with a padding mask"],
        names="1 - dropout",
    ),
    "forward keeps only the rows it needs (self.pe = self.pe[:T], to save memory)": Mutant(
        "positional.py",
        [("        return x + self.pe[:T]\n", "        self.pe = self.pe[:T]\n        return x + self.pe\n")],
        must_fail=["Does forward add pe[:T]"],
        names="forward changes the table it reads",
    ),
    "dropped attention added to the plain output (out = out + dropout(weights) @ v)": Mutant(
        "multihead.py",
        [("            out = self.dropout(weights) @ v  # (B, h, T_q, d_k)\n",
          "            out = out + self.dropout(weights) @ v  # (B, h, T_q, d_k)\n")],
        must_fail=["Does cross-attention"],
        names="plus the attention with it",
    ),
    "squared ReLU in the feed-forward (relu(h).pow(2))": Mutant(
        "feedforward.py",
        [("self.dropout(torch.relu(self.linear1(x)))",
          "self.dropout(torch.relu(self.linear1(x)).pow(2))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))"],
        names="it squares positive values",
    ),
    "ELU in the feed-forward": Mutant(
        "feedforward.py",
        [("self.dropout(torch.relu(self.linear1(x)))",
          "self.dropout(torch.nn.functional.elu(self.linear1(x)))")],
        must_fail=["Is the output linear2(ReLU(linear1(x)))"],
        names="it lets negative values through",
    ),
    "feed-forward dropout built as nn.Dropout2d (whole positions dropped)": Mutant(
        "feedforward.py",
        [("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout2d(dropout)")],
        must_fail=["In training mode, does dropout zero some hidden units"],
        names="drops whole positions",
    ),
    "positions added last row first (self.pe[:T].flip(0))": Mutant(
        "positional.py",
        [("        return x + self.pe[:T]\n", "        return x + self.pe[:T].flip(0)\n")],
        must_fail=["Does forward add pe[:T]"],
        names="in reverse order",
    ),
    "positional table created in float16 to save memory": Mutant(
        "positional.py",
        [("pe = torch.zeros(max_len, d_model)", "pe = torch.zeros(max_len, d_model, dtype=torch.float16)")],
        must_fail=["Is pe the paper's sin/cos table"],
        names="every value is a float16 number",
    ),
}
