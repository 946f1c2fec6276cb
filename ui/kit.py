"""The page kit: the parts of DESIGN.md's page contract, in the order a page uses them.

    intro -> view picker -> controls -> figures -> formula + badges -> try this
          -> exercise -> show the code / data and export

A page declares itself with :class:`Page` (its concept, views, exercise and code) and its
live parts; :meth:`Page.run` draws the skeleton every page shares. The functions below are
the parts the skeleton and the live parts use, so every page looks and behaves the same.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
import secrets
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core.errors import CoreError
from figures import handout, style
from figures.export import figure_csv, has_data, heatmap_tables
from ui import formulas, prefetch, state
from ui.boot import require_entrypoint
from ui.i18n import content, current_lang, has_section, strings, tr
from ui.streamlit_internals import MESSAGE_FLUSH_INTERVAL_SECS

t = tr  # short alias inside the kit only

PLOTLY_CONFIG: dict[str, Any] = {
    "displaylogo": False,
    # the camera button saves PNG at three times the chart's size: sharp on a projector
    "toImageButtonOptions": {"format": "png", "scale": 3},
    "modeBarButtonsToRemove": ["lasso2d", "select2d"],
}


# layout.datarevision of every chart drawn by chart() (see there)
DATA_REVISION = "fixed"
SEEDS = range(0, 10_001)  # the values of a page's seed control (:meth:`Page.seed`)
_FIGURES = "_kit_figures"
_FORMULAS = "_kit_formulas"
_LAST_CHART = "_kit_last_chart"
# chart key → digest of the payload last sent, since this full run / in the full run before
_SHOWN, _SHOWN_BEFORE = "_kit_shown", "_kit_shown_before"
# How long a formula or a second chart follows a chart: 6 of the server's 5 ms flush cycles.
CHART_HEAD_START_SECS = 6 * MESSAGE_FLUSH_INTERVAL_SECS
SEED_MAX = 999_999


def presenting() -> bool:
    """Presenter mode (``?present=1`` or the sidebar toggle): big type, one step at a time."""
    return bool(st.session_state.get("present", st.query_params.get("present") == "1"))


def _figures() -> dict[str, go.Figure | Callable[[], go.Figure]]:
    """This session's charts of the current page, by key (the data behind "export"): a
    figure, or the function that builds it (a chart sent from the cache, :func:`chart`)."""
    return st.session_state.setdefault(_FIGURES, {})


def _built(figures: dict[str, go.Figure | Callable[[], go.Figure]]) -> dict[str, go.Figure]:
    """``figures`` (:func:`_figures`), each one built now that was kept as its builder."""
    for key, fig in list(figures.items()):
        if not isinstance(fig, go.Figure):
            figures[key] = fig()
    return figures  # type: ignore[return-value]


def _formulas() -> dict[str, handout.Formula]:
    """This session's formulas of the current page (for the handout), by their shape."""
    return st.session_state.setdefault(_FORMULAS, {})


def intro(concept: str) -> None:
    """The page title and its one-paragraph "what you are looking at"."""
    _figures().clear()  # a full run of a page: forget the charts of the previous page/part
    _formulas().clear()
    st.session_state[_SHOWN_BEFORE] = st.session_state.pop(_SHOWN, {})  # see payload_sent
    st.title(t(f"{concept}.title"))
    st.markdown(content(concept, "intro"))


def explain(concept: str, section: str) -> None:
    """A named section of the concept's long explanation."""
    st.markdown(content(concept, section))


def fragment(fn: Callable[..., None]) -> Callable[..., None]:
    """``st.fragment`` for a page's live part: its controls' values reach the URL last.

    A slider step reruns only the fragment. The address bar is written once, after everything
    the fragment drew (``state.flush``: a hidden script, last in the fragment), so it never
    competes with the chart the student is watching (bench/latency). While it runs, the
    server's guesses at a student's next step wait (``ui.prefetch``).
    """

    @functools.wraps(fn)
    def live_part(*args: Any, **kwargs: Any) -> None:
        with prefetch.foreground():  # no guesses while a page runs (ui.prefetch)
            with guard():  # a fragment rerun is a run of its own: it needs its own guard
                fn(*args, **kwargs)
            state.flush()

    return st.fragment(live_part)


def chart(
    fig: go.Figure | Callable[[], go.Figure],
    key: str,
    *,
    kept: bool = False,
    move: bool = False,
    memo: Hashable = None,
) -> None:
    """A Plotly figure, full width, with the app's offline-friendly toolbar.

    ``kept=True``: the chart stays on the page and takes each new figure in place
    (``ui.live.kept_chart``: ``Plotly.react`` on the same plot), where Streamlit's chart is
    built and drawn anew. Used where the benchmark showed a gain (bench/controls_report.md,
    round 9: the Set Transformer's pooling chart, p50 1.22-1.38 → 1.04-1.09 × the bare
    app's). A figure with frames (a scrub) keeps them. ``move=True`` (with ``kept``): a new
    figure that differs only in its traces' points (and its frames and frame slider's steps),
    on fixed axes, is drawn by moving them (round 13: the reverse scrub, whose redraw is
    long; a small chart's redraw is quicker than a move, which waits for the next frame:
    Wallis' integrals, p50 +12 ms), and one that differs only in its images' sources has
    its pictures swapped (round 14: the forward scrub's seed and image); pictures from
    sources move with the traces too (round 17: the forward scrub's T).

    A second chart in the same run waits like a formula does, so the browser draws the
    charts one by one, the first (the one the slider is about) first. A kept chart whose
    payload is the one the browser already shows has nothing to draw, and what follows it
    does not wait (:func:`payload_sent`).

    The figure gets a fixed ``layout.datarevision``. Streamlit draws a changed figure as a
    new chart, then hands Plotly a JSON copy of the same figure once more with its measured
    width (``ui.streamlit_internals``, "PlotlyChart"). Without a revision, Plotly takes every
    copied array for new data and computes and draws the whole chart again; with one, it
    only lays the chart out at the new width. The reverse field's second draw went from
    77 to 15 ms (``bench/controls_report.md``, round 7). A chart's data never changes in
    place (a new figure is a new chart), so a constant is exact. A template object (a
    validated ``go.Figure(layout=...)``) still made Plotly compute the chart on both passes,
    so the figure goes out through :func:`figures.style.ours`, which names the "none"
    template instead. Scatter data sent as typed arrays still does it (Wallis' product);
    lists cost bytes for no measured gain (bench/controls_report.md, round 11).

    ``memo`` (with ``kept``; ``fig`` then a function that builds the figure): what the figure
    depends on besides the language, hashable. The chart's payload is kept per ``key``,
    ``memo`` and language in a cache every session shares (``ui.live.kept_chart``), so a
    setting any student has seen is sent without building the figure or encoding it again;
    "data & export" builds the figure when it is opened. Round 19: the reverse scrub, whose
    figure and payload took two thirds of an η step's server time; 30 sessions on η, rerun
    p50 / p95 180 / 913 → 46 / 88 ms (bench/controls_report.md).
    """
    if move and not kept:
        raise ValueError(f"{key}: only a kept chart moves to a new figure (kept=True)")
    if (memo is not None) != callable(fig):
        raise ValueError(f"{key}: a chart with a memo is given as a function, and only then")
    if memo is not None and not kept:
        raise ValueError(f"{key}: only a kept chart is cached by its memo (kept=True)")
    let_the_chart_go_first()
    if kept:
        from ui import live  # ui.live builds on this module

        payload = live.kept_chart(fig, key, move=move, memo=memo)
    else:
        assert isinstance(fig, go.Figure)
        fig.layout.datarevision = DATA_REVISION
        sent = style.ours(fig)  # the "none" template by name (see above)
        st.plotly_chart(sent, key=key, width="stretch", config=PLOTLY_CONFIG, theme=None)
    _figures()[key] = fig  # a reference (or its builder), read only when the reader exports
    if kept:
        payload_sent(key, payload)
    else:
        chart_sent()


def chart_sent() -> None:
    """Mark a chart as just sent: what follows lets it go first (:func:`let_the_chart_go_first`)."""
    st.session_state[_LAST_CHART] = time.monotonic()


def payload_sent(key: str, payload: bytes) -> None:
    """:func:`chart_sent`, unless the browser already shows this payload under ``key``.

    A control that does not change the chart (the reverse sampler from DDIM with η = 0 to
    Euler, whose steps are the same) re-sends the same element, which the browser does not
    draw again; what follows it (the controls, the formula) then need not wait. Shown means
    sent in this full run of the page or the fragment runs since, or in the full run before:
    a chart the last full run did not draw (another view's) is drawn anew, and waited for.
    A fragment that returned before drawing a chart it drew once is taken to show it still:
    the only cost of that guess is a formula drawn in the chart's pass.
    """
    digest = hashlib.blake2b(payload, digest_size=16).digest()
    shown = st.session_state.setdefault(_SHOWN, {})
    before = shown.get(key, st.session_state.get(_SHOWN_BEFORE, {}).get(key))
    shown[key] = digest
    if digest != before:
        chart_sent()


def keep_chart(fig: go.Figure | Callable[[], go.Figure], key: str) -> None:
    """Keep a chart drawn by something else than :func:`chart` (``ui.live``) for "data &
    export" and the handout, as :func:`chart` does; or, after :func:`chart`, the figure to
    export in place of the one drawn (its builder: built only when exported), where the
    drawn one carries its data as pictures (the reverse field)."""
    _figures()[key] = fig


@dataclass(frozen=True)
class Check:
    """An invariant checked live: ``label`` shown with ✓ when ``ok`` else ✗ and ``detail``."""

    label: str
    ok: bool
    detail: str = ""


def _badge_line(checks: Sequence[Check]) -> str:
    parts = []
    for c in checks:
        text = f"{c.label}{' — ' + c.detail if c.detail else ''}"
        text = text.replace("[", "\\[").replace("]", "\\]")  # brackets would end the badge
        parts.append(f":green-badge[✓ {text}]" if c.ok else f":red-badge[✗ {text}]")
    return "&nbsp; ".join(parts)


def let_the_chart_go_first() -> None:
    """Let the last chart sent be at least ``CHART_HEAD_START_SECS`` ahead of what follows.

    The browser renders whatever messages it has received in one pass, and typesetting a
    formula with KaTeX happens in that pass, before Plotly redraws the chart; a second chart
    received in the same pass is drawn with it. Sent together, they delay the chart the
    slider is about (bench/latency, softmax: chart drawn 34 ms p50 / 53 ms p95 after its
    message; with the formula 30 ms later: 22 / 35 ms; Set Transformer with three charts:
    52 → 27 ms p50). Sleeping releases the GIL: other sessions run meanwhile. :func:`chart`,
    :func:`table` and :func:`formula` call it; a page calls it before other elements that
    would follow a chart at once (its own widgets, a caption).
    """
    sent = st.session_state.get(_LAST_CHART)
    wait = 0.0 if sent is None else sent + CHART_HEAD_START_SECS - time.monotonic()
    if wait > 0:
        time.sleep(wait)


V = TypeVar("V")


@contextmanager
def controls_after_the_chart(controls: Callable[[bool], V]) -> Iterator[V]:
    """Controls shown above a chart and sent after it: their values now, their widgets at
    the end of the ``with`` block.

    ``controls(widgets)`` draws a part's controls and returns their values; with
    ``widgets=False`` it only reads them (``Page.slider(..., widget=False)`` and the like,
    seeded from the URL and clamped as the widgets will be) and draws nothing. The block
    gets the values and draws the chart; the widgets are then drawn in a place kept above it,
    after :func:`let_the_chart_go_first`, whatever the block did (returned early or failed).
    Sent before the chart, the widgets were rendered again in the chart's pass in the
    browser: the reverse sampling view's four controls, p50 127–151 → 93–108 ms at 100 steps
    (the p95 within this machine's noise; bench/controls_report.md, round 20). The widgets
    must return the values read: else an error, never a chart of other settings.
    """
    place = st.container()
    values = controls(False)
    try:
        yield values
    finally:
        let_the_chart_go_first()
        with place:
            drawn = controls(True)
    # reached only when the block ended without an exception (one leaves after finally)
    if drawn != values:
        raise RuntimeError(f"controls read as {values!r} were drawn as {drawn!r}")


def columns(spec: int | Sequence[float], widgets: bool = True) -> Sequence[AbstractContextManager]:
    """``st.columns(spec)`` for a row of controls; with ``widgets=False`` (the controls only
    read, :func:`controls_after_the_chart`) as many places that draw nothing."""
    if widgets:
        return st.columns(spec)
    return (nullcontext(),) * (spec if isinstance(spec, int) else len(spec))


def table(data: Any, key: str, **kw: Any) -> None:
    """A table (``st.dataframe``, keyed ``key``) that lets the chart before it go first, as a
    formula does (:func:`let_the_chart_go_first`).

    Sent with the chart, the table's grid was drawn in the same pass, before Plotly redrew
    the chart: the attention gallery's ranking, under its Pareto chart, made six controls of
    that view 1.18–1.38 × the bare app at p50; waiting, 0.92–1.28 (A/B at 14 steps,
    bench/controls_report.md, round 12)."""
    let_the_chart_go_first()
    st.dataframe(data, key=key, **kw)


def formula(
    latex: str,
    checks: Sequence[Check] = (),
    caption: str | None = None,
    badges_shown: bool = True,
    printed: bool = True,
) -> None:
    """The formula with today's numbers, and the invariant badges under it.

    One Markdown element (KaTeX display math + badges): every element a slider step
    re-renders costs browser time, so the formula and its checks travel together.
    ``badges_shown=False``: a live control (``ui.live``) draws these badges with its state,
    following the slider in the browser; they still go to the handout. ``printed=False``: a
    formula kept on the page but hidden (:func:`show_only`) does not go to the handout.
    """
    let_the_chart_go_first()
    body = f"$$\n{latex}\n$$"
    if caption:
        body += f"\n\n*{caption}*"
    if checks and badges_shown:
        body += "\n\n" + _badge_line(checks)
    st.markdown(body)
    if not printed:
        return
    # kept for the handout under a name that a slider step does not change (digits dropped)
    shape = re.sub(r"[-+\d.,]+", "", latex)[:160]
    badges = tuple(handout.Badge(c.label, c.ok, c.detail) for c in checks)
    _formulas()[shape] = handout.Formula(latex, badges, caption or "")


def show_only(keys: Sequence[str], shown: str) -> None:
    """Of the keyed containers ``keys`` (``st.container(key=...)``), show ``shown`` only.

    A control that picks one of a few parts (the reverse sampler's formula) can keep them
    all on the page, each drawn from its own settings, and a step then changes this style
    alone: an element that does not change is not rendered again in the browser. One
    style-only ``st.html``, which Streamlit sends to its event container, so it takes no
    place among the page's elements. Hidden by ``display: none``: out of the layout, the
    reading order and the accessibility tree alike.
    """
    if shown not in keys:
        raise ValueError(f"{shown!r} is not one of {keys!r}")
    hidden = ", ".join(
        f'[data-testid="stLayoutWrapper"]:has(> .st-key-{k}), .st-key-{k}'
        for k in keys
        if k != shown
    )
    st.html(f"<style data-adlab-show-only>{hidden} {{ display: none; }}</style>")


def badges(checks: Sequence[Check]) -> None:
    """Invariant badges in one row: green ✓ when the invariant holds, red ✗ when not."""
    st.markdown(_badge_line(checks))


_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+", re.MULTILINE)


def try_steps(concept: str) -> list[str]:
    """The "try this" prompts one by one (the items of the section's Markdown list)."""
    text = content(concept, "try")
    items = [item.strip() for item in _ITEM.split(text) if item.strip()]
    return items or [text]


def try_this(concept: str) -> None:
    """The page's "try this" prompts; in presenter mode one at a time, stepped by keyboard.

    A presentation clicker sends PageDown / PageUp: those are the step shortcuts.
    """
    state.flush()
    with st.container(border=True):
        st.markdown(f"**{t('kit.try_this')}**")
        if not presenting():
            st.markdown(content(concept, "try"))
            return
        steps = try_steps(concept)
        key = f"{concept}_step"
        k = min(state.hidden_int(key, 1, 99, lambda: 1), len(steps))
        state.show_notices()

        def go_to(step: int) -> None:
            st.session_state[key] = min(max(step, 1), len(steps))

        st.markdown(f"**{t('kit.step', k=k, n=len(steps))}** — {steps[k - 1]}")
        back, forward = st.columns(2)
        back.button(
            t("kit.previous"),
            key=f"{key}_back",
            on_click=go_to,
            args=(k - 1,),
            disabled=k == 1,
            shortcut="PageUp",
            icon=":material/arrow_back:",
            width="stretch",
        )
        forward.button(
            t("kit.next"),
            key=f"{key}_next",
            on_click=go_to,
            args=(k + 1,),
            disabled=k == len(steps),
            shortcut="PageDown",
            icon=":material/arrow_forward:",
            width="stretch",
        )
        state.flush()


@dataclass(frozen=True)
class Exercise:
    """A predict-then-reveal question, made from a seed so every student gets their own.

    Attributes:
        question: Markdown in plain Unicode (no ``$``).
        answer: the right answer; one of ``options`` when those are given.
        options: the choices of a multiple-choice question (empty: a number is asked).
        tolerance: a numeric guess within this of ``answer`` counts as right.
        explanation: how to get the answer, shown on reveal.
    """

    question: str
    answer: float | str
    options: tuple[str, ...] = ()
    tolerance: float = 0.0
    explanation: str = ""

    def is_right(self, guess: float | str | None) -> bool:
        """Whether ``guess`` answers the question."""
        if guess is None:
            return False
        if self.options:
            return guess == self.answer
        slack = self.tolerance + 1e-9 * max(1.0, abs(float(self.answer)))
        return abs(float(guess) - float(self.answer)) <= slack


def _format_answer(answer: float | str) -> str:
    return answer if isinstance(answer, str) else f"{answer:.6g}".replace("-", "−")


def exercise(concept: str, make: Callable[[np.random.Generator], Exercise]) -> None:
    """The page's exercise: predict, check yourself, then reveal (lazy expander).

    ``make(rng)`` draws the question's parameters from ``rng``; its seed lives in the URL
    (``?<concept>_ex=``), fresh per student unless the link pins one.
    """
    key = f"{concept}_ex"
    seed = state.hidden_int(key, 0, SEED_MAX, lambda: secrets.randbelow(SEED_MAX + 1))
    state.show_notices()
    box = st.expander(
        t("kit.exercise"),
        key=f"{key}_box",
        on_change="rerun",
        icon=":material/quiz:",
        expanded=presenting(),
    )
    if not box.open:
        state.flush()
        return
    ex = make(np.random.default_rng(seed))
    done = st.session_state.setdefault(f"{key}_done", {})  # seed -> "checked" / "revealed"

    def new_question() -> None:
        st.session_state[key] = secrets.randbelow(SEED_MAX + 1)

    with box:
        st.caption(t("kit.exercise_how", seed=seed))
        st.markdown(ex.question)
        if ex.options:
            guess = st.radio(
                t("kit.your_answer"),
                ex.options,
                index=None,
                horizontal=True,
                key=f"{key}_guess_{seed}",
            )
        else:
            guess = st.number_input(
                t("kit.your_answer"), value=None, format="%g", key=f"{key}_guess_{seed}"
            )
        check, reveal, again = st.columns(3)
        if check.button(
            t("kit.check"),
            key=f"{key}_check",
            icon=":material/check:",
            width="stretch",
            disabled=guess is None,
        ):
            done[seed] = done.get(seed, "checked")
        if reveal.button(
            t("kit.reveal"), key=f"{key}_reveal", icon=":material/visibility:", width="stretch"
        ):
            done[seed] = "revealed"
        again.button(
            t("kit.new_question"),
            key=f"{key}_new",
            icon=":material/casino:",
            width="stretch",
            on_click=new_question,
        )
        if done.get(seed) and guess is not None:
            if ex.is_right(guess):
                st.success(t("kit.right"), icon=":material/check_circle:")
            else:
                st.warning(t("kit.not_quite"), icon=":material/help:")
        if done.get(seed) == "revealed":
            st.info(
                f"**{t('kit.answer', answer=_format_answer(ex.answer))}**"
                + (f"\n\n{ex.explanation}" if ex.explanation else "")
            )
    state.flush()


@lru_cache(maxsize=128)
def _source(fn: Callable[..., Any]) -> str:
    return inspect.getsource(fn)


def show_code(concept: str, *functions: Callable[..., Any]) -> None:
    """An expander with the tested source of the core functions this page calls.

    Lazy: the (long, syntax-highlighted) source is only sent while the expander is open,
    because the browser re-renders it on every slider step otherwise.
    """
    box = st.expander(
        t("kit.show_code"), key=f"{concept}_code", on_change="rerun", icon=":material/code:"
    )
    if box.open:
        with box:
            for fn in functions:
                st.caption(f"`{fn.__module__}.{fn.__qualname__}`")
                st.code(_source(fn), language="python")
    data_and_export(concept)


def view_link(concept: str | None) -> str:
    """The address of this exact view: this page with every control's value as parameters."""
    base = urlsplit(st.context.url or "http://localhost:8501")
    path = (state.app_root() + (concept or "")).rstrip("/") or "/"
    query = urlencode(sorted(state.snapshot().items()))
    return f"{base.scheme}://{base.netloc}{path}" + (f"?{query}" if query else "")


def view_state(concept: str | None) -> Callable[[], str]:
    """The page state as JSON, made when called: page, language and every control's value.

    Call it in the script run; the returned function may run later on another thread
    (a download) and then reads the values the controls have at that moment.
    """
    params, live, lang = state.snapshot(), state.live(), current_lang()
    prefix = f"{concept}_"

    def dump() -> str:
        now = dict(params)
        now.update({k: v for k, v in list(live.items()) if k.startswith(prefix)})
        view = {"page": concept or "home", "lang": lang, "params": dict(sorted(now.items()))}
        return json.dumps(view, indent=2, ensure_ascii=False)

    return dump


def view_handout(concept: str) -> Callable[[], str]:
    """This view as one offline HTML file, made when called (see :func:`view_state`)."""
    title, intro_text = t(f"{concept}.title"), content(concept, "intro")
    link, lang = view_link(concept), current_lang()
    figures, formulas = _figures(), _formulas()

    def make() -> str:
        charts = [(_figure_title(fig, key), fig) for key, fig in _built(figures).items()]
        return handout.handout(title, intro_text, link, charts, list(formulas.values()), lang=lang)

    return make


def data_and_export(concept: str) -> None:
    """A lazy expander: every chart's data as CSV, a table for every heatmap, the state as JSON.

    The downloads are made when clicked, from the charts as they are then (a slider step
    in a fragment updates them), so nothing is computed or sent on a slider step.
    """
    box = st.expander(
        t("kit.data"), key=f"{concept}_data", on_change="rerun", icon=":material/table:"
    )
    if not box.open:
        return
    figures = _built(_figures())
    with box:
        st.caption(t("kit.data_how"))
        json_col, handout_col = st.columns(2)
        json_col.download_button(
            t("kit.state_json"),
            file_name=f"{concept}-view.json",
            data=view_state(concept),
            mime="application/json",
            icon=":material/data_object:",
            on_click="ignore",
            key=f"{concept}_json",
        )
        handout_col.download_button(
            t("kit.handout"),
            file_name=f"{concept}-handout.html",
            data=view_handout(concept),
            mime="text/html",
            icon=":material/print:",
            on_click="ignore",
            help=t("kit.handout_help"),
            key=f"{concept}_handout",
        )
        for key in list(figures):
            title = _figure_title(figures[key], key)
            st.markdown(f"**{title}**")
            csv_col, html_col = st.columns(2)
            html_col.download_button(
                t("kit.figure_html"),
                file_name=f"{key}.html",
                mime="text/html",
                on_click="ignore",
                data=lambda k=key, n=title: handout.standalone_chart(figures[k], n),
                help=t("kit.figure_html_help"),
                icon=":material/open_in_new:",
                key=f"{key}_html",
            )
            if not has_data(figures[key]):
                continue  # a picture: no table
            csv_col.download_button(
                t("kit.figure_csv"),
                file_name=f"{key}.csv",
                mime="text/csv",
                data=lambda k=key: figure_csv(figures[k]),
                on_click="ignore",
                icon=":material/download:",
                key=f"{key}_csv",
            )
            for table in heatmap_tables(figures[key]):
                st.caption(t("kit.table_of", name=table.title))
                st.dataframe(_frame(table), height=min(400, 38 + 35 * len(table.rows)))


def _figure_title(fig: go.Figure, key: str) -> str:
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else None
    if title is None and fig.layout.annotations:
        title = " · ".join(a.text for a in fig.layout.annotations if a.text)[:120] or None
    return re.sub(r"<[^>]+>", "", title) if title else key


def _frame(table: Any) -> Any:
    import pandas as pd  # Streamlit's own dependency; only needed when a table is shown

    return pd.DataFrame(table.values, index=table.rows, columns=table.columns)


def derivation(concept: str, section: str) -> None:
    """A derivation the course works through step by step, in a lazy expander.

    Its title is the string ``<concept>.<section>_title`` and its body the explanation's
    section ``<section>``; sent only while open, so it costs a slider step nothing.
    """
    box = st.expander(
        t(f"{concept}.{section}_title"),
        key=f"{concept}_{section}",
        on_change="rerun",
        icon=":material/functions:",
    )
    if box.open:
        with box:
            st.markdown(content(concept, section))


@contextmanager
def guard() -> Iterator[None]:
    """Turn a ``ValueError`` from ``core`` into ``st.error`` and let the page go on.

    >>> with guard():                       # doctest: +SKIP
    ...     probs = softmax(parse_logits(text), T)
    """
    try:
        yield
    except ValueError as err:
        st.error(t("kit.error", message=error_message(err)), icon=":material/error:")


def error_message(err: ValueError) -> str:
    """``err`` in the page's language: ``errors.<code>`` for a :class:`CoreError`, else its text."""
    if isinstance(err, CoreError) and f"errors.{err.code}" in strings("en"):
        try:
            return t(f"errors.{err.code}", **err.params)
        except (KeyError, IndexError, ValueError):  # a translation with a wrong placeholder
            return str(err)
    return str(err)


# ---- the declarative page ----------------------------------------------------------------

Part = Callable[[], None]


class Page:
    """One concept's page: what it shows, declared once; :meth:`run` draws the skeleton.

    The concept id names everything else: the strings ``<concept>.<name>`` (title, view
    names ``tab_<view>``, control labels), the explanation ``assets/content/<lang>/
    <concept>.md`` (section ``intro``, one section per view if it has one, ``try``), the
    formula templates ``assets/formulas/<concept>.tex`` and the widget keys
    ``<concept>_<name>`` that the URL carries.

    >>> page = Page("wallis", views=("product", "integrals"), exercise=make_question,
    ...             code=(w.wallis_partial_products,))        # doctest: +SKIP
    >>> @page.view("product")                                 # doctest: +SKIP
    ... @fragment
    ... def product() -> None:
    ...     n = page.select_slider("n", N_VALUES, 10)
    ...     page.chart(figs.product_figure(...), "chart")
    ...     page.formula("product", checks=[...], n=n, ...)
    >>> page.run()                                            # doctest: +SKIP

    Attributes:
        concept: the page's id (a registered ``ui.registry`` slug).
        views: the parts a student picks between (empty: one part, no picker).
        current_view: the view being drawn (set by :meth:`run`).
    """

    def __init__(
        self,
        concept: str,
        *,
        views: Sequence[str] = (),
        default_view: str | None = None,
        exercise: Callable[[np.random.Generator], Exercise] | None = None,
        code: Sequence[Callable[..., Any]] = (),
    ) -> None:
        self.concept = concept
        self.views = tuple(views)
        self.default_view = default_view or (self.views[0] if self.views else "")
        self.exercise = exercise
        self.code = tuple(code)
        self.current_view = self.default_view
        self._parts: dict[str, Part] = {}

    # -- names ---------------------------------------------------------------------------

    def tr(self, name: str, **values: Any) -> str:
        """The page's string ``<concept>.<name>`` in the session's language."""
        return tr(f"{self.concept}.{name}", **values)

    def key(self, name: str) -> str:
        """The widget or chart key ``<concept>_<name>`` (also the URL parameter)."""
        return f"{self.concept}_{name}"

    # -- declaring the parts -------------------------------------------------------------

    def view(self, *names: str) -> Callable[[Part], Part]:
        """Register a function that draws the named views (none named: the only part)."""

        def register(part: Part) -> Part:
            for name in names or ("",):
                self._parts[name] = part
            return part

        return register

    # -- controls whose value lives in the URL: label <concept>.<name>, key <concept>_<name>
    #    (``key=`` overrides the widget key, for a control whose URL name predates the kit)

    def slider(
        self, name: str, lo: float, hi: float, default: float, *, key: str | None = None, **kw: Any
    ) -> Any:
        return state.slider(self.tr(name), key or self.key(name), lo, hi, default, **kw)

    def select_slider(
        self,
        name: str,
        options: Sequence[float],
        default: float,
        *,
        key: str | None = None,
        **kw: Any,
    ) -> Any:
        return state.select_slider(self.tr(name), key or self.key(name), options, default, **kw)

    def number(
        self, name: str, lo: int, hi: int, default: int, *, key: str | None = None, **kw: Any
    ) -> int:
        return state.number(self.tr(name), key or self.key(name), lo, hi, default, **kw)

    def seed(self, default: int = 0, hi: int = SEEDS[-1], *, widget: bool = True) -> int:
        """The page's seed (``<concept>_seed``): the same seed draws the same example."""
        return state.number(
            t("kit.seed"),
            self.key("seed"),
            SEEDS[0],
            hi,
            default,
            widget=widget,
            help=t("kit.seed_help"),
        )

    def choice(
        self, name: str, options: Sequence[str], default: str, *, key: str | None = None, **kw: Any
    ) -> str:
        """A radio over ``options``, each shown as the string ``<concept>.<name>_<option>``."""
        kw.setdefault("format_func", lambda o: self.tr(f"{name}_{o}"))
        return state.choice(self.tr(name), key or self.key(name), options, default, **kw)

    def selectbox(
        self, name: str, options: Sequence[str], default: str, *, key: str | None = None, **kw: Any
    ) -> str:
        kw.setdefault("format_func", lambda o: self.tr(f"{name}_{o}"))
        return state.selectbox(self.tr(name), key or self.key(name), options, default, **kw)

    def toggle(self, name: str, default: bool, *, key: str | None = None, **kw: Any) -> bool:
        return state.toggle(self.tr(name), key or self.key(name), default, **kw)

    def text(self, name: str, default: str, *, key: str | None = None, **kw: Any) -> str:
        return state.text(self.tr(name), key or self.key(name), default, **kw)

    # -- output ----------------------------------------------------------------------------

    def chart(
        self,
        fig: go.Figure | Callable[[], go.Figure],
        name: str,
        *,
        kept: bool = False,
        move: bool = False,
        memo: Hashable = None,
    ) -> None:
        """:func:`chart` with the key ``<concept>_<name>``."""
        chart(fig, self.key(name), kept=kept, move=move, memo=memo)

    def table(self, data: Any, name: str, **kw: Any) -> None:
        """:func:`table` with the key ``<concept>_<name>``."""
        table(data, self.key(name), **kw)

    def formula(
        self,
        name: str,
        checks: Sequence[Check] = (),
        caption: str | None = None,
        badges_shown: bool = True,
        **values: Any,
    ) -> None:
        """Template ``name`` of ``assets/formulas/<concept>.tex`` with ``values``, and badges."""
        formula(self.latex(name, **values), checks, caption, badges_shown)

    def latex(self, name: str, **values: Any) -> str:
        """Template ``name`` of ``assets/formulas/<concept>.tex`` with ``values``, as TeX."""
        return formulas.render(self.concept, name, **values)

    def explain(self, section: str) -> None:
        """A section of the concept's explanation."""
        explain(self.concept, section)

    def derivation(self, section: str) -> None:
        """A step-by-step derivation in a lazy expander (see :func:`derivation`)."""
        derivation(self.concept, section)

    # -- the skeleton ----------------------------------------------------------------------

    def run(self) -> None:
        """Draw the page: intro, view picker, the view's explanation and part, try this,
        exercise, show the code. A ``ValueError`` from ``core`` becomes ``st.error``.

        The part is a fragment (:func:`fragment`): a control of the part outside its live
        fragments (a seed, a sentence, a size every view shares) reruns the part only, not
        the intro, the explanation, "try this", the exercise and the code (bench/controls,
        see README). The view picker reruns the page: a view brings widgets back that the
        last view did not draw, and Streamlit 1.67 shows such a widget empty when a fragment
        rerun re-creates it (tests/browser: the sentence on the attention-maps page).
        No guess at a student's next step starts while it runs (``ui.prefetch``).
        """
        require_entrypoint()
        with prefetch.foreground():
            self._draw()

    def _draw(self) -> None:
        intro(self.concept)
        if self.views:
            self.current_view = state.choice(
                self.tr("view"),
                self.key("view"),
                self.views,
                self.default_view,
                format_func=lambda v: self.tr(f"tab_{v}"),
            )
            if has_section(self.concept, self.current_view):
                explain(self.concept, self.current_view)
        part = self._parts.get(self.current_view) or self._parts.get("")
        if part is None:
            raise KeyError(f"{self.concept}: no part registered for view '{self.current_view}'")
        fragment(part)()
        state.show_notices()
        try_this(self.concept)
        if self.exercise is not None:
            exercise(self.concept, self.exercise)
        show_code(self.concept, *self.code)
