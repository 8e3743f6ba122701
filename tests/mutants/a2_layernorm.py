"""Classic mistakes in a2_layernorm: each must lose the points of the graders aimed at it, at every seed."""

from mutants import Mutant

FORWARD = "        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n"
OUTPUTS = ["Does the output match torch's layer_norm", "Does it normalise over several trailing dims",
           "Do gradients w.r.t. input, weight and bias"]

MUTANTS = {
    "unbiased variance": Mutant(
        "layernorm.py",
        [("unbiased=False", "unbiased=True")],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Are the variance biased", *OUTPUTS],
        names="the variance is unbiased",
    ),
    "dropout on the output in training mode": Mutant(
        "layernorm.py",
        [(FORWARD, "        out = (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n"
                   "        return torch.nn.functional.dropout(out, p=0.1, training=self.training)\n")],
        must_fail=["Do gradients w.r.t. input, weight and bias"],
        names="LayerNorm drops values in training mode",
    ),
    "eps outside the square root": Mutant(
        "layernorm.py",
        [("torch.sqrt(var + self.eps)", "(torch.sqrt(var) + self.eps)")],
        must_fail=["Are the variance biased", *OUTPUTS],
        names="outside the square root",
    ),
    "no eps": Mutant(
        "layernorm.py",
        [("torch.sqrt(var + self.eps)", "torch.sqrt(var)")],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Are the variance biased", *OUTPUTS],
        names="does not reach the division",
    ),
    "x.std() plus eps": Mutant(
        "layernorm.py",
        [(FORWARD, "        return (x - mean) / (x.std(dim=dims, keepdim=True) + self.eps) * self.weight + self.bias\n")],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Are the variance biased", *OUTPUTS],
        names="divided by N - 1",
    ),
    "mean not subtracted": Mutant(
        "layernorm.py",
        [(FORWARD, "        return x / torch.sqrt(var + self.eps) * self.weight + self.bias\n")],
        must_fail=["Does LayerNorm(3) give the course's outputs", *OUTPUTS],
        names="the mean is not subtracted",
    ),
    "normalises the last dim only": Mutant(
        "layernorm.py",
        [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = (-1,)")],
        must_fail=["Does it normalise over several trailing dims", "Do gradients w.r.t. input, weight and bias"],
        names="over the last dimension only",
    ),
    "normalises over every dim": Mutant(
        "layernorm.py",
        [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = tuple(range(x.dim()))")],
        must_fail=["Does LayerNorm(3) give the course's outputs", *OUTPUTS],
        names="over every dimension of x",
    ),
    "normalises over the first dims": Mutant(
        "layernorm.py",
        [("dims = tuple(range(-len(self.normalized_shape), 0))", "dims = tuple(range(len(self.normalized_shape)))")],
        must_fail=["Does LayerNorm(3) give the course's outputs", *OUTPUTS],
        names="over the first dimensions",
    ),
    "weight and bias swapped in forward": Mutant(
        "layernorm.py",
        [("* self.weight + self.bias", "* self.bias + self.weight")],
        must_fail=["Does LayerNorm(3) give the course's outputs", *OUTPUTS],
        names="weight and bias are swapped",
    ),
    "bias built from an integer list (torch.tensor([0] * N))": Mutant(
        "layernorm.py",
        [("        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))\n",
          "        self.bias = nn.Parameter(torch.tensor([0] * self.normalized_shape[-1]))\n")],
        must_fail=["Does LayerNorm(3) give the course's outputs", *OUTPUTS],
        names="built as integers",
    ),
    "weight broadcast from one element with expand (a view shared by every feature)": Mutant(
        "layernorm.py",
        [("        self.weight = nn.Parameter(torch.ones(self.normalized_shape))\n",
          "        self.weight = nn.Parameter(torch.tensor(1.0).expand(*self.normalized_shape))\n")],
        must_fail=["Does the output match torch's layer_norm"],
        names="made with expand()",
    ),
    "weight initialised to zeros": Mutant(
        "layernorm.py",
        [("nn.Parameter(torch.ones(self.normalized_shape))", "nn.Parameter(torch.zeros(self.normalized_shape))")],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Are weight and bias parameters"],
        names="must start at ones",
    ),
    "parameters named gamma and beta": Mutant(
        "layernorm.py",
        [("self.weight = nn.Parameter(", "self.gamma = nn.Parameter("),
         ("self.bias = nn.Parameter(", "self.beta = nn.Parameter("),
         ("* self.weight + self.bias", "* self.gamma + self.beta")],
        must_fail=["Are weight and bias parameters", *OUTPUTS],
        names="must be called weight and bias",
    ),
    "weight not a Parameter": Mutant(
        "layernorm.py",
        [("self.weight = nn.Parameter(torch.ones(self.normalized_shape))",
          "self.register_buffer('weight', torch.ones(self.normalized_shape))")],
        must_fail=["Are weight and bias parameters", "Do gradients w.r.t. input, weight and bias"],
        names="not a trainable nn.Parameter",
    ),
    "calls F.layer_norm": Mutant(
        "layernorm.py",
        [(FORWARD,
          "        return torch.nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)\n")],
        must_fail=["Does LayerNorm(3) give the course's outputs", "Do gradients w.r.t. input, weight and bias"],
        names="uses what this exercise asks you to build",
    ),
    "x centred in place (x -= mean), the caller's tensor changed": Mutant(
        "layernorm.py",
        [("        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
          "        x -= mean\n        return x / torch.sqrt(var + self.eps) * self.weight + self.bias")],
        must_fail=["Does the output match torch's layer_norm for an int normalized_shape"],
        names="changes its caller's tensor in place",
    ),
    "a float32 detour inside forward (x.float()), float64 only in the output": Mutant(
        "layernorm.py",
        [("mean = x.mean(dim=dims, keepdim=True)", "x = x.float()\n        mean = x.mean(dim=dims, keepdim=True)")],
        must_fail=["Do gradients w.r.t. input, weight and bias"],
        names="float32's precision only",
    ),
    "variance as E[x²] - E[x]² (cancels in float32 for a large mean)": Mutant(
        "layernorm.py",
        [("var = x.var(dim=dims, unbiased=False, keepdim=True)",
          "var = (x * x).mean(dim=dims, keepdim=True) - x.mean(dim=dims, keepdim=True) ** 2")],
        must_fail=["Are the variance biased"],
        names="E[x²] - E[x]²",
    ),
    "register_parameter given plain tensors": Mutant(
        "layernorm.py",
        [("self.weight = nn.Parameter(torch.ones(self.normalized_shape))\n"
          "        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))",
          'self.register_parameter("weight", torch.ones(self.normalized_shape))\n'
          '        self.register_parameter("bias", torch.zeros(self.normalized_shape))')],
        must_fail=["Does LayerNorm(3) give the course's outputs"],
        names="register_parameter (or a parameter's attribute) given a plain tensor",
    ),
    "weight and bias indexed with [None] (a single vector gets a batch axis)": Mutant(
        "layernorm.py",
        [("* self.weight + self.bias", "* self.weight[None] + self.bias[None]")],
        must_fail=["Does the output match torch's layer_norm for an int"],
        names="extra axis of size 1 at dim 0",
    ),
    "one feature returned unchanged (nothing to normalise)": Mutant(
        "layernorm.py",
        [("        dims = tuple(range(-len(self.normalized_shape), 0))\n",
          "        if x.size(-1) == 1:\n            return x\n"
          "        dims = tuple(range(-len(self.normalized_shape), 0))\n")],
        must_fail=["Does the output match torch's layer_norm for an int"],
    ),
    "the dims unpacked into mean's arguments (x.mean(*dims, ...): the second dim is read as keepdim)": Mutant(
        "layernorm.py",
        [("mean = x.mean(dim=dims, keepdim=True)",
          "mean = x.mean(*dims, keepdim=True)")],
        must_fail=["Does it normalise over several trailing dims"],
        names="pass them as one tuple by name",
    ),
    "mean and variance kept on the module from the first call": Mutant(
        "layernorm.py",
        [("        mean = x.mean(dim=dims, keepdim=True)\n        var = x.var(dim=dims, unbiased=False, keepdim=True)\n",
          "        if not hasattr(self, \"stats\"):\n"
          "            self.stats = x.mean(dim=dims, keepdim=True), x.var(dim=dims, unbiased=False, keepdim=True)\n"
          "        mean, var = self.stats\n")],
        must_fail=["Does the output match torch's layer_norm for an int"],
        names="the second call does not normalise its own input",
    ),
    "input flattened with x.view(-1, n) (a transposed input raises)": Mutant(
        "layernorm.py",
        [("        mean = x.mean(dim=dims, keepdim=True)\n        var = x.var(dim=dims, unbiased=False, keepdim=True)\n"
          "        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n",
          "        flat = x.view(-1, self.weight.numel())\n"
          "        mean = flat.mean(dim=1, keepdim=True)\n        var = flat.var(dim=1, unbiased=False, keepdim=True)\n"
          "        return ((flat - mean) / torch.sqrt(var + self.eps)).view_as(x) * self.weight + self.bias\n")],
        must_fail=["Does the output match torch's layer_norm for an int"],
        names="not contiguous",
    ),
    "weight and bias skipped while at their initial values": Mutant(
        "layernorm.py",
        [("        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias\n",
          "        x_hat = (x - mean) / torch.sqrt(var + self.eps)\n"
          "        if bool((self.weight == 1).all()) and bool((self.bias == 0).all()):\n"
          "            return x_hat\n"
          "        return x_hat * self.weight + self.bias\n")],
        must_fail=["Does the output match torch's layer_norm for an int"],
        names="no gradient reaches weight and bias at their initial values",
    ),
}
