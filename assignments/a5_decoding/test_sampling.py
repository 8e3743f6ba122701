"""Public tests for sampling.py. Run them with ``pytest assignments/a5_decoding``."""

import math

import pytest
import torch

from sampling import sample_next_token

LOGITS = torch.tensor([[2.0, 1.0, 0.5, -1.0, 0.0], [0.0, 3.0, 0.0, 0.0, 2.9]])


def _got(t):
    return f"{t.tolist()} (shape {tuple(t.shape)})"


def test_greedy_cases_take_the_argmax():
    """Do temperature=0 and top_k=1 both pick the most likely token of every row?"""
    out = sample_next_token(LOGITS, temperature=0.0)
    assert out.tolist() == [0, 1], (
        f"temperature=0 gave {_got(out)}, expected [0, 1] (shape (2,)), the argmax of each row of {LOGITS.tolist()}. "
        "Temperature 0 means greedy: return the index of each row's largest logit, without sampling, as a (B,) "
        "tensor. / "
        f"temperature=0 dio {_got(out)}, se esperaba [0, 1] (forma (2,)), el argmax de cada fila de "
        f"{LOGITS.tolist()}. Temperatura 0 es voraz: devuelve el índice del mayor logit de cada fila, sin muestrear, "
        "como tensor (B,)."
    )
    out = sample_next_token(LOGITS, top_k=1)
    if tuple(out.shape) == (2,):
        hint = ("Another token was drawn, so more than one was kept: top-k must keep exactly k tokens (keeping "
                "k+1, or ignoring top_k, lets others through).",
                "Ha salido otro token, así que se conservó más de uno: top-k debe conservar exactamente k tokens "
                "(conservar k+1, o ignorar top_k, deja pasar otros).")
    else:
        hint = ("Return one id per row, a (B,) tensor.", "Devuelve un id por fila, un tensor (B,).")
    assert out.tolist() == [0, 1], (
        f"top_k=1 gave {_got(out)}, expected [0, 1] (shape (2,)): with top_k=1 only the largest logit of each row "
        f"remains, so the result is the argmax. {hint[0]} / "
        f"top_k=1 dio {_got(out)}, se esperaba [0, 1] (forma (2,)): con top_k=1 solo queda el mayor logit de cada "
        f"fila, así que el resultado es el argmax. {hint[1]}"
    )


def _top_k_hint(row, got, want):
    ranked = LOGITS[row].sort(descending=True).values.tolist()
    extra = got - want
    if got < want:
        return (f"Only {sorted(got)} ever came out, one token fewer than k: top-k keeping k-1 tokens does this (the "
                "k-th largest logit must stay), and so does returning the argmax instead of drawing with "
                "torch.multinomial.",
                f"Solo salió {sorted(got)}, un token menos que k: pasa si top-k conserva k-1 tokens (el k-ésimo "
                "mayor logit debe quedarse) y también si devuelves el argmax en vez de muestrear con "
                "torch.multinomial.")
    if want < got and all(LOGITS[row, t].item() == ranked[2] for t in extra):
        return (f"Token(s) {sorted(extra)}, with the 3rd largest logit, came out too: top-k kept k+1 tokens.",
                f"También salieron {sorted(extra)}, con el 3.er mayor logit: top-k conservó k+1 tokens.")
    if got == set(range(LOGITS.size(1))):
        return ("Every token came out: top_k had no effect on the draws.",
                "Salieron todos los tokens: top_k no tuvo efecto en el muestreo.")
    if row == 1 and got == {0, 1}:
        return ("{0, 1} are positions inside the top-k list, not token ids: map the kept positions back to the "
                "vocabulary ids.",
                "{0, 1} son posiciones dentro de la lista top-k, no ids de tokens: vuelve a traducir las posiciones "
                "conservadas a ids del vocabulario.")
    return ("Keep the k largest logits of each row (by value, at their own positions) and draw among those only.",
            "Conserva los k mayores logits de cada fila (por valor, en sus propias posiciones) y muestrea solo entre "
            "ellos.")


def test_top_k_never_leaves_the_k_best():
    """With top_k=2, is every draw one of the two largest logits of its row?"""
    g = torch.Generator().manual_seed(0)
    draws = sample_next_token(LOGITS.repeat(500, 1), top_k=2, generator=g).view(500, 2)
    for row, want in ((0, {0, 1}), (1, {1, 4})):
        got = set(draws[:, row].tolist())
        hint = _top_k_hint(row, got, want) if got != want else ("", "")
        assert got == want, (
            f"top_k=2 on the row {LOGITS[row].tolist()}: 500 draws gave the tokens {sorted(got)}, expected exactly "
            f"{sorted(want)}, the ids of its 2 largest logits. {hint[0]} / "
            f"top_k=2 con la fila {LOGITS[row].tolist()}: 500 muestras dieron los tokens {sorted(got)}, se esperaba "
            f"exactamente {sorted(want)}, los ids de sus 2 mayores logits. {hint[1]}"
        )


def test_top_p_keeps_the_smallest_set_reaching_p():
    """With probabilities [0.5, 0.3, 0.2] and top_p=0.6, are only the first two tokens drawn?"""
    logits = torch.tensor([[0.5, 0.3, 0.2]]).log().repeat(1000, 1)
    draws = sample_next_token(logits, top_p=0.6, generator=torch.Generator().manual_seed(1))
    assert draws.dim() == 1, (
        f"top_p=0.6 on 1000 rows gave shape {tuple(draws.shape)}, expected (1000,): return one token id per row, "
        "a (B,) tensor (torch.multinomial gives (B, 1)). / "
        f"top_p=0.6 con 1000 filas dio forma {tuple(draws.shape)}, se esperaba (1000,): devuelve un id de token por "
        "fila, un tensor (B,) (torch.multinomial da (B, 1))."
    )
    got = set(draws.tolist())
    if got == {0}:
        hint = ("Token 1 never came out: top-p must keep the token that crosses p (dropping a token only when "
                "the ones before it already reach p); a draw that never samples (argmax) also gives this.",
                "El token 1 no salió nunca: top-p debe conservar el token que cruza p (quita un token solo cuando "
                "los anteriores ya alcanzan p); también pasa si no muestreas (argmax).")
    elif got == {0, 1, 2}:
        hint = ("Token 2 came out too: once 0.5 + 0.3 reaches p the remaining tokens must go (top-p had no effect "
                "or kept one token too many).",
                "También salió el token 2: en cuanto 0,5 + 0,3 alcanza p, los demás tokens sobran (top-p no tuvo "
                "efecto o conservó un token de más).")
    else:
        hint = ("Keep the most likely tokens (sorted in descending order) and put the result back at the tokens' "
                "original positions.",
                "Conserva los tokens más probables (ordenados de mayor a menor) y devuelve el resultado a las "
                "posiciones originales de los tokens.")
    assert got == {0, 1}, (
        f"top_p=0.6 with probabilities [0.5, 0.3, 0.2]: 1000 draws gave the tokens {sorted(got)}, expected exactly "
        f"[0, 1]: 0.5 alone is below 0.6 and 0.5 + 0.3 = 0.8 reaches it, so the smallest set is tokens 0 and 1. "
        f"{hint[0]} / "
        f"top_p=0.6 con probabilidades [0.5, 0.3, 0.2]: 1000 muestras dieron los tokens {sorted(got)}, se esperaba "
        f"exactamente [0, 1]: 0,5 sola no llega a 0,6 y 0,5 + 0,3 = 0,8 sí, así que el conjunto mínimo son los "
        f"tokens 0 y 1. {hint[1]}"
    )


def _differ(a, b):
    return (a != b).sum().item() if a.shape == b.shape else "all"


def test_same_generator_seed_same_draws():
    """Does the same generator seed give the same tokens?"""
    a = sample_next_token(LOGITS.repeat(50, 1), generator=torch.Generator().manual_seed(7))
    b = sample_next_token(LOGITS.repeat(50, 1), generator=torch.Generator().manual_seed(7))
    assert torch.equal(a, b), (
        f"Two calls with generator=torch.Generator().manual_seed(7) differ at {_differ(a, b)} of {a.numel()} "
        f"positions (first 8 draws: {a.tolist()[:8]} vs {b.tolist()[:8]}): every random draw must use the "
        "generator passed in (torch.multinomial(..., generator=generator)), not the global random state. / "
        f"Dos llamadas con generator=torch.Generator().manual_seed(7) difieren en {_differ(a, b)} de {a.numel()} "
        f"posiciones (primeras 8 muestras: {a.tolist()[:8]} frente a {b.tolist()[:8]}): cada muestreo debe usar el "
        "generador recibido (torch.multinomial(..., generator=generator)), no el estado aleatorio global."
    )


@pytest.mark.parametrize("kwargs", [{"temperature": -1.0}, {"top_k": 0}, {"top_p": 0.0}, {"top_p": 1.5}])
def test_invalid_arguments_raise_value_error(kwargs):
    """Do a negative temperature, top_k < 1 or top_p outside (0, 1] raise ValueError?"""
    args = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    try:
        sample_next_token(LOGITS, **kwargs)
    except ValueError:
        return
    pytest.fail(
        f"sample_next_token(logits, {args}) did not raise ValueError. Check the arguments first: temperature >= 0, "
        "top_k None or >= 1, top_p None or in (0, 1]; otherwise raise ValueError saying what is allowed. / "
        f"sample_next_token(logits, {args}) no lanzó ValueError. Comprueba antes los argumentos: temperature >= 0, "
        "top_k None o >= 1, top_p None o en (0, 1]; si no, lanza ValueError diciendo qué se permite."
    )


@pytest.mark.parametrize("kwargs", [{"temperature": 2.5}, {"top_k": 50}, {"top_p": 1.0},
                                    {"temperature": 0.0, "top_p": 1.5}, {"temperature": 0.0, "top_k": 0}])
def test_valid_arguments_are_accepted_and_invalid_ones_refused_first(kwargs):
    """Are a temperature above 1, top_k above the vocabulary size and top_p = 1 accepted (they
    flatten or filter nothing), and are invalid values refused even at temperature 0?"""
    args = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    invalid = kwargs.get("top_p", 0.5) > 1 or kwargs.get("top_k", 1) < 1
    try:
        draws = sample_next_token(LOGITS, **kwargs)
    except ValueError as error:
        assert invalid, (
            f"sample_next_token(logits, {args}) raised ValueError ({error}), though these values are allowed: "
            "temperature >= 0 (above 1 flattens), top_k >= 1 (above the vocabulary size keeps every token), top_p "
            f"in (0, 1] / sample_next_token(logits, {args}) lanzó ValueError ({error}), aunque estos valores están "
            "permitidos: temperature >= 0 (por encima de 1 aplana), top_k >= 1 (por encima del tamaño del "
            "vocabulario conserva todos los tokens), top_p en (0, 1]")
        return
    assert not invalid, (
        f"sample_next_token(logits, {args}) returned {draws!r:.60} instead of raising ValueError: check every "
        "argument before the greedy shortcut (temperature 0 returns the argmax, but only after the checks) / "
        f"sample_next_token(logits, {args}) devolvió {draws!r:.60} en lugar de lanzar ValueError: comprueba cada "
        "argumento antes del atajo voraz (temperatura 0 devuelve el argmax, pero solo tras las comprobaciones)")


def test_draws_follow_softmax_of_logits_over_temperature():
    """At temperature 0.5, do 4,000 draws from logits [1, 0, -1] come out in the shares
    softmax([1, 0, -1] / 0.5) gives (86.7 %, 11.7 %, 1.6 %)?"""
    logits = torch.tensor([[1.0, 0.0, -1.0]]).repeat(4000, 1)
    draws = sample_next_token(logits, temperature=0.5, generator=torch.Generator().manual_seed(0))
    shares = torch.bincount(draws.flatten(), minlength=3)[:3].double() / draws.numel()
    want = torch.softmax(torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64) / 0.5, dim=-1)
    at_one = torch.softmax(torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64), dim=-1)
    if (shares - at_one).abs().max() < 0.03:
        hint = ("those are the shares at temperature 1: divide the logits by the temperature before the softmax, "
                "not the probabilities after it",
                "son las proporciones a temperatura 1: divide los logits entre la temperatura antes del softmax, no "
                "las probabilidades después")
    elif shares[0] < at_one[0]:
        hint = ("the distribution is flatter than at temperature 1: divide by the temperature, do not multiply",
                "la distribución es más plana que a temperatura 1: divide entre la temperatura, no multipliques")
    else:
        hint = ("divide the logits by the temperature once, then softmax and draw",
                "divide los logits entre la temperatura una vez, luego softmax y muestreo")
    assert (shares - want).abs().max() < 0.03, (
        f"temperature=0.5 on logits [1, 0, -1]: 4,000 draws gave shares {_got(shares.round(decimals=3))}, expected "
        f"about {_got(want.round(decimals=3))}; {hint[0]} / temperature=0.5 con logits [1, 0, -1]: 4000 muestras "
        f"dieron proporciones {_got(shares.round(decimals=3))}, se esperaba cerca de {_got(want.round(decimals=3))}; "
        f"{hint[1]}"
    )


def _top_p_draws(probs, top_p):
    """The set of tokens 1000 draws of sample_next_token(top_p=top_p) give from ``probs``."""
    logits = torch.tensor([probs]).log().repeat(1000, 1)
    return set(sample_next_token(logits, top_p=top_p, generator=torch.Generator().manual_seed(2)).tolist())


def _top_p_message(probs, top_p, got, want, why, hint, when):
    en, es = hint if got == when else ("", "")
    shown_es = str(probs).replace(".", ",")
    return (f"top_p={top_p} with probabilities {probs}: 1000 draws gave the tokens {sorted(got)}, expected exactly "
            f"{sorted(want)} ({why[0]}).{en} / "
            f"top_p={str(top_p).replace('.', ',')} con probabilidades {shown_es}: 1000 muestras dieron los tokens "
            f"{sorted(got)}, se esperaba exactamente {sorted(want)} ({why[1]}).{es}")


def test_top_p_keeps_tokens_in_their_places():
    """With probabilities not sorted ([0.2, 0.5, 0.3] and [0.3, 0.1, 0.6]), are exactly the
    tokens of the smallest set reaching top_p drawn, at their own positions?"""
    got = _top_p_draws([0.2, 0.5, 0.3], 0.6)
    assert got == {1, 2}, _top_p_message([0.2, 0.5, 0.3], 0.6, got, {1, 2}, (
        "0.5 + 0.3 reaches 0.6", "0,5 + 0,3 alcanza 0,6"), (
        " Tokens 0 and 1 are the first two of the sorted order: after filtering the sorted logits, scatter them back "
        "to the tokens' own positions (or filter a copy in the original order).",
        " Los tokens 0 y 1 son los dos primeros del orden ordenado: tras filtrar los logits ordenados, devuélvelos a "
        "las posiciones de sus tokens (o filtra una copia en el orden original)."), when={0, 1})
    got = _top_p_draws([0.3, 0.1, 0.6], 0.5)
    assert got == {2}, _top_p_message([0.3, 0.1, 0.6], 0.5, got, {2}, (
        "0.6, the most likely token, reaches 0.5 alone", "0,6, el token más probable, alcanza 0,5 por sí solo"), (
        " The running sum must follow the sorted order (0.6, then 0.3, then 0.1): summed in the vocabulary's order "
        "(0.3, 0.1, 0.6) it never reaches 0.5 before the last token, so nothing is removed.",
        " La suma acumulada debe seguir el orden ordenado (0,6, luego 0,3, luego 0,1): sumada en el orden del "
        "vocabulario (0,3, 0,1, 0,6) no llega a 0,5 antes del último token, así que no se quita nada."),
        when={0, 1, 2})


def test_top_k_filters_first_then_top_p_on_what_remains():
    """With probabilities [0.5, 0.3, 0.2], top_k=2 and top_p=0.6, is only token 0 drawn?
    Top-k leaves [0.625, 0.375] renormalised, and 0.625 reaches 0.6 alone."""
    logits = torch.tensor([[0.5, 0.3, 0.2]]).log().repeat(1000, 1)
    got = set(sample_next_token(logits, top_k=2, top_p=0.6, generator=torch.Generator().manual_seed(3)).tolist())
    if got == {0, 1}:
        hint = ("Token 1 came out too: that is top-p on the whole distribution (0.5 is below 0.6), applied before "
                "top-k, or top-p skipped when top_k is set (an elif?). Apply top-k, then top-p on the "
                "renormalised tokens that remain.",
                "También salió el token 1: eso es top-p sobre toda la distribución (0,5 no llega a 0,6), aplicado "
                "antes que top-k, o top-p omitido cuando hay top_k (¿un elif?). Aplica top-k y después top-p sobre "
                "los tokens que quedan, renormalizados.")
    else:
        hint = ("Apply temperature, then top-k, then top-p on the renormalised tokens top-k keeps.",
                "Aplica la temperatura, luego top-k y luego top-p sobre los tokens que conserva top-k, "
                "renormalizados.")
    assert got == {0}, (
        f"top_k=2, top_p=0.6 with probabilities [0.5, 0.3, 0.2]: 1000 draws gave the tokens {sorted(got)}, "
        f"expected only [0]. {hint[0]} / "
        f"top_k=2, top_p=0,6 con probabilidades [0,5, 0,3, 0,2]: 1000 muestras dieron los tokens {sorted(got)}, se "
        f"esperaba solo [0]. {hint[1]}"
    )


def test_temperature_applies_with_top_k():
    """At temperature 0.5 with top_k=2, do draws from logits [1, 0, -1] follow softmax([1, 0] / 0.5)
    over the two kept tokens (88.1 %, 11.9 %)?"""
    logits = torch.tensor([[1.0, 0.0, -1.0]]).repeat(4000, 1)
    draws = sample_next_token(logits, temperature=0.5, top_k=2, generator=torch.Generator().manual_seed(4))
    share = (draws == 0).double().mean().item()
    want, at_one = 1 / (1 + math.exp(-2.0)), 1 / (1 + math.exp(-1.0))
    if abs(share - at_one) < 0.03:
        hint = ("That is temperature 1: the temperature must divide the logits also when top_k or top_p is set.",
                "Eso es temperatura 1: la temperatura debe dividir los logits también cuando hay top_k o top_p.")
    else:
        hint = ("Divide by the temperature first, then keep the k best and draw from their renormalised softmax.",
                "Divide primero entre la temperatura, conserva los k mejores y muestrea de su softmax renormalizado.")
    assert abs(share - want) < 0.03, (
        f"temperature=0.5, top_k=2 on logits [1, 0, -1]: token 0 came out in {share:.1%} of 4,000 draws, expected "
        f"about {want:.1%}. {hint[0]} / temperature=0,5, top_k=2 con logits [1, 0, -1]: el token 0 salió en el "
        f"{share:.1%} de 4000 muestras, se esperaba cerca del {want:.1%}. {hint[1]}"
    )


def test_each_row_is_filtered_by_its_own_top_k():
    """With top_k=2 on rows of different scales, is every row's draw among that row's own two best?"""
    rows = torch.tensor([[2.0, 1.0, 0.5, -1.0, 0.0], [9.0, 8.5, 8.0, 7.0, 0.0]])
    draws = sample_next_token(rows.repeat(500, 1), top_k=2, generator=torch.Generator().manual_seed(5)).view(500, 2)
    got = set(draws[:, 1].tolist())
    assert got == {0, 1}, (
        f"top_k=2 on the second row {rows[1].tolist()} of a batch: 500 draws gave the tokens {sorted(got)}, expected "
        "exactly [0, 1]. Each row keeps its own k largest logits: take the k-th largest per row "
        "(topk(k, dim=-1).values[:, -1:], shape (B, 1)), not one threshold for the whole batch. / "
        f"top_k=2 con la segunda fila {rows[1].tolist()} de un lote: 500 muestras dieron los tokens {sorted(got)}, se "
        "esperaba exactamente [0, 1]. Cada fila conserva sus propios k mayores logits: toma el k-ésimo mayor de cada "
        "fila (topk(k, dim=-1).values[:, -1:], forma (B, 1)), no un umbral para todo el lote."
    )


def test_draws_are_int64_token_ids():
    """Are sampled token ids int64, like the argmax of the greedy case?"""
    draws = sample_next_token(LOGITS, generator=torch.Generator().manual_seed(6))
    assert draws.dtype == torch.int64, (
        f"sample_next_token returned {draws.dtype}, expected torch.int64: token ids index embeddings and "
        "vocabularies, which take int64 (torch.multinomial already returns it; do not convert). / "
        f"sample_next_token devolvió {draws.dtype}, se esperaba torch.int64: los ids de token indexan embeddings y "
        "vocabularios, que usan int64 (torch.multinomial ya lo devuelve; no lo conviertas)."
    )


def test_top_k_applies_to_a_batch_smaller_than_k():
    """With 2 rows and top_k=3 of 4 tokens, is the worst token never drawn?"""
    rows = torch.tensor([[1.0, 1.0, 1.0, 0.9], [0.9, 1.0, 1.0, 1.0]])
    worst = []
    for seed in range(100):
        draws = sample_next_token(rows, top_k=3, generator=torch.Generator().manual_seed(seed))
        worst += [int(draws[0]) == 3, int(draws[1]) == 0]
    assert not any(worst), (
        f"top_k=3 on 2 rows of 4 tokens: the worst token of its row was drawn {sum(worst)} times in 200 draws. "
        "Top-k applies whatever the batch size: compare top_k with the vocabulary size, logits.size(-1), not "
        "logits.size(0). / "
        f"top_k=3 con 2 filas de 4 tokens: el peor token de su fila salió {sum(worst)} veces en 200 muestras. "
        "Top-k se aplica sea cual sea el tamaño del lote: compara top_k con el tamaño del vocabulario, "
        "logits.size(-1), no logits.size(0)."
    )


def test_a_batch_of_one_gives_one_draw_of_shape_1():
    """Does a batch of one row give a draw of shape (1,), not a 0-d tensor?"""
    draws = sample_next_token(LOGITS[:1], generator=torch.Generator().manual_seed(8))
    assert draws.shape == (1,), (
        f"sample_next_token(logits of shape (1, 5)) returned shape {tuple(draws.shape)}, expected (1,): one id per row, "
        "also for one row. .squeeze() with no dim drops every axis of size 1, the batch's too: use .squeeze(-1) (or "
        "multinomial(...)[:, 0]). / "
        f"sample_next_token(logits de forma (1, 5)) devolvió la forma {tuple(draws.shape)}, se esperaba (1,): un id "
        "por fila, también con una fila. .squeeze() sin dim quita todos los ejes de tamaño 1, también el del lote: "
        "usa .squeeze(-1) (o multinomial(...)[:, 0])."
    )
