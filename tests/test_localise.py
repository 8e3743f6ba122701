"""Does localisation name the first stage, and the first sub-layer call, that differs?"""

import torch
from torch import nn

from autograder.grading import localise
from autograder.sandbox.child.harness import trace


class _Block(nn.Module):
    """A post-norm residual block: norm2(x + ff(norm1(x + lin(x)))), or a mistake in it."""

    def __init__(self, mistake=None):
        super().__init__()
        torch.manual_seed(0)
        self.lin, self.ff = nn.Linear(4, 4).double(), nn.Linear(4, 4).double()
        self.norm1, self.norm2 = nn.LayerNorm(4).double(), nn.LayerNorm(4).double()
        self.mistake = mistake

    def forward(self, x):
        y = self.norm1(self.lin(x) if self.mistake == "no residual" else x + self.lin(x))
        return (self.norm1 if self.mistake == "norm1 twice" else self.norm2)(y + self.ff(y))


def _difference(mistake):
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    with torch.no_grad():
        return localise.calls_difference(trace(_Block(mistake), x), trace(_Block(), x), atol=1e-9, rtol=1e-9,
                                         tensors={"the block's input x": x})


def test_a_missing_residual_is_found_at_the_norm_that_reads_it():
    """Is a residual left out named at the first call whose input differs, with its shape?"""
    found = _difference("no residual")
    assert "self.norm1: its input is not the reference's" in found[0]
    assert "minus the block's input x" in found[0] and "nunca se suma" in found[1]


def test_a_norm_used_in_place_of_another_is_named():
    """Is norm1 called where the reference calls norm2 named as such?"""
    assert _difference("norm1 twice")[0].startswith("self.norm1 is called where the reference calls self.norm2")


def test_agreeing_traces_and_stages_localise_nothing():
    """Do identical traces give no difference, and agreeing stages give the chaining message?"""
    assert _difference(None) is None
    x = torch.ones(2, 2)
    stages = [localise.Stage("a", "a", x, x), localise.Stage("b", "b", x.clone(), x)]
    assert localise.first_difference(stages, atol=0, rtol=0, chained=("chained", "encadenadas")) == (
        "chained", "encadenadas")


def test_the_first_differing_stage_is_named_with_its_shape():
    """Is the first of several differing stages the one named, with its error's shape?"""
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    stages = [localise.Stage("the embedding", "el embedding", x, x),
              localise.Stage("layer 0", "la capa 0", -x, x), localise.Stage("layer 1", "la capa 1", 2 * x, x)]
    en, es = localise.first_difference(stages, atol=1e-9, rtol=1e-9)
    assert en.startswith(localise.PREFIX_EN + "layer 0: every value has the opposite sign")
    assert es.startswith(localise.PREFIX_ES + "la capa 0")
    wrong_shape = [localise.Stage("the generator", "el generador", x[:2], x)]
    assert "returns (2, 4), expected a tensor of shape (3, 4)" in localise.first_difference(
        wrong_shape, atol=0, rtol=0)[0]


def test_decoding_steps_name_the_first_step_that_differs():
    """Is the first differing decoding step found, and a token after EOS or a pad before it named?"""
    from autograder.graders.a5_decoding.steps import first_step
    from autograder.tokens import EOS, PAD
    want = torch.tensor([[5, EOS, PAD], [6, 7, EOS]])
    after_eos = first_step(torch.tensor([[5, EOS, 9], [6, 7, EOS]]), want)
    assert "step 2 of row 0" in after_eos[0] and "already produced EOS at step 1" in after_eos[0]
    early_pad = first_step(torch.tensor([[5, EOS, PAD], [6, PAD, PAD]]), want)
    assert "row 1 is padded although it has not produced EOS yet" in early_pad[0]
    assert first_step(want.clone(), want) is None


def test_a_grading_console_names_the_sub_layer_of_a_layer_mistake(tmp_path):
    """Does `grade` show, for a decoder layer that reuses norm2 where norm3 belongs, the layer and the sub-layer?"""
    from helpers import make_submission, run_grade_many
    sub = make_submission(tmp_path / "s", {"a4_transformer/layers.py": [
        ("x = self.norm3(x + self.dropout3(self.ff(x)))", "x = self.norm2(x + self.dropout3(self.ff(x)))")]})
    graded, = run_grade_many([sub], tmp_path / "out", "--only", "a4_transformer", "--seed", "1", "--lang", "en")
    assert "Likely mistake: self.norm2 is called where the reference calls self.norm3" in graded.stdout
    assert (f"Likely mistake: {localise.PREFIX_EN}decoder layer 0 (layers.DecoderLayer); self.norm2 is called where "
            "the reference calls self.norm3") in graded.stdout


def test_an_output_with_its_start_column_kept_is_named():
    """Is a decoding output that keeps the sos column named as such, not as a wrong token choice?"""
    from autograder.graders.a5_decoding.steps import first_step
    want = torch.tensor([[5, 2], [6, 2]])
    assert "extra token (1)" in first_step(torch.tensor([[1, 5, 2], [1, 6, 2]]), want, greedy=True)[0]


def test_a_skipped_sub_layer_is_told_from_a_swapped_one():
    """Is a norm left out (the next sub-layer gets its input) named as skipped, not as swapped?"""
    class Skipping(_Block):
        def forward(self, x):
            y = self.norm1(x + self.lin(x))
            return self.ff(y) + y  # norm2 left out

    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)

    class Reference(_Block):
        def forward(self, x):
            y = self.norm1(x + self.lin(x))
            return self.ff(self.norm2(y)) + y

    with torch.no_grad():
        found = localise.calls_difference(trace(Skipping(), x), trace(Reference(), x), atol=1e-9, rtol=1e-9,
                                          tensors={})
    assert found[0].startswith("self.norm2 is skipped: self.ff gets the input the reference gives self.norm2")
