"""Public tests for decoding.py and beam.py, on a tiny scripted model.

Run them with ``pytest assignments/a5_decoding``.
"""

import torch

from beam import beam_search
from decoding import greedy_decode, sample_decode

PAD, SOS, EOS, A, B, C = 0, 1, 2, 3, 4, 5
NAMES = {PAD: "PAD", SOS: "SOS", EOS: "EOS", A: "A", B: "B", C: "C"}


class BigramModel:
    """P(next | last token) from a fixed table; encode/decode like the course's Transformer."""

    def __init__(self, table):
        self.logp = torch.tensor(table).log()  # (V, V): row = last token

    def encode(self, src):
        return torch.zeros(src.size(0), src.size(1), 1), torch.ones(src.size(0), 1, 1, src.size(1), dtype=torch.bool)

    def decode(self, tgt, memory, src_mask):
        return self.logp[tgt]  # (B, T, V)


# From SOS: A 0.55, B 0.45. After A: EOS only 0.4. After B: EOS 0.9.
# Greedy picks A then EOS (0.55 x 0.4 = 0.22); B then EOS is better (0.45 x 0.9 = 0.405).
TABLE = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.55, 0.45],  # after SOS
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after EOS (unused)
    [0.0, 0.0, 0.4, 0.3, 0.3],  # after A
    [0.0, 0.0, 0.9, 0.05, 0.05],  # after B
]


class CountdownModel:
    """Row b emits A src[b, 0] times, then EOS: rows of one batch finish at different steps.
    The next token depends on the position, so the decoder must see the whole prefix."""

    def encode(self, src):
        return src[:, :1, None].float(), torch.ones(src.size(0), 1, 1, src.size(1), dtype=torch.bool)

    def decode(self, tgt, memory, src_mask):
        n = memory[:, 0, 0].long()  # (B,): how many A's each row emits
        position = torch.arange(tgt.size(1))[None, :]  # (1, T)
        nxt = torch.where(position < n[:, None], A, EOS)  # (B, T)
        return torch.nn.functional.one_hot(nxt, 8).float() * 10  # (B, T, V): ids 5..7 are never chosen


COUNTDOWN_SRC = torch.tensor([[1, 7], [3, 7]])  # row 0: A EOS; row 1: A A A EOS
COUNTDOWN_OUT = [[A, EOS, PAD, PAD], [A, A, A, EOS]]


def _countdown_hint(got):
    if _starts_with_sos(got):
        return SOS_HINT
    if len(got) == 2 and got[0][:2] == [A, EOS] and got[1][:3] == [A, A, A] and len(got[1]) == 3:
        return ("Row 1 was cut when row 0 finished: keep decoding until every row has emitted EOS (or max_len).",
                "La fila 1 se cortó cuando terminó la fila 0: sigue decodificando hasta que todas las filas hayan "
                "emitido EOS (o max_len).")
    if got and all(set(row) == {A} for row in got):
        return ("Every row is A again and again: the model's next token depends on the whole prefix, so give "
                "decoder.step all the tokens so far, not only the last one.",
                "Todas las filas son A una y otra vez: el siguiente token del modelo depende de todo el prefijo, así "
                "que pasa a decoder.step todos los tokens hasta ahora, no solo el último.")
    if len(got) == 2 and got[0][:2] == [A, EOS] and got[0][2:] and set(got[0][2:]) != {PAD}:
        return (f"After its EOS, row 0 holds {got[0][2:]}: a finished row is padded with pad_id={PAD}.",
                f"Tras su EOS, la fila 0 contiene {got[0][2:]}: una fila terminada se rellena con pad_id={PAD}.")
    return ("Each row stops at its own EOS, padded with pad_id until the longest row ends.",
            "Cada fila para en su propio EOS, rellenada con pad_id hasta que acabe la fila más larga.")


def test_rows_finish_at_their_own_step():
    """In a batch whose rows end at different steps, does each row stop at its own EOS, padded after it?"""
    got = greedy_decode(CountdownModel(), COUNTDOWN_SRC, max_len=8, sos_id=SOS, eos_id=EOS, pad_id=PAD).tolist()
    hint = _countdown_hint(got)
    assert got == COUNTDOWN_OUT, (
        f"greedy_decode gave {_show(got)}, expected {_show(COUNTDOWN_OUT)}: row 0 emits A then EOS, row 1 A A A "
        f"then EOS, and row 0 is padded meanwhile. {hint[0]} / "
        f"greedy_decode dio {_show(got)}, se esperaba {_show(COUNTDOWN_OUT)}: la fila 0 emite A y EOS, la fila 1 "
        f"A A A y EOS, y mientras tanto la fila 0 se rellena. {hint[1]}"
    )


def test_beam_search_rows_finish_at_their_own_step():
    """Does beam search return each row's best hypothesis up to its EOS, padded with pad_id (not EOS) after it?"""
    got = beam_search(CountdownModel(), COUNTDOWN_SRC, beam_size=2, max_len=8, sos_id=SOS, eos_id=EOS,
                      pad_id=PAD).tolist()
    hint = _countdown_hint(got)
    assert got == COUNTDOWN_OUT, (
        f"beam_search(beam_size=2) gave {_show(got)}, expected {_show(COUNTDOWN_OUT)}: every step has one token "
        f"of probability ~1, so the best hypotheses are the greedy ones. {hint[0]} / "
        f"beam_search(beam_size=2) dio {_show(got)}, se esperaba {_show(COUNTDOWN_OUT)}: en cada paso un token "
        f"tiene probabilidad ~1, así que las mejores hipótesis son las voraces. {hint[1]}"
    )


class LetterModel(CountdownModel):
    """Row b emits token src[b, 1] src[b, 0] times, then EOS."""

    def encode(self, src):
        return src[:, None, :2].float(), torch.ones(src.size(0), 1, 1, src.size(1), dtype=torch.bool)

    def decode(self, tgt, memory, src_mask):
        n, letter = memory[:, 0, 0].long(), memory[:, 0, 1].long()  # (B,), (B,)
        position = torch.arange(tgt.size(1))[None, :]  # (1, T)
        nxt = torch.where(position < n[:, None], letter[:, None], EOS)  # (B, T)
        return torch.nn.functional.one_hot(nxt, 8).float() * 10  # (B, T, V)


def test_rows_are_padded_to_the_longest_row():
    """When the shorter row has the larger ids (C EOS beside A A A EOS), is the output as wide
    as the longest row, for greedy and beam search alike?"""
    src, want = torch.tensor([[1, C], [3, A]]), [[C, EOS, PAD, PAD], [A, A, A, EOS]]
    for name, decode in (("greedy_decode", greedy_decode), ("beam_search", beam_search)):
        options = {"beam_size": 2} if name == "beam_search" else {}
        got = decode(LetterModel(), src, max_len=8, sos_id=SOS, eos_id=EOS, pad_id=PAD, **options).tolist()
        assert got == want, (
            f"{name} gave {_show(got)}, expected {_show(want)}: row 0 emits C then EOS, row 1 A A A then EOS. The "
            "output is as wide as the longest row, max(len(h) for h in rows); max(rows) compares the ids, not the "
            f"lengths / {name} dio {_show(got)}, se esperaba {_show(want)}: la fila 0 emite C y EOS, la fila 1 A A A "
            "y EOS. La salida es tan ancha como la fila más larga, max(len(h) for h in filas); max(filas) compara los "
            "ids, no las longitudes")


# After EOS the model only ever predicts EOS again, at probability 1: a hypothesis that
# were extended past its EOS would lose nothing, and the length penalty would favour it.
EOS_FOREVER = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.6, 0.4],  # after SOS
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after EOS
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after A
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after B
]


def test_beam_search_stops_a_hypothesis_at_its_eos():
    """Does a hypothesis leave the beam when it emits EOS, so nothing but pad follows it?"""
    got = beam_search(BigramModel(EOS_FOREVER), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD).tolist()
    assert got == [[A, EOS]], (
        f"beam_search(beam_size=2, max_len=5) gave {_show(got)}, expected {_show([[A, EOS]])}: A (0.6) then EOS "
        "finishes the best hypothesis. A hypothesis that emitted EOS is finished: set it aside and stop extending "
        "it (here the model would happily add EOS after EOS, and the length penalty would reward the longer "
        "copy). / "
        f"beam_search(beam_size=2, max_len=5) dio {_show(got)}, se esperaba {_show([[A, EOS]])}: A (0,6) y luego "
        "EOS termina la mejor hipótesis. Una hipótesis que ha emitido EOS ha terminado: apártala y no la sigas "
        "extendiendo (aquí el modelo añadiría EOS tras EOS, y la penalización por longitud premiaría la copia "
        "más larga)."
    )


# From SOS: EOS 0.5, A 0.3, B 0.2; after A or B only EOS. With beam_size=3 the first step
# finishes "EOS" (log 0.5) and keeps A (log 0.3) and B (log 0.2) alive; "A EOS" then scores
# log 0.3 / lp(2), below "EOS" alone, log 0.5 / lp(1). Giving the live hypotheses the scores
# of the first candidates (the finished one's among them) would make "A EOS" win.
EOS_FIRST = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.5, 0.3, 0.2],  # after SOS
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after EOS (unused)
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after A
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after B
]


def test_beam_search_keeps_each_live_hypothesis_score():
    """When a candidate finishes at a step, do the hypotheses that go on keep their own scores?"""
    got = beam_search(BigramModel(EOS_FIRST), torch.ones(1, 3, dtype=torch.long), beam_size=3, max_len=5,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD).tolist()
    assert got == [[EOS]], (
        f"beam_search(beam_size=3) gave {_show(got)}, expected {_show([[EOS]])}: EOS at once scores log 0.5 / lp(1) "
        "= -0.69, better than A EOS, log 0.3 / lp(2) = -1.10. Each live hypothesis must carry its own summed "
        "log-probability: after setting the finished candidates aside, take the scores of the ones that go on, not "
        "the first values of the top-k. / "
        f"beam_search(beam_size=3) dio {_show(got)}, se esperaba {_show([[EOS]])}: EOS de inmediato puntúa "
        "log 0,5 / lp(1) = -0,69, mejor que A EOS, log 0,3 / lp(2) = -1,10. Cada hipótesis viva debe llevar su "
        "propia suma de log-probabilidades: tras apartar las candidatas terminadas, toma las puntuaciones de las "
        "que siguen, no los primeros valores del top-k."
    )


def test_sampling_with_top_k_1_is_greedy():
    """Does sample_decode(top_k=1) pass top_k on to the sampler, so that it always takes the argmax?"""
    g = torch.Generator().manual_seed(1)
    got = sample_decode(BigramModel(TABLE), torch.ones(32, 3, dtype=torch.long), max_len=10, sos_id=SOS, eos_id=EOS,
                        pad_id=PAD, top_k=1, generator=g).tolist()
    assert got == [[A, EOS]] * 32, (
        f"sample_decode(top_k=1) gave {len(set(map(tuple, got)))} different rows over 32 (first {_show(got[:1])}), "
        f"expected {_show([[A, EOS]])} for every row: with top_k=1 only the most likely token may be drawn. Pass "
        "temperature, top_k and top_p on to sample_next_token by name (sample_next_token(logits, "
        "temperature=temperature, top_k=top_k, top_p=top_p, generator=generator)). / "
        f"sample_decode(top_k=1) dio {len(set(map(tuple, got)))} filas distintas de 32 (la primera "
        f"{_show(got[:1])}), se esperaba {_show([[A, EOS]])} en todas: con top_k=1 solo puede salir el token más "
        "probable. Pasa temperature, top_k y top_p a sample_next_token por nombre."
    )


def test_finished_rows_are_filled_with_the_given_pad_id():
    """With pad_id=7 (not 0), do greedy, sampled and beam decoding all pad finished rows with 7?"""
    want = [[A, EOS, 7, 7], [A, A, A, EOS]]
    g = torch.Generator().manual_seed(0)
    runs = {
        "greedy_decode": lambda: greedy_decode(CountdownModel(), COUNTDOWN_SRC, max_len=8, sos_id=SOS, eos_id=EOS,
                                               pad_id=7),
        "sample_decode(top_k=1)": lambda: sample_decode(CountdownModel(), COUNTDOWN_SRC, max_len=8, sos_id=SOS,
                                                        eos_id=EOS, pad_id=7, top_k=1, generator=g),
        "beam_search(beam_size=2)": lambda: beam_search(CountdownModel(), COUNTDOWN_SRC, beam_size=2, max_len=8,
                                                        sos_id=SOS, eos_id=EOS, pad_id=7),
    }
    for name, run in runs.items():
        got = run().tolist()
        assert got == want, (
            f"{name} with pad_id=7 gave {got}, expected {want}: row 0 ends at its EOS and is filled with the pad_id "
            "argument, 7. If you see 0 there, pad_id is not passed on (a helper's default pad_id=0 is used). / "
            f"{name} con pad_id=7 dio {got}, se esperaba {want}: la fila 0 acaba en su EOS y se rellena con el "
            "argumento pad_id, 7. Si ves 0 ahí, pad_id no se pasa (se usa el pad_id=0 por defecto de una función "
            "auxiliar)."
        )


# From SOS: A 0.52, B 0.48. After B: EOS. After A: C 0.9, then after C: EOS 0.9.
# B EOS has probability 0.48; A C EOS 0.52 x 0.9 x 0.9 = 0.42: log-probabilities (over the
# length penalty too) prefer B EOS, while adding up probabilities (0.48 + 1 against
# 0.52 + 0.9 + 0.9) would prefer the longer one.
SUM_TABLE = [
    [1 / 6] * 6,  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.52, 0.48, 0.0],  # after SOS
    [1 / 6] * 6,  # after EOS (unused)
    [0.0, 0.0, 0.1, 0.0, 0.0, 0.9],  # after A
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],  # after B
    [0.0, 0.0, 0.9, 0.0, 0.0, 0.1],  # after C
]


def test_beam_search_adds_log_probabilities():
    """Does a beam of 2 prefer B EOS (probability 0.48) to A C EOS (0.42), scoring by summed log-probabilities?"""
    got = beam_search(BigramModel(SUM_TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD).tolist()
    if got == [[A, C, EOS]]:
        hint = ("That is the hypothesis with the larger sum of probabilities: add log-probabilities "
                "(log_softmax), which multiplies the probabilities.",
                "Es la hipótesis con mayor suma de probabilidades: suma log-probabilidades (log_softmax), lo que "
                "multiplica las probabilidades.")
    else:
        hint = ("Score a hypothesis by the sum of its tokens' log-probabilities over the length penalty.",
                "Puntúa una hipótesis con la suma de las log-probabilidades de sus tokens entre la penalización por "
                "longitud.")
    assert got == [[B, EOS]], (
        f"beam_search(beam_size=2) gave {_show(got)}, expected {_show([[B, EOS]])}: B EOS has probability 0.48, "
        f"A C EOS 0.52 × 0.9 × 0.9 = 0.42. {hint[0]} / "
        f"beam_search(beam_size=2) dio {_show(got)}, se esperaba {_show([[B, EOS]])}: B EOS tiene probabilidad "
        f"0,48, A C EOS 0,52 × 0,9 × 0,9 = 0,42. {hint[1]}"
    )


def _show(rows):
    """[[3, 2], [3, 2]] -> "[[3, 2], [3, 2]] (A EOS | A EOS)", for the messages."""
    return f"{rows} ({' | '.join(' '.join(NAMES.get(t, str(t)) for t in row) for row in rows)})"


def _starts_with_sos(rows):
    return bool(rows) and all(row[:1] == [SOS] for row in rows)


SOS_HINT = ("Every row starts with SOS=1: return only the generated tokens, without the starting <sos> column.",
            "Todas las filas empiezan por SOS=1: devuelve solo los tokens generados, sin la columna inicial de <sos>.")


def _greedy_hint(got):
    if _starts_with_sos(got):
        return SOS_HINT
    if got and all(row[:2] == [A, EOS] and len(row) > 2 for row in got):
        return ("Each row is right up to its EOS but decoding went on: stop as soon as every row has emitted EOS.",
                "Cada fila está bien hasta su EOS, pero la decodificación siguió: para en cuanto todas las filas "
                "hayan emitido EOS.")
    if got and all(row[:2] == [A, PAD] for row in got):
        return ("The EOS itself came out as PAD: a row keeps its own EOS; only the tokens after it become pad_id.",
                "El propio EOS salió como PAD: cada fila conserva su EOS; solo los tokens posteriores pasan a ser "
                "pad_id.")
    if got and any(row[:1] == [B] for row in got):
        return ("B (0.45) is less likely than A (0.55): greedy decoding takes the argmax at every step (temperature "
                "0), it does not sample.",
                "B (0,45) es menos probable que A (0,55): la decodificación voraz toma el argmax en cada paso "
                "(temperatura 0), no muestrea.")
    if got and all(row == [A] for row in got):
        return ("EOS is missing: a row ends with its EOS, which stays in the output.",
                "Falta EOS: cada fila termina con su EOS, que se queda en la salida.")
    return ("Look at greedy_decode and sample_decode: with temperature 0 every step takes the argmax of the logits "
            "that decoder.step gives for the last position.",
            "Revisa greedy_decode y sample_decode: con temperatura 0 cada paso toma el argmax de los logits que "
            "da decoder.step para la última posición.")


def test_greedy_stops_at_eos():
    """Does greedy decoding take A then EOS, and stop there?"""
    out = greedy_decode(BigramModel(TABLE), torch.ones(2, 3, dtype=torch.long), max_len=10, sos_id=SOS, eos_id=EOS,
                        pad_id=PAD)
    got = out.tolist()
    hint = _greedy_hint(got)
    assert got == [[A, EOS], [A, EOS]], (
        f"greedy_decode gave {_show(got)}, expected {_show([[A, EOS], [A, EOS]])}: from SOS the most likely token "
        f"is A (0.55), then EOS (0.4), and decoding stops there. {hint[0]} / "
        f"greedy_decode dio {_show(got)}, se esperaba {_show([[A, EOS], [A, EOS]])}: tras SOS el token más probable "
        f"es A (0,55), luego EOS (0,4), y ahí se para. {hint[1]}"
    )


def test_max_len_is_respected_and_finished_rows_are_padded():
    """Is the output at most max_len long, with pad after each row's EOS?"""
    table = [row[:] for row in TABLE]
    table[3] = [0.0, 0.0, 0.1, 0.8, 0.1]  # after A, mostly A again: long outputs
    out = greedy_decode(BigramModel(table), torch.ones(1, 3, dtype=torch.long), max_len=4, sos_id=SOS, eos_id=EOS,
                        pad_id=PAD)
    got = out.tolist()
    if _starts_with_sos(got):
        hint = SOS_HINT
    elif got and len(got[0]) > 4:
        hint = ("More than max_len tokens came out: max_len=4 is the most tokens generated per row.",
                "Han salido más de max_len tokens: max_len=4 es el máximo de tokens generados por fila.")
    elif got and 0 < len(got[0]) < 4:
        hint = ("Too few tokens: max_len counts the generated tokens (EOS included, SOS not), so 4 may come out.",
                "Faltan tokens: max_len cuenta los tokens generados (EOS incluido, SOS no), así que pueden salir 4.")
    else:
        hint = ("Look at how many steps your loop runs and what each step appends.",
                "Revisa cuántos pasos da tu bucle y qué añade cada paso.")
    assert got == [[A, A, A, A]], (
        f"greedy_decode with max_len=4 gave {_show(got)}, expected {_show([[A, A, A, A]])}: after A the most likely "
        f"token is A again, so the row is cut at max_len=4 tokens without an EOS. {hint[0]} / "
        f"greedy_decode con max_len=4 dio {_show(got)}, se esperaba {_show([[A, A, A, A]])}: tras A lo más probable "
        f"es otra A, así que la fila se corta en max_len=4 tokens sin EOS. {hint[1]}"
    )
    g = torch.Generator().manual_seed(3)
    out = sample_decode(BigramModel(TABLE), torch.ones(64, 3, dtype=torch.long), max_len=6, sos_id=SOS, eos_id=EOS,
                        pad_id=PAD, generator=g)
    hint = SOS_HINT if _starts_with_sos(out.tolist()) else ("Stop after max_len steps at the latest.",
                                                            "Para como muy tarde tras max_len pasos.")
    assert out.size(1) <= 6, (
        f"sample_decode with max_len=6 gave shape {tuple(out.shape)}, expected at most 6 columns (B, L <= max_len). "
        f"{hint[0]} / "
        f"sample_decode con max_len=6 dio forma {tuple(out.shape)}, se esperaban como mucho 6 columnas "
        f"(B, L <= max_len). {hint[1]}"
    )
    for i, row in enumerate(out.tolist()):
        if EOS in row:
            after = row[row.index(EOS) + 1:]
            assert all(t == PAD for t in after), (
                f"sample_decode row {i} is {row}: after its EOS={EOS} it holds {after}, expected only PAD={PAD}. "
                "Tokens after <eos> were not replaced by <pad>: once a row has emitted EOS it is finished, and "
                "every later token of that row must be pad_id (the other rows keep decoding). / "
                f"La fila {i} de sample_decode es {row}: tras su EOS={EOS} contiene {after}, se esperaba solo "
                f"PAD={PAD}. Los tokens tras <eos> no se han cambiado por <pad>: una fila que ha emitido EOS ha "
                "terminado y todos sus tokens posteriores deben ser pad_id (las demás filas siguen decodificando)."
            )


def test_beam_search_finds_the_better_sentence():
    """Does a beam of 2 find B EOS (probability 0.405), which greedy misses?"""
    out = beam_search(BigramModel(TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5, sos_id=SOS,
                      eos_id=EOS, pad_id=PAD, length_penalty=0.0)
    got = out.tolist()
    if _starts_with_sos(got):
        hint = SOS_HINT
    elif got == [[A, EOS]]:
        hint = ("That is greedy's answer (0.55 x 0.4 = 0.22): keep the beam_size best hypotheses at every step "
                "(the best of all k x V extensions, each scored with the running sum of log-probabilities), and "
                "answer with the finished hypothesis of highest score, not the first or last one set aside.",
                "Es la respuesta voraz (0,55 x 0,4 = 0,22): conserva las beam_size mejores hipótesis en cada paso "
                "(las mejores de las k x V extensiones, puntuadas con la suma acumulada de log-probabilidades) y "
                "responde con la hipótesis terminada de mayor puntuación, no con la primera o la última apartada.")
    elif got == [[B]]:
        hint = ("EOS is missing: a finished hypothesis keeps its EOS.",
                "Falta EOS: una hipótesis terminada conserva su EOS.")
    else:
        hint = ("Look at how hypotheses are extended, scored and set aside when they emit EOS.",
                "Revisa cómo se extienden, puntúan y apartan las hipótesis cuando emiten EOS.")
    assert got == [[B, EOS]], (
        f"beam_search(beam_size=2, length_penalty=0) gave {_show(got)}, expected {_show([[B, EOS]])}, the most "
        f"likely sentence (0.45 x 0.9 = 0.405). {hint[0]} / "
        f"beam_search(beam_size=2, length_penalty=0) dio {_show(got)}, se esperaba {_show([[B, EOS]])}, la frase "
        f"más probable (0,45 x 0,9 = 0,405). {hint[1]}"
    )


def test_beam_of_one_is_greedy():
    """Is beam search with beam_size=1 the same as greedy decoding?"""
    src = torch.ones(1, 3, dtype=torch.long)
    beam = beam_search(BigramModel(TABLE), src, beam_size=1, max_len=5, sos_id=SOS, eos_id=EOS, pad_id=PAD)
    greedy = greedy_decode(BigramModel(TABLE), src, 5, SOS, EOS, PAD)
    if greedy.tolist() == [[A, EOS]]:
        hint = ("greedy_decode is right here, so look at beam_search.",
                "Aquí greedy_decode está bien, así que revisa beam_search.")
    else:
        hint = ("greedy_decode is wrong too: fix it first (see test_greedy_stops_at_eos).",
                "greedy_decode también está mal: arréglalo antes (mira test_greedy_stops_at_eos).")
    assert beam.tolist() == greedy.tolist(), (
        f"beam_search(beam_size=1) gave {_show(beam.tolist())} but greedy_decode gave {_show(greedy.tolist())}; "
        f"both should be {_show([[A, EOS]])}: with one hypothesis, beam search keeps the best extension at every "
        f"step, like greedy. {hint[0]} / "
        f"beam_search(beam_size=1) dio {_show(beam.tolist())} pero greedy_decode dio {_show(greedy.tolist())}; "
        f"los dos deberían ser {_show([[A, EOS]])}: con una sola hipótesis, la búsqueda en haz se queda con la "
        f"mejor extensión en cada paso, como la voraz. {hint[1]}"
    )


# A table on which the length penalty decides (alpha = 1, max_len = 4): A A A A, cut at
# max_len, scores (log 0.8 + 3 log 8/13) / lp(4) = -1.1197 and A B EOS scores
# (log 0.8 + log 5/13 + log 8/11) / lp(3) = -1.1228, so A A A A wins. Scored without the
# penalty, with it multiplied, with <sos> counted in the length, or from probabilities
# instead of log-probabilities, A B EOS wins instead.
PENALTY_TABLE = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.8, 0.2],  # after SOS
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after EOS (unused)
    [0.0, 0.0, 0.0, 8 / 13, 5 / 13],  # after A: never EOS
    [0.0, 0.0, 8 / 11, 2 / 11, 1 / 11],  # after B
]


def test_beam_search_scores_log_probability_over_the_length_penalty():
    """With a beam wide enough to keep every hypothesis, is the answer the finished one with
    the best sum of log-probabilities divided by lp(n), n the generated tokens, EOS included?"""
    out = beam_search(BigramModel(PENALTY_TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=16, max_len=4,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD, length_penalty=1.0)
    got, want = out.tolist(), [[A, A, A, A]]
    if _starts_with_sos(got):
        hint = SOS_HINT
    elif got == [[A, B, EOS]]:
        hint = ("A B EOS wins if the score is the plain sum of log-probabilities, or that sum multiplied by lp, "
                "or divided by an lp whose length counts <sos>, or built from probabilities: divide the summed "
                "log-probabilities by lp(n), n = generated tokens with EOS.",
                "A B EOS gana si la puntuación es la suma de log-probabilidades sin más, o multiplicada por lp, o "
                "dividida por un lp cuya longitud cuenta <sos>, o hecha con probabilidades: divide la suma de "
                "log-probabilidades entre lp(n), n = tokens generados con EOS.")
    elif got in ([[B, EOS]], [[EOS]]):
        hint = ("That is the first hypothesis to finish (EOS alone has probability 0, score -inf, but a beam of 16 "
                "keeps it at step 1; B EOS finishes at step 2): keep searching while hypotheses are alive and "
                "answer with the best finished one; a hypothesis that reaches max_len is finished too.",
                "Es la primera hipótesis que termina (EOS sola tiene probabilidad 0, puntuación -inf, pero un haz de "
                "16 la conserva en el paso 1; B EOS termina en el paso 2): sigue mientras queden hipótesis vivas y "
                "responde con la mejor terminada; una hipótesis que llega a max_len también termina.")
    else:
        hint = ("Look at how finished hypotheses are scored and how the best is chosen.",
                "Revisa cómo se puntúan las hipótesis terminadas y cómo se elige la mejor.")
    assert got == want, (
        f"beam_search(beam_size=16, max_len=4, length_penalty=1) gave {_show(got)}, expected {_show(want)} "
        f"(score -1.1197, against -1.1228 for A B EOS). {hint[0]} / "
        f"beam_search(beam_size=16, max_len=4, length_penalty=1) dio {_show(got)}, se esperaba {_show(want)} "
        f"(puntuación -1,1197, frente a -1,1228 de A B EOS). {hint[1]}"
    )


class ShiftedBigramModel(BigramModel):
    """TABLE's probabilities as logits that are not normalised: after A every logit is 5
    higher. The softmax is the same, so every decoding must give the same tokens."""

    def __init__(self, table):
        super().__init__(table)
        self.logp[A] += 5.0


def test_beam_search_normalises_the_logits():
    """Does beam search add log_softmax of the logits, not the raw logits, which a model need not normalise?"""
    got = beam_search(ShiftedBigramModel(TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD, length_penalty=0.0).tolist()
    assert got == [[B, EOS]], (
        f"beam_search(beam_size=2, length_penalty=0) gave {_show(got)}, expected {_show([[B, EOS]])} (probability "
        "0.45 x 0.9 = 0.405), as with the normalised table: here the model's logits after A are all 5 higher, "
        "which changes no probability. Raw logits summed step after step favour the hypotheses that go through A: "
        "add decoder.step(...).log_softmax(dim=-1) to the scores. / "
        f"beam_search(beam_size=2, length_penalty=0) dio {_show(got)}, se esperaba {_show([[B, EOS]])} "
        "(probabilidad 0,45 x 0,9 = 0,405), como con la tabla normalizada: aquí los logits del modelo tras A son "
        "todos 5 más altos, lo que no cambia ninguna probabilidad. Sumar los logits sin normalizar paso a paso "
        "favorece las hipótesis que pasan por A: suma decoder.step(...).log_softmax(dim=-1) a las puntuaciones."
    )


# From SOS: EOS 0.4, A 0.6. After A: EOS 0.1, C 0.9. After C: EOS. With beam_size=2, "EOS"
# and "A EOS" finish by step 2, yet "A C EOS" (0.54) is still alive and better than both.
LATE_TABLE = [
    [1 / 6] * 6,  # after PAD (unused)
    [0.0, 0.0, 0.4, 0.6, 0.0, 0.0],  # after SOS
    [1 / 6] * 6,  # after EOS (unused)
    [0.0, 0.0, 0.1, 0.0, 0.0, 0.9],  # after A
    [1 / 6] * 6,  # after B (unused)
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],  # after C
]


def test_beam_search_goes_on_while_a_hypothesis_is_alive():
    """Once beam_size hypotheses have finished, does the search go on with the live ones, which may still win?"""
    got = beam_search(BigramModel(LATE_TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=5,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD, length_penalty=0.0).tolist()
    if got == [[EOS]]:
        hint = ("EOS (0.4) and A EOS (0.06) had finished when the search stopped, but A C was still alive: stop "
                "when no hypothesis is alive (or at max_len), not when beam_size have finished.",
                "EOS (0,4) y A EOS (0,06) habían terminado cuando paró la búsqueda, pero A C seguía viva: para "
                "cuando no quede ninguna hipótesis viva (o en max_len), no cuando hayan terminado beam_size.")
    else:
        hint = ("Keep extending the live hypotheses until none is left, then answer with the best finished one.",
                "Sigue extendiendo las hipótesis vivas hasta que no quede ninguna y responde con la mejor terminada.")
    assert got == [[A, C, EOS]], (
        f"beam_search(beam_size=2, length_penalty=0) gave {_show(got)}, expected {_show([[A, C, EOS]])} "
        f"(probability 0.6 x 0.9 x 1 = 0.54, against 0.4 for EOS alone). {hint[0]} / "
        f"beam_search(beam_size=2, length_penalty=0) dio {_show(got)}, se esperaba {_show([[A, C, EOS]])} "
        f"(probabilidad 0,6 x 0,9 x 1 = 0,54, frente a 0,4 de EOS sola). {hint[1]}"
    )


# From SOS: A 0.5, B 0.5. After B: EOS. After A: A 0.9, EOS 0.1. With alpha = 1 and
# max_len = 3, B EOS scores log 0.5 / lp(2) = -0.594 and A A A (cut at max_len)
# (log 0.5 + 2 log 0.9) / lp(3) = -0.678. Dividing the live scores by lp at every step, so
# that the penalty compounds, lifts A A A above B EOS.
COMPOUND_TABLE = [
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after PAD (unused)
    [0.0, 0.0, 0.0, 0.5, 0.5],  # after SOS
    [0.2, 0.2, 0.2, 0.2, 0.2],  # after EOS (unused)
    [0.0, 0.0, 0.1, 0.9, 0.0],  # after A
    [0.0, 0.0, 1.0, 0.0, 0.0],  # after B
]


def test_beam_search_applies_the_length_penalty_once():
    """Are live hypotheses ranked by their summed log-probability, with lp applied once, when one finishes?"""
    got = beam_search(BigramModel(COMPOUND_TABLE), torch.ones(1, 3, dtype=torch.long), beam_size=2, max_len=3,
                      sos_id=SOS, eos_id=EOS, pad_id=PAD, length_penalty=1.0).tolist()
    if got == [[A, A, A]]:
        hint = ("A A A wins when the live scores are divided by lp at every step, so the penalty compounds: keep "
                "the plain sum of log-probabilities for live hypotheses and divide by lp(n) only when one finishes.",
                "A A A gana cuando las puntuaciones vivas se dividen entre lp en cada paso y la penalización se "
                "acumula: guarda la suma de log-probabilidades sin más para las hipótesis vivas y divide entre "
                "lp(n) solo cuando una termina.")
    else:
        hint = ("Score a finished hypothesis by its summed log-probabilities over lp(n), n its generated tokens.",
                "Puntúa una hipótesis terminada con la suma de sus log-probabilidades entre lp(n), n sus tokens "
                "generados.")
    assert got == [[B, EOS]], (
        f"beam_search(beam_size=2, max_len=3, length_penalty=1) gave {_show(got)}, expected {_show([[B, EOS]])} "
        f"(score log 0.5 / lp(2) = -0.594, against -0.678 for A A A cut at max_len). {hint[0]} / "
        f"beam_search(beam_size=2, max_len=3, length_penalty=1) dio {_show(got)}, se esperaba {_show([[B, EOS]])} "
        f"(puntuación log 0,5 / lp(2) = -0,594, frente a -0,678 de A A A cortada en max_len). {hint[1]}"
    )


def test_sampled_decoding_divides_by_the_temperature_once():
    """At temperature 0.5, is the first token of 4,000 sampled rows A about 60 % of the time,
    as softmax(log [0.55, 0.45] / 0.5) gives?"""
    generator = torch.Generator().manual_seed(0)
    out = sample_decode(BigramModel(TABLE), torch.ones(4000, 3, dtype=torch.long), 1, SOS, EOS, PAD,
                        temperature=0.5, generator=generator)
    share = (out[:, 0] == A).double().mean().item()
    want = 0.55 ** 2 / (0.55 ** 2 + 0.45 ** 2)
    if abs(share - 0.55) < 0.035:
        hint = ("That is temperature 1: divide the logits by the temperature before sampling.",
                "Eso es temperatura 1: divide los logits entre la temperatura antes de muestrear.")
    elif abs(share - 0.55 ** 4 / (0.55 ** 4 + 0.45 ** 4)) < 0.035:
        hint = ("That is temperature 0.25: the logits are divided by the temperature twice (sample_decode and "
                "sample_next_token both divide); let sample_next_token do it.",
                "Eso es temperatura 0,25: los logits se dividen dos veces entre la temperatura (sample_decode y "
                "sample_next_token); deja que lo haga sample_next_token.")
    else:
        hint = ("Divide the logits (not the probabilities) by the temperature, once, before the softmax.",
                "Divide los logits (no las probabilidades) entre la temperatura, una vez, antes del softmax.")
    assert abs(share - want) < 0.035, (
        f"at temperature 0.5, {share:.1%} of the first tokens were A, expected about {want:.1%} "
        f"(softmax(log p / 0.5) is p² renormalised). {hint[0]} / a temperatura 0,5, el {share:.1%} de los primeros "
        f"tokens fueron A; se esperaba cerca del {want:.1%} (softmax(log p / 0,5) es p² renormalizado). {hint[1]}"
    )


def test_sample_decode_is_reproducible_with_a_generator():
    """Do two sample_decode runs with generators of the same seed give the same rows?"""
    runs = [sample_decode(BigramModel(TABLE), torch.ones(64, 3, dtype=torch.long), max_len=6, sos_id=SOS,
                          eos_id=EOS, pad_id=PAD, generator=torch.Generator().manual_seed(11)) for _ in range(2)]
    same = runs[0].shape == runs[1].shape and torch.equal(runs[0], runs[1])
    assert same, (
        "sample_decode(..., generator=torch.Generator().manual_seed(11)) gave different rows in two runs (first "
        f"rows {_show(runs[0][:2].tolist())} and {_show(runs[1][:2].tolist())}): pass generator on to "
        "sample_next_token at every step (generator=generator), so that the draws come from it. / "
        "sample_decode(..., generator=torch.Generator().manual_seed(11)) dio filas distintas en dos ejecuciones "
        f"(primeras filas {_show(runs[0][:2].tolist())} y {_show(runs[1][:2].tolist())}): pasa generator a "
        "sample_next_token en cada paso (generator=generator), para que las muestras salgan de él."
    )
