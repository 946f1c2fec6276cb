"""The page kit: the parts of DESIGN.md's page contract, in the order a page uses them.

    intro -> controls -> figures -> formula -> badges -> try this -> show the code

Pages call these instead of arranging Streamlit elements themselves, so every page looks
and behaves the same (and later features such as presenter mode land here once).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from ui import state
from ui.i18n import content, t

PLOTLY_CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2},
    "modeBarButtonsToRemove": ["lasso2d", "select2d"],
}


def intro(concept: str) -> None:
    """The page title and its one-paragraph "what you are looking at"."""
    st.title(t(f"{concept}.title"))
    st.markdown(content(concept, "intro"))


def explain(concept: str, section: str) -> None:
    """A named section of the concept's long explanation."""
    st.markdown(content(concept, section))


def chart(fig: go.Figure, key: str) -> None:
    """A Plotly figure, full width, with the app's offline-friendly toolbar."""
    st.plotly_chart(fig, key=key, width="stretch", config=PLOTLY_CONFIG, theme=None)
    state.flush()  # after the chart: the URL update re-renders the page (see ui/state.py)


@dataclass(frozen=True)
class Check:
    """An invariant checked live: ``label`` shown with ✓ when ``ok`` else ✗ and ``detail``."""

    label: str
    ok: bool
    detail: str = ""


def _badge_line(checks: Sequence[Check]) -> str:
    parts = []
    for c in checks:
        text = f"{c.label}{' — ' + c.detail if c.detail else ''}".replace("]", "\\]")
        parts.append(f":green-badge[✓ {text}]" if c.ok else f":red-badge[✗ {text}]")
    return "&nbsp; ".join(parts)


def formula(latex: str, checks: Sequence[Check] = (), caption: str | None = None) -> None:
    """The formula with today's numbers, and the invariant badges under it.

    One Markdown element (KaTeX display math + badges): every element a slider step
    re-renders costs browser time, so the formula and its checks travel together.
    """
    body = f"$$\n{latex}\n$$"
    if caption:
        body += f"\n\n*{caption}*"
    if checks:
        body += "\n\n" + _badge_line(checks)
    st.markdown(body)
    state.flush()


def badges(checks: Sequence[Check]) -> None:
    """Invariant badges in one row: green ✓ when the invariant holds, red ✗ when not."""
    st.markdown(_badge_line(checks))


def try_this(concept: str) -> None:
    """The page's "try this" prompts."""
    state.flush()
    with st.container(border=True):
        st.markdown(f"**{t('kit.try_this')}**")
        st.markdown(content(concept, "try"))


@lru_cache(maxsize=128)
def _source(fn: Callable[..., Any]) -> str:
    return inspect.getsource(fn)


def show_code(concept: str, *functions: Callable[..., Any]) -> None:
    """An expander with the tested source of the core functions this page calls.

    Lazy: the (long, syntax-highlighted) source is only sent while the expander is open,
    because the browser re-renders it on every slider step otherwise.
    """
    box = st.expander(t("kit.show_code"), key=f"{concept}_code", on_change="rerun")
    if box.open:
        with box:
            for fn in functions:
                st.caption(f"`{fn.__module__}.{fn.__qualname__}`")
                st.code(_source(fn), language="python")


@contextmanager
def guard() -> Iterator[None]:
    """Turn a ``ValueError`` from ``core`` into ``st.error`` and let the page go on.

    >>> with guard():                       # doctest: +SKIP
    ...     probs = softmax(parse_logits(text), T)
    """
    try:
        yield
    except ValueError as err:
        st.error(t("kit.error", message=str(err)), icon=":material/error:")
