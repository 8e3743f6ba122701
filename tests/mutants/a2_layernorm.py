"""Classic mistakes in a2_layernorm: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

MUTANTS = {
    "unbiased variance": Mutant(
        "layernorm.py",
        [
            ("unbiased=False",
             "unbiased=True"),
        ],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Are the variance biased", "Does the output match torch's layer_norm"],
    ),
    "eps outside the square root": Mutant(
        "layernorm.py",
        [
            ("torch.sqrt(var + self.eps)",
             "(torch.sqrt(var) + self.eps)"),
        ],
        must_fail=["Are the variance biased"],
    ),
    "normalises the last dim only": Mutant(
        "layernorm.py",
        [
            ("dims = tuple(range(-len(self.normalized_shape), 0))",
             "dims = (-1,)"),
        ],
        must_fail=["Does it normalise over several trailing dims"],
    ),
    "weight not a Parameter": Mutant(
        "layernorm.py",
        [
            ("self.weight = nn.Parameter(torch.ones(self.normalized_shape))",
             "self.register_buffer('weight', torch.ones(self.normalized_shape))"),
        ],
        must_fail=["Are weight and bias parameters"],
    ),
    "calls F.layer_norm": Mutant(
        "layernorm.py",
        [
            ("        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n",
             "        return torch.nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)\n"),
        ],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Do gradients w.r.t. input, weight and bias"],
    ),
}
