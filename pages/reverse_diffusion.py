"""Reverse diffusion: 2-D data generated from noise by the exact ε* of a Gaussian mixture and by
a small MLP trained live; DDPM, DDIM and the probability-flow ODE; quality against steps."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

import numpy as np
import streamlit as st

from core import denoiser as dn  # this page shows a torch network (the learned ε_θ)
from core import diffusion as dif
from core import reverse as rv
from core import toydata
from figures import reverse as figs
from ui import cache_reverse as cr
from ui import exercises, kit, perf, prefetch, tex
from ui.i18n import current_lang, t_tex

DATA = ("mixture", "moons", "swiss_roll", "circle")
GRID = np.linspace(-2.4, 2.4, 17)  # where the field's arrows start
ARROW = 0.9 * (GRID[1] - GRID[0])  # the longest arrow at each t (lengths are relative)
# q(x_t)'s contours: a 61² grid (spacing 0.1, under the narrowest σ 0.05 only near t = 0)
# is drawn in both panels; 81² cost 40 KB more a step for lines that look the same
DENSITY_POINTS = 61
TOL_W, TOL_MU, TOL_SD = 0.05, 0.05, 0.10  # the mixture badges (σ: relative)

page = kit.Page(
    "reverse_diffusion",
    views=("sampling", "field", "quality", "training"),
    exercise=exercises.reverse_diffusion,
    code=(
        rv.gmm_posterior,
        rv.ddpm_step,
        rv.ddim_step,
        rv.ode_numbers,
        rv.sample,
        rv.step_numbers,
        rv.sliced_wasserstein,
        rv.mixture_fit,
        dn.Denoiser.forward,
        dn.train_denoiser,
    ),
)


def settings(widgets: bool = True) -> dn.TrainSpec:
    """The data, seed and target (outside the live parts: a change reruns the page): drawn
    (``widgets``) or only read (``kit.controls_after_the_chart``)."""
    perf.single_threaded_torch()
    columns = kit.columns([3, 2, 2, 2, 2, 2, 2], widgets)
    a, b, c, d, e, f, g = columns
    with a:
        kind = page.selectbox("dataset", DATA, "mixture", widget=widgets)
    spec = rv.DataSpec(kind=kind)
    if kind == "mixture":
        with b:
            layout = page.selectbox("layout", toydata.MIXTURE_LAYOUTS, "ring", widget=widgets)
        with c:
            k = page.slider("components", cr.COMPONENTS[0], cr.COMPONENTS[-1], 4, widget=widgets)
        with d:
            spread = page.select_slider("spread", cr.SPREADS, 0.15, widget=widgets)
        with e:
            balance = page.select_slider(
                "balance", cr.BALANCES, 0.6, help=page.tr("balance_help"), widget=widgets
            )
        spec = rv.DataSpec("mixture", layout, k, spread, balance)
    with f:
        prediction = page.selectbox(
            "prediction", dn.TRAINABLE, "eps", help=page.tr("prediction_help"), widget=widgets
        )
    with g:
        seed = page.seed(widget=widgets)
    return dn.TrainSpec(spec, prediction=prediction, seed=seed)


def learned(spec: dn.TrainSpec, offer: bool = True) -> dn.Trained | None:
    """The trained ε_θ of ``spec`` if cached or shipped; else (``offer``) a button to train it."""
    hit = cr.cached_denoiser(spec)
    if hit is not None or not offer:
        return hit
    return cr.offer_training(spec, not_trained(spec, here=True), page.tr, loss_chart)


def not_trained(spec: dn.TrainSpec, here: bool) -> str:
    """The notice of an untrained spec: what a press trains (so every setting a student moves
    shows on the page), and where the button is (``here``: just below)."""
    d, run = spec.data, dn.TrainSettings()
    if d.kind == "mixture":
        data = page.tr(
            "data_mixture",
            k=d.components,
            layout=page.tr(f"layout_{d.layout}"),
            spread=f"{d.spread:g}",
            balance=f"{d.balance:g}",
        )
    else:
        data = page.tr("data_shape", shape=page.tr(f"dataset_{d.kind}"), noise=f"{d.noise:g}")
    text = page.tr(
        "not_trained",
        steps=run.steps,
        batch=run.batch,
        target=page.tr(f"prediction_{spec.prediction}"),
        n=spec.n_train,
        data=data,
        seed=spec.seed,
    )
    where = (
        page.tr("train_here") if here else page.tr("train_elsewhere", view=page.tr("tab_sampling"))
    )
    return text + where


def who(source: str) -> str:
    """The denoiser a formula's numbers come from, in TeX: its words in ``\\text``, its
    symbol (ε*, ε_θ) in math (KaTeX has no ε in text mode)."""
    symbol = "\\varepsilon^*" if source == "exact" else "\\varepsilon_\\theta"
    return t_tex(f"reverse_diffusion.who_{source}", eps=symbol)


def loss_chart(losses: np.ndarray) -> figs.go.Figure:
    return figs.loss_figure(
        losses,
        dn.TrainSettings().steps,
        title=page.tr("loss_title"),
        x_title=page.tr("step_axis"),
        y_title=page.tr("loss_axis"),
        names=(page.tr("loss_raw"), page.tr("loss_smooth")),
    )


@page.view("sampling")
def sampling() -> None:
    # the data row is shown above and sent after the scrub: a data step's rerun sends the
    # scrub first (as the sampler's controls, sampling_view)
    with kit.controls_after_the_chart(settings) as spec:
        with st.container():  # the training offer's place: the kept chart keeps its element
            trained = learned(spec)
        sampling_view(spec, trained)


def sampler_controls(s: dif.Schedule, widgets: bool) -> tuple[str, int, float, str]:
    """The sampler, its steps, η and DDPM's variance: drawn (``widgets``) or only read."""
    a, b, c = kit.columns([3, 2, 2], widgets)
    with a:
        sampler = page.choice("sampler", rv.SAMPLERS, "ddim", widget=widgets)
    return (sampler, *sampler_settings(s, sampler, widgets, (b, c)))


def sampler_settings(
    s: dif.Schedule,
    sampler: str,
    widgets: bool = False,
    places: Sequence[AbstractContextManager] = (),
) -> tuple[int, float, str]:
    """``sampler``'s steps, η and variance, its widgets drawn in the two ``places`` (or only
    read: any sampler's, chosen or not, as its widgets would hold them)."""
    b, c = places or (contextlib.nullcontext(), contextlib.nullcontext())
    with b:
        n_steps = (
            s.num_steps
            if sampler == "ddpm"
            else page.select_slider("steps", cr.STEPS, cr.DEFAULT_STEPS, widget=widgets)
        )
        if sampler == "ddpm" and widgets:
            st.caption(page.tr("ddpm_all_steps", T=s.num_steps))
    with c:
        eta = (
            page.slider(
                "eta",
                cr.ETAS[0],
                cr.ETAS[-1],
                0.0,
                step=0.1,
                help=page.tr("eta_help"),
                widget=widgets,
            )
            if sampler == "ddim"
            else 0.0
        )
        eta = round(eta, 1)  # a slider's 0.30000000000000004 is the 0.3 the warm-up ran
        variance = (
            page.choice("variance", ("posterior", "beta"), "posterior", widget=widgets)
            if sampler == "ddpm"
            else "posterior"
        )
    return n_steps, eta, variance


@kit.fragment
def sampling_view(spec: dn.TrainSpec, trained: dn.Trained | None) -> None:
    """Sampler, steps, η: the particle clouds of both denoisers, scrubbed over t. The controls
    are shown above the scrub and sent after it (a step's rerun: the chart first)."""
    s, mix = spec.schedule(), spec.data.mixture()
    with kit.controls_after_the_chart(functools.partial(sampler_controls, s)) as chosen:
        sampler, n_steps, eta, variance = chosen
        runs = {}
        if mix is not None:
            runs["exact"] = cr.exact_run(spec, sampler, n_steps, eta, variance)
        if trained is not None:
            runs["learned"] = cr.learned_run(spec, sampler, n_steps, eta, variance, trained)
        if not runs:
            return
        lang = current_lang()
        page.chart(  # built on a miss only: the warm-up builds the default spec's in each language
            lambda: cr.scrub_figure(spec, runs, lang),
            "scrub_chart",
            kept=True,
            move=True,
            memo=cr.scrub_memo(spec, sampler, n_steps, eta, variance, tuple(runs)),
        )
        kit.show_only([formula_key(smp) for smp in rv.SAMPLERS], formula_key(sampler))
    step_formulas(spec, runs, trained, chosen)


def formula_key(sampler: str) -> str:
    """The key of the container of ``sampler``'s step formula."""
    return page.key(f"formula_{sampler}")


def step_formulas(
    spec: dn.TrainSpec,
    runs: dict[str, cr.RunSummary],
    trained: dn.Trained | None,
    chosen: tuple[str, int, float, str],
) -> None:
    """Every sampler's step formula in a place of its own, the chosen one's shown
    (``kit.show_only``). Each is kept for every session under what it follows from
    (``cr.kept_formula``): the chosen one is worked out on a miss only, and the others are
    drawn where they have been worked out at their settings, so a step to another sampler
    changes a style and the formulas it shows are left as they were. In the browser, the
    formula's render was the long task of a sampler step (20 of 124 steps over 50 ms, none
    with the formulas kept: bench/controls_report.md, round 46)."""
    s, lang = spec.schedule(), current_lang()
    places = {smp: st.container(key=formula_key(smp)) for smp in rv.SAMPLERS}

    def memo(smp: str, settings: Sequence[Any]) -> tuple[Any, ...]:
        return cr.scrub_memo(spec, smp, *settings, tuple(runs)) + (lang,)

    sampler, _, eta, variance = chosen
    formula = cr.kept_formula(memo(sampler, chosen[1:]))
    if formula is None:
        formula = step_formula(spec, runs, trained, sampler, eta, variance)
        cr.keep_formula(memo(sampler, chosen[1:]), formula)
    with places[sampler]:
        kit.formula(*formula)
    for other in rv.SAMPLERS:
        kept = other != sampler and cr.kept_formula(memo(other, sampler_settings(s, other)))
        if kept:
            with places[other]:
                kit.formula(*kept, printed=False)


def step_formula(
    spec: dn.TrainSpec,
    runs: dict[str, cr.RunSummary],
    trained: dn.Trained | None,
    sampler: str,
    eta: float,
    variance: str,
) -> tuple[str, tuple[kit.Check, ...], str | None]:
    """The sampler's first step for particle 1, with its numbers, and the badges: the step
    is the run's, x̂₀ recombines, and the exact sampler's samples match the mixture.
    Returns the formula's TeX, its checks and its caption."""
    s, mix = spec.schedule(), spec.data.mixture()
    source, first = next(iter(runs.items()))
    model = cr.eps_model(spec, source, trained)
    t, t_prev = (int(v) for v in first.steps[:2])
    x = first.trajectories[:1, 0]  # particle 0 at x_T, (1, 2)
    eps = model(x, t)
    n = rv.step_numbers(x, t, t_prev, eps, s, sampler, eta, variance)  # type: ignore[arg-type]
    taken = first.first_step[0]
    values = dict(t=t, x=tex.vec(x[0]), eps=tex.vec(eps[0]), x_prev=tex.vec(taken))
    checks, caption = [], None
    if sampler in ("ddpm", "ddim"):
        values |= dict(a=tex.sci(n.alpha_bar, 4), x0=tex.vec(n.x0[0], 2), sigma=f"{n.sigma:.4f}")
    if sampler == "ddpm":
        name = "ddpm"
        values |= dict(alpha=tex.sci(s.alphas[t - 1], 6), beta=tex.sci(s.betas[t - 1], 4))
    elif sampler == "ddim":
        name = "ddim"
        values |= dict(t_prev=t_prev, a_prev=tex.sci(n.alpha_bar_prev, 4), dir=f"{n.direction:.4f}")
        if n.sigma == 0:
            z = [rng.standard_normal((1, 2)) for rng in np.random.default_rng([9]).spawn(2)]
            twice = [rv.ddim_step(x, t, t_prev, eps, s, 0.0, zi) for zi in z]
            checks.append(kit.Check(page.tr("check_deterministic"), bool(np.array_equal(*twice))))
            checks.append(gap_check(page.tr("check_step"), twice[0], taken))
    else:  # the probability-flow ODE, in y = x/√ᾱ and σ = √((1 − ᾱ)/ᾱ)
        o = rv.ode_numbers(x, t, t_prev, model, s, sampler, eps)  # type: ignore[arg-type]
        name = "heun" if o.eps_prev is not None else "euler"
        values |= dict(
            t_prev=t_prev,
            sig=tex.sci(o.sigma, 4),
            sig_prev=tex.sci(o.sigma_prev, 4),
            y=tex.vec(o.y[0], 2),
            y_prev=tex.vec(o.y_prev[0], 2),
        )
        if o.eps_prev is not None:
            correction = o.y_prev[0] - o.y_euler[0]  # what the second slope changes
            values |= dict(
                y_euler=tex.vec(o.y_euler[0], 2),
                eps_prev=tex.vec(o.eps_prev[0]),
                correction="(" + ",\\ ".join(tex.sci(float(c), 3) for c in correction) + ")",
            )
        checks.append(gap_check(page.tr("check_step"), o.x_prev, taken))
        if sampler == "euler":  # Euler's step is DDIM's with η = 0 (DDIM Eq. 14)
            ddim = rv.ddim_step(x, t, t_prev, eps, s, 0.0)
            checks.append(gap_check(page.tr("check_euler_ddim"), ddim, o.x_prev))
        else:
            caption = page.tr("heun_caption" if name == "heun" else "heun_last_step")
    recombined = math.sqrt(n.alpha_bar) * n.x0 + math.sqrt(1 - n.alpha_bar) * eps
    checks.append(kit.Check(page.tr("check_recombine"), bool(np.allclose(recombined, x))))
    if "exact" in runs:
        checks += mixture_checks(runs["exact"].samples, mix)
    return page.latex(name, who=who(source), **values), tuple(checks), caption


def gap_check(label: str, a: np.ndarray, b: np.ndarray) -> kit.Check:
    """Two computations of the same step agree to rounding (the formula's x_{t′} and the
    run's first step; Euler's and DDIM's), with their largest gap."""
    gap = float(np.abs(a - b).max())
    return kit.Check(label, gap < 1e-9, f"|Δ| = {gap:.0e}")


def mixture_checks(samples: np.ndarray, mix: rv.Mixture) -> list[kit.Check]:
    """The exact sampler's samples against the mixture: shares, means and pooled spread."""
    fit = rv.mixture_fit(samples, mix.means, mix.stds, mix.weights)
    dw = float(np.abs(fit.weights - mix.weights).max())
    dmu = float(np.nanmax(np.linalg.norm(fit.means - mix.means, axis=1)))
    sd, sd0 = rv.pooled_std(fit.weights, fit.stds), rv.pooled_std(mix.weights, mix.stds)
    dsd = abs(sd / sd0 - 1)
    return [
        kit.Check(page.tr("check_weights", tol=TOL_W), dw <= TOL_W, f"max |Δw| = {dw:.3f}"),
        kit.Check(page.tr("check_means", tol=TOL_MU), dmu <= TOL_MU, f"max ‖Δμ‖ = {dmu:.3f}"),
        kit.Check(
            page.tr("check_spreads", tol=f"{TOL_SD:.0%}"),
            dsd <= TOL_SD,
            page.tr("spreads", got=f"{sd:.3f}", want=f"{sd0:.3f}"),
        ),
    ]


@page.view("field")
def field() -> None:
    with kit.controls_after_the_chart(settings) as spec:
        field_view(spec, learned(spec, offer=False))


@kit.fragment
def field_view(spec: dn.TrainSpec, trained: dn.Trained | None) -> None:
    """The t slider: −ε̂ on a grid over samples of q(x_t), and q(x_t)'s contours."""
    s, mix = spec.schedule(), spec.data.mixture()
    t = page.slider("t", 1, s.num_steps, 100)
    a_t = rv.alpha_bar_at(t, s)
    sources = [k for k, ok in (("exact", mix is not None), ("learned", trained)) if ok]
    if not sources:
        st.info(not_trained(spec, here=False), icon=":material/model_training:")
        return
    ref = cr.reference_data(spec)[: cr.N_SHOWN]
    noisy = dif.q_sample(
        ref, t, s, np.random.default_rng([spec.seed, 10]).standard_normal(ref.shape)
    )
    field = functools.partial(field_figure, spec, t, trained, tuple(sources), noisy)
    # drawn as pictures (a new t swaps them), exported as traces; the drawn one's payload is
    # kept for every session by what it depends on (a t seen before: no figure built, 15 ms)
    page.chart(
        lambda: field(pictures=True),
        "field_chart",
        kept=True,
        move=True,
        memo=(spec, t, tuple(sources)),
    )
    kit.keep_chart(field, page.key("field_chart"))
    x = noisy[:1]
    e = cr.eps_model(spec, sources[0], trained)(x, t)
    x0 = rv.to_x0(x, t, e, "eps", s)
    score = rv.convert(x, t, e, "eps", "score", s)
    checks = [
        kit.Check(
            page.tr("check_recombine"),
            bool(np.allclose(math.sqrt(a_t) * x0 + math.sqrt(1 - a_t) * e, x)),
        )
    ]
    if mix is not None:  # the score against central differences of log q_t
        fd = rv.gmm_score_by_differences(x, t, s, mix.means, mix.stds, mix.weights)
        gap = float(np.abs(fd - score).max() / max(1.0, np.abs(score).max()))
        checks.append(kit.Check(page.tr("check_score_fd"), gap < 1e-5, f"|Δ| = {gap:.0e}"))
    if len(sources) == 2:  # on samples of q(x_t), where the network was trained
        on = [cr.eps_model(spec, k, trained)(noisy, t) for k in sources]
        err = float(np.sqrt(np.mean(np.sum((on[0] - on[1]) ** 2, axis=1))))
        checks.append(kit.Check(page.tr("check_learned_close"), err < 0.5, f"RMS = {err:.3f}"))
    page.formula(
        "x0",
        checks=checks,
        t=t,
        a=tex.sci(a_t, 4),
        x=tex.vec(x[0]),
        eps=tex.vec(e[0]),
        x0=tex.vec(x0[0], 2),
        score=tex.vec(score[0], 2),
        who=who(sources[0]),
    )


def field_figure(
    spec: dn.TrainSpec,
    t: int,
    trained: dn.Trained | None,
    sources: tuple[str, ...],
    noisy: np.ndarray,
    pictures: bool = False,
) -> figs.go.Figure:
    """−ε̂ of each denoiser in ``sources`` on the grid at ``t`` over ``noisy`` (samples of
    q(x_t)) and, for a mixture, q(x_t)'s contours, labelled in the session's language: as
    pictures (drawn), or as traces (exported)."""
    s, mix = spec.schedule(), spec.data.mixture()
    starts = np.stack(np.meshgrid(GRID, GRID), axis=-1).reshape(-1, 2)
    eps = {k: cr.eps_model(spec, k, trained)(starts, t) for k in sources}
    density = None
    if mix is not None:
        gx, gy, pts = rv.grid(-3.0, 3.0, DENSITY_POINTS)
        log_q = rv.gmm_log_density(pts, t, s, mix.means, mix.stds, mix.weights)
        density = (gx, gy, log_q.reshape(DENSITY_POINTS, DENSITY_POINTS))
    scale = ARROW / max([float(np.linalg.norm(e, axis=1).max()) for e in eps.values()] + [1e-12])
    panels = [figs.FieldPanel(page.tr(f"panel_{k}"), k, starts, -scale * e) for k, e in eps.items()]
    if mix is not None and trained is None:  # the learned panel keeps its place until trained
        panels.append(figs.FieldPanel.waiting(page.tr("panel_learned"), "learned"))
    return figs.field_figure(
        panels,
        noisy,
        density,
        names=(page.tr("noisy"), page.tr("arrows"), page.tr("contours")),
        note=page.tr("field_waiting") if mix is not None else "",
        pictures=pictures,
    )


def data_stops(spec: dn.TrainSpec) -> dict[str, tuple[Sequence[Any], Any]]:
    """The data settings' controls, as ``ui.prefetch`` stops: their options and value."""
    d = spec.data
    stops: dict[str, tuple[Sequence[Any], Any]] = {"seed": (kit.SEEDS, spec.seed)}
    if d.kind == "mixture":
        stops |= dict(
            components=(cr.COMPONENTS, d.components),
            spread=(cr.SPREADS, d.spread),
            balance=(cr.BALANCES, d.balance),
        )
    return stops


def spec_at(spec: dn.TrainSpec, at: dict[str, Any]) -> dn.TrainSpec:
    """``spec`` with :func:`data_stops`' controls at their values in ``at``."""
    data = {k: at[k] for k in ("components", "spread", "balance") if k in at}
    return replace(spec, seed=at["seed"], data=replace(spec.data, **data))


@page.view("quality")
def quality() -> None:
    """The data row is shown above and sent after the chart, as on every view of the page: a
    switch from a view that sent it after its chart to one that sent it first built its
    seven controls anew in the chart's pass (record run 19: field → quality 106 ms at p50,
    the other switches 74–86)."""
    with kit.controls_after_the_chart(settings) as spec:
        quality_part(spec)


def quality_part(spec: dn.TrainSpec) -> None:
    trained = learned(spec, offer=False)
    q = {}
    with st.spinner(page.tr("computing")):
        if spec.data.mixture() is not None:
            q["exact"] = cr.exact_quality(spec)
        if trained is not None:
            q["learned"] = cr.learned_quality(spec, trained)
    if not q:
        st.info(not_trained(spec, here=False), icon=":material/model_training:")
        return
    curves = [
        (f"{page.tr(f'q_{name}')} ({page.tr(f'panel_{k}')})", k, calls, d)
        for k, r in q.items()
        for name, calls, d in r.curves
    ]
    floor = next(iter(q.values())).floor
    page.chart(
        figs.quality_figure(
            curves,
            floor,
            title=page.tr("quality_title"),
            x_title=page.tr("calls_axis"),
            y_title=page.tr("distance_axis"),
            floor_name=page.tr("floor"),
        ),
        "quality_chart",
        kept=True,
    )
    if "exact" in q:  # another seed or mixture off the shipped table costs 0.25 s
        prefetch.ahead(
            cr.exact_quality,
            [
                (spec_at(spec, at),)
                for at in prefetch.next_settings(page.key("ahead_quality"), data_stops(spec))
            ],
        )
    k, r = next(iter(q.items()))
    d = {name: dist for name, _, dist in r.curves}
    i10 = cr.QUALITY_STEPS.index(10)
    page.formula(
        "quality",
        who=who(k),
        eta0=f"{d['ddim_eta0'][i10]:.4f}",
        eta1=f"{d['ddim_eta1'][i10]:.4f}",
        one=f"{d['ddim_eta0'][0]:.3f}",
        hundred=f"{d['ddim_eta0'][-1]:.4f}",
        ddpm=f"{d['ddpm'][0]:.4f}",
        floor=f"{floor:.4f}",
        checks=[
            kit.Check(
                page.tr("check_ddpm_floor"),
                d["ddpm"][0] <= 1.5 * floor,
                f"{d['ddpm'][0] / floor:.2f}×",
            ),
            kit.Check(page.tr("check_eta"), d["ddim_eta0"][i10] <= d["ddim_eta1"][i10]),
            kit.Check(page.tr("check_more_steps"), d["ddim_eta0"][-1] < d["ddim_eta0"][0]),
        ],
    )


@page.view("training")
def training() -> None:
    with kit.controls_after_the_chart(settings) as spec:
        with st.container():  # the training offer's place, as in the sampling view
            trained = learned(spec)
        if trained is not None:
            training_part(spec, trained)


def training_part(spec: dn.TrainSpec, trained: dn.Trained) -> None:
    page.chart(loss_chart(trained.losses), "loss_chart", kept=True)
    st.caption(
        page.tr("trained_in", s=f"{trained.seconds:.1f}") if trained.seconds else page.tr("shipped")
    )
    last = float(trained.losses[-200:].mean())
    best = cr.minimum_loss(spec)
    checks = [kit.Check(page.tr("check_loss_falls"), last < float(trained.losses[:50].mean()))]
    if best is not None:
        checks.append(
            kit.Check(
                page.tr("check_min_loss"),
                last <= 1.05 * best,
                f"{last:.4f} / {best:.4f} = {last / best:.3f}",
            )
        )
    page.formula(
        "loss",
        checks=checks,
        target=page.tr(f"target_{spec.prediction}"),
        last=f"{last:.4f}",
        best="?" if best is None else f"{best:.4f}",
        steps=tex.num(trained.settings.steps),
        batch=trained.settings.batch,
    )


page.run()
