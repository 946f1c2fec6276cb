"""Forward diffusion: noise schedules, q(x_t | x_0), the chain, the posterior, Gaussian KL.

Ho, Jain & Abbeel 2020, "Denoising Diffusion Probabilistic Models": Sec. 2 (the forward
process q(x_t | x_{t-1}) = N(√(1-β_t) x_{t-1}, β_t I), Eq. 2; the closed form
q(x_t | x_0) = N(√ᾱ_t x_0, (1-ᾱ_t) I) with α_t = 1-β_t, ᾱ_t = Π_{s≤t} α_s, Eq. 4; the
variational bound L = L_T + Σ_{t>1} L_{t-1} + L_0, Eq. 5; the posterior q(x_{t-1} | x_t, x_0)
= N(μ̃_t, β̃_t I), Eq. 6-7), Sec. 3.2 (the weight β_t² / (2σ_t² α_t (1-ᾱ_t)) of the ε-loss,
Eq. 12) and Sec. 4 (linear β from 1e-4 to 0.02, T = 1000). Nichol & Dhariwal 2021, "Improved
Denoising Diffusion Probabilistic Models", Sec. 3.2 (the cosine schedule, Eq. 17, s = 0.008,
β clipped at 0.999). The schedules follow openai/improved-diffusion
``gaussian_diffusion.get_named_beta_schedule``; diffusers ``DDPMScheduler`` gives the same
numbers with timesteps counted from 0 (its ``t`` is our ``t - 1``).

Conventions: the paper's t runs 1..T and array index ``t - 1`` holds step t; ᾱ_0 = 1.

Shape legend: T steps; x0, x_t, noise arrays of any shape (a batch B first when t is an array).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.typed import read_numbers
from core.validation import integer, positive, positive_int

Array = NDArray[np.float64]
ScheduleKind = Literal["linear", "cosine", "quadratic", "sigmoid"]
SCHEDULE_KINDS: tuple[str, ...] = ("linear", "cosine", "quadratic", "sigmoid")
BETA_START, BETA_END = 1e-4, 0.02  # DDPM Sec. 4, for T = 1000
COSINE_S = 0.008  # Nichol & Dhariwal Eq. 17
MAX_BETA = 0.999  # improved-diffusion's clip: keeps the last step from erasing x entirely


@dataclass(frozen=True, eq=False)
class Schedule:
    """A noise schedule; every array has length T and index ``t - 1`` is the paper's step t.

    Attributes:
        kind: the schedule's name.
        num_steps: T.
        betas: (T,) β_t, the variance added at step t.
        alphas: (T,) α_t = 1 - β_t.
        alpha_bars: (T,) ᾱ_t = Π_{s≤t} α_s, the share of x_0's variance left at step t.
    """

    kind: str
    num_steps: int
    betas: Array
    alphas: Array
    alpha_bars: Array


def _frozen(values: ArrayLike) -> Array:
    array = np.array(values, dtype=np.float64)
    array.flags.writeable = False
    return array


def _check_num_steps(num_steps: int) -> int:
    if isinstance(num_steps, bool) or not isinstance(num_steps, (int, np.integer)):
        raise ValueError(f"the number of steps T must be a whole number, not {num_steps!r}")
    if num_steps < 1:
        raise ValueError(f"the number of steps T must be at least 1, not {num_steps}")
    return int(num_steps)


def make_schedule(kind: ScheduleKind, num_steps: int) -> Schedule:
    """Build the β_t, α_t, ᾱ_t of a named schedule with T = ``num_steps`` steps.

    Kinds:
        ``"linear"``: DDPM, β_t evenly spaced from β_1 to β_T.
        ``"cosine"``: improved DDPM, ᾱ_t ∝ f(t) = cos²((t/T + s)/(1 + s)·π/2), s = 0.008, as
        β_t = min(1 - f(t)/f(t-1), 0.999).
        ``"quadratic"``: √β_t evenly spaced from √β_1 to √β_T.
        ``"sigmoid"``: β_t = β_1 + (β_T - β_1)·sigmoid(x), x evenly spaced over [-6, 6].

    T ≠ 1000 (linear, quadratic, sigmoid): DDPM gives its endpoints 1e-4 and 0.02 for
    T = 1000 only. We take improved-diffusion's convention and scale both by 1000/T, so the
    total noise Σβ_t (and hence ᾱ_T, how close x_T is to pure noise) stays about the same
    whatever T a student picks; with the endpoints kept fixed, T = 50 would leave
    ᾱ_T ≈ 0.6 and x_T would still show x_0. (diffusers keeps the endpoints fixed; at
    T = 1000 the two agree.) For T < 50 the scaled β would pass 1, so every β is clipped at
    0.999, as the cosine schedule is.

    Args:
        kind: one of ``SCHEDULE_KINDS``.
        num_steps: T ≥ 1.

    Returns:
        A :class:`Schedule` with read-only float64 arrays of length T.

    >>> s = make_schedule("linear", 1000)
    >>> float(s.betas[0]), float(s.betas[-1])
    (0.0001, 0.02)
    """
    T = _check_num_steps(num_steps)
    scale = 1000.0 / T
    beta_1, beta_T = scale * BETA_START, scale * BETA_END
    if kind == "linear":
        betas = np.linspace(beta_1, beta_T, T)
    elif kind == "quadratic":
        betas = np.linspace(math.sqrt(beta_1), math.sqrt(beta_T), T) ** 2
    elif kind == "sigmoid":
        x = np.linspace(-6.0, 6.0, T)
        betas = beta_1 + (beta_T - beta_1) / (1.0 + np.exp(-x))
    elif kind == "cosine":
        # f(t) = cos²((t/T + s)/(1 + s) · π/2), ᾱ_t = f(t)/f(0)  (Nichol & Dhariwal Eq. 17)
        f = np.cos((np.arange(T + 1) / T + COSINE_S) / (1.0 + COSINE_S) * math.pi / 2) ** 2
        # β_t = 1 - ᾱ_t/ᾱ_{t-1}
        betas = 1.0 - f[1:] / f[:-1]
    else:
        raise ValueError(f"unknown schedule {kind!r}: choose one of {', '.join(SCHEDULE_KINDS)}")
    betas = np.clip(betas, 0.0, MAX_BETA)
    # α_t = 1 - β_t
    alphas = 1.0 - betas
    # ᾱ_t = Π_{s=1}^{t} α_s
    alpha_bars = np.cumprod(alphas)
    return Schedule(str(kind), T, _frozen(betas), _frozen(alphas), _frozen(alpha_bars))


def _check_t(t: ArrayLike, schedule: Schedule) -> NDArray[np.int64]:
    steps = np.asarray(t)
    whole_float = np.issubdtype(steps.dtype, np.floating) and np.all(steps == np.round(steps))
    if steps.dtype == bool or not (np.issubdtype(steps.dtype, np.integer) or whole_float):
        raise ValueError(f"the step t must be a whole number from 1 to T, not {t!r}")
    steps = steps.astype(np.int64)
    T = schedule.num_steps
    if steps.ndim > 1:
        raise ValueError("t must be one step or a 1-D array of steps (one per batch row)")
    if np.any(steps < 1) or np.any(steps > T):
        bad = steps[(steps < 1) | (steps > T)].ravel()[0]
        raise ValueError(
            f"the step t = {bad} is outside 1..{T}: the paper counts steps from 1 to T "
            f"(diffusers' timestep k is our t = k + 1)"
        )
    return steps


def _per_row(values: Array, steps: NDArray[np.int64], x: Array) -> Array:
    """values[t-1], shaped to broadcast against x: a scalar, or (B, 1, …) for a batch of t."""
    picked = values[steps - 1]
    if steps.ndim == 0:
        return picked
    if x.ndim == 0 or x.shape[0] != steps.shape[0]:
        raise ValueError(
            f"{steps.shape[0]} steps t were given for x of shape {x.shape}: give one t per "
            "row of the batch (the first axis)"
        )
    return picked.reshape((-1,) + (1,) * (x.ndim - 1))


def _check_same_shape(name_a: str, a: Array, name_b: str, b: Array) -> None:
    if a.shape != b.shape:
        raise ValueError(
            f"{name_a} has shape {a.shape} but {name_b} has shape {b.shape}: they must match"
        )


def q_sample(x0: ArrayLike, t: ArrayLike, schedule: Schedule, noise: ArrayLike) -> Array:
    """Draw x_t ~ q(x_t | x_0) in one jump (DDPM Eq. 4).

    Args:
        x0: clean data, any shape.
        t: the paper's step in 1..T, or a (B,) array of steps for a batch x0 of shape (B, …).
        schedule: from :func:`make_schedule`.
        noise: ε ~ N(0, I), same shape as x0.

    Returns:
        x_t = √ᾱ_t x_0 + √(1-ᾱ_t) ε, shape of x0.
    """
    x0 = np.asarray(x0, dtype=np.float64)
    noise = np.asarray(noise, dtype=np.float64)
    _check_same_shape("x0", x0, "noise", noise)
    steps = _check_t(t, schedule)
    alpha_bar = _per_row(schedule.alpha_bars, steps, x0)
    # x_t = √ᾱ_t x_0 + √(1 - ᾱ_t) ε
    return np.sqrt(alpha_bar) * x0 + np.sqrt(1.0 - alpha_bar) * noise


def q_step(x_prev: ArrayLike, t: ArrayLike, schedule: Schedule, noise: ArrayLike) -> Array:
    """One link of the chain: x_t ~ q(x_t | x_{t-1}) (DDPM Eq. 2).

    Args:
        x_prev: x_{t-1}, any shape.
        t: the step being taken, 1..T (t = 1 turns x_0 into x_1), or a (B,) array.
        schedule: from :func:`make_schedule`.
        noise: ε ~ N(0, I), same shape as x_prev.

    Returns:
        x_t = √α_t x_{t-1} + √β_t ε, shape of x_prev.
    """
    x_prev = np.asarray(x_prev, dtype=np.float64)
    noise = np.asarray(noise, dtype=np.float64)
    _check_same_shape("x_prev", x_prev, "noise", noise)
    steps = _check_t(t, schedule)
    alpha = _per_row(schedule.alphas, steps, x_prev)
    beta = _per_row(schedule.betas, steps, x_prev)
    # x_t = √α_t x_{t-1} + √β_t ε
    return np.sqrt(alpha) * x_prev + np.sqrt(beta) * noise


def posterior_coefficients(schedule: Schedule) -> tuple[Array, Array, Array]:
    """The posterior q(x_{t-1} | x_t, x_0) = N(c0_t x_0 + ct_t x_t, β̃_t I) for every t (Eq. 7).

    Returns:
        (coef_x0, coef_xt, variance), each (T,), index t - 1, with ᾱ_0 = 1:
        coef_x0 = √ᾱ_{t-1} β_t / (1-ᾱ_t), coef_xt = √α_t (1-ᾱ_{t-1}) / (1-ᾱ_t),
        variance β̃_t = (1-ᾱ_{t-1}) β_t / (1-ᾱ_t)  (0 at t = 1).
    """
    beta, alpha, alpha_bar = schedule.betas, schedule.alphas, schedule.alpha_bars
    # ᾱ_{t-1}, with ᾱ_0 = 1
    alpha_bar_prev = np.concatenate(([1.0], alpha_bar[:-1]))
    # μ̃_t = √ᾱ_{t-1} β_t / (1-ᾱ_t) · x_0 + √α_t (1-ᾱ_{t-1}) / (1-ᾱ_t) · x_t
    coef_x0 = np.sqrt(alpha_bar_prev) * beta / (1.0 - alpha_bar)
    coef_xt = np.sqrt(alpha) * (1.0 - alpha_bar_prev) / (1.0 - alpha_bar)
    # β̃_t = (1-ᾱ_{t-1}) / (1-ᾱ_t) · β_t
    variance = (1.0 - alpha_bar_prev) / (1.0 - alpha_bar) * beta
    return coef_x0, coef_xt, variance


def q_posterior(
    x_t: ArrayLike, x0: ArrayLike, t: ArrayLike, schedule: Schedule
) -> tuple[Array, Array]:
    """Mean and variance of q(x_{t-1} | x_t, x_0) (DDPM Eq. 6-7).

    Args:
        x_t: the noisy sample at step t, any shape.
        x0: the clean data, same shape.
        t: the paper's step in 1..T (or a (B,) array for a batch).
        schedule: from :func:`make_schedule`.

    Returns:
        (mean μ̃_t, variance β̃_t), both of the shape of x_t (the variance is the same in every
        coordinate; it is 0 at t = 1, where x_0 is known exactly).
    """
    x_t = np.asarray(x_t, dtype=np.float64)
    x0 = np.asarray(x0, dtype=np.float64)
    _check_same_shape("x_t", x_t, "x0", x0)
    steps = _check_t(t, schedule)
    coef_x0, coef_xt, variance = posterior_coefficients(schedule)
    mean = _per_row(coef_x0, steps, x0) * x0 + _per_row(coef_xt, steps, x_t) * x_t
    return mean, np.broadcast_to(_per_row(variance, steps, x_t), x_t.shape).copy()


def eps_loss_weights(schedule: Schedule, variance: Literal["beta", "posterior"] = "beta") -> Array:
    """The weight of each term of the ε-form bound, shape (T,) (DDPM Eq. 12).

    With p_θ(x_{t-1} | x_t) = N(μ_θ, σ_t² I) and μ_θ written through a noise predictor ε_θ,
    L_{t-1} = λ_t · E‖ε - ε_θ(x_t, t)‖² + const with λ_t = β_t² / (2σ_t² α_t (1-ᾱ_t)).
    DDPM's simple loss sets every λ_t to 1.

    Args:
        schedule: from :func:`make_schedule`.
        variance: σ_t² = β_t (``"beta"``) or σ_t² = β̃_t (``"posterior"``); with β̃_1 = 0 the
            weight at t = 1 is infinite (that term is the decoder L_0, handled apart).
    """
    beta, alpha, alpha_bar = schedule.betas, schedule.alphas, schedule.alpha_bars
    if variance == "beta":
        sigma2 = beta
    elif variance == "posterior":
        sigma2 = posterior_coefficients(schedule)[2]
    else:
        raise ValueError(f"variance must be 'beta' or 'posterior', not {variance!r}")
    with np.errstate(divide="ignore"):
        # λ_t = β_t² / (2 σ_t² α_t (1 - ᾱ_t))
        return beta**2 / (2.0 * sigma2 * alpha * (1.0 - alpha_bar))


def snr(schedule: Schedule) -> Array:
    """Signal-to-noise ratio of q(x_t | x_0) for every t: ᾱ_t / (1-ᾱ_t), shape (T,)."""
    return schedule.alpha_bars / (1.0 - schedule.alpha_bars)


def gaussian_kl(mean_a: ArrayLike, var_a: ArrayLike, mean_b: ArrayLike, var_b: ArrayLike) -> Array:
    """KL(N(mean_a, var_a) ‖ N(mean_b, var_b)) in nats, elementwise (1-D Gaussians).

    KL = ½ (ln(var_b/var_a) + (var_a + (mean_a - mean_b)²)/var_b - 1); ≥ 0, and 0 exactly when
    the two Gaussians are equal. Arguments broadcast against each other.
    """
    arrays = [np.asarray(v, dtype=np.float64) for v in (mean_a, var_a, mean_b, var_b)]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(
            f"the means and variances have shapes {shapes} that do not match"
        ) from None
    mu_a, v_a, mu_b, v_b = arrays
    if not np.all(np.isfinite(arrays[0])) or not np.all(np.isfinite(arrays[2])):
        raise ValueError("the means must be finite numbers")
    for name, v in (("var_a", v_a), ("var_b", v_b)):
        if not np.all(np.isfinite(v)) or np.any(v <= 0):
            raise ValueError(f"the variance {name} must be a positive finite number (σ² > 0)")
    # KL = ½ [ln(σ_b²/σ_a²) + (σ_a² + (μ_a - μ_b)²)/σ_b² - 1]
    #    = ½ [(μ_a - μ_b)²/σ_b² + d - ln(1 + d)],  d = (σ_a² - σ_b²)/σ_b²
    # (the second form keeps a tiny KL such as L_T ≈ 1e-17 from cancelling to 0)
    d = (v_a - v_b) / v_b
    return 0.5 * ((mu_a - mu_b) ** 2 / v_b + (d - np.log1p(d)))


def prior_kl_bits_per_dim(schedule: Schedule, x0: ArrayLike) -> float:
    """L_T: the mean over coordinates of KL(q(x_T | x_0) ‖ N(0, I)), in bits per dimension.

    DDPM reports about 1e-5 bits/dim for the linear schedule, T = 1000, data scaled to [-1, 1].
    """
    x0 = np.asarray(x0, dtype=np.float64)
    if x0.size == 0:
        raise ValueError("x0 is empty: give at least one data value")
    alpha_bar_T = schedule.alpha_bars[-1]
    # q(x_T | x_0) = N(√ᾱ_T x_0, (1-ᾱ_T) I)
    kl = gaussian_kl(math.sqrt(alpha_bar_T) * x0, 1.0 - alpha_bar_T, 0.0, 1.0)
    return float(np.mean(kl) / math.log(2.0))


def parse_data(text: str, max_count: int = 64, max_abs: float = 10.0) -> Array:
    """Read data values x₀ typed by a student: numbers separated by commas and/or spaces.

    Only plain decimal numbers are accepted (``float`` on each token, never ``eval``). DDPM
    scales images to [-1, 1]; values up to ±``max_abs`` are allowed so a student can see the
    prior term grow with |x₀|.

    >>> parse_data("-1, 0, 0.5").tolist()
    [-1.0, 0.0, 0.5]
    """
    values = read_numbers(text, max_chars=1000, max_count=max_count, noun="values")
    if not values:
        raise ValueError("type at least one data value x₀, e.g. -1, -0.5, 0, 0.5, 1")
    if any(abs(v) > max_abs for v in values):
        raise ValueError(
            f"keep x₀ between -{max_abs:g} and {max_abs:g} (DDPM scales data to [-1, 1])"
        )
    return np.array(values, dtype=np.float64)


# ---- what the forward-diffusion and DDPM-loss pages measure ------------------------------


def log_snr(schedule: Schedule) -> Array:
    """log SNR_t = log(ᾱ_t / (1-ᾱ_t)) for every t, shape (T,): 0 where signal and noise are equal.

    (Kingma et al. 2021 parameterise schedules by it; ``-inf`` where ᾱ_T rounds to 0.)
    """
    with np.errstate(divide="ignore"):
        return np.log(snr(schedule))


def q_moments(x0: ArrayLike, t: ArrayLike, schedule: Schedule) -> tuple[Array, Array]:
    """Mean and variance of q(x_t | x_0) = N(√ᾱ_t x_0, (1-ᾱ_t) I) (DDPM Eq. 4).

    Returns:
        (mean, variance): the mean has the shape of x0; the variance is (1-ᾱ_t) per row.
    """
    x0 = np.asarray(x0, dtype=np.float64)
    steps = _check_t(t, schedule)
    alpha_bar = _per_row(schedule.alpha_bars, steps, x0)
    return np.sqrt(alpha_bar) * x0, 1.0 - alpha_bar


def q_sample_steps(x0: ArrayLike, steps: ArrayLike, schedule: Schedule, noise: ArrayLike) -> Array:
    """x_t = √ᾱ_t x_0 + √(1-ᾱ_t) ε at each of ``steps`` with one and the same ε (the frames
    of an image dissolving into a fixed noise).

    Returns:
        (K, *x0.shape) for K steps.
    """
    x0 = np.asarray(x0, dtype=np.float64)
    noise = np.asarray(noise, dtype=np.float64)
    _check_same_shape("x0", x0, "noise", noise)
    steps = np.atleast_1d(_check_t(steps, schedule))
    batch = (len(steps), *x0.shape)
    return q_sample(np.broadcast_to(x0, batch), steps, schedule, np.broadcast_to(noise, batch))


def noise_of(x_t: ArrayLike, x0: ArrayLike, t: ArrayLike, schedule: Schedule) -> Array:
    """The ε that gives x_t in one jump from x_0: (x_t - √ᾱ_t x_0) / √(1-ᾱ_t).

    The inverse of :func:`q_sample` in its noise; for x_t ~ q(x_t | x_0) every entry is a
    draw of N(0, 1), which is how the pages test a chain against the closed form.
    """
    x_t = np.asarray(x_t, dtype=np.float64)
    x0 = np.asarray(x0, dtype=np.float64)
    _check_same_shape("x_t", x_t, "x0", x0)
    mean, var = q_moments(x0, t, schedule)
    return (x_t - mean) / np.sqrt(var)


def p_mean_from_noise(x_t: ArrayLike, eps: ArrayLike, t: ArrayLike, schedule: Schedule) -> Array:
    """The reverse step's mean written through a noise prediction (DDPM Eq. 11):

    μ = (x_t - β_t/√(1-ᾱ_t) · ε) / √α_t; with the true ε it is the posterior mean μ̃_t (Eq. 10).
    """
    x_t = np.asarray(x_t, dtype=np.float64)
    eps = np.asarray(eps, dtype=np.float64)
    steps = _check_t(t, schedule)
    alpha = _per_row(schedule.alphas, steps, x_t)
    beta = _per_row(schedule.betas, steps, x_t)
    alpha_bar = _per_row(schedule.alpha_bars, steps, x_t)
    # μ = (x_t - β_t / √(1 - ᾱ_t) · ε) / √α_t
    return (x_t - beta / np.sqrt(1.0 - alpha_bar) * eps) / np.sqrt(alpha)


def eps_term_excess(x0: float, t: int, schedule: Schedule, eps: float, eps_theta: float) -> float:
    """The term L_{t-1} of one coordinate, with σ_t² = β_t, above its value at ε_θ = ε:

    KL(q(x_{t-1} | x_t, x_0) ‖ N(μ_θ, β_t)) − KL(q ‖ N(μ̃_t, β_t)), where x_t is x_0 noised by
    ``eps`` and μ_θ is the mean through the prediction ``eps_theta`` (:func:`p_mean_from_noise`).
    DDPM Eq. 8-12 say it is λ_t (ε − ε_θ)² with λ_t from :func:`eps_loss_weights`.
    """
    x_t = q_sample(x0, t, schedule, eps)
    mean, var = q_posterior(x_t, x0, t, schedule)
    beta = schedule.betas[int(_check_t(t, schedule)) - 1]
    mu_theta = p_mean_from_noise(x_t, eps_theta, t, schedule)
    return float(gaussian_kl(mean, var, mu_theta, beta) - gaussian_kl(mean, var, mean, beta))


def induction_gap(schedule: Schedule, t: int) -> float:
    """How far the induction step q(x_s | x_0) → q(x_{s+1} | x_0) is from exact, for s < t.

    If x_{s-1} ~ N(√ᾱ_{s-1} x_0, 1-ᾱ_{s-1}) then x_s = √α_s x_{s-1} + √β_s ε has mean
    √(α_s ᾱ_{s-1}) x_0 and variance α_s (1-ᾱ_{s-1}) + β_s; the largest distance of these from
    √ᾱ_s and 1-ᾱ_s over every s ≤ t (rounding only: ~1e-16).
    """
    step = int(_check_t(t, schedule))
    alphas, betas, bars = schedule.alphas[:step], schedule.betas[:step], schedule.alpha_bars
    prev = np.concatenate(([1.0], bars[: step - 1]))  # ᾱ_{s-1}, ᾱ_0 = 1
    mean_gap = np.abs(np.sqrt(alphas * prev) - np.sqrt(bars[:step]))
    var_gap = np.abs(alphas * (1.0 - prev) + betas - (1.0 - bars[:step]))
    return float(max(mean_gap.max(), var_gap.max()))


@dataclass(frozen=True)
class ChainRun:
    """The chain q(x_s | x_{s-1}) run from x_0 to x_t, measured on the way.

    Attributes:
        x: x_t after t links, shape of x_0.
        steps: (n,) the steps s ≤ t where the chain was measured (at most ``points``).
        slope: (n,) Σ x_s x_0 / Σ x_0², the chain's estimate of √ᾱ_s.
        variance: (n,) mean of (x_s - √ᾱ_s x_0)², its estimate of 1-ᾱ_s.
    """

    x: Array
    steps: NDArray[np.int64]
    slope: Array
    variance: Array


def run_chain(
    x0: ArrayLike, t: int, schedule: Schedule, rng: np.random.Generator, points: int = 60
) -> ChainRun:
    """Run t links of q(x_s | x_{s-1}) (DDPM Eq. 2) from x_0, fresh ε ~ N(0, I) from ``rng``
    at every link, and measure the moments at ≤ ``points`` evenly spaced steps s ≤ t.

    Args:
        x0: the clean data, any shape, not all zero (the slope divides by Σ x_0²).
        t: the last step, 1..T.
        schedule: from :func:`make_schedule`.
        rng: the source of the t noise draws (one array of x0's shape per link).
        points: how many steps s to measure, at least 2 (the first is 1, the last t).
    """
    x0 = np.asarray(x0, dtype=np.float64)
    step = int(_check_t(t, schedule))
    keep = set(_measured_steps(step, points).tolist())
    norm = _chain_norm(x0)
    x, rows = x0, []
    for s in range(1, step + 1):
        x = q_step(x, s, schedule, rng.standard_normal(x0.shape))
        if s in keep:
            rows.append((s, *_chain_moments(x, x0, norm, s, schedule)))
    s_axis, slope, var = (np.array(col) for col in zip(*rows, strict=True))
    return ChainRun(x, s_axis.astype(np.int64), slope, var)


def _measured_steps(t: int, points: int) -> NDArray[np.int64]:
    """The ≤ ``points`` evenly spaced steps 1..t where :func:`run_chain` measures."""
    points = integer(points, "points", 2)
    return np.unique(np.round(np.linspace(1, t, min(t, points))).astype(int))


def _chain_norm(x0: Array) -> float:
    norm = float(np.sum(x0 * x0))
    if not norm > 0:
        raise ValueError("x0 is all zero: the chain's slope Σ x_s x_0 / Σ x_0² needs some signal")
    return norm


def _chain_moments(
    x: Array, x0: Array, norm: float, s: int, schedule: Schedule
) -> tuple[float, float]:
    """x_s's slope Σ x_s x_0 / Σ x_0² and residual variance mean((x_s − √ᾱ_s x_0)²)."""
    residual = x - math.sqrt(schedule.alpha_bars[s - 1]) * x0
    return float(np.sum(x * x0)) / norm, float(np.mean(residual**2))


CHAIN_EVERY = 50  # a ChainTrace keeps x_s every this many links


@dataclass(frozen=True, eq=False)
class ChainTrace:
    """The chain of :func:`run_chain`, run as far as it was asked and kept: its moments at
    every step, and x_s with the noise source's state every ``every`` links. From it x_t at
    any step it reached is at most ``every`` − 1 links away, so a slider over t costs a few
    links a step, either way, where :func:`run_chain` runs all t of them.

    Attributes:
        x0, schedule: as :func:`run_chain` takes them.
        slope, variance: (n,) the two moments at s = 1..n, n the links run (``reached``).
        saved: (x_s, the noise source after s links) for s = 0, every, 2·every, … ≤ n.
        head: (x_n, the noise source after n links).
        every: links between two saved states.
        norm: Σ x_0², which every step's slope divides by.

    The sources are copies no one draws from: :func:`chain_at` and :func:`extend_chain`
    draw from copies of them, so one trace serves any number of readers.
    """

    x0: Array
    schedule: Schedule
    slope: Array
    variance: Array
    saved: tuple[tuple[Array, np.random.Generator], ...]
    head: tuple[Array, np.random.Generator]
    every: int
    norm: float

    @property
    def reached(self) -> int:
        """How many links have been run (the last step t it can give)."""
        return len(self.slope)


def start_chain(
    x0: ArrayLike, schedule: Schedule, rng: np.random.Generator, every: int = CHAIN_EVERY
) -> ChainTrace:
    """A chain from x_0 with no link run yet (:func:`extend_chain` runs them). ``rng`` is
    copied, not drawn from: the trace gives what :func:`run_chain` gives with ``rng`` as it
    is now."""
    x0 = _frozen(x0)
    norm = _chain_norm(x0)
    every = positive_int(every, "every")
    start = (x0, copy.deepcopy(rng))
    empty = _frozen(np.empty(0))
    return ChainTrace(x0, schedule, empty, empty, (start,), start, every, norm)


def extend_chain(trace: ChainTrace, t: int) -> ChainTrace:
    """The chain run on to step t: ``trace`` itself if it reached t, else a new trace that
    shares what ``trace`` kept and adds the links up to t."""
    step = int(_check_t(t, trace.schedule))
    if step <= trace.reached:
        return trace
    x0, s_, norm = trace.x0, trace.schedule, trace.norm
    x, rng = trace.head[0], copy.deepcopy(trace.head[1])
    saved, moments = list(trace.saved), []
    for s in range(trace.reached + 1, step + 1):
        x = q_step(x, s, s_, rng.standard_normal(x0.shape))
        moments.append(_chain_moments(x, x0, norm, s, s_))
        if s % trace.every == 0:
            saved.append((_frozen(x), copy.deepcopy(rng)))
    slope, var = (
        np.concatenate([old, [m[i] for m in moments]])
        for i, old in enumerate((trace.slope, trace.variance))
    )
    head = (_frozen(x), rng)
    return ChainTrace(x0, s_, _frozen(slope), _frozen(var), tuple(saved), head, trace.every, norm)


def chain_at(trace: ChainTrace, t: int, points: int = 60) -> ChainRun:
    """What :func:`run_chain` gives for t and ``points`` (with the source ``trace`` was
    started from), from a trace that reached t: at most ``every`` − 1 links are run.

    Raises:
        ValueError: the trace has not reached t (:func:`extend_chain` it first).
    """
    step = int(_check_t(t, trace.schedule))
    if step > trace.reached:
        raise ValueError(
            f"the chain has run {trace.reached} links, not t = {step}: extend it first"
        )
    keep = _measured_steps(step, points)
    if step == trace.reached:
        x = trace.head[0]
    else:
        first = step // trace.every * trace.every
        x, source = trace.saved[first // trace.every]
        rng = copy.deepcopy(source)
        for s in range(first + 1, step + 1):
            x = q_step(x, s, trace.schedule, rng.standard_normal(x.shape))
    return ChainRun(
        np.array(x),
        keep.astype(np.int64),
        trace.slope[keep - 1].copy(),
        trace.variance[keep - 1].copy(),
    )


def gaussian_kl_integrand(
    x: ArrayLike, mean_p: float, var_p: float, mean_q: float, var_q: float
) -> Array:
    """p(x) ln(p(x)/q(x)) for p = N(mean_p, var_p), q = N(mean_q, var_q): its integral is
    KL(p ‖ q). Negative where q > p; the log-ratio is taken in closed form, so it stays
    finite (and the product 0) where the densities underflow."""
    x = np.asarray(x, dtype=np.float64)
    for name, v in (("var_p", var_p), ("var_q", var_q)):
        positive(v, name)
    log_p = -((x - mean_p) ** 2) / (2 * var_p) - 0.5 * math.log(2 * math.pi * var_p)
    log_q = -((x - mean_q) ** 2) / (2 * var_q) - 0.5 * math.log(2 * math.pi * var_q)
    return np.exp(log_p) * (log_p - log_q)


def gaussian_kl_quadrature(
    mean_p: float, var_p: float, mean_q: float, var_q: float, x: ArrayLike
) -> float:
    """KL(p ‖ q) by the trapezoidal rule on the grid ``x`` (a check of :func:`gaussian_kl`)."""
    x = np.asarray(x, dtype=np.float64)
    f = gaussian_kl_integrand(x, mean_p, var_p, mean_q, var_q)
    return float(np.sum((f[1:] + f[:-1]) / 2 * np.diff(x)))


def gaussian_kl_monte_carlo(
    mean_p: float, var_p: float, mean_q: float, var_q: float, rng: np.random.Generator, n: int
) -> tuple[float, float]:
    """KL(p ‖ q) as the mean of ln p(x) - ln q(x) over n draws x ~ p, and its standard error."""
    n = positive_int(n, "n")
    var_p, var_q = positive(var_p, "var_p"), positive(var_q, "var_q")
    x = mean_p + math.sqrt(var_p) * rng.standard_normal(n)
    log_p = -((x - mean_p) ** 2) / (2 * var_p) - 0.5 * math.log(2 * math.pi * var_p)
    log_q = -((x - mean_q) ** 2) / (2 * var_q) - 0.5 * math.log(2 * math.pi * var_q)
    ratio = log_p - log_q
    return float(ratio.mean()), float(ratio.std() / math.sqrt(n))


def log_spaced_steps(num_steps: int, count: int = 240) -> NDArray[np.int64]:
    """At most ``count`` distinct steps t ∈ 1..T, log-spaced, always with 1 and T (for plots
    whose t axis is logarithmic).

    >>> log_spaced_steps(1000, 4).tolist()
    [1, 10, 100, 1000]
    """
    T = positive_int(num_steps, "T")
    n = positive_int(count, "count")
    return np.unique(np.geomspace(1, T, n).round().astype(np.int64))
