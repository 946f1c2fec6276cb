"""Reverse diffusion: from noise back to data (numpy float64, the paper's t ∈ 1..T).

Ho, Jain & Abbeel 2020 (DDPM), Sec. 3.2 and Algorithm 2: the ancestral step
x_{t-1} = 1/√α_t · (x_t − β_t/√(1−ᾱ_t) · ε_θ(x_t, t)) + σ_t z with σ_t² = β̃_t or β_t.
Song, Meng & Ermon 2021 (DDIM), Eq. 12 and Sec. 4.3: the step to any earlier t_prev,
x_prev = √ᾱ_prev x̂_0 + √(1−ᾱ_prev−σ²) ε̂ + σ z, with σ = η √((1−ᾱ_prev)/(1−ᾱ_t)) √(1−ᾱ_t/ᾱ_prev);
η = 0 is deterministic and is Euler's method for the probability-flow ODE written in
σ = √((1−ᾱ)/ᾱ) and y = x/√ᾱ, dy/dσ = ε(x, t) (DDIM Eq. 14; Karras et al. 2022, Sec. 3,
whose Heun step :func:`ode_step` also takes). Salimans & Ho 2022, Sec. 4 (v = √ᾱ ε − √(1−ᾱ) x_0).
Song et al. 2021 (score SDE): the score ∇ log q_t(x_t) = −E[ε | x_t]/√(1−ᾱ_t) (Tweedie).

The exact denoiser: when x_0 ~ Σ_k w_k N(μ_k, σ_k² I), then given component k,
x_t ~ N(√ᾱ_t μ_k, s_k² I) with s_k² = ᾱ_t σ_k² + 1 − ᾱ_t, so q(x_t) is a mixture too, and
E[ε | x_t] = Σ_k r_k(x_t) · √(1−ᾱ_t) (x_t − √ᾱ_t μ_k) / s_k², r_k the posterior weight of k.

Conventions: ᾱ_0 = 1 (t_prev = 0 means "the data"); diffusers counts timesteps from 0 (its
k is our t = k + 1). Shape legend: N points, d dimensions, K mixture components, T steps,
S sampling steps, P projection directions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from core import toydata
from core.arrays import Array, IntArray
from core.diffusion import Schedule
from core.errors import CoreError
from core.softmax import masked_softmax
from core.validation import finite_array, integer, non_negative, one_of, positive_int

Prediction = Literal["eps", "x0", "v", "score"]
PREDICTIONS: tuple[str, ...] = ("eps", "x0", "v", "score")
Sampler = Literal["ddpm", "ddim", "euler", "heun"]
SAMPLERS: tuple[str, ...] = ("ddpm", "ddim", "euler", "heun")
Variance = Literal["posterior", "beta"]
EpsModel = Callable[[Array, int], Array]  # ε̂(x_t, t) for a batch x_t (N, d) at one step t


# ---- schedules ------------------------------------------------------------------------------
def alpha_bar_at(t: int, schedule: Schedule) -> float:
    """ᾱ_t for t ∈ 0..T, with ᾱ_0 = 1 (no noise yet)."""
    t = integer(t, "t", 0, schedule.num_steps)
    return 1.0 if t == 0 else float(schedule.alpha_bars[t - 1])


def _step(t: object, schedule: Schedule, lo: int = 1) -> int:
    return integer(t, "t", lo, schedule.num_steps)


def sampling_steps(num_steps: int, n_steps: int) -> IntArray:
    """The S + 1 steps a sampler visits, from T down to 0, evenly spaced ("trailing").

    Starts at T, where training saw the most noise, as Lin et al. 2024 (Sec. 3.3) advise.

    >>> sampling_steps(1000, 4).tolist()
    [1000, 750, 500, 250, 0]
    """
    T = positive_int(num_steps, "T")
    S = integer(n_steps, "steps", 1, T)
    return np.round(np.linspace(T, 0, S + 1)).astype(np.int64)


# ---- the exact denoiser of a Gaussian mixture --------------------------------------------
@dataclass(frozen=True)
class Mixture:
    """x_0 ~ Σ_k w_k N(μ_k, σ_k² I): means (K, d), stds (K,), weights (K,) summing to 1."""

    means: Array
    stds: Array
    weights: Array


def mixture(means: ArrayLike, stds: ArrayLike, weights: ArrayLike) -> Mixture:
    """Checked mixture parameters; weights ≥ 0 are normalised to sum to 1."""
    mu = finite_array(means, "means", ndim=2)
    K = mu.shape[0]
    sd = finite_array(stds, "stds", ndim=1)
    w = finite_array(weights, "weights", ndim=1)
    if sd.shape != (K,) or w.shape != (K,):
        raise CoreError(
            "reverse_mixture_shapes",
            "the mixture has {K} means but {n_std} spreads and {n_w} weights: give one each",
            K=K,
            n_std=sd.shape[0],
            n_w=w.shape[0],
        )
    if np.any(sd < 0) or np.any(w < 0) or w.sum() <= 0:
        raise CoreError(
            "reverse_mixture_signs", "spreads and weights must be ≥ 0, with some weight > 0"
        )
    return Mixture(mu, sd, w / w.sum())


def _component_terms(x: Array, alpha_bar: float, mix: Mixture) -> tuple[Array, Array, Array]:
    """For every point and component: log(w_k N(x; √ᾱ μ_k, s_k² I)), x − √ᾱ μ_k, s_k²."""
    N, d = x.shape
    if mix.means.shape[1] != d:
        raise CoreError(
            "reverse_dimension",
            "the points have {d} coordinates but the means have {d_mu}",
            d=d,
            d_mu=mix.means.shape[1],
        )
    # s_k² = ᾱ σ_k² + 1 − ᾱ: the variance of x_t given component k
    s2 = alpha_bar * mix.stds**2 + (1.0 - alpha_bar)  # (K,)
    if np.any(s2 <= 0):
        raise CoreError("reverse_point_mass", "a component with spread 0 has no density at t = 0")
    diff = x[:, None, :] - math.sqrt(alpha_bar) * mix.means[None, :, :]  # (N, K, d)
    with np.errstate(divide="ignore"):
        log_w = np.log(mix.weights)
    # log N(x; m, s² I) = −‖x − m‖²/(2s²) − d/2 · log(2π s²)
    log_terms = (
        log_w - np.sum(diff**2, axis=-1) / (2 * s2) - 0.5 * d * np.log(2 * math.pi * s2)
    )  # (N, K)
    return log_terms, diff, s2


def gmm_log_density(
    x: ArrayLike,
    t: int,
    schedule: Schedule,
    means: ArrayLike,
    stds: ArrayLike,
    weights: ArrayLike,
) -> Array:
    """log q(x_t) at the points ``x`` (N, d) for a Gaussian-mixture x_0; t = 0 is the data."""
    x = finite_array(x, "x", ndim=2)
    terms, _, _ = _component_terms(x, alpha_bar_at(t, schedule), mixture(means, stds, weights))
    return np.logaddexp.reduce(terms, axis=1)


def gmm_score_by_differences(
    x: ArrayLike,
    t: int,
    schedule: Schedule,
    means: ArrayLike,
    stds: ArrayLike,
    weights: ArrayLike,
    h: float = 1e-5,
) -> Array:
    """∇ log q(x_t) by central differences of :func:`gmm_log_density`, (N, d): a check of the
    closed-form score that shares none of its algebra."""
    x = finite_array(x, "x", ndim=2)
    h = float(h)
    columns = []
    for e in np.eye(x.shape[1]):
        up = gmm_log_density(x + h * e, t, schedule, means, stds, weights)
        down = gmm_log_density(x - h * e, t, schedule, means, stds, weights)
        columns.append((up - down) / (2 * h))
    return np.stack(columns, axis=1)


@dataclass(frozen=True)
class MixturePosterior:
    """What x_t says about x_0 and ε under a Gaussian-mixture x_0 (all per point).

    Attributes:
        responsibilities: (N, K) r_k(x_t) = P(component k | x_t); rows sum to 1.
        eps: (N, d) E[ε | x_t], the exact ε* a perfect network would predict.
        x0: (N, d) E[x_0 | x_t], the exact x̂_0.
        score: (N, d) ∇ log q_t(x_t) = −E[ε | x_t]/√(1−ᾱ_t).
    """

    responsibilities: Array
    eps: Array
    x0: Array
    score: Array


def gmm_posterior(
    x_t: ArrayLike,
    t: int,
    schedule: Schedule,
    means: ArrayLike,
    stds: ArrayLike,
    weights: ArrayLike,
) -> MixturePosterior:
    """E[ε | x_t], E[x_0 | x_t], the score and the component weights, in closed form.

    Args:
        x_t: (N, d) noisy points at step t.
        t: the paper's step, 1..T.
        schedule: from ``core.diffusion.make_schedule`` (or ``core.snr_schedules``).
        means, stds, weights: (K, d), (K,), (K,) of x_0 ~ Σ_k w_k N(μ_k, σ_k² I).
    """
    x = finite_array(x_t, "x_t", ndim=2)
    a = alpha_bar_at(_step(t, schedule), schedule)
    mix = mixture(means, stds, weights)
    log_terms, diff, s2 = _component_terms(x, a, mix)
    r = masked_softmax(log_terms, axis=1)  # (N, K)
    # given k: E[ε | x_t, k] = √(1−ᾱ) (x_t − √ᾱ μ_k)/s_k²
    eps = np.einsum("nk,nkd->nd", r / s2, diff) * math.sqrt(1.0 - a)
    # given k: E[x_0 | x_t, k] = μ_k + √ᾱ σ_k² (x_t − √ᾱ μ_k)/s_k²
    x0 = r @ mix.means + math.sqrt(a) * np.einsum("nk,nkd->nd", r * mix.stds**2 / s2, diff)
    # ∇ log q_t(x_t) = Σ_k r_k · (−(x_t − √ᾱ μ_k)/s_k²)
    score = -np.einsum("nk,nkd->nd", r / s2, diff)
    return MixturePosterior(r, eps, x0, score)


def gmm_eps(
    x_t: ArrayLike,
    t: int,
    schedule: Schedule,
    means: ArrayLike,
    stds: ArrayLike,
    weights: ArrayLike,
) -> Array:
    """The exact ε*(x_t, t) = E[ε | x_t], (N, d), when x_0 ~ Σ_k w_k N(μ_k, σ_k² I).

    >>> from core.diffusion import make_schedule
    >>> s = make_schedule("linear", 1000)
    >>> gmm_eps([[0.5, 0.0]], 1000, s, [[0.0, 0.0]], [1.0], [1.0]).round(3).tolist()
    [[0.5, 0.0]]
    """
    x = finite_array(x_t, "x_t", ndim=2)
    return _mixture_eps(
        x, alpha_bar_at(_step(t, schedule), schedule), mixture(means, stds, weights)
    )


def _mixture_eps(x: Array, a: float, mix: Mixture) -> Array:
    """E[ε | x_t] at ᾱ_t = a for a checked mixture (the samplers call it at every step).

    gmm_posterior's ε in a faster form: components along the first axis (K, N), and the log
    of w_k N(x; cμ_k, s_k² I) expanded as b_k + (cμ_k/s_k²)·x − ‖x‖²/(2s_k²) (one matrix
    product, no (N, K, d) array); then ε = √(1−ᾱ) (x Σ_k w_k − c Σ_k w_k μ_k) with
    w_k = r_k/s_k². The (K, N) array is reused in place: this runs 1,745 times a quality curve.
    """
    N, d = x.shape
    s2 = a * mix.stds**2 + (1.0 - a)  # (K,)
    if mix.means.shape[1] != d or np.any(s2 <= 0):
        _component_terms(x, a, mix)  # raises its "reverse_dimension" or "point_mass" error
    c = math.sqrt(a)
    inv = 1.0 / s2
    with np.errstate(divide="ignore"):
        log_w = np.log(mix.weights)
    # b_k = log w_k − d/2 log(2π s_k²) − c²‖μ_k‖²/(2 s_k²)
    bias = log_w - 0.5 * d * np.log(2 * math.pi * s2) - 0.5 * a * inv * np.sum(mix.means**2, 1)
    z = ((c * inv)[:, None] * mix.means) @ x.T  # (K, N): the cross terms
    z -= (0.5 * inv)[:, None] * np.einsum("nd,nd->n", x, x)[None, :]
    z += bias[:, None]
    z -= z.max(axis=0)
    np.exp(z, out=z)  # a zero weight: exp(−inf) = 0
    z /= z.sum(axis=0)  # r_k, the responsibilities
    z *= inv[:, None]  # w_k = r_k / s_k²
    return math.sqrt(1.0 - a) * (x * z.sum(axis=0)[:, None] - c * (z.T @ mix.means))


def gmm_sample(
    n: int, means: ArrayLike, stds: ArrayLike, weights: ArrayLike, rng: np.random.Generator
) -> tuple[Array, IntArray]:
    """n draws of x_0 from the mixture: points (n, d) and their component labels (n,)."""
    n = positive_int(n, "n")
    mix = mixture(means, stds, weights)
    labels = rng.choice(len(mix.weights), size=n, p=mix.weights)
    noise = rng.standard_normal((n, mix.means.shape[1]))
    return mix.means[labels] + mix.stds[labels, None] * noise, labels.astype(np.int64)


# ---- the page's toy data ------------------------------------------------------------------
DATA_KINDS: tuple[str, ...] = ("mixture", *toydata.SHAPES_2D)


@dataclass(frozen=True)
class DataSpec:
    """Which 2-D data: a Gaussian mixture (the exact ε* is known) or a shape (it is not).

    Attributes:
        kind: ``"mixture"`` or one of ``core.toydata.SHAPES_2D``.
        layout, components, spread, balance: the mixture (``core.toydata.mixture_preset``).
        noise: the shapes' noise (standard deviation).
    """

    kind: str = "mixture"
    layout: str = "ring"
    components: int = 4
    spread: float = 0.15
    balance: float = 0.6
    noise: float = 0.04

    def mixture(self) -> Mixture | None:
        """The mixture's parameters, or ``None`` for a shape."""
        one_of(self.kind, "data", DATA_KINDS)
        if self.kind != "mixture":
            return None
        return mixture(
            *toydata.mixture_preset(self.layout, self.components, self.spread, self.balance)
        )

    def sample(self, n: int, rng: np.random.Generator) -> Array:
        """n points (n, 2) of this data."""
        mix = self.mixture()
        if mix is None:
            return toydata.shape_2d(self.kind, n, self.noise, rng)
        return gmm_sample(n, mix.means, mix.stds, mix.weights, rng)[0]


# ---- what a network predicts --------------------------------------------------------------
def _same_shape(x_t: ArrayLike, value: ArrayLike, name: str) -> tuple[Array, Array]:
    x = finite_array(x_t, "x_t")
    return x, _like(x, value, name)


def _like(x: Array, value: ArrayLike, name: str) -> Array:
    """``value`` checked to be finite and of the (checked) ``x``'s shape."""
    v = finite_array(value, name)
    if x.shape != v.shape:
        raise CoreError(
            "reverse_shapes",
            "x_t has shape {a} but {name} has shape {b}: they must match",
            a=x.shape,
            name=name,
            b=v.shape,
        )
    return v


def to_eps(
    x_t: ArrayLike, t: int, value: ArrayLike, prediction: Prediction, schedule: Schedule
) -> Array:
    """ε̂ from a prediction of ε, x_0, v or the score at (x_t, t).

    With x_t = √ᾱ x_0 + √(1−ᾱ) ε and v = √ᾱ ε − √(1−ᾱ) x_0:
    from x_0: ε = (x_t − √ᾱ x_0)/√(1−ᾱ); from v: ε = √(1−ᾱ) x_t + √ᾱ v;
    from the score s: ε = −√(1−ᾱ) s.
    """
    one_of(prediction, "prediction", PREDICTIONS)
    x, p = _same_shape(x_t, value, prediction)
    a = alpha_bar_at(_step(t, schedule), schedule)
    if prediction == "eps":
        return p
    if prediction == "x0":
        return (x - math.sqrt(a) * p) / math.sqrt(1.0 - a)
    if prediction == "v":
        return math.sqrt(1.0 - a) * x + math.sqrt(a) * p
    return -math.sqrt(1.0 - a) * p


def to_x0(
    x_t: ArrayLike, t: int, value: ArrayLike, prediction: Prediction, schedule: Schedule
) -> Array:
    """x̂_0 from a prediction of ε, x_0, v or the score at (x_t, t).

    From ε: x̂_0 = (x_t − √(1−ᾱ) ε)/√ᾱ (DDPM Eq. 15), undefined where ᾱ_t = 0;
    from v: x̂_0 = √ᾱ x_t − √(1−ᾱ) v, finite everywhere (why Lin et al. train on v).
    """
    one_of(prediction, "prediction", PREDICTIONS)
    x, p = _same_shape(x_t, value, prediction)
    a = alpha_bar_at(_step(t, schedule), schedule)
    if prediction == "x0":
        return p
    if prediction == "v":
        return math.sqrt(a) * x - math.sqrt(1.0 - a) * p
    if a == 0.0:
        raise CoreError(
            "reverse_zero_alpha_bar",
            "at t = {t} ᾱ_t = 0: x_t holds no trace of x_0, and ε cannot give x̂_0 "
            "(predict v or x_0 instead)",
            t=t,
        )
    eps = to_eps(x, t, p, prediction, schedule)
    return (x - math.sqrt(1.0 - a) * eps) / math.sqrt(a)


def convert(
    x_t: ArrayLike,
    t: int,
    value: ArrayLike,
    source: Prediction,
    target: Prediction,
    schedule: Schedule,
) -> Array:
    """A prediction of ``source`` (ε, x_0, v or the score) at (x_t, t) as a ``target``.

    The four are one quantity in four coordinates: any one fixes the others given x_t.

    >>> from core.diffusion import make_schedule
    >>> s = make_schedule("cosine", 10)
    >>> x, eps = np.array([0.3, -1.0]), np.array([1.0, 0.5])
    >>> back = convert(x, 4, convert(x, 4, eps, "eps", "v", s), "v", "eps", s)
    >>> bool(np.allclose(back, eps))
    True
    """
    one_of(target, "target", PREDICTIONS)
    a = alpha_bar_at(_step(t, schedule), schedule)
    if target == source:  # the identity, defined even where ᾱ_t = 0
        one_of(source, "source", PREDICTIONS)
        return _same_shape(x_t, value, source)[1]
    if target == "x0":
        return to_x0(x_t, t, value, source, schedule)
    if target == "v" and source == "x0":
        x, x0 = _same_shape(x_t, value, source)
        if a == 0.0:  # x_t = ε: v = √ᾱ ε − √(1−ᾱ) x_0 = −x_0
            return -x0
        eps = to_eps(x, t, x0, "x0", schedule)
        return math.sqrt(a) * eps - math.sqrt(1.0 - a) * x0
    eps = to_eps(x_t, t, value, source, schedule)
    x = np.asarray(x_t, dtype=np.float64)
    if target == "eps":
        return eps
    if target == "score":
        return -eps / math.sqrt(1.0 - a)
    # v = √ᾱ ε − √(1−ᾱ) x̂_0 = (ε − √(1−ᾱ) x_t)/√ᾱ
    if a == 0.0:
        raise CoreError(
            "reverse_zero_alpha_bar",
            "at t = {t} ᾱ_t = 0: x_t holds no trace of x_0, and ε cannot give x̂_0 "
            "(predict v or x_0 instead)",
            t=t,
        )
    return (eps - math.sqrt(1.0 - a) * x) / math.sqrt(a)


def x0_loss_weights(schedule: Schedule, prediction: Prediction) -> Array:
    """w_t with ‖target − target̂‖² = w_t · ‖x_0 − x̂_0‖² at fixed x_t, shape (T,).

    Training on ε, v or the score with the plain squared error is training on x_0 with these
    weights over t: ε: SNR_t; x_0: 1; v: 1 + SNR_t = 1/(1−ᾱ_t); score: SNR_t/(1−ᾱ_t).
    (Salimans & Ho 2022, Sec. 4; Kingma et al. 2021, "VDM", Eq. 13.)
    """
    one_of(prediction, "prediction", PREDICTIONS)
    a = schedule.alpha_bars
    with np.errstate(divide="ignore"):
        snr = a / (1.0 - a)
    if prediction == "eps":
        return snr
    if prediction == "x0":
        return np.ones_like(a)
    if prediction == "v":
        return 1.0 / (1.0 - a)
    return snr / (1.0 - a)


def v_angle(alpha_bar: float) -> float:
    """φ with x_t = cos φ · x_0 + sin φ · ε and v = cos φ · ε − sin φ · x_0 (Salimans & Ho).

    cos φ = √ᾱ, sin φ = √(1−ᾱ): (x_t, v) are (x_0, ε) turned by φ, and v = dx_t/dφ.
    """
    a = float(alpha_bar)
    if not 0.0 <= a <= 1.0:
        raise CoreError("reverse_alpha_bar", "ᾱ must be in [0, 1], got {a}", a=a)
    return math.atan2(math.sqrt(1.0 - a), math.sqrt(a))


def minimum_loss(
    means: ArrayLike,
    stds: ArrayLike,
    weights: ArrayLike,
    schedule: Schedule,
    prediction: Prediction,
    n: int,
    rng: np.random.Generator,
) -> float:
    """The lowest possible value of DDPM's simple loss on a Gaussian mixture, by Monte Carlo.

    The squared error of a prediction of ε (x_0, v) is smallest for E[ε | x_t] (E[x_0 | x_t],
    E[v | x_t]), so no network trained on ``prediction`` can beat
    E_t E ‖target − E[target | x_t]‖² / d, t uniform on 1..T: the loss of the exact
    denoiser, estimated here from n draws of (x_0, t, ε).
    """
    one_of(prediction, "prediction", PREDICTIONS)
    n = positive_int(n, "n", 10_000_000)
    mix = mixture(means, stds, weights)
    x0, _ = gmm_sample(n, mix.means, mix.stds, mix.weights, rng)
    T = schedule.num_steps
    t_all = rng.integers(1, T + 1, size=n)
    eps = rng.standard_normal(x0.shape)
    total = 0.0
    for t in np.unique(t_all).tolist():
        rows = t_all == t
        a = float(schedule.alpha_bars[t - 1])
        x_t = math.sqrt(a) * x0[rows] + math.sqrt(1.0 - a) * eps[rows]
        post = gmm_posterior(x_t, t, schedule, mix.means, mix.stds, mix.weights)
        truth = {
            "eps": eps[rows],
            "x0": x0[rows],
            "v": math.sqrt(a) * eps[rows] - math.sqrt(1.0 - a) * x0[rows],
            "score": -eps[rows] / math.sqrt(1.0 - a),
        }[prediction]
        best = {
            "eps": post.eps,
            "x0": post.x0,
            "v": math.sqrt(a) * post.eps - math.sqrt(1.0 - a) * post.x0,
            "score": post.score,
        }[prediction]
        total += float(np.sum((truth - best) ** 2))
    return total / x0.size


# ---- samplers -------------------------------------------------------------------------------
def ddpm_step(
    x_t: ArrayLike,
    t: int,
    eps: ArrayLike,
    schedule: Schedule,
    noise: ArrayLike,
    variance: Variance = "posterior",
) -> Array:
    """One ancestral step x_t → x_{t−1} (DDPM Algorithm 2).

    x_{t−1} = 1/√α_t · (x_t − β_t/√(1−ᾱ_t) · ε̂) + σ_t z, with σ_t² = β̃_t =
    (1−ᾱ_{t−1})/(1−ᾱ_t) · β_t (``"posterior"``, so σ_1 = 0 as ᾱ_0 = 1) or σ_t² = β_t
    (``"beta"``); as in Algorithm 2, z = 0 at t = 1 either way.

    Args:
        x_t: (N, d) or any shape; eps: ε̂(x_t, t), same shape; noise: z ~ N(0, I), same shape.
        t: 1..T.
        variance: ``"posterior"`` (β̃_t) or ``"beta"`` (β_t).

    Returns:
        x_{t−1}, the shape of x_t.
    """
    one_of(variance, "variance", ("posterior", "beta"))
    x, e = _same_shape(x_t, eps, "eps")
    _, z = _same_shape(x_t, noise, "noise")
    return _ddpm_update(x, e, z, _ddpm_coefficients(_step(t, schedule), schedule, variance))


def _ddpm_coefficients(t: int, schedule: Schedule, variance: str) -> tuple[float, float, float]:
    """√α_t, β_t/√(1−ᾱ_t) and σ_t of DDPM's step t (a checked step)."""
    beta, alpha, a = (
        float(v[t - 1]) for v in (schedule.betas, schedule.alphas, schedule.alpha_bars)
    )
    if a == 1.0 or alpha == 0.0:
        raise CoreError(
            "reverse_degenerate_step",
            "the step t = {t} has α_t = {alpha:g}, ᾱ_t = {a:g}: DDPM's step divides by √α_t "
            "and √(1−ᾱ_t)",
            t=t,
            alpha=alpha,
            a=a,
        )
    return math.sqrt(alpha), beta / math.sqrt(1.0 - a), ddpm_sigma(t, schedule, variance)


def _ddpm_update(x: Array, e: Array, z: Array, coefficients: tuple[float, float, float]) -> Array:
    # x_{t−1} = 1/√α_t (x_t − β_t/√(1−ᾱ_t) ε̂) + σ_t z
    root_alpha, k, sigma = coefficients
    return (x - k * e) / root_alpha + sigma * z


def ddpm_sigma(t: int, schedule: Schedule, variance: Variance = "posterior") -> float:
    """σ_t of DDPM's step t → t − 1: √β̃_t (``"posterior"``) or √β_t (``"beta"``); 0 at t = 1.

    β̃_t = (1 − ᾱ_{t−1})/(1 − ᾱ_t) · β_t is the variance of q(x_{t−1} | x_t, x_0) (DDPM Eq. 7).
    """
    one_of(variance, "variance", ("posterior", "beta"))
    t = _step(t, schedule)
    if t == 1:  # Algorithm 2: z = 0 at the last step
        return 0.0
    beta, a, a_prev = (
        float(schedule.betas[t - 1]),
        alpha_bar_at(t, schedule),
        alpha_bar_at(t - 1, schedule),
    )
    if variance == "beta":
        return math.sqrt(beta)
    # β̃_t = (1 − ᾱ_{t−1})/(1 − ᾱ_t) · β_t
    return math.sqrt((1.0 - a_prev) / (1.0 - a) * beta)


def ddim_sigma(t: int, t_prev: int, schedule: Schedule, eta: float) -> float:
    """σ of DDIM's step t → t_prev: η √((1−ᾱ_prev)/(1−ᾱ_t)) √(1−ᾱ_t/ᾱ_prev) (DDIM Eq. 16)."""
    a, a_prev = alpha_bar_at(t, schedule), alpha_bar_at(t_prev, schedule)
    return non_negative(eta, "η") * math.sqrt((1 - a_prev) / (1 - a) * (1 - a / a_prev))


def ddim_step(
    x_t: ArrayLike,
    t: int,
    t_prev: int,
    eps: ArrayLike,
    schedule: Schedule,
    eta: float = 0.0,
    noise: ArrayLike | None = None,
    *,
    x0: ArrayLike | None = None,
) -> Array:
    """One DDIM step x_t → x_{t_prev} to any earlier step (DDIM Eq. 12).

    x_prev = √ᾱ_prev x̂_0 + √(1 − ᾱ_prev − σ²) ε̂ + σ z, with x̂_0 = (x_t − √(1−ᾱ_t) ε̂)/√ᾱ_t
    and σ from :func:`ddim_sigma`. η = 0 is deterministic; η = 1 with t_prev = t − 1 is
    DDPM's step with σ_t² = β̃_t. t_prev = 0 returns x̂_0 (ᾱ_0 = 1, σ = 0).

    Args:
        x_t: (N, d) or any shape; eps: ε̂(x_t, t), same shape.
        t: 1..T; t_prev: 0..t−1.
        eta: η ∈ [0, 1] (larger values are allowed; σ² must stay ≤ 1 − ᾱ_prev).
        noise: z ~ N(0, I) of x_t's shape; needed when σ > 0.
        x0: the network's own x̂_0, when it predicts x_0 or v (then x̂_0 is not recomputed
            from ε̂, which fails where ᾱ_t = 0 after zero-terminal-SNR rescaling).
    """
    x, e = _same_shape(x_t, eps, "eps")
    t = _step(t, schedule)
    t_prev = integer(t_prev, "t_prev", 0, t - 1)
    x0_hat = None if x0 is None else _same_shape(x, x0, "x0")[1]
    coefficients = _ddim_coefficients(t, t_prev, schedule, eta, x0_hat is None)
    z = None
    if coefficients[3] > 0:
        if noise is None:
            raise CoreError("reverse_needs_noise", "η > 0 adds noise: pass noise z ~ N(0, I)")
        z = _same_shape(x, noise, "noise")[1]
    return _ddim_update(x, e, z, coefficients, x0_hat)


def _ddim_coefficients(
    t: int, t_prev: int, schedule: Schedule, eta: float, from_eps: bool = True
) -> tuple[float, float, float, float, float]:
    """√ᾱ_t, √(1−ᾱ_t), √ᾱ_prev, σ and √(1 − ᾱ_prev − σ²) of DDIM's step t → t_prev
    (checked steps; ``from_eps``: x̂_0 will be computed from ε̂, which needs ᾱ_t > 0)."""
    a, a_prev = alpha_bar_at(t, schedule), alpha_bar_at(t_prev, schedule)
    if from_eps and a == 0.0:
        raise CoreError(
            "reverse_zero_alpha_bar",
            "at t = {t} ᾱ_t = 0: x_t holds no trace of x_0, and ε cannot give x̂_0 "
            "(predict v or x_0 instead)",
            t=t,
        )
    sigma = ddim_sigma(t, t_prev, schedule, eta)
    direction2 = 1.0 - a_prev - sigma**2
    if direction2 < -1e-12:
        raise CoreError(
            "reverse_eta_too_large",
            "η = {eta:g} asks for more noise (σ² = {sigma2:.4g}) than x_prev holds "
            "(1 − ᾱ_prev = {room:.4g})",
            eta=eta,
            sigma2=sigma**2,
            room=1.0 - a_prev,
        )
    return (
        math.sqrt(a),
        math.sqrt(1.0 - a),
        math.sqrt(a_prev),
        sigma,
        math.sqrt(max(direction2, 0.0)),
    )


def _ddim_update(
    x: Array,
    e: Array,
    z: Array | None,
    coefficients: tuple[float, float, float, float, float],
    x0_hat: Array | None = None,
) -> Array:
    root_a, root_1ma, root_a_prev, sigma, direction = coefficients
    if x0_hat is None:  # x̂_0 = (x_t − √(1−ᾱ_t) ε̂)/√ᾱ_t
        x0_hat = (x - root_1ma * e) / root_a
    # x_prev = √ᾱ_prev x̂_0 + √(1 − ᾱ_prev − σ²) ε̂ + σ z
    out = root_a_prev * x0_hat + direction * e
    if sigma > 0:
        out = out + sigma * z
    return out


@dataclass(frozen=True)
class StepNumbers:
    """The numbers of one sampler step x_t → x_{t_prev} (a formula with today's numbers).

    Attributes:
        x0: x̂_0 = (x_t − √(1−ᾱ_t) ε̂)/√ᾱ_t, the shape of x_t.
        alpha_bar, alpha_bar_prev: ᾱ_t and ᾱ_{t_prev}.
        sigma: the step's noise scale (DDPM: σ_t; DDIM: η's σ; the ODE: 0).
        direction: √(1 − ᾱ_{t_prev} − σ²), DDIM's weight of ε̂.
    """

    x0: Array
    alpha_bar: float
    alpha_bar_prev: float
    sigma: float
    direction: float


def step_numbers(
    x_t: ArrayLike,
    t: int,
    t_prev: int,
    eps: ArrayLike,
    schedule: Schedule,
    sampler: Sampler,
    eta: float = 0.0,
    variance: Variance = "posterior",
) -> StepNumbers:
    """x̂_0, ᾱ's and σ of the step that :func:`sample` takes from t to t_prev with ``sampler``.

    With them, DDIM's step is √ᾱ_prev x̂_0 + direction · ε̂ + σ z and DDPM's is its mean
    plus σ_t z (for DDPM, t_prev must be t − 1).
    """
    one_of(sampler, "sampler", SAMPLERS)
    t = _step(t, schedule)
    t_prev = integer(t_prev, "t_prev", t - 1 if sampler == "ddpm" else 0, t - 1)
    x0 = to_x0(x_t, t, eps, "eps", schedule)
    a, a_prev = alpha_bar_at(t, schedule), alpha_bar_at(t_prev, schedule)
    if sampler == "ddpm":
        sigma = ddpm_sigma(t, schedule, variance)
    else:
        sigma = ddim_sigma(t, t_prev, schedule, eta) if sampler == "ddim" else 0.0
    return StepNumbers(x0, a, a_prev, sigma, math.sqrt(max(1.0 - a_prev - sigma**2, 0.0)))


@dataclass(frozen=True)
class OdeNumbers:
    """The numbers of one step of the probability-flow ODE (a formula with today's numbers).

    In y = x/√ᾱ and σ = √((1−ᾱ)/ᾱ) the step is y_prev = y + (σ_prev − σ) · slope.

    Attributes:
        sigma, sigma_prev: σ_t and σ_{t_prev}.
        y: y_t = x_t/√ᾱ_t.
        y_euler: Euler's landing point y_t + (σ_prev − σ_t) ε̂_t.
        eps_prev: Heun's second slope ε̂(√ᾱ_prev y_euler, t_prev); ``None`` for Euler and for
            Heun's last step (to t_prev = 0, an Euler step).
        y_prev: the step's end in y; x_prev = √ᾱ_prev y_prev, the step's end.
    """

    sigma: float
    sigma_prev: float
    y: Array
    y_euler: Array
    eps_prev: Array | None
    y_prev: Array
    x_prev: Array


def ode_numbers(
    x_t: ArrayLike,
    t: int,
    t_prev: int,
    eps_model: EpsModel,
    schedule: Schedule,
    method: Literal["euler", "heun"] = "heun",
    eps: ArrayLike | None = None,
) -> OdeNumbers:
    """One step of the probability-flow ODE from t to t_prev, by Euler or Heun, with the
    numbers on its way (:class:`OdeNumbers`; :func:`ode_step` returns its end).

    In y = x/√ᾱ and σ = √((1−ᾱ)/ᾱ) the ODE reads dy/dσ = ε(x, t) (DDIM Eq. 14; Karras et
    al. 2022, Eq. 4 with s(t) = √ᾱ): Euler, y_prev = y + (σ_prev − σ_t) ε̂_t, is DDIM with
    η = 0. Heun averages ε̂_t with ε̂ at Euler's landing point (Karras et al. Algorithm 1),
    one more network call per step; the last step to t_prev = 0 (σ = 0) is an Euler step.

    Args:
        x_t: (N, d); t: 1..T; t_prev: 0..t−1.
        eps_model: ε̂(x, step) for a batch x at an integer step.
        method: ``"euler"`` or ``"heun"``.
        eps: ε̂(x_t, t) if already computed (saves a call).
    """
    one_of(method, "method", ("euler", "heun"))
    x = finite_array(x_t, "x_t")
    t = _step(t, schedule)
    t_prev = integer(t_prev, "t_prev", 0, t - 1)
    a, a_prev = alpha_bar_at(t, schedule), alpha_bar_at(t_prev, schedule)
    if a == 0.0:
        raise CoreError(
            "reverse_ode_infinite_sigma",
            "at t = {t} ᾱ_t = 0 and σ_t = ∞: start the ODE one step later",
            t=t,
        )
    e = _like(x, eps_model(x, t) if eps is None else eps, "eps")
    sigma, sigma_prev = math.sqrt((1 - a) / a), math.sqrt((1 - a_prev) / a_prev)
    y = x / math.sqrt(a)
    y_euler = y + (sigma_prev - sigma) * e
    y_prev, e_prev = y_euler, None
    if method == "heun" and t_prev > 0:
        e_prev = _like(x, eps_model(math.sqrt(a_prev) * y_euler, t_prev), "eps")
        # Heun: the slope is the mean of the slopes at both ends
        y_prev = y + (sigma_prev - sigma) * 0.5 * (e + e_prev)
    return OdeNumbers(sigma, sigma_prev, y, y_euler, e_prev, y_prev, math.sqrt(a_prev) * y_prev)


def ode_step(
    x_t: ArrayLike,
    t: int,
    t_prev: int,
    eps_model: EpsModel,
    schedule: Schedule,
    method: Literal["euler", "heun"] = "heun",
    eps: ArrayLike | None = None,
) -> Array:
    """One step of the probability-flow ODE from t to t_prev, by Euler or Heun: the end of
    :func:`ode_numbers` (same arguments)."""
    return ode_numbers(x_t, t, t_prev, eps_model, schedule, method, eps).x_prev


@dataclass(frozen=True)
class SampleRun:
    """A sampler's run from x_T to x_0.

    Attributes:
        steps: (S + 1,) the steps visited, T … 0.
        path: (S + 1, N, d) the particles at each visited step (with ``keep_path=False``,
            (2, N, d): x_T and the samples); path[-1] are the samples.
        evaluations: how many times the network was called (Heun: 2 per step but the last).
    """

    steps: IntArray
    path: Array
    evaluations: int


def sample(
    x_T: ArrayLike,
    eps_model: EpsModel,
    schedule: Schedule,
    sampler: Sampler,
    n_steps: int,
    rng: np.random.Generator | None = None,
    *,
    eta: float = 0.0,
    variance: Variance = "posterior",
    keep_path: bool = True,
) -> SampleRun:
    """Run a sampler from x_T down to x_0.

    Args:
        x_T: (N, d) the starting noise.
        eps_model: ε̂(x, t) for a batch x at an integer step t.
        schedule: the schedule the model was trained with.
        sampler: ``"ddpm"`` (ancestral, every one of the T steps; ``n_steps`` must be T),
            ``"ddim"`` (η = ``eta``), ``"euler"`` or ``"heun"`` (the probability-flow ODE).
        n_steps: S, the number of steps (the visited steps are :func:`sampling_steps`).
        rng: draws the noise of DDPM and of DDIM with η > 0.
        eta: DDIM's η. variance: DDPM's σ_t² (``"posterior"`` β̃_t or ``"beta"`` β_t).
        keep_path: ``False`` keeps only x_T and the samples (``path`` is (2, N, d)).
    """
    one_of(sampler, "sampler", SAMPLERS)
    one_of(variance, "variance", ("posterior", "beta"))
    non_negative(eta, "η")
    x = finite_array(x_T, "x_T", ndim=2)
    T = schedule.num_steps
    steps = sampling_steps(T, n_steps)
    if sampler == "ddpm" and len(steps) != T + 1:
        raise CoreError(
            "reverse_ddpm_steps",
            "DDPM's ancestral sampler takes all T = {T} steps (use DDIM to skip steps)",
            T=T,
        )
    noisy = sampler == "ddpm" or (sampler == "ddim" and eta > 0)
    if noisy and rng is None:
        raise CoreError("reverse_needs_rng", "this sampler adds noise: pass a seeded rng")
    path, calls = [x], 0
    # the inputs are checked once here; a step checks only what the model returns
    for t, t_prev in zip(steps[:-1].tolist(), steps[1:].tolist(), strict=True):
        if sampler in ("euler", "heun"):
            x = ode_step(x, t, t_prev, eps_model, schedule, sampler)
            calls += 2 if sampler == "heun" and t_prev > 0 else 1
        else:
            eps = _like(x, eps_model(x, t), "eps")
            calls += 1
            z = rng.standard_normal(x.shape) if noisy else None  # type: ignore[union-attr]
            if sampler == "ddpm":
                x = _ddpm_update(x, eps, z, _ddpm_coefficients(t, schedule, variance))
            else:
                x = _ddim_update(x, eps, z, _ddim_coefficients(t, t_prev, schedule, eta))
        if keep_path or t_prev == 0:
            path.append(x)
    return SampleRun(steps, np.stack(path), calls)


def gmm_eps_model(
    schedule: Schedule, means: ArrayLike, stds: ArrayLike, weights: ArrayLike
) -> EpsModel:
    """The exact ε*(x, t) of a Gaussian mixture as an ``EpsModel`` for :func:`sample`."""
    mix = mixture(means, stds, weights)  # checked once, not at every step

    def eps_star(x: Array, t: int) -> Array:
        x = finite_array(x, "x_t", ndim=2)
        return _mixture_eps(x, alpha_bar_at(_step(t, schedule), schedule), mix)

    return eps_star


# ---- how close are the samples to the data -----------------------------------------------
def directions(n_directions: int) -> Array:
    """P unit vectors in the plane at evenly spaced angles over [0, π), shape (P, 2)."""
    P = positive_int(n_directions, "directions", 10_000)
    angles = np.pi * np.arange(P) / P
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def wasserstein_1d(a: ArrayLike, b: ArrayLike) -> Array:
    """W₁ between the empirical distributions of a (..., n) and b (..., m), along the last axis.

    W₁ = ∫ |F_a(x) − F_b(x)| dx = ∫₀¹ |F_a⁻¹(u) − F_b⁻¹(u)| du. Both quantile functions are
    steps, at u = i/n and u = j/m; between two neighbouring breakpoints of the union both are
    constant, so the integral is an exact finite sum over the sorted values. The breakpoints
    are counted in integers (u·nm), so no rounding picks a wrong quantile.
    """
    a = np.sort(finite_array(a, "a", min_ndim=1), axis=-1)
    b = np.sort(finite_array(b, "b", min_ndim=1), axis=-1)
    return _w1_of_sorted(a, b)


def _w1_of_sorted(a: Array, b: Array) -> Array:
    ia, ib, du = _quantile_steps(a.shape[-1], b.shape[-1])
    return np.sum(np.abs(a[..., ia] - b[..., ib]) * du, axis=-1)


@functools.lru_cache(maxsize=16)
def _quantile_steps(n: int, m: int) -> tuple[IntArray, IntArray, Array]:
    """For W₁ of n against m values: on each interval (u_{k−1}, u_k] between the breakpoints
    i/n and j/m, the index of a's and of b's quantile, and the interval's length."""
    ends = np.union1d(np.arange(1, n + 1) * m, np.arange(1, m + 1) * n)  # u_k · nm, integers
    ia = (ends + m - 1) // m - 1  # ⌈u n⌉ − 1
    ib = (ends + n - 1) // n - 1  # ⌈u m⌉ − 1
    du = np.diff(ends, prepend=0) / (n * m)
    return ia, ib, du


def sliced_wasserstein(a: ArrayLike, b: ArrayLike, n_directions: int = 64) -> float:
    """Sliced W₁ between two 2-D point clouds: the mean over P directions θ of W₁(a·θ, b·θ).

    0 for the same cloud; for b = a + c it is |c| · mean |cos| = 2|c|/π as P grows.
    """
    return float(sliced_wasserstein_each([a], b, n_directions)[0])


def sliced_wasserstein_each(
    clouds: Sequence[ArrayLike], b: ArrayLike, n_directions: int = 64
) -> Array:
    """:func:`sliced_wasserstein` of each cloud against the same b, (len(clouds),): b's
    projections are sorted once (a quality curve compares many sample sets with one data set)."""
    theta = directions(n_directions)  # (P, 2)

    def sorted_projections(x: ArrayLike, name: str) -> Array:
        x = finite_array(x, name, ndim=2)
        if x.shape[1] != 2:
            raise CoreError("reverse_not_2d", "the sliced distance here is for 2-D points")
        return np.sort(theta @ np.ascontiguousarray(x.T), axis=-1)  # (P, n)

    ref = sorted_projections(b, "data")
    ref_steps: dict[int, Array] = {}  # b's quantiles on the breakpoints, per cloud size n
    out = []
    for a in clouds:
        projected = sorted_projections(a, "samples")
        n = projected.shape[-1]
        ia, ib, du = _quantile_steps(n, ref.shape[-1])
        if n not in ref_steps:
            ref_steps[n] = ref[:, ib]
        gaps = np.abs(projected[:, ia] - ref_steps[n])
        out.append(float(np.mean(gaps @ du)))  # W₁ per direction, as _w1_of_sorted's sum
    return np.array(out)


def nearest_component(
    x: ArrayLike, means: ArrayLike, stds: ArrayLike, weights: ArrayLike
) -> IntArray:
    """The most probable mixture component of each point (N,), under the data (t = 0)."""
    x = finite_array(x, "x", ndim=2)
    terms, _, _ = _component_terms(x, 1.0, mixture(means, stds, weights))
    return np.argmax(terms, axis=1).astype(np.int64)


@dataclass(frozen=True)
class MixtureFit:
    """Samples sorted into mixture components, against the mixture itself.

    Attributes:
        weights: (K,) the share of samples closest to each component.
        means: (K, d) their mean (nan where a component got no sample).
        stds: (K,) their spread: √(mean squared distance to the mean / d) (nan if < 2).
    """

    weights: Array
    means: Array
    stds: Array


def mixture_fit(
    samples: ArrayLike, means: ArrayLike, stds: ArrayLike, weights: ArrayLike
) -> MixtureFit:
    """Share, mean and spread of the samples that fall closest to each component."""
    x = finite_array(samples, "samples", ndim=2)
    mix = mixture(means, stds, weights)
    labels = nearest_component(x, mix.means, mix.stds, mix.weights)
    K, d = mix.means.shape
    share = np.bincount(labels, minlength=K) / len(x)
    mu = np.full((K, d), np.nan)
    sd = np.full(K, np.nan)
    for k in range(K):
        members = x[labels == k]
        if len(members):
            mu[k] = members.mean(axis=0)
        if len(members) > 1:
            sd[k] = math.sqrt(np.sum((members - mu[k]) ** 2) / ((len(members) - 1) * d))
    return MixtureFit(share, mu, sd)


def pooled_std(weights: ArrayLike, stds: ArrayLike) -> float:
    """√(Σ w_k σ_k² / Σ w_k) over the components with a spread (nan ones are left out)."""
    w = np.asarray(weights, dtype=np.float64)
    sd = np.asarray(stds, dtype=np.float64)
    keep = ~np.isnan(sd) & (w > 0)
    if not keep.any():
        raise CoreError("reverse_no_spread", "no component has a spread to pool")
    return math.sqrt(float(np.sum(w[keep] * sd[keep] ** 2) / np.sum(w[keep])))


def grid(lo: float, hi: float, n: int) -> tuple[Array, Array, Array]:
    """An n × n grid over [lo, hi]²: the axis (n,), and the points (n·n, 2) row by row (y)."""
    n = integer(n, "grid size", 2, 400)
    axis = np.linspace(float(lo), float(hi), n)
    gx, gy = np.meshgrid(axis, axis)
    return axis, axis, np.stack([gx.ravel(), gy.ravel()], axis=1)


def frame_indices(n_visited: int, n_frames: int) -> IntArray:
    """≤ n_frames indices into a sampler's n_visited steps (T … 0) for an animation.

    Spaced as 1 − (1 − u)², u evenly over [0, 1]: denser towards the end, where the
    particles settle into the data, than at the start, where they are still noise.

    >>> frame_indices(101, 5).tolist()
    [0, 44, 75, 94, 100]
    """
    n = positive_int(n_visited, "visited steps")
    k = positive_int(n_frames, "frames")
    if n <= k:
        return np.arange(n, dtype=np.int64)
    u = np.linspace(0.0, 1.0, k)
    return np.unique(np.round((n - 1) * (1.0 - (1.0 - u) ** 2)).astype(np.int64))
