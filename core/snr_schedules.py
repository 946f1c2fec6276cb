"""Noise schedules seen through their signal-to-noise ratio: build, rescale, shift, and the
signal a schedule leaves in x_T.

SNR_t = ᾱ_t/(1 − ᾱ_t); a schedule is fixed by its ᾱ_t, and β_t = 1 − ᾱ_t/ᾱ_{t−1} (ᾱ_0 = 1).

- Lin, Liu, Li & Yang 2024, "Common Diffusion Noise Schedules and Sample Steps are Flawed",
  Algorithm 1: rescale √ᾱ_t linearly so that √ᾱ_T = 0 (zero terminal SNR: x_T is pure noise,
  as it is when sampling starts) and √ᾱ_1 is kept. diffusers ships the same function
  (``schedulers.scheduling_ddim.rescale_zero_terminal_snr``).
- Hoogeboom, Heek & Salimans 2023, "simple diffusion", Sec. 3.1: an image at s times the
  resolution averages to the small image over s × s blocks, and averaging s² pixels divides
  the noise variance by s²; to make the large image as noisy as the small one, shift the
  schedule: log SNR'(t) = log SNR(t) − 2 log s. (Esser et al. 2024, SD3, Sec. 5.3.2, shift
  rectified-flow times the same way.)
- Why ᾱ_T > 0 matters: x_T = √ᾱ_T x_0 + √(1 − ᾱ_T) ε keeps a trace of x_0 that grows when
  pixels are averaged, the low frequencies; a model trained on it learns to read the image's
  mean brightness from x_T, but sampling starts from pure noise (Lin et al. Sec. 3.1).

Shape legend: T steps; images (H, W, C); b block side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from core.arrays import Array, IntArray
from core.diffusion import Schedule, make_schedule
from core.errors import CoreError
from core.validation import finite_array, integer, non_negative, one_of, positive

STABLE_DIFFUSION_BETAS = (0.00085, 0.012)  # "scaled_linear": √β evenly spaced, T = 1000


def _frozen(values: Array) -> Array:
    array = np.array(values, dtype=np.float64)
    array.flags.writeable = False
    return array


def schedule_from_alpha_bars(alpha_bars: ArrayLike, kind: str = "custom") -> Schedule:
    """The schedule with these ᾱ_1 … ᾱ_T (decreasing, in [0, 1)); β_t = 1 − ᾱ_t/ᾱ_{t−1}.

    ᾱ_T = 0 is allowed (zero terminal SNR: β_T = 1).
    """
    a = finite_array(alpha_bars, "alpha_bars", ndim=1)
    if np.any(a < 0) or np.any(a >= 1) or np.any(np.diff(a) > 0) or np.any(a[:-1] == 0):
        raise CoreError(
            "snr_alpha_bars",
            "ᾱ_t must fall from below 1 towards 0 (only the last may be 0), step by step",
        )
    prev = np.concatenate(([1.0], a[:-1]))
    # α_t = ᾱ_t/ᾱ_{t−1}, β_t = 1 − α_t
    alphas = a / prev
    return Schedule(str(kind), len(a), _frozen(1.0 - alphas), _frozen(alphas), _frozen(a))


def schedule_from_betas(betas: ArrayLike, kind: str = "custom") -> Schedule:
    """The schedule with these β_1 … β_T, each in (0, 1]; ᾱ_t = Π_{s≤t} (1 − β_s)."""
    b = finite_array(betas, "betas", ndim=1)
    if np.any(b <= 0) or np.any(b > 1):
        raise CoreError("snr_betas", "every β_t must be in (0, 1]")
    alphas = 1.0 - b
    return Schedule(str(kind), len(b), _frozen(b), _frozen(alphas), _frozen(np.cumprod(alphas)))


def stable_diffusion_schedule(num_steps: int = 1000) -> Schedule:
    """Stable Diffusion's "scaled_linear" schedule: √β from √0.00085 to √0.012 over T steps."""
    T = integer(num_steps, "T", 2, 10_000)
    lo, hi = (math.sqrt(b) for b in STABLE_DIFFUSION_BETAS)
    return schedule_from_betas(np.linspace(lo, hi, T) ** 2, "stable_diffusion")


def log_snr(schedule: Schedule) -> Array:
    """log SNR_t = log(ᾱ_t/(1 − ᾱ_t)) for every t, shape (T,); −∞ where ᾱ_t = 0."""
    a = schedule.alpha_bars
    with np.errstate(divide="ignore"):
        return np.log(a) - np.log1p(-a)


def rescale_zero_terminal_snr(schedule: Schedule) -> Schedule:
    """The schedule with √ᾱ_t shifted and scaled so that ᾱ_T = 0 and ᾱ_1 is unchanged.

    Lin et al. 2024, Algorithm 1: √ᾱ'_t = (√ᾱ_t − √ᾱ_T) · √ᾱ_1/(√ᾱ_1 − √ᾱ_T).
    """
    root = np.sqrt(schedule.alpha_bars)
    first, last = root[0], root[-1]
    if schedule.num_steps < 2 or first == last:
        raise CoreError("snr_rescale_short", "rescaling needs at least two distinct steps")
    # shift so that the last step is 0, then scale so that the first is back where it was
    rescaled = (root - last) * first / (first - last)
    return schedule_from_alpha_bars(rescaled**2, f"{schedule.kind}+zero_snr")


def shift_schedule(schedule: Schedule, scale: float) -> Schedule:
    """The schedule for an image ``scale`` times as wide: log SNR'(t) = log SNR(t) − 2 log s.

    ᾱ'_t = SNR'/(1 + SNR') = ᾱ_t/(ᾱ_t + s²(1 − ᾱ_t)). s > 1 adds noise (larger images),
    s < 1 removes it; s = 1 returns the same ᾱ_t.
    """
    s2 = positive(scale, "scale") ** 2
    a = schedule.alpha_bars
    shifted = a / (a + s2 * (1.0 - a))
    return schedule_from_alpha_bars(shifted, f"{schedule.kind}×{scale:g}")


def block_means(image: ArrayLike, block: int) -> Array:
    """Average an (H, W, C) or (H, W) image over b × b blocks: (H/b, W/b[, C]).

    Rows and columns beyond a multiple of b are dropped.
    """
    x = finite_array(image, "image", min_ndim=2)
    H, W = x.shape[:2]
    b = integer(block, "block", 1, min(H, W))
    h, w = H // b, W // b
    x = x[: h * b, : w * b]
    # (h b) (w b) c -> h w c, averaged over the two b axes
    return x.reshape(h, b, w, b, *x.shape[2:]).mean(axis=(1, 3))


def correlation(a: ArrayLike, b: ArrayLike) -> float:
    """Pearson's correlation of two equally shaped arrays (0 if either is constant)."""
    x = finite_array(a, "a").ravel()
    y = finite_array(b, "b").ravel()
    if x.shape != y.shape:
        raise CoreError("snr_shapes", "the two arrays must have the same shape")
    x, y = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float(np.sum(x * x) * np.sum(y * y)))
    return 0.0 if denominator == 0 else float(np.sum(x * y) / denominator)


def expected_block_correlation(alpha_bar: float, signal_var: float, block: int) -> float:
    """corr(block means of x_0, of x_T) for x_T = √ᾱ x_0 + √(1−ᾱ) ε, averaged over b² pixels.

    The block mean of ε has variance 1/b²; with v the variance of x_0's block means:
    corr = √ᾱ √v / √(ᾱ v + (1 − ᾱ)/b²).
    """
    a = float(alpha_bar)
    b = integer(block, "block", 1)
    if not 0.0 <= a <= 1.0:
        raise CoreError("snr_alpha_bar", "ᾱ must be in [0, 1], got {a}", a=a)
    v = non_negative(signal_var, "variance")
    denominator = a * v + (1.0 - a) / b**2
    return 0.0 if denominator == 0 else math.sqrt(a * v) / math.sqrt(denominator)


# ---- the schedules a page offers, by name -----------------------------------------------
SCHEDULE_NAMES: tuple[str, ...] = ("linear", "cosine", "quadratic", "sigmoid", "stable_diffusion")


def named_schedule(name: str, num_steps: int = 1000, zero_snr: bool = False) -> Schedule:
    """A schedule of ``SCHEDULE_NAMES`` with T steps, rescaled to ᾱ_T = 0 if ``zero_snr``.

    ``linear``, ``cosine``, ``quadratic``, ``sigmoid`` come from
    :func:`core.diffusion.make_schedule`; ``stable_diffusion`` is :func:`stable_diffusion_schedule`.
    """
    one_of(name, "schedule", SCHEDULE_NAMES)
    T = integer(num_steps, "T", 2, 10_000)
    s = stable_diffusion_schedule(T) if name == "stable_diffusion" else make_schedule(name, T)
    return rescale_zero_terminal_snr(s) if zero_snr else s


# ---- one point in the four coordinates a network may predict ----------------------------
@dataclass(frozen=True)
class Targets:
    """x_t and the four targets of one (x_0, ε) at ᾱ_t, straight from their definitions.

    x_t = √ᾱ x_0 + √(1−ᾱ) ε; v = √ᾱ ε − √(1−ᾱ) x_0 (Salimans & Ho 2022, Sec. 4);
    score = ∇ log q(x_t | x_0) = −ε/√(1−ᾱ), finite since ᾱ < 1 at every t ≥ 1.
    """

    x_t: Array
    eps: Array
    x0: Array
    v: Array
    score: Array

    def of(self, prediction: str) -> Array:
        """The target called ``prediction`` (``eps``, ``x0``, ``v`` or ``score``)."""
        return getattr(self, prediction)


def targets(x0: ArrayLike, eps: ArrayLike, alpha_bar: float) -> Targets:
    """x_t, ε, x_0, v and the score of x_0 noised with ε at ᾱ (0 ≤ ᾱ < 1)."""
    x = finite_array(x0, "x0")
    e = finite_array(eps, "eps")
    if x.shape != e.shape:
        raise CoreError("snr_shapes", "the two arrays must have the same shape")
    a = float(alpha_bar)
    if not 0.0 <= a < 1.0:
        raise CoreError("snr_alpha_bar_below_one", "ᾱ must be in [0, 1), got {a}", a=a)
    c, s = math.sqrt(a), math.sqrt(1.0 - a)  # cos φ, sin φ
    # x_t = √ᾱ x_0 + √(1−ᾱ) ε,  v = √ᾱ ε − √(1−ᾱ) x_0,  score = −ε/√(1−ᾱ)
    return Targets(c * x + s * e, e, x, c * e - s * x, -e / s)


def target_weights(alpha_bar: float) -> dict[str, float]:
    """w with ‖target − target̂‖² = w ‖x_0 − x̂_0‖² at fixed x_t, for ᾱ in [0, 1).

    x̂_0 off by δ moves ε̂ by −√(ᾱ/(1−ᾱ)) δ, v̂ by −δ/√(1−ᾱ), the score by √ᾱ δ/(1−ᾱ):
    ε: SNR; x_0: 1; v: 1 + SNR; score: SNR/(1−ᾱ).
    """
    a = float(alpha_bar)
    if not 0.0 <= a < 1.0:
        raise CoreError("snr_alpha_bar_below_one", "ᾱ must be in [0, 1), got {a}", a=a)
    snr = a / (1.0 - a)
    return {"eps": snr, "x0": 1.0, "v": 1.0 + snr, "score": snr / (1.0 - a)}


def loss_ratio(truth: ArrayLike, guess: ArrayLike, x0: ArrayLike, x0_guess: ArrayLike) -> float:
    """‖truth − guess‖² / ‖x_0 − x̂_0‖²: how much a target's loss weighs an x_0 error."""
    a, b = finite_array(truth, "truth"), finite_array(guess, "guess")
    c, d = finite_array(x0, "x0"), finite_array(x0_guess, "x0_guess")
    if a.shape != b.shape or c.shape != d.shape:
        raise CoreError("snr_shapes", "the two arrays must have the same shape")
    denominator = float(np.sum((c - d) ** 2))
    if denominator == 0:
        raise CoreError("snr_no_error", "x̂_0 equals x_0: there is no error to weigh")
    return float(np.sum((a - b) ** 2)) / denominator


# ---- what x_T keeps of x_0, block by block ----------------------------------------------
@dataclass(frozen=True)
class Leak:
    """How much of x_0's coarse picture x_T still holds, for each block side b.

    Attributes:
        blocks: (k,) block sides b.
        expected: (k,) :func:`expected_block_correlation` with x_0's own block-mean variance.
        measured: (k,) corr(block means of x_0, block means of x_T) for this noise.
        x_T: x_T = √ᾱ_T x_0 + √(1−ᾱ_T) ε, the shape of x_0.
    """

    blocks: IntArray
    expected: Array
    measured: Array
    x_T: Array


def leak(image: ArrayLike, alpha_bar_T: float, blocks: Sequence[int], noise: ArrayLike) -> Leak:
    """The correlation between block means of x_0 and of x_T, expected and measured.

    Args:
        image: x_0, (H, W, C) or (H, W), values in [−1, 1].
        alpha_bar_T: the schedule's ᾱ_T in [0, 1].
        blocks: block sides b (each at most min(H, W)).
        noise: ε, the shape of ``image``.
    """
    x0 = finite_array(image, "image", min_ndim=2)
    eps = finite_array(noise, "noise")
    if x0.shape != eps.shape:
        raise CoreError("snr_shapes", "the two arrays must have the same shape")
    a = float(alpha_bar_T)
    if not 0.0 <= a <= 1.0:
        raise CoreError("snr_alpha_bar", "ᾱ must be in [0, 1], got {a}", a=a)
    # x_T = √ᾱ_T x_0 + √(1−ᾱ_T) ε
    x_T = math.sqrt(a) * x0 + math.sqrt(1.0 - a) * eps
    b = np.array([integer(k, "block", 1, min(x0.shape[:2])) for k in blocks], dtype=np.int64)
    expected, measured = [], []
    for k in b.tolist():
        m0 = block_means(x0, k)
        expected.append(expected_block_correlation(a, float(m0.var()), k))
        measured.append(correlation(m0, block_means(x_T, k)))
    return Leak(b, np.array(expected), np.array(measured), x_T)


def blocky(image: ArrayLike, block: int) -> Array:
    """The image with every b × b block replaced by its mean, same shape (to be looked at).

    Rows and columns beyond a multiple of b are dropped, as in :func:`block_means`.
    """
    m = block_means(image, block)
    b = int(block)
    # h w c -> (h b) (w b) c
    return np.repeat(np.repeat(m, b, axis=0), b, axis=1)


def contrast_match(x: ArrayLike, reference: ArrayLike) -> Array:
    """x shifted and scaled to the mean and standard deviation of ``reference`` (to show a
    faint signal at the reference's contrast); a constant x becomes the reference's mean."""
    a, r = finite_array(x, "x"), finite_array(reference, "reference")
    sd = float(a.std())
    if sd <= 1e-12 * max(1.0, float(np.abs(a).max(initial=0.0))):  # constant up to rounding
        return np.full_like(a, float(r.mean()))
    return (a - a.mean()) / sd * float(r.std()) + float(r.mean())


# ---- checks the page shows: conversions and loss weights, through core.reverse ----------
def conversion_errors(truth: Targets, t: int, schedule: Schedule) -> tuple[float, int]:
    """Convert each of the four targets into each of the other three with
    :func:`core.reverse.convert` (12 pairs).

    Returns:
        (the largest |converted − truth| over the defined pairs, how many of the 12 pairs are
        undefined: at ᾱ_t = 0, ε and the score carry nothing of x_0, so ε → x_0, ε → v,
        score → x_0 and score → v raise).
    """
    from core import reverse  # noqa: PLC0415 (reverse imports nothing of this module)

    worst, undefined = 0.0, 0
    for source in reverse.PREDICTIONS:
        for target in reverse.PREDICTIONS:
            if target == source:
                continue
            try:
                got = reverse.convert(truth.x_t, t, truth.of(source), source, target, schedule)
            except CoreError:
                undefined += 1
                continue
            worst = max(worst, float(np.max(np.abs(got - truth.of(target)))))
    return worst, undefined


def target_losses(
    truth: Targets, x0_guess: ArrayLike, t: int, schedule: Schedule
) -> dict[str, float]:
    """The mean squared error of each target when a network's x̂_0 is ``x0_guess``.

    Each guessed target is x̂_0 converted at the same x_t with :func:`core.reverse.convert`;
    the loss of ``"x0"`` is the plain x_0 error, and the others divide by it to w_t.
    """
    from core import reverse  # noqa: PLC0415

    guess = finite_array(x0_guess, "x0_guess")
    return {
        p: float(
            np.mean((truth.of(p) - reverse.convert(truth.x_t, t, guess, "x0", p, schedule)) ** 2)
        )
        for p in reverse.PREDICTIONS
    }
