"""Classic mistakes in a3_blocks: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "sin and cos swapped": Mutant(
        "positional.py",
        [
            ("pe[:, 0::2] = torch.sin(",
             "pe[:, 0::2] = torch.cos("),
            ("pe[:, 1::2] = torch.cos(",
             "pe[:, 1::2] = torch.sin("),
        ],
        must_fail=["Is the table for d_model = 4", "Is pe the paper's sin/cos table", "Does forward add pe[:T]"],
    ),
    "frequencies use i instead of 2i": Mutant(
        "positional.py",
        [
            ("torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)",
             "torch.arange(0, d_model // 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)"),
        ],
        must_fail=["Is pe the paper's sin/cos table"],
    ),
    "heads merged without transposing back": Mutant(
        "multihead.py",
        [
            ("out = out.transpose(1, 2).reshape(B, T_q, self.d_model)",
             "out = out.reshape(B, T_q, self.d_model)"),
        ],
        must_fail=["Does self-attention match torch", "Does cross-attention"],
    ),
    "no divisibility check": Mutant(
        "multihead.py",
        [
            ("if d_model % num_heads != 0:",
             "if False:"),
        ],
        must_fail=["Does MultiHeadAttention(d_model, h) with h not dividing"],
    ),
    "dropout after the second linear layer": Mutant(
        "feedforward.py",
        [
            ("return self.linear2(self.dropout(torch.relu(self.linear1(x))))",
             "return self.dropout(self.linear2(torch.relu(self.linear1(x))))"),
        ],
        must_fail=["In training mode, does dropout zero some hidden units"],
    ),
    "feed-forward without ReLU": Mutant(
        "feedforward.py",
        [
            ("self.dropout(torch.relu(self.linear1(x)))",
             "self.dropout(self.linear1(x))"),
        ],
        must_fail=["Is the output linear2(ReLU(linear1(x)))", "Do the gradients w.r.t. the input and both layers"],
    ),
}
