"""Shared pieces of the a5 sampling graders (not a test module): the distribution that
sample_next_token must draw from, and the distributions that classic mistakes draw from,
so that a failed goodness-of-fit check can name the mistake whose distribution the
student's draws follow instead.
"""

import math

import torch

from autograder.grading import checks
from autograder.grading.checks import CheckFailure, Mistake
from autograder.grading.reports import Where

SAMPLE = "sampling.sample_next_token"
FALSE_FAILURE = 1e-7  # as in checks.frequencies


def tolerance(n, v):
    """The ±eps that checks.frequencies allows n draws over v tokens."""
    return math.sqrt(math.log(2 * v / FALSE_FAILURE) / (2 * n))


def probs_of(logits, temperature=1.0, top_k=None, top_p=None, mistake=None):
    """The distribution (V,) float64 of one row's draws, done right or with ``mistake``."""
    V = logits.numel()
    logits = logits.double()
    if mistake == "t_times":
        scaled = logits * temperature
    else:
        scaled = logits / {"t_ignored": 1.0, "t_twice": temperature ** 2}.get(mistake, temperature)
    order = scaled.argsort(descending=True)
    k = top_k + {"k_plus": 1, "k_minus": -1}.get(mistake, 0) if top_k else V
    keep = torch.zeros(V, dtype=torch.bool)
    keep[order[:k]] = True
    if mistake == "k_indices":  # the threshold is the k-th best token's id, not its logit
        keep = scaled >= float(order[k - 1])
    fill = 0.0 if mistake == "k_zero" else float("-inf")
    after_k = torch.where(keep, scaled, torch.tensor(fill, dtype=torch.float64)).softmax(-1)
    probs, keep = after_k, after_k > 0
    if top_p is not None:
        if mistake == "t_after_p":  # the nucleus chosen from the distribution at temperature 1
            probs = torch.where(keep, logits, torch.tensor(float("-inf"), dtype=torch.float64)).softmax(-1)
        elif mistake == "p_before_k":  # the nucleus chosen from the whole distribution, before top-k
            probs = scaled.softmax(-1)
        order = probs.argsort(descending=True)
        sorted_probs = probs[order]
        before = sorted_probs.cumsum(0) - sorted_probs
        drop = before + sorted_probs >= top_p if mistake == "p_crossing" else before >= top_p
        keep = keep.clone()
        keep[order[drop]] = False
        probs = torch.where(keep, after_k if mistake == "t_after_p" else probs, torch.zeros((), dtype=torch.float64))
        probs = probs / probs.sum()
    if mistake in ("not_renormalised", "not_renormalised_after_k"):
        # drawn by inverse CDF from the kept probabilities of an earlier softmax: whatever
        # mass was dropped falls on the last token
        base = scaled.softmax(-1) if mistake == "not_renormalised" else after_k
        probs = torch.where(keep, base, torch.zeros((), dtype=torch.float64))
        probs[-1] += 1 - probs.sum()
    return probs


MISTAKES = {
    "t_ignored": ("the temperature is not applied before the softmax: the draws follow softmax(logits), "
                  "not softmax(logits / T)",
                  "la temperatura no se aplica antes del softmax: las muestras siguen softmax(logits), "
                  "no softmax(logits / T)"),
    "t_twice": ("the temperature is applied twice: the draws follow softmax(logits / T²)",
                "la temperatura se aplica dos veces: las muestras siguen softmax(logits / T²)"),
    "t_times": ("the logits are multiplied by the temperature; they must be divided: softmax(logits / T)",
                "los logits se multiplican por la temperatura; hay que dividirlos: softmax(logits / T)"),
    "t_after_p": ("the temperature is applied after top-p: the nucleus must be chosen from softmax(logits / T), "
                  "so divide by the temperature first",
                  "la temperatura se aplica después de top-p: el núcleo se elige de softmax(logits / T), así que "
                  "divide por la temperatura primero"),
    "p_before_k": ("top-p is applied before top-k: the nucleus must be chosen from the distribution that "
                   "top-k leaves (renormalised over the k best), so filter with top-k first",
                   "top-p se aplica antes que top-k: el núcleo se elige de la distribución que deja top-k "
                   "(renormalizada sobre los k mejores), así que filtra primero con top-k"),
    "k_plus": ("top-k keeps k + 1 tokens (off by one)", "top-k conserva k + 1 tokens (error por uno)"),
    "k_minus": ("top-k keeps k - 1 tokens (off by one)", "top-k conserva k - 1 tokens (error por uno)"),
    "k_indices": ("the top-k threshold is read from topk's .indices (a token id) instead of its .values (the k-th "
                  "largest logit): kth = logits.topk(k, dim=-1).values[:, -1:]",
                  "el umbral de top-k se lee de .indices de topk (un id de token) en lugar de .values (el k-ésimo "
                  "mayor logit): kth = logits.topk(k, dim=-1).values[:, -1:]"),
    "k_zero": ("top-k sets the dropped logits to 0 instead of -inf, so dropped tokens are still drawn",
               "top-k pone a 0 los logits descartados en lugar de -inf, así que siguen saliendo"),
    "p_crossing": ("top-p drops the token that crosses p: the nucleus is the smallest set whose probability "
                   "reaches p, so it includes that token",
                   "top-p quita el token que cruza p: el núcleo es el menor conjunto cuya probabilidad "
                   "alcanza p, así que lo incluye"),
    "not_renormalised": ("the kept probabilities are not renormalised: after top-k / top-p, divide them by "
                         "their sum (or take the softmax of the masked logits)",
                         "las probabilidades conservadas no se renormalizan: tras top-k / top-p, divídelas "
                         "por su suma (o haz el softmax de los logits enmascarados)"),
}
MISTAKES["not_renormalised_after_k"] = MISTAKES["not_renormalised"]

LOGITS = Mistake("sampling from the logits instead of the probabilities: torch.multinomial needs "
                 "softmax(logits), which is never negative",
                 "se muestrea de los logits en lugar de las probabilidades: torch.multinomial necesita "
                 "softmax(logits), que nunca es negativo")
GENERATOR = Mistake("the generator is not passed on to torch.multinomial (generator=generator)",
                    "el generador no llega a torch.multinomial (generator=generator)")


def recognise_all(actual, candidates, matches, several=True):
    """Every mistake whose output ``matches`` the student's, as one Mistake (several when
    the inputs cannot tell them apart, unless ``several`` is False: then None), or None."""
    found, seen = [], set()
    for mistake in candidates:
        if mistake.en not in seen and checks.recognise(actual, [mistake], matches):
            found.append(mistake)
            seen.add(mistake.en)
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    if not several:
        return None
    return Mistake(f"one of these {len(found)}, which this test cannot tell apart: "
                   + "; ".join(f"({i}) {m.en}" for i, m in enumerate(found, 1)),
                   f"una de estas {len(found)}, que este test no puede distinguir: "
                   + "; ".join(f"({i}) {m.es}" for i, m in enumerate(found, 1)))


def mistakes(logits, temperature=1.0, top_k=None, top_p=None, which=tuple(MISTAKES)):
    return [Mistake(*MISTAKES[m], output=lambda m=m: probs_of(logits, temperature, top_k, top_p, m)) for m in which]


def separated(logits, n, temperature=1.0, top_k=None, top_p=None, which=tuple(MISTAKES), same=()):
    """Each mistake in ``which`` moves some token's probability by at least three times the
    tolerance of n draws, away from the right distribution and from each other mistake's,
    so its draws fail the check and are told apart at any seed; each mistake in ``same``
    moves none by more than a tenth of the tolerance, so it passes."""
    eps = tolerance(n, logits.numel())
    # A mistake that removes every token gives NaN, and the student's call crashes: that shows.
    dists = {m: probs_of(logits, temperature, top_k, top_p, m).nan_to_num(nan=2.0)
             for m in (None, *which, *same)}
    gap = {m: (dists[m] - dists[None]).abs().max().item() for m in (*which, *same)}
    apart = all((dists[a] - dists[b]).abs().max().item() >= 3 * eps
                for i, a in enumerate(which) for b in which[i + 1:] if MISTAKES[a] != MISTAKES[b])
    return apart and all(gap[m] >= 3 * eps for m in which) and all(gap[m] <= eps / 10 for m in same)


def follows(draws, probs):
    """The draws (n,) pass the support and frequency checks for ``probs``."""
    n = checks.tensor(draws, "draws").numel()
    checks.support(draws, (probs > 0).expand(n, -1), "draws")
    checks.frequencies(draws, probs, "draws")
    return True


ARGMAX = Mistake(
    "every draw is the most likely token: the code takes the argmax instead of drawing from the distribution "
    "(torch.multinomial(probs, 1, generator=generator))",
    "cada muestra es el token más probable: el código toma el argmax en lugar de muestrear de la distribución "
    "(torch.multinomial(probs, 1, generator=generator))")


def always_argmax(draws, logits) -> bool:
    """Every draw is its row's most likely token, where that token is far from certain, so
    no sampler gives it by chance."""
    if not (isinstance(draws, torch.Tensor) and draws.dtype == torch.int64 and draws.dim() == 1):
        return False
    logits = logits.expand(draws.numel(), -1) if logits.dim() == 1 else logits
    if logits.shape[0] != draws.numel() or draws.numel() < 50:
        return False
    probs = logits.double().softmax(-1)
    return bool((draws == logits.argmax(-1)).all()) and bool(probs.max(-1).values.mean() < 0.9)


def check_draws(draws, probs, what, found_among=()):
    """Draws (n,) follow ``probs``; a failure names the mistake they follow instead."""
    try:
        n = checks.tensor(draws, what, dtype=torch.int64).numel()
        checks.support(draws, (probs > 0).expand(n, -1), what)
        checks.frequencies(draws, probs, what)
    except CheckFailure as failure:
        # An argmax sampler first: its draws can look like a peaked mistake's, and then both are said.
        argmax = Mistake(ARGMAX.en, ARGMAX.es, output=lambda: torch.nn.functional.one_hot(
            probs.argmax(-1), probs.size(-1)).to(probs.dtype))
        found = recognise_all(draws, [argmax, *found_among], follows)
        raise (failure.naming(found) if found
               else failure.shaped(outside_support(draws, probs) or top_never_drawn(draws, probs))) from None


def outside_support(draws, probs) -> tuple[str, str] | None:
    """The shape of draws that fall outside the tokens ``probs`` keeps: all among the first
    k token ids (the kept tokens' places in the sorted order, not their ids), or spread over
    tokens a filter should have removed."""
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or probs.dim() != 1:
        return None
    kept = set((probs > 0).nonzero().flatten().tolist())
    drawn = set(draws.flatten().tolist())
    k = len(kept)
    if drawn <= kept or not drawn <= set(range(probs.numel())):
        return None
    if drawn <= set(range(k)) and kept != set(range(k)):
        return (f"every draw is one of the first {k} token ids, the places the {k} kept tokens have in the sorted "
                f"order: after filtering the sorted logits, put them back at their tokens' positions (scatter with "
                f"the sort's indices)",
                f"cada muestra es uno de los {k} primeros ids de token, los puestos que los {k} tokens conservados "
                f"tienen en el orden ordenado: tras filtrar los logits ordenados, devuélvelos a las posiciones de sus "
                f"tokens (scatter con los índices de la ordenación)")
    outside = sorted(drawn - kept)
    # A WHERE: many mistakes draw outside the kept set (the filtered logits discarded, a
    # filter that keeps too many, draws that ignore the probabilities and so widen the
    # nucleus), and which one it is, these draws alone do not say.
    return Where(f"tokens that the filter must remove are drawn ({outside[:6]}; only {sorted(kept)[:8]} may be): "
                 f"the draws come from a wider set of tokens than the filters keep",
                 f"salen tokens que el filtro debe quitar ({outside[:6]}; solo pueden salir {sorted(kept)[:8]}): "
                 f"las muestras salen de un conjunto de tokens más amplio que el que conservan los filtros")


def top_never_drawn(draws, probs) -> tuple[str, str] | None:
    """The most likely token, which every filter keeps, never drawn though many draws were."""
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or probs.dim() != 1:
        return None
    top = int(probs.argmax())
    if bool((draws == top).any()) or draws.numel() * probs[top].item() < 30:
        return None
    return (f"the most likely token ({top}, probability {probs[top].item():.2f}) is never drawn: the filter removes "
            "the first token of the sorted order, which it must always keep (a 'remove' mask shifted right with roll "
            "wraps its last column onto the first: shift with cumsum - probs, or clear column 0)",
            f"el token más probable ({top}, probabilidad {probs[top].item():.2f}) nunca sale: el filtro quita el "
            "primer token del orden ordenado, que siempre debe conservar (una máscara 'remove' desplazada con roll "
            "pasa su última columna a la primera: desplaza con cumsum - probs, o pon a False la columna 0)")


# Where a crashing sampler breaks: the one setting that makes a plain call crash. A filter
# that removes every token of a row, or a temperature applied as a power or a log, leaves
# torch.multinomial rows of NaN, and its own error names none of them.
CRASH_STAGES = (
    ({"temperature": 0.7},
     ("only a temperature (0.7, no top-k or top-p) makes the call fail, while a plain call works: divide the "
      "logits by it (logits / temperature); a power or a log of negative logits gives NaN",
      "solo una temperatura (0.7, sin top-k ni top-p) hace fallar la llamada, y una llamada simple funciona: "
      "divide los logits por ella (logits / temperature); una potencia o un log de logits negativos da NaN")),
    ({"top_k": 3},
     ("only top_k=3 makes the call fail, while a plain call works, so top-k leaves a row with no token: the "
      "threshold is each row's k-th largest value (logits.topk(k, dim=-1).values[:, -1:], not .indices) and "
      "only logits below it become -inf",
      "solo top_k=3 hace fallar la llamada, y una llamada simple funciona, así que top-k deja una fila sin "
      "ningún token: el umbral es el k-ésimo mayor valor de cada fila (logits.topk(k, dim=-1).values[:, -1:], "
      "no .indices) y solo los logits por debajo pasan a -inf")),
    ({"top_p": 0.5},
     ("only top_p=0.5 makes the call fail, while a plain call works, so top-p leaves a row with no token: sort "
      "each row (dim=-1), drop a token only when the probability of the tokens ranked above it reaches p "
      "(cumsum - probs >= p, so the first token always stays), and scatter back along dim=-1 with the sort's "
      "indices",
      "solo top_p=0.5 hace fallar la llamada, y una llamada simple funciona, así que top-p deja una fila sin "
      "ningún token: ordena cada fila (dim=-1), quita un token solo cuando la probabilidad de los que van por "
      "delante alcanza p (cumsum - probs >= p, así el primero siempre queda) y devuelve el orden a lo largo de "
      "dim=-1 con los índices de la ordenación")),
    # Last: a call at temperature 0 that fails while 0.7 works is the greedy case missing.
    ({"temperature": 0.0},
     ("only temperature=0 makes the call fail, while a plain call and temperature 0.7 work: temperature 0 means "
      "greedy, so return logits.argmax(dim=-1) when temperature == 0, before dividing by it (`temperature is 0` "
      "is False for 0.0)",
      "solo temperature=0 hace fallar la llamada, y una llamada simple y la temperatura 0.7 funcionan: la "
      "temperatura 0 significa voraz, así que devuelve logits.argmax(dim=-1) cuando temperature == 0, antes de "
      "dividir por ella (`temperature is 0` es False para 0.0)")),
)


def _crashes(student, logits, **kwargs) -> bool:
    try:
        student.call(SAMPLE, logits, generator_seed=0, **kwargs)
    except CheckFailure:
        return True
    return False


def naming_crash(student, failure):
    """``failure`` of a call to the student's code, naming sampling from raw logits when
    draws from positive logits (which cannot crash) follow logits / sum(logits), or else
    the one setting (temperature, top-k, top-p) that makes a plain call crash."""
    logits = torch.linspace(0.5, 3.0, 12, dtype=torch.float64)
    try:
        draws = student.call(SAMPLE, logits.expand(20_000, 12).contiguous(), generator_seed=0)
        if follows(draws, logits / logits.sum()):
            return failure.naming(LOGITS)
    except CheckFailure:
        pass
    mixed = torch.randn(16, 12, generator=torch.Generator().manual_seed(0)) * 2  # negative logits too
    if _crashes(student, mixed):
        return failure
    for kwargs, found in CRASH_STAGES:
        if _crashes(student, mixed, **kwargs):
            return failure.shaped(found, replace=True)
    return failure


def call(student, *args, **kwargs):
    """student.call, naming sampling from raw logits when the call fails."""
    try:
        return student.call(*args, **kwargs)
    except CheckFailure as failure:
        raise naming_crash(student, failure) from None
