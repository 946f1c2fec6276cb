"""Cheap convolutions: MobileNets' depthwise separable convolution and ESPCN's sub-pixel shuffle.

Howard et al. 2017, "MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
Applications": Sec. 3.1 (a standard convolution costs D_K·D_K·M·N·D_F·D_F mult-adds; a
depthwise convolution, one D_K×D_K filter per input channel, D_K·D_K·M·D_F·D_F, then a 1×1
pointwise convolution M·N·D_F·D_F; their ratio is 1/N + 1/D_K²), Sec. 3.2 (Table 1, the
body of MobileNet v1), Sec. 3.3 (width multiplier α: M → αM, N → αN; resolution multiplier ρ:
D_F → ρD_F). Shi et al. 2016, "Real-Time Single Image and Video Super-Resolution Using an
Efficient Sub-Pixel Convolutional Neural Network" (ESPCN), Sec. 2.2: a convolution to C·r²
channels followed by the periodic shuffle PS, (C·r², H, W) → (C, H·r, W·r).

Shape legend: M input channels, N output channels, D_K kernel side, D_F feature-map side
(the side of the output, where the kernel is applied: at stride 1 with "same" padding it is
the input side, as the paper assumes), C channels after the shuffle, r upscaling factor,
H×W image. Numpy only (the torch layers are in ``core.convolution_layers``); convolutions
here are cross-correlations with zero "same" padding and stride 1, as ``torch.nn.Conv2d``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from core import validation
from core.arrays import Array
from core.errors import CoreError

MAX_SIZE = 1 << 20  # bound on channels / sides a cost function accepts (no overflow games)


@dataclass(frozen=True)
class ConvCost:
    """The cost of one convolution: mult-adds (one multiply and one add each) and weights."""

    mult_adds: int
    params: int


@dataclass(frozen=True)
class SeparableCost:
    """A depthwise separable convolution: a depthwise then a pointwise (1×1) convolution."""

    depthwise: ConvCost
    pointwise: ConvCost

    @property
    def mult_adds(self) -> int:
        return self.depthwise.mult_adds + self.pointwise.mult_adds

    @property
    def params(self) -> int:
        return self.depthwise.params + self.pointwise.params


def _sizes(kernel: int, m: int, n: int, feature: int) -> tuple[int, int, int, int]:
    named = ((kernel, "D_K"), (m, "M"), (n, "N"), (feature, "D_F"))
    D_K, M, N, D_F = (validation.positive_int(v, name, MAX_SIZE) for v, name in named)
    return D_K, M, N, D_F


def standard_conv_cost(kernel: int, m: int, n: int, feature: int) -> ConvCost:
    """A D_K×D_K convolution from M to N channels at D_F×D_F positions (no bias).

    >>> standard_conv_cost(3, 512, 512, 14).mult_adds   # MobileNets Table 3: 462M
    462422016
    """
    D_K, M, N, D_F = _sizes(kernel, m, n, feature)
    # D_K · D_K · M · N · D_F · D_F  (Howard et al. 2017, Eq. 2)
    return ConvCost(D_K * D_K * M * N * D_F * D_F, D_K * D_K * M * N)


def depthwise_separable_cost(kernel: int, m: int, n: int, feature: int) -> SeparableCost:
    """A D_K×D_K depthwise convolution on M channels, then a 1×1 convolution from M to N.

    >>> depthwise_separable_cost(3, 512, 512, 14).mult_adds   # MobileNets Table 3: 52.3M
    52283392
    """
    D_K, M, N, D_F = _sizes(kernel, m, n, feature)
    # D_K · D_K · M · D_F · D_F + M · N · D_F · D_F  (Eq. 5)
    return SeparableCost(
        ConvCost(D_K * D_K * M * D_F * D_F, D_K * D_K * M), ConvCost(M * N * D_F * D_F, M * N)
    )


def cost_ratio(kernel: int, n: int) -> Fraction:
    """Separable over standard mult-adds, exactly: 1/N + 1/D_K² (Howard et al. 2017, Sec. 3.1).

    >>> float(cost_ratio(3, 128))
    0.1189236111111111
    """
    D_K, _, N, _ = _sizes(kernel, 1, n, 1)
    return Fraction(1, N) + Fraction(1, D_K * D_K)


# ---- MobileNet v1 (Howard et al. 2017, Table 1) --------------------------------------------

# (kind, stride, output channels at α = 1) after the first layer: "dw" depthwise 3×3, "pw" 1×1
_BODY: tuple[tuple[str, int, int], ...] = (
    ("dw", 1, 32),
    ("pw", 1, 64),
    ("dw", 2, 64),
    ("pw", 1, 128),
    ("dw", 1, 128),
    ("pw", 1, 128),
    ("dw", 2, 128),
    ("pw", 1, 256),
    ("dw", 1, 256),
    ("pw", 1, 256),
    ("dw", 2, 256),
    ("pw", 1, 512),
    *(("dw", 1, 512), ("pw", 1, 512)) * 5,
    ("dw", 2, 512),
    ("pw", 1, 1024),
    ("dw", 1, 1024),
    ("pw", 1, 1024),
)
WIDTHS = (1.0, 0.75, 0.5, 0.25)  # the α of the paper's Table 6
RESOLUTIONS = (224, 192, 160, 128)  # the input sides of Table 7 (ρ = side / 224)
CLASSES = 1000


@dataclass(frozen=True)
class Layer:
    """One row of MobileNet v1's body (Table 1) with its cost.

    Attributes:
        kind: "conv" (the full 3×3 first layer), "dw" (depthwise 3×3), "pw" (pointwise 1×1)
            or "fc" (the classifier; the average pool before it costs no mult-adds here).
        stride: 1 or 2.
        kernel: D_K. m, n: input and output channels. side_in, side_out: D_F before and after.
        cost: mult-adds and weights (biases and batch-norm parameters not counted).
    """

    kind: str
    stride: int
    kernel: int
    m: int
    n: int
    side_in: int
    side_out: int
    cost: ConvCost


def mobilenet_v1_layers(alpha: float = 1.0, resolution: int = 224) -> tuple[Layer, ...]:
    """MobileNet v1's 28 layers (27 convolutions and the classifier) for width α and input side.

    Channels are scaled by α (the first layer's 3 input channels and the 1000 classes are
    not); "same" padding, so a stride-2 layer outputs ⌈side / 2⌉. A depthwise layer is
    :func:`depthwise_separable_cost`'s depthwise half, a 1×1 layer its pointwise half.

    >>> sum(layer.cost.mult_adds for layer in mobilenet_v1_layers())  # Table 1/2: 569M
    568740352
    """
    validation.one_of(float(alpha), "α", WIDTHS)
    side = validation.integer(resolution, "resolution", 32, 1024)
    width = lambda c: int(c * alpha)  # noqa: E731 (every c · α of the paper is a whole number)
    side_out = -(-side // 2)
    layers = [
        Layer(
            "conv",
            2,
            3,
            3,
            width(32),
            side,
            side_out,
            standard_conv_cost(3, 3, width(32), side_out),
        )
    ]
    side, m = side_out, width(32)
    for kind, stride, n in _BODY:
        side_out, n = -(-side // stride), width(n)
        cost = depthwise_separable_cost(
            3 if kind == "dw" else 1, m, m if kind == "dw" else n, side_out
        )
        part = cost.depthwise if kind == "dw" else cost.pointwise
        layers.append(Layer(kind, stride, 3 if kind == "dw" else 1, m, n, side, side_out, part))
        side, m = side_out, n
    fc = ConvCost(m * CLASSES, m * CLASSES)  # a 1×1 "convolution" on the pooled 1×1 map
    layers.append(Layer("fc", 1, 1, m, CLASSES, 1, 1, fc))
    return tuple(layers)


def layer_shares(layers: tuple[Layer, ...]) -> dict[str, tuple[float, float]]:
    """The share of mult-adds and of weights each kind of layer takes (Table 2)."""
    total_ma = sum(layer.cost.mult_adds for layer in layers)
    total_p = sum(layer.cost.params for layer in layers)
    shares = {}
    for kind in ("conv", "dw", "pw", "fc"):
        part = [layer.cost for layer in layers if layer.kind == kind]
        shares[kind] = (
            sum(c.mult_adds for c in part) / total_ma,
            sum(c.params for c in part) / total_p,
        )
    return shares


# ---- the convolutions themselves (numpy, for the equalities the pages check) --------------


def _same_windows(x: Array, kernel: int) -> Array:
    """(M, H, W) zero-padded "same" → the D_K×D_K window at each position, (M, H, W, D_K, D_K)."""
    if kernel % 2 == 0:
        raise _odd_kernel(kernel)
    P = kernel // 2
    padded = np.pad(x, ((0, 0), (P, P), (P, P)))
    return sliding_window_view(padded, (kernel, kernel), axis=(1, 2))


def standard_conv(x: Array, w: Array) -> Array:
    """u[n, i, j] = Σ_{m, p, q} x[m, i+p−P, j+q−P] · w[n, m, p, q]; x (M, H, W), w (N, M, k, k)."""
    x, w = validation.finite_array(x, "x", ndim=3), validation.finite_array(w, "w", ndim=4)
    _check_channels(w.shape[1], x.shape[0])
    return np.einsum("mhwpq,nmpq->nhw", _same_windows(x, w.shape[-1]), w)


def depthwise_conv(x: Array, w: Array) -> Array:
    """u[m, i, j] = Σ_{p, q} x[m, i+p−P, j+q−P] · w[m, p, q]: channel m sees only channel m."""
    x, w = validation.finite_array(x, "x", ndim=3), validation.finite_array(w, "w", ndim=3)
    _check_channels(w.shape[0], x.shape[0])
    return np.einsum("mhwpq,mpq->mhw", _same_windows(x, w.shape[-1]), w)


def pointwise_conv(x: Array, w: Array) -> Array:
    """u[n, i, j] = Σ_m x[m, i, j] · w[n, m]: a 1×1 convolution mixes channels at one position."""
    x, w = validation.finite_array(x, "x", ndim=3), validation.finite_array(w, "w", ndim=2)
    _check_channels(w.shape[1], x.shape[0])
    return np.einsum("mhw,nm->nhw", x, w)


def separable_as_standard(depthwise: Array, pointwise: Array) -> Array:
    """The standard kernel a depthwise + pointwise pair equals: K[n, m] = P[n, m] · D[m].

    A standard kernel (N, M, D_K, D_K) has N·M·D_K² free numbers; this one is built from
    M·D_K² + N·M, so a separable convolution is a standard one with a constrained kernel.
    """
    D = validation.finite_array(depthwise, "depthwise", ndim=3)  # (M, D_K, D_K)
    P = validation.finite_array(pointwise, "pointwise", ndim=2)  # (N, M)
    _check_channels(P.shape[1], D.shape[0])
    return np.einsum("nm,mpq->nmpq", P, D)  # (N, M, D_K, D_K)


def _odd_kernel(k: int) -> CoreError:
    return CoreError(
        "convolution_odd_kernel", "the kernel side must be odd for 'same' padding, not {k}", k=k
    )


def _shuffle_channels(channels: int, r: int) -> CoreError:
    return CoreError(
        "convolution_shuffle_channels",
        "{channels} channels cannot be shuffled by r = {r}: they must be a multiple of r² = {r2}",
        channels=channels,
        r=r,
        r2=r * r,
    )


def _check_channels(expected: int, got: int) -> None:
    if expected != got:
        raise CoreError(
            "convolution_channels",
            "the weights expect {expected} input channels, not {got}",
            expected=expected,
            got=got,
        )


def touched(kind: str, kernel: int, m: int, side: int, row: int, col: int) -> Array:
    """Which input cells (M, D_F, D_F) one filter reads for the output at (row, col).

    kind "standard": one filter of a standard convolution reads a D_K×D_K window in every
    channel (value 1); "depthwise": filter c reads the window in channel c only (value c + 1,
    all M filters drawn); "pointwise": one 1×1 filter reads the cell (row, col) of every
    channel (value 1). 0 = not read. Windows are clipped at the border (zero padding).
    """
    validation.one_of(kind, "kind", ("standard", "depthwise", "pointwise"))
    k, M, S = (
        validation.positive_int(v, name, 64)
        for v, name in ((kernel, "D_K"), (m, "M"), (side, "D_F"))
    )
    i, j = validation.integer(row, "row", 0, S - 1), validation.integer(col, "col", 0, S - 1)
    P = 0 if kind == "pointwise" else k // 2
    grid = np.zeros((M, S, S))
    rows, cols = slice(max(i - P, 0), i + P + 1), slice(max(j - P, 0), j + P + 1)
    if kind == "depthwise":
        grid[:, rows, cols] = (np.arange(M) + 1)[:, None, None]
    else:
        grid[:, rows, cols] = 1.0
    return grid


# ---- sub-pixel convolution (Shi et al. 2016) -----------------------------------------------


def pixel_shuffle(x: Array, r: int) -> Array:
    """The periodic shuffle PS: (C·r², H, W) → (C, H·r, W·r), in torch's ``PixelShuffle`` order.

    out[c, h·r + i, w·r + j] = x[c·r² + i·r + j, h, w]; einops: "(c i j) h w -> c (h i) (w j)".

    >>> pixel_shuffle(np.arange(4.0).reshape(4, 1, 1), 2)[0]
    array([[0., 1.],
           [2., 3.]])
    """
    x = validation.finite_array(x, "x", ndim=3)
    r = validation.positive_int(r, "r", 64)
    Cr2, H, W = x.shape
    if Cr2 % (r * r):
        raise _shuffle_channels(Cr2, r)
    C = Cr2 // (r * r)
    y = x.reshape(C, r, r, H, W)  # (C, i, j, H, W)
    return y.transpose(0, 3, 1, 4, 2).reshape(C, H * r, W * r)  # (C, H, i, W, j)


def pixel_unshuffle(y: Array, r: int) -> Array:
    """The inverse of :func:`pixel_shuffle`: (C, H·r, W·r) → (C·r², H, W)."""
    y = validation.finite_array(y, "y", ndim=3)
    r = validation.positive_int(r, "r", 64)
    C, Hr, Wr = y.shape
    if Hr % r or Wr % r:
        raise CoreError(
            "convolution_unshuffle_size",
            "a {height}×{width} image cannot be split into {r}×{r} blocks",
            height=Hr,
            width=Wr,
            r=r,
        )
    x = y.reshape(C, Hr // r, r, Wr // r, r)  # (C, H, i, W, j)
    return x.transpose(0, 2, 4, 1, 3).reshape(C * r * r, Hr // r, Wr // r)


def subpixel_to_transposed(w: Array, r: int) -> Array:
    """The ConvTranspose2d weight that equals "conv (D_K×D_K, same padding) then PS(r)".

    w: (C·r², M, k, k), k odd → T: (M, C, r·k, r·k) for a transposed convolution with stride
    r and padding r·(k − 1)/2. Output pixel (h·r + i, w·r + j) of channel c comes from filter
    c·r² + i·r + j; in the transposed kernel that filter's tap (p, q) sits at
    (r·(k − 1 − p) + i, r·(k − 1 − q) + j): the r² sub-kernels are interleaved.
    """
    w = validation.finite_array(w, "w", ndim=4)
    r = validation.positive_int(r, "r", 64)
    Cr2, M, k, k2 = w.shape
    if k != k2 or k % 2 == 0:
        raise _odd_kernel(k)
    if Cr2 % (r * r):
        raise _shuffle_channels(Cr2, r)
    C = Cr2 // (r * r)
    flipped = w[:, :, ::-1, ::-1].reshape(C, r, r, M, k, k)  # (C, i, j, M, k−1−p, k−1−q)
    T = flipped.transpose(3, 0, 4, 1, 5, 2)  # (M, C, k−1−p, i, k−1−q, j)
    return np.ascontiguousarray(T.reshape(M, C, k * r, k * r))


def overlap_counts(kernel: int, stride: int, side: int) -> Array:
    """How many input pixels a transposed convolution (no padding) adds into each output pixel,
    along one axis: (side − 1)·stride + kernel counts. Uneven when stride does not divide the
    kernel: the source of checkerboard artefacts (Odena et al. 2016)."""
    k, s, n = (
        validation.positive_int(v, name, 4096)
        for v, name in ((kernel, "kernel"), (stride, "stride"), (side, "side"))
    )
    counts = np.zeros((n - 1) * s + k)
    for h in range(n):
        counts[h * s : h * s + k] += 1
    return counts


def phase_spread(y: Array, r: int, border: int = 2) -> float:
    """Checkerboard strength: the spread (max − min) of the r² phase means of y (C, H·r, W·r),
    over the interior (``border`` low-resolution pixels dropped on each side), relative to
    the mean absolute value. 0 for an output with no r-periodic pattern."""
    y = validation.finite_array(y, "y", ndim=3)
    r = validation.positive_int(r, "r", 64)
    phases = pixel_unshuffle(y, r)  # (C·r², H, W): channel c·r² + i·r + j is phase (i, j)
    C = y.shape[0]
    inner = phases[:, border : -border or None, border : -border or None].reshape(C, r * r, -1)
    if inner.shape[-1] == 0:
        raise CoreError("convolution_phase_small", "the image is too small to leave an interior")
    means = inner.mean(-1)  # (C, r²)
    scale = float(np.abs(inner).mean()) or 1.0
    return float((means.max(1) - means.min(1)).max() / scale)


# Howard et al. 2017, Tables 6 and 7: (α, input side) → (million mult-adds, million parameters)
PUBLISHED: dict[tuple[float, int], tuple[int, float]] = {
    (1.0, 224): (569, 4.2),
    (0.75, 224): (325, 2.6),
    (0.5, 224): (149, 1.3),
    (0.25, 224): (41, 0.5),
    (1.0, 192): (418, 4.2),
    (1.0, 160): (290, 4.2),
    (1.0, 128): (186, 4.2),
}


def shuffle_sources(channels: int, r: int, height: int, width: int) -> np.ndarray:
    """Where each output pixel of :func:`pixel_shuffle` comes from, found by shuffling labels.

    Returns int (C, H·r, W·r, 3): for output (c, Y, X) the channel k (0 … r² − 1) among
    channel c's r² inputs (input channel c·r² + k), the row h and the column w it was read at.

    >>> shuffle_sources(1, 2, 1, 1)[0, :, :, 0]
    array([[0, 1],
           [2, 3]])
    """
    C, r = validation.positive_int(channels, "C", 16), validation.positive_int(r, "r", 8)
    H, W = validation.positive_int(height, "H", 64), validation.positive_int(width, "W", 64)
    k, h, w = np.meshgrid(np.arange(C * r * r), np.arange(H), np.arange(W), indexing="ij")
    labels = np.stack([k % (r * r), h, w])  # 3 labels per input value, (3, C·r², H, W)
    moved = [pixel_shuffle(label.astype(float), r) for label in labels]  # each (C, Hr, Wr)
    return np.stack(moved, axis=-1).astype(int)
