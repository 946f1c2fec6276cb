"""One input, every efficient attention: the same Q, K, V through each method, against full.

Each method is the repository's own implementation (``core.attention`` for the sparse
patterns and linear attention, ``core.windows`` for Swin's shifted windows, ``core.sra``
for PVT's spatial reduction, ``core.lsh`` for Reformer's hashing, ``core.routing`` for the
Routing Transformer's k-means); this module only feeds them one shared input and measures
what each gives up against full softmax attention (Vaswani et al. 2017).

Shape legend: N = side² tokens of a side×side map in row-major order, D input channels,
d query/key width, dv value width, M window side, R reduction ratio, b buckets, k clusters.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from core import attention, lsh, routing, sra, validation, windows
from core.arrays import Array, BoolArray, IntArray
from core.errors import CoreError

Method = Literal[
    "full", "band", "dilated", "bigbird", "swin", "sra", "linear", "reformer", "routing"
]
METHODS: tuple[Method, ...] = (
    "full",
    "band",
    "dilated",
    "bigbird",
    "swin",
    "sra",
    "linear",
    "reformer",
    "routing",
)
MASKED: frozenset[str] = frozenset({"band", "dilated", "bigbird", "swin", "reformer", "routing"})


@dataclass(frozen=True)
class Settings:
    """Each method's knobs (one shared object, so a method's dense limit is one ``replace``).

    Attributes:
        width: band half-width w (|i − j| ≤ w), also BigBird's window and dilated's reach.
        dilation: the dilated pattern's step.
        n_global: BigBird's global tokens (the first ones).
        per_row: BigBird's random keys per query.
        window: Swin's window side M (divides the map side).
        shift: Swin shifts its windows by M // 2 (the second block of a pair).
        ratio: PVT's reduction ratio R (divides the map side).
        buckets: Reformer's b (1 = one bucket: no hashing), even otherwise.
        rounds: Reformer's hash rounds n.
        clusters: the Routing Transformer's k.
    """

    width: int = 8
    dilation: int = 2
    n_global: int = 2
    per_row: int = 4
    window: int = 4
    shift: bool = True
    ratio: int = 2
    buckets: int = 8
    rounds: int = 2
    clusters: int = 4


@dataclass(frozen=True)
class GalleryInput:
    """The one input every method sees.

    Attributes:
        side: the map's side; N = side².
        x: (N, D) token features.
        q, k: (N, d) queries and keys, x W_q and x W_k.
        v: (N, dv) values, x W_v.
        w_k, w_v: (D, d), (D, dv) the projections (PVT projects its reduced tokens).
    """

    side: int
    x: Array
    q: Array
    k: Array
    v: Array
    w_k: Array
    w_v: Array


@dataclass(frozen=True)
class MethodResult:
    """One method on the shared input.

    Attributes:
        out: (N, dv) its output.
        weights: (N, N) each query's weights over the N tokens (PVT's reduced keys spread
            evenly over the R×R tokens they average; linear attention's implied weights),
            or (0, 0) when :func:`run` was asked not to draw them.
        mask: (N, N) bool, the pairs it may use, or ``None`` (PVT, linear: no mask).
        flops: multiply–adds × 2 of the attention itself plus the method's own overhead
            (hashing, cluster assignment, reduction), not the Q/K/V projections.
        peak: the most score entries (or, for linear attention, state entries) held at once.
    """

    out: Array
    weights: Array
    mask: BoolArray | None
    flops: int
    peak: int


@dataclass(frozen=True)
class Score:
    """How a method compares with full attention on the shared input.

    Attributes:
        error: ‖O − O_full‖_F / ‖O_full‖_F.
        kept_mass: mean over queries of the full-attention weight its mask keeps (or None).
        recall: mean over queries of the share of their top-k full-attention keys it keeps.
        flops, peak: as in :class:`MethodResult`.
    """

    method: str
    error: float
    kept_mass: float | None
    recall: float | None
    flops: int
    peak: int


def make_input(
    x: Array,
    side: int,
    d: int,
    rng: np.random.Generator,
    sharpness: float = 1.0,
    key_noise: float = 0.3,
) -> GalleryInput:
    """Project token features x (side², D) to Q, K, V with seeded random weights.

    W_q has N(0, 1/D) entries times ``sharpness`` and W_k = W_q + ``key_noise`` × another
    such draw, so a query prefers keys of similar content (score ≈ xᵢ W_q W_qᵀ xⱼ): the
    structure the content-based methods (Reformer, routing) look for. Sharpness scales the
    scores like an inverse temperature: at 0 every row is uniform. W_v is independent.
    """
    x = validation.finite_array(x, "x", ndim=2)
    side = validation.positive_int(side, "side")
    d = validation.positive_int(d, "d")
    if x.shape[0] != side * side:
        raise CoreError(
            "gallery_tokens", "x has {n} tokens but side² = {N}", n=x.shape[0], N=side * side
        )
    sharpness = validation.non_negative(sharpness, "sharpness")
    D = x.shape[1]
    w_q, noise, w_v = (rng.standard_normal((D, d)) / np.sqrt(D) for _ in range(3))
    w_k = w_q + key_noise * noise
    w_q = sharpness * w_q
    return GalleryInput(side, x, x @ w_q, x @ w_k, x @ w_v, w_k, w_v)


# ---- the masks of the content-free and content-based patterns --------------------------


def swin_mask(side: int, window: int, shift: bool) -> BoolArray:
    """(N, N) Swin's pattern in the original token order: same window after the cyclic
    shift by s = M // 2 (none when ``shift`` is False) and, as Swin's attention mask says,
    the same region of the rolled map."""
    M = windows.check_window(side, side, window)
    s = M // 2 if shift else 0
    i, j = np.divmod(np.arange(side * side), side)  # original row, column
    a, b = (i - s) % side, (j - s) % side  # where cyclic_shift moves the token
    win = (a // M) * (side // M) + b // M
    region = windows.shifted_window_regions(side, side, M, s)[a, b]
    return (win[:, None] == win[None, :]) & (region[:, None] == region[None, :])


def _unit(x: Array) -> Array:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def reformer_mask(
    q: Array, k: Array, buckets: int, rounds: int, rng: np.random.Generator
) -> BoolArray:
    """(N, N) query i may use key j when their unit vectors share a bucket in some round.

    Reformer hashes one shared QK; with separate Q and K both are hashed with the same
    rotations (angular LSH on unit vectors). b = 1 is one bucket: every pair.
    """
    b = validation.positive_int(buckets, "b")
    n = validation.positive_int(rounds, "n")
    if b == 1:
        return np.ones((q.shape[0], k.shape[0]), dtype=bool)
    rot = lsh.random_rotations(q.shape[1], b, rng, n_hashes=n)  # (n, d, b/2)
    hq, hk = lsh.lsh_buckets(_unit(q), rot), lsh.lsh_buckets(_unit(k), rot)  # (n, N) each
    return np.any(hq[:, :, None] == hk[:, None, :], axis=0)


def routing_mask(q: Array, k: Array, clusters: int, rng: np.random.Generator) -> BoolArray:
    """(N, N) query i may use key j when both are nearest to the same k-means centroid.

    As in the Routing Transformer, queries and keys share one set of centroids, learnt on
    their unit vectors together. k = 1 is one cluster: every pair.
    """
    k_ = validation.positive_int(clusters, "k")
    qu, ku = _unit(q), _unit(k)
    fit = routing.kmeans(np.concatenate([qu, ku]), k_, rng)
    lq, lk = routing.assign(qu, fit.centroids), routing.assign(ku, fit.centroids)
    return lq[:, None] == lk[None, :]


def pattern(method: str, inp: GalleryInput, settings: Settings, seed: int) -> BoolArray:
    """The (N, N) mask of a masked method (True = may attend)."""
    N, s = inp.side**2, settings
    rng = np.random.default_rng(seed)
    if method == "band":
        return attention.band_mask(N, s.width)
    if method == "dilated":
        return attention.dilated_mask(N, s.width, s.dilation)
    if method == "bigbird":
        return attention.preset_mask(
            "bigbird", N, width=s.width, n_global=s.n_global, per_row=s.per_row, rng=rng
        )
    if method == "swin":
        return swin_mask(inp.side, s.window, s.shift)
    if method == "reformer":
        return reformer_mask(inp.q, inp.k, s.buckets, s.rounds, rng)
    if method == "routing":
        return routing_mask(inp.q, inp.k, s.clusters, rng)
    raise CoreError(
        "gallery_method",
        "unknown method {name}: choose one of {names}",
        name=method,
        names=", ".join(METHODS),
    )


# ---- running a method --------------------------------------------------------------------


def _overhead(method: str, inp: GalleryInput, settings: Settings) -> int:
    """FLOPs a masked method spends before attending: hashing or assigning to clusters."""
    N, d = inp.q.shape
    if method == "reformer" and settings.buckets > 1:  # [xR; −xR] for queries and keys
        return 2 * 2 * N * d * (settings.buckets // 2) * settings.rounds
    if method == "routing" and settings.clusters > 1:  # distances of queries and keys
        return 2 * 2 * N * d * settings.clusters
    return 0


def run(
    method: str,
    inp: GalleryInput,
    settings: Settings = Settings(),
    seed: int = 0,
    with_weights: bool = True,
) -> MethodResult:
    """Run ``method`` on the shared input (``seed`` draws its random parts).

    ``with_weights=False`` skips what only the picture needs: linear attention then runs its
    reordered product alone (no N × N matrix) and PVT does not spread its weights back over
    the tokens; ``weights`` is then an empty (0, 0) array.
    """
    q, k, v = inp.q, inp.k, inp.v
    N, d = q.shape
    dv = v.shape[1]
    if method == "full":
        out, w = attention.scaled_dot_product_attention(q, k, v)
        return MethodResult(out, w, None, 2 * N * N * (d + dv), N * N)
    if method == "linear":
        if with_weights:
            out, w = attention.linear_attention(q, k, v)
        else:
            out, w = attention.linear_attention_reordered(q, k, v), np.zeros((0, 0))
        # φ(K)ᵀV and φ(Q)(φ(K)ᵀV), the normaliser φ(Q)Σφ(K): never an N × N matrix
        return MethodResult(out, w, None, 4 * N * d * dv + 4 * N * d, d * dv)
    if method == "sra":
        R = sra.check_ratio(inp.side, inp.side, settings.ratio)
        D = inp.x.shape[1]
        reduced = sra.reshape_for_reduction(inp.x, inp.side, inp.side, R)  # (N/R², R²D)
        xr = reduced @ sra.mean_pool_projection(R, D)  # (N/R², D): each R×R patch averaged
        out, w_r = attention.scaled_dot_product_attention(q, xr @ inp.w_k, xr @ inp.w_v)
        S = N // (R * R)
        # (N, N): each reduced key's weight spread evenly over the R×R tokens it averages
        w = w_r[:, reduced_index(inp.side, R)] / (R * R) if with_weights else np.zeros((0, 0))
        return MethodResult(out, w, None, 2 * N * S * (d + dv) + 2 * N * D * D, N * S)
    mask = pattern(method, inp, settings, seed)
    out, w = attention.scaled_dot_product_attention(q, k, v, mask)
    pairs = int(mask.sum())
    flops = 2 * pairs * (d + dv) + _overhead(method, inp, settings)
    return MethodResult(out, w, mask, flops, pairs)


def reduced_index(side: int, ratio: int) -> Array:
    """(N,) the reduced token (row-major over the side/R map) that averages each token."""
    i, j = np.divmod(np.arange(side * side), side)
    return (i // ratio) * (side // ratio) + j // ratio


def relative_error(out: Array, reference: Array) -> float:
    """‖out − reference‖_F / ‖reference‖_F."""
    return float(np.linalg.norm(out - reference) / np.linalg.norm(reference))


def row_errors(out: Array, reference: Array) -> Array:
    """Per query: ‖oᵢ − oᵢ_full‖ / ‖oᵢ_full‖, (N,)."""
    ref = np.linalg.norm(reference, axis=-1)
    return np.linalg.norm(out - reference, axis=-1) / np.maximum(ref, 1e-300)


def score(
    method: str,
    result: MethodResult,
    full: MethodResult,
    scores: Array,
    top_k: int = 8,
    top: IntArray | None = None,
) -> Score:
    """Compare one method's result with full attention's (``scores``: q kᵀ/√d, (N, N)).

    ``top``: each query's ``top_k`` best keys (``lsh.top_k_keys(scores, top_k)``), when the
    caller scores several methods on the same input (one sort instead of one per method).
    """
    mass = recall = None
    if result.mask is not None:
        mass = float(lsh.kept_attention_mass(full.weights, result.mask).mean())
        best = lsh.top_k_keys(scores, top_k) if top is None else top
        recall = float(lsh.recall_of_top(best, result.mask).mean())
    elif method == "full":
        mass, recall = 1.0, 1.0
    err = relative_error(result.out, full.out)
    return Score(method, err, mass, recall, result.flops, result.peak)


def compare(
    inp: GalleryInput,
    settings: Settings = Settings(),
    seed: int = 0,
    methods: Sequence[str] = METHODS,
    top_k: int = 8,
) -> list[Score]:
    """Every method on the shared input, scored against full attention (in ``methods`` order)."""
    full = run("full", inp)
    scores = inp.q @ inp.k.T / np.sqrt(inp.q.shape[1])  # (N, N)
    top = lsh.top_k_keys(scores, top_k)
    return [
        score(m, full if m == "full" else run(m, inp, settings, seed), full, scores, top_k, top)
        for m in methods
    ]


KNOBS: dict[str, tuple[str, ...]] = {
    "full": (),
    "band": ("width",),
    "dilated": ("width", "dilation"),
    "bigbird": ("width", "n_global", "per_row"),
    "swin": ("window", "shift"),
    "sra": ("ratio",),
    "linear": (),
    "reformer": ("buckets", "rounds"),
    "routing": ("clusters",),
}
"""The fields of :class:`Settings` each method reads (its mask, FLOPs and dense limit)."""


def own_settings(method: str, settings: Settings) -> Settings:
    """``settings`` with every knob the method does not read back at its default: two
    settings that differ only in other methods' knobs give one key (one cache entry)."""
    if method not in KNOBS:
        raise CoreError(
            "gallery_method",
            "unknown method {name}: choose one of {names}",
            name=method,
            names=", ".join(METHODS),
        )
    return replace(Settings(), **{k: getattr(settings, k) for k in KNOBS[method]})


def dense_limit(method: str, side: int, settings: Settings = Settings()) -> Settings:
    """The settings at which ``method`` keeps every pair: it then IS full attention.

    Band w = N − 1, dilation 1 with reach N − 1, BigBird's band over everything, one Swin
    window the size of the map and no shift, R = 1, one bucket, one cluster. Linear
    attention has none (its kernel is not the softmax): ``CoreError``.
    """
    N = side * side
    limits = {
        "full": settings,
        "band": replace(settings, width=N - 1),
        "dilated": replace(settings, width=N - 1, dilation=1),
        "bigbird": replace(settings, width=N - 1),
        "swin": replace(settings, window=side, shift=False),
        "sra": replace(settings, ratio=1),
        "reformer": replace(settings, buckets=1),
        "routing": replace(settings, clusters=1),
    }
    if method not in limits:
        raise CoreError("gallery_no_limit", "{name} has no dense limit", name=method)
    return limits[method]


def ranking(scores: Sequence[Score]) -> list[int]:
    """Indices of ``scores`` from the smallest error to the largest (ties: fewer FLOPs first)."""
    return sorted(range(len(scores)), key=lambda i: (scores[i].error, scores[i].flops))


def pareto_front(cost: Sequence[float], error: Sequence[float]) -> BoolArray:
    """True for the methods no other method beats on both cost and error (ties kept)."""
    c, e = np.asarray(cost, dtype=np.float64), np.asarray(error, dtype=np.float64)
    better_or_equal = (c[None, :] <= c[:, None]) & (e[None, :] <= e[:, None])
    strictly = (c[None, :] < c[:, None]) | (e[None, :] < e[:, None])
    return ~np.any(better_or_equal & strictly, axis=1)


def time_methods(
    make: Callable[[int], GalleryInput],
    sides: Sequence[int],
    methods: Sequence[str],
    settings: Settings = Settings(),
    repeats: int = 3,
    on_progress: Callable[[float], None] | None = None,
) -> Array:
    """Median wall-clock seconds of each method at each map side, (len(methods), len(sides)).

    ``make(side)`` builds the input. The masked methods are run as the repository runs them,
    with a dense N × N mask, so their time tracks full attention's; only a kernel that skips
    the masked pairs would realise their FLOP count.
    """
    if repeats < 1:
        raise CoreError("gallery_repeats", "need at least one repeat, got {n}", n=repeats)
    times = np.zeros((len(methods), len(sides)))
    for col, side in enumerate(sides):
        inp = make(int(side))
        for row, method in enumerate(methods):
            samples = []
            for _ in range(repeats):
                start = time.perf_counter()
                run(method, inp, settings, with_weights=False)
                samples.append(time.perf_counter() - start)
            times[row, col] = float(np.median(samples))
        if on_progress is not None:
            on_progress((col + 1) / len(sides))
    return times
