"""Spatial-reduction attention (SRA) of the Pyramid Vision Transformer.

Wang et al. 2021, "Pyramid Vision Transformer", Sec. 3.3, Eq. 2-4:

    SRA(Q, K, V) = Concat(head_0, …, head_N) W^O
    head_j = Attention(Q W_j^Q, SR(K) W_j^K, SR(V) W_j^V)
    SR(x) = Norm(Reshape(x, R) W^S)

Reshape turns (H·W, C) into (H·W/R², R²·C) by grouping each R×R patch of tokens;
W^S ∈ R^{R²C × C} maps it back to C channels; Norm is LayerNorm. So the keys and values
shrink from N = H·W to N/R² tokens, and the attention matrix from N² to N²/R² entries.
In whai362/PVT (``classification/pvt.py``) SR is ``nn.Conv2d(C, C, kernel_size=R,
stride=R)`` followed by ``nn.LayerNorm(C)``; :func:`conv_spatial_reduction` shows that the
two forms agree. Table 1 of the paper gives the hyper-parameters in :data:`PVT_STAGES`.

Shape legend: H, W token map, N = H·W tokens, C channels, R reduction ratio,
P patch size of a stage's embedding, E MLP expansion ratio.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

# Table 1 of the PVT paper: per stage i = 1..4 (heads are the paper's N_i).
PVT_STAGES: dict[str, tuple[int, ...]] = {
    "P": (4, 2, 2, 2),
    "C": (64, 128, 320, 512),
    "heads": (1, 2, 5, 8),
    "R": (8, 4, 2, 1),
    "E": (8, 8, 4, 4),
}
PVT_DEPTHS: dict[str, tuple[int, ...]] = {
    "Tiny": (2, 2, 2, 2),
    "Small": (3, 4, 6, 3),
    "Medium": (3, 4, 18, 3),
    "Large": (3, 8, 27, 3),
}


def _check(height: int, width: int, ratio: int) -> None:
    if ratio < 1:
        raise ValueError(f"the reduction ratio R must be at least 1, not {ratio}")
    if height % ratio or width % ratio:
        raise ValueError(
            f"R = {ratio} does not divide the {height}×{width} token map: "
            f"choose R dividing both {height} and {width}"
        )


def reshape_for_reduction(x: Array, height: int, width: int, ratio: int) -> Array:
    """Reshape(x, R): (H·W, C) row-major -> (H·W/R², R²·C), one row per R×R patch.

    The pattern is ``(h r1) (w r2) c -> (h w) (r1 r2 c)``.

    >>> reshape_for_reduction(np.arange(16.0)[:, None], 4, 4, 2)[0].tolist()
    [0.0, 1.0, 4.0, 5.0]
    """
    N, C = x.shape
    R = ratio
    _check(height, width, R)
    if height * width != N:
        raise ValueError(f"x has {N} tokens but H·W = {height}·{width} = {height * width}")
    x = x.reshape(height // R, R, width // R, R, C).transpose(0, 2, 1, 3, 4)  # (h, w, R, R, C)
    return x.reshape(-1, R * R * C)  # (N/R², R²C)


def layer_norm(x: Array, eps: float = 1e-5) -> Array:
    """LayerNorm over the last axis without affine parameters (γ = 1, β = 0)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)  # biased, as torch
    return (x - mean) / np.sqrt(var + eps)


def spatial_reduction(x: Array, height: int, width: int, ratio: int, w_s: Array) -> Array:
    """SR(x) = LayerNorm(Reshape(x, R) W^S): (H·W, C) -> (H·W/R², C).

    Args:
        x: (H·W, C) tokens in row-major order.
        height, width: H, W of the token map.
        ratio: R, dividing H and W.
        w_s: (R²C, C) the projection W^S, rows ordered (r1, r2, c).
    """
    C = x.shape[1]
    if w_s.shape != (ratio * ratio * C, C):
        raise ValueError(f"W^S must be (R²C, C) = ({ratio * ratio * C}, {C}), not {w_s.shape}")
    # SR(x) = Norm(Reshape(x, R) W^S)
    return layer_norm(reshape_for_reduction(x, height, width, ratio) @ w_s)  # (N/R², C)


def mean_pool_projection(ratio: int, channels: int) -> Array:
    """A W^S that averages each R×R patch channel by channel: (R²C, C) of 1/R² blocks."""
    return np.tile(np.eye(channels), (ratio * ratio, 1)) / ratio**2


def attention_weights(q: Array, k: Array) -> Array:
    """softmax(q kᵀ / √C) row by row: (N, C), (S, C) -> (N, S)."""
    scores = q @ k.T / np.sqrt(q.shape[-1])  # (N, S)
    scores -= scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def sra_weights(
    x: Array, height: int, width: int, ratio: int, w_q: Array, w_k: Array, w_s: Array
) -> Array:
    """Attention weights of SRA: softmax(x W^Q (SR(x) W^K)ᵀ / √C), (N, N/R²).

    With R = 1 and W^S = I this is ordinary attention on LayerNorm-ed keys.
    """
    return attention_weights(x @ w_q, spatial_reduction(x, height, width, ratio, w_s) @ w_k)


@dataclass(frozen=True)
class SRACost:
    """One head's attention with and without spatial reduction, for N = H·W tokens.

    Attributes:
        entries: N² weights of full attention; sra_entries: N·N/R² with SR.
        bytes, sra_bytes: the same in float32 memory; sr_params: the R²C×C of Wˢ.
    """

    entries: int
    sra_entries: int
    bytes: int
    sra_bytes: int
    sr_params: int


def attention_cost(n_tokens: int, ratio: int, channels: int = 64) -> SRACost:
    """Attention entries and memory (float32 bytes) with and without SR: N², N²/R²."""
    if n_tokens % (ratio * ratio):
        raise ValueError(f"N = {n_tokens} is not divisible by R² = {ratio * ratio}")
    full, reduced = n_tokens * n_tokens, n_tokens * (n_tokens // ratio**2)
    return SRACost(full, reduced, 4 * full, 4 * reduced, ratio * ratio * channels * channels)


@dataclass(frozen=True)
class PVTStage:
    """One row of PVT's Table 1 at a given input size (Wang et al. 2021).

    Attributes:
        stage: i = 1 … 4; P, C, heads (Nᵢ), R, E, L: the paper's hyper-parameters.
        in_side: H_{i−1}, the side entering the patch embedding; side: Hᵢ = H_{i−1}/Pᵢ.
        tokens: HᵢWᵢ query tokens; kv_tokens: HᵢWᵢ/Rᵢ²; entries, sra_entries: the maps.
    """

    stage: int
    P: int
    C: int
    heads: int
    R: int
    E: int
    L: int
    in_side: int
    side: int
    tokens: int
    kv_tokens: int
    entries: int
    sra_entries: int


def pvt_stages(image_size: int, variant: str = "Tiny") -> list[PVTStage]:
    """Table 1 of PVT for a square ``image_size`` input: one :class:`PVTStage` per stage.

    Side Hᵢ = H_{i−1}/Pᵢ, query tokens HᵢWᵢ = Hᵢ², K/V tokens HᵢWᵢ/Rᵢ² (Nᵢ is the number of
    heads, as in the paper).
    """
    if variant not in PVT_DEPTHS:
        raise ValueError(f"unknown PVT variant {variant!r}: choose one of {', '.join(PVT_DEPTHS)}")
    if image_size < 32 or image_size % 32:
        raise ValueError(f"the image side must be a positive multiple of 32, not {image_size}")
    rows, side = [], image_size
    for i in range(4):
        P, R = PVT_STAGES["P"][i], PVT_STAGES["R"][i]
        out = side // P
        N, kv = out * out, (out // R) ** 2
        rows.append(PVTStage(
            stage=i + 1, P=P, C=PVT_STAGES["C"][i], heads=PVT_STAGES["heads"][i], R=R,
            E=PVT_STAGES["E"][i], L=PVT_DEPTHS[variant][i], in_side=side, side=out, tokens=N,
            kv_tokens=kv, entries=N * N, sra_entries=N * kv,
        ))  # fmt: skip
        side = out
    return rows


def conv_spatial_reduction(x: Array, height: int, width: int, ratio: int, w_s: Array) -> Array:
    """The same SR as PVT's code computes it: ``Conv2d(C, C, kernel=stride=R)`` + LayerNorm.

    The conv weight is W^S rearranged ``(r1 r2 c_in) c_out -> c_out c_in r1 r2``. Imports
    torch here only, so pages that do not show this layer never load it.
    """
    import torch
    from torch import nn
    from torch.nn import functional as F

    N, C = x.shape
    R = ratio
    _check(height, width, R)
    conv = nn.Conv2d(C, C, kernel_size=R, stride=R, bias=False, dtype=torch.float64)
    weight = torch.from_numpy(np.ascontiguousarray(w_s)).reshape(R, R, C, C)  # (r1, r2, ci, co)
    with torch.no_grad():
        conv.weight.copy_(weight.permute(3, 2, 0, 1))  # (co, ci, r1, r2)
        img = torch.from_numpy(x).T.reshape(1, C, height, width)  # (1, C, H, W)
        y = conv(img).flatten(2).transpose(1, 2)[0]  # (N/R², C)
        return F.layer_norm(y, (C,)).numpy()


def image_features(rgb: Array) -> Array:
    """Tokens of a small (H, W, 3) image in [0, 1]: colour and position, LayerNorm-ed.

    Per token: r, g, b centred at 0.5 and four slow sines/cosines of its row and column, so
    attention prefers tokens of a similar colour nearby. Returns (H·W, 7), row-major.
    """
    H, W, _ = rgb.shape
    ys, xs = np.meshgrid(np.arange(H) / H, np.arange(W) / W, indexing="ij")
    pos = [np.cos(np.pi * ys), np.sin(np.pi * ys), np.cos(np.pi * xs), np.sin(np.pi * xs)]
    f = np.concatenate([rgb - 0.5, 0.4 * np.stack(pos, axis=-1)], axis=-1)  # (H, W, 7)
    return layer_norm(f.reshape(H * W, -1))


def block_mean(image: Array, side: int) -> Array:
    """Average an (S, S, 3) image down to (side, side, 3); ``side`` must divide S."""
    S = image.shape[0]
    if S % side:
        raise ValueError(f"the token map side {side} must divide the image side {S}")
    k = S // side
    return image.reshape(side, k, side, k, -1).mean(axis=(1, 3))
