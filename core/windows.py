"""Swin Transformer windows: partition, cyclic shift, region masks, relative position bias.

Liu et al. 2021, "Swin Transformer: Hierarchical Vision Transformer using Shifted Windows":
Sec. 3.2 (W-MSA and its cost, Eq. 1-2; shifted windows, Eq. 3; the cyclic shift and the
masked attention of Fig. 4; the relative position bias B ∈ R^{M²×M²} read from a table
B̂ ∈ R^{(2M-1)×(2M-1)}), Sec. 3.3 (patch partition 4×4×3 = 48, linear embedding to C,
patch merging 2×2 → 4C → 2C). The helpers follow microsoft/Swin-Transformer
``models/swin_transformer.py`` (``window_partition``, ``window_reverse``, the ``img_mask``
construction and ``relative_position_index``), written in numpy.

Shape legend: H, W feature map height/width (tokens), C channels, M window size,
nW = (H/M)·(W/M) windows, s shift (= M // 2 in Swin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from core import validation
from core.arrays import Array, BoolArray, IntArray
from core.errors import CoreError


def check_window(height: int, width: int, window: int) -> int:
    """M as an int ≥ 1 that tiles the H×W map (else a :class:`CoreError`)."""
    M = validation.positive_int(window, "M")
    if height % M or width % M:
        raise CoreError(
            "swin_window",
            "a {H}×{W} feature map does not split into {M}×{M} windows: "
            "choose M dividing both {H} and {W}",
            H=height,
            W=width,
            M=M,
        )
    return M


def window_partition(x: NDArray[Any], window: int) -> NDArray[Any]:
    """Cut a feature map into non-overlapping M×M windows, row-major window order.

    Args:
        x: (H, W, C) feature map; H and W divisible by ``window``.
        window: M.

    Returns:
        (nW, M, M, C), window k covering rows (k // (W/M))·M … and columns (k % (W/M))·M ….

    >>> window_partition(np.arange(16).reshape(4, 4, 1), 2)[1, :, :, 0].tolist()
    [[2, 3], [6, 7]]
    """
    H, W, C = x.shape
    M = check_window(H, W, window)
    # (h M) (w M) c -> (h w) M M c
    x = x.reshape(H // M, M, W // M, M, C).transpose(0, 2, 1, 3, 4)  # (h, w, M, M, C)
    return x.reshape(-1, M, M, C)


def window_reverse(windows: NDArray[Any], window: int, height: int, width: int) -> NDArray[Any]:
    """Undo :func:`window_partition`: (nW, M, M, C) -> (H, W, C)."""
    M = check_window(height, width, window)
    nW, C = windows.shape[0], windows.shape[-1]
    if nW != (height // M) * (width // M) or windows.shape[1:3] != (M, M):
        raise CoreError(
            "swin_reverse",
            "{shape} windows do not tile a {H}×{W} map with M = {M}",
            shape=windows.shape,
            H=height,
            W=width,
            M=M,
        )
    x = windows.reshape(height // M, width // M, M, M, C).transpose(0, 2, 1, 3, 4)
    return x.reshape(height, width, C)


def cyclic_shift(x: NDArray[Any], shift: int) -> NDArray[Any]:
    """Roll the map by -shift on both spatial axes (Swin, before attention).

    ``cyclic_shift(x, -s)`` is the reverse roll applied after attention.
    """
    return np.roll(x, shift=(-shift, -shift), axis=(0, 1))


def shifted_window_regions(height: int, width: int, window: int, shift: int) -> IntArray:
    """Region ids 0..8 of the rolled map, as in Swin's ``img_mask`` construction.

    The slices (0, -M), (-M, -s), (-s, None) of rows times those of columns give nine
    regions numbered row by row. Tokens of different regions were not neighbours before
    the roll, so they must not attend to each other. With shift 0 every id is 0.
    """
    M = check_window(height, width, window)
    s = validation.integer(shift, "shift s", 0, M - 1)
    regions = np.zeros((height, width), dtype=np.int64)
    if s == 0:
        return regions
    slices = (slice(0, -M), slice(-M, -s), slice(-s, None))
    count = 0
    for hs in slices:
        for ws in slices:
            regions[hs, ws] = count
            count += 1
    return regions


def shifted_window_mask(height: int, width: int, window: int, shift: int) -> BoolArray:
    """(nW, M², M²) bool mask of the shifted windows, True = same region (may attend).

    Swin stores the opposite as an additive mask of -100 where the region ids differ.
    """
    regions = shifted_window_regions(height, width, window, shift)
    ids = window_partition(regions[:, :, None], window).reshape(-1, window * window)  # (nW, M²)
    return ids[:, :, None] == ids[:, None, :]  # (nW, M², M²)


def relative_position_index(window: int) -> IntArray:
    """(M², M²) index into the (2M-1)² bias table, as Swin's ``relative_position_index``.

    For tokens i = (y_i, x_i), j = (y_j, x_j) in a window the index is
    (y_i - y_j + M - 1)·(2M - 1) + (x_i - x_j + M - 1).
    """
    M = validation.positive_int(window, "M")
    ys, xs = np.meshgrid(np.arange(M), np.arange(M), indexing="ij")
    coords = np.stack([ys.ravel(), xs.ravel()])  # (2, M²)
    rel = coords[:, :, None] - coords[:, None, :]  # (2, M², M²)
    return (rel[0] + M - 1) * (2 * M - 1) + (rel[1] + M - 1)


def relative_position_bias(table: Array, window: int) -> Array:
    """B = B̂[index]: the (M², M²) bias added to the attention logits of every window."""
    M = validation.positive_int(window, "M")
    table = validation.finite_array(table, "B̂").ravel()
    if table.size != (2 * M - 1) ** 2:
        raise CoreError(
            "swin_bias_table",
            "the bias table needs (2M-1)² = {size} entries, got {got}",
            size=(2 * M - 1) ** 2,
            got=table.size,
        )
    return table[relative_position_index(M)]


def illustrative_bias_table(window: int, dy_slope: float = 0.3, dx_slope: float = 0.2) -> Array:
    """A hand-made B̂ ∈ R^{(2M-1)×(2M-1)} where nearer keys score higher (Swin learns B̂).

    B̂[Δy + M - 1, Δx + M - 1] = -dy_slope·|Δy| - dx_slope·|Δx| for Δy, Δx ∈ -(M-1) … M-1:
    0 at the centre (a token and itself), the largest entry.
    """
    M = validation.positive_int(window, "M")
    offsets = np.arange(2 * M - 1) - (M - 1)  # Δ = -(M-1) … M-1
    dy, dx = np.meshgrid(offsets, offsets, indexing="ij")
    return -dy_slope * np.abs(dy) - dx_slope * np.abs(dx)


def patch_partition(image: NDArray[Any], patch: int = 4) -> NDArray[Any]:
    """(H, W, 3) image -> (H/P, W/P, P·P·3) patch vectors (4×4×3 = 48 values in Swin)."""
    H, W, C = image.shape
    patch = validation.positive_int(patch, "patch")
    if H % patch or W % patch:
        raise CoreError(
            "swin_patch",
            "the image {H}×{W} is not divisible into {P}×{P} patches",
            H=H,
            W=W,
            P=patch,
        )
    # (h p1) (w p2) c -> h w (p1 p2 c)
    x = image.reshape(H // patch, patch, W // patch, patch, C).transpose(0, 2, 1, 3, 4)
    return x.reshape(H // patch, W // patch, patch * patch * C)


def patch_merging(x: NDArray[Any]) -> NDArray[Any]:
    """(H, W, C) -> (H/2, W/2, 4C): Swin's concat of x[0::2,0::2], x[1::2,0::2], x[0::2,1::2],
    x[1::2,1::2] (the linear 4C -> 2C that follows is a plain matrix product)."""
    H, W, _ = x.shape
    if H % 2 or W % 2:
        raise CoreError("swin_merge_even", "patch merging needs an even map, not {H}×{W}", H=H, W=W)
    return np.concatenate([x[0::2, 0::2], x[1::2, 0::2], x[0::2, 1::2], x[1::2, 1::2]], axis=-1)


@dataclass(frozen=True)
class StageShape:
    """The token map of one Swin stage: H × W tokens of C channels (stage = 1 … 4)."""

    stage: int
    H: int
    W: int
    C: int
    tokens: int


def stage_shapes(image_size: int, patch: int = 4, embed_dim: int = 96) -> list[StageShape]:
    """Token map shape of the four Swin stages for a square image: H/4·2^-i, C·2^i."""
    size = validation.positive_int(image_size, "image side")
    if size % (patch * 8):
        raise CoreError(
            "swin_image_side",
            "the image side must be a multiple of {k}, not {side}",
            k=patch * 8,
            side=size,
        )
    rows = []
    for i in range(4):
        side = size // patch // 2**i
        rows.append(StageShape(i + 1, side, side, embed_dim * 2**i, side * side))
    return rows


def msa_flops(h: int, w: int, c: int) -> int:
    """Ω(MSA) = 4hwC² + 2(hw)²C (Swin Eq. 1, softmax ignored)."""
    return 4 * h * w * c * c + 2 * (h * w) ** 2 * c


def window_msa_flops(h: int, w: int, c: int, window: int) -> int:
    """Ω(W-MSA) = 4hwC² + 2M²hwC (Swin Eq. 2): linear in hw for a fixed M."""
    return 4 * h * w * c * c + 2 * window * window * h * w * c
