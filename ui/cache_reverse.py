"""Cached work of the reverse-diffusion pages: sampler runs, quality curves, trained denoisers.

Every cache is bounded (``max_entries``). torch is imported only inside the functions that
train or run a learned denoiser, so the parameterisation page (exact formulas only) never
loads it.

Trained denoisers are cached by :class:`core.denoiser.TrainSpec` (data, schedule,
target, seed): a class with the same settings trains once. The page's default spec is read
from ``assets/models/reverse_default.npz`` (made by ``assets/models/make_reverse_weights.py``).
The exact quality curves of every mixture setting the page offers at the default seed are read
from ``assets/models/reverse_quality.npz`` (made by ``assets/models/make_quality_table.py``):
each takes about 0.3 s of one core (DDPM's 1000 steps among them), too long for a slider step.
Training shows its progress, so it cannot run inside ``st.cache_data`` (whose replay would
re-send every progress message on each hit); :func:`cached_denoiser` looks the cache up
without training, and :func:`train` trains and then stores the result with the public
``st.cache_data`` API. Training runs in a child process, one spec at a time
(``ui.training_worker``): it never holds the server's GIL, and a class pressing "train"
together queues up on one core, leaving the other to everyone's pages.
"""

from __future__ import annotations

import collections
import functools
import json
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st

from core import reverse as rv
from core.arrays import Array, IntArray
from figures import reverse as figs
from ui.i18n import LANGUAGES, tr_in
from ui.registry import ROOT
from ui.training_worker import TrainingWorker

if TYPE_CHECKING:  # annotations only: torch stays unimported until a denoiser is needed
    import plotly.graph_objects as go

    from core.denoiser import Trained, TrainSpec

DEFAULT_WEIGHTS = ROOT / "assets" / "models" / "reverse_default.npz"
N_PARTICLES = 2000  # particles per run: enough for the weight badge (SE ≈ 0.011)
# of them, drawn in the scrub figure: 200 made a new step count or sampler slow to draw
# (400 SVG markers moved and styled one by one; bench/controls_report.md, round 35)
N_SHOWN = 100
N_FRAMES = 25  # scrub frames
N_TRAJECTORIES = 6
TRAJECTORY_POINTS = 80
QUALITY_STEPS = (1, 2, 5, 10, 20, 50, 100)  # S for the quality curves (plus DDPM at T)
N_QUALITY = 1000  # samples per point of the quality curves
N_REFERENCE = 5000  # data points the samples are compared with
DEFAULT_STEPS = 100  # the sampling view's steps S (DDIM, Euler, Heun) on a first visit
STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)  # the sampling view's steps slider
ETAS = tuple(round(0.1 * k, 1) for k in range(11))  # its η slider (DDIM): 0, 0.1, …, 1
# the page's mixture controls: every setting of them at the default seed has its exact
# quality curves in QUALITY_TABLE (made by assets/models/make_quality_table.py)
COMPONENTS = tuple(range(1, 9))
SPREADS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
BALANCES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
QUALITY_TABLE = ROOT / "assets" / "models" / "reverse_quality.npz"


# ---- trained denoisers ----------------------------------------------------------------------
@st.cache_data(max_entries=1, show_spinner=False)
def default_denoiser() -> Trained:
    """The shipped weights of the default spec (``ValueError`` if the file is out of date)."""
    from core import denoiser as dn

    with np.load(DEFAULT_WEIGHTS) as arrays:
        return dn.read_weights(dict(arrays), dn.TrainSpec())


@st.cache_data(max_entries=16, show_spinner=False)
def _trained(spec: TrainSpec, _result: Trained | None = None) -> Trained | None:
    """The cache itself: returns what it was first given for ``spec`` (``None``: nothing)."""
    return _result


def cached_denoiser(spec: TrainSpec) -> Trained | None:
    """The trained denoiser of ``spec`` if one is cached (or shipped), without training."""
    from core import denoiser as dn

    if spec == dn.TrainSpec():
        return default_denoiser()
    hit = _trained(spec)
    if hit is None:
        _trained.clear(spec)  # forget the empty look-up: the next training stores its result
    return hit


@st.cache_resource(show_spinner=False)
def _worker() -> TrainingWorker:
    """The process that trains, one spec at a time (shared by every session)."""
    return TrainingWorker()


def train(
    spec: TrainSpec,
    on_progress: Callable[[int, Array], None] | None = None,
    on_wait: Callable[[], None] | None = None,
) -> Trained:
    """Train ``spec``'s denoiser now, in the training process, cache it and return it.

    Args:
        on_progress: ``(steps done, losses so far)`` every 100 steps.
        on_wait: called once if another session's training must finish first.
    """

    def keep(result: Trained) -> Trained:
        _trained.clear(spec)  # a look-up may have cached "nothing" meanwhile
        return _trained(spec, result) or result

    hit = cached_denoiser(spec)
    if hit is not None:
        return hit
    return _worker().train(spec, on_progress, on_wait, keep, lambda: cached_denoiser(spec))


def offer_training(
    spec: TrainSpec, notice: str, words: Callable[..., str], chart: Callable[[Array], Any]
) -> Trained | None:
    """A notice (what a press would train) and a "train" button; when pressed, train with a
    progress bar and the loss curve growing (``chart(losses)`` makes its figure), then rerun
    the page.

    ``words(name)`` gives the page's strings ``train``, ``training``, ``waiting`` and
    ``train_failed``. Returns ``None`` (nothing trained yet, or it failed).
    """
    from core import denoiser as dn

    st.info(notice, icon=":material/model_training:")
    if not st.button(words("train"), key="reverse_diffusion_train", icon=":material/play_arrow:"):
        return None
    bar, plot = st.progress(0.0, words("training")), st.empty()

    def progress(done: int, losses: Array) -> None:
        bar.progress(done / dn.TrainSettings().steps, words("training"))
        plot.plotly_chart(chart(losses), width="stretch", theme=None)

    try:
        train(spec, progress, lambda: st.toast(words("waiting")))
    except RuntimeError as err:  # the training process failed: say so, keep the page
        st.error(words("train_failed", message=str(err)), icon=":material/error:")
        return None
    st.rerun()


@st.cache_resource(max_entries=8, show_spinner=False)
def _learned_model(spec: TrainSpec, _trained: Trained) -> rv.EpsModel:
    """ε̂(x, t) of the trained denoiser (a torch module in eval mode: shared, never changed)."""
    from core import denoiser as dn
    from ui.perf import single_threaded_torch

    single_threaded_torch()
    return dn.eps_model(_trained, spec.schedule())


def eps_model(spec: TrainSpec, source: str, trained: Trained | None = None) -> rv.EpsModel:
    """The exact ε* of the spec's mixture (``source="exact"``) or its learned ε_θ."""
    if source == "exact":
        mix = spec.data.mixture()
        if mix is None:
            raise ValueError("only a Gaussian mixture has an exact ε*")
        return rv.gmm_eps_model(spec.schedule(), mix.means, mix.stds, mix.weights)
    if trained is None:
        raise ValueError("train the network first")
    return _learned_model(spec, trained)


def _exact_key(spec: TrainSpec) -> TrainSpec:
    """The exact denoiser does not depend on what a network would predict."""
    return replace(spec, prediction="eps")


# ---- sampler runs ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RunSummary:
    """What the page shows of one sampler run (small: the full path stays on the server).

    Attributes:
        steps: (S + 1,) the steps visited, T … 0.
        frame_steps: (F,) the steps of the scrub frames.
        clouds: (F, N_SHOWN, 2) the shown particles at each frame.
        trajectories: (m, ≤ TRAJECTORY_POINTS, 2) a few particles' paths.
        heads: (F, m, 2) those particles at each frame.
        samples: (n, 2) where every particle ended (n: N_PARTICLES, or N_SHOWN if learned).
        evaluations: network calls.
        first_step: (m, 2) the trajectories' particles after the first step (T → steps[1]).
    """

    steps: IntArray
    frame_steps: IntArray
    clouds: Array
    trajectories: Array
    heads: Array
    samples: Array
    evaluations: int
    first_step: Array


def scrub_frames(steps: IntArray) -> IntArray:
    """The scrub's frames: indices into a run's visited steps (T … 0). A run that visits
    every t (DDPM; any sampler at S = T) takes the t's of the default S-step samplers'
    frames, so DDPM and DDIM, Euler or Heun at the default steps scrub the same t's: a
    student comparing samplers sees them at the same t, and a frame they scrubbed to stays
    when they switch (a new figure keeps the frame of the same name, ``live.js``)."""
    T = int(steps[0])
    if len(steps) == T + 1 and DEFAULT_STEPS <= T:  # every t, steps[i] = T − i
        shared = rv.sampling_steps(T, DEFAULT_STEPS)
        return T - shared[rv.frame_indices(len(shared), N_FRAMES)]
    return rv.frame_indices(len(steps), N_FRAMES)


def _summary(run: rv.SampleRun) -> RunSummary:
    frames = scrub_frames(run.steps)
    along = np.unique(np.round(np.linspace(0, len(run.steps) - 1, TRAJECTORY_POINTS)).astype(int))
    m = N_TRAJECTORIES
    return RunSummary(
        run.steps,
        run.steps[frames],
        run.path[frames, :N_SHOWN],
        run.path[along, :m].transpose(1, 0, 2),
        run.path[frames, :m],
        run.path[-1],
        run.evaluations,
        run.path[1, :m],
    )


def _start_noise(seed: int, n: int) -> Array:
    return np.random.default_rng([seed, 2]).standard_normal((n, 2))


class _FirstRows:
    """A noise source for a run of the first n of the N_PARTICLES particles: each step draws
    the noise of all of them and keeps n rows, so particle i meets the same noise as in the
    full run (the exact and the learned panels stay comparable particle by particle)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def standard_normal(self, shape: tuple[int, int]) -> Array:
        return self._rng.standard_normal((N_PARTICLES, shape[1]))[: shape[0]]


def _run(
    spec: TrainSpec,
    source: str,
    sampler: str,
    n_steps: int,
    eta: float,
    variance: str,
    trained: Trained | None,
    n: int = N_PARTICLES,
) -> RunSummary:
    """A run of the first ``n`` particles (their start and noise are those of the full run)."""
    model = eps_model(spec, source, trained)
    run = rv.sample(
        _start_noise(spec.seed, N_PARTICLES)[:n],
        model,
        spec.schedule(),
        sampler,  # type: ignore[arg-type]
        n_steps,
        _FirstRows(np.random.default_rng([spec.seed, 3])),  # type: ignore[arg-type]
        eta=eta,
        variance=variance,
    )  # type: ignore[arg-type]
    return _summary(run)


@st.cache_data(max_entries=48, show_spinner=False)  # the warm-up's 24, and a class's
def exact_run(spec: TrainSpec, sampler: str, n_steps: int, eta: float, variance: str) -> RunSummary:
    """A run of ``sampler`` with the exact ε* of the spec's mixture."""
    return _run(_exact_key(spec), "exact", sampler, n_steps, eta, variance, None)


@st.cache_data(max_entries=48, show_spinner=False)
def learned_run(
    spec: TrainSpec, sampler: str, n_steps: int, eta: float, variance: str, _trained: Trained
) -> RunSummary:
    """A run of ``sampler`` with the spec's trained denoiser, of the N_SHOWN particles the
    figure draws (the badges test the exact run's N_PARTICLES): the network is the costly
    part of a step, so this is 10× less work. Same start and noise as the exact run."""
    return _run(spec, "learned", sampler, n_steps, eta, variance, _trained, N_SHOWN)


# ---- the sampler's step formulas, kept for every session --------------------------------------
# The sampling view draws every sampler's formula and shows one (``kit.show_only``); a sampler
# whose formula at the current settings has not been worked out yet (on this server, by any
# session) has an empty place until it is chosen. A formula is a few KB of text.
FORMULAS_KEPT = 256
_formulas: collections.OrderedDict[Hashable, Any] = collections.OrderedDict()
_formulas_lock = threading.Lock()


def keep_formula(memo: Hashable, formula: Any) -> None:
    """Keep a sampler's formula (what the page drew) under its ``memo`` (:func:`scrub_memo`
    and the language): the formula follows from the same runs as the scrub."""
    with _formulas_lock:
        _formulas[memo] = formula
        _formulas.move_to_end(memo)
        while len(_formulas) > FORMULAS_KEPT:
            _formulas.popitem(last=False)


def kept_formula(memo: Hashable) -> Any | None:
    """The formula kept under ``memo``, or ``None``."""
    with _formulas_lock:
        formula = _formulas.get(memo)
        if formula is not None:
            _formulas.move_to_end(memo)
        return formula


# ---- the scrub: its figure, and its payload cached for every session ------------------------
SCRUB_CHART = "reverse_diffusion_scrub_chart"  # the page's kept chart (kit.chart's key)


def scrub_memo(
    spec: TrainSpec, sampler: str, n_steps: int, eta: float, variance: str, sources: tuple[str, ...]
) -> tuple[Any, ...]:
    """What the scrub's figure depends on besides the language (``kit.chart``'s ``memo``):
    the runs follow from these, the learned one from the spec's trained denoiser (by which
    :func:`learned_run` is cached too); ``sources``: the panels run (``exact``, ``learned``)."""
    return (spec, sampler, int(n_steps), float(eta), variance, tuple(sources))


def scrub_figure(spec: TrainSpec, runs: dict[str, RunSummary], lang: str) -> go.Figure:
    """Both denoisers' particle clouds over t, labelled in ``lang``; where the spec has an
    exact denoiser and no trained one, the learned panel waits in its place."""
    first = next(iter(runs.values()))
    panels = [
        figs.ScrubPanel(
            tr_in(lang, f"reverse_diffusion.panel_{k}"), k, r.clouds, r.trajectories, r.heads
        )
        for k, r in runs.items()
    ]
    mix = spec.data.mixture()
    if mix is not None and "learned" not in runs:
        title = tr_in(lang, "reverse_diffusion.panel_learned")
        panels.append(figs.ScrubPanel.waiting(title, "learned", len(first.frame_steps)))
    names = (
        tr_in(lang, "reverse_diffusion.data_points"),
        tr_in(lang, "reverse_diffusion.particles"),
        tr_in(lang, "reverse_diffusion.paths"),
    )
    return figs.scrub_figure(
        panels,
        reference_data(spec)[:N_SHOWN],
        first.frame_steps.tolist(),
        len(first.frame_steps) - 1,
        names=names,
        prefix="t = ",
        note=tr_in(lang, "reverse_diffusion.learned_waiting") if mix is not None else "",
    )


def scrub_payload(
    spec: TrainSpec,
    sampler: str,
    n_steps: int,
    eta: float,
    variance: str,
    runs: dict[str, RunSummary],
    lang: str,
) -> bytes:
    """The scrub's payload as the page sends it (``ui.live.memo_payload``): from the cache, or
    built now and cached."""
    from ui import live  # ui.live builds on ui.kit, which a data module does not need

    memo = scrub_memo(spec, sampler, n_steps, eta, variance, tuple(runs))
    return live.memo_payload(SCRUB_CHART, True, memo, lang, lambda: scrub_figure(spec, runs, lang))


# ---- quality against the number of steps ----------------------------------------------------
@dataclass(frozen=True)
class Quality:
    """Sliced W₁ to the data per sampler: ``curves`` of (sampler, calls (k,), distance (k,)),
    and ``floor``, the distance between two draws of the data of the same size."""

    curves: tuple[tuple[str, IntArray, Array], ...]
    floor: float


def reference_data(spec: TrainSpec) -> Array:
    """N_REFERENCE fresh data points the samples are compared with."""
    return spec.data.sample(N_REFERENCE, np.random.default_rng([spec.seed, 4]))


def _quality(spec: TrainSpec, model: rv.EpsModel) -> Quality:
    s = spec.schedule()
    T = s.num_steps
    ref = reference_data(spec)
    x_T = np.random.default_rng([spec.seed, 5]).standard_normal((N_QUALITY, 2))
    counts = [S for S in QUALITY_STEPS if S <= T]
    names, calls, ends = [], [], []  # per curve: its name, and per point its calls and samples
    for sampler, eta in (("ddim", 0.0), ("ddim", 1.0), ("heun", 0.0)):
        runs = [
            rv.sample(
                x_T,
                model,
                s,
                sampler,  # type: ignore[arg-type]
                S,
                np.random.default_rng([spec.seed, 6, S]),
                eta=eta,
                keep_path=False,
            )
            for S in counts
        ]
        names.append(f"{sampler}_eta{eta:g}" if sampler == "ddim" else sampler)
        calls.append([r.evaluations for r in runs])
        ends.append([r.path[-1] for r in runs])
    ddpm = rv.sample(
        x_T, model, s, "ddpm", T, np.random.default_rng([spec.seed, 7]), keep_path=False
    )
    names.append("ddpm")
    calls.append([T])
    ends.append([ddpm.path[-1]])
    other = spec.data.sample(N_QUALITY, np.random.default_rng([spec.seed, 8]))
    # every distance at once: the data's projections are sorted once, not once per point
    dist = rv.sliced_wasserstein_each([x for e in ends for x in e] + [other], ref)
    curves, at = [], 0
    for name, c in zip(names, calls, strict=True):
        curves.append((name, np.array(c), dist[at : at + len(c)]))
        at += len(c)
    return Quality(tuple(curves), float(dist[-1]))


@st.cache_data(max_entries=16, show_spinner=False)
def exact_quality(spec: TrainSpec) -> Quality:
    """:class:`Quality` of the exact ε* (a Gaussian mixture only): from the shipped table
    when it holds ``spec`` (every mixture control at the default seed), else computed."""
    key = _exact_key(spec)
    stored = stored_quality(key)
    return stored if stored is not None else _quality(key, eps_model(key, "exact"))


def quality_stamp() -> str:
    """What the table's numbers depend on besides the code: a table made with other
    constants is not used (and tests/app/test_quality_table.py fails until it is remade)."""
    from core import denoiser as dn

    spec = dn.TrainSpec()
    return json.dumps(
        {
            "steps": QUALITY_STEPS,
            "n": N_QUALITY,
            "reference": N_REFERENCE,
            "seed": spec.seed,
            "schedule": [spec.kind, spec.num_steps],
        }
    )


def table_grid() -> list[TrainSpec]:
    """The specs the table holds, in its order: every layout, components, spread, balance."""
    from core import denoiser as dn
    from core import toydata

    return [
        dn.TrainSpec(rv.DataSpec("mixture", layout, k, spread, balance))
        for layout in toydata.MIXTURE_LAYOUTS
        for k in COMPONENTS
        for spread in SPREADS
        for balance in BALANCES
    ]


def quality_row(q: Quality) -> Array:
    """One spec's row of the table: every curve's distances, then the floor."""
    return np.array([*(d for _, _, dist in q.curves for d in dist), q.floor])


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[TrainSpec, int], Array, tuple[tuple[str, IntArray], ...]] | None:
    """The shipped table: row of each spec, the rows, and each curve's name and calls."""
    try:
        with np.load(QUALITY_TABLE) as f:
            if str(f["stamp"]) != quality_stamp():
                return None
            rows = np.array(f["rows"])
            names, lengths, calls = f["names"].tolist(), f["lengths"].tolist(), f["calls"]
    except (OSError, KeyError, ValueError):
        return None
    grid = table_grid()
    if rows.shape != (len(grid), sum(lengths) + 1):
        return None
    ends = np.cumsum([0, *lengths])
    curves = tuple(
        (name, np.array(calls[a:b])) for name, a, b in zip(names, ends[:-1], ends[1:], strict=True)
    )
    return {spec: i for i, spec in enumerate(grid)}, rows, curves


def stored_quality(spec: TrainSpec) -> Quality | None:
    """The exact quality of ``spec`` from the shipped table (``None`` if not there)."""
    table = _table()
    i = None if table is None else table[0].get(_exact_key(spec))
    if i is None:
        return None
    _, rows, curves = table
    row, out, at = rows[i], [], 0
    for name, calls in curves:
        out.append((name, calls.copy(), row[at : at + len(calls)].copy()))
        at += len(calls)
    return Quality(tuple(out), float(row[-1]))


@st.cache_data(max_entries=16, show_spinner=False)
def learned_quality(spec: TrainSpec, _trained: Trained) -> Quality:
    """:class:`Quality` of the trained denoiser."""
    return _quality(spec, eps_model(spec, "learned", _trained))


@st.cache_data(max_entries=16, show_spinner=False)
def minimum_loss(spec: TrainSpec) -> float | None:
    """The lowest simple loss any network can reach on the spec's mixture (``None``: a shape)."""
    mix = spec.data.mixture()
    if mix is None:
        return None
    return rv.minimum_loss(
        mix.means,
        mix.stds,
        mix.weights,
        spec.schedule(),
        spec.prediction,
        20_000,
        np.random.default_rng([spec.seed, 9]),
    )  # type: ignore[arg-type]


# ---- the server's warm-up (ui/warmup.py) ----------------------------------------------------
def warm_defaults() -> None:
    """Compute what the default settings show on a first visit to the sampling and quality
    views, after one click of the sampler or of DDPM's variance, and along DDIM's η and steps
    sliders from the default (each a 40–90 ms miss in a step): every sampler's exact and
    learned run (DDPM's 1000 steps twice), DDIM at every η and every steps option, the scrub's
    payload of each in both languages, and both quality curves (about 6 s of one core, once
    per server, in :mod:`ui.warmup`'s background thread)."""
    from core import denoiser as dn
    from core import reverse as rv

    spec, trained = dn.TrainSpec(), default_denoiser()
    T = spec.schedule().num_steps
    runs = [
        (sampler, DEFAULT_STEPS, 0.0, "posterior") for sampler in rv.SAMPLERS if sampler != "ddpm"
    ]
    runs += [("ddpm", T, 0.0, variance) for variance in ("posterior", "beta")]  # its T steps
    runs += [("ddim", DEFAULT_STEPS, eta, "posterior") for eta in ETAS if eta]
    runs += [("ddim", n_steps, 0.0, "posterior") for n_steps in STEPS if n_steps != DEFAULT_STEPS]
    for sampler, n_steps, eta, variance in runs:
        done = {
            "exact": exact_run(spec, sampler, n_steps, eta, variance),
            "learned": learned_run(spec, sampler, n_steps, eta, variance, trained),
        }
        for lang in LANGUAGES:  # the scrub's payload, as a first visit in either language
            scrub_payload(spec, sampler, n_steps, eta, variance, done, lang)
    exact_quality(spec)
    learned_quality(spec, trained)
