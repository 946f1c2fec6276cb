"""Backpropagation through a post-LN Transformer block by hand (numpy), every gradient checked
live against torch autograd and finite differences; then a tiny training run, numpy = torch."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import backprop as bp
from figures import backprop as figs
from ui import cache_backprop as cb
from ui import exercises, formulas, kit, live, tex
from ui.train_button import Progress, train_on_press

TOKENS = (2, 3, 4, 5, 6, 7, 8)
CHOICES = (*bp.TENSOR_NAMES[::-1], *bp.PARAM_NAMES[::-1])  # in backward order: y first
AUTOGRAD_TOL, FD_TOL = 1e-8, 1e-3
RATES = (0.1, 0.3, 1.0)
DEFAULT = cb.DEFAULT  # task, η, seed: trained once per server, shown at once
SHOWN = " ".join(map(str, cb.SHOWN))
SCI = {"digits": 1, "moderate": None}
SYMBOLS = {
    "gamma1": "γ₁",
    "beta1": "β₁",
    "gamma2": "γ₂",
    "beta2": "β₂",
    "W_1": "W₁",
    "b_1": "b₁",
    "W_2": "W₂",
    "b_2": "b₂",
}

page = kit.Page(
    "backprop_by_hand",
    views=("forward", "gradients", "softmax_jacobian", "layernorm", "training"),
    exercise=exercises.backprop_by_hand,
    code=(
        bp.forward_with,
        bp.all_gradients,
        bp.softmax_backward,
        bp.softmax_jacobian,
        bp.layer_norm_forward,
        bp.layer_norm_backward,
        bp.finite_difference_gradient,
        bp.max_relative_error,
        bp.model_loss_and_gradients,
        bp.train,
    ),
)


@page.view("forward", "gradients", "softmax_jacobian", "layernorm")
def block() -> None:
    """The seed outside the live part (a full rerun draws a new example)."""
    with st.columns(4)[0]:
        s = page.seed()
    if page.current_view != "forward":  # N is live there, a select-slider in the others
        live.hand_over(page.key("N"))
    {
        "forward": forward,
        "gradients": gradients,
        "softmax_jacobian": jacobian,
        "layernorm": layernorm,
    }[page.current_view](s)
    page.derivation("derivation")
    page.derivation("course")


@kit.fragment
def forward(seed: int) -> None:
    """N live (ui.live): the five tensors of every N are sent once and redrawn in the browser
    with no round trip; the formula and the URL follow once the slider settles."""
    N = live.current(page.key("N"), TOKENS, 5)
    names = ("x", "A", "h", "r", "y")
    signed = [n != "A" for n in names]
    cases = {n: cb.block_case(n, seed) for n in TOKENS}
    states = []
    for n, case_n in cases.items():
        c = case_n.cache
        numbers = [("N", str(n)), ("A", f"{cb.HEADS} × {n} × {n}")]
        traces = figs.tensors_traces([c.x, c.A, c.h, c.r, c.y], signed)
        states.append(live.State(n, str(n), traces, numbers, forward_checks(case_n)))
    case = cases[N]
    c = case.cache
    widest = cases[TOKENS[-1]].cache
    fig = figs.tensors_figure(
        [c.x, c.A, c.h, c.r, c.y],
        [page.tr(f"panel_{n}") for n in names],
        title=page.tr("forward_title"),
        x_title=page.tr("channel"),
        y_title=page.tr("token_axis"),
        hover=page.tr("hover_cell"),
        signed=signed,
        widths=figs.panel_widths([widest.x, widest.A, widest.h, widest.r, widest.y]),
    )
    live.slider(page.tr("N"), page.key("N"), states, N, fig, chart_key=page.key("forward_chart"))
    page.formula(
        "forward",
        N=N,
        D=cb.D_MODEL,
        h=cb.HEADS,
        dk=cb.D_MODEL // cb.HEADS,
        F=cb.D_FF,
        count=sum(p.size for p in bp.learnable(case.params).values()),
        gap=tex.sci(case.shuffled_gap, **SCI),
        checks=states[TOKENS.index(N)].checks,
        badges_shown=False,  # the live control shows them, following N in the browser
    )


def forward_checks(case: cb.BlockCase) -> list[kit.Check]:
    """The forward pass's invariants for one case: attention rows, LayerNorm's mean, and
    reversing the tokens reversing y."""
    rows = float(np.abs(case.cache.A.sum(-1) - 1).max())
    mean = float(np.abs(case.cache.xhat2.mean(-1)).max())
    return [
        kit.Check(page.tr("check_rows"), rows < 1e-12, f"max |Σ − 1| = {rows:.1e}"),
        kit.Check(page.tr("check_ln"), mean < 1e-12, f"max |mean| = {mean:.1e}"),
        kit.Check(
            page.tr("check_shuffle"),
            case.shuffled_gap < 1e-12,
            f"max |Δ| = {case.shuffled_gap:.1e}",
        ),
    ]


@kit.fragment
def gradients(seed: int) -> None:
    left, right = st.columns([1, 2])
    with left:
        N = page.select_slider("N", TOKENS, 5)
    with right:
        name = page.selectbox("tensor", CHOICES, "W_q")
    case, torch_ = cb.block_case(N, seed), cb.oracles(N, seed)
    hand, auto = case.hand[name], torch_.autograd[name]
    fd = cb.finite_differences(N, seed, name)
    page.chart(
        figs.gradient_figure(
            hand,
            [np.abs(hand - auto), np.abs(hand - fd)],
            [
                page.tr("grad_panel", t=SYMBOLS.get(name, name)),
                page.tr("err_autograd"),
                page.tr("err_fd"),
            ],
            title="",
            x_title=page.tr("column"),
            y_title=page.tr("row"),
            hover=page.tr("hover_cell"),
            error_hover=page.tr("hover_log"),
        ),
        "gradient_chart",
        kept=True,
    )
    e_auto, e_fd = bp.max_relative_error(hand, auto), bp.max_relative_error(hand, fd)
    checks = [
        kit.Check(page.tr("check_autograd"), e_auto < AUTOGRAD_TOL, f"{e_auto:.1e}"),
        kit.Check(page.tr("check_fd"), e_fd < FD_TOL, f"{e_fd:.1e}"),
    ]
    if name in torch_.layer:  # parameters and x: torch's own nn.TransformerEncoderLayer too
        e_layer = bp.max_relative_error(hand, torch_.layer[name])
        checks.append(kit.Check(page.tr("check_layer"), e_layer < AUTOGRAD_TOL, f"{e_layer:.1e}"))
    at = np.unravel_index(int(np.abs(hand).argmax()), hand.shape)  # the largest entry
    page.formula(
        "gradient",
        rule=formulas.render(page.concept, f"rule_{name}"),
        shape="\\times".join(map(str, hand.shape)),
        index=",".join(str(i) for i in at),
        hand=f"{hand[at]:.10f}",
        auto=f"{auto[at]:.10f}",
        fd=f"{fd[at]:.10f}",
        checks=checks,
    )


@kit.fragment
def jacobian(seed: int) -> None:
    a_, b_, c_ = st.columns(3)
    with a_:
        N = page.select_slider("N", TOKENS, 5)
    with b_:
        head = page.slider("head", 1, cb.HEADS, 1)
    with c_:
        i = page.slider("query", 0, N - 1, 0)
    case = cb.block_case(N, seed)
    a, g = case.cache.A[head - 1, i], case.hand["A"][head - 1, i]
    J = bp.softmax_jacobian(a)
    exact, diag = J @ g, bp.diagonal_only_softmax_backward(a, g)
    auto = cb.oracles(N, seed).autograd["S"][head - 1, i]
    page.chart(
        figs.jacobian_figure(
            J,
            exact,
            diag,
            titles=(page.tr("jacobian_title"), page.tr("ds_title")),
            x_titles=("j", page.tr("key")),
            y_titles=("i", "∂L/∂sⱼ"),
            names=(page.tr("exact_name"), page.tr("course_name")),
            hover=page.tr("hover_cell"),
        ),
        "jacobian_chart",
        kept=True,
    )
    e_auto, e_course = bp.max_relative_error(exact, auto), bp.max_relative_error(diag, auto)
    page.formula(
        "jacobian",
        a=tex.vec(a, 3),
        J=tex.vec(np.diag(J), 3),
        g=tex.vec(g, 3),
        exact=tex.vec(exact, 4),
        course=tex.vec(diag, 4),
        n=N,
        checks=[
            kit.Check(page.tr("check_symmetric"), bool(np.allclose(J, J.T, atol=1e-15))),
            kit.Check(page.tr("check_rows_zero"), float(np.abs(J.sum(1)).max()) < 1e-15),
            kit.Check(page.tr("check_autograd"), e_auto < AUTOGRAD_TOL, f"{e_auto:.1e}"),
            kit.Check(page.tr("check_course"), e_course > 1e-3, f"{e_course:.2f}"),
        ],
    )


@kit.fragment
def layernorm(seed: int) -> None:
    a_, b_, c_ = st.columns(3)
    with a_:
        N = page.select_slider("N", TOKENS, 5)
    with b_:
        k = page.slider("which", 1, 2, 2)
    with c_:
        i = page.slider("token", 0, N - 1, 0)
    case = cb.block_case(N, seed)
    c, p = case.cache, case.params
    u, xhat, inv = (c.u, c.xhat1, c.inv_std1) if k == 1 else (c.v, c.xhat2, c.inv_std2)
    g = case.hand["h" if k == 1 else "y"][i]
    ghat = p[f"gamma{k}"] * g
    du = case.hand["u" if k == 1 else "v"][i]
    auto = cb.oracles(N, seed).autograd["u" if k == 1 else "v"][i]
    page.chart(
        figs.layernorm_figure(
            [u[i], xhat[i], ghat, du],
            ("u", "x̂", "ĝ = γ ⊙ g", "∂L/∂u"),
            titles=(page.tr("ln_forward_title"), page.tr("ln_backward_title")),
            x_title=page.tr("channel"),
            y_title=page.tr("value"),
        ),
        "layernorm_chart",
        kept=True,
    )
    err = bp.max_relative_error(du, auto)
    total = float(abs(du.sum()))
    page.formula(
        "layernorm",
        k=k,
        mu=f"{u[i].mean():.4f}",
        sigma=f"{1 / inv[i, 0]:.4f}",
        mean_g=f"{ghat.mean():.4f}",
        mean_gx=f"{(ghat * xhat[i]).mean():.4f}",
        du=tex.vec(du, 3),
        checks=[
            kit.Check(page.tr("check_sum_zero"), total < 1e-12, f"|Σ| = {total:.1e}"),
            kit.Check(page.tr("check_autograd"), err < AUTOGRAD_TOL, f"{err:.1e}"),
        ],
    )


def training_controls(widgets: bool) -> tuple[str, float, int]:
    """The task, the learning rate and the seed: drawn (``widgets``) or only read."""
    a_, b_, c_ = kit.columns(3, widgets)
    with a_:
        task = page.choice("task", bp.TASKS, DEFAULT[0], widget=widgets)
    with b_:
        lr = page.select_slider("lr", RATES, DEFAULT[1], widget=widgets)
    with c_:
        seed = page.seed(DEFAULT[2], widget=widgets)
    return task, lr, seed


@page.view("training")
def training() -> None:
    """The settings are read first and drawn above the chart after it
    (``kit.controls_after_the_chart``): a switch to this view sent them in the chart's pass
    (record run 19: the switches to and from it were the view picker's slowest)."""
    with kit.controls_after_the_chart(training_controls) as (task, lr, seed):
        runs = training_runs(task, lr, seed)
        if runs is not None:
            training_view(*runs, lr)


def training_runs(task: str, lr: float, seed: int) -> cb.Runs | None:
    """The runs of these settings if cached; the default's, trained once per server; else
    ``None`` and a "Train" button (a control step only changes settings: it never trains)."""
    if (task, lr, seed) == DEFAULT:
        with st.spinner(page.tr("training_now")):
            return cb.default_runs(task, lr, seed)
    runs = cb.cached_runs(task, lr, seed)
    if runs is not None:
        return runs

    def train(progress: Progress) -> cb.Runs:
        return cb.training_runs(task, lr, seed, lambda done: progress(done, None))

    return train_on_press(
        page.key("train"),
        notice=page.tr(
            "not_trained", steps=cb.TRAIN_STEPS, lr=lr, task=page.tr(f"task_{task}"), seed=seed
        ),
        label=page.tr("train", seconds=cb.TRAIN_SECONDS),
        working=page.tr("training_now"),
        train=train,
    )


@kit.fragment
def training_view(mine: bp.TrainRun, theirs: bp.TrainRun, lr: float) -> None:
    a_, b_ = st.columns([3, 1])
    with a_:
        t = page.slider("step", 0, cb.TRAIN_STEPS, cb.TRAIN_STEPS)
    with b_:
        head = page.slider("head", 1, cb.HEADS, 2)
    page.chart(
        figs.training_figure(
            (mine.losses, theirs.losses),
            mine.accuracies,
            t,
            mine.attention[t, head - 1],
            names=(
                page.tr("loss_numpy"),
                page.tr("loss_torch"),
                page.tr("accuracy"),
                page.tr("whole_run"),
            ),
            titles=(page.tr("loss_title"), page.tr("attention_title", h=head, s=SHOWN)),
            x_titles=(page.tr("step_axis"), page.tr("key")),
            y_titles=(page.tr("loss_axis"), page.tr("accuracy"), page.tr("query_axis")),
            hover=page.tr("hover_cell"),
        ),
        "training_chart",
        kept=True,
    )
    gap = float(np.abs(mine.losses - theirs.losses).max())
    maps = float(np.abs(mine.attention - theirs.attention).max())
    page.formula(
        "training",
        t=t,
        lr=lr,
        loss=f"{mine.losses[t]:.10f}",
        loss_torch=f"{theirs.losses[t]:.10f}",
        acc=f"{100 * mine.accuracies[t]:.1f}",
        checks=[
            kit.Check(page.tr("check_same_losses"), gap < 1e-9, f"max |Δ| = {gap:.1e}"),
            kit.Check(page.tr("check_same_maps"), maps < 1e-9, f"max |Δ| = {maps:.1e}"),
            kit.Check(
                page.tr("check_falls"),
                bool(mine.losses[-1] < mine.losses[0]),
                f"{mine.losses[0]:.3f} → {mine.losses[-1]:.4f}",
            ),
        ],
    )


page.run()
