"""Widgets whose value lives in the URL, so a teacher can share an exact view.

Each wrapper (1) seeds ``st.session_state[key]`` from ``?key=...`` the first time the page
runs in a session (a bad or stale value falls back to the default, with a short notice),
(2) draws the widget by ``key`` only, and (3) queues the value for the address bar.

:func:`flush` writes the queue to the address bar in one step. The page kit calls it at the
end of each live part (``kit.fragment``) and ``app.py`` at the end of the page. It writes in
the browser (``history.replaceState``, :func:`url_script`), not through ``st.query_params``:
a server-side write is a message on which Streamlit's app re-renders the whole page and
pushes a browser history entry, on every step of every control (bench/controls_report.md,
round 32). So the server's ``st.query_params`` stays the link the session started from; the
values this session wrote are :func:`live`, which seeding reads first.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

from ui.i18n import t

V = TypeVar("V")
_NOTICES = "_url_state_notices"
_PENDING = "_url_state_pending"
_LIVE = "_url_state_live"
_SHAPES = "_url_state_shapes"
_HERE = "_url_state_here"  # (page, the values written since it was opened)
_WRITES = "_url_state_writes"  # (session token, writes so far): the browser keeps the newest
URL_QUEUE = "__adlabUrlQueue"  # the page's queue of writes (window.<name>), drained by:
URL_RUN = "__adlabUrlRun"  # ui.a11y's function, installed by every page run
# a write's script around its JSON (url_script writes it, url_values reads it)
_URL_OPEN = f"<script data-adlab-url>(window.{URL_QUEUE} = window.{URL_QUEUE} || []).push("
_URL_CLOSE = f"); window.{URL_RUN} && window.{URL_RUN}();</script>"


def _seed(key: str, default: V, decode: Callable[[str], V], param: str | None = None) -> None:
    """Seed ``st.session_state[key]`` from ``?<param>=`` (``param`` defaults to ``key``)."""
    if key in st.session_state:
        return
    param = param or key
    raw = live().get(param, st.query_params.get(param))  # this session's last, else the link's
    value = default
    if raw is not None:
        try:
            value = decode(raw)
        except (ValueError, TypeError):
            st.session_state.setdefault(_NOTICES, []).append(param)
    st.session_state[key] = value


def _keep(key: str, *shape: Any) -> None:
    """Keep a widget's value when it is drawn with another label, range or options.

    Streamlit 1.67 gives such a widget a new identity, and the new widget starts from its
    default (a slider's minimum, a select-slider's first option) unless its value was set
    through Session State in that run: the lambda-layers page's column went to 0 when a new
    image side changed the sliders' range. Set it then, and only then: set on every run, the
    value would be sent back to a widget the student may be moving.
    """
    shapes = st.session_state.setdefault(_SHAPES, {})
    shape = repr([_settings(p) if isinstance(p, dict) else p for p in shape])
    if shapes.get(key, shape) != shape:
        st.session_state[key] = st.session_state[key]
    shapes[key] = shape


def _settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A widget's keyword arguments, a function (``format_func``, a new object on every run)
    by its name: the select-slider's shape holds the options as the function shows them."""
    return {k: getattr(v, "__qualname__", "?") if callable(v) else v for k, v in kwargs.items()}


def _publish(key: str, encode: Callable[[Any], str]) -> None:
    st.session_state.setdefault(_PENDING, {})[key] = encode(st.session_state[key])


def seed(store: str, param: str, default: V, decode: Callable[[str], V]) -> V:
    """A value kept under ``store`` in the session and named ``param`` in the URL.

    For a control that is not a Streamlit widget keyed by its URL name (``ui.live``: the
    component's own state lives under ``param``). Seeded once per session like the widgets
    (a bad value falls back to ``default`` with the usual notice); publish it with
    :func:`publish`.
    """
    _seed(store, default, decode, param)
    return st.session_state[store]


def publish(param: str, text: str) -> None:
    """Queue ``?<param>=<text>`` for the URL (written by :func:`flush` with the widgets')."""
    st.session_state.setdefault(_PENDING, {})[param] = text


def flush() -> None:
    """Write the queued values to the address bar in one step (see the module's docstring):
    a hidden ``st.html`` element whose script hands them to the page's writer."""
    pending = st.session_state.pop(_PENDING, None)
    if not pending:
        return
    live().update(pending)
    st.session_state.setdefault(_HERE, ("", {}))[1].update(pending)
    st.html(url_script(pending), unsafe_allow_javascript=True, width="content")


def on_page(name: str) -> None:
    """The page this run draws (``app.py``): a page switched to starts a new address (Streamlit
    clears the link's parameters on a switch), so :func:`snapshot` holds what was written on
    this page, not every value the session ever wrote (:func:`live`)."""
    here = st.session_state.get(_HERE)
    if here is None or here[0] != name:
        st.session_state[_HERE] = (name, {})


def url_script(values: dict[str, str]) -> str:
    """The script that writes ``values`` into the address bar: queued for ``window.__adlabUrlRun``
    (``ui.a11y``), numbered so that an element drawn again never brings back older values.

    The values go in as JSON with ``<`` escaped: a typed matrix or sentence cannot close the
    script.
    """
    token, n = st.session_state.get(_WRITES, (secrets.token_hex(4), 0))
    st.session_state[_WRITES] = (token, n + 1)
    data = json.dumps({"set": values, "session": token, "n": n}, ensure_ascii=False)
    data = data.replace("<", "\\u003c")
    return _URL_OPEN + data + _URL_CLOSE


def url_values(html: str) -> tuple[int, dict[str, str]] | None:
    """A script of :func:`url_script`: its number in the session and what it writes
    (``None``: not one); for the tests, which apply them in order as the browser does."""
    if not (html.startswith(_URL_OPEN) and html.endswith(_URL_CLOSE)):
        return None
    data = json.loads(html[len(_URL_OPEN) : -len(_URL_CLOSE)])
    return data["n"], data["set"]


def show_notices() -> None:
    """Tell the user once which link parameters were ignored (call after the controls)."""
    keys = st.session_state.pop(_NOTICES, None)
    if keys:
        st.caption(t("kit.bad_link_params", keys=", ".join(sorted(set(keys)))))


def _fmt_float(x: float) -> str:
    return f"{x:.6g}"


def select_slider(
    label: str,
    key: str,
    options: Sequence[float],
    default: float,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> float:
    """A slider over numeric ``options`` (e.g. log-spaced); the URL holds the value.

    ``widget=False``: the value the widget will return, seeded and clamped as for the widget,
    and no widget yet (``kit.controls_after_the_chart``); the same goes for :func:`slider`,
    :func:`number`, :func:`choice` and :func:`selectbox`."""

    def decode(raw: str) -> float:
        x = float(raw)
        match = [o for o in options if abs(o - x) <= 1e-9 * max(1.0, abs(x))]
        if not match:
            raise ValueError(raw)
        return match[0]

    _seed(key, default, decode)
    current = st.session_state[key]
    if current not in options:  # the options moved (e.g. the heads that divide a new D)
        st.session_state[key] = min(options, key=lambda o: (abs(o - current), o))
    if not widget:
        return st.session_state[key]
    shown = kwargs.get("format_func")
    _keep(key, label, [shown(o) if shown else o for o in options], kwargs)
    value = st.select_slider(label, options=list(options), key=key, **kwargs)
    _publish(key, _fmt_float)
    return value


def slider(
    label: str,
    key: str,
    min_value: float,
    max_value: float,
    default: float,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> Any:
    """``st.slider`` (int or float, like ``default``); the URL holds the value."""
    kind = type(default)

    def decode(raw: str) -> Any:
        x = kind(float(raw)) if kind is int and float(raw).is_integer() else kind(raw)
        if not min_value <= x <= max_value:
            raise ValueError(raw)
        return x

    _seed(key, default, decode)
    if not min_value <= st.session_state[key] <= max_value:  # the range moved (e.g. B shrank)
        st.session_state[key] = min(max(st.session_state[key], min_value), max_value)
    if not widget:
        return kind(min_value) if min_value == max_value else st.session_state[key]
    if min_value == max_value:  # one choice left (Swin: one window when M = H): no slider
        st.caption(f"{label}: {kind(min_value)}")  # Streamlit refuses a slider with min = max
        _publish(key, str if kind is int else _fmt_float)
        return kind(min_value)
    _keep(key, label, min_value, max_value, kwargs)
    value = st.slider(label, min_value=min_value, max_value=max_value, key=key, **kwargs)
    _publish(key, str if kind is int else _fmt_float)
    return value


def number(
    label: str,
    key: str,
    min_value: int,
    max_value: int,
    default: int,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> int:
    """An integer ``st.number_input`` (seeds and counts); the URL holds the value."""

    def decode(raw: str) -> int:
        x = int(raw)
        if not min_value <= x <= max_value:
            raise ValueError(raw)
        return x

    _seed(key, default, decode)
    if not widget:
        return int(st.session_state[key])
    _keep(key, label, min_value, max_value, kwargs)
    value = st.number_input(
        label, min_value=min_value, max_value=max_value, step=1, key=key, **kwargs
    )
    _publish(key, str)
    return int(value)


def text(
    label: str,
    key: str,
    default: str,
    max_chars: int = 200,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> str:
    """``st.text_input``; the URL holds the text (parsed by the page, never evaluated).
    ``widget=False``: only read, as for :func:`select_slider`."""

    def decode(raw: str) -> str:
        if len(raw) > max_chars:
            raise ValueError(raw)
        return raw

    _seed(key, default, decode)
    if not widget:
        return str(st.session_state[key])
    value = st.text_input(label, key=key, max_chars=max_chars, **kwargs)
    _publish(key, str)
    return value


def _one_of(
    key: str, options: Sequence[str], default: str, widget: bool, draw: Callable[[], str]
) -> str:
    """A choice among string ``options`` kept in the URL: seeded, then drawn by ``draw`` (or,
    ``widget=False``, only read)."""

    def decode(raw: str) -> str:
        if raw not in options:
            raise ValueError(raw)
        return raw

    _seed(key, default, decode)
    if not widget:
        return st.session_state[key]
    _keep(key, options)
    value = draw()
    _publish(key, str)
    return value


def choice(
    label: str,
    key: str,
    options: Sequence[str],
    default: str,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> str:
    """A segmented control / radio over string ``options``; the URL holds the choice."""
    return _one_of(
        key,
        options,
        default,
        widget,
        lambda: st.radio(label, options=list(options), key=key, horizontal=True, **kwargs),
    )


def selectbox(
    label: str,
    key: str,
    options: Sequence[str],
    default: str,
    *,
    widget: bool = True,
    **kwargs: Any,
) -> str:
    """``st.selectbox`` over string ``options``; the URL holds the choice."""
    return _one_of(
        key,
        options,
        default,
        widget,
        lambda: st.selectbox(label, options=list(options), key=key, **kwargs),
    )


def toggle(label: str, key: str, default: bool, *, widget: bool = True, **kwargs: Any) -> bool:
    """``st.toggle``; the URL holds ``1`` or ``0``. ``widget=False``: only read, as for
    :func:`select_slider`."""

    def decode(raw: str) -> bool:
        if raw not in ("0", "1"):
            raise ValueError(raw)
        return raw == "1"

    _seed(key, default, decode)
    if not widget:
        return bool(st.session_state[key])
    value = st.toggle(label, key=key, **kwargs)
    _publish(key, lambda v: "1" if v else "0")
    return value


def hidden_int(key: str, lo: int, hi: int, default: Callable[[], int]) -> int:
    """An integer kept in the URL without a widget (exercise seeds, presenter steps).

    ``default`` is called once per session when the link has no valid value (e.g. a fresh
    random seed, so every student gets their own exercise; the link then pins it).
    """

    def decode(raw: str) -> int:
        x = int(raw)
        if not lo <= x <= hi:
            raise ValueError(raw)
        return x

    if key not in st.session_state:
        _seed(key, None, decode)
        if st.session_state[key] is None:
            st.session_state[key] = default()
    _publish(key, str)
    return int(st.session_state[key])


def app_root() -> str:
    """Where this app's addresses start: ``/``, or ``/<baseUrlPath>/`` on a server hosted
    under a path (a page's address is this and its url path)."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/" if base else "/"


def live() -> dict[str, str]:
    """Every value this session published, kept up to date by :func:`flush`.

    The same dict object for the whole session: a download made later (on another thread,
    without a script run) reads the values as they are at that moment.
    """
    return st.session_state.setdefault(_LIVE, {})


def snapshot() -> dict[str, str]:
    """This session's view as link parameters: the URL as it will be after :func:`flush`."""
    view = {k: st.query_params[k] for k in st.query_params}  # the link the page opened with
    view.update(st.session_state.get(_HERE, ("", {}))[1])
    view.update(st.session_state.get(_PENDING, {}))
    return view
