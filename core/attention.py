"""Scaled dot-product attention, heads, masks, sparse patterns and linear attention (numpy).

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d) + mask) V   (Vaswani et al. 2017, §3.2.1)
    head_i = Attention(X W_i^Q, X W_i^K, X W_i^V);  MHA = Concat(head_1..head_h) W^O      (§3.2.2)
    linear: V'_i = phi(Q_i)^T (sum_j phi(K_j) V_j^T) / phi(Q_i)^T sum_j phi(K_j),  phi = elu + 1
                                                            (Katharopoulos et al. 2020, §3.2-3.3)

Sparse patterns follow Beltagy et al. 2020 (Longformer: sliding window, dilated, global),
Zaheer et al. 2020 (BigBird: global + window + random), Ainslie et al. 2020 (ETC) and Guo et
al. 2019 (Star-Transformer: a relay node and a ring).

Conventions: a bool mask is True where a query *may* attend a key (torch's
``scaled_dot_product_attention`` convention; ``nn.MultiheadAttention`` uses the opposite).
A query row with no allowed key gets all-zero weights and an all-zero output, never NaN.

Shape legend: B batch, N tokens (L queries, S keys), D model channels, h heads,
d = D / h channels per head (or the q/k size), dv value size.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core import validation
from core.errors import CoreError
from core.softmax import masked_softmax  # noqa: F401  (re-exported: att.masked_softmax)

Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

MAX_TOKENS = 32
Preset = Literal[
    "band", "dilated", "global", "random", "block_local", "star", "longformer", "etc", "bigbird"
]
PRESETS: tuple[str, ...] = (
    "band",
    "dilated",
    "global",
    "random",
    "block_local",
    "star",
    "longformer",
    "etc",
    "bigbird",
)


def _as_array(x: ArrayLike, name: str, min_ndim: int = 2) -> Array:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} needs at least {min_ndim} dimensions, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers (no nan or infinity)")
    return arr


# ---- scaled dot-product attention --------------------------------------------------------


def _check_mask(mask: ArrayLike | None, shape: tuple[int, ...]) -> BoolArray | None:
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError("the mask must be boolean: True = may attend, False = blocked")
    try:
        np.broadcast_shapes(m.shape, shape)
    except ValueError:
        raise ValueError(f"mask of shape {m.shape} does not fit scores of shape {shape}") from None
    return m


def scaled_dot_product_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
) -> tuple[Array, Array]:
    """softmax(q k^T / sqrt(d)) v with an optional bool mask (True = may attend).

    Args:
        q: (..., L, d) queries.
        k: (..., S, d) keys.
        v: (..., S, dv) values.
        mask: bool, broadcastable to (..., L, S).
        scale: multiplies the scores; default 1/sqrt(d), as in the paper and in torch.

    Returns:
        ``(out, weights)``: (..., L, dv) and (..., L, S). A query with no allowed key gets
        zero weights and a zero output.

    >>> out, w = scaled_dot_product_attention(np.eye(2), np.eye(2), [[1.0], [3.0]])
    >>> w.sum(axis=-1).tolist()
    [1.0, 1.0]
    """
    Q, K, V = _as_array(q, "q"), _as_array(k, "k"), _as_array(v, "v")
    d = Q.shape[-1]
    if K.shape[-1] != d:
        raise ValueError(f"q and k need the same size d: q has {d}, k has {K.shape[-1]}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"k and v need the same number of keys: {K.shape[-2]} vs {V.shape[-2]}")
    s = 1.0 / np.sqrt(d) if scale is None else float(scale)
    # scores_ij = q_i . k_j / sqrt(d)
    scores = (Q @ np.swapaxes(K, -1, -2)) * s  # (..., L, S)
    weights = masked_softmax(scores, _check_mask(mask, scores.shape))
    return weights @ V, weights  # (..., L, dv), (..., L, S)


def causal_mask(length_q: int, length_k: int | None = None) -> BoolArray:
    """(L, S) lower-triangular mask, top-left aligned: query i may attend keys j <= i.

    The same convention as torch's ``is_causal=True`` when L != S.

    >>> causal_mask(2, 3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0]]
    """
    L = int(length_q)
    S = L if length_k is None else int(length_k)
    if L < 1 or S < 1:
        raise ValueError("a causal mask needs at least one query and one key")
    return np.tril(np.ones((L, S), dtype=bool))


def padding_mask(n_tokens: int, n_padding: int) -> BoolArray:
    """(N, N) mask for a sequence whose last ``n_padding`` tokens are padding.

    No query attends a padding key, and padding queries attend nothing (their rows are
    fully masked, so their weights and outputs are zeros).
    """
    N, P = int(n_tokens), int(n_padding)
    if not 0 <= P <= N:
        raise ValueError(f"padding must be between 0 and the {N} tokens, got {P}")
    real = np.arange(N) < N - P
    return real[:, None] & real[None, :]


# ---- heads -----------------------------------------------------------------------------------


def split_heads(x: Array, n_heads: int) -> Array:
    """(..., N, D) -> (..., h, N, D/h): "(n (h d)) -> (h n d)" in einops."""
    *lead, N, D = x.shape
    return np.swapaxes(x.reshape(*lead, N, n_heads, D // n_heads), -3, -2)  # (..., h, N, d)


def merge_heads(x: Array) -> Array:
    """(..., h, N, d) -> (..., N, h*d): the concatenation of the heads."""
    *lead, h, N, d = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, N, h * d)


def check_heads(d_model: int, n_heads: int) -> int:
    """The per-head size D / h; ``ValueError`` if h does not divide D."""
    if n_heads < 1:
        raise ValueError(f"the number of heads must be at least 1, got {n_heads}")
    if d_model % n_heads:
        raise ValueError(
            f"D = {d_model} is not divisible by h = {n_heads} heads: pick h among "
            f"{[h for h in range(1, min(d_model, 16) + 1) if d_model % h == 0]}"
        )
    return d_model // n_heads


def divisors_among(n: int, candidates: Sequence[int]) -> list[int]:
    """The ``candidates`` that divide ``n`` (in their order): the choices a control offers
    when only a divisor works (h heads of a width D, a Swin window M of a map side H)."""
    return [c for c in candidates if c >= 1 and n % c == 0]


def multi_head_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
) -> tuple[Array, Array]:
    """Self-attention with h heads: Q = x W^Q, K = x W^K, V = x W^V, out = Concat(heads) W^O.

    Args:
        x: (..., N, D) tokens.
        w_q, w_k, w_v, w_o: (D, D) projections, applied as ``x @ w`` (the paper's X W^Q).
        n_heads: h, must divide D.
        mask: bool, broadcastable to (..., h, N, N) (an (N, N) mask is shared by all heads).
        scale: default 1/sqrt(D/h), the per-head size (Vaswani et al.: 1/sqrt(64) = 1/8).

    Returns:
        ``(out, weights)``: (..., N, D) and (..., h, N, N).
    """
    X = _as_array(x, "x")
    D = X.shape[-1]
    d = check_heads(D, n_heads)
    Ws = [_as_array(w, name) for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"))]
    W_o = _as_array(w_o, "w_o")
    for W, name in (*zip(Ws, ("w_q", "w_k", "w_v"), strict=True), (W_o, "w_o")):
        if W.shape != (D, D):
            raise ValueError(f"{name} must be ({D}, {D}) for D = {D}, got {W.shape}")
    Q, K, V = (split_heads(X @ W, n_heads) for W in Ws)  # (..., h, N, d) each
    s = 1.0 / np.sqrt(d) if scale is None else float(scale)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask, scale=s)  # (..., h, N, d)
    return merge_heads(heads) @ W_o, weights  # (..., N, D), (..., h, N, N)


def row_entropy(weights: ArrayLike) -> Array:
    """Entropy in nats of each row of attention weights (an all-zero row has entropy 0)."""
    p = np.asarray(weights, dtype=np.float64)
    logs = np.log(np.where(p > 0, p, 1.0))
    return -(p * logs).sum(axis=-1)


# ---- tokens for the demo -----------------------------------------------------------------


def tokenize(sentence: str, max_tokens: int = MAX_TOKENS) -> list[str]:
    """Split a sentence into word tokens (whitespace; punctuation stays attached).

    >>> tokenize("the cat sat")
    ['the', 'cat', 'sat']
    """
    tokens = sentence.split()
    if not tokens:
        raise ValueError("type a sentence with at least one word")
    if len(tokens) > max_tokens:
        raise ValueError(f"at most {max_tokens} words, please: this one has {len(tokens)}")
    if any(len(tok) > 24 for tok in tokens):
        raise ValueError("one of the words is longer than 24 characters")
    return tokens


def token_embeddings(tokens: Sequence[str], d: int, seed: int) -> Array:
    """(N, d) embeddings, N(0, 1) entries; the same word (case-insensitive) gets the same row.

    Each word's vector comes from a generator seeded by ``(seed, crc32(word))``, so it does
    not depend on the rest of the sentence (attention has no notion of order without a
    positional encoding: equal words give equal rows).
    """
    if d < 1:
        raise ValueError(f"the embedding size d must be at least 1, got {d}")
    rows = [
        np.random.default_rng([seed, zlib.crc32(tok.lower().encode())]).standard_normal(d)
        for tok in tokens
    ]
    return np.array(rows, dtype=np.float64).reshape(len(tokens), d)


def random_projections(d_model: int, rng: np.random.Generator, count: int = 4) -> list[Array]:
    """``count`` (D, D) matrices with N(0, 1/D) entries: they keep unit-variance features."""
    return [rng.standard_normal((d_model, d_model)) / np.sqrt(d_model) for _ in range(count)]


# ---- sparse patterns -------------------------------------------------------------------------


def _positions(n: int) -> NDArray[np.int64]:
    if n < 1:
        raise ValueError(f"the sequence needs at least one token, got n = {n}")
    return np.arange(n)


def _within(i: NDArray[np.int64], reach: int) -> BoolArray:
    """(n, n) |i − j| ≤ reach, by two comparisons of index vectors: no (n, n) integer array
    of offsets (at n = 2048 that was 32 MB and most of a pattern's time)."""
    return (i[None, :] >= (i - reach)[:, None]) & (i[None, :] <= (i + reach)[:, None])


def band_mask(n: int, width: int) -> BoolArray:
    """Sliding window: query i may attend key j when |i - j| <= width."""
    if width < 0:
        raise ValueError(f"the window width must be >= 0, got {width}")
    return _within(_positions(n), width)


def dilated_mask(n: int, width: int, dilation: int) -> BoolArray:
    """Dilated window: |i - j| <= width * dilation and dilation divides i - j."""
    if width < 0 or dilation < 1:
        raise ValueError(f"need width >= 0 and dilation >= 1, got {width} and {dilation}")
    i = _positions(n)
    # dilation divides i − j exactly when i and j leave the same remainder
    return _within(i, width * dilation) & np.equal.outer(i % dilation, i % dilation)


def global_mask(n: int, indices: Sequence[int]) -> BoolArray:
    """Global tokens attend every token and every token attends them (rows and columns)."""
    idx = np.asarray(list(indices), dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"global token indices must lie in 0..{n - 1}")
    if n < 1:
        raise ValueError(f"the sequence needs at least one token, got n = {n}")
    m = np.zeros((n, n), dtype=bool)
    m[idx, :] = True
    m[:, idx] = True
    return m


def random_mask(n: int, per_row: int, rng: np.random.Generator) -> BoolArray:
    """Each query attends ``per_row`` keys drawn at random without replacement."""
    if not 0 <= per_row <= n:
        raise ValueError(f"random keys per row must be between 0 and n = {n}, got {per_row}")
    m = np.zeros((n, n), dtype=bool)
    for i in range(n):
        m[i, rng.choice(n, size=per_row, replace=False)] = True
    return m


def block_local_mask(n: int, block: int) -> BoolArray:
    """Tokens attend within their block of ``block`` consecutive tokens: i // b == j // b."""
    if block < 1:
        raise ValueError(f"the block size must be at least 1, got {block}")
    if n < 1:
        raise ValueError(f"the sequence needs at least one token, got n = {n}")
    b = np.arange(n) // block
    return b[:, None] == b[None, :]


def star_mask(n: int) -> BoolArray:
    """Star-Transformer (Guo et al. 2019): token 0 is the **relay**, tokens 1 … n−1 are
    satellites on a **ring**.

    A satellite attends to itself, its two ring neighbours (satellite 1 and satellite n−1
    are neighbours: the ring closes) and the relay; the relay attends to every token. So
    any two satellites are two steps apart through the relay, with 5n − 4 pairs for n ≥ 5
    instead of n².

    >>> star_mask(5).astype(int).tolist()[1]   # satellite 1: relay, itself, 2 and 4
    [1, 1, 1, 0, 1]
    """
    if n < 1:
        raise ValueError(f"need at least one token, got n = {n}")
    mask = np.eye(n, dtype=bool)
    mask[0, :] = mask[:, 0] = True  # the relay sees and is seen by everyone
    ring = n - 1  # satellites 1 … n−1
    for i in range(1, n):
        for step in (-1, 1):
            mask[i, 1 + (i - 1 + step) % ring] = True  # ring neighbours, wrapping around
    return mask


def preset_mask(
    name: Preset,
    n: int,
    *,
    width: int = 2,
    dilation: int = 2,
    n_global: int = 1,
    per_row: int = 2,
    block: int = 4,
    rng: np.random.Generator | None = None,
) -> BoolArray:
    """A single pattern or a published combination (logical OR of patterns).

    star = global(relay token 0) + band(1) (Star-Transformer); longformer = band + dilated +
    global; etc = global + band; bigbird = global + band + random.
    """
    glob = list(range(min(n_global, n)))
    gen = rng if rng is not None else np.random.default_rng(0)
    parts: dict[str, Callable[[], BoolArray]] = {
        "band": lambda: band_mask(n, width),
        "dilated": lambda: dilated_mask(n, width, dilation),
        "global": lambda: global_mask(n, glob),
        "random": lambda: random_mask(n, min(per_row, n), gen),
        "block_local": lambda: block_local_mask(n, block),
    }
    combos = {
        "star": ("star",),
        "longformer": ("band", "dilated", "global"),
        "etc": ("global", "band"),
        "bigbird": ("global", "band", "random"),
    }
    parts["star"] = lambda: star_mask(n)
    if name in combos:
        return np.logical_or.reduce([parts[p]() for p in combos[name]])
    if name not in parts:
        raise ValueError(f"unknown pattern {name!r}: choose one of {', '.join(PRESETS)}")
    return parts[name]()


def density(mask: ArrayLike) -> float:
    """Fraction of allowed query-key pairs (1 for full attention)."""
    m = np.asarray(mask, dtype=bool)
    return float(m.mean())


def receptive_field(mask: ArrayLike, layers: int) -> BoolArray:
    """Which tokens can reach which after ``layers`` stacked attention layers.

    With the residual connection every token keeps its own information, so one layer is
    A = mask OR I, and L layers are the boolean power A^L: entry (i, j) is True when there
    is a chain i <- ... <- j of at most L allowed steps.
    """
    A = _one_layer(mask)
    if layers < 0:
        raise ValueError(f"layers must be >= 0, got {layers}")
    reach = np.eye(len(A))
    for _ in range(layers):
        reach = np.minimum(reach @ A, 1.0)  # boolean product, kept as 0/1
    return reach.astype(bool)


def _one_layer(mask: ArrayLike) -> Array:
    """A = mask OR I (the residual connection) as 0/1 floats, for products by BLAS that stay
    exact (an entry counts at most n chains); the mask must be square."""
    m = np.asarray(mask, dtype=bool)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"the mask must be square (n, n), got {m.shape}")
    return (m | np.eye(len(m), dtype=bool)).astype(np.float64)


# ---- linear attention ------------------------------------------------------------------------


def path_counts(mask: ArrayLike, layers: int) -> Array:
    """(M ∨ I)ᴸ as counts: entry (i, j) is the number of chains i ← … ← j of L allowed steps
    (a step may stay put: the residual connection). Positive exactly where
    :func:`receptive_field` is True."""
    return np.linalg.matrix_power(_one_layer(mask), layers)


def layers_to_full(mask: ArrayLike) -> int | None:
    """The fewest stacked layers after which every token can reach every token, or ``None``
    if no number of layers does (the pattern splits the tokens into separate groups)."""
    # the powers of A one after the other (receptive_field(mask, k) is the k-th); the reach
    # only grows, so once a layer adds nothing it never fills (n = 64: 105 -> 1 ms)
    A = _one_layer(mask)
    reach = np.eye(len(A))
    for k in range(1, len(A) + 1):
        grown = np.minimum(reach @ A, 1.0)
        if grown.all():
            return k
        if np.array_equal(grown, reach):
            return None
        reach = grown
    return None


def elu_feature_map(x: ArrayLike) -> Array:
    """phi(x) = elu(x) + 1: x + 1 for x > 0, exp(x) otherwise; always positive."""
    X = np.asarray(x, dtype=np.float64)
    return np.where(X > 0, X + 1.0, np.exp(np.minimum(X, 0.0)))


def linear_attention_explicit(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, causal: bool = False
) -> tuple[Array, Array]:
    """(phi(Q) phi(K)^T) V, row-normalised: builds the (N, N) matrix, O(N^2) time and memory.

    Returns:
        ``(out, weights)``: (..., N, dv) and (..., N, N); rows of ``weights`` sum to 1.
    """
    Q, K, V = _as_array(q, "q"), _as_array(k, "k"), _as_array(v, "v")
    A = elu_feature_map(Q) @ np.swapaxes(elu_feature_map(K), -1, -2)  # (..., N, N)
    if causal:
        A = A * causal_mask(A.shape[-2], A.shape[-1])
    weights = A / A.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def linear_attention_reordered(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, causal: bool = False
) -> Array:
    """phi(Q) (phi(K)^T V) / (phi(Q) sum_j phi(K_j)): never builds the (N, N) matrix, O(N).

    Causal: the sums over j run up to i, i.e. cumulative sums over the tokens
    (Katharopoulos et al. 2020, eq. 11-12).
    """
    Q, K, V = _as_array(q, "q"), _as_array(k, "k"), _as_array(v, "v")
    phi_q, phi_k = elu_feature_map(Q), elu_feature_map(K)  # (..., N, d)
    if not causal:
        # S = sum_j phi(k_j) v_j^T and z = sum_j phi(k_j)
        S = np.swapaxes(phi_k, -1, -2) @ V  # (..., d, dv)
        z = phi_k.sum(axis=-2)  # (..., d)
        return (phi_q @ S) / (phi_q @ z[..., None])
    # S_i = sum_{j<=i} phi(k_j) v_j^T, z_i = sum_{j<=i} phi(k_j)
    S = np.cumsum(phi_k[..., :, None] * V[..., None, :], axis=-3)  # (..., N, d, dv)
    z = np.cumsum(phi_k, axis=-2)  # (..., N, d)
    num = np.einsum("...nd,...nde->...ne", phi_q, S)
    return num / np.einsum("...nd,...nd->...n", phi_q, z)[..., None]


def linear_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, causal: bool = False
) -> tuple[Array, Array]:
    """Linear attention with phi = elu + 1, no 1/sqrt(d) scaling.

    Args:
        q: (..., N, d), k: (..., N, d), v: (..., N, dv).
        causal: query i only sees keys j <= i.

    Returns:
        ``(out, weights)``: the output from the reordered O(N) product (..., N, dv) and, to
        look at, the equivalent explicit row-normalised (..., N, N) matrix.
    """
    _, weights = linear_attention_explicit(q, k, v, causal)
    return linear_attention_reordered(q, k, v, causal), weights


def time_orderings(
    lengths: Sequence[int],
    d: int,
    repeats: int,
    rng: np.random.Generator,
    on_progress: Callable[[float], None] | None = None,
) -> tuple[Array, Array]:
    """Median wall-clock seconds of the explicit and the reordered product for each N.

    Args:
        lengths: sequence lengths N.
        d: feature size of q, k and v.
        repeats: timings per N; the median is robust to a busy machine.
        rng: source of the random q, k, v.
        on_progress: called with the fraction done (0..1) after each N.

    Returns:
        ``(explicit, reordered)``: (len(lengths),) median seconds each.
    """
    if repeats < 1 or d < 1:
        raise ValueError("need at least one repeat and d >= 1")
    explicit, reordered = [], []
    for index, N in enumerate(lengths):
        q, k, v = (rng.standard_normal((int(N), d)) for _ in range(3))
        t_a, t_b = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            linear_attention_explicit(q, k, v)
            t_a.append(time.perf_counter() - start)
            start = time.perf_counter()
            linear_attention_reordered(q, k, v)
            t_b.append(time.perf_counter() - start)
        explicit.append(np.median(t_a))
        reordered.append(np.median(t_b))
        if on_progress is not None:
            on_progress((index + 1) / len(lengths))
    return np.array(explicit), np.array(reordered)


def loglog_slope(x: ArrayLike, y: ArrayLike) -> float:
    """Least-squares slope of log y against log x (the exponent p in y ~ x^p)."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def extrapolate_pairs(lengths: Sequence[int], counted: Sequence[float]) -> Array:
    """Allowed pairs for every n in ``lengths``: the first ``len(counted)`` as counted on the
    mask, the rest grown linearly in n from the last counted one (sparse patterns keep a
    fixed number of keys per query, so their pairs grow like n)."""
    n = np.asarray(lengths, dtype=np.float64)
    known = np.asarray(counted, dtype=np.float64)
    if not 1 <= len(known) <= len(n):
        raise ValueError("count at least one and at most len(lengths) masks")
    tail = known[-1] / n[len(known) - 1] * n[len(known) :]
    return np.concatenate([known, tail])


def diagonal_max_rows(weights: ArrayLike) -> BoolArray:
    """Which rows of a square attention map have their largest weight on the diagonal.

    With identity projections (q = k = x) the diagonal is *often* the brightest, but not
    always: xᵢ·xⱼ > |xᵢ|² as soon as |xⱼ| cos θᵢⱼ > |xᵢ|, a longer key pointing close to xᵢ.
    A tie counts as on the diagonal.

    Args:
        weights: (N, N) attention weights (or scores: softmax keeps each row's order).

    Returns:
        (N,) bool, True where row i's maximum is at column i.

    >>> diagonal_max_rows([[0.6, 0.4], [0.7, 0.3]]).tolist()
    [True, False]
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"a square (N, N) map is needed, got shape {w.shape}")
    return np.diagonal(w) >= w.max(axis=1)


# ---- the attention-maps page's building blocks -------------------------------------------

Projections = Literal["random", "identity"]
MaskKind = Literal["none", "causal", "padding"]
MASK_KINDS: tuple[str, ...] = ("none", "causal", "padding")


def projections(d_model: int, kind: Projections, rng: np.random.Generator | None) -> list[Array]:
    """W^Q, W^K, W^V, W^O of the demo: seeded random (:func:`random_projections`) or four
    identities (then q = k = v = x and the map shows the raw similarity x_i · x_j).

    >>> [w.shape for w in projections(3, "identity", np.random.default_rng(0))]
    [(3, 3), (3, 3), (3, 3), (3, 3)]
    """
    d_model = validation.positive_int(d_model, "d")
    validation.one_of(kind, "projections", ("random", "identity"))
    return random_projections(d_model, rng) if kind == "random" else [np.eye(d_model)] * 4


def score_table(q: ArrayLike, k: ArrayLike) -> Array:
    """(L, S, 3) for every (query, key) pair: q·k, q·k/√d and the attention weight a.

    The weights are exactly those of :func:`scaled_dot_product_attention` (same scores,
    same softmax); the table is what a heatmap's hover shows next to each cell.
    """
    Q = validation.finite_array(q, "q", ndim=2)
    K = validation.finite_array(k, "k", ndim=2)
    if K.shape[1] != Q.shape[1]:
        raise CoreError(
            "attention_maps_qk_size",
            "q and k need the same size d: q has {q}, k has {k}",
            q=Q.shape[1],
            k=K.shape[1],
        )
    d = Q.shape[1]
    dots = Q @ K.T  # (L, S)
    weights = masked_softmax(dots * (1.0 / np.sqrt(d)))
    return np.stack([dots, dots / np.sqrt(d), weights], axis=-1)


def strongest_keys(row: ArrayLike, count: int) -> NDArray[np.int64]:
    """The indices of the ``count`` largest weights of one row, largest first."""
    w = validation.finite_array(row, "row", ndim=1)
    return np.argsort(w)[::-1][: validation.positive_int(count, "count")]


def attention_mask(kind: MaskKind, n: int, n_padding: int = 0) -> BoolArray:
    """(N, N) mask of the demo: ``"none"`` (all allowed), ``"causal"`` (:func:`causal_mask`)
    or ``"padding"`` (the last ``n_padding`` tokens are padding, :func:`padding_mask`).

    >>> attention_mask("none", 2).all(), attention_mask("padding", 3, 1).sum()
    (np.True_, np.int64(4))
    """
    validation.one_of(kind, "mask", MASK_KINDS)
    n = validation.positive_int(n, "tokens")
    if kind == "causal":
        return causal_mask(n)
    if kind == "padding":
        return padding_mask(n, n_padding)
    return np.ones((n, n), dtype=bool)


def head_on_its_own(
    x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike, n_heads: int, head: int = -1
) -> tuple[Array, Array]:
    """Head ``head`` computed alone: attention on its own D/h channels of x W^Q, x W^K, x W^V
    with the default scale 1/√(D/h) — what :func:`multi_head_attention` must give for it.

    Returns:
        ``(out, weights)``: (N, D/h) and (N, N).
    """
    X = validation.finite_array(x, "x", ndim=2)
    D = X.shape[1]
    d = check_heads(D, n_heads)
    i = validation.integer(head, "head", -n_heads, n_heads - 1) % n_heads
    own = slice(i * d, (i + 1) * d)
    q, k, v = ((X @ np.asarray(w, dtype=np.float64))[:, own] for w in (w_q, w_k, w_v))
    return scaled_dot_product_attention(q, k, v)


def scaling_curves(
    dims: Sequence[int], n_tokens: int, n_heads: int, seed: int
) -> tuple[Array, Array]:
    """The √(D/h)-or-√h experiment: random tokens and projections for each model size D.

    For each D in ``dims``: ``n_tokens`` N(0, 1) tokens of size D and seeded random
    projections (generator ``[seed, D]``), through :func:`multi_head_attention` with
    ``n_heads`` heads and the scale 1/√(D/h) (the paper) or 1/√h (a tutorial's slip).

    Returns:
        ``(entropy, top)``, each (len(dims), 2): the mean row entropy in nats and the mean
        largest weight of a row, column 0 for 1/√(D/h), column 1 for 1/√h.
    """
    n_heads = validation.positive_int(n_heads, "heads")
    n_tokens = validation.positive_int(n_tokens, "tokens")
    entropy, top = [], []
    for D in dims:
        check_heads(int(D), n_heads)
        rng = np.random.default_rng([seed, D])
        x = rng.standard_normal((n_tokens, D))
        ws = random_projections(D, rng)
        row_e, row_t = [], []
        for scale in (1 / np.sqrt(D // n_heads), 1 / np.sqrt(n_heads)):
            _, w = multi_head_attention(x, *ws, n_heads, scale=scale)
            row_e.append(row_entropy(w).mean())
            row_t.append(w.max(axis=-1).mean())
        entropy.append(row_e)
        top.append(row_t)
    return np.array(entropy), np.array(top)
