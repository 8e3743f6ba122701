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

Over 350 lines: one table, read in order (the first match wins), whose entries are short
texts in two languages; kept in one place so that what may cross the redaction is one list.
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
_SCALAR = ("a tensor of several values used as one number (.item(), int(), float() or an if): index it first, or "
           "keep the computation in tensor operations",
           "un tensor de varios valores usado como un número (.item(), int(), float() o un if): indéxalo antes, o "
           "sigue con operaciones de tensores")

# (exception type or None for any, phrase of the message, English, Spanish), first match wins.
KNOWN: tuple[tuple[str | None, str, str, str], ...] = (
    ("RuntimeError", "expected target dtype to be Long",
     "cross_entropy's labels are floats: class labels must be int64 ids (a float target is read as class "
     "probabilities, of the logits' shape); keep the target ids as they are, or .long() them",
     "las etiquetas de cross_entropy son float: las etiquetas de clase deben ser ids int64 (un objetivo float se lee "
     "como probabilidades de clase, con la forma de los logits); deja los ids del destino como están, o aplica "
     ".long()"),
    ("TypeError", "'bool' object is not subscriptable",
     "a plain Python bool where a tensor belongs: is, is not, and, or, not (or == on something that is not a tensor) "
     "give one True/False; compare tensors element by element (tokens != pad_id) and combine masks with &, | and ~",
     "un bool de Python donde va un tensor: is, is not, and, or, not (o == sobre algo que no es un tensor) dan un "
     "solo True/False; compara tensores elemento a elemento (tokens != pad_id) y combina máscaras con &, | y ~"),
    ("RuntimeError", "Cannot access accelerator device when none is available",
     "a number reached a device argument (device=3 means the fourth GPU): check the call against the function's "
     "signature, e.g. causal_mask(T, device=...) takes one size, then the device",
     "un número llegó a un argumento device (device=3 es la cuarta GPU): compara la llamada con la firma de la "
     "función; p. ej. causal_mask(T, device=...) recibe un tamaño y luego el dispositivo"),
    ("RuntimeError", "leaf Variable that requires grad is being used in an in-place operation",
     "an in-place operation (x.sub_(...), x -= ..., x[...] = ...) changes a tensor that autograd needs: compute a "
     "new tensor instead (x = x - mean)",
     "una operación in situ (x.sub_(...), x -= ..., x[...] = ...) cambia un tensor que autograd necesita: calcula "
     "un tensor nuevo (x = x - media)"),
    ("RuntimeError", "modified by an inplace operation",
     "an in-place operation changed a tensor that the backward pass needs: replace it by an out-of-place one "
     "(x = x + y instead of x += y, masked_fill instead of masked_fill_, no inplace=True on nn.Dropout or ReLU)",
     "una operación in situ cambió un tensor que la pasada hacia atrás necesita: sustitúyela por una que cree otro "
     "tensor (x = x + y en lugar de x += y, masked_fill en lugar de masked_fill_, sin inplace=True en nn.Dropout o "
     "ReLU)"),
    ("RuntimeError", "view size is not compatible with input tensor's size and stride",
     ".view on a tensor that is not contiguous (after a transpose): use .reshape(...) or .contiguous().view(...)",
     ".view sobre un tensor no contiguo (tras un transpose): usa .reshape(...) o .contiguous().view(...)"),
    ("RuntimeError", "mat1 and mat2 shapes cannot be multiplied",
     "a matrix product whose inner sizes do not fit: check which axes are transposed (transpose(-2, -1)) and the "
     "sizes given to nn.Linear",
     "un producto de matrices cuyos tamaños internos no encajan: revisa qué ejes se trasponen (transpose(-2, -1)) "
     "y los tamaños dados a nn.Linear"),
    ("RuntimeError", "does not match the number of dimensions",
     "an einsum equation written for one number of dimensions (such as 'bhqd,bhkd->bhqk', 4-D only): the inputs may "
     "have any number of leading dimensions; use an ellipsis ('...qd,...kd->...qk') or q @ k.transpose(-2, -1)",
     "una ecuación de einsum escrita para un número fijo de dimensiones (como 'bhqd,bhkd->bhqk', solo 4-D): las "
     "entradas pueden tener cualquier número de dimensiones iniciales; usa puntos suspensivos ('...qd,...kd->...qk') "
     "o q @ k.transpose(-2, -1)"),
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
     "the wrong length (the queries' T instead of the keys', the source's instead of the target's), an axis "
     "missing for broadcasting (unsqueeze / [:, None]), or one of the two is not the tensor meant, computed with "
     "another shape (print both shapes just before that line)",
     "se combinan dos tensores cuyos tamaños no encajan (+, *, masked_fill, torch.where): una máscara o una tabla "
     "con la longitud equivocada (la T de las consultas en lugar de la de las claves, la del origen en lugar de la "
     "del destino), falta un eje para el broadcasting (unsqueeze / [:, None]), o uno de los dos no es el tensor que "
     "debía, calculado con otra forma (imprime ambas formas justo antes de esa línea)"),
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
     "a view/reshape to sizes whose product is not the tensor's number of elements: either a size is wrong (the "
     "keys' length where the queries' was used, d_model against num_heads * d_k) or the tensor reshaped is not the "
     "one meant (print its shape just before the reshape)",
     "un view/reshape a tamaños cuyo producto no es el número de elementos del tensor: o un tamaño está mal (la "
     "longitud de las claves donde se usó la de las consultas, d_model frente a num_heads * d_k) o el tensor que se "
     "reordena no es el que debía (imprime su forma justo antes del reshape)"),
    ("TypeError", "tuple of ints, not float",
     *_FLOAT_SIZE),
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
    # The course's attention names the kind of number mask it got (attention.py): the fix differs.
    ("TypeError", "it is an additive mask (0 = may attend",
     "an additive float mask (0 where it attends, -inf or a large negative number where it blocks) reached "
     "attention: unlike the lecture notebook 002 (and nn.Transformer), the course's masks are boolean, True = may "
     "attend; build them with comparisons and & (torch.tril of boolean ones, tokens != pad_id), or convert an "
     "additive one with (mask == 0), never with mask.bool(), which is True exactly where it blocks",
     "una máscara float aditiva (0 donde atiende, -inf o un negativo grande donde bloquea) llegó a la atención: a "
     "diferencia del cuaderno de clase 002 (y de nn.Transformer), las máscaras del curso son booleanas, True = "
     "puede atender; constrúyelas con comparaciones y & (torch.tril de unos booleanos, tokens != pad_id), o "
     "convierte una aditiva con (mask == 0), nunca con mask.bool(), que es True justo donde bloquea"),
    ("TypeError", "it holds 0/1 values (1 = may attend)",
     "a mask of floats reached attention, 0/1 numbers: masks are boolean, True = may attend (comparisons give bool; "
     "drop a .float() conversion, build the mask with dtype=torch.bool, or convert it with mask.bool())",
     "una máscara de floats llegó a la atención, números 0/1: las máscaras son booleanas, True = puede atender (las "
     "comparaciones dan bool; quita la conversión .float(), construye la máscara con dtype=torch.bool o "
     "conviértela con mask.bool())"),
    ("TypeError", "mask must be a boolean tensor",
     "a mask of numbers reached attention: masks must be boolean, True = may attend (comparisons give bool; an "
     "additive 0 / -inf mask becomes one with (mask == 0), a 0/1 mask with mask.bool())",
     "una máscara de números llegó a la atención: las máscaras deben ser booleanas, True = puede atender (las "
     "comparaciones dan bool; una máscara aditiva 0 / -inf se convierte con (mask == 0), una de 0/1 con "
     "mask.bool())"),
    (None, "(operator.invert) is only implemented on integer and Boolean",
     "~ on a float tensor: masks must be boolean, True = may attend (comparisons give bool; drop a .float() "
     "conversion, or build the mask with dtype=torch.bool)",
     "~ sobre un tensor float: las máscaras deben ser booleanas, True = puede atender (las comparaciones dan bool; "
     "quita la conversión .float(), o construye la máscara con dtype=torch.bool)"),
    (None, "multi-target not supported",
     "cross_entropy's labels have an axis too many: for logits (N, V) the labels are (N,), one id per row; flatten "
     "them with labels.reshape(-1), not to (N, 1)",
     "las etiquetas de cross_entropy tienen un eje de más: para logits (N, V) las etiquetas son (N,), un id por "
     "fila; aplánalas con labels.reshape(-1), no a (N, 1)"),
    ("RuntimeError", "with a bool tensor is not supported",
     "1 - mask (or another subtraction) on a boolean mask: invert it with ~mask; masks are boolean, True = may "
     "attend, and masked_fill hides the positions where its mask is True",
     "1 - mask (u otra resta) sobre una máscara booleana: inviértela con ~mask; las máscaras son booleanas, True = "
     "puede atender, y masked_fill oculta las posiciones donde su máscara es True"),
    ("TypeError", "object of type 'float' has no len()",
     "a number where a sequence belongs: something returns a score (a float) in place of the tokens it scores, "
     "e.g. the winner of a beam search taken as max(finished, ...)[0] (its score) where [1] (its ids) belongs; "
     "check the order of each (score, ids) pair you build and unpack",
     "un número donde va una secuencia: algo devuelve una puntuación (un float) en lugar de los tokens que puntúa, "
     "p. ej. el ganador de una búsqueda en haz tomado como max(finished, ...)[0] (su puntuación) donde va [1] (sus "
     "ids); revisa el orden de cada par (puntuación, ids) que construyes y desempaquetas"),
    ("TypeError", "'float' object is not iterable",
     "a number where a sequence belongs: something returns a score (a float) in place of the tokens it scores "
     "(e.g. a (score, ids) pair taken or unpacked in the wrong order); check what each return statement gives back",
     "un número donde va una secuencia: algo devuelve una puntuación (un float) en lugar de los tokens que puntúa "
     "(p. ej. un par (puntuación, ids) tomado o desempaquetado en el orden equivocado); revisa qué devuelve cada "
     "return"),
    ("TypeError", "'method' object is not iterable",
     "a method passed where its result belongs: call it, model.parameters() (with the parentheses)",
     "se pasa un método donde va su resultado: llámalo, model.parameters() (con los paréntesis)"),
    ("TypeError", "does not support the context manager protocol",
     "a class used in a with statement: call it to get the context manager, with torch.no_grad(): (with the "
     "parentheses)",
     "una clase usada en un with: llámala para obtener el gestor de contexto, with torch.no_grad(): (con los "
     "paréntesis)"),
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
    # nn.Embedding's own message: the index is an id, and the table is the vocabulary.
    ("IndexError", "index out of range in self",
     "an id outside the embedding table reached nn.Embedding: every id must lie in 0..V-1, V the vocabulary size "
     "the model was built with; look for a negative id or a marker that is no id (padding with -100 or -1 instead "
     "of pad_id) and for a vocabulary size smaller than the ids",
     "un id fuera de la tabla de embeddings llegó a nn.Embedding: cada id debe estar en 0..V-1, con V el tamaño de "
     "vocabulario con el que se construyó el modelo; busca un id negativo o una marca que no es un id (relleno con "
     "-100 o -1 en lugar de pad_id) y un tamaño de vocabulario menor que los ids"),
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
    (None, "must be a 3D tensor",
     "torch.bmm takes 3-D tensors only, and attention may get more axes (batch, heads): use @ (torch.matmul), "
     "which works over any leading axes",
     "torch.bmm solo admite tensores 3-D, y la atención puede recibir más ejes (lote, cabezas): usa @ "
     "(torch.matmul), que funciona con cualquier número de ejes delante"),
    ("TypeError", "must be Tensor, not int",
     "a torch function given a Python number where it takes a tensor (torch.sqrt(d_k) with an int d_k): use "
     "math.sqrt for numbers, or make a tensor first",
     "una función de torch recibe un número de Python donde espera un tensor (torch.sqrt(d_k) con d_k entero): usa "
     "math.sqrt para números, o crea antes un tensor"),
    ("TypeError", "must be Tensor, not float",
     "a torch function given a Python number where it takes a tensor: use math functions for numbers, or make a "
     "tensor first",
     "una función de torch recibe un número de Python donde espera un tensor: usa las funciones de math para "
     "números, o crea antes un tensor"),
    ("TypeError", "must be int, not float",
     "a float reached an argument that takes an int (such as ignore_index): two arguments passed in each other's "
     "place? pass them by name (ignore_index=pad_id, label_smoothing=label_smoothing)",
     "un float llegó a un argumento que recibe un int (como ignore_index): ¿dos argumentos pasados uno en el lugar "
     "del otro? pásalos por nombre (ignore_index=pad_id, label_smoothing=label_smoothing)"),
    ("TypeError", "must be bool, not int",
     "an int reached a True/False argument (keepdim, unbiased): several dims passed one by one, x.mean(*dims, ...) "
     "or x.var(-2, -1, ...), take the second as that argument; pass them as one tuple by name, dim=(-2, -1)",
     "un int llegó a un argumento True/False (keepdim, unbiased): varias dimensiones pasadas una a una, "
     "x.mean(*dims, ...) o x.var(-2, -1, ...), toman la segunda como ese argumento; pásalas como una sola tupla "
     "por nombre, dim=(-2, -1)"),
    ("TypeError", "'torch._C.Generator'",
     "a torch.Generator is compared with a number: it reached an argument that takes one (top_p, top_k or the "
     "temperature), because an argument before it was left out of the call and the later ones moved up; pass "
     "them by name (top_k=top_k, top_p=top_p, generator=generator)",
     "un torch.Generator se compara con un número: llegó a un argumento que recibe uno (top_p, top_k o la "
     "temperatura), porque en la llamada falta un argumento anterior y los siguientes se desplazaron; pásalos por "
     "nombre (top_k=top_k, top_p=top_p, generator=generator)"),
    ("TypeError", "must be torch.Generator, not",
     "a number reached generator=: an argument was left out of the call (or one too many given), so the others "
     "moved by one; pass them by name (top_k=top_k, top_p=top_p, generator=generator)",
     "un número llegó a generator=: en la llamada falta un argumento (o sobra uno), así que los demás se "
     "desplazaron; pásalos por nombre (top_k=top_k, top_p=top_p, generator=generator)"),
    ("TypeError", "a real number, not 'NoneType'",
     "None reached a function that needs a number (float(None)): an optional argument left at its default None, "
     "such as clip_norm, is used without a check; guard that step with if clip_norm is not None:",
     "None llegó a una función que necesita un número (float(None)): un argumento opcional que se quedó en su valor "
     "por defecto None, como clip_norm, se usa sin comprobarlo; protege ese paso con if clip_norm is not None:"),
    ("TypeError", "not NoneType",
     "None was passed where a tensor or a number is expected: a value that is None here (an argument left at its "
     "default None or passed in another's place, attention's weights when need_weights=False, a function without "
     "a return); check what you pass, by name where you can",
     "se pasó None donde se espera un tensor o un número: un valor que aquí es None (un argumento que se quedó en "
     "su valor por defecto None o se pasó en el lugar de otro, los pesos de la atención con need_weights=False, "
     "una función sin return); revisa lo que pasas, por nombre donde puedas"),
    ("RuntimeError", "doesn't match the broadcast shape",
     "an in-place operation (a &= b, x += y, x.mul_(y)) whose result is larger than the tensor it writes into: "
     "broadcasting cannot grow a tensor in place; build a new one (c = a & b, x = x + y)",
     "una operación in situ (a &= b, x += y, x.mul_(y)) cuyo resultado es mayor que el tensor en el que escribe: "
     "el broadcasting no puede agrandar un tensor in situ; crea uno nuevo (c = a & b, x = x + y)"),
    ("RuntimeError", "derivative for aten::floor_divide is not implemented",
     "// (floor division) on tensors that need gradients: it rounds down to whole numbers and has no gradient; "
     "divide with / (scores / math.sqrt(d_k))",
     "// (división entera) sobre tensores que necesitan gradiente: redondea hacia abajo y no tiene gradiente; "
     "divide con / (scores / math.sqrt(d_k))"),
    ("RuntimeError", "appears multiple times in the list of dims",
     "the same axis is listed twice in dim=(...): list each normalised axis once, the last len(normalized_shape) "
     "axes: tuple(range(-len(self.normalized_shape), 0))",
     "el mismo eje aparece dos veces en dim=(...): pon cada eje normalizado una vez, los últimos "
     "len(normalized_shape) ejes: tuple(range(-len(self.normalized_shape), 0))"),
    ("TypeError", "must be Tensor, not",
     "an object that is not a tensor reached a tensor operation: often a module built where it should be applied "
     "(nn.ReLU(h) makes a layer; write torch.relu(h), or create nn.ReLU() in __init__ and call it on h), or a "
     "list where a tensor belongs",
     "un objeto que no es un tensor llegó a una operación de tensores: a menudo un módulo construido donde debía "
     "aplicarse (nn.ReLU(h) crea una capa; escribe torch.relu(h), o crea nn.ReLU() en __init__ y llámalo con h), o "
     "una lista donde va un tensor"),
    # Raised by the course's reference code running beside the student's (a3 to a6), when
    # the student's code hands it something of the wrong shape.
    ("ValueError", "tokens must have shape (B",
     "something other than (B, S) token ids reached code that takes them: ids without their batch axis (keep "
     "(B, S), e.g. src[b:b + 1] instead of src[b], or unsqueeze(0)), or another tensor in their place, such as the "
     "embeddings (B, S, d_model) of those ids (keep the ids under their own name)",
     "algo que no son ids de tokens (B, S) llegó a código que los recibe: ids sin su eje de lote (conserva (B, S), "
     "p. ej. src[b:b + 1] en lugar de src[b], o unsqueeze(0)), u otro tensor en su lugar, como los embeddings "
     "(B, S, d_model) de esos ids (conserva los ids con su propio nombre)"),
    ("ValueError", "logits must have shape (B, V)",
     "sample_next_token takes (B, V) logits, one row per sentence: take the last position's, logits[:, -1, :]",
     "sample_next_token recibe logits (B, V), una fila por frase: toma los de la última posición, logits[:, -1, :]"),
    ("ValueError", "logits must be (B, T, V) and labels (B, T)",
     "the loss takes (B, T, V) logits and (B, T) labels: the labels are the target shifted left, tgt[:, 1:], "
     "and the decoder reads tgt[:, :-1]",
     "la pérdida recibe logits (B, T, V) y etiquetas (B, T): las etiquetas son el destino desplazado a la "
     "izquierda, tgt[:, 1:], y el decodificador lee tgt[:, :-1]"),
    ("ValueError", "cannot decode past max_len",
     "decoding asked for more positions than the positional table holds: cap the length at model.config.max_len",
     "la decodificación pidió más posiciones de las que tiene la tabla posicional: limita la longitud a "
     "model.config.max_len"),
    ("ValueError", "strategy must be one of",
     "decode got something else than a strategy name in its place: its order is decode(model, src, strategy, "
     "max_len, sos_id, eos_id, pad_id); pass strategy= and max_len= by name",
     "decode recibió otra cosa que un nombre de estrategia en su lugar: su orden es decode(model, src, strategy, "
     "max_len, sos_id, eos_id, pad_id); pasa strategy= y max_len= por nombre"),
    # Raised by the graders' harness when it cannot load the reference's weights into the
    # student's module: the names or the shapes of its parameters differ from the stub's.
    (None, "has no parameter named",
     "the module has no parameter of the name the stub gives it (such as linear1.weight or w_q.weight): keep the "
     "stub's attribute names, each layer an attribute of its own (not inside an nn.Sequential), so that weights "
     "can be loaded into it",
     "el módulo no tiene un parámetro con el nombre que le da el esqueleto (como linear1.weight o w_q.weight): "
     "conserva los nombres de atributo del esqueleto, cada capa un atributo propio (no dentro de un "
     "nn.Sequential), para que se le puedan cargar pesos"),
    (None, "' has shape (",
     "a parameter of another shape than the stub's: nn.Linear(in_features, out_features) maps in to out and "
     "stores its weight as (out, in); check each layer's sizes (linear1 = nn.Linear(d_model, d_ff))",
     "un parámetro de otra forma que la del esqueleto: nn.Linear(in_features, out_features) va de in a out y "
     "guarda su peso como (out, in); revisa los tamaños de cada capa (linear1 = nn.Linear(d_model, d_ff))"),
    (None, "keep the names from the stub",
     "a class, function, attribute or method the graders use has another name in your code: keep the stub's names",
     "una clase, función, atributo o método que usan las pruebas tiene otro nombre en tu código: conserva los "
     "nombres del esqueleto"),
    (None, "does not match the shape of the indexed tensor",
     "boolean indexing (x[mask] = value) needs a mask of x's whole shape, while attention masks only broadcast: "
     "use x.masked_fill(~mask, float('-inf')), which broadcasts",
     "la indexación booleana (x[mask] = valor) necesita una máscara de la forma completa de x, y las máscaras de "
     "atención solo se difunden: usa x.masked_fill(~mask, float('-inf')), que sí difunde"),
    (None, "must be tuple of ints, not range",
     "dim= takes a tuple of ints, not a range: tuple(range(-n, 0))",
     "dim= recibe una tupla de ints, no un range: tuple(range(-n, 0))"),
    (None, "to have one of the following scalar types: Long, Int",
     "token ids must be integers (torch.long): torch.ones, torch.zeros and torch.full make floats unless given "
     "dtype=torch.long",
     "los ids de tokens deben ser enteros (torch.long): torch.ones, torch.zeros y torch.full crean floats salvo "
     "con dtype=torch.long"),
    (None, "stack expects each tensor to be equal size",
     "torch.stack needs tensors of one size, and sentences differ in length: pad them first "
     "(pad_sequence(..., batch_first=True, padding_value=pad_id), or a tensor full of pad_id filled row by row)",
     "torch.stack necesita tensores de un mismo tamaño, y las frases tienen longitudes distintas: rellénalas antes "
     "(pad_sequence(..., batch_first=True, padding_value=pad_id), o un tensor lleno de pad_id rellenado fila a "
     "fila)"),
    (None, "not implemented for 'Long'",
     "a floating-point operation got integer tensors: are two arguments swapped? (F.cross_entropy(logits, labels): "
     "the float logits first, the int64 labels second)",
     "una operación de coma flotante recibió tensores enteros: ¿hay dos argumentos intercambiados? "
     "(F.cross_entropy(logits, etiquetas): primero los logits float, después las etiquetas int64)"),
    (None, "invalid group reference",
     "a replacement refers to a group (\\1) that its pattern does not capture: wrap the characters in parentheses, "
     "f\"([{PUNCTUATION}])\", and write the replacement as a raw string, r\" \\1 \"",
     "un reemplazo se refiere a un grupo (\\1) que su patrón no captura: pon los caracteres entre paréntesis, "
     "f\"([{PUNCTUATION}])\", y escribe el reemplazo como cadena cruda, r\" \\1 \""),
    (None, "'NoneType' object",
     "a value is None where a result was expected: a function without a return (or a return inside an if or a "
     "loop that did not run), or the result of a list method that works in place (.sort(), .append(), "
     ".reverse() return None)",
     "un valor es None donde se esperaba un resultado: una función sin return (o con el return dentro de un if o "
     "de un bucle que no se ejecutó), o el resultado de un método de lista que trabaja in situ (.sort(), "
     ".append(), .reverse() devuelven None)"),
    ("TypeError", "object is not callable",
     "something that is not a function is called: a name that held a function or module now holds a tensor or a "
     "number (e.g. self.dropout = 0.1 replaced the nn.Dropout module), or a call's parentheses are misplaced",
     "se llama a algo que no es una función: un nombre que tenía una función o un módulo ahora tiene un tensor o "
     "un número (p. ej. self.dropout = 0.1 sustituyó al módulo nn.Dropout), o los paréntesis de una llamada están "
     "mal puestos"),
    ("TypeError", "required positional argument",
     "a function or method called with fewer arguments than it takes: compare the call with its signature (keep "
     "the stub's signatures as they are)",
     "una función o método llamado con menos argumentos de los que recibe: compara la llamada con su firma "
     "(conserva las firmas del esqueleto tal cual)"),
    ("TypeError", "positional argument",
     "a function or method called with more arguments than it takes: compare the call with its signature (keep "
     "the stub's signatures as they are; self counts as one)",
     "una función o método llamado con más argumentos de los que recibe: compara la llamada con su firma "
     "(conserva las firmas del esqueleto tal cual; self cuenta como uno)"),
    ("TypeError", "unexpected keyword argument",
     "a keyword argument that the function does not take: check its name against the signature (keep the stub's "
     "signatures and names as they are)",
     "un argumento con nombre que la función no recibe: comprueba su nombre con la firma (conserva las firmas y "
     "los nombres del esqueleto tal cual)"),
    ("TypeError", "unsupported operand type",
     "an operator (+, -, *, /, @) between values that do not support it: check the type of each operand (a list, "
     "None or a module where a tensor belongs)",
     "un operador (+, -, *, /, @) entre valores que no lo admiten: revisa el tipo de cada operando (una lista, "
     "None o un módulo donde va un tensor)"),
    ("TypeError", "invalid combination of arguments",
     "a torch function got arguments of the wrong kinds: a list or a float where it takes a tensor or an int, or a "
     "keyword it does not know; check the call against the function's documentation",
     "una función de torch recibió argumentos de tipos equivocados: una lista o un float donde va un tensor o un "
     "int, o un nombre de argumento que no conoce; compara la llamada con la documentación de la función"),
    ("AttributeError", "has no attribute",
     "an attribute that does not exist: a typo in its name, an attribute created in __init__ under another name "
     "(keep the stub's names), or a method of another type (a tensor has .size() and .dim(), a list .append())",
     "un atributo que no existe: una errata en su nombre, un atributo creado en __init__ con otro nombre (conserva "
     "los nombres del esqueleto), o un método de otro tipo (un tensor tiene .size() y .dim(), una lista .append())"),
    ("NameError", "is not defined",
     "a name used before it is defined: a typo, a variable of another function or cell, or an import missing at "
     "the top of the module",
     "un nombre usado antes de definirse: una errata, una variable de otra función o celda, o un import que falta "
     "al principio del módulo"),
    ("ZeroDivisionError", "by zero",
     "a division by zero: a count or a length that can be 0 (an empty batch, a sentence without tokens, no real "
     "tokens under the mask)",
     "una división por cero: una cuenta o una longitud que puede ser 0 (un lote vacío, una frase sin tokens, "
     "ningún token real bajo la máscara)"),
    ("RecursionError", "maximum recursion depth",
     "a function that calls itself without end: e.g. a forward that calls self(...) or self.forward(...) instead "
     "of its sub-modules",
     "una función que se llama a sí misma sin fin: p. ej. un forward que llama a self(...) o a self.forward(...) "
     "en lugar de a sus submódulos"),
    ("RuntimeError", "selected index k out of range",
     "topk asked for more values than the axis holds: k must be at most that axis' size (min(k, V)), and the axis "
     "must be the one meant (dim=-1)",
     "topk pidió más valores de los que tiene el eje: k debe ser como mucho el tamaño de ese eje (min(k, V)), y el "
     "eje debe ser el que toca (dim=-1)"),
    ("RuntimeError", "grad can be implicitly created only for scalar outputs",
     "backward() on a tensor of several values: reduce the loss to one number (its mean over the real tokens) "
     "before loss.backward()",
     "backward() sobre un tensor de varios valores: reduce la pérdida a un número (su media sobre los tokens "
     "reales) antes de loss.backward()"),
    ("RuntimeError", "backward through the graph a second time",
     "backward through the same graph twice: a tensor kept from an earlier step is reused (keep losses with "
     ".item(), not as tensors; compute each step's loss afresh)",
     "backward dos veces por el mismo grafo: se reutiliza un tensor guardado de un paso anterior (guarda las "
     "pérdidas con .item(), no como tensores; calcula la pérdida de cada paso de nuevo)"),
    (None, "could not infer output dtype",
     "a mean of an integer or boolean tensor: convert it to float first (.float())",
     "una media de un tensor entero o booleano: conviértelo antes a float (.float())"),
    (None, "only supports boolean masks",
     "masked_fill needs a boolean mask: a comparison (tokens == pad_id) gives one; drop the .float() or .int()",
     "masked_fill necesita una máscara booleana: una comparación (tokens == pad_id) la da; quita el .float() o el "
     ".int()"),
    (None, "Expected dtype int",
     "gather, scatter and indexing need int64 (torch.long) indices: build them with dtype=torch.long",
     "gather, scatter y la indexación necesitan índices int64 (torch.long): créalos con dtype=torch.long"),
    (None, "Index tensor must have the same number of dimensions",
     "gather or scatter with an index of another number of axes than the input: add the missing axis (e.g. "
     "index.unsqueeze(-1) for a (B,) index)",
     "gather o scatter con un índice de otro número de ejes que la entrada: añade el eje que falta (p. ej. "
     "index.unsqueeze(-1) para un índice (B,))"),
    (None, "cannot be converted to Scalar",
     *_SCALAR),
    ("TypeError", "can only concatenate",
     "+ between a list or a string and another kind of value: join tensors with torch.cat, lists with list + list, "
     "and turn ids into a list (or a tensor) before adding them",
     "+ entre una lista o una cadena y otro tipo de valor: une tensores con torch.cat, listas con lista + lista, y "
     "convierte los ids en lista (o en tensor) antes de sumarlos"),
    (None, "converted to Python scalars",
     *_SCALAR),
    (None, "too many indices for tensor",
     "more indices than the tensor has axes: it has fewer axes than assumed (print its .shape)",
     "más índices que ejes tiene el tensor: tiene menos ejes de los supuestos (imprime su .shape)"),
    (None, "cannot assign module before Module.__init__() call",
     "super().__init__() must be the first line of __init__, before any sub-module is assigned",
     "super().__init__() debe ser la primera línea de __init__, antes de asignar ningún submódulo"),
    (None, "as parameter",
     "a parameter replaced by a plain tensor: assign nn.Parameter(...), or change its values in place under "
     "torch.no_grad()",
     "un parámetro sustituido por un tensor normal: asigna nn.Parameter(...), o cambia sus valores in situ dentro "
     "de torch.no_grad()"),
    ("RuntimeError", "Only Tensors of floating point and complex dtype can require gradients",
     "a parameter (or a tensor that needs a gradient) built as integers: torch.full(shape, 1), torch.tensor([1, 2]) "
     "or torch.arange(n) give int64; write the value as a float (1.0) or pass dtype=torch.float32, or use "
     "torch.ones(shape)",
     "un parámetro (o un tensor que necesita gradiente) construido con enteros: torch.full(shape, 1), "
     "torch.tensor([1, 2]) o torch.arange(n) dan int64; escribe el valor como float (1.0) o pasa "
     "dtype=torch.float32, o usa torch.ones(shape)"),
    ("RuntimeError", "refers to a single memory location",
     "a tensor made with expand() (every element a view of the same memory) is written in place, e.g. a parameter "
     "updated by the optimizer or x[...] = ...: give it memory of its own (torch.ones(shape), or "
     ".expand(...).clone())",
     "un tensor hecho con expand() (cada elemento, una vista de la misma memoria) se escribe in situ, p. ej. un "
     "parámetro que actualiza el optimizador o x[...] = ...: dale memoria propia (torch.ones(shape), o "
     ".expand(...).clone())"),
    (None, "(torch.nn.Parameter or None required)",
     "register_parameter (or a parameter's attribute) given a plain tensor: wrap it first, "
     "nn.Parameter(torch.ones(...))",
     "register_parameter (o el atributo de un parámetro) recibe un tensor normal: envuélvelo antes, "
     "nn.Parameter(torch.ones(...))"),
    # Last: torch's general "argument 'x' (position n) must be T, not U", after the entries for its common cases.
    ("TypeError", ") must be ",
     "an argument of a torch function got a value of the wrong type (the message names which argument and its "
     "position): arguments passed in each other's place? pass them by name (dim=..., keepdim=...)",
     "un argumento de una función de torch recibió un valor de tipo equivocado (el mensaje dice cuál y en qué "
     "posición): ¿argumentos pasados uno en el lugar del otro? pásalos por nombre (dim=..., keepdim=...)"),
)


# A ValueError or AssertionError raised in the student's own __init__: the graders build
# every module with arguments the exercise documents as valid, so the student's check is wrong.
REFUSED_VALID_ARGUMENTS = (
    "the constructor refused arguments that are valid (the exercise's own example values): check the condition "
    "of your own check, e.g. d_model % num_heads != 0, not num_heads % d_model",
    "el constructor rechazó argumentos válidos (los valores de ejemplo del propio ejercicio): revisa la condición "
    "de tu comprobación, p. ej. d_model % num_heads != 0, no num_heads % d_model")

# The same, raised by the student's own code elsewhere: the graders call it only with
# arguments the exercise allows, unless a test asks for the error (those never come here).
REFUSED_BY_OWN_CHECK = (
    "your own code raised this for arguments the exercise allows (the graders pass only valid values here): "
    "check the condition of your check and its boundary (top_k < 1, not top_k <= 1: < and <= are not the same "
    "check)",
    "tu propio código lanzó esto con argumentos que el ejercicio permite (aquí las pruebas solo pasan valores "
    "válidos): revisa la condición de tu comprobación y su límite (top_k < 1, no top_k <= 1: < y <= no son la "
    "misma comprobación)")


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
