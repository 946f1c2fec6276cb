"""Cached work of the backpropagation page: one block's forward and backward passes with
their oracles, finite differences tensor by tensor, and the two training runs.

Every cache is bounded (``max_entries``). torch is imported inside the functions that need
it (the autograd twin and the torch training run), single-threaded (``ui.perf``). The
training runs never run in a control's step: :func:`cached_runs` looks them up, and the page
trains its default settings once per server and any others on a "Train" button
(``ui.train_button``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from core import backprop as bp
from core.arrays import Array
from ui.perf import single_threaded_torch

D_MODEL, HEADS, D_FF = 8, 2, 16  # the page's block: small enough to read every number
TASK_LENGTH, TASK_VOCAB = 5, 3  # 3⁵ = 243 sequences, all in one batch
TRAIN_STEPS = 200
SHOWN = (0, 1, 2, 0, 2)  # the sequence whose attention the training view draws
DEFAULT = ("reverse", 0.3, 0)  # task, η, seed: the page's defaults, trained once per server


@dataclass(frozen=True)
class BlockCase:
    """One example through the block (numpy only): inputs, every tensor, the gradients.

    Attributes:
        x, params, target: the example (``core.backprop.example``); loss = ½‖y − target‖².
        cache: every tensor of the forward pass.
        loss: L.
        hand: gradients by hand (every tensor and parameter).
        shuffled_gap: max |block(πx) − π block(x)| for the reversed token order π.
    """

    x: Array
    params: dict[str, Any]
    target: Array
    cache: bp.BlockCache
    loss: float
    hand: dict[str, Array]
    shuffled_gap: float


@dataclass(frozen=True)
class Oracles:
    """The same gradients by torch: ``autograd`` from the torch twin (every tensor),
    ``layer`` (parameters and x) and ``y_layer`` from ``nn.TransformerEncoderLayer``."""

    autograd: dict[str, Array]
    layer: dict[str, Array]
    y_layer: Array


@st.cache_data(max_entries=32, show_spinner=False)
def block_case(n_tokens: int, seed: int) -> BlockCase:
    """The page's block on ``n_tokens`` random tokens, forward and backward by hand."""
    x, params, target = bp.example(n_tokens, D_MODEL, HEADS, D_FF, seed)
    y, cache = bp.block_forward(x, params)
    loss, dy = bp.squared_error_loss(y, target)
    flipped, _ = bp.block_forward(x[::-1], params)
    gap = float(np.abs(flipped - y[::-1]).max())
    return BlockCase(x, params, target, cache, loss, bp.all_gradients(dy, cache), gap)


@st.cache_data(max_entries=32, show_spinner=False)
def oracles(n_tokens: int, seed: int) -> Oracles:
    """torch autograd of the same example (torch is imported here, on first use)."""
    from core import backprop_torch as bt

    single_threaded_torch()
    case = block_case(n_tokens, seed)
    dy = case.hand["y"]
    _, autograd = bt.autograd_gradients(case.x, case.params, dy)
    y_layer, layer = bt.layer_gradients(case.x, case.params, dy)
    return Oracles(autograd, layer, y_layer)


@st.cache_data(max_entries=256, show_spinner=False)
def finite_differences(n_tokens: int, seed: int, name: str) -> Array:
    """Central finite differences of tensor ``name`` (a few ms: 2 forward passes an entry)."""
    case = block_case(n_tokens, seed)
    return bp.finite_difference_gradient(case.x, case.params, case.target, name)


Runs = tuple[bp.TrainRun, bp.TrainRun]
TRAIN_SECONDS = 1  # what the "Train" button promises: 0.45 s numpy + 0.5 s torch, measured


@st.cache_data(max_entries=8, show_spinner=False)
def _runs(task: str, lr: float, seed: int, _result: Runs | None = None) -> Runs | None:
    """The cache itself: returns what it was first given for the key (``None``: nothing).

    Training reports its progress, so it cannot run inside ``st.cache_data`` (a cache hit
    would replay every progress message); the same pattern as ``ui.cache_reverse``.
    """
    return _result


def cached_runs(task: str, lr: float, seed: int) -> Runs | None:
    """The two runs of these settings if they are cached, without training."""
    hit = _runs(task, lr, seed)
    if hit is None:
        _runs.clear(task, lr, seed)  # forget the empty look-up: the next training stores
    return hit


def training_runs(
    task: str, lr: float, seed: int, on_progress: Callable[[float], None] | None = None
) -> Runs:
    """The same training by hand (numpy) and by torch (``nn.TransformerEncoderLayer``,
    autograd, SGD), from the same initial numbers: ``(numpy run, torch run)``, cached.

    About a second on one core: the page calls it for its default settings (once per server)
    and when the student presses "Train", never in a control's step.
    ``on_progress(fraction done)`` is called every 10 steps while it trains.
    """
    hit = cached_runs(task, lr, seed)
    if hit is not None:
        return hit
    from core import backprop_torch as bt

    single_threaded_torch()
    data = bp.tiny_task(task, TASK_LENGTH, TASK_VOCAB)
    model = bp.init_model(data, D_MODEL, HEADS, D_FF, seed)
    shown = int(np.flatnonzero((data.tokens == SHOWN).all(1))[0])

    def report(half: int) -> Callable[[int], None]:
        def step(t: int) -> None:
            if on_progress is not None and t % 10 == 0:
                on_progress((half + t / TRAIN_STEPS) / 2)

        return step

    result = (
        bp.train(data, model, TRAIN_STEPS, lr, shown, report(0)),
        bt.train(data, model, TRAIN_STEPS, lr, shown, report(1)),
    )
    _runs.clear(task, lr, seed)
    return _runs(task, lr, seed, result) or result


@st.cache_data(max_entries=1, show_spinner=False)
def default_runs(task: str, lr: float, seed: int) -> Runs:
    """The runs of the page's default settings: trained once per server and never evicted by
    other settings' runs, so coming back to the defaults never trains in a control's step."""
    return training_runs(task, lr, seed)


def warm_default() -> None:
    """Train the default settings' runs (``ui/warmup.py``: once per server, in the background)."""
    default_runs(*DEFAULT)
