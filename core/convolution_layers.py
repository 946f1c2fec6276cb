"""Torch layers of the convolution pages: depthwise separable convolution and sub-pixel upsampling.

Howard et al. 2017 (MobileNets), Sec. 3.1: a depthwise convolution (``Conv2d(M, M, D_K,
groups=M)``, one filter per channel) followed by a pointwise one (``Conv2d(M, N, 1)``).
Shi et al. 2016 (ESPCN), Sec. 2.2: ``Conv2d(M, C·r², k)`` then ``PixelShuffle(r)``; Aitken et
al. 2017, "Checkerboard artifact free sub-pixel convolution": ICNR initialisation (the r²
filters of each output channel start equal, so the layer starts as "convolve, then
nearest-neighbour upsample"); Odena et al. 2016, "Deconvolution and Checkerboard Artifacts":
a transposed convolution whose kernel the stride does not divide overlaps unevenly.

Shape legend: B batch, M input channels, N output channels, D_K kernel side, C channels after
the shuffle, r upscaling factor, H×W image. Layers take ``generator=`` (``None``: torch's
global RNG, as ``nn.Conv2d``) and ``dtype=``; no biases (the costs count weights only).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from core import convolution as cv
from core import validation
from core.errors import CoreError


def _init(weight: torch.Tensor, generator: torch.Generator | None) -> None:
    """nn.Conv2d's own default initialisation, drawn from ``generator``."""
    with torch.no_grad():
        nn.init.kaiming_uniform_(weight, a=math.sqrt(5), generator=generator)


def conv2d(
    m: int,
    n: int,
    kernel: int,
    *,
    groups: int = 1,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float32,
) -> nn.Conv2d:
    """A bias-free "same" ``nn.Conv2d`` (odd kernel) with weights drawn from ``generator``."""
    if kernel % 2 == 0:
        raise CoreError(
            "convolution_odd_kernel",
            "the kernel side must be odd for 'same' padding, not {k}",
            k=kernel,
        )
    layer = nn.Conv2d(m, n, kernel, padding=kernel // 2, groups=groups, bias=False, dtype=dtype)
    _init(layer.weight, generator)
    return layer


class DepthwiseSeparable(nn.Module):
    """Depthwise D_K×D_K convolution (groups = M) then pointwise 1×1, as in MobileNets' Fig. 2.

    >>> layer = DepthwiseSeparable(32, 64, 3)
    >>> sum(p.numel() for p in layer.parameters())   # 3·3·32 + 32·64
    2336
    """

    def __init__(
        self,
        m: int,
        n: int,
        kernel: int = 3,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        m, n = validation.positive_int(m, "M", 4096), validation.positive_int(n, "N", 4096)
        self.depthwise = conv2d(m, m, kernel, groups=m, generator=generator, dtype=dtype)
        self.pointwise = conv2d(m, n, 1, generator=generator, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, M, H, W) → (B, N, H, W)."""
        return self.pointwise(self.depthwise(x))

    def as_standard(self) -> nn.Conv2d:
        """The standard convolution with the same output: kernel K[n, m] = P[n, m] · D[m]."""
        D = self.depthwise.weight.detach()[:, 0]  # (M, D_K, D_K)
        P = self.pointwise.weight.detach()[:, :, 0, 0]  # (N, M)
        N, M = P.shape
        K = D.shape[-1]
        layer = nn.Conv2d(M, N, K, padding=K // 2, bias=False, dtype=D.dtype)
        with torch.no_grad():
            layer.weight.copy_(torch.einsum("nm,mpq->nmpq", P, D))  # (N, M, D_K, D_K)
        return layer


@dataclass(frozen=True)
class Timing:
    """Seconds of one forward pass (batch 1, float32, this process's torch threads)."""

    standard: float
    depthwise: float
    pointwise: float

    @property
    def separable(self) -> float:
        return self.depthwise + self.pointwise


def time_convolutions(
    m: int, n: int, kernel: int, side: int, repeats: int, generator: torch.Generator | None = None
) -> Timing:
    """Time a standard ``Conv2d(M, N, D_K)`` and the two halves of the separable one.

    The fastest of ``repeats`` runs (after a warm-up run): on a shared machine the minimum is
    the run least disturbed by others (as ``timeit`` advises). Under ``torch.inference_mode``.
    The three are timed in turn within each repeat, so a busy machine slows all of them alike.
    """
    repeats = validation.positive_int(repeats, "repeats", 1000)
    side = validation.positive_int(side, "D_F", 1024)
    standard = conv2d(m, n, kernel, generator=generator)
    separable = DepthwiseSeparable(m, n, kernel, generator=generator)
    x = torch.randn(1, m, side, side, generator=generator)
    with torch.inference_mode():
        y = separable.depthwise(x)
        runs = ((standard, x), (separable.depthwise, x), (separable.pointwise, y))
        times: list[list[float]] = [[], [], []]
        for repeat in range(repeats + 1):  # repeat 0 warms up (allocations, kernel choice)
            for (layer, arg), seconds in zip(runs, times, strict=True):
                start = time.perf_counter()
                layer(arg)
                if repeat:
                    seconds.append(time.perf_counter() - start)
        return Timing(*(min(seconds) for seconds in times))


# ---- sub-pixel convolution ------------------------------------------------------------------


def icnr_(weight: torch.Tensor, r: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """ICNR (Aitken et al. 2017) in place: weight (C·r², M, k, k) gets C filters drawn as
    nn.Conv2d draws them, each repeated for its r² sub-pixel positions."""
    Cr2, M, k, _ = weight.shape
    C = Cr2 // (r * r)
    base = torch.empty(C, M, k, k, dtype=weight.dtype)
    _init(base, generator)
    with torch.no_grad():
        weight.copy_(base.repeat_interleave(r * r, dim=0))  # filters c·r² … c·r² + r² − 1 equal
    return weight


class SubPixelUpsample(nn.Module):
    """ESPCN's last layer, ``Conv2d(M, C·r², k)`` then ``PixelShuffle(r)``: (B, M, H, W) →
    (B, C, H·r, W·r)."""

    def __init__(
        self,
        m: int,
        c: int,
        r: int,
        kernel: int = 3,
        *,
        icnr: bool = False,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        self.r = validation.positive_int(r, "r", 16)
        self.conv = conv2d(m, c * r * r, kernel, generator=generator, dtype=dtype)
        if icnr:
            icnr_(self.conv.weight, r, generator)
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.shuffle(self.conv(x))

    def as_transposed(self) -> nn.ConvTranspose2d:
        """The transposed convolution (stride r, kernel r·k) with exactly the same output."""
        w = self.conv.weight.detach()
        Cr2, M, k, _ = w.shape
        r = self.r
        T = cv.subpixel_to_transposed(w.double().numpy(), r)  # (M, C, r·k, r·k)
        layer = nn.ConvTranspose2d(
            M, Cr2 // (r * r), r * k, stride=r, padding=r * (k - 1) // 2, bias=False, dtype=w.dtype
        )
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(T))
        return layer


class ResizeConv(nn.Module):
    """Nearest-neighbour upsampling by r, then a "same" k×k convolution (Odena et al. 2016)."""

    def __init__(
        self,
        m: int,
        c: int,
        r: int,
        kernel: int = 3,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        self.resize = nn.Upsample(scale_factor=r, mode="nearest")
        self.conv = conv2d(m, c, kernel, generator=generator, dtype=dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(self.resize(x))


def transposed_upsampler(
    m: int,
    c: int,
    r: int,
    kernel: int,
    *,
    generator: torch.Generator | None = None,
    dtype: torch.dtype = torch.float32,
) -> nn.ConvTranspose2d:
    """``ConvTranspose2d(M, C, kernel, stride=r)`` cropped to exactly (H·r, W·r) by its padding."""
    extra = kernel - r  # (H − 1)·r − 2p + kernel + output_padding = H·r
    layer = nn.ConvTranspose2d(
        m,
        c,
        kernel,
        stride=r,
        padding=(extra + 1) // 2,
        output_padding=(extra + 1) // 2 * 2 - extra,
        bias=False,
        dtype=dtype,
    )
    _init(layer.weight, generator)
    return layer


UPSAMPLERS = ("transposed", "resize", "subpixel", "icnr")


def upsample_all(image: np.ndarray, r: int, seed: int, kernel: int = 3) -> dict[str, np.ndarray]:
    """The (H, W, 3) image in [−1, 1] upsampled by r with each freshly initialised upsampler.

    Returns (H·r, W·r, 3) float64 arrays by name: "transposed" (a transposed convolution with
    kernel ``kernel``, stride r), "resize" (nearest resize then convolution), "subpixel" (sub-
    pixel convolution, default initialisation) and "icnr" (sub-pixel with ICNR). Each layer
    draws its weights from its own generator seeded with ``seed``.
    """
    x = torch.from_numpy(np.ascontiguousarray(np.asarray(image, np.float64).transpose(2, 0, 1)))[
        None
    ]
    gen = lambda: torch.Generator().manual_seed(seed)  # noqa: E731
    layers = {
        "transposed": transposed_upsampler(3, 3, r, kernel, generator=gen(), dtype=torch.float64),
        "resize": ResizeConv(3, 3, r, generator=gen(), dtype=torch.float64),
        "subpixel": SubPixelUpsample(3, 3, r, generator=gen(), dtype=torch.float64),
        "icnr": SubPixelUpsample(3, 3, r, icnr=True, generator=gen(), dtype=torch.float64),
    }
    with torch.inference_mode():
        return {name: layer(x)[0].numpy().transpose(1, 2, 0) for name, layer in layers.items()}
