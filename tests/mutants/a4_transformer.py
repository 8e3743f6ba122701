"""Classic mistakes in a4_transformer: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "post-norm without the residual": Mutant(
        "layers.py",
        [
            ("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
             "x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)[0]))"),
        ],
        must_fail=["Does a post-norm EncoderLayer match"],
    ),
    "pre-norm normalises after the sub-layer": Mutant(
        "layers.py",
        [
            ("            x = x + self.dropout2(self.ff(self.norm2(x)))\n",
             "            x = self.norm2(x + self.dropout2(self.ff(x)))\n"),
        ],
        must_fail=["Does a pre-norm EncoderLayer match"],
    ),
    "cross-attention attends to the decoder itself": Mutant(
        "layers.py",
        [
            ("self.cross_attn(x, memory, memory, memory_mask)",
             "self.cross_attn(x, x, x, tgt_mask)"),
        ],
        must_fail=["Does a post-norm DecoderLayer match"],
    ),
    "embeddings not scaled by sqrt(d_model)": Mutant(
        "transformer.py",
        [
            ("embedding(tokens) * math.sqrt(self.config.d_model)",
             "embedding(tokens)"),
        ],
        must_fail=["Does the post-norm model give the reference logits", "Do encode and decode return"],
    ),
    "target mask without causality": Mutant(
        "transformer.py",
        [
            ("tgt_mask = target_mask(tgt, self.config.pad_id)",
             "tgt_mask = padding_mask(tgt, self.config.pad_id)"),
        ],
        must_fail=["Does changing target token t leave the logits", "Does the post-norm model give the reference logits"],
    ),
    "no final encoder norm in pre-norm": Mutant(
        "transformer.py",
        [
            ("return self.encoder_norm(x), src_mask",
             "return x, src_mask"),
        ],
        must_fail=["Does the pre-norm model"],
    ),
}
