"""Hidden graders for a1_attention/masks.py.

Every draw holds a padded sequence and an unpadded one, and a pad id other than 0, so a
mask that ignores padding, or compares with 0 instead of pad_id, fails at every seed.
"""

import pytest
import torch

from autograder.grading import checks


def _tokens(rng, B, S, pad_id):
    """Random ids, right-padded by a random amount per row; with B >= 2, one row padded and
    another not. Id 0 is the first token of every row and nowhere else, so comparing with
    0, or with pad_id the wrong way round, gives masks that differ from each other."""
    tokens = torch.randint(1, 50, (B, S), generator=rng)
    tokens[tokens == pad_id] = pad_id + 1
    tokens[:, 0] = 0
    real = checks.right_padding(rng, B, S)
    padded = checks.randint(rng, 0, B - 1)
    real[padded, checks.randint(rng, 1, S - 1):] = False
    real[(padded + checks.randint(rng, 1, B - 1)) % B] = True
    tokens[~real] = pad_id
    return tokens


# A float mask that is 0 exactly where the course's is True and negative elsewhere.
ADDITIVE = checks.Mistake(
    "the mask is an additive float mask (0 = may attend, -inf = blocked), the convention of the lecture notebook 002 "
    "(and nn.Transformer); unlike the lecture notebook 002, the course's masks are boolean, True = may attend, and "
    "attention puts the -inf in itself: build it with comparisons and & (to convert an additive mask, mask == 0; "
    ".bool() would be True exactly where it blocks)",
    "la máscara es una máscara float aditiva (0 = puede atender, -inf = bloqueado), la convención del cuaderno de "
    "clase 002 (y de nn.Transformer); a diferencia del cuaderno de clase 002, las máscaras del curso son booleanas, "
    "True = puede atender, y la atención pone el -inf por sí misma: constrúyela con comparaciones y & (para "
    "convertir una máscara aditiva, mask == 0; .bool() sería True justo donde bloquea)")

# Said of a boolean mask whose True marks what is blocked.
MHA_CONVENTION = (
    "True = blocked is nn.MultiheadAttention's convention (attn_mask, key_padding_mask), the opposite of the course's",
    "True = bloqueado es la convención de nn.MultiheadAttention (attn_mask, key_padding_mask), la contraria a la del "
    "curso")


def _additive(actual, expected) -> bool:
    """``actual`` is an additive float mask (0 where ``expected`` is True, negative where it is
    False), also with extra leading axes of size 1 (the lecture's (1, 1, T, T))."""
    if not isinstance(actual, torch.Tensor) or not actual.is_floating_point() or actual.dim() < expected.dim():
        return False
    lead = actual.shape[:actual.dim() - expected.dim()]
    if any(size != 1 for size in lead) or actual.shape[len(lead):] != expected.shape:
        return False
    actual = actual.reshape(expected.shape)
    return bool((actual <= 0).all()) and torch.equal(actual == 0, expected)


def _equal(actual, expected, what, mistakes):
    """checks.equal, naming the mistake whose mask ``actual`` equals exactly."""
    try:
        checks.equal(actual, expected, what)
    except checks.CheckFailure as failure:
        if _additive(actual, expected) and not bool(expected.all()):
            raise failure.naming(ADDITIVE) from None
        found = checks.recognise(actual, mistakes, lambda a, m: isinstance(a, torch.Tensor) and a.shape == m.shape
                                 and a.dtype == m.dtype and torch.equal(a, m))
        raise (failure.naming(found) if found else failure) from None


def _causal(T):
    return torch.ones(T, T, dtype=torch.bool).tril()


CAUSAL = {  # the ways causal_mask goes wrong: (en, es, mask of size T)
    "triu": ("causal_mask is the upper triangle (torch.triu): position i may only see positions j <= i (torch.tril)",
             "causal_mask es el triángulo superior (torch.triu): la posición i solo puede ver j <= i (torch.tril)",
             lambda T: _causal(T).T.contiguous()),
    "inverted": ("the causal mask is inverted (True above the diagonal): True must mean may attend, j <= i; "
                 + MHA_CONVENTION[0],
                 "la máscara causal está invertida (True sobre la diagonal): True debe significar que se puede atender, "
                 "j <= i; " + MHA_CONVENTION[1],
                 lambda T: ~_causal(T)),
    "no diagonal": ("the causal mask leaves out the diagonal: position i must also see itself (j <= i)",
                    "la máscara causal excluye la diagonal: la posición i también debe verse a sí misma (j <= i)",
                    lambda T: _causal(T).tril(-1)),
    "eye": ("causal_mask is the diagonal only (torch.eye): position i must also see every earlier position, "
            "j <= i (torch.tril of ones)",
            "causal_mask es solo la diagonal (torch.eye): la posición i también debe ver todas las anteriores, j <= i "
            "(torch.tril de unos)",
            lambda T: torch.eye(T, dtype=torch.bool)),
    "ones": ("causal_mask allows every position (all True): position i must not see the later ones, j > i "
             "(torch.tril keeps j <= i)",
             "causal_mask lo permite todo (todo True): la posición i no debe ver las posteriores, j > i (torch.tril "
             "conserva j <= i)",
             lambda T: torch.ones(T, T, dtype=torch.bool)),
    "float": ("causal_mask returns a float tensor; masks are boolean (dtype=torch.bool)",
              "causal_mask devuelve un tensor float; las máscaras son booleanas (dtype=torch.bool)",
              lambda T: _causal(T).float()),
}

PADDING = {  # the ways padding_mask goes wrong: (en, es, mask of the tokens and pad_id)
    "inverted": ("the padding mask is inverted: True must mark the real tokens (tokens != pad_id); "
                 + MHA_CONVENTION[0],
                 "la máscara de relleno está invertida: True debe marcar los tokens reales (tokens != pad_id); "
                 + MHA_CONVENTION[1],
                 lambda t, p: (t == p)[:, None, None, :]),
    "greater": ("the padding mask keeps only the ids above pad_id (tokens > pad_id): the ids below it are real "
                "words too; compare with tokens != pad_id",
                "la máscara de relleno solo conserva los ids mayores que pad_id (tokens > pad_id): los menores también "
                "son palabras reales; compara con tokens != pad_id",
                lambda t, p: (t > p)[:, None, None, :]),
    "zero": ("the padding mask compares with 0 instead of pad_id",
             "la máscara de relleno compara con 0 en lugar de con pad_id",
             lambda t, p: (t != 0)[:, None, None, :]),
    "(B, 1, S)": ("the padding mask has shape (B, 1, S); it needs two singleton dimensions, (B, 1, 1, S), to broadcast "
                  "over heads and queries",
                  "la máscara de relleno tiene forma (B, 1, S); necesita dos dimensiones unitarias, (B, 1, 1, S), para "
                  "difundirse sobre cabezas y consultas",
                  lambda t, p: (t != p)[:, None, :]),
    "(B, S)": ("the padding mask has shape (B, S); it needs two singleton dimensions, (B, 1, 1, S), to broadcast "
               "over heads and queries",
               "la máscara de relleno tiene forma (B, S); necesita dos dimensiones unitarias, (B, 1, 1, S), para "
               "difundirse sobre cabezas y consultas",
               lambda t, p: t != p),
}


@pytest.mark.points(1)
def test_causal_mask(student, rng):
    """Is causal_mask(T) the boolean lower triangle for a random T? / ¿Es causal_mask(T) el triángulo inferior booleano?"""
    for T in (checks.randint(rng, 2, 16), 1):  # T >= 2 first: at T = 1 several mistakes look alike
        _equal(student.call("masks.causal_mask", T), _causal(T), f"causal_mask({T})",
               [checks.Mistake(en, es, output=lambda m=m: m(T)) for en, es, m in CAUSAL.values()])


@pytest.mark.points(1)
def test_padding_mask(student, rng):
    """Does padding_mask hide exactly the pad ids, with shape (B, 1, 1, S)? / ¿Oculta padding_mask exactamente los pad, con forma (B, 1, 1, S)?"""
    B, S, pad_id = checks.randint(rng, 2, 5), checks.randint(rng, 2, 12), checks.randint(rng, 1, 3)
    tokens = _tokens(rng, B, S, pad_id)
    _equal(student.call("masks.padding_mask", tokens, pad_id), (tokens != pad_id).view(B, 1, 1, S),
           f"padding_mask(tokens of shape {(B, S)}, pad_id={pad_id})",
           [checks.Mistake(en, es, output=lambda m=m: m(tokens, pad_id)) for en, es, m in PADDING.values()])
    # Left-padded too (as some tokenizers pad): the mask hides the pad ids wherever they are.
    left = tokens.flip(1)
    _equal(student.call("masks.padding_mask", left, pad_id), (left != pad_id).view(B, 1, 1, S),
           f"padding_mask(left-padded tokens {left.tolist()}, pad_id={pad_id})",
           [checks.Mistake(en, es, output=lambda m=m: m(left, pad_id)) for en, es, m in PADDING.values()]
           + [checks.Mistake(*FROM_LENGTHS, output=lambda: (
               torch.arange(S)[None, :] < (left != pad_id).sum(1, keepdim=True)).view(B, 1, 1, S))])


FROM_LENGTHS = (
    "padding_mask is built from the lengths (arange < number of real tokens), which assumes the padding is at the "
    "end: compare the ids themselves, tokens != pad_id",
    "padding_mask se construye a partir de las longitudes (arange < número de tokens reales), lo que supone el "
    "relleno al final: compara los propios ids, tokens != pad_id")


@pytest.mark.points(1)
def test_target_mask(student, rng):
    """Is target_mask the (B, 1, T, T) AND of padding and causality, also without padding? / ¿Es target_mask el AND (B, 1, T, T) de relleno y causalidad, también sin relleno?"""
    B, T, pad_id = checks.randint(rng, 2, 5), checks.randint(rng, 2, 12), checks.randint(rng, 1, 3)
    T += T == B  # T != B: a causal mask sized by the batch (tokens.size(0)) must not fit
    tokens = _tokens(rng, B, T, pad_id)
    padding = (tokens != pad_id)[:, None, None, :]
    mistakes = [
        checks.Mistake("target_mask combines padding and causality with | (OR); it needs & (AND)",
                       "target_mask combina relleno y causalidad con | (OR); necesita & (AND)",
                       output=lambda: padding | _causal(T)),
        checks.Mistake("target_mask combines padding and causality with ^ (XOR): it hides the positions both allow; "
                       "it needs & (AND)",
                       "target_mask combina relleno y causalidad con ^ (XOR): oculta las posiciones que ambas permiten; "
                       "necesita & (AND)",
                       output=lambda: padding ^ _causal(T)),
        checks.Mistake("target_mask is inverted, True where a position is padding or in the future (pad | ~causal): "
                       "True must mean may attend; " + MHA_CONVENTION[0] + "; the course's masks combine with &",
                       "target_mask está invertida, True donde una posición es relleno o futuro (pad | ~causal): True "
                       "debe significar que se puede atender; " + MHA_CONVENTION[1] + "; las máscaras del curso se "
                       "combinan con &",
                       output=lambda: ~(padding & _causal(T))),
        checks.Mistake("target_mask ignores the padding: combine padding_mask & causal_mask",
                       "target_mask ignora el relleno: combina padding_mask & causal_mask",
                       output=lambda: _causal(T).expand(B, 1, T, T)),
        checks.Mistake("target_mask puts the padding on the query axis, (B, 1, T, 1): the padded positions must be "
                       "hidden as keys, so the padding mask keeps its shape (B, 1, 1, T)",
                       "target_mask pone el relleno en el eje de las consultas, (B, 1, T, 1): las posiciones de "
                       "relleno deben ocultarse como claves, así que la máscara de relleno conserva su forma (B, 1, 1, T)",
                       output=lambda: (tokens != pad_id)[:, None, :, None] & _causal(T)),
        checks.Mistake("target_mask ignores causality: combine padding_mask & causal_mask",
                       "target_mask ignora la causalidad: combina padding_mask & causal_mask",
                       output=lambda: padding.expand(B, 1, T, T)),
        checks.Mistake("target_mask lets every position see itself, padded ones too (the diagonal ORed in so that no "
                       "row is empty): it is exactly padding & causality; a padded query's row may be all False "
                       "(attention gives it zero weights)",
                       "target_mask deja que cada posición se vea a sí misma, también las de relleno (la diagonal "
                       "añadida con OR para que ninguna fila quede vacía): es exactamente relleno & causalidad; la "
                       "fila de una consulta de relleno puede ser toda False (la atención le da pesos cero)",
                       output=lambda: (padding & _causal(T)) | torch.eye(T, dtype=torch.bool)),
    ]
    mistakes += [checks.Mistake(en, es, output=lambda m=m: padding & m(T).bool()) for en, es, m in CAUSAL.values()]
    mistakes += [checks.Mistake(en, es, output=lambda m=m: m(tokens, pad_id) & _causal(T)) for en, es, m in PADDING.values()]
    _equal(student.call("masks.target_mask", tokens, pad_id), padding & _causal(T),
           f"target_mask(tokens of shape {(B, T)}, pad_id={pad_id})", mistakes)
    # A batch without padding keeps the shape: callers index and broadcast (B, 1, T, T).
    full = torch.randint(pad_id + 1, pad_id + 20, (B, T), generator=rng)
    _equal(student.call("masks.target_mask", full, pad_id), _causal(T).expand(B, 1, T, T),
           f"target_mask(tokens of shape {(B, T)} without padding, pad_id={pad_id})", [])
