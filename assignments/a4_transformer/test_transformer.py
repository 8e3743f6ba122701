"""Public tests for transformer.py. Run them with ``pytest assignments/a4_transformer``."""

import math

import torch

from masks import padding_mask, target_mask
from transformer import Transformer, TransformerConfig

SMALL = dict(src_vocab_size=20, tgt_vocab_size=30, d_model=32, num_heads=4, num_layers=2, d_ff=64, dropout=0.0)


def _shape(t):
    """A shape as a plain tuple, or what the value is when it is not a tensor (for messages)."""
    if isinstance(t, torch.Tensor):
        return tuple(t.shape)
    if isinstance(t, (tuple, list)):
        return f"{type(t).__name__} (len {len(t)})"
    return f"{type(t).__name__} {t!r:.60}"


def _logits_hint(shape):
    """What wrong logits shapes (expected (3, 5, 30): B = 3, S = 7, T = 5, V = 30) point to, in both languages."""
    if shape == (3, 5, 32):
        return (" The last dimension is d_model = 32: decode must end with the generator, which maps d_model to the "
                "target vocabulary",
                " La última dimensión es d_model = 32: decode debe acabar con el generator, que lleva d_model al "
                "vocabulario de destino")
    if shape == (3, 5, 20):
        return (" The last dimension is src_vocab_size = 20: the logits are over the target vocabulary "
                "(tgt_vocab_size = 30)",
                " La última dimensión es src_vocab_size = 20: los logits son sobre el vocabulario de destino "
                "(tgt_vocab_size = 30)")
    if len(shape) == 3 and shape[1] == 7:
        return (" There is one row per source token (S = 7) instead of one per target token (T = 5): the decoder "
                "runs on tgt, and its cross-attention takes the queries from the decoder and the keys and values "
                "from memory",
                " Hay una fila por token de origen (S = 7) en vez de una por token de destino (T = 5): el "
                "decodificador trabaja sobre tgt, y su atención cruzada toma las consultas del decodificador y las "
                "claves y valores de memory")
    return "", ""


def test_logits_shape():
    """Does the model map (B, S) and (B, T) token ids to (B, T, V) logits?"""
    model = Transformer(TransformerConfig(**SMALL))
    src, tgt = torch.randint(1, 20, (3, 7)), torch.randint(1, 30, (3, 5))
    logits = model(src, tgt)
    hint_en, hint_es = _logits_hint(_shape(logits)) if isinstance(logits, torch.Tensor) else ("", "")
    assert isinstance(logits, torch.Tensor) and logits.shape == (3, 5, 30), (
        f"model(src, tgt) with src (B, S) = (3, 7) and tgt (B, T) = (3, 5) gave {_shape(logits)}, expected logits "
        f"(B, T, V) = (3, 5, 30), V = tgt_vocab_size.{hint_en} / model(src, tgt) con src (B, S) = (3, 7) y tgt "
        f"(B, T) = (3, 5) dio {_shape(logits)} y se esperaban logits (B, T, V) = (3, 5, 30), V = "
        f"tgt_vocab_size.{hint_es}"
    )


def test_encode_then_decode_equals_forward():
    """Is forward(src, tgt) the same as decode(tgt, *encode(src))?"""
    model = Transformer(TransformerConfig(**SMALL)).eval()
    src, tgt = torch.randint(1, 20, (2, 6)), torch.randint(1, 30, (2, 4))
    encoded = model.encode(src)
    got_en = got_es = _shape(encoded)
    if isinstance(encoded, torch.Tensor):
        got_en, got_es = f"one tensor of shape {got_en}", f"un solo tensor de forma {got_es}"
    assert isinstance(encoded, (tuple, list)) and len(encoded) == 2, (
        f"model.encode(src) returned {got_en}, expected a pair (memory, src_mask): memory "
        "(B, S, d_model) and the source padding mask (B, 1, 1, S) that decode needs / model.encode(src) devolvió "
        f"{got_es} y se esperaba un par (memory, src_mask): memory (B, S, d_model) y la "
        "máscara de relleno del origen (B, 1, 1, S) que necesita decode"
    )
    memory, src_mask = encoded
    decoded, forward = model.decode(tgt, memory, src_mask), model(src, tgt)

    def message(default):
        if not (isinstance(decoded, torch.Tensor) and isinstance(forward, torch.Tensor)
                and decoded.shape == forward.shape):
            return (
                f"decode(tgt, *encode(src)) gave {_shape(decoded)} but model(src, tgt) gave {_shape(forward)}; "
                "both must be the logits (B, T, V) = (2, 4, 30) / decode(tgt, *encode(src)) dio "
                f"{_shape(decoded)} pero model(src, tgt) dio {_shape(forward)}; los dos deben ser los logits "
                f"(B, T, V) = (2, 4, 30)\n{default}"
            )
        again = model(src, tgt)
        if again.shape != forward.shape or not torch.equal(again, forward):
            return (
                "model(src, tgt) gave different logits on two calls in eval mode: something random is not turned "
                "off by eval(); use the module's nn.Dropout layers (or pass training=self.training) / "
                "model(src, tgt) dio logits distintos en dos llamadas en modo evaluación: eval() no desactiva algo "
                "aleatorio; usa las capas nn.Dropout del módulo (o pasa training=self.training)"
                f"\n{default}"
            )
        largest = round(float((decoded - forward).abs().max()), 4)
        return (
            f"decode(tgt, *encode(src)) differs from model(src, tgt) by up to {largest} (eval mode): forward must "
            "be exactly encode followed by decode; check that forward calls both rather than a path of its own, "
            "and that decode uses the memory and src_mask it receives / decode(tgt, *encode(src)) difiere de "
            f"model(src, tgt) hasta en {largest} (modo evaluación): forward debe ser exactamente encode seguido de "
            "decode; comprueba que forward llama a los dos en vez de seguir su propio camino, y que decode usa la "
            f"memory y la src_mask que recibe\n{default}"
        )

    torch.testing.assert_close(decoded, forward, msg=message)


def _tie_hint(model):
    """Why generator.weight is not tgt_embed.weight, in both languages (only called when it is not)."""
    generator, embedding = model.generator.weight, model.tgt_embed.weight
    if generator is getattr(getattr(model, "src_embed", None), "weight", None):
        return ("it is the source embedding's weight: tie it to tgt_embed, the target side",
                "es el peso del embedding de origen: átalo a tgt_embed, el del destino")
    if generator.shape == embedding.shape and generator.data_ptr() == embedding.data_ptr():
        return ("the two share memory while being two different Parameters (copied through .data?): assign "
                "tgt_embed's Parameter itself to the generator's weight",
                "los dos comparten memoria siendo dos Parameters distintos (¿copiados con .data?): asigna el propio "
                "Parameter de tgt_embed al peso del generator")
    if generator.shape == embedding.shape and torch.equal(generator, embedding):
        return ("they are two separate tensors with the same values, so training would update only one: assign "
                "tgt_embed's Parameter itself instead of copying it",
                "son dos tensores distintos con los mismos valores, así que el entrenamiento solo actualizaría uno: "
                "asigna el propio Parameter de tgt_embed en vez de copiarlo")
    return (f"the generator keeps a weight of its own, shape {tuple(generator.shape)}: with tie_weights=True it must "
            f"reuse tgt_embed's weight, shape {tuple(embedding.shape)} = (V, d_model)",
            f"el generator conserva un peso propio, de forma {tuple(generator.shape)}: con tie_weights=True debe "
            f"reutilizar el peso de tgt_embed, de forma {tuple(embedding.shape)} = (V, d_model)")


def test_tied_weights_share_one_matrix():
    """With tie_weights, is the output projection the target embedding itself?"""
    model = Transformer(TransformerConfig(**SMALL, tie_weights=True))
    assert model.generator.weight is model.tgt_embed.weight, (
        f"with tie_weights=True, model.generator.weight must be the very same Parameter as model.tgt_embed.weight, "
        f"but {_tie_hint(model)[0]} / con tie_weights=True, model.generator.weight debe ser exactamente el mismo "
        f"Parameter que model.tgt_embed.weight, pero {_tie_hint(model)[1]}"
    )


def _randomised(model):
    """``model`` in eval mode with every vector parameter (biases, LayerNorm weights) drawn at
    random, so that a LayerNorm left out or used twice changes the result."""
    generator = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:
                p.copy_(1.0 + 0.5 * torch.randn(p.shape, generator=generator))
    return model.eval()


PAD = 0
SRC = torch.tensor([[5, 3, 9, 2, 7, 4], [8, 6, 3, PAD, PAD, PAD]])  # (B, S) with padding in row 1
TGT = torch.tensor([[1, 12, 7, 25], [1, 4, 9, PAD]])  # (B, T)


def test_embed_scales_by_sqrt_d_model_then_adds_positions():
    """Is embed(table, tokens) the table's vectors times sqrt(d_model), then the positional
    encoding, once (section 3.4)?"""
    model = Transformer(TransformerConfig(**SMALL)).eval()
    with torch.no_grad():
        vectors = model.tgt_embed(TGT)
        got = model.embed(model.tgt_embed, TGT)
        expected = model.positional(vectors * math.sqrt(SMALL["d_model"]))
        positions_twice = model.positional(expected)
    if torch.allclose(got, positions_twice, atol=1e-5):
        raise AssertionError("embed adds the positional encoding twice: call self.positional once / embed suma "
                             "la codificación posicional dos veces: llama a self.positional una sola vez")
    if torch.allclose(got, model.positional(vectors), atol=1e-5):
        raise AssertionError(
            "embed does not scale the token vectors: unlike lecture notebook 000, which adds the positions to the "
            f"plain embeddings, the course multiplies them by sqrt(d_model) = {math.sqrt(SMALL['d_model']):.3f} "
            "first, as lecture 001 and the paper (section 3.4) do / embed no escala los vectores: a diferencia del "
            "cuaderno de clase 000, que suma las posiciones a los embeddings sin más, el curso los multiplica antes "
            "por sqrt(d_model), como el cuaderno 001 y el artículo (sección 3.4)")
    if torch.allclose(got, model.positional(vectors * SMALL["d_model"]), atol=1e-5):
        raise AssertionError(f"embed scales the token vectors by d_model; the paper multiplies them by "
                             f"sqrt(d_model) = {math.sqrt(SMALL['d_model']):.3f} / embed escala los vectores por "
                             f"d_model; el artículo los multiplica por sqrt(d_model)")
    torch.testing.assert_close(got, expected, msg=lambda m: (
        "embed(table, tokens) should be positional(table(tokens) * sqrt(d_model)), then dropout (off here): "
        "scale before adding the positions / embed(tabla, tokens) debe ser positional(tabla(tokens) * "
        f"sqrt(d_model)) y luego dropout (aquí desactivado): escala antes de sumar las posiciones\n{m}"))


def test_embed_applies_dropout_in_training():
    """In training mode with dropout 0.5, does embed drop some of its outputs (dropout after
    the embeddings and positions, section 5.4)?"""
    model = Transformer(TransformerConfig(**{**SMALL, "dropout": 0.5})).train()
    torch.manual_seed(6)
    out = model.embed(model.tgt_embed, TGT)
    zeros = (out == 0).float().mean().item()
    assert 0.2 < zeros < 0.8, (
        f"{zeros:.0%} of embed's outputs are zero in training mode with dropout 0.5, expected about half: apply "
        f"self.dropout after adding the positions / el {zeros:.0%} de las salidas de embed son cero en modo "
        "entrenamiento con dropout 0.5, se esperaba la mitad: aplica self.dropout tras sumar las posiciones")
    with torch.no_grad():
        plain = model.eval().embed(model.tgt_embed, TGT)
    kept = out != 0
    assert torch.allclose(out[kept], 2 * plain[kept], atol=1e-5), (
        "in training mode with dropout 0.5, the kept outputs of embed are not twice the eval-mode ones: dropout "
        "acts once, on embedding * sqrt(d_model) + positions (nn.Dropout scales what it keeps by 1/(1 - p) = 2); "
        "is it applied twice, or before the positions are added? / en modo entrenamiento con dropout 0.5, las "
        "salidas conservadas de embed no son el doble de las de modo evaluación: el dropout actúa una vez, sobre "
        "embedding * sqrt(d_model) + posiciones (nn.Dropout escala lo que conserva por 1/(1 - p) = 2); ¿se aplica "
        "dos veces, o antes de sumar las posiciones?")


def test_encode_runs_the_source_through_every_layer_and_the_final_norm():
    """Pre-norm: is encode(src) encoder_norm(layer_N(... layer_1(embed(src_embed, src), mask))),
    with mask = padding_mask(src), and is that mask returned?"""
    model = _randomised(Transformer(TransformerConfig(**SMALL, norm_first=True)))
    with torch.no_grad():
        memory, src_mask = model.encode(SRC)
        mask = padding_mask(SRC, PAD)
        x = model.embed(model.src_embed, SRC)
        for layer in model.encoder_layers:
            x = layer(x, mask)
        expected = model.encoder_norm(x)
    assert src_mask is not None and src_mask.shape == mask.shape and torch.equal(src_mask, mask), (
        f"encode should return padding_mask(src) of shape {tuple(mask.shape)} as its second value, got "
        f"{None if src_mask is None else tuple(src_mask.shape)} / encode debe devolver padding_mask(src) como "
        "segundo valor")
    torch.testing.assert_close(memory, expected, msg=lambda m: (
        "encode differs from the composition in the test's docstring: embed the source with src_embed (not "
        "tgt_embed), run every encoder layer in order with the source padding mask, then encoder_norm (the final "
        "LayerNorm of pre-norm), and add no positions outside embed / encode no sigue la composición del "
        "docstring: src_embed (no tgt_embed), todas las capas en orden con la máscara de relleno, luego "
        f"encoder_norm, y ninguna posición sumada fuera de embed\n{m}"))


def test_decode_returns_the_logits_of_the_decoder_stack():
    """Pre-norm: is decode(tgt, memory, src_mask) generator(decoder_norm(layer_N(... layer_1(
    embed(tgt_embed, tgt), memory, target_mask(tgt), src_mask)))), raw logits (no softmax)?"""
    model = _randomised(Transformer(TransformerConfig(**SMALL, norm_first=True)))
    with torch.no_grad():
        memory, src_mask = torch.randn(2, 6, SMALL["d_model"]), padding_mask(SRC, PAD)
        got = model.decode(TGT, memory, src_mask)
        x = model.embed(model.tgt_embed, TGT)
        for layer in model.decoder_layers:
            x = layer(x, memory, target_mask(TGT, PAD), src_mask)
        expected = model.generator(model.decoder_norm(x))
    sums = got.exp().sum(-1) if got.min() < 0 else got.sum(-1)
    if torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
        raise AssertionError("decode returns (log-)probabilities: return the generator's raw logits, the loss "
                             "and the decoders apply the softmax / decode devuelve (log-)probabilidades: "
                             "devuelve los logits del generator, la pérdida y los decodificadores aplican softmax")
    torch.testing.assert_close(got, expected, msg=lambda m: (
        "decode differs from the composition in the test's docstring: embed the target with tgt_embed, run every "
        "decoder layer with target_mask(tgt) and src_mask (the memory mask), then decoder_norm (the final "
        "LayerNorm of pre-norm) and the generator / decode no sigue la composición del docstring: tgt_embed, "
        "todas las capas con target_mask(tgt) y src_mask, luego decoder_norm y el generator\n"
        f"{m}"))


def test_post_norm_stacks_end_without_a_final_norm():
    """Post-norm (the paper's model): is encode(src) the last encoder layer's output as it is, and
    decode the generator applied to the last decoder layer's output, with no final LayerNorm
    (encoder_norm and decoder_norm are the given nn.Identity)?"""
    model = _randomised(Transformer(TransformerConfig(**SMALL)))
    with torch.no_grad():
        memory, src_mask = model.encode(SRC)
        x = model.embed(model.src_embed, SRC)
        for layer in model.encoder_layers:
            x = layer(x, padding_mask(SRC, PAD))
        y = model.embed(model.tgt_embed, TGT)
        for layer in model.decoder_layers:
            y = layer(y, x, target_mask(TGT, PAD), padding_mask(SRC, PAD))
        got, expected = model.decode(TGT, x, padding_mask(SRC, PAD)), model.generator(y)
    layers = [model.src_embed, model.tgt_embed, model.generator, *model.encoder_layers, *model.decoder_layers]
    extra = sum(p.numel() for p in model.parameters()) - sum(p.numel() for m in layers for p in m.parameters())
    lecture = (
        "unlike lecture notebook 001, the course's post-norm stacks end with no final LayerNorm: each post-norm "
        "layer already ends with LayerNorm(x + sublayer(x)), and the final one belongs to pre-norm "
        "(norm_first=True), as in lecture 002; keep the given encoder_norm and decoder_norm, nn.Identity in "
        "post-norm, and add no LayerNorm of your own / a diferencia del cuaderno de clase 001, las pilas post-norm "
        "del curso no terminan con una LayerNorm final: cada capa post-norm ya termina con LayerNorm(x + "
        "subcapa(x)), y la final es de pre-norm (norm_first=True), como en el cuaderno 002; conserva encoder_norm "
        "y decoder_norm tal como se dan, nn.Identity en post-norm, y no añadas una LayerNorm propia")
    assert extra == 0, (
        f"the post-norm model has {extra} parameters besides its embeddings, layers and generator (a LayerNorm "
        f"of d_model = {SMALL['d_model']} has {2 * SMALL['d_model']}): {lecture.split(' / ')[0]} / el modelo "
        f"post-norm tiene {extra} parámetros además de sus embeddings, capas y generator (una LayerNorm de d_model "
        f"= {SMALL['d_model']} tiene {2 * SMALL['d_model']}): {lecture.split(' / ')[1]}")
    torch.testing.assert_close(memory, x, msg=lambda m: (
        "post-norm: encode(src) should be the last encoder layer's output as it is, but it differs: "
        f"{lecture.split(' / ')[0]} / post-norm: encode(src) debe ser la salida de la última capa del codificador "
        f"tal cual, pero difiere: {lecture.split(' / ')[1]}\n{m}"))
    torch.testing.assert_close(got, expected, msg=lambda m: (
        "post-norm: decode should be the generator applied to the last decoder layer's output, but it differs: "
        f"{lecture.split(' / ')[0]} / post-norm: decode debe ser el generator aplicado a la salida de la última "
        f"capa del decodificador, pero difiere: {lecture.split(' / ')[1]}\n{m}"))


def test_padding_follows_config_pad_id():
    """With pad_id=3 in the config, do the logits stay the same when a source loses its padding
    (the masks are built with config.pad_id, not 0), and does a real token 0 still count?"""
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(**{**SMALL, "pad_id": 3})).eval()
    src = torch.tensor([[5, 0, 9, 3, 3]])  # (1, S): 0 is a real word here, 3 the padding
    tgt = torch.tensor([[1, 7, 8]])
    with torch.no_grad():
        padded, trimmed = model(src, tgt), model(src[:, :3], tgt)
        other_word = model(torch.tensor([[5, 4, 9, 3, 3]]), tgt)
    assert torch.allclose(padded, trimmed, atol=1e-5), (
        "with config.pad_id = 3, the logits for the source [5, 0, 9, 3, 3] differ from those for [5, 0, 9]: the "
        "two padding positions are attended to. Build the masks with padding_mask(src, self.config.pad_id) and "
        "target_mask(tgt, self.config.pad_id), not with 0 / con config.pad_id = 3, los logits para el origen "
        "[5, 0, 9, 3, 3] difieren de los de [5, 0, 9]: se atiende a las dos posiciones de relleno. Construye las "
        "máscaras con padding_mask(src, self.config.pad_id) y target_mask(tgt, self.config.pad_id), no con 0"
    )
    assert not torch.allclose(padded, other_word, atol=1e-5), (
        "with config.pad_id = 3, changing the real source word 0 into 4 leaves the logits as they were: token 0 "
        "is masked as if it were padding. Use self.config.pad_id, not 0 / con config.pad_id = 3, cambiar la "
        "palabra real 0 del origen por 4 deja los logits igual: el token 0 se enmascara como si fuera relleno. "
        "Usa self.config.pad_id, no 0"
    )
    # Word 4 given word 0's embedding: the targets [1, 0, 8] and [1, 4, 8] are then the same
    # input, unless the decoder hides token 0 as padding.
    with torch.no_grad():
        model.tgt_embed.weight[4] = model.tgt_embed.weight[0]
        zero, four = model(src, torch.tensor([[1, 0, 8]])), model(src, torch.tensor([[1, 4, 8]]))
    assert torch.allclose(zero[0, 2, 5:], four[0, 2, 5:], atol=1e-5), (
        "with config.pad_id = 3, and target word 4 given the embedding of word 0, the targets [1, 0, 8] and "
        "[1, 4, 8] should give the last position the same logits, and they differ: the decoder hides target token "
        "0 as if it were padding. Build the target mask with target_mask(tgt, self.config.pad_id), not with 0 / "
        "con config.pad_id = 3, y la palabra 4 del destino con el embedding de la palabra 0, los destinos "
        "[1, 0, 8] y [1, 4, 8] deberían dar los mismos logits en la última posición, y difieren: el decodificador "
        "oculta el token 0 del destino como si fuera relleno. Construye la máscara del destino con "
        "target_mask(tgt, self.config.pad_id), no con 0"
    )


def test_backward_reaches_every_parameter():
    """Does one backward pass from the logits give every parameter a gradient, post-norm and pre-norm
    (nothing detached between layers, no residual added in place)?"""
    torch.manual_seed(7)
    src, tgt = torch.randint(1, 20, (3, 7)), torch.randint(1, 30, (3, 5))
    for norm_first in (False, True):
        model = Transformer(TransformerConfig(**SMALL, norm_first=norm_first))
        try:
            model(src, tgt).pow(2).mean().backward()
        except NotImplementedError:  # a stub: say so, as every test does
            raise
        except RuntimeError as error:
            first = str(error).splitlines()[0][:160]
            raise AssertionError(
                f"norm_first={norm_first}: backward from the logits raised RuntimeError: {first}. An in-place "
                "operation (x += ..., masked_fill_, x[...] = ...) changed a tensor that autograd needs: write the "
                "residual as x = x + sublayer(...). / "
                f"norm_first={norm_first}: el backward desde los logits lanzó RuntimeError: {first}. Una operación "
                "in situ (x += ..., masked_fill_, x[...] = ...) cambió un tensor que autograd necesita: escribe la "
                "conexión residual como x = x + subcapa(...)."
            ) from None
        missing = [name for name, p in model.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
        assert not missing, (
            f"norm_first={norm_first}: after backward from the logits, {len(missing)} parameters got no gradient "
            f"(first: {', '.join(missing[:4])}): something cuts the graph before them (a .detach(), .data or "
            "torch.no_grad() in encode, decode or a layer), so they would never learn. / "
            f"norm_first={norm_first}: tras el backward desde los logits, {len(missing)} parámetros no recibieron "
            f"gradiente (primeros: {', '.join(missing[:4])}): algo corta el grafo antes de ellos (un .detach(), "
            ".data o torch.no_grad() en encode, decode o una capa), así que nunca aprenderían."
        )


def test_embedding_dropout_runs_once_per_stack():
    """In training mode, do encode and decode each run the model's embedding dropout
    (self.dropout) at most once, on the embeddings, and does eval mode ignore the rate?"""
    torch.manual_seed(7)
    model = Transformer(TransformerConfig(**{**SMALL, "dropout": 0.3})).train()
    calls = []
    model.dropout.register_forward_hook(lambda module, inputs, output: calls.append(1))
    memory, src_mask = model.encode(SRC)
    encoded = len(calls)
    model.decode(TGT, memory, src_mask)
    decoded = len(calls) - encoded
    for where, n in (("encode", encoded), ("decode", decoded)):
        assert n <= 1, (
            f"{where} ran self.dropout {n} times in training mode: the embedding dropout acts once, inside embed, "
            "on embedding * sqrt(d_model) + positions; the layers have their own dropouts, and nothing else drops "
            f"the stream (not again after embed, nor after each layer) / {where} ejecutó self.dropout {n} veces en "
            "modo entrenamiento: el dropout de los embeddings actúa una vez, dentro de embed, sobre embedding * "
            "sqrt(d_model) + posiciones; las capas tienen sus propios dropouts, y nada más descarta el flujo (ni otra "
            "vez tras embed, ni tras cada capa)")
    assert model.training, (
        "after encode and decode in training mode the model is in eval mode: encode, decode and forward must not "
        "switch the mode (no self.eval() or self.train() inside them; the caller chooses it) / tras encode y decode "
        "en modo entrenamiento el modelo está en modo evaluación: encode, decode y forward no deben cambiar el modo "
        "(nada de self.eval() ni self.train() dentro; lo elige quien los llama)")
    _check_each_stack_gets_dropped_embeddings()
    torch.manual_seed(8)
    plain = Transformer(TransformerConfig(**SMALL)).eval()
    model.load_state_dict(plain.state_dict())
    with torch.no_grad():
        want, got = plain(SRC, TGT), model.eval()(SRC, TGT)
    assert isinstance(got, torch.Tensor) and torch.allclose(got, want, atol=1e-5), (
        "in eval mode the model built with dropout=0.3 gives other logits than the same weights with dropout=0.0: "
        "a dropout stays on in eval mode (nn.functional.dropout without training=self.training?); use the "
        "nn.Dropout modules / en modo evaluación el modelo con dropout=0.3 da otros logits que los mismos pesos con "
        "dropout=0.0: un dropout sigue activo en modo evaluación (¿nn.functional.dropout sin "
        "training=self.training?); usa los módulos nn.Dropout")


def _check_each_stack_gets_dropped_embeddings():
    """With dropout 0.5 in training mode, about half of what the first encoder layer and the
    first decoder layer receive is zero: each stack starts from embed's dropped embeddings."""
    torch.manual_seed(9)
    model = Transformer(TransformerConfig(**{**SMALL, "dropout": 0.5})).train()
    seen = {}
    for name, layers in (("encoder", model.encoder_layers), ("decoder", model.decoder_layers)):
        layers[0].register_forward_pre_hook(lambda module, args, name=name: seen.update({name: args[0]}))
    model(SRC, TGT)
    for name in ("encoder", "decoder"):
        zeros = (seen[name] == 0).float().mean().item()
        assert 0.3 < zeros < 0.7, (
            f"with dropout 0.5 in training mode, {zeros:.0%} of the first {name} layer's input is zero, expected "
            f"about half: both stacks start from embed(...), which drops the embeddings; does "
            f"{'encode' if name == 'encoder' else 'decode'} embed the tokens some other way? / con dropout 0.5 en "
            f"modo entrenamiento, el {zeros:.0%} de la entrada de la primera capa del "
            f"{'codificador' if name == 'encoder' else 'decodificador'} es cero, se esperaba la mitad: ambas pilas "
            f"parten de embed(...), que aplica dropout a los embeddings; ¿"
            f"{'encode' if name == 'encoder' else 'decode'} hace el embedding de otra forma?")
