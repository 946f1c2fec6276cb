"""Spatial-reduction attention (SRA) of the Pyramid Vision Transformer.

Wang et al. 2021, "Pyramid Vision Transformer", Sec. 3.3, Eq. 2-4:

    SRA(Q, K, V) = Concat(head_0, …, head_{N_i}) W^O
    head_j = Attention(Q W_j^Q, SR(K) W_j^K, SR(V) W_j^V)
    SR(x) = Norm(Reshape(x, R) W^S)

Reshape turns (H·W, C) into (H·W/R², R²·C) by grouping each R×R patch of tokens;
W^S ∈ R^{R²C × C} maps it back to C channels; Norm is LayerNorm. So the keys and values
shrink from H·W to H·W/R² tokens, and the attention matrix from (HW)² to (HW)²/R² entries.
(The paper writes N_i for the number of heads of stage i, so tokens are always H·W here.)
In whai362/PVT (``classification/pvt.py``) SR is ``nn.Conv2d(C, C, kernel_size=R,
stride=R)`` followed by ``nn.LayerNorm(C)``; :func:`conv_spatial_reduction` shows that the
two forms agree. Table 1 of the paper gives the hyper-parameters in :data:`PVT_STAGES`.

Shape legend: H, W token map (H·W tokens), C channels, R reduction ratio, N_i heads of
stage i, P patch size of a stage's embedding, E MLP expansion ratio, L blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import validation
from core.arrays import Array
from core.errors import CoreError
from core.softmax import masked_softmax


@dataclass(frozen=True)
class StageConfig:
    """The hyper-parameters of one PVT stage (Table 1 of Wang et al. 2021).

    Attributes:
        P: patch size of the stage's embedding; C: channels; heads: Nᵢ;
        R: reduction ratio of SRA; E: MLP expansion ratio.
    """

    P: int
    C: int
    heads: int
    R: int
    E: int


# Table 1 of the PVT paper: stages i = 1..4 (heads are the paper's N_i).
PVT_STAGES: tuple[StageConfig, ...] = (
    StageConfig(P=4, C=64, heads=1, R=8, E=8),
    StageConfig(P=2, C=128, heads=2, R=4, E=8),
    StageConfig(P=2, C=320, heads=5, R=2, E=4),
    StageConfig(P=2, C=512, heads=8, R=1, E=4),
)
# L_i, the number of encoder blocks of stage i, per variant.
PVT_DEPTHS: dict[str, tuple[int, int, int, int]] = {
    "Tiny": (2, 2, 2, 2),
    "Small": (3, 4, 6, 3),
    "Medium": (3, 4, 18, 3),
    "Large": (3, 8, 27, 3),
}


def check_ratio(height: int, width: int, ratio: int) -> int:
    """R as an int ≥ 1 that divides both sides of the H×W token map (else a CoreError)."""
    R = validation.positive_int(ratio, "R")
    if height % R or width % R:
        raise CoreError(
            "sra_ratio",
            "R = {R} does not divide the {H}×{W} token map: choose R dividing both {H} and {W}",
            R=R,
            H=height,
            W=width,
        )
    return R


def reshape_for_reduction(x: Array, height: int, width: int, ratio: int) -> Array:
    """Reshape(x, R): (H·W, C) row-major -> (H·W/R², R²·C), one row per R×R patch.

    The pattern is ``(h r1) (w r2) c -> (h w) (r1 r2 c)``.

    >>> reshape_for_reduction(np.arange(16.0)[:, None], 4, 4, 2)[0].tolist()
    [0.0, 1.0, 4.0, 5.0]
    """
    x = validation.finite_array(x, "x", ndim=2)
    HW, C = x.shape
    R = check_ratio(height, width, ratio)
    if height * width != HW:
        raise CoreError(
            "sra_tokens",
            "x has {n} tokens but H·W = {H}·{W} = {HW}",
            n=HW,
            H=height,
            W=width,
            HW=height * width,
        )
    x = x.reshape(height // R, R, width // R, R, C).transpose(0, 2, 1, 3, 4)  # (h, w, R, R, C)
    return x.reshape(-1, R * R * C)  # (HW/R², R²C)


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
    patches = reshape_for_reduction(x, height, width, ratio)  # (HW/R², R²C)
    C = patches.shape[1] // (ratio * ratio)
    w_s = validation.finite_array(w_s, "W^S", ndim=2)
    if w_s.shape != (ratio * ratio * C, C):
        raise CoreError(
            "sra_ws_shape",
            "W^S must be (R²C, C) = ({rows}, {C}), not {shape}",
            rows=ratio * ratio * C,
            C=C,
            shape=w_s.shape,
        )
    # SR(x) = Norm(Reshape(x, R) W^S)
    return layer_norm(patches @ w_s)  # (HW/R², C)


def mean_pool_projection(ratio: int, channels: int) -> Array:
    """A W^S that averages each R×R patch channel by channel: (R²C, C) of 1/R² blocks."""
    return np.tile(np.eye(channels), (ratio * ratio, 1)) / ratio**2


def attention_weights(q: Array, k: Array) -> Array:
    """softmax(q kᵀ / √C) row by row: (HW, C), (S, C) -> (HW, S)."""
    return masked_softmax(q @ k.T / np.sqrt(q.shape[-1]))  # (HW, S)


def sra_weights(
    x: Array, height: int, width: int, ratio: int, w_q: Array, w_k: Array, w_s: Array
) -> Array:
    """Attention weights of SRA: softmax(x W^Q (SR(x) W^K)ᵀ / √C), (HW, HW/R²).

    With R = 1 and W^S = I this is ordinary attention on LayerNorm-ed keys.
    """
    return attention_weights(x @ w_q, spatial_reduction(x, height, width, ratio, w_s) @ w_k)


@dataclass(frozen=True)
class SRACost:
    """One head's attention with and without spatial reduction, for H·W tokens.

    Attributes:
        entries: (HW)² weights of full attention; sra_entries: (HW)²/R² with SR.
        bytes, sra_bytes: the same in float32 memory; sr_params: the R²C×C of Wˢ.
    """

    entries: int
    sra_entries: int
    bytes: int
    sra_bytes: int
    sr_params: int


def attention_cost(n_tokens: int, ratio: int, channels: int = 64) -> SRACost:
    """Attention entries and memory (float32 bytes) with and without SR: (HW)², (HW)²/R².

    >>> attention_cost(3136, 8).entries // attention_cost(3136, 8).sra_entries
    64
    """
    HW = validation.positive_int(n_tokens, "H·W")
    R = validation.positive_int(ratio, "R")
    C = validation.positive_int(channels, "C")
    if HW % (R * R):
        raise CoreError(
            "sra_cost_tokens", "H·W = {HW} is not divisible by R² = {RR}", HW=HW, RR=R * R
        )
    full, reduced = HW * HW, HW * (HW // (R * R))
    return SRACost(full, reduced, 4 * full, 4 * reduced, R * R * C * C)


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
    validation.one_of(variant, "variant", tuple(PVT_DEPTHS))
    size = validation.positive_int(image_size, "image side")
    if size % 32:
        raise CoreError(
            "sra_image_side",
            "the image side must be a positive multiple of 32, not {side}",
            side=size,
        )
    rows, side = [], size
    for i, (cfg, L) in enumerate(zip(PVT_STAGES, PVT_DEPTHS[variant], strict=True)):
        out = side // cfg.P  # H_i = H_{i-1} / P_i
        HW, kv = out * out, (out // cfg.R) ** 2
        rows.append(
            PVTStage(
                stage=i + 1,
                P=cfg.P,
                C=cfg.C,
                heads=cfg.heads,
                R=cfg.R,
                E=cfg.E,
                L=L,
                in_side=side,
                side=out,
                tokens=HW,
                kv_tokens=kv,
                entries=HW * HW,
                sra_entries=HW * kv,
            )
        )
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

    x = validation.finite_array(x, "x", ndim=2)
    C = x.shape[1]
    R = check_ratio(height, width, ratio)
    conv = nn.Conv2d(C, C, kernel_size=R, stride=R, bias=False, dtype=torch.float64)
    weight = torch.from_numpy(np.ascontiguousarray(w_s)).reshape(R, R, C, C)  # (r1, r2, ci, co)
    with torch.no_grad():
        conv.weight.copy_(weight.permute(3, 2, 0, 1))  # (co, ci, r1, r2)
        img = torch.from_numpy(x).T.reshape(1, C, height, width)  # (1, C, H, W)
        y = conv(img).flatten(2).transpose(1, 2)[0]  # (HW/R², C)
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
    side = validation.positive_int(side, "side")
    if S % side:
        raise CoreError(
            "sra_block_side",
            "the token map side {side} must divide the image side {S}",
            side=side,
            S=S,
        )
    k = S // side
    return image.reshape(side, k, side, k, -1).mean(axis=(1, 3))
