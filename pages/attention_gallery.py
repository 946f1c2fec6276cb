"""One input, every efficient attention: error against cost, and each method's map."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from core import attention as att
from core import gallery as g
from figures import gallery as figs
from ui import cache_gallery as cache
from ui import exercises, kit, prefetch, tex

SIDES = (8, 16, 32)  # the 64×64 sample image averaged to side×side tokens
SHARPNESS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0)
METHODS = g.METHODS[1:]  # every method but the reference
TIMING_SIDES, TIMED = cache.TIMING_SIDES, cache.TIMED  # the time view (warmed up there)

page = kit.Page(
    "attention_gallery",
    views=("maps", "compare", "time"),
    exercise=exercises.attention_gallery,
    code=(
        g.run,
        g.swin_mask,
        g.reformer_mask,
        g.routing_mask,
        g.score,
        g.dense_limit,
        g.pareto_front,
    ),
)


KNOB_WIDGETS = cache.KNOB_WIDGETS  # name: (kind, options or range, default)


def shared_controls(
    methods: tuple[str, ...] = METHODS, with_input: bool = True, widgets: bool = True
) -> tuple[int, int, float, g.Settings]:
    """The input (map side, seed, sharpness) and, folded away, the settings of ``methods``
    (only those: a knob no method here reads would change nothing on screen).

    Without the input (the time view: time does not depend on the numbers): side 0, seed 0,
    sharpness 1, and no control for them. Knobs not shown keep their defaults. With
    ``widgets=False`` the values are only read and nothing is drawn
    (``kit.controls_after_the_chart``).
    """
    side, sharpness, seed = 0, 1.0, 0
    if with_input:
        cols = kit.columns(3, widgets)
        with cols[0]:
            side = page.select_slider("side", SIDES, cache.DEFAULT_SIDE, widget=widgets)
        with cols[1]:
            sharpness = page.select_slider(
                "sharpness", SHARPNESS, cache.DEFAULT_SHARPNESS, widget=widgets
            )
        with cols[2]:
            seed = page.seed(widget=widgets)
    shown = [k for k in KNOB_WIDGETS if any(k in g.KNOBS[m] for m in methods)]
    values: dict[str, int | bool] = {}
    if shown:
        with st.expander(page.tr("settings")) if widgets else contextlib.nullcontext():
            cols = kit.columns(3, widgets)
            per_col = -(-len(shown) // 3)
            for n, knob in enumerate(shown):
                kind, args, default = KNOB_WIDGETS[knob]
                with cols[n // per_col]:
                    if kind == "select":
                        values[knob] = page.select_slider(knob, args, default, widget=widgets)
                    elif kind == "slider":
                        values[knob] = page.slider(knob, *args, default, widget=widgets)
                    else:
                        values[knob] = page.toggle(knob, bool(default), widget=widgets)
    return side, seed, float(sharpness), g.Settings(**values)  # type: ignore[arg-type]


def maps_controls(widgets: bool) -> tuple[str, int, int, float, g.Settings]:
    """The method, the input and the method's settings: drawn (``widgets``) or only read."""
    method = page.selectbox("method", METHODS, "swin", widget=widgets)
    return method, *shared_controls((method,), widgets=widgets)


@page.view("maps")
def maps() -> None:
    """One query's maps. The method, the input and its settings are read first and drawn
    above the maps after them (``kit.controls_after_the_chart``): a switch to this view sent
    them, five sliders among them, in the maps' pass, and the browser built them all before
    it drew anything (bench/controls_report.md, round 28)."""
    with kit.controls_after_the_chart(maps_controls) as (method, side, seed, sharpness, settings):
        query_maps(side, seed, sharpness, settings, method)
    inputs_ahead("maps", side, seed, sharpness, maps_work, settings, method)


def inputs_ahead(
    view: str, side: int, seed: int, sharpness: float, work: Callable[..., None], *args: Any
) -> None:
    """``work(side, seed, sharpness, *args)`` at the next stops of the input control just
    moved, in the background (``ui.prefetch``): a new input re-runs every method (50–70 ms)."""
    stops = {"side": (SIDES, side), "seed": (kit.SEEDS, seed), "sharpness": (SHARPNESS, sharpness)}
    calls = [
        (at["side"], at["seed"], at["sharpness"], *args)
        for at in prefetch.next_settings(page.key(f"ahead_{view}"), stops)
    ]
    prefetch.ahead(work, calls)


def maps_work(side: int, seed: int, sharpness: float, settings: g.Settings, method: str) -> None:
    for m in ("full", method):
        cache.method_rows(side, seed, sharpness, settings, m)


def compare_work(side: int, seed: int, sharpness: float, settings: g.Settings) -> None:
    cache.scores(side, seed, sharpness, settings)
    cache.limits(side, seed, sharpness)


@kit.fragment
def query_maps(side: int, seed: int, sharpness: float, settings: g.Settings, method: str) -> None:
    """The query sliders: one query's weights, full against the method, on the map."""
    row_col = st.columns(2)
    with row_col[0]:
        row = page.slider("row", 0, side - 1, side // 2)
    with row_col[1]:
        col = page.slider("col", 0, side - 1, side // 2)
    i = row * side + col
    w_full, _, _ = cache.method_rows(side, seed, sharpness, settings, "full")
    w, err, mask = cache.method_rows(side, seed, sharpness, settings, method)
    name = page.tr(f"method_{method}")
    page.chart(
        figs.row_maps_figure(
            w_full[i].reshape(side, side),
            w[i].reshape(side, side),
            (row, col),
            titles=(page.tr("full_title"), name),
            hovers=(page.tr("hover", label=page.tr("method_full")), page.tr("hover", label=name)),
        ),
        "maps_chart",
        kept=True,
    )
    kept = float(w_full[i][mask[i]].sum()) if mask is not None else None
    allowed = int(mask[i].sum()) if mask is not None else side * side
    total = float(w[i].sum())
    page.formula(
        "row",
        i=i,
        N=side * side,
        err=f"{float(err[i]):.4f}",
        keys=allowed,
        kept="" if kept is None else f",\\quad [[kept_tex]] = {kept:.4f}",
        checks=[
            kit.Check(page.tr("check_full_row"), abs(float(w_full[i].sum()) - 1) < 1e-5),
            kit.Check(
                page.tr("check_row"),
                abs(total - 1) < 1e-5 or (allowed == 0 and total == 0),
                f"Σ = {total:.6f}",
            ),
            kit.Check(
                page.tr("check_mask_zero"),
                mask is None or float(np.abs(w[i][~mask[i]]).max(initial=0.0)) == 0.0,
            ),
        ],
    )


@page.view("compare")
def compare() -> None:
    """Every method's error against its cost. The input and the knobs are read first and
    drawn above the chart after it (``kit.controls_after_the_chart``): a knob step re-sent
    them all (three sliders and up to nine in the settings) before the chart, and the
    browser rendered them again in the chart's pass."""
    controls = functools.partial(shared_controls, METHODS, True)
    with kit.controls_after_the_chart(controls) as (side, seed, sharpness, settings):
        compare_part(side, seed, sharpness, settings)
    inputs_ahead("compare", side, seed, sharpness, compare_work, settings)


def compare_part(side: int, seed: int, sharpness: float, settings: g.Settings) -> None:
    with st.spinner(page.tr("computing")):
        scores = cache.scores(side, seed, sharpness, settings)
        limit = cache.limits(side, seed, sharpness)
    labels = [page.tr(f"method_{s.method}") for s in scores]
    errors, flops = [s.error for s in scores], [s.flops for s in scores]
    front = g.pareto_front(flops, errors)
    page.chart(
        figs.pareto_figure(
            labels,
            flops,
            errors,
            front,
            title=page.tr("pareto_title", N=side * side),
            x_title=page.tr("flops_axis"),
            y_title=page.tr("error_axis"),
            front_name=page.tr("front"),
        ),
        "pareto_chart",
        kept=True,
        move=True,  # a knob of one method moves its marker (ui.live), when the axes stay
    )
    order = g.ranking(scores)
    cell = lambda x: "–" if x is None else f"{x:.3f}"  # noqa: E731
    page.table(
        {
            page.tr("col_method"): [labels[i] for i in order],
            page.tr("col_error"): [f"{errors[i]:.4f}" for i in order],
            page.tr("col_mass"): [cell(scores[i].kept_mass) for i in order],
            page.tr("col_recall"): [cell(scores[i].recall) for i in order],
            page.tr("col_flops"): [f"{flops[i]:.3g}" for i in order],
            page.tr("col_peak"): [f"{scores[i].peak:,}" for i in order],
            page.tr("col_front"): ["✓" if front[i] else "" for i in order],
        },
        "ranking",
        hide_index=True,
    )
    worst_limit = max(limit.values())
    best = scores[1 + int(np.argmin(errors[1:]))]
    page.formula(
        "error",
        best=page.tr(f"method_{best.method}"),
        err=f"{best.error:.4f}",
        full_flops=tex.sci(scores[0].flops, 3),
        flops=tex.sci(best.flops, 3),
        checks=[
            kit.Check(page.tr("check_self"), scores[0].error == 0.0),
            kit.Check(page.tr("check_limits"), worst_limit < 1e-12, f"max = {worst_limit:.1e}"),
            kit.Check(page.tr("check_front"), bool(front[0]) and bool(front.any())),
        ],
    )


@page.view("time")
def timing() -> None:
    """The measured time of the methods that run without an N × N matrix, and of full."""
    *_, settings = shared_controls(TIMED, with_input=False)
    # each method is timed with only its own knobs, so a knob re-times only its method
    # (Swin: window and shift, PVT: ratio); full and linear attention have none
    own = {m: g.own_settings(m, settings) for m in TIMED}
    runs = st.session_state.setdefault(page.key("runs"), 0)
    if st.button(page.tr("again"), key=page.key("again")):
        st.session_state[page.key("runs")] = runs = runs + 1
    bar = st.progress(0.0, text=page.tr("measuring"))
    columns = []
    for index, side in enumerate(TIMING_SIDES):
        columns.append([cache.timing_at(side, m, own[m], runs) for m in TIMED])
        bar.progress((index + 1) / len(TIMING_SIDES), text=page.tr("measuring"))
    bar.empty()
    seconds = np.stack(columns, axis=1)  # (methods, sides)
    n = np.array(TIMING_SIDES) ** 2
    slopes = [att.loglog_slope(n, row) for row in seconds]
    page.chart(
        figs.time_figure(
            n,
            seconds,
            [page.tr(f"method_{m}") for m in TIMED],
            slopes,
            title=page.tr("time_title"),
            x_title="N",
            y_title=page.tr("seconds"),
        ),
        "time_chart",
        kept=True,
    )
    page.formula(
        "time",
        full=f"{slopes[0]:.2f}",
        linear=f"{slopes[1]:.2f}",
        sra=f"{slopes[2]:.2f}",
        swin=f"{slopes[3]:.2f}",
        R=settings.ratio,
        checks=[
            kit.Check(
                page.tr("check_linear_faster"),
                bool(seconds[1, -1] < seconds[0, -1]),
                f"N = {n[-1]}: ×{seconds[0, -1] / seconds[1, -1]:.1f}",
            )
        ],
    )


page.run()
