"""Classic mistakes in a4_transformer: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

LOGITS = ["Does the post-norm model give the reference logits", "Does the pre-norm model", "With tie_weights",
          "Do encode and decode return"]

MUTANTS = {
    "post-norm without the residual": Mutant(
        "layers.py",
        [
            ("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
             "x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)[0]))"),
        ],
        must_fail=["Does a post-norm EncoderLayer match"],
        names="a residual connection is missing",
    ),
    "pre-norm normalises after the sub-layer": Mutant(
        "layers.py",
        [
            ("            x = x + self.dropout2(self.ff(self.norm2(x)))\n",
             "            x = self.norm2(x + self.dropout2(self.ff(x)))\n"),
        ],
        must_fail=["Does a pre-norm EncoderLayer match"],
        names="LayerNorm in the wrong place for pre-norm",
    ),
    "cross-attention attends to the decoder itself": Mutant(
        "layers.py",
        [
            ("self.cross_attn(x, memory, memory, src_mask)",
             "self.cross_attn(x, x, x, tgt_mask)"),
        ],
        must_fail=["Does a post-norm DecoderLayer match"],
        names="cross-attention attends to the decoder itself",
    ),
    "decoder self-attention without the target mask": Mutant(
        "layers.py",
        [("self.self_attn(x, x, x, tgt_mask)", "self.self_attn(x, x, x)")],
        must_fail=["Does a post-norm DecoderLayer match", "Does changing a future target position"],
        names="self-attention is not causal",
    ),
    "dropout after the norm in post-norm": Mutant(
        "layers.py",
        [
            ("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
             "x = self.dropout1(self.norm1(x + self.self_attn(x, x, x, mask)[0]))"),
            ("x = self.norm2(x + self.dropout2(self.ff(x)))",
             "x = self.dropout2(self.norm2(x + self.ff(x)))"),
        ],
        must_fail=["Does a post-norm EncoderLayer match"],
        names="dropout acts on the residual stream",
    ),
    "embeddings not scaled by sqrt(d_model)": Mutant(
        "transformer.py",
        [
            ("embedding(tokens) * math.sqrt(self.config.d_model)",
             "embedding(tokens)"),
        ],
        must_fail=LOGITS,
        names="does not scale the token embeddings",
    ),
    "embeddings scaled after adding the positions": Mutant(
        "transformer.py",
        [("self.positional(embedding(tokens) * math.sqrt(self.config.d_model))",
          "self.positional(embedding(tokens)) * math.sqrt(self.config.d_model)")],
        must_fail=LOGITS,
        names="after adding the positions",
    ),
    "no dropout after the embeddings": Mutant(
        "transformer.py",
        [("return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))",
          "return self.positional(embedding(tokens) * math.sqrt(self.config.d_model))")],
        must_fail=["Do encode and decode return"],
        names="embed applies no dropout in training mode",
    ),
    "target mask without causality": Mutant(
        "transformer.py",
        [
            ("tgt_mask = target_mask(tgt, self.config.pad_id)",
             "tgt_mask = padding_mask(tgt, self.config.pad_id)"),
        ],
        must_fail=["Does changing target token t leave the logits", "Does the post-norm model give the reference logits"],
        names="self-attention is not causal",
    ),
    "encoder output not passed on as memory": Mutant(
        "transformer.py",
        [("            x = layer(x, src_mask)\n", "            out = layer(x, src_mask)\n")],
        must_fail=LOGITS,
        names="not the encoder layers' output",
    ),
    "cross-attention gets the target mask": Mutant(
        "transformer.py",
        [("x = layer(x, memory, tgt_mask, src_mask)", "x = layer(x, memory, tgt_mask, tgt_mask)")],
        must_fail=LOGITS,
        names="target mask for their cross-attention",
    ),
    "no final encoder norm in pre-norm": Mutant(
        "transformer.py",
        [
            ("return self.encoder_norm(x), src_mask",
             "return x, src_mask"),
        ],
        must_fail=["Does the pre-norm model"],
        names="final encoder_norm",
    ),
    "no final decoder norm in pre-norm": Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))", "return self.generator(x)")],
        must_fail=["Does the pre-norm model"],
        names="final decoder_norm",
    ),
    "memory detached before the decoder layers (no gradient reaches the encoder)": Mutant(
        "transformer.py",
        [("            x = layer(x, memory, tgt_mask, src_mask)",
          "            x = layer(x, memory.detach(), tgt_mask, src_mask)")],
        must_fail=["Does the post-norm model give the reference logits", "Does the pre-norm model"],
        names="no gradient reaches",
    ),
    "post-norm dropout on the self-attention's input, not its output": Mutant(
        "layers.py",
        [("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
          "y = self.dropout1(x)\n            x = self.norm1(x + self.self_attn(y, y, y, mask)[0])")],
        must_fail=["Does a post-norm EncoderLayer match"],
        names="self_attn's output is not dropped",
    ),
    "encoder sub-layer outputs never dropped": Mutant(
        "layers.py",
        [("x = x + self.dropout1(self.self_attn(y, y, y, mask)[0])", "x = x + self.self_attn(y, y, y, mask)[0]"),
         ("x = x + self.dropout2(self.ff(self.norm2(x)))", "x = x + self.ff(self.norm2(x))"),
         ("x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)[0]))",
          "x = self.norm1(x + self.self_attn(x, x, x, mask)[0])"),
         ("x = self.norm2(x + self.dropout2(self.ff(x)))", "x = self.norm2(x + self.ff(x))")],
        must_fail=["Does a post-norm EncoderLayer match", "Does a pre-norm EncoderLayer match"],
        names="output is not dropped",
    ),
    "pre-norm dropout on the cross-attention's input": Mutant(
        "layers.py",
        [("x = x + self.dropout2(self.cross_attn(self.norm2(x), memory, memory, src_mask)[0])",
          "x = x + self.cross_attn(self.dropout2(self.norm2(x)), memory, memory, src_mask)[0]")],
        must_fail=["Does a pre-norm DecoderLayer match"],
        names="cross_attn's output is not dropped",
    ),
    "dropout on the logits": Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))  # (B, T, V)",
          "return self.dropout(self.generator(self.decoder_norm(x)))  # (B, T, V)")],
        must_fail=["Do encode and decode return"],
        names="dropout is applied to the logits",
    ),
    "dropout again on every encoder layer's output": Mutant(
        "transformer.py",
        [("            x = layer(x, src_mask)", "            x = self.dropout(layer(x, src_mask))")],
        must_fail=["Do encode and decode return"],
        names="dropout acts where the model has none",
    ),
    "decode squeezes the time axis of the logits (T = 1 loses it)": Mutant(
        "transformer.py",
        [("return self.generator(self.decoder_norm(x))  # (B, T, V)",
          "return self.generator(self.decoder_norm(x)).squeeze(1)  # (B, T, V)")],
        must_fail=["Do encode and decode return"],
        names="a reduction without keepdim=True, or a .squeeze()",
    ),
    "decode turns the target mask into floats": Mutant(
        "transformer.py",
        [("tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)",
          "tgt_mask = target_mask(tgt, self.config.pad_id).float()  # (B, 1, T, T)")],
        must_fail=["Does the pre-norm model (final LayerNorm per stack) give the reference logits"],
        names="a mask of floats reached attention",
    ),
    "decoder layer keeps the first memory it is given (self.memory)": Mutant(
        "layers.py",
        [("        if self.norm_first:\n            y = self.norm1(x)\n            x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])",
          "        if getattr(self, \"memory\", None) is None:\n            self.memory = memory\n        memory = self.memory\n"
          "        if self.norm_first:\n            y = self.norm1(x)\n            x = x + self.dropout1(self.self_attn(y, y, y, tgt_mask)[0])")],
        must_fail=["Do encode and decode return"],
        names="reuses something from the first one",
    ),
    "decode builds the target mask once and keeps it (self.tgt_mask)": Mutant(
        "transformer.py",
        [("        tgt_mask = target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)\n",
          "        if not hasattr(self, \"tgt_mask\"):\n            self.tgt_mask = target_mask(tgt, self.config.pad_id)\n"
          "        tgt_mask = self.tgt_mask  # (B, 1, T, T)\n")],
        must_fail=["Do encode and decode return"],
        names="reuses something from the first one",
    ),
    "embed sets self.dropout.p = 0 in eval mode (never restored)": Mutant(
        "transformer.py",
        [("        return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))",
          "        if not self.training:\n            self.dropout.p = 0.0\n"
          "        return self.dropout(self.positional(embedding(tokens) * math.sqrt(self.config.d_model)))")],
        must_fail=["Do encode and decode return"],
        names="switches the dropout off for good",
    ),
}
