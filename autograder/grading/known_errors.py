"""What a well-known PyTorch or Python error raised by the student's code usually means.

A message like "a leaf Variable that requires grad is being used in an in-place
operation" is exact but does not say what to change. For the errors students meet most
often this module gives the usual cause and fix, after ``Likely mistake:``.

Where reference code runs beside the student's (a3 to a6), the redaction policy
(``redaction.py``) withholds the message itself, and the student would see only the type
and the line. The explanation is still given there: it is one of the fixed texts below,
chosen by a phrase of the message, so what it can carry out of the student's process is
which of these few entries matched (a few bits, as the exception's type already is),
never any text of that process. An explanation that quotes the message (``KeyError``'s
key) quotes it only where the message is shown anyway.
"""

from __future__ import annotations

_TUPLE = ("a tuple used as a tensor: a function returns several values (attention returns (output, weights)); "
          "unpack it: out, _ = ...",
          "una tupla usada como tensor: una función devuelve varios valores (la atención devuelve (salida, pesos)); "
          "desempaquétala: out, _ = ...")
_FLOAT_SIZE = ("a size computed with / is a float: compute sizes with // (d_k = d_model // num_heads)",
               "un tamaño calculado con / es un float: calcula los tamaños con // (d_k = d_model // num_heads)")
_STRINGS = ("a tensor built from strings: turn every token into its id first (the special tokens too: the <sos> id, "
            "not the string '<sos>')",
            "un tensor construido con cadenas: convierte antes cada token en su id (también los especiales: el id "
            "de <sos>, no la cadena '<sos>')")

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

    (None, "must match the size of tensor b",
     "two tensors whose sizes do not fit are combined (+, *, masked_fill, torch.where): a mask or a table sized by "
     "the wrong length (the queries' T instead of the keys', the source's instead of the target's), or an axis "
     "missing for broadcasting (unsqueeze / [:, None])",
     "se combinan dos tensores cuyos tamaños no encajan (+, *, masked_fill, torch.where): una máscara o una tabla "
     "con la longitud equivocada (la T de las consultas en lugar de la de las claves, la del origen en lugar de la "
     "del destino), o falta un eje para el broadcasting (unsqueeze / [:, None])"),
    (None, "The expanded size of the tensor",
     "a tensor expanded (or broadcast) to sizes it does not have: check the sizes of both sides and which length "
     "(source or target, queries or keys) each one should use",
     "un tensor expandido (o en broadcasting) a tamaños que no tiene: revisa los tamaños de ambos lados y qué "
     "longitud (origen o destino, consultas o claves) debe usar cada uno"),
    (None, "Expected input batch_size",
     "cross_entropy got logits and targets of different lengths: flatten both the same way, the logits to "
     "(B*T, V) with reshape(-1, V) and the targets to (B*T,) with reshape(-1)",
     "cross_entropy recibió logits y objetivos de longitudes distintas: aplánalos igual, los logits a (B*T, V) "
     "con reshape(-1, V) y los objetivos a (B*T,) con reshape(-1)"),
    (None, "Expected target size",
     "cross_entropy takes the classes along dim 1: flatten the logits to (B*T, V) and the targets to (B*T,) (or "
     "move the vocabulary axis to dim 1)",
     "cross_entropy espera las clases en la dim 1: aplana los logits a (B*T, V) y los objetivos a (B*T,) (o mueve "
     "el eje del vocabulario a la dim 1)"),
    (None, "is invalid for input of size",
     "a view/reshape to sizes whose product is not the tensor's number of elements: check each size (the keys' "
     "length where the queries' was used, d_model against num_heads * d_k)",
     "un view/reshape a tamaños cuyo producto no es el número de elementos del tensor: revisa cada tamaño (la "
     "longitud de las claves donde se usó la de las consultas, d_model frente a num_heads * d_k)"),
    ("TypeError", "tuple of ints,but got float",
     *_FLOAT_SIZE),
    (None, "but found element of type float",
     *_FLOAT_SIZE),
    (None, "object cannot be interpreted as an integer",
     "a float (or a tensor) where Python needs an int, e.g. a size computed with /: use // or int(...)",
     "un float (o un tensor) donde Python necesita un int, p. ej. un tamaño calculado con /: usa // o int(...)"),
    (None, "Sizes of tensors must match except in dimension",
     "torch.cat of tensors whose other sizes differ: check the sizes of what is joined (each row padded to the "
     "same length, the right length for each side)",
     "torch.cat de tensores cuyos demás tamaños difieren: revisa los tamaños de lo que se une (cada fila rellenada "
     "a la misma longitud, la longitud correcta para cada lado)"),
    (None, "Tensors must have same number of dimensions",
     "torch.cat of tensors with different numbers of axes: one has an axis too many or too few (keepdim=True, "
     "unsqueeze or [:, None] where none belongs, or one missing)",
     "torch.cat de tensores con distinto número de ejes: uno tiene un eje de más o de menos (keepdim=True, "
     "unsqueeze o [:, None] donde no va, o uno que falta)"),
    (None, "invalid multinomial distribution",
     "torch.multinomial got a row that is not a distribution: take the softmax along the vocabulary (dim=-1), "
     "mask with -inf before it (not with 0 after it), and never mask a whole row",
     "torch.multinomial recibió una fila que no es una distribución: aplica softmax a lo largo del vocabulario "
     "(dim=-1), enmascara con -inf antes (no con 0 después) y nunca una fila entera"),
    (None, "probability tensor contains either",
     "torch.multinomial got negative, infinite or NaN probabilities: draw from softmax probabilities (dim=-1), "
     "not from the logits, and never mask a whole row",
     "torch.multinomial recibió probabilidades negativas, infinitas o NaN: muestrea de probabilidades de softmax "
     "(dim=-1), no de los logits, y nunca enmascares una fila entera"),
    (None, "dimensions 'str'",
     *_STRINGS),
    (None, "invalid data type 'str'",
     *_STRINGS),
    (None, "\"bitwise_",
     "&, | or ~ on float tensors: masks must be boolean (comparisons give bool; drop a .float() conversion)",
     "&, | o ~ sobre tensores float: las máscaras deben ser booleanas (las comparaciones dan bool; quita la "
     "conversión .float())"),
    ("IndexError", "Dimension out of range",
     "an axis number the tensor does not have: count its axes (dim=-1 is the last one)",
     "un número de eje que el tensor no tiene: cuenta sus ejes (dim=-1 es el último)"),
    (None, "out of bounds for dimension",
     "an index past the end of an axis: check which value is the index and which the size (e.g. the order of "
     "divmod's quotient and remainder), and the axis it indexes",
     "un índice más allá del final de un eje: revisa qué valor es el índice y cuál el tamaño (p. ej. el orden del "
     "cociente y el resto de divmod), y el eje que indexa"),
    ("IndexError", "index out of range",
     "an index past the end of an axis or a list: check which value is the index and which the size (e.g. the "
     "order of divmod's quotient and remainder)",
     "un índice más allá del final de un eje o de una lista: revisa qué valor es el índice y cuál el tamaño (p. ej. "
     "el orden del cociente y el resto de divmod)"),
    ("ValueError", "values to unpack",
     "a result unpacked into another number of names than it holds: check what the function returns (attention "
     "returns (output, weights))",
     "un resultado desempaquetado en un número de nombres distinto del que contiene: revisa qué devuelve la "
     "función (la atención devuelve (salida, pesos))"),
    ("AttributeError", "'tuple' object has no attribute",
     *_TUPLE),
    ("TypeError", "can only concatenate tuple",
     *_TUPLE),
    ("TypeError", "must be Tensor, not tuple",
     *_TUPLE),
    ("TypeError", "and 'tuple'",
     *_TUPLE),
    ("TypeError", "'tuple' and",
     *_TUPLE),
)


# A ValueError or AssertionError raised in the student's own __init__: the graders build
# every module with arguments the exercise documents as valid, so the student's check is wrong.
REFUSED_VALID_ARGUMENTS = (
    "the constructor refused arguments that are valid (the exercise's own example values): check the condition "
    "of your own check, e.g. d_model % num_heads != 0, not num_heads % d_model",
    "el constructor rechazó argumentos válidos (los valores de ejemplo del propio ejercicio): revisa la condición "
    "de tu comprobación, p. ej. d_model % num_heads != 0, no num_heads % d_model")

def explain(kind: str, message: str, quote: bool = True) -> tuple[str, str] | None:
    """The usual cause of an error of type ``kind`` with ``message``, or None; ``quote``:
    whether the explanation may cite the message (False where the feedback withholds it)."""
    if kind == "KeyError":  # the type alone says it, shown even where the message is withheld
        key = f" ({message[:60]})" if message and quote else ""
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
