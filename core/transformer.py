"""The three Transformer families: encoder-only, decoder-only and encoder–decoder (numpy).

Vaswani et al. 2017 ("Attention Is All You Need", Fig. 1, §3.1–3.2.3) built an
encoder–decoder for translation: the encoder's self-attention is bidirectional, the
decoder's self-attention is *masked* (position i sees positions j ≤ i) and its
cross-attention ("encoder–decoder attention") takes queries from the decoder and keys and
values from the encoder output. BERT (Devlin et al. 2018) keeps only the encoder and is
trained to recover masked tokens; GPT (Radford et al. 2018) keeps only the decoder (without
cross-attention) and is trained to predict the next token; T5 (Raffel et al. 2020) keeps both.

The mask is applied to the scores *before* the softmax (−∞, i.e. weight 0); multiplying the
softmax weights by a lower-triangular matrix afterwards, as some tutorials write, leaves
rows that no longer sum to 1.

Parameter counts follow ``torch.nn.TransformerEncoderLayer`` / ``TransformerDecoderLayer``
(post-LN, biases everywhere, the ReLU feed-forward d_model → d_ff → d_model). A decoder's
KV cache stores, for every layer and every past token, one key and one value vector.

Shape legend: S source (encoder) tokens, T target (decoder) tokens, D = d_model, h heads,
d = D / h per head, F = d_ff, L layers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core import attention as att
from core import validation
from core.arrays import Array, BoolArray
from core.errors import CoreError

MASK, BOS, EOS = "[MASK]", "<s>", "</s>"
FAMILIES = ("encoder", "decoder", "encoder_decoder")


# ---- masks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyMasks:
    """Who may attend whom (True = may attend) in each family.

    Attributes:
        encoder: (S, S) all True: bidirectional self-attention (BERT, the T5/Vaswani encoder).
        decoder: (T, T) lower-triangular: causal self-attention (GPT, every decoder).
        cross: (T, S) all True: every decoder query sees every encoder output.
    """

    encoder: BoolArray
    decoder: BoolArray
    cross: BoolArray


def family_masks(n_source: int, n_target: int) -> FamilyMasks:
    """The three masks for S source and T target tokens.

    >>> m = family_masks(3, 2)
    >>> m.decoder.astype(int).tolist(), m.cross.shape
    ([[1, 0], [1, 1]], (2, 3))
    """
    S = validation.positive_int(n_source, "source tokens", 4096)
    T = validation.positive_int(n_target, "target tokens", 4096)
    return FamilyMasks(
        encoder=np.ones((S, S), dtype=bool),
        decoder=att.causal_mask(T),
        cross=np.ones((T, S), dtype=bool),
    )


# ---- the example ----------------------------------------------------------------------------

MAX_TOKENS = 10
MAX_CHARS = 200


def parse_sentence(
    text: str, name: str = "the sentence", max_tokens: int = MAX_TOKENS
) -> tuple[str, ...]:
    """Split a typed sentence at spaces into 2 … ``max_tokens`` word tokens (never evaluated).

    >>> parse_sentence("the cat sat")
    ('the', 'cat', 'sat')
    """
    if not isinstance(text, str):
        raise CoreError("transformer_not_text", "{name} must be text", name=name)
    if len(text) > MAX_CHARS:
        raise CoreError(
            "transformer_too_long", "{name}: at most {hi} characters", name=name, hi=MAX_CHARS
        )
    tokens = tuple(text.split())
    if not 2 <= len(tokens) <= max_tokens:
        raise CoreError(
            "transformer_token_count",
            "{name}: type 2 to {hi} words separated by spaces (got {n})",
            name=name,
            hi=max_tokens,
            n=len(tokens),
        )
    if any(len(t) > 16 for t in tokens):
        raise CoreError(
            "transformer_long_word", "{name}: a word has more than 16 characters", name=name
        )
    return tokens


# ---- what each family is trained for ------------------------------------------------------


@dataclass(frozen=True)
class Objective:
    """One training example: what the model reads and what each position must predict.

    Attributes:
        inputs: the tokens the (decoder or encoder) stack reads, one per position.
        targets: per position, the token its output is trained to predict (None: no loss).
        context: the encoder's input for an encoder–decoder (empty otherwise).
    """

    inputs: tuple[str, ...]
    targets: tuple[str | None, ...]
    context: tuple[str, ...] = ()

    @property
    def n_predictions(self) -> int:
        """How many positions carry a loss term."""
        return sum(t is not None for t in self.targets)


def _tokens(tokens: Sequence[str], name: str) -> tuple[str, ...]:
    out = tuple(str(t) for t in tokens)
    if not out:
        raise CoreError("transformer_no_tokens", "{name} has no tokens", name=name)
    return out


def masked_lm_objective(tokens: Sequence[str], positions: Sequence[int]) -> Objective:
    """BERT's masked language model: [MASK] at ``positions``; only those are predicted.

    (BERT replaces 80 % of the chosen tokens by [MASK], 10 % by a random token and keeps
    10 %; the page shows the [MASK] case.)
    """
    x = _tokens(tokens, "the sentence")
    chosen = {validation.integer(p, "masked position", 0, len(x) - 1) for p in positions}
    return Objective(
        inputs=tuple(MASK if i in chosen else t for i, t in enumerate(x)),
        targets=tuple(t if i in chosen else None for i, t in enumerate(x)),
    )


def next_token_objective(tokens: Sequence[str]) -> Objective:
    """GPT's language model: position i reads tokens ≤ i and predicts token i + 1."""
    x = _tokens(tokens, "the sentence")
    return Objective(inputs=x, targets=(*x[1:], None))


def seq2seq_objective(source: Sequence[str], target: Sequence[str]) -> Objective:
    """Sequence to sequence (teacher forcing): the decoder reads <s> y₁…y_T and predicts
    y₁…y_T </s>."""
    src, tgt = _tokens(source, "the source"), _tokens(target, "the target")
    return Objective(inputs=(BOS, *tgt), targets=(*tgt, EOS), context=src)


# ---- the attention of each family -----------------------------------------------------------


def sinusoidal_positions(n: int, d: int) -> Array:
    """(n, d) positional encoding of Vaswani et al. §3.5.

    PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
    """
    n = validation.positive_int(n, "positions", 100_000)
    d = validation.positive_int(d, "d_model", 100_000)
    pos = np.arange(n)[:, None]
    i2 = np.arange(0, d, 2)[None, :]  # 2i
    angle = pos / 10000.0 ** (i2 / d)  # (n, ceil(d/2))
    pe = np.zeros((n, d))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d // 2])
    return pe


@dataclass(frozen=True)
class AttentionWeights:
    """The projections of one attention sublayer, applied as ``x @ w`` (the paper's X W^Q).

    Attributes:
        w_q, w_k, w_v, w_o: (D, D).
    """

    w_q: Array
    w_k: Array
    w_v: Array
    w_o: Array


def init_attention(d_model: int, rng: np.random.Generator) -> AttentionWeights:
    """Untrained projections, entries N(0, 1/D) (so scores have unit scale)."""
    D = validation.positive_int(d_model, "d_model", 4096)
    w = rng.standard_normal((4, D, D)) / np.sqrt(D)
    return AttentionWeights(*w)


def self_attention(
    x: Array, w: AttentionWeights, n_heads: int, mask: BoolArray | None = None
) -> tuple[Array, Array]:
    """Multi-head self-attention (``core.attention.multi_head_attention``): (N, D), (h, N, N)."""
    return att.multi_head_attention(x, w.w_q, w.w_k, w.w_v, w.w_o, n_heads, mask)


def cross_attention(
    x_q: Array, memory: Array, w: AttentionWeights, n_heads: int
) -> tuple[Array, Array]:
    """Encoder–decoder attention: queries from the decoder, keys and values from the encoder.

    Args:
        x_q: (T, D) decoder states.
        memory: (S, D) encoder output.

    Returns:
        ``(out, weights)``: (T, D) and (h, T, S).
    """
    X = validation.finite_array(x_q, "decoder states", ndim=2)
    M = validation.finite_array(memory, "encoder output", ndim=2)
    if X.shape[1] != M.shape[1]:
        raise CoreError(
            "transformer_widths",
            "decoder width {a} ≠ encoder width {b}",
            a=X.shape[1],
            b=M.shape[1],
        )
    d = att.check_heads(X.shape[1], n_heads)
    Q = att.split_heads(X @ w.w_q, n_heads)  # (h, T, d)
    K = att.split_heads(M @ w.w_k, n_heads)  # (h, S, d)
    V = att.split_heads(M @ w.w_v, n_heads)  # (h, S, d)
    heads, weights = att.scaled_dot_product_attention(Q, K, V, scale=1 / np.sqrt(d))
    return att.merge_heads(heads) @ w.w_o, weights  # (T, D), (h, T, S)


@dataclass(frozen=True)
class FamilyMaps:
    """Live attention weights of one example through each family (untrained weights).

    Attributes:
        encoder: (h, S, S) BERT-like bidirectional self-attention over the encoder input.
        decoder: (h, N, N) GPT-like causal self-attention over the same sentence.
        cross: (h, T, S) the encoder–decoder's cross-attention: decoder queries on the
            encoder output.
        decoder_self: (h, T, T) the encoder–decoder's own causal self-attention.
        masks: the three masks used.
    """

    encoder: Array
    decoder: Array
    cross: Array
    decoder_self: Array
    masks: FamilyMasks


def embed(tokens: Sequence[str], d_model: int, seed: int) -> Array:
    """(N, D) token embeddings (``core.attention.token_embeddings``) + sinusoidal positions."""
    toks = _tokens(tokens, "the sentence")
    return att.token_embeddings(toks, d_model, seed) + sinusoidal_positions(len(toks), d_model)


def family_maps(
    encoder_input: Sequence[str],
    decoder_input: Sequence[str],
    source: Sequence[str],
    target_input: Sequence[str],
    d_model: int,
    n_heads: int,
    seed: int,
) -> FamilyMaps:
    """Run one example through each family's attention.

    Args:
        encoder_input: the BERT-like input (with [MASK] tokens).
        decoder_input: the GPT-like input.
        source, target_input: the encoder–decoder's encoder input and decoder input (<s> …).
        d_model, n_heads: D and h; ``seed`` draws the untrained projections.
    """
    rng = np.random.default_rng(seed)
    w_enc, w_dec, w_src, w_self, w_cross = (init_attention(d_model, rng) for _ in range(5))
    x_enc = embed(encoder_input, d_model, seed)
    x_dec = embed(decoder_input, d_model, seed)
    x_src, x_tgt = embed(source, d_model, seed), embed(target_input, d_model, seed)
    masks = family_masks(len(x_src), len(x_tgt))
    _, a_enc = self_attention(x_enc, w_enc, n_heads)  # bidirectional
    _, a_dec = self_attention(x_dec, w_dec, n_heads, att.causal_mask(len(x_dec)))
    memory, _ = self_attention(x_src, w_src, n_heads, masks.encoder)
    memory = memory + x_src  # residual: the encoder output the decoder reads
    h_tgt, a_self = self_attention(x_tgt, w_self, n_heads, masks.decoder)
    _, a_cross = cross_attention(x_tgt + h_tgt, memory, w_cross, n_heads)
    return FamilyMaps(a_enc, a_dec, a_cross, a_self, masks)


def future_influence(
    x: Array,
    w: AttentionWeights,
    n_heads: int,
    mask: BoolArray | None,
    position: int,
    rng: np.random.Generator,
) -> float:
    """max |Δ output| at positions before ``position`` when the token at ``position`` changes.

    0 exactly under a causal mask (the past cannot see the future); > 0 without one.
    """
    X = validation.finite_array(x, "x", ndim=2)
    p = validation.integer(position, "position", 1, len(X) - 1)
    changed = X.copy()
    changed[p] = rng.standard_normal(X.shape[1])
    before, _ = self_attention(X, w, n_heads, mask)
    after, _ = self_attention(changed, w, n_heads, mask)
    return float(np.abs(after[:p] - before[:p]).max())


def mask_after_softmax_row_sums(x: Array, w: AttentionWeights, n_heads: int) -> Array:
    """(h, N) row sums when the causal mask *multiplies* the softmax weights afterwards.

    The wrong order: softmax over all keys, then zero the future. Every row but the last
    loses the weight it gave to the future, so the rows no longer sum to 1.
    """
    _, weights = self_attention(x, w, n_heads)  # (h, N, N) unmasked
    return (weights * att.causal_mask(weights.shape[-1])).sum(axis=-1)


# ---- parameters of a block ------------------------------------------------------------------


@dataclass(frozen=True)
class BlockParameters:
    """Learnable numbers of one ``nn.TransformerEncoderLayer`` / ``DecoderLayer``.

    Attributes:
        self_attention: W^Q, W^K, W^V, W^O and their biases: 4D² + 4D.
        cross_attention: the same again in a decoder with an encoder (0 otherwise).
        feed_forward: D·F + F + F·D + D.
        norms: 2D per LayerNorm (γ and β): two in an encoder layer, three in a decoder layer.
    """

    self_attention: int
    cross_attention: int
    feed_forward: int
    norms: int

    @property
    def total(self) -> int:
        return self.self_attention + self.cross_attention + self.feed_forward + self.norms


def block_parameters(d_model: int, d_ff: int, cross: bool = False) -> BlockParameters:
    """Parameters of an encoder block (``cross=False``) or an encoder–decoder's decoder block.

    A GPT block (decoder without cross-attention) has the encoder block's count: the causal
    mask is not a parameter. The number of heads does not change the count either.

    >>> block_parameters(512, 2048).total          # the Transformer base encoder layer
    3152384
    """
    D = validation.positive_int(d_model, "d_model", 1_000_000)
    F = validation.positive_int(d_ff, "d_ff", 10_000_000)
    attn = 4 * D * D + 4 * D
    return BlockParameters(
        self_attention=attn,
        cross_attention=attn if cross else 0,
        feed_forward=2 * D * F + F + D,
        norms=(3 if cross else 2) * 2 * D,
    )


def gpt2_parameters(n_layers: int, d_model: int, vocab: int, n_positions: int) -> int:
    """A GPT-2 model's parameters: L blocks (d_ff = 4D), token and position embeddings, the
    final LayerNorm; the output layer shares the token embedding (Radford et al. 2019)."""
    L = validation.positive_int(n_layers, "layers", 10_000)
    D = validation.positive_int(d_model, "d_model", 1_000_000)
    block = block_parameters(D, 4 * D).total
    return L * block + vocab * D + n_positions * D + 2 * D


def torch_layer_parameters(d_model: int, d_ff: int, n_heads: int) -> tuple[int, int, int]:
    """Parameters counted on torch's own layers (built on the ``meta`` device: no memory).

    Returns:
        (``nn.TransformerEncoderLayer``, ``nn.TransformerDecoderLayer``, the encoder layer
        with one head).
    """
    import torch  # lazily: only the page that shows torch layers pays for it

    D, F = int(d_model), int(d_ff)
    layers = (
        torch.nn.TransformerEncoderLayer(D, n_heads, F, device="meta"),
        torch.nn.TransformerDecoderLayer(D, n_heads, F, device="meta"),
        torch.nn.TransformerEncoderLayer(D, 1, F, device="meta"),
    )
    enc, dec, one = (sum(p.numel() for p in layer.parameters()) for layer in layers)
    return enc, dec, one


# ---- the KV cache -------------------------------------------------------------------------


@dataclass(frozen=True)
class KVCacheSize:
    """Memory of a decoder's key/value cache for one sequence.

    Attributes:
        numbers: 2 · L · n · D (a key and a value of D numbers per layer and token).
        bytes: numbers · bytes per number.
    """

    n_layers: int
    length: int
    d_model: int
    bytes_per_number: int
    numbers: int
    bytes: int


def kv_cache_size(
    n_layers: int, length: int, d_model: int, bytes_per_number: int = 2, batch: int = 1
) -> KVCacheSize:
    """2 · batch · L · n · D numbers: linear in the length and in the number of layers.

    >>> kv_cache_size(12, 1024, 768, 4).bytes      # GPT-2 small, full context, float32
    75497472
    """
    L = validation.positive_int(n_layers, "layers", 10_000)
    n = validation.positive_int(length, "length", 10_000_000)
    D = validation.positive_int(d_model, "d_model", 1_000_000)
    b = validation.positive_int(bytes_per_number, "bytes per number", 8)
    B = validation.positive_int(batch, "batch", 100_000)
    numbers = 2 * B * L * n * D
    return KVCacheSize(L, n, D, b, numbers, numbers * b)


@dataclass(frozen=True)
class CachedDecoding:
    """A stack of causal self-attention layers run token by token with a KV cache.

    Attributes:
        outputs: (n, D) the last layer's output at every step.
        keys, values: (L, n, D) what the cache holds after the last step.
    """

    outputs: Array
    keys: Array
    values: Array

    @property
    def numbers(self) -> int:
        return int(self.keys.size + self.values.size)


def decoder_stack(x: Array, layers: Sequence[AttentionWeights], n_heads: int) -> Array:
    """All positions at once: x ← x + CausalMHA(x) for each layer. (n, D)."""
    X = validation.finite_array(x, "x", ndim=2)
    mask = att.causal_mask(len(X))
    for w in layers:
        X = X + self_attention(X, w, n_heads, mask)[0]
    return X


def cached_decoding(x: Array, layers: Sequence[AttentionWeights], n_heads: int) -> CachedDecoding:
    """The same stack, one new token at a time: each layer appends its k, v to the cache and
    the new query attends to every cached key (no mask needed: the future is not there yet)."""
    X = validation.finite_array(x, "x", ndim=2)
    n, D = X.shape
    L = len(layers)
    d = att.check_heads(D, n_heads)
    keys, values = np.zeros((L, n, D)), np.zeros((L, n, D))
    outputs = np.zeros((n, D))
    for t in range(n):
        h = X[t : t + 1]  # (1, D): the new token
        for i, w in enumerate(layers):
            keys[i, t], values[i, t] = (h @ w.w_k)[0], (h @ w.w_v)[0]
            q = att.split_heads(h @ w.w_q, n_heads)  # (h, 1, d)
            K, V = (att.split_heads(c[i, : t + 1], n_heads) for c in (keys, values))
            out, _ = att.scaled_dot_product_attention(q, K, V, scale=1 / np.sqrt(d))
            h = h + att.merge_heads(out) @ w.w_o
        outputs[t] = h[0]
    return CachedDecoding(outputs, keys, values)


@dataclass(frozen=True)
class CacheDemo:
    """Cached token-by-token decoding against the full causal pass, on a small example.

    Attributes:
        gap: max |Δ| between the two outputs.
        stored: numbers the cache holds at the end; formula: 2 · L · n · D.
    """

    gap: float
    stored: int
    formula: int
    length: int
    d_model: int


def demo_cached_decoding(
    n_layers: int, seed: int, length: int = 8, d_model: int = 16, n_heads: int = 4
) -> CacheDemo:
    """Run :func:`cached_decoding` and :func:`decoder_stack` on the same random tokens."""
    L = validation.positive_int(n_layers, "layers", 16)
    rng = np.random.default_rng(seed)
    layers = [init_attention(d_model, rng) for _ in range(L)]
    x = rng.standard_normal((length, d_model))
    run = cached_decoding(x, layers, n_heads)
    gap = float(np.abs(run.outputs - decoder_stack(x, layers, n_heads)).max())
    return CacheDemo(gap, run.numbers, kv_cache_size(L, length, d_model).numbers, length, d_model)
