"""SimCLR's networks and a few training steps (torch, CPU): encoder f(·), projection head g(·).

Chen et al. 2020, Sec. 2.1: hᵢ = f(x̃ᵢ) is the representation (the paper: ResNet-50, the
output of its average pooling, d = 2048), zᵢ = g(hᵢ) = W⁽²⁾ σ(W⁽¹⁾ hᵢ) the projection on which
the contrastive loss is taken (σ = ReLU; the paper: 128 outputs). Here f is a small
three-layer CNN with global average pooling, so that a few steps run in a fraction of a
second on one core; the structure — f, then g, then NT-Xent on z — is the paper's.

Training backpropagates NT-Xent through both networks: the loss and its gradient ∂L/∂z come
from :func:`core.contrastive.nt_xent_gradient` (numpy, the project's one softmax), and
``z.backward(∂L/∂z)`` carries it into the weights (the chain rule autograd would apply;
tests compare it with autograd's own gradient). Every step draws fresh views of the batch.

Every random draw (weights from a ``torch.Generator``, augmentations from a numpy
generator) is seeded: with one torch thread the same seed gives the same run.

Shape legend: B views in a batch (2N), S image side, C channels, d = dim of h, p = dim of z.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from core import contrastive as ct
from core.arrays import Array
from core.validation import finite_array, integer, positive, positive_int

DTYPE = torch.float32  # the default; tests build float64 networks to compare gradients


def _fill(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """Torch's default range for conv and linear layers, U(±1/√fan_in), from ``generator``."""
    fan_in = module.weight.shape[1] * math.prod(module.weight.shape[2:])
    bound = 1.0 / math.sqrt(fan_in)
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-bound, bound, generator=generator)
    return module


def _layer(
    cls: type[nn.Module],
    generator: torch.Generator | None,
    *args: int,
    dtype: torch.dtype,
    **kw: object,
) -> nn.Module:
    """``cls(*args, **kw)`` drawn from ``generator`` (``None``: torch's global generator)."""
    if generator is None:
        return cls(*args, **kw, dtype=dtype)
    return _fill(nn.utils.skip_init(cls, *args, **kw, dtype=dtype), generator)


def _norm(cls: type[nn.Module], channels: int, dtype: torch.dtype) -> nn.Module:
    """Batch normalisation with the statistics of the batch at hand, in training and after
    (as SimCLR trains; no running averages), so a view's z depends on its batch."""
    return cls(channels, track_running_stats=False, dtype=dtype)


class Encoder(nn.Module):
    """f(·): three 3×3 convolutions (stride 2, 2, 1), each with batch norm and ReLU, then the
    average over the pixels (as ResNet ends).

    Args:
        width: C, channels of the first convolution (then 2C, 2C); d = 2C.
        generator: draws every initial weight; ``None``: torch's global generator.
        dtype: of the parameters and of the computation.
    """

    def __init__(
        self,
        width: int = 8,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = DTYPE,
    ) -> None:
        super().__init__()
        C = positive_int(width, "width", 256)
        self.dim = 2 * C
        sizes = ((3, C, 2), (C, 2 * C, 2), (2 * C, 2 * C, 1))  # (in, out, stride)
        self.convs = nn.ModuleList(
            _layer(nn.Conv2d, generator, a, b, 3, stride=s, padding=1, dtype=dtype)
            for a, b, s in sizes
        )
        self.norms = nn.ModuleList(_norm(nn.BatchNorm2d, b, dtype) for _, b, _ in sizes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (B, 3, S, S) → h (B, d)."""
        for conv, norm in zip(self.convs, self.norms, strict=True):
            x = torch.relu(norm(conv(x)))  # (B, C', S', S')
        return x.mean(dim=(2, 3))  # global average pooling, (B, d)


class ProjectionHead(nn.Module):
    """g(h) = W⁽²⁾ ReLU(BN(W⁽¹⁾ h)): the paper's two-layer MLP (no biases; batch norm on the
    hidden layer, as in the paper's code).

    Args:
        dim: d, the size of h (and of the hidden layer).
        out: p, the size of z.
        generator, dtype: as in :class:`Encoder`.
    """

    def __init__(
        self,
        dim: int,
        out: int = 16,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = DTYPE,
    ) -> None:
        super().__init__()
        d, p = positive_int(dim, "dim", 1024), positive_int(out, "out", 1024)
        self.w1 = _layer(nn.Linear, generator, d, d, bias=False, dtype=dtype)
        self.norm = _norm(nn.BatchNorm1d, d, dtype)
        self.w2 = _layer(nn.Linear, generator, d, p, bias=False, dtype=dtype)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """h (B, d) → z (B, p)."""
        return self.w2(torch.relu(self.norm(self.w1(h))))


@dataclass(frozen=True)
class Representations:
    """h = f(x) and z = g(h) of a batch of views: (B, d) and (B, p)."""

    h: torch.Tensor
    z: torch.Tensor


class SimCLRNet(nn.Module):
    """z = g(f(x)) on images (B, S, S, 3) in [0, 1] (numpy layout), centred as (x − ½)/¼.

    Args:
        width: the encoder's first width C (d = 2C).
        out: p, the size of z.
        generator: draws every initial weight; ``None``: torch's global generator.
        dtype: of the parameters and of the computation.
    """

    def __init__(
        self,
        width: int = 8,
        out: int = 16,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = DTYPE,
    ) -> None:
        super().__init__()
        self.dtype = dtype
        self.encoder = Encoder(width, generator=generator, dtype=dtype)
        self.head = ProjectionHead(self.encoder.dim, out, generator=generator, dtype=dtype)

    def to_tensor(self, images: Array) -> torch.Tensor:
        x = torch.as_tensor(finite_array(images, "images", ndim=4), dtype=self.dtype)
        return ((x - 0.5) / 0.25).permute(0, 3, 1, 2)  # (B, 3, S, S)

    def forward(self, images: Array) -> torch.Tensor:
        """images (B, S, S, 3) → z (B, p)."""
        return self.head(self.encoder(self.to_tensor(images)))

    def explain(self, images: Array) -> Representations:
        h = self.encoder(self.to_tensor(images))
        return Representations(h, self.head(h))


@dataclass(frozen=True)
class TrainingRun:
    """A few SimCLR steps and what they did to a fixed pair of views of the batch.

    Attributes:
        losses: (steps,) NT-Xent of each step's fresh views (before its update).
        fixed_losses: (steps + 1,) NT-Xent of the fixed views, before and after each step.
        similarities: (steps + 1, 2N, 2N) cosine similarities of the fixed views' z.
        z_before, z_after: (2N, p) the fixed views' z before and after training.
        seconds: wall-clock time of the run.
    """

    losses: Array
    fixed_losses: Array
    similarities: Array
    z_before: Array = field(repr=False)
    z_after: Array = field(repr=False)
    seconds: float = 0.0


def train_steps(
    images: Array,
    fixed_views: Array,
    temperature: float,
    steps: int,
    seed: int,
    *,
    side: int = 32,
    strength: float = 0.5,
    min_area: float = 0.3,
    learning_rate: float = 0.003,
    on_progress: Callable[[int, Array], None] | None = None,
    progress_every: int = 5,
) -> TrainingRun:
    """Train a fresh :class:`SimCLRNet` for ``steps`` Adam steps on views of ``images``.

    Args:
        images: (N, H, W, 3) the batch in [0, 1].
        fixed_views: (2N, S, S, 3) views on which the progress is measured after each step.
        temperature: τ of NT-Xent.
        steps: optimiser steps (≥ 1).
        seed: seeds the initial weights and every augmentation.
        on_progress: ``on_progress(steps_done, fixed_losses_so_far)`` every
            ``progress_every`` steps and at the end.
    """
    steps = positive_int(steps, "steps", 1000)
    seed = integer(seed, "seed", 0, 2**31 - 1)
    lr = positive(learning_rate, "learning rate")
    every = positive_int(progress_every, "progress_every")
    fixed = finite_array(fixed_views, "fixed views", ndim=4)
    net = SimCLRNet(generator=torch.Generator().manual_seed(seed))
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    rng = np.random.default_rng([seed, 1])
    losses, fixed_losses, sims = np.zeros(steps), [], []

    def measure() -> Array:
        with torch.no_grad():
            z = net(fixed).double().numpy()
        result = ct.explain_nt_xent(z, temperature)
        fixed_losses.append(result.loss)
        sims.append(result.similarity)
        return z

    start = time.perf_counter()
    z_before = measure()
    for step in range(steps):
        views = ct.two_views(images, rng, side, strength, min_area).images
        z = net(views)  # (2N, p)
        loss, grad = ct.nt_xent_gradient(z.detach().double().numpy(), temperature)
        optimiser.zero_grad(set_to_none=True)
        z.backward(torch.from_numpy(grad).to(z.dtype))  # ∂L/∂z into every weight
        optimiser.step()
        losses[step] = loss
        z_after = measure()
        if on_progress is not None and ((step + 1) % every == 0 or step + 1 == steps):
            on_progress(step + 1, np.array(fixed_losses))
    seconds = time.perf_counter() - start
    return TrainingRun(losses, np.array(fixed_losses), np.stack(sims), z_before, z_after, seconds)


def embed(images: Array, seed: int) -> Array:
    """z of ``images`` (B, S, S, 3) by an untrained :class:`SimCLRNet` drawn from ``seed``."""
    net = SimCLRNet(generator=torch.Generator().manual_seed(integer(seed, "seed", 0, 2**31 - 1)))
    with torch.no_grad():
        return net(images).double().numpy()
