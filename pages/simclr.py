"""SimCLR: two augmented views of each image, an encoder and projection head, the 2N×2N
similarities and NT-Xent as a softmax cross-entropy; τ, the batch size, a few live steps."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core import contrastive as ct
from figures import contrastive as figs
from ui import cache_simclr as cache
from ui import exercises, kit, live
from ui.train_button import Progress, train_on_press

TAUS = sorted({float(f"{x:.2g}") for x in np.geomspace(0.01, 10, 31)} | {0.2, 0.3, 0.5})
TRAIN_TAUS = [0.1, 0.2, 0.5, 1.0]
STEPS, TRAINED, DEFAULT = cache.STEPS, cache.TRAINED, cache.DEFAULT
Batch = tuple[int, float, float, int]  # N, colour strength s, smallest crop area, seed
STEP_OPTIONS = list(range(STEPS + 1))  # the step slider's stops (0: before training)

page = kit.Page(
    "simclr",
    views=("views", "similarity", "temperature", "training"),
    exercise=exercises.simclr,
    code=(
        ct.draw_augmentation,
        ct.apply_augmentation,
        ct.explain_nt_xent,
        ct.nt_xent_gradient,
        ct.loss_lower_bound,
    ),
)


def the_batch() -> Batch:
    """N, colour strength s, smallest crop area and seed (outside the live parts)."""
    a, b, c, d = st.columns(4)
    with a:
        n = page.slider("n", 2, len(cache.PICTURES), DEFAULT[0])
    with b:
        strength = page.slider("strength", 0.0, 1.5, DEFAULT[1], step=0.1)
    with c:
        area = page.slider("area", 0.1, 1.0, DEFAULT[2], step=0.05)
    with d:
        seed = page.number("seed", 0, 10_000, DEFAULT[3])
    return n, strength, area, seed


def trained_run(key: cache.Key):  # noqa: ANN201 (core.simclr.TrainingRun: no torch import here)
    """The run of ``key`` if cached; the default run, trained once per server; else ``None``
    and a "Train" button (a control step only changes settings: it never trains)."""
    if key == cache.DEFAULT_KEY:
        with st.spinner(page.tr("training_now")):
            return cache.default_run(key)
    run = cache.cached_run(key)
    if run is not None:
        return run
    n, strength, area, seed, tau, _ = key

    def train(progress: Progress):  # noqa: ANN202 (a TrainingRun)
        def report(done: int, losses: np.ndarray) -> None:
            progress(done / STEPS, progress_chart(losses, n))

        return cache.train(key, report)

    return train_on_press(
        page.key("train"),
        notice=page.tr(
            "not_trained",
            steps=STEPS,
            tau=f"{tau:g}",
            n=n,
            strength=f"{strength:.1f}",
            area=f"{area:.2f}",
            seed=seed,
        ),
        label=page.tr("train", seconds=cache.TRAIN_SECONDS),
        working=page.tr("training_now"),
        train=train,
    )


def progress_chart(losses: np.ndarray, n: int) -> figs.go.Figure:
    return figs.progress_figure(
        losses,
        STEPS,
        ct.chance_level(n),
        title=page.tr("curve_title"),
        x_title=page.tr("step_axis"),
        y_title=page.tr("loss_axis"),
        names=(page.tr("fixed_views"), "ln(2N − 1)"),
    )


def encoder(widget: bool) -> str:
    """The student's pick of encoder: a radio in the part's fragment, read before it."""
    return page.choice(
        "encoder",
        ("untrained", "trained"),
        "trained",
        format_func=lambda o: page.tr(f"encoder_{o}", steps=STEPS, tau=TRAINED[0]),
        widget=widget,
    )


def trained_or_offer(batch: Batch) -> tuple[object, bool]:
    """The trained run of these settings (``None``: none yet), and whether the page offers
    its training below the part (the trained encoder is picked and not trained)."""
    key = (*batch, *TRAINED)
    if key == cache.DEFAULT_KEY:
        return trained_run(key), False
    run = cache.cached_run(key)
    return run, run is None and encoder(widget=False) == "trained"


def offer_training(batch: Batch) -> None:
    """The "Train" button, below the part (``trained_run``); once trained, the page runs
    again and the part shows the trained network."""
    if trained_run((*batch, *TRAINED)) is not None:
        st.rerun()


def embeddings(batch: Batch, run: object, offered: bool) -> np.ndarray | None:
    """z of the fixed views by the encoder picked here, the part's first control (a pick
    reruns the part only; the chart is redrawn in place); ``None``: the trained one, not
    trained yet (the button below offers it). A pick that changes whether the button is
    needed reruns the page: the part's sliders and the button are drawn in a full run only,
    as a widget first drawn in a fragment's rerun shows empty (Streamlit 1.67,
    ``kit.Page.run``)."""
    picked = encoder(widget=True)
    if (picked == "trained" and run is None) != offered:
        st.rerun(scope="app")
    if picked == "untrained":
        return cache.untrained_embeddings(*batch)
    return None if run is None else run.z_after  # type: ignore[attr-defined]


@page.view("views")
def views() -> None:
    views_view(*the_batch())


@kit.fragment
def views_view(n: int, strength: float, area: float, seed: int) -> None:
    """The draw slider: fresh crops, flips and colours for the same batch."""
    draw = page.slider("draw", 1, 20, 1)
    v = cache.views(n, strength, area, seed, draw)
    page.chart(
        figs.views_figure(
            cache.sample_batch()[:n],
            v.images,
            [a.box for a in v.augmentations],
            title=page.tr("views_title"),
            names=(page.tr("view_a"), page.tr("view_b")),
            row_titles=(page.tr("row_images"), page.tr("row_view_a"), page.tr("row_view_b")),
        ),
        "views_chart",
    )
    again = ct.two_views(
        cache.sample_batch()[:n], np.random.default_rng([seed, draw]), cache.SIDE, strength, area
    )
    S = cache.SOURCE_SIDE
    a, b = v.augmentations[0], v.augmentations[n]
    page.formula(
        "views",
        **{f"{k}_{s}": val for s, aug in (("a", a), ("b", b)) for k, val in _describe(aug).items()},
        checks=[
            kit.Check(
                page.tr("check_range"),
                v.images.min() >= 0 and v.images.max() <= 1,
                f"{v.images.shape[0]} × {cache.SIDE}×{cache.SIDE}",
            ),
            kit.Check(
                page.tr("check_inside"), all(ct.crop_inside(x, S, S) for x in v.augmentations)
            ),
            kit.Check(page.tr("check_seeded"), bool(np.array_equal(again.images, v.images))),
        ],
    )


def _describe(aug: ct.Augmentation) -> dict[str, str]:
    top, left, h, w = aug.box
    yes, no = page.tr("yes"), page.tr("no")
    factors = (aug.brightness, aug.contrast, aug.saturation) if aug.jittered else (1, 1, 1)
    hue = aug.hue if aug.jittered else 0.0  # no jitter: the identity factors
    jitter = ",\\ ".join(f"{f:.2f}" for f in factors) + f",\\ {hue:+.2f}"
    return {
        "crop": f"{h:.0f}\\times{w:.0f}",
        "at": f"({top:.0f}, {left:.0f})",
        "flip": yes if aug.flipped else no,
        "jitter": jitter,
        "grey": yes if aug.grey else no,
    }


@page.view("similarity")
def similarity() -> None:
    batch = the_batch()
    run, offered = trained_or_offer(batch)
    similarity_view(batch, run, offered)
    if offered:
        offer_training(batch)


@kit.fragment
def similarity_view(batch: Batch, run: object, offered: bool) -> None:
    """The encoder, τ and the anchor: the similarity matrix, one anchor's softmax row and its
    loss."""
    z, n = embeddings(batch, run, offered), batch[0]
    if z is None:
        return
    a, b = st.columns(2)
    with a:
        tau = page.select_slider("tau", TAUS, 0.2)
    r = ct.explain_nt_xent(z, tau)
    labels = figs.view_labels(n)
    anchors = list(range(1, 2 * n + 1))  # the slider's stops: views 1 … N, 1′ … N′
    i = live.current(page.key("anchor"), anchors, 1) - 1
    states = []
    for k in range(2 * n):
        j = int(r.positive[k])
        numbers = [
            (page.tr("anchor_i"), labels[k]),
            (page.tr("positive"), labels[j]),
            ("sim", f"{r.similarity[k, j]:.3f}"),
            ("p", f"{r.probs[k, j]:.4f}"),
            ("ℓ", f"{r.per_anchor[k]:.4f}"),
        ]
        checks = [kit.Check(page.tr("check_row"), abs(r.probs[k].sum() - 1) < 1e-12)]
        traces = figs.anchor_traces(r.probs[k], k)
        states.append(live.State(k + 1, labels[k], traces, numbers, checks))
    swapped = ct.nt_xent(np.r_[z[n:], z[:n]], tau)
    bound = ct.loss_lower_bound(n, tau)
    shared = [
        kit.Check(page.tr("check_nonneg"), bool(np.all(r.per_anchor >= 0))),
        kit.Check(page.tr("check_bound"), r.loss >= bound - 1e-12, f"{bound:.4f}"),
        kit.Check(page.tr("check_swap"), abs(swapped - r.loss) < 1e-12, f"{swapped:.4f}"),
    ]
    with a:  # the matrix: its outline follows the anchor once the slider settles
        page.chart(
            figs.similarity_figure(
                r.similarity,
                i,
                title=page.tr("sim_title"),
                axis_titles=(page.tr("view_k"), page.tr("anchor_i")),
                name=page.tr("positive_pairs"),
                colorbar_title="sim",
            ),
            "similarity_chart",
            kept=True,
        )
    with b:  # the anchor as a live control: its softmax moved in the browser
        live.slider(
            page.tr("anchor"),
            page.key("anchor"),
            states,
            i + 1,
            figs.anchor_figure(
                r.probs[i],
                i,
                title=page.tr("row_title", tau=f"{tau:g}"),
                axis_titles=(page.tr("view_k"), page.tr("probability")),
                names=(page.tr("positive"), page.tr("negatives")),
            ),
            chart_key=page.key("anchor_chart"),
            shared_checks=shared,
        )
    j = int(r.positive[i])
    page.formula(
        "similarity",
        i=labels[i].replace("′", "'"),
        j=labels[j].replace("′", "'"),
        s_pos=f"{r.similarity[i, j]:.3f}",
        tau=f"{tau:g}",
        p=f"{r.probs[i, j]:.4f}",
        ell=f"{r.per_anchor[i]:.4f}",
        two_n=2 * n,
        loss=f"{r.loss:.4f}",
        checks=[*shared, states[i].checks[0]],
        badges_shown=False,  # the live control shows them, following the anchor
    )
    st.page_link(
        "pages/softmax.py",
        label=page.tr("softmax_link"),
        icon=":material/thermostat:",
        query_params={"softmax_view": "contrastive"},
    )


@page.view("temperature")
def temperature() -> None:
    batch = the_batch()
    run, offered = trained_or_offer(batch)
    temperature_view(batch, run, offered)
    if offered:
        offer_training(batch)


@kit.fragment
def temperature_view(batch: Batch, run: object, offered: bool) -> None:
    """The encoder and τ: the loss against τ and against the batch size N at this τ."""
    z, n = embeddings(batch, run, offered), batch[0]
    if z is None:
        return
    tau = page.select_slider("tau", TAUS, 0.2)
    table = cache.temperature_table(z, tuple(TAUS))  # (N − 1, τ) for N′ = 2 … N
    ns = list(range(2, n + 1))
    k = TAUS.index(tau)
    chance_n = [ct.chance_level(m) for m in ns]
    loss, chance, bound = float(table[-1, k]), ct.chance_level(n), ct.loss_lower_bound(n, tau)
    page.chart(
        figs.temperature_figure(
            np.array(TAUS),
            table[-1],
            tau,
            loss,
            chance,
            np.array([ct.loss_lower_bound(n, t) for t in TAUS]),
            ns,
            table[:, k],
            np.array(chance_n),
            np.array([ct.loss_lower_bound(m, tau) for m in ns]),
            n,
            1.08 * max(float(table.max()), chance),
            titles=(page.tr("tau_title", n=n), page.tr("n_title")),
            x_titles=("τ", page.tr("n_axis")),
            y_title=page.tr("loss_axis"),
            names=(page.tr("this_batch"), "ln(2N − 1)", page.tr("smallest"), page.tr("current")),
        ),
        "temperature_chart",
        kept=True,
    )
    collapsed = ct.nt_xent(np.ones((2 * n, 3)), tau)
    far = float(table[-1, -1])
    page.formula(
        "temperature",
        tau=f"{tau:g}",
        loss=f"{loss:.4f}",
        n=n,
        two_n1=2 * n - 1,
        chance=f"{chance:.4f}",
        n1=n - 1,
        two_n2=2 * (n - 1),
        bound=f"{bound:.4f}",
        checks=[
            kit.Check(page.tr("check_bound"), loss >= bound - 1e-12, f"{bound:.4f}"),
            kit.Check(
                page.tr("check_collapse"), abs(collapsed - chance) < 1e-12, f"{collapsed:.4f}"
            ),
            kit.Check(
                page.tr("check_far", tau=f"{TAUS[-1]:g}"),
                abs(far - chance) <= 2 / TAUS[-1],
                f"{far:.4f}",
            ),
        ],
    )


@page.view("training")
def training() -> None:
    n, strength, area, seed = the_batch()
    tau = page.select_slider("train_tau", TRAIN_TAUS, TRAINED[0])
    run = trained_run((n, strength, area, seed, tau, STEPS))
    if run is None:
        return
    training_view(run, n, tau)


@kit.fragment
def training_view(run: object, n: int, tau: float) -> None:
    """The step as a live control (ui.live): the loss so far and the similarities after every
    step are sent once and redrawn in the browser; the formula and the URL follow once the
    slider settles."""
    k = live.current(page.key("step"), STEP_OPTIONS, STEPS)
    chance, bound = ct.chance_level(n), ct.loss_lower_bound(n, tau)
    pos0, neg0 = ct.mean_similarities(run.similarities[0])
    pos_end, neg_end = ct.mean_similarities(run.similarities[-1])
    L0 = run.fixed_losses[0]
    states, at_step = [], {}  # at_step: each step's numbers, the current one for the formula
    for j in STEP_OPTIONS:
        pos, neg = ct.mean_similarities(run.similarities[j])
        L = float(run.fixed_losses[j])
        at_step[j] = (L, pos, neg)
        numbers = [
            (page.tr("step_axis"), f"{j} / {STEPS}"),
            ("ℒₖ", f"{L:.4f}"),
            (page.tr("mean_pos"), f"{pos0:.3f} → {pos:.3f}"),
            (page.tr("mean_neg"), f"{neg0:.3f} → {neg:.3f}"),
        ]
        checks = [kit.Check(page.tr("check_bound"), bound - 1e-12 <= L, f"{bound:.4f}")]
        traces = figs.training_step_traces(run.fixed_losses, run.similarities[j], j)
        states.append(live.State(j, str(j), traces, numbers, checks))
    fig = figs.training_figure(
        run.losses,
        run.fixed_losses,
        k,
        chance,
        bound,
        run.similarities[0],
        run.similarities[k],
        titles=(page.tr("curve_title"), page.tr("before_title"), page.tr("after_title")),
        x_title=page.tr("step_axis"),
        y_title=page.tr("loss_axis"),
        names=(
            page.tr("step_views"),
            page.tr("fixed_views"),
            "ln(2N − 1)",
            page.tr("smallest"),
        ),
        colorbar_title="sim",
    )
    shared = [
        kit.Check(
            page.tr("check_fell", steps=STEPS),
            run.fixed_losses[-1] < L0,
            f"{L0:.3f} → {run.fixed_losses[-1]:.3f}",
        ),
        kit.Check(
            page.tr("check_pulled", steps=STEPS),
            pos_end - neg_end > pos0 - neg0,
            f"{pos0 - neg0:.3f} → {pos_end - neg_end:.3f}",
        ),
    ]
    live.slider(
        page.tr("step"),
        page.key("step"),
        states,
        k,
        fig,
        chart_key=page.key("training_chart"),
        shared_checks=shared,
    )
    st.caption(page.tr("timing", steps=STEPS, seconds=f"{run.seconds:.2f}"))
    L, pos, neg = at_step[k]
    page.formula(
        "training",
        k=k,
        L0=f"{L0:.4f}",
        L=f"{L:.4f}",
        pos0=f"{pos0:.3f}",
        pos=f"{pos:.3f}",
        neg0=f"{neg0:.3f}",
        neg=f"{neg:.3f}",
        checks=[*shared, states[k].checks[0]],
        badges_shown=False,  # the live control shows them, following the step in the browser
    )


page.run()
