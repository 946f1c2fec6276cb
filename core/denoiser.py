"""A small MLP that learns to denoise 2-D toy data, and its training loop (torch, CPU).

The network f_θ(x_t, t) predicts ε, x_0 or v (``prediction``) from a noisy point and its
step; :func:`eps_model` turns any of the three into the ε̂ the samplers of ``core.reverse``
take. Training is DDPM's simple loss (Ho et al. 2020, Algorithm 1) for the chosen target:
draw x_0 from the data, t uniformly from 1..T and ε ~ N(0, I), form
x_t = √ᾱ_t x_0 + √(1−ᾱ_t) ε and minimise ‖target − f_θ(x_t, t)‖² with Adam.

The step enters as sinusoidal features of 1000·t/T (Vaswani et al. 2017's position code,
as in DDPM's U-Net), so one architecture serves every T.

Every random draw (initial weights, mini-batches, t, ε) comes from one ``torch.Generator``
seeded by ``seed``: with one torch thread the same seed gives the same weights, bit for bit,
on the same machine and torch build (``assets/models/make_reverse_weights.py`` relies on it).

Shape legend: B batch, d = 2 data dimensions, F frequencies, H hidden width, T steps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from core import reverse
from core.arrays import Array
from core.diffusion import Schedule, make_schedule
from core.validation import finite_array, integer, one_of, positive, positive_int

TRAINABLE: tuple[str, ...] = ("eps", "x0", "v")  # what the network may be trained to predict


def _generator(generator: torch.Generator | None) -> torch.Generator:
    """``generator``, or torch's global generator when none is given (as ``nn.Linear``)."""
    return torch.default_generator if generator is None else generator


class _SeededLinear(nn.Linear):
    """``nn.Linear`` drawn from a ``torch.Generator``, in torch's default range U(±1/√fan_in)
    (as ``core.set_transformer.SeededLinear``: its ``reset_parameters`` draws nothing)."""

    def __init__(self, d_in: int, d_out: int, generator: torch.Generator) -> None:
        super().__init__(d_in, d_out)
        bound = 1.0 / math.sqrt(d_in)
        with torch.no_grad():
            self.weight.uniform_(-bound, bound, generator=generator)
            self.bias.uniform_(-bound, bound, generator=generator)

    def reset_parameters(self) -> None:
        """No draw from torch's global generator: ``__init__`` fills the parameters."""


def time_features(t_frac: torch.Tensor, n_frequencies: int) -> torch.Tensor:
    """(B,) t/T in (0, 1] → (B, 2F) [sin(1000·t/T·ω_j), cos(…)], ω_j = 10000^(−j/F)."""
    j = torch.arange(n_frequencies, dtype=t_frac.dtype)
    omega = torch.exp(-math.log(10_000.0) * j / n_frequencies)  # (F,)
    angle = 1000.0 * t_frac[:, None] * omega[None, :]  # (B, F)
    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)


class Denoiser(nn.Module):
    """f_θ(x_t, t): an MLP on [x_t, time features], SiLU between layers.

    Args:
        dim: d, the data's dimension.
        hidden: H, the width of every hidden layer.
        depth: the number of hidden layers (≥ 1).
        n_frequencies: F, the time features are 2F numbers.
        generator: draws every initial weight; ``None``: torch's global generator.
    """

    def __init__(
        self,
        dim: int = 2,
        hidden: int = 128,
        depth: int = 3,
        n_frequencies: int = 16,
        *,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        self.dim = positive_int(dim, "dim")
        self.n_frequencies = positive_int(n_frequencies, "frequencies")
        hidden = positive_int(hidden, "hidden")
        depth = positive_int(depth, "depth", 8)
        g = _generator(generator)
        widths = [self.dim + 2 * self.n_frequencies] + [hidden] * depth
        self.hidden = nn.ModuleList(
            _SeededLinear(a, b, g) for a, b in zip(widths[:-1], widths[1:], strict=True)
        )
        self.out = _SeededLinear(hidden, self.dim, g)

    def forward(self, x: torch.Tensor, t_frac: torch.Tensor) -> torch.Tensor:
        """x (B, d) noisy points, t_frac (B,) their steps as t/T → (B, d) the prediction."""
        h = torch.cat([x, time_features(t_frac, self.n_frequencies)], dim=1)  # (B, d + 2F)
        for layer in self.hidden:
            h = nn.functional.silu(layer(h))
        return self.out(h)


@dataclass(frozen=True)
class TrainSettings:
    """How a denoiser is trained: network size and optimiser (defaults: ≤ 10 s on one core)."""

    steps: int = 2000
    batch: int = 512
    learning_rate: float = 3e-3
    hidden: int = 128
    depth: int = 3
    n_frequencies: int = 16


@dataclass(frozen=True)
class Trained:
    """A trained denoiser's weights and history.

    Attributes:
        prediction: what it predicts: ``"eps"``, ``"x0"`` or ``"v"``.
        num_steps: T of the schedule it was trained with.
        settings: the :class:`TrainSettings` used.
        weights: parameter name → float32 array (``state_dict`` order).
        losses: (steps,) the mini-batch loss at every optimiser step.
        seconds: wall-clock training time (0 for weights read from a file).
    """

    prediction: str
    num_steps: int
    settings: TrainSettings
    weights: dict[str, np.ndarray] = field(repr=False)
    losses: Array = field(repr=False)
    seconds: float = 0.0


def _targets(x0: torch.Tensor, eps: torch.Tensor, a: torch.Tensor, prediction: str) -> torch.Tensor:
    if prediction == "eps":
        return eps
    if prediction == "x0":
        return x0
    # v = √ᾱ ε − √(1−ᾱ) x_0
    return a.sqrt() * eps - (1 - a).sqrt() * x0


def train_denoiser(
    data: Array,
    schedule: Schedule,
    prediction: str = "eps",
    seed: int = 0,
    settings: TrainSettings = TrainSettings(),
    on_progress: Callable[[int, Array], None] | None = None,
    progress_every: int = 100,
) -> Trained:
    """Fit a :class:`Denoiser` to ``data`` with DDPM's simple loss on ``prediction``.

    Args:
        data: (N, d) the training points x_0 (mini-batches are drawn from them).
        schedule: the noise schedule (T steps).
        prediction: ``"eps"``, ``"x0"`` or ``"v"``.
        seed: seeds every draw (weights, batches, t, ε).
        settings: sizes and optimiser.
        on_progress: called as ``on_progress(steps_done, losses_so_far)`` every
            ``progress_every`` steps and at the end (a progress bar, a growing loss curve).

    Returns:
        :class:`Trained`, with float32 weights.
    """
    x_data = torch.as_tensor(finite_array(data, "data", ndim=2), dtype=torch.float32)
    one_of(prediction, "prediction", TRAINABLE)
    seed = integer(seed, "seed", 0, 2**63 - 1)
    every = positive_int(progress_every, "progress_every")
    steps = positive_int(settings.steps, "steps")
    lr = positive(settings.learning_rate, "learning rate")
    g = torch.Generator().manual_seed(seed)
    N, d = x_data.shape
    T = schedule.num_steps
    model = Denoiser(d, settings.hidden, settings.depth, settings.n_frequencies, generator=g)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    # the learning rate falls as a half cosine from lr to 0 over the run
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps)
    alpha_bars = torch.tensor(schedule.alpha_bars, dtype=torch.float32)
    losses = np.zeros(steps)
    start = time.perf_counter()
    for step in range(steps):
        x0 = x_data[torch.randint(0, N, (settings.batch,), generator=g)]  # (B, d)
        t = torch.randint(1, T + 1, (settings.batch,), generator=g)  # the paper's 1..T
        eps = torch.randn(settings.batch, d, generator=g)
        a = alpha_bars[t - 1][:, None]  # (B, 1)
        # x_t = √ᾱ_t x_0 + √(1−ᾱ_t) ε
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * eps
        loss = torch.mean((model(x_t, t / T) - _targets(x0, eps, a, prediction)) ** 2)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        decay.step()
        losses[step] = loss.item()
        if on_progress is not None and ((step + 1) % every == 0 or step + 1 == steps):
            on_progress(step + 1, losses[: step + 1])
    seconds = time.perf_counter() - start
    weights = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    return Trained(prediction, T, settings, weights, losses, seconds)


@dataclass(frozen=True)
class TrainSpec:
    """What a page trains: the data, the schedule, the target and the seed (the cache key).

    The training set is ``n_train`` points of ``data`` drawn with ``default_rng([seed, 1])``.
    """

    data: reverse.DataSpec = reverse.DataSpec()
    kind: str = "linear"
    num_steps: int = 1000
    prediction: str = "eps"
    seed: int = 0
    n_train: int = 4000

    def schedule(self) -> Schedule:
        return make_schedule(self.kind, self.num_steps)  # type: ignore[arg-type]

    def training_data(self) -> Array:
        return self.data.sample(self.n_train, np.random.default_rng([self.seed, 1]))


def train_spec(
    spec: TrainSpec,
    settings: TrainSettings = TrainSettings(),
    on_progress: Callable[[int, Array], None] | None = None,
    progress_every: int = 100,
) -> Trained:
    """:func:`train_denoiser` on the data, schedule, target and seed that ``spec`` names."""
    return train_denoiser(
        spec.training_data(),
        spec.schedule(),
        spec.prediction,
        spec.seed,
        settings,
        on_progress,
        progress_every,
    )


def load_denoiser(trained: Trained) -> Denoiser:
    """The :class:`Denoiser` with ``trained.weights`` (in eval mode)."""
    s = trained.settings
    d = trained.weights["out.bias"].shape[0]
    model = Denoiser(d, s.hidden, s.depth, s.n_frequencies, generator=torch.Generator())
    model.load_state_dict({k: torch.as_tensor(v) for k, v in trained.weights.items()})
    return model.train(False)  # evaluation mode, as nn.Module.eval() sets it


def eps_model(trained: Trained, schedule: Schedule) -> reverse.EpsModel:
    """ε̂(x, t) of a trained denoiser, for ``core.reverse.sample`` (float64 in and out).

    A network that predicts x_0 or v is converted with ``core.reverse.to_eps``.
    """
    if schedule.num_steps != trained.num_steps:
        raise ValueError("the schedule must have the T the denoiser was trained with")
    model = load_denoiser(trained)
    T = trained.num_steps

    def eps_hat(x: Array, t: int) -> Array:
        with torch.no_grad():
            xt = torch.as_tensor(x, dtype=torch.float32)
            t_frac = torch.full((xt.shape[0],), t / T, dtype=torch.float32)
            out = model(xt, t_frac).double().numpy()
        return reverse.to_eps(x, t, out, trained.prediction, schedule)  # type: ignore[arg-type]

    return eps_hat


def save_weights(trained: Trained, spec: TrainSpec | None = None) -> dict[str, np.ndarray]:
    """Everything needed to rebuild ``trained`` as arrays (for ``np.savez_compressed``), and
    the ``spec`` it was trained on, as text (so a reader can check it has the right file)."""
    s = trained.settings
    meta = {
        "meta.spec": np.array(repr(spec)),
        "meta.prediction": np.array(TRAINABLE.index(trained.prediction)),
        "meta.num_steps": np.array(trained.num_steps),
        "meta.settings": np.array([s.steps, s.batch, s.hidden, s.depth, s.n_frequencies]),
        "meta.learning_rate": np.array(s.learning_rate),
        "meta.losses": trained.losses.astype(np.float32),
    }
    return {**meta, **{f"weight.{k}": v for k, v in trained.weights.items()}}


def read_weights(arrays: dict[str, np.ndarray], spec: TrainSpec | None = None) -> Trained:
    """The :class:`Trained` that :func:`save_weights` wrote; with ``spec``, check that it was
    trained on that spec (``ValueError`` if not: the file is out of date)."""
    if spec is not None and str(arrays["meta.spec"]) != repr(spec):
        raise ValueError(f"these weights were trained on {arrays['meta.spec']}, not {spec!r}")
    steps, batch, hidden, depth, n_freq = (int(v) for v in arrays["meta.settings"])
    settings = TrainSettings(
        steps, batch, float(arrays["meta.learning_rate"]), hidden, depth, n_freq
    )
    weights = {
        k.removeprefix("weight."): np.asarray(v)
        for k, v in arrays.items()
        if k.startswith("weight.")
    }
    return Trained(
        TRAINABLE[int(arrays["meta.prediction"])],
        int(arrays["meta.num_steps"]),
        settings,
        weights,
        np.asarray(arrays["meta.losses"], dtype=np.float64),
    )
