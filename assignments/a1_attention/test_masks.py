"""Public tests for masks.py. Run them with ``pytest assignments/a1_attention``."""

import torch

from masks import causal_mask, padding_mask, target_mask


def _b(t):
    """A mask as a (nested) list of 0/1 (a float mask as its numbers), for the failure messages."""
    return t.detach().tolist() if t.is_floating_point() else t.detach().int().tolist()


def _say(en, es, hint=None):
    """One-line failure message: English / Spanish, each followed by its half of ``hint`` (en, es)."""
    if hint:
        en, es = f"{en}; {hint[0]}", f"{es}; {hint[1]}"
    return f"{en} / {es}"


# A mask whose True marks what is blocked: nn.MultiheadAttention's convention, the opposite of the course's.
MHA_CONVENTION = (
    "True marks the blocked positions, which is nn.MultiheadAttention's convention (its attn_mask and "
    "key_padding_mask: True = not allowed); the course's is the opposite, True = may attend, so the course's mask is "
    "the ~ of that one",
    "True marca las posiciones bloqueadas, que es la convención de nn.MultiheadAttention (sus attn_mask y "
    "key_padding_mask: True = no permitido); la del curso es la contraria, True = puede atender, así que la máscara "
    "del curso es la ~ de esa",
)


def _dtype_hint(mask, build):
    """(en, es) for a mask that is not boolean: an additive 0 / -inf one (lecture notebook 002)
    is told apart from a 0/1 one, since .bool() would turn the additive one inside out."""
    if mask.is_floating_point() and bool((mask < 0).any()) and bool((mask <= 0).all()):
        return (
            "it holds 0 where it attends and -inf (or a large negative number) where it blocks, the additive float "
            "mask of the lecture notebook 002 (and nn.Transformer); unlike the lecture notebook 002, the course's "
            f"masks are boolean, True = may attend, and attention puts the -inf in itself: {build[0]} (to convert "
            "an additive mask use mask == 0: .bool() would be True exactly where it blocks)",
            "contiene 0 donde atiende y -inf (o un negativo grande) donde bloquea, la máscara float aditiva del "
            "cuaderno de clase 002 (y de nn.Transformer); a diferencia del cuaderno de clase 002, las máscaras del "
            f"curso son booleanas, True = puede atender, y la atención pone el -inf por sí misma: {build[1]} (para "
            "convertir una máscara aditiva usa mask == 0: .bool() sería True justo donde bloquea)",
        )
    return ("a mask of 0/1 numbers is not a boolean mask (.bool() converts one); " + build[0],
            "una máscara de números 0/1 no es booleana (.bool() la convierte); " + build[1])


def test_causal_mask_is_lower_triangular():
    """Does causal_mask(4) let position i see positions 0..i only?"""
    expected = torch.tensor(
        [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=torch.bool
    )
    mask = causal_mask(4)
    assert mask.dtype == torch.bool, _say(
        f"the mask must be boolean (True = may attend), got dtype {mask.dtype}",
        f"la máscara debe ser booleana (True = puede atender), pero su dtype es {mask.dtype}",
        _dtype_hint(mask, ("create it with dtype=torch.bool (torch.tril of boolean ones)",
                           "créala con dtype=torch.bool (torch.tril de unos booleanos)")),
    )
    assert mask.shape == (4, 4), _say(
        f"causal_mask(4) must have shape (T, T) = (4, 4), got {tuple(mask.shape)}",
        f"causal_mask(4) debe tener forma (T, T) = (4, 4), pero tiene {tuple(mask.shape)}",
    )
    if torch.equal(mask, expected.T):
        hint = (
            "that is the upper triangle: row i must be True for columns j <= i (the lower triangle), so position i "
            "sees the past, not the future",
            "eso es el triángulo superior: la fila i debe ser True en las columnas j <= i (el triángulo inferior), "
            "para que la posición i vea el pasado, no el futuro",
        )
    elif torch.equal(mask, ~expected):
        hint = (
            f"the mask is inverted: True must mean may attend. Here {MHA_CONVENTION[0]}",
            f"la máscara está invertida: True debe significar que puede atender. Aquí {MHA_CONVENTION[1]}",
        )
    elif torch.equal(mask, expected & ~torch.eye(4, dtype=torch.bool)):
        hint = (
            "the diagonal is False: position i may attend to itself, so mask[i, i] must be True",
            "la diagonal es False: la posición i puede atenderse a sí misma, así que mask[i, i] debe ser True",
        )
    else:
        hint = ("mask[i, j] must be True exactly when j <= i", "mask[i, j] debe ser True justo cuando j <= i")
    assert torch.equal(mask, expected), _say(
        f"causal_mask(4) must be {_b(expected)} (1 = True), got {_b(mask)}",
        f"causal_mask(4) debe ser {_b(expected)} (1 = True), pero es {_b(mask)}",
        hint,
    )


def test_padding_mask_shape_and_values():
    """Does padding_mask give (B, 1, 1, S) with False exactly on the padding?"""
    tokens = torch.tensor([[5, 7, 0, 0], [3, 0, 0, 0]])
    mask = padding_mask(tokens, pad_id=0)
    if mask.shape == tokens.shape:
        hint = (
            "that is the shape of tokens (B, S): add the two singleton dims for heads and queries, (B, 1, 1, S), so "
            "the mask broadcasts against scores of shape (B, h, T_q, S)",
            "esa es la forma de tokens (B, S): añade las dos dimensiones de tamaño 1 para cabezas y consultas, "
            "(B, 1, 1, S), para que la máscara se difunda sobre puntuaciones de forma (B, h, T_q, S)",
        )
    else:
        hint = (
            "the two singleton dims go between the batch and the sequence: (B, 1, 1, S) broadcasts against scores "
            "of shape (B, h, T_q, S)",
            "las dos dimensiones de tamaño 1 van entre el lote y la secuencia: (B, 1, 1, S) se difunde sobre "
            "puntuaciones de forma (B, h, T_q, S)",
        )
    assert mask.shape == (2, 1, 1, 4), _say(
        f"padding_mask must have shape (B, 1, 1, S) = (2, 1, 1, 4) for tokens of shape (2, 4), got "
        f"{tuple(mask.shape)}",
        f"padding_mask debe tener forma (B, 1, 1, S) = (2, 1, 1, 4) para tokens de forma (2, 4), pero tiene "
        f"{tuple(mask.shape)}",
        hint,
    )
    assert mask.dtype == torch.bool, _say(
        f"the mask must be boolean (True = may attend), got dtype {mask.dtype}",
        f"la máscara debe ser booleana (True = puede atender), pero su dtype es {mask.dtype}",
        _dtype_hint(mask, ("comparing the tokens with pad_id (tokens != pad_id) already gives booleans, do not "
                           "convert them",
                           "comparar los tokens con pad_id (tokens != pad_id) ya da booleanos, no los conviertas")),
    )
    for row, expected in ((0, [True, True, False, False]), (1, [True, False, False, False])):
        got = mask[row, 0, 0].tolist()
        if got == [not value for value in expected]:
            hint = (
                "the mask is inverted: True must mark the real tokens (may attend) and False the <pad> positions. "
                f"Here {MHA_CONVENTION[0]}",
                "la máscara está invertida: True debe marcar los tokens reales (puede atender) y False las "
                f"posiciones <pad>. Aquí {MHA_CONVENTION[1]}",
            )
        else:
            hint = ("False exactly where the token is pad_id", "False justo donde el token es pad_id")
        assert got == expected, _say(
            f"tokens[{row}] = {tokens[row].tolist()} with pad_id = 0, so mask[{row}, 0, 0] must be {expected}, "
            f"got {got}",
            f"tokens[{row}] = {tokens[row].tolist()} con pad_id = 0, así que mask[{row}, 0, 0] debe ser "
            f"{expected}, pero es {got}",
            hint,
        )


def test_padding_mask_uses_the_given_pad_id():
    """With pad_id = 1, is token 0 a real token and 1 the padding?"""
    tokens = torch.tensor([[0, 4, 1, 1]])
    mask = padding_mask(tokens, pad_id=1)
    got = mask.reshape(-1).tolist()
    expected = [True, True, False, False]
    hint = None
    if mask.dtype != torch.bool:
        hint = _dtype_hint(mask, ("compare the tokens, tokens != pad_id", "compara los tokens, tokens != pad_id"))
    elif got == [not value for value in expected]:
        hint = (f"the mask is inverted: {MHA_CONVENTION[0]}", f"la máscara está invertida: {MHA_CONVENTION[1]}")
    elif got == [False, True, True, True]:
        hint = ("that mask marks the 0s: compare the tokens with pad_id, not with 0",
                "esa máscara marca los 0: compara los tokens con pad_id, no con 0")
    assert got == expected, _say(
        f"tokens = [[0, 4, 1, 1]] with pad_id = 1, so the mask must be {expected} (0 is a real token here), got {got}",
        f"tokens = [[0, 4, 1, 1]] con pad_id = 1, así que la máscara debe ser {expected} (aquí 0 es un token real), "
        f"pero es {got}",
        hint,
    )



def test_padding_mask_hides_pads_wherever_they_are():
    """Are left-padded rows masked too, so the mask follows the pad ids and not the lengths?"""
    tokens = torch.tensor([[0, 0, 5, 6], [7, 8, 9, 0]])
    mask = padding_mask(tokens, pad_id=0)
    got = mask.reshape(2, 4).tolist()
    expected = [[False, False, True, True], [True, True, True, False]]
    hint = None
    if mask.dtype != torch.bool:
        hint = _dtype_hint(mask, ("compare the tokens, tokens != pad_id", "compara los tokens, tokens != pad_id"))
    elif got == [[not value for value in row] for row in expected]:
        hint = (f"the mask is inverted: {MHA_CONVENTION[0]}", f"la máscara está invertida: {MHA_CONVENTION[1]}")
    elif got == [[True, True, False, False], [True, True, True, False]]:
        hint = ("that mask counts the real tokens and keeps the first ones (it assumes the padding is at the end): "
                "compare the ids themselves, tokens != pad_id",
                "esa máscara cuenta los tokens reales y se queda con los primeros (supone el relleno al final): "
                "compara los propios ids, tokens != pad_id")
    assert got == expected, _say(
        f"tokens = [[0, 0, 5, 6], [7, 8, 9, 0]] with pad_id = 0 (the first row padded on the left) must give "
        f"{expected}, got {got}",
        f"tokens = [[0, 0, 5, 6], [7, 8, 9, 0]] con pad_id = 0 (la primera fila rellenada por la izquierda) debe dar "
        f"{expected}, pero da {got}",
        hint,
    )

def test_target_mask_combines_padding_and_causality():
    """Does target_mask give (B, 1, T, T) = padding AND causal?"""
    tokens = torch.tensor([[4, 9, 0]])
    mask = target_mask(tokens, pad_id=0)
    assert mask.shape == (1, 1, 3, 3), _say(
        f"target_mask must have shape (B, 1, T, T) = (1, 1, 3, 3) for tokens of shape (1, 3), got "
        f"{tuple(mask.shape)}; the padding mask (B, 1, 1, T) and the causal mask (T, T) broadcast to (B, 1, T, T)",
        f"target_mask debe tener forma (B, 1, T, T) = (1, 1, 3, 3) para tokens de forma (1, 3), pero tiene "
        f"{tuple(mask.shape)}; la máscara de relleno (B, 1, 1, T) y la causal (T, T) se difunden a (B, 1, T, T)",
    )
    assert mask.dtype == torch.bool, _say(
        f"the mask must be boolean (True = may attend), got dtype {mask.dtype}",
        f"la máscara debe ser booleana (True = puede atender), pero su dtype es {mask.dtype}",
        _dtype_hint(mask, ("combine the boolean padding and causal masks with & (AND), not by multiplying or adding "
                           "them as numbers",
                           "combina las máscaras booleanas de relleno y causal con & (AND), no multiplicándolas ni "
                           "sumándolas como números")),
    )
    expected = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 0]], dtype=torch.bool)
    got = mask[0, 0]
    causal = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=torch.bool)
    padding = torch.tensor([True, True, False]).expand(3, 3)
    if torch.equal(got, causal):
        hint = (
            "that is the causal mask alone: the padding is missing; token 3 is <pad>, so column 3 must be False in "
            "every row",
            "esa es solo la máscara causal: falta el relleno; el token 3 es <pad>, así que la columna 3 debe ser "
            "False en todas las filas",
        )
    elif torch.equal(got, padding):
        hint = (
            "that is the padding mask alone: the causal part is missing; row i must be False for columns j > i",
            "esa es solo la máscara de relleno: falta la parte causal; la fila i debe ser False en las columnas "
            "j > i",
        )
    elif torch.equal(got, causal | padding):
        hint = (
            "that is padding OR causal: combine the two masks with AND (&), so a key must pass both",
            "eso es relleno OR causal: combina las dos máscaras con AND (&), para que una clave pase las dos",
        )
    elif torch.equal(got, ~expected):
        hint = (
            "the mask is inverted (padding OR future, the positions to block): True must mean may attend. Here "
            f"{MHA_CONVENTION[0]}; in the course's convention the two masks combine with &",
            "la máscara está invertida (relleno OR futuro, las posiciones que bloquear): True debe significar que "
            f"puede atender. Aquí {MHA_CONVENTION[1]}; en la convención del curso las dos máscaras se combinan con &",
        )
    elif torch.equal(got, causal & padding.T):
        hint = (
            "the padding hides the <pad> query (row 3) instead of the <pad> key (column 3): the padding mask must "
            "have shape (B, 1, 1, T), with T last",
            "el relleno oculta la consulta <pad> (fila 3) en lugar de la clave <pad> (columna 3): la máscara de "
            "relleno debe tener forma (B, 1, 1, T), con T al final",
        )
    else:
        hint = (
            "mask[b, 0, i, j] must be True exactly when j <= i and token j is not <pad>",
            "mask[b, 0, i, j] debe ser True justo cuando j <= i y el token j no es <pad>",
        )
    assert torch.equal(got, expected), _say(
        f"tokens = [[4, 9, 0]] with pad_id = 0, so mask[0, 0] must be {_b(expected)} (1 = True), got {_b(got)}",
        f"tokens = [[4, 9, 0]] con pad_id = 0, así que mask[0, 0] debe ser {_b(expected)} (1 = True), pero es "
        f"{_b(got)}",
        hint,
    )


def test_target_mask_uses_the_given_pad_id():
    """With pad_id = 1, is token 0 a real token that later positions may see, and 1 hidden?"""
    tokens = torch.tensor([[0, 4, 1]])
    got = target_mask(tokens, pad_id=1)[0, 0]
    expected = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 0]], dtype=torch.bool)
    hint = ("build the padding part with padding_mask(tokens, pad_id), not with 0",
            "construye la parte de relleno con padding_mask(tokens, pad_id), no con 0")
    if got.dtype != torch.bool:
        hint = _dtype_hint(got, ("combine padding_mask and causal_mask with &",
                                 "combina padding_mask y causal_mask con &"))
    elif torch.equal(got, ~expected):
        hint = (f"the mask is inverted: {MHA_CONVENTION[0]}", f"la máscara está invertida: {MHA_CONVENTION[1]}")
    assert torch.equal(got, expected), _say(
        f"tokens = [[0, 4, 1]] with pad_id = 1, so target_mask(...)[0, 0] must be {_b(expected)} (0 is a real "
        f"token here, 1 the padding), got {_b(got)}",
        f"tokens = [[0, 4, 1]] con pad_id = 1, así que target_mask(...)[0, 0] debe ser {_b(expected)} (aquí 0 es "
        f"un token real, 1 el relleno), pero es {_b(got)}",
        hint,
    )
