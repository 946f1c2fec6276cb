"""AppTest helpers: run the real app.py (st.navigation) and switch to a page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest, app_test

from ui import live, state

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def open_page(page: str | None, query: dict[str, str] | None = None) -> AppTest:
    """AppTest of app.py, switched to ``pages/<page>`` (home when ``page`` is None)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update(query or {})
    at.run()
    if page is not None:
        at.switch_page(f"pages/{page}").run()
    return at


def url(at: AppTest) -> dict:
    """The address bar after the run, as the browser writes it: the link's parameters
    (``at.query_params``: the server never writes them), then each of the page's writes
    (``ui.state.url_script``) in the order they were made."""
    writes = sorted(filter(None, (state.url_values(e.proto.body) for e in at.get("html"))))
    out = dict(at.query_params)
    for _, values in writes:
        out.update(values)
    return out


def first_at(node, kind: str, at: tuple[int, ...] = ()) -> tuple[int, ...] | None:
    """Where the first element of ``kind`` is in the page: its path of child indices (a
    row drawn above a chart has a smaller path than the chart's)."""
    if node.type == kind:
        return at
    inner = getattr(node, "children", {})  # a block; an element has none
    found = (first_at(inner[i], kind, (*at, i)) for i in sorted(inner))
    return next((f for f in found if f is not None), None)


def _live_payloads(at: AppTest) -> list[dict]:
    """The data of every ``ui.live`` element on the page (live controls and kept charts)."""
    return [
        live.read(e.proto.bytes)  # ui.live.wire: JSON bytes, read as the browser does
        for e in at.get("bidi_component")
        if e.proto.component_name == "adlab.live"
    ]


def live_controls(at: AppTest) -> list[dict]:
    """The data of each live control (``ui.live``) on the page, as the browser gets it; a
    kept chart (``kit.chart(..., kept=True)``, the same element with one state) is not one."""
    return [data for data in _live_payloads(at) if not data.get("kept")]


def kept_charts(at: AppTest) -> dict[str, dict]:
    """Each kept chart's data (``kit.chart(..., kept=True)``) by its chart key, as the
    browser gets it (``skeleton`` and ``movable`` with ``move=True``)."""
    return {d["chartKey"]: d for d in _live_payloads(at) if d.get("kept")}


def chart_specs(at: AppTest) -> dict[str, dict]:
    """Each chart on the page by its key, as the browser gets its figure (data, layout and
    any frames): a ``st.plotly_chart``'s spec, or a kept chart's (``ui.live.kept_chart``)."""
    out = {e.proto.id.rsplit("-", 1)[-1]: json.loads(e.proto.spec) for e in at.get("plotly_chart")}
    out |= {
        d["chartKey"]: d["figure"] | ({"frames": d["frames"]} if "frames" in d else {})
        for d in _live_payloads(at)
        if d.get("kept")
    }
    return out


def live_states(at: AppTest) -> dict:
    """A live control's states (``ui.live``) by value: what the browser draws at each, its
    numbers and badges as HTML (``"html"``); ``{}`` when the page shows no live control."""
    return {s["value"]: s for data in live_controls(at) for s in data["states"]}


def latex(at: AppTest) -> str:
    """The page's display formulas that a student sees (``kit.formula`` draws them as
    ``$$...$$`` Markdown; not those kept hidden by ``kit.show_only``)."""
    shown_markdown = shown(at.main, hidden_keys(at), "markdown")
    return "\n".join(m.value for m in shown_markdown if m.value.startswith("$$"))


def hidden_keys(at: AppTest) -> set[str]:
    """The keys of the containers that ``kit.show_only`` hides (by its style's selectors)."""
    return {
        key
        for e in at._tree
        if getattr(e, "type", "") == "html" and "data-adlab-show-only" in e.value
        for key in re.findall(r"\.st-key-([\w-]+)", e.value)
    }


def shown(node, hidden: set[str], kind: str):
    """The elements of ``kind`` under ``node``, in page order, outside the ``hidden`` containers."""
    if getattr(node, "key", None) in hidden and hasattr(node, "children"):
        return
    if getattr(node, "type", "") == kind:
        yield node
    for child in getattr(node, "children", {}).values():
        yield from shown(child, hidden, kind)


@pytest.fixture
def page_app():
    return open_page


@pytest.fixture(autouse=True)
def served(monkeypatch):
    """Run AppTest the way a running server runs the app: in ``st.navigation`` mode.

    AppTest resets ``PagesManager.uses_pages_directory`` before every run, so each run
    would first execute the page alone and ``ui.boot.require_entrypoint`` would rerun it
    through app.py — and that second execution no longer sees a button's click. A real
    server flips the flag once per process, at its first page view.
    """

    class NavigationMode(app_test.PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    monkeypatch.setattr(app_test, "PagesManager", NavigationMode)
