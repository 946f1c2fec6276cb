"""SimCLR's contrastive loss NT-Xent, its gradient and bounds, and the stochastic augmentations.

Chen et al. 2020, "A Simple Framework for Contrastive Learning of Visual Representations"
(ICML). Sec. 2.1: two views x̃ᵢ, x̃ⱼ of one image x are drawn by a stochastic augmentation
(random crop resized back + horizontal flip, colour distortion; Appendix A), an encoder
f(·) gives hᵢ = f(x̃ᵢ), a projection head g(·) gives zᵢ = g(hᵢ), and the loss of the positive
pair (i, j) among the 2N views of a batch of N images is Eq. (1)

    ℓ_{i,j} = −log( exp(sim(zᵢ, zⱼ)/τ) / Σ_{k=1}^{2N} 1[k ≠ i] exp(sim(zᵢ, z_k)/τ) ),

sim(u, v) = uᵀv / (‖u‖‖v‖), τ > 0 the temperature; the batch loss is the mean of ℓ over
the 2N anchors (both orders of every pair, Algorithm 1). Each anchor's term is a softmax
cross-entropy whose "classes" are the 2N − 1 other views: computed here with the one stable
masked softmax of the project, :func:`core.softmax.masked_softmax`.

Layout: rows i and i + N of z are the two views of image i (0-based), so the positive of
anchor i is (i + N) mod 2N.

This module is numpy only (the pages and exercises import it without torch); the torch
encoder and projection head are in :mod:`core.simclr`.

Shape legend: N images, 2N views, d embedding size, S image side (images (S, S, 3) in [0, 1]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from core.arrays import Array, BoolArray, IntArray
from core.errors import CoreError
from core.softmax import masked_softmax
from core.validation import finite_array, integer, non_negative, positive, positive_int

TAU_MIN = 0.01  # below it exp((s_ik − s_max)/τ) could underflow a positive's probability to 0
BATCH_MAX = 64  # images in a batch (2N ≤ 128 views)


# ---- the loss ------------------------------------------------------------------------------
def _temperature(temperature: object) -> float:
    tau = positive(temperature, "temperature")
    if tau < TAU_MIN:
        raise CoreError(
            "contrastive_temperature",
            "the temperature τ must be at least {lo}, got {value}",
            lo=TAU_MIN,
            value=temperature,
        )
    return tau


def _embeddings(z: ArrayLike) -> Array:
    z = finite_array(z, "embeddings z", ndim=2)
    two_n = z.shape[0]
    if two_n < 2 or two_n % 2:
        raise CoreError(
            "contrastive_rows",
            "z needs an even number 2N ≥ 2 of rows (two views of each of N images), got {rows}",
            rows=two_n,
        )
    if np.any(np.linalg.norm(z, axis=1) == 0):
        raise CoreError(
            "contrastive_zero",
            "an embedding of length 0 has no direction: its cosine similarity is undefined",
        )
    return z


def positives(two_n: int) -> IntArray:
    """The positive of each anchor: (i + N) mod 2N for i = 0 … 2N − 1.

    >>> positives(6).tolist()
    [3, 4, 5, 0, 1, 2]
    """
    two_n = integer(two_n, "2N", 2)
    return (np.arange(two_n) + two_n // 2) % two_n


def cosine_similarity(z: ArrayLike) -> Array:
    """sim(zᵢ, z_k) = zᵢᵀz_k / (‖zᵢ‖‖z_k‖) for every pair: (2N, 2N), symmetric, diagonal 1."""
    z = _embeddings(z)
    u = z / np.linalg.norm(z, axis=1, keepdims=True)  # (2N, d) on the unit sphere
    return np.clip(u @ u.T, -1.0, 1.0)


@dataclass(frozen=True)
class NTXent:
    """NT-Xent of one batch, term by term.

    Attributes:
        similarity: (2N, 2N) cosine similarities sim(zᵢ, z_k).
        probs: (2N, 2N) row i = softmax over k ≠ i of sim(zᵢ, z_k)/τ (diagonal 0).
        positive: (2N,) the positive of each anchor, (i + N) mod 2N.
        per_anchor: (2N,) ℓ_{i, positive(i)} = −log probs[i, positive(i)].
        loss: the mean of ``per_anchor``.
        temperature: τ.
    """

    similarity: Array
    probs: Array
    positive: IntArray
    per_anchor: Array
    loss: float
    temperature: float


def explain_nt_xent(z: ArrayLike, temperature: float) -> NTXent:
    """NT-Xent (Eq. 1) of embeddings z (2N, d) whose rows i and i + N are one image's views.

    Args:
        z: (2N, d) embeddings, N ≥ 1 (need not be normalised; no zero rows).
        temperature: τ ≥ :data:`TAU_MIN`.
    """
    tau = _temperature(temperature)
    sim = cosine_similarity(z)  # (2N, 2N)
    two_n = sim.shape[0]
    others = ~np.eye(two_n, dtype=bool)  # the indicator 1[k ≠ i]
    probs = masked_softmax(sim / tau, others)  # (2N, 2N), row i over k ≠ i
    pos = positives(two_n)
    ell = -np.log(probs[np.arange(two_n), pos])  # (2N,)
    return NTXent(sim, probs, pos, ell, float(ell.mean()), tau)


def nt_xent(z: ArrayLike, temperature: float) -> float:
    """SimCLR's NT-Xent loss: the mean over the 2N anchors of ℓ_{i,j} (Eq. 1).

    >>> round(nt_xent([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], 1.0), 4)
    0.5514
    """
    return explain_nt_xent(z, temperature).loss


def nt_xent_gradient(z: ArrayLike, temperature: float) -> tuple[float, Array]:
    """The loss and its gradient ∂L/∂z (2N, d), written out (checked against autograd).

    With pᵢₖ the softmax of anchor i and G = (P − Y)/(2N) (Y one-hot at the positives; the
    gradient of a softmax cross-entropy with respect to its logits), ∂L/∂s = G/τ; s = UUᵀ
    with U the unit rows uᵢ = zᵢ/‖zᵢ‖, so ∂L/∂U = (G + Gᵀ)U/τ, and through the
    normalisation ∂L/∂zᵢ = (I − uᵢuᵢᵀ) ∂L/∂uᵢ / ‖zᵢ‖.
    """
    z = _embeddings(z)
    result = explain_nt_xent(z, temperature)
    two_n = z.shape[0]
    norms = np.linalg.norm(z, axis=1, keepdims=True)
    u = z / norms
    G = result.probs.copy()
    G[np.arange(two_n), result.positive] -= 1.0
    G /= two_n
    dU = (G + G.T) @ u / result.temperature  # (2N, d)
    dz = (dU - np.sum(dU * u, axis=1, keepdims=True) * u) / norms
    return result.loss, dz


def chance_level(n: int) -> float:
    """ln(2N − 1): the loss when every view looks alike (collapse, or τ → ∞).

    >>> round(chance_level(4), 4)
    1.9459
    """
    n = positive_int(n, "N", BATCH_MAX)
    return math.log(2 * n - 1)


def loss_lower_bound(n: int, temperature: float) -> float:
    """The smallest NT-Xent of any 2N unit embeddings (in d ≥ N − 1 dimensions):

        L ≥ ln(1 + 2(N − 1) exp(−N / ((N − 1) τ)))

    reached when both views of an image coincide and the N images sit at the corners of a
    regular simplex (pairwise similarity −1/(N − 1)): the positive's similarity is at most
    1, and ‖Σ uᵢ‖² ≥ 0 keeps the mean similarity of the negatives at −1/(N − 1) or more
    (Jensen's inequality does the rest). For N = 1 the positive is the only other view: 0.
    """
    n = positive_int(n, "N", BATCH_MAX)
    tau = _temperature(temperature)
    if n == 1:
        return 0.0
    return math.log1p(2 * (n - 1) * math.exp(-n / ((n - 1) * tau)))


def simplex_embeddings(n: int) -> Array:
    """(2N, N) the minimiser of :func:`loss_lower_bound`: the N corners of a regular simplex
    (eₖ − 1/N, normalised), each twice (rows k and k + N)."""
    n = integer(n, "N", 2, BATCH_MAX)
    corners = np.eye(n) - 1.0 / n
    corners /= np.linalg.norm(corners, axis=1, keepdims=True)
    return np.concatenate([corners, corners])


# ---- the augmentations ---------------------------------------------------------------------
@dataclass(frozen=True)
class Augmentation:
    """The random draws of one view (Chen et al. 2020, Appendix A; torchvision's names).

    Attributes:
        box: (top, left, height, width) of the crop in pixels of the source (floats).
        flipped: mirrored left–right.
        jittered: the colour jitter was applied (probability 0.8).
        brightness, contrast, saturation: factors (1 = unchanged).
        hue: a turn of the hue by this fraction of a full circle.
        grey: turned to grey (probability 0.2).
    """

    box: tuple[float, float, float, float]
    flipped: bool
    jittered: bool
    brightness: float
    contrast: float
    saturation: float
    hue: float
    grey: bool


def _image(image: ArrayLike) -> Array:
    x = finite_array(image, "image", ndim=3)
    if x.shape[2] != 3 or x.shape[0] < 2 or x.shape[1] < 2:
        raise CoreError(
            "contrastive_image",
            "an image must be (H, W, 3) with H, W ≥ 2, got shape {shape}",
            shape=x.shape,
        )
    return np.clip(x, 0.0, 1.0)


def grey(image: Array) -> Array:
    """ITU-R 601 luma (as torchvision's ``rgb_to_grayscale``), (H, W, 1)."""
    return image @ np.array([0.299, 0.587, 0.114])[:, None]


def resized_crop(image: ArrayLike, box: tuple[float, float, float, float], side: int) -> Array:
    """The ``box`` (top, left, height, width) of ``image`` resampled bilinearly to side × side.

    Output pixel (r, c) samples the source at the centre of its cell:
    y = top + (r + ½)·height/side − ½ (and x alike), clamped to the image.
    """
    x = _image(image)
    side = integer(side, "side", 2, 512)
    H, W, _ = x.shape
    top, left, h, w = (float(v) for v in box)
    ys = np.clip(top + (np.arange(side) + 0.5) * h / side - 0.5, 0, H - 1)
    xs = np.clip(left + (np.arange(side) + 0.5) * w / side - 0.5, 0, W - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    rows0, rows1 = x[y0], x[y1]  # (side, W, 3)
    top_row = rows0[:, x0] * (1 - fx) + rows0[:, x1] * fx
    bottom_row = rows1[:, x0] * (1 - fx) + rows1[:, x1] * fx
    return top_row * (1 - fy) + bottom_row * fy


def rotate_hue(image: Array, turn: float) -> Array:
    """Turn every colour about the grey axis (1, 1, 1)/√3 by ``turn`` of a circle (Rodrigues):
    greys stay grey and the mean of R, G, B is kept; a full turn gives the image back."""
    a = 2 * math.pi * float(turn)
    k = np.ones(3) / math.sqrt(3)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    R = np.eye(3) + math.sin(a) * K + (1 - math.cos(a)) * K @ K
    return image @ R.T


def colour_jitter(
    image: ArrayLike, brightness: float, contrast: float, saturation: float, hue: float
) -> Array:
    """Brightness, contrast, saturation (blends with black, the mean grey, the grey image) and
    a hue turn, in this order, each clipped to [0, 1] (torchvision draws the order at random)."""
    x = _image(image)
    x = np.clip(x * non_negative(brightness, "brightness"), 0, 1)
    c = non_negative(contrast, "contrast")
    x = np.clip(c * x + (1 - c) * grey(x).mean(), 0, 1)
    s = non_negative(saturation, "saturation")
    x = np.clip(s * x + (1 - s) * grey(x), 0, 1)
    return np.clip(rotate_hue(x, hue), 0, 1)


def draw_augmentation(
    height: int, width: int, rng: np.random.Generator, strength: float = 0.5, min_area: float = 0.3
) -> Augmentation:
    """Draw one view's augmentation (SimCLR, Appendix A, with colour strength s):

    - crop: area fraction ~ U(min_area, 1) (the paper: 0.08), aspect ratio log-uniform in
      [3/4, 4/3], position uniform; then resized back (the paper: 224², here S²);
    - flip left–right with probability ½;
    - colour jitter with probability 0.8: brightness, contrast, saturation factors
      ~ U(1 − 0.8s, 1 + 0.8s), hue turn ~ U(−0.2s, 0.2s); grey with probability 0.2
      (s = 0 turns the whole colour distortion off, grey included).
    """
    H, W = integer(height, "height", 2), integer(width, "width", 2)
    s = non_negative(strength, "strength")
    lo = positive(min_area, "min_area")
    if lo > 1:
        raise CoreError(
            "contrastive_area",
            "the smallest crop area is a fraction of the image in (0, 1], got {value}",
            value=min_area,
        )
    area = rng.uniform(lo, 1.0) * H * W
    ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
    h = min(math.sqrt(area / ratio), H)
    w = min(math.sqrt(area * ratio), W)
    top, left = rng.uniform(0, H - h), rng.uniform(0, W - w)
    flipped = bool(rng.random() < 0.5)
    jittered = bool(rng.random() < 0.8)
    b, c, sat = rng.uniform(max(0.0, 1 - 0.8 * s), 1 + 0.8 * s, size=3)
    hue = rng.uniform(-0.2 * s, 0.2 * s)
    to_grey = bool(rng.random() < 0.2) and s > 0  # s = 0: no colour distortion at all
    return Augmentation(
        (top, left, h, w), flipped, jittered, float(b), float(c), float(sat), float(hue), to_grey
    )


def apply_augmentation(image: ArrayLike, aug: Augmentation, side: int) -> Array:
    """One view: crop and resize to side × side, flip, colour jitter, grey — in [0, 1]."""
    x = resized_crop(image, aug.box, side)
    if aug.flipped:
        x = x[:, ::-1]
    if aug.jittered:
        x = colour_jitter(x, aug.brightness, aug.contrast, aug.saturation, aug.hue)
    if aug.grey:
        x = np.repeat(grey(x), 3, axis=2)
    return np.ascontiguousarray(x)


@dataclass(frozen=True)
class Views:
    """Two views of every image of a batch.

    Attributes:
        images: (2N, S, S, 3) in [0, 1]; rows i and i + N come from image i.
        augmentations: the 2N draws, in the same order.
    """

    images: Array
    augmentations: tuple[Augmentation, ...]


def two_views(
    images: ArrayLike,
    rng: np.random.Generator,
    side: int,
    strength: float = 0.5,
    min_area: float = 0.3,
) -> Views:
    """Draw two augmented views of each of the N images (N, H, W, 3): rows i and i + N."""
    batch = finite_array(images, "images", ndim=4)
    N = integer(batch.shape[0], "N", 1, BATCH_MAX)
    augs = [draw_augmentation(*batch.shape[1:3], rng, strength, min_area) for _ in range(2 * N)]
    views = [apply_augmentation(batch[k % N], aug, side) for k, aug in enumerate(augs)]
    return Views(np.stack(views), tuple(augs))


def crop_inside(aug: Augmentation, height: int, width: int) -> bool:
    """Whether the crop box lies inside the H × W image."""
    top, left, h, w = aug.box
    return top >= 0 and left >= 0 and top + h <= height + 1e-9 and left + w <= width + 1e-9


# ---- sample images -------------------------------------------------------------------------
SYNTHETIC = ("stripes", "rings", "cross", "dots")


def synthetic_image(name: str, side: int) -> Array:
    """A deterministic (S, S, 3) picture in [0, 1]: stripes, rings, a cross or dots."""
    side = integer(side, "side", 8, 512)
    y, x = (np.mgrid[0:side, 0:side] + 0.5) / side  # pixel centres in (0, 1)
    r = np.hypot(y - 0.5, x - 0.5)
    if name == "stripes":  # vermillion and white diagonal bands
        on = ((x + y) * 5) % 1 < 0.5
        return np.where(on[..., None], [0.84, 0.37, 0.0], [0.97, 0.97, 0.95])
    if name == "rings":  # a blue and yellow target
        on = (r * 8) % 1 < 0.5
        return np.where(on[..., None], [0.0, 0.45, 0.7], [0.94, 0.89, 0.26])
    if name == "cross":  # a green cross on pink
        on = (np.abs(x - 0.5) < 0.12) | (np.abs(y - 0.5) < 0.12)
        return np.where(on[..., None], [0.0, 0.62, 0.45], [0.8, 0.47, 0.65])
    if name == "dots":  # sky-blue dots on a dark ground
        on = np.hypot((x * 4) % 1 - 0.5, (y * 4) % 1 - 0.5) < 0.3
        return np.where(on[..., None], [0.34, 0.71, 0.91], [0.12, 0.12, 0.18])
    raise CoreError(
        "not_an_option",
        "{name} must be one of {options}, got {value!r}",
        name="picture",
        options=", ".join(SYNTHETIC),
        value=name,
    )


def mean_similarities(sim: ArrayLike) -> tuple[float, float]:
    """(mean similarity of the 2N positive pairs, mean of the 2N(2N − 2) negative pairs)."""
    s = finite_array(sim, "similarity", ndim=2)
    two_n = s.shape[0]
    pos = positives(two_n)
    is_pos: BoolArray = np.zeros_like(s, dtype=bool)
    is_pos[np.arange(two_n), pos] = True
    negative = ~is_pos & ~np.eye(two_n, dtype=bool)
    return float(s[is_pos].mean()), float(s[negative].mean()) if negative.any() else math.nan
