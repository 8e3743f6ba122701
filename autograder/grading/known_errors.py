"""What a well-known PyTorch or Python error raised by the student's code usually means.

A message like "a leaf Variable that requires grad is being used in an in-place
operation" is exact but does not say what to change. For the errors students meet most
often this module gives the usual cause and fix, after ``Likely mistake:``. It only reads
what the feedback shows anyway (the type, and the message where the redaction keeps it),
so it adds no channel out of the student's process.
"""

from __future__ import annotations

# (exception type or None for any, phrase of the message, English, Spanish), first match wins.
KNOWN: tuple[tuple[str | None, str, str, str], ...] = (
    ("RuntimeError", "leaf Variable that requires grad is being used in an in-place operation",
     "an in-place operation (x.sub_(...), x -= ..., x[...] = ...) changes a tensor that autograd needs: compute a "
     "new tensor instead (x = x - mean)",
     "una operación in situ (x.sub_(...), x -= ..., x[...] = ...) cambia un tensor que autograd necesita: calcula "
     "un tensor nuevo (x = x - media)"),
    ("RuntimeError", "modified by an inplace operation",
     "an in-place operation changed a tensor that the backward pass needs: replace it by an out-of-place one "
     "(x = x + y instead of x += y, masked_fill instead of masked_fill_)",
     "una operación in situ cambió un tensor que la pasada hacia atrás necesita: sustitúyela por una que cree otro "
     "tensor (x = x + y en lugar de x += y, masked_fill en lugar de masked_fill_)"),
    ("RuntimeError", "view size is not compatible with input tensor's size and stride",
     ".view on a tensor that is not contiguous (after a transpose): use .reshape(...) or .contiguous().view(...)",
     ".view sobre un tensor no contiguo (tras un transpose): usa .reshape(...) o .contiguous().view(...)"),
    ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied",
     "a matrix product whose inner sizes do not fit: check which axes are transposed (transpose(-2, -1)) and the "
     "sizes given to nn.Linear",
     "un producto de matrices cuyos tamaños internos no encajan: revisa qué ejes se trasponen (transpose(-2, -1)) "
     "y los tamaños dados a nn.Linear"),
    ("RuntimeError", "Expected all tensors to be on the same device",
     "a tensor created on another device: make new tensors with device=x.device (or torch.*_like(x))",
     "un tensor creado en otro dispositivo: crea los tensores nuevos con device=x.device (o torch.*_like(x))"),
    ("RuntimeError", "does not require grad and does not have a grad_fn",
     "the value is cut off from the graph (detach(), .data, .item(), torch.no_grad() or a new tensor built from "
     "numbers): keep the computation in differentiable tensor operations",
     "el valor queda fuera del grafo (detach(), .data, .item(), torch.no_grad() o un tensor nuevo hecho de "
     "números): mantén el cálculo en operaciones diferenciables de tensores"),
    ("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous",
     "a tensor used as a Python bool (if t:, and, or, not): use .any(), .all(), &, | or ~",
     "un tensor usado como bool de Python (if t:, and, or, not): usa .any(), .all(), &, | o ~"),
    (None, "expected scalar type",
     "two tensors of different dtypes meet: create new tensors with dtype=x.dtype (or torch.*_like(x))",
     "se juntan dos tensores de dtype distinto: crea los tensores nuevos con dtype=x.dtype (o torch.*_like(x))"),
    (None, "must have the same dtype",
     "two tensors of different dtypes meet: create new tensors with dtype=x.dtype (or torch.*_like(x))",
     "se juntan dos tensores de dtype distinto: crea los tensores nuevos con dtype=x.dtype (o torch.*_like(x))"),
)


def explain(kind: str, message: str) -> tuple[str, str] | None:
    """The usual cause of an error of type ``kind`` with ``message``, or None."""
    if kind == "KeyError":  # the type alone says it, shown even where the message is withheld
        key = f" ({message[:60]})" if message else ""
        return (f"a dictionary lookup of a key it does not hold{key}: where a key may be missing, use "
                f".get(key, default) (for words outside a vocabulary, the <unk> id)",
                f"se busca en un diccionario una clave que no tiene{key}: donde pueda faltar, usa "
                f".get(clave, valor_por_defecto) (para palabras fuera del vocabulario, el id de <unk>)")
    if not message:
        return None
    for known_kind, phrase, en, es in KNOWN:
        if (known_kind is None or known_kind == kind) and phrase in message:
            return en, es
    return None
