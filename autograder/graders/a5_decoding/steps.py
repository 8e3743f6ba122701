"""Where a decoding loop first goes wrong: the first step whose token differs, and why.

Tokens that differ from the reference's are walked step by step, rows in order, to the
first (row, step) that differs. There the reference's own state is rebuilt (its prefix,
whether the row has finished) and the student's token is judged against it: a token after
a finished row that is not the padding, padding before the row finished, or, for greedy
decoding, a token that is not the model's most likely one (with its rank, and the
position of the decoder's output whose most likely token it is). Only run after a failed
check, so it costs nothing on correct code.
"""

import torch

from autograder.grading.reports import Where
from autograder.tokens import EOS, PAD, SOS


def _at(tokens, b, t):
    return int(tokens[b, t]) if t < tokens.size(1) else None


@torch.no_grad()
def first_step(got, want, model=None, src=None, greedy=False, alpha=None) -> tuple[str, str] | None:
    """(English, Spanish) on the first step where ``got`` (B, L) differs from ``want``;
    ``alpha``: beam search with that length penalty, whose scores are compared."""
    if not (isinstance(got, torch.Tensor) and got.dim() == 2 and got.size(0) == want.size(0)
            and not got.is_floating_point()):
        return None
    if got.size(1) == want.size(1) + 1 and torch.equal(got[:, 1:], want):
        return (f"every row starts with an extra token ({got[0, 0].item()}) and is otherwise right: return the tokens "
                "without the start column (sos_id)",
                f"cada fila empieza con un token de más ({got[0, 0].item()}) y el resto es correcto: devuelve los "
                "tokens sin la columna inicial (sos_id)")
    if alpha is not None and model is not None and src is not None:  # beams: whole hypotheses, by their scores
        for b in range(want.size(0)):
            if _output(got[b].tolist()) != _output(want[b].tolist()):
                return _scores(model, src[b:b + 1], got[b].tolist(), want[b].tolist(), alpha,
                               f"the first row that differs is row {b}", f"la primera fila que difiere es la {b}")
        return None
    for t in range(max(got.size(1), want.size(1))):
        for b in range(want.size(0)):
            g, w = _at(got, b, t), _at(want, b, t)
            if g == w:
                continue
            prefix = want[b, :t].tolist()
            where_en, where_es = f"step {t} of row {b}", f"el paso {t} de la fila {b}"
            head_en = f"the first token that differs is at {where_en} (after {prefix})"
            head_es = f"el primer token que difiere está en {where_es} (después de {prefix})"
            # Padding (or nothing) where the reference has stopped is no token after EOS: it is
            # the output running on, or stopping early, said below.
            if EOS in prefix and g not in (PAD, None):
                return (f"{head_en}: row {b} already produced EOS at step {prefix.index(EOS)}, so every later token "
                        f"must be pad_id ({PAD}), got {g}: finished rows are padded, not decoded further",
                        f"{head_es}: la fila {b} ya produjo EOS en el paso {prefix.index(EOS)}, así que cada token "
                        f"posterior debe ser pad_id ({PAD}), se obtuvo {g}: las filas terminadas se rellenan")
            if w is None:
                return Where(f"{head_en}: the output goes on where the reference has already stopped (every row "
                             "finished or max_len reached)",
                             f"{head_es}: la salida continúa donde la referencia ya ha parado (todas las filas "
                             "terminadas o max_len alcanzado)")
            if g is None:
                return (f"{head_en}: the output stops before the reference does: decode until every row has produced "
                        "EOS or max_len tokens",
                        f"{head_es}: la salida para antes que la referencia: decodifica hasta que cada fila haya "
                        "producido EOS o max_len tokens")
            if g == PAD:
                return Where(f"{head_en}: row {b} is padded although it has not produced EOS yet (expected {w})",
                             f"{head_es}: la fila {b} se rellena aunque aún no ha producido EOS (se esperaba {w})")
            if greedy and model is not None and src is not None:
                return _not_argmax(model, src[b:b + 1], prefix, g, w, head_en, head_es)
            return Where(f"{head_en}: got token {g}, expected {w}", f"{head_es}: se obtuvo el token {g}, se esperaba {w}")
    return None


def _not_argmax(model, src, prefix, g, w, head_en, head_es):
    memory, src_mask = model.encode(src)
    logits = model.decode(torch.tensor([[SOS, *prefix]]), memory, src_mask)[0]  # (t + 1, V)
    last = logits[-1]
    if not 0 <= g < last.numel():
        return Where(f"{head_en}: token {g} is outside the vocabulary 0..{last.numel() - 1}",
                     f"{head_es}: el token {g} está fuera del vocabulario 0..{last.numel() - 1}")
    rank = int((last > last[g]).sum()) + 1
    other = [p for p in range(logits.size(0) - 1) if int(logits[p].argmax()) == g]
    why_en = (f"; it is the most likely token at position {other[0]} of the decoder's output, not at the last: "
              "take the logits of the last position, logits[:, -1]") if other and rank > 1 else ""
    why_es = (f"; es el token más probable en la posición {other[0]} de la salida del decodificador, no en la "
              "última: toma los logits de la última posición, logits[:, -1]") if other and rank > 1 else ""
    if rank == 1:
        return (f"{head_en}: got {g}, the model's most likely token, but the reference decodes {w} there: the "
                "prefix or the source the model sees differs (the memory, the source mask, or the tokens fed back)",
                f"{head_es}: se obtuvo {g}, el token más probable del modelo, pero la referencia decodifica {w}: el "
                "prefijo o el origen que ve el modelo difieren (la memoria, la máscara de origen o los tokens "
                "realimentados)")
    found = (f"{head_en}: got {g}, the model's choice number {rank}, where greedy decoding takes its most likely "
             f"token, {w} (argmax of the last position's logits){why_en}",
             f"{head_es}: se obtuvo {g}, la opción número {rank} del modelo, donde la decodificación voraz toma el "
             f"token más probable, {w} (argmax de los logits de la última posición){why_es}")
    # A WHERE unless the token is the most likely one at another position (the logits of the
    # wrong position taken), which names the fix.
    return found if why_en else Where(*found)


def _output(tokens):
    """A row of output ids up to its first EOS (included); with no EOS, the padding at its
    end removed. A pad id before that is kept: a search may emit it as a word."""
    out = []
    for token in tokens:
        out.append(token)
        if token == EOS:
            return out
    while out and out[-1] == PAD:
        out.pop()
    return out


def _scores(model, src, got, want, alpha, head_en, head_es):
    """Beam search returns the finished hypothesis of highest log P / lp(n): compare both."""
    from autograder.graders.a5_decoding.decoders import lp

    def score(ids):
        memory, src_mask = model.encode(src)
        logp = model.decode(torch.tensor([[SOS, *ids[:-1]]]), memory, src_mask)[0].log_softmax(-1)
        total = float(logp.gather(-1, torch.tensor(ids)[:, None]).sum())
        return total, total / lp(len(ids), alpha)

    got, want = _output(got), _output(want)
    V = model.config.tgt_vocab_size
    if not got and want == [EOS]:
        return (f"{head_en}: the output row is empty where the reference's best hypothesis is EOS alone: EOS dropped "
                "from the output (a finished hypothesis keeps its EOS)",
                f"{head_es}: la fila está vacía donde la mejor hipótesis de la referencia es solo EOS: EOS eliminado "
                "de la salida (una hipótesis terminada conserva su EOS)")
    if not got or not all(0 <= t < V for t in got):
        return (f"{head_en}: the output row {got} is not a hypothesis of this vocabulary",
                f"{head_es}: la fila {got} no es una hipótesis de este vocabulario")
    (g_logp, g_score), (w_logp, w_score) = score(got), score(want)
    en = (f"{head_en}: the output {got} scores log P / lp(n) = {g_logp:.4f} / lp({len(got)}) = {g_score:.4f}, "
          f"the reference's {want} scores {w_logp:.4f} / lp({len(want)}) = {w_score:.4f} (lp(n) = ((5 + n) / 6)^"
          f"{alpha}, n counting the generated tokens, EOS included)")
    es = (f"{head_es}: la salida {got} puntúa log P / lp(n) = {g_logp:.4f} / lp({len(got)}) = {g_score:.4f}, "
          f"la de la referencia {want} puntúa {w_logp:.4f} / lp({len(want)}) = {w_score:.4f} (lp(n) = ((5 + n) / 6)^"
          f"{alpha}, n cuenta los tokens generados, EOS incluido)")
    if g_score < w_score - 1e-9:
        return (f"{en}: a higher-scoring finished hypothesis was lost: it left the beam too early, or the search "
                "stopped or compared hypotheses by another score",
                f"{es}: se perdió una hipótesis terminada de mayor puntuación: salió del haz demasiado pronto, o la "
                "búsqueda paró o comparó las hipótesis con otra puntuación")
    if got[-1] != EOS:
        # Scoring at least as high as the reference's best, without EOS: either it is no
        # finished hypothesis, or it is one (at max_len) that a beam of beam_size never holds.
        return (f"{en}: the output does not end with EOS and scores at least as high as the reference's best: "
                "either it is not a finished hypothesis (cut short, or EOS dropped from the output), or it reached "
                "max_len in a search that keeps more hypotheses than beam_size",
                f"{es}: la salida no acaba en EOS y puntúa al menos como la mejor de la referencia: o no es una "
                "hipótesis terminada (cortada, o con el EOS eliminado de la salida), o llegó a max_len en una "
                "búsqueda que conserva más hipótesis que beam_size")
    return en, es
