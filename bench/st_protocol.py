"""A minimal Streamlit browser: speaks the websocket protocol the way the frontend does.

One ``BrowserSession`` is one browser tab on one page. It connects to ``/_stcore/stream``,
asks for the page, keeps the widget values the frontend would keep, moves one slider and
times each run from the send of the ``rerun_script`` BackMsg to the ``script_finished``
ForwardMsg that ends it. What it copies from the frontend (Streamlit 1.67):

- **Page selection.** The first ``rerun_script`` carries ``page_name`` = the URL path
  (``/softmax`` -> ``"softmax"``) and an empty ``page_script_hash``; the server resolves it
  against ``st.navigation``'s ``url_pathname``. Later reruns carry the page's hash, learnt
  from the ``navigation`` ForwardMsg (``new_session.page_script_hash`` is the main script's
  hash when ``st.navigation`` is used), and an empty ``page_name``.
- **Widget ids** are ``$$ID-<hash>-<user key>``; the user key is what follows the second ``-``.
- **Widget states.** Every widget commits its value when it first appears (or when the
  server pushes one with ``set_value``); every rerun sends all values known, and a full run
  that finishes drops the states of widgets it did not draw.
- **Fragments.** A delta drawn inside ``st.fragment`` carries ``delta.fragment_id``; a
  change to a widget there is sent with ``ClientState.fragment_id`` and the server answers
  with a fragment run (``FINISHED_FRAGMENT_RUN_SUCCESSFULLY``).
- **Slider encoding.** ``st.slider`` sends ``double_array_value`` (the numbers);
  ``st.select_slider`` (a Slider proto with ``options``) sends ``string_array_value`` with
  the *formatted option labels* (``Slider.default`` holds indices, ``raw_value`` labels).
- **Message cache.** Deltas with ``metadata.cacheable`` are kept by hash and their hashes
  sent as ``cached_message_hashes``; the server then sends a ``ref_hash`` instead. Entries
  expire after ``config.max_cached_message_age`` finished runs, as in ForwardMessageCache.ts.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

ID_PREFIX = "$$ID-"
MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # above our server.maxMessageSize (50 MB, config.toml)
SUCCESS = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}

ErrorSink = Callable[[str, str], None]
"""Called with ``(kind, detail)`` for every error a session sees."""


class SessionError(Exception):
    """A failure that ends the current interaction; ``kind`` names it for the report."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


T = TypeVar("T")


def run_in_own_loop(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(make())`` on a thread of its own.

    A thread that already runs an event loop (Playwright's sync API leaves one running in
    a pytest worker that used the browser) cannot call ``asyncio.run``; a fresh thread can.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="st-protocol") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def user_key(widget_id: str) -> str | None:
    """The user key inside a widget id ``$$ID-<hash>-<key>``, or None if it has none."""
    parts = widget_id.split("-", 2)
    if not widget_id.startswith(ID_PREFIX) or len(parts) < 3 or parts[2] == "None":
        return None
    return parts[2]


def stream_url(page_url: str) -> str:
    """``http://host:port[/base]/<page>`` -> ``ws://host:port[/base]/_stcore/stream``.

    The page is not part of the websocket URL; it travels in the first ``rerun_script``.
    Any base path must then be given as ``--url http://host:port/base`` with ``--page``.
    """
    parts = urlsplit(page_url)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}[parts.scheme]
    base = parts.path.rstrip("/")
    return f"{scheme}://{parts.netloc}{base}/_stcore/stream"


# ---------------------------------------------------------------------------------------
# Widget values, as the frontend commits them
# ---------------------------------------------------------------------------------------


def _slider_state(proto: Slider, state: WidgetState) -> None:
    if proto.options:  # st.select_slider: formatted option labels
        labels = list(proto.raw_value) if proto.set_value else _labels(proto, proto.default)
        state.string_array_value.data[:] = labels
    else:
        state.double_array_value.data[:] = list(proto.value if proto.set_value else proto.default)


def _labels(proto: Slider, indices: list[float]) -> list[str]:
    return [proto.options[int(i)] for i in indices]


def _choice_state(proto, state: WidgetState) -> None:  # radio, selectbox
    if proto.set_value and proto.HasField("raw_value"):
        state.string_value = proto.raw_value
    elif not proto.set_value and proto.HasField("default"):
        state.string_value = proto.options[proto.default]


def _multi_state(proto, state: WidgetState) -> None:  # multiselect
    values = proto.raw_values if proto.set_value else [proto.options[i] for i in proto.default]
    state.string_array_value.data[:] = list(values)


def _button_group_state(proto, state: WidgetState) -> None:  # pills, segmented_control
    if proto.set_value:
        values = list(proto.raw_values)
    else:
        values = [proto.options[i].content for i in proto.default]
    state.string_array_value.data[:] = values


def _checkbox_state(proto, state: WidgetState) -> None:  # checkbox, toggle
    state.bool_value = proto.value if proto.set_value else proto.default


def _number_state(proto, state: WidgetState) -> None:
    field_name = "value" if proto.set_value else "default"
    if proto.HasField(field_name):
        number = getattr(proto, field_name)
        if proto.data_type == proto.INT:
            state.int_value = int(number)
        else:
            state.double_value = number


def _text_state(proto, state: WidgetState) -> None:  # text_input, text_area
    field_name = "value" if proto.set_value else "default"
    if proto.HasField(field_name):
        state.string_value = getattr(proto, field_name)


def _color_state(proto, state: WidgetState) -> None:
    state.string_value = proto.value if proto.set_value else proto.default


_STATEFUL = {
    "slider": _slider_state,
    "radio": _choice_state,
    "selectbox": _choice_state,
    "multiselect": _multi_state,
    "button_group": _button_group_state,
    "checkbox": _checkbox_state,
    "number_input": _number_state,
    "text_input": _text_state,
    "text_area": _text_state,
    "color_picker": _color_state,
}
# Elements with an id but no value to commit when drawn: one-shot triggers (sent once, on
# click) and charts/tables, whose selection state exists only after the user selects.
_STATELESS = {
    "button",
    "download_button",
    "link_button",
    "page_link",
    "menu_button",
    "plotly_chart",
    "vega_lite_chart",
    "deck_gl_json_chart",
    "echarts_chart",
    "dataframe",
    "table",
    "file_uploader",
    "camera_input",
    "audio_input",
    "chat_input",
    "feedback",
}


def committed_state(element: Element) -> WidgetState | None:
    """The WidgetState a freshly drawn widget commits, or None for non-widgets/triggers.

    Raises:
        KeyError: for a widget type this client does not know how to encode.
    """
    kind = element.WhichOneof("type")
    proto = getattr(element, kind) if kind else None
    if proto is None or not getattr(proto, "id", ""):
        return None
    if kind in _STATELESS:
        return None
    encode = _STATEFUL[kind]  # KeyError: unsupported widget, reported by the caller
    state = WidgetState(id=proto.id)
    encode(proto, state)
    return state


def moved_slider_state(proto: Slider, current: WidgetState, rng: random.Random) -> WidgetState:
    """The state after a user drags the slider (the last thumb) to another random stop."""
    state = WidgetState(id=proto.id)
    if proto.options:
        options = list(proto.options)
        labels = list(current.string_array_value.data) or _labels(proto, proto.default)
        now = options.index(labels[-1]) if labels[-1] in options else 0
        labels[-1] = options[_other_stop(len(options), now, rng)]
        state.string_array_value.data[:] = labels
        return state
    values = list(current.double_array_value.data) or list(proto.default)
    step = proto.step or 1.0
    stops = int(round((proto.max - proto.min) / step)) + 1
    now = int(round((values[-1] - proto.min) / step))
    values[-1] = proto.min + _other_stop(stops, now, rng) * step
    if len(values) == 2 and values[0] > values[1]:
        values.reverse()
    state.double_array_value.data[:] = values
    return state


def _other_stop(count: int, now: int, rng: random.Random) -> int:
    if count < 2:
        return 0
    pick = rng.randrange(count - 1)
    return pick + 1 if pick >= now else pick


# ---------------------------------------------------------------------------------------
# Message cache (frontend/connection/src/ForwardMessageCache.ts)
# ---------------------------------------------------------------------------------------


@dataclass
class _CacheEntry:
    encoded: bytes
    run_count: int
    fragment_id: str


@dataclass
class MessageCache:
    """Caches cacheable ForwardMsgs by hash and resolves ``ref_hash`` messages."""

    entries: dict[str, _CacheEntry] = field(default_factory=dict)
    run_count: int = 0

    def resolve(self, msg: ForwardMsg, encoded: bytes) -> ForwardMsg:
        """Store ``msg`` if cacheable; for a ``ref_hash`` return the referenced message."""
        if msg.WhichOneof("type") != "ref_hash":
            if msg.metadata.cacheable and msg.hash:
                entry = self.entries.get(msg.hash)
                if entry is None:
                    self.entries[msg.hash] = _CacheEntry(
                        encoded, self.run_count, msg.delta.fragment_id
                    )
                else:
                    entry.run_count = self.run_count
            return msg
        entry = self.entries.get(msg.ref_hash)
        if entry is None:
            raise SessionError("cache_miss", msg.ref_hash)
        entry.run_count = self.run_count
        resolved = ForwardMsg.FromString(entry.encoded)
        resolved.metadata.CopyFrom(msg.metadata)
        return resolved

    def finish_run(self, max_age: int, fragment_ids: list[str]) -> None:
        """Age the cache after a finished run; expire entries older than ``max_age``."""
        self.run_count += 1
        for key, entry in list(self.entries.items()):
            if fragment_ids and entry.fragment_id not in fragment_ids:
                continue
            if self.run_count - entry.run_count > max_age:
                del self.entries[key]

    def hashes(self) -> list[str]:
        return list(self.entries)


# ---------------------------------------------------------------------------------------
# The session
# ---------------------------------------------------------------------------------------


def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


@dataclass
class Run:
    """One request -> script_finished round trip, as measured by the client.

    Attributes:
        kind: ``"load"`` (the page's first run) or ``"rerun"`` (a slider change).
        sent: ``time.perf_counter()`` at the send of the BackMsg.
        finished: at the receipt of its ``script_finished`` (None if it never came).
        status: the ``ScriptFinishedStatus`` name.
        fragment: True if it was sent as a fragment rerun.
        bytes: payload bytes received from the send until the next request (decompressed
            websocket messages, i.e. after permessage-deflate).
        messages: number of ForwardMsgs in that window.
        run_id: ``script_run_id`` of the server run answering it (the latest, after st.rerun).
        script_reruns: runs that ended early because the script called ``st.rerun()``; the
            round trip then lasts until the end of the last one, as the user sees it.
    """

    kind: str
    sent: float
    fragment: bool = False
    finished: float | None = None
    status: str | None = None
    bytes: int = 0
    messages: int = 0
    run_id: str | None = None
    script_reruns: int = 0
    done: asyncio.Future[None] = field(default_factory=lambda: _loop().create_future())

    @property
    def seconds(self) -> float | None:
        return None if self.finished is None else self.finished - self.sent


@dataclass
class ProbeSlider:
    """The slider the session moves: its last proto and the fragment it was drawn in."""

    proto: Slider
    fragment_id: str


class BrowserSession:
    """One simulated browser tab on one page of a Streamlit app.

    Args:
        page_url: ``http://127.0.0.1:PORT`` (base) — the websocket URL is derived from it.
        page: the URL path of the page (a ``st.navigation`` url_path), ``""`` for the main page.
        slider_key: user key of the slider to move.
        on_error: receives ``(kind, detail)`` for every error seen (also mid-run ones).
        rng: source of slider positions.
    """

    def __init__(
        self,
        page_url: str,
        page: str,
        slider_key: str,
        on_error: ErrorSink,
        rng: random.Random,
    ) -> None:
        self.ws_url = stream_url(page_url)
        self.page = page.strip("/")
        self.context_url = f"{page_url.rstrip('/')}/{self.page}"
        self.slider_key = slider_key
        self.on_error = on_error
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.widgets: dict[str, WidgetState] = {}
        self.drawn_this_run: set[str] = set()
        self.unsupported: set[str] = set()
        self.cache = MessageCache()
        self.max_cache_age = 2
        self.page_hash = ""
        self.query_string = ""
        self.fragment_ids_this_run: list[str] = []
        self.new_session_since_request = False
        self.probe: ProbeSlider | None = None
        self.run: Run | None = None

    # -- connection ----------------------------------------------------------------------

    async def connect(self, timeout: float) -> None:
        """Open the websocket (no proxy, the ``streamlit`` subprotocol like the frontend)."""
        try:
            self.ws = await connect(
                self.ws_url,
                subprotocols=[Subprotocol("streamlit")],
                proxy=None,  # never an HTTP proxy from the environment: loopback only
                max_size=MAX_MESSAGE_BYTES,
                open_timeout=timeout,
            )
        except Exception as exc:  # OSError, TimeoutError, websockets.InvalidHandshake, ...
            raise SessionError("connect", repr(exc)) from exc
        self.reader = asyncio.create_task(self._read_forever(), name="st-reader")

    async def close(self) -> None:
        """Close the websocket and stop the reader (the server then ends the session)."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)

    # -- user actions ----------------------------------------------------------------------

    async def open_page(self, timeout: float) -> Run:
        """Request the page like a freshly loaded tab and wait for its first run."""
        run = await self._request("load", fragment_id="")
        await self._wait(run, timeout)
        if self.probe is None and self.slider_key:  # "": a session that only types
            raise SessionError("slider_not_found", f"no widget with key {self.slider_key!r}")
        return run

    async def move_slider(self, timeout: float) -> Run:
        """Drag the probe slider to another stop and wait for the run it triggers."""
        if self.probe is None:
            raise SessionError("slider_not_found", self.slider_key)
        proto = self.probe.proto
        current = self.widgets.get(proto.id) or committed_state(Element(slider=proto))
        self.widgets[proto.id] = moved_slider_state(proto, current, self.rng)
        run = await self._request("rerun", fragment_id=self.probe.fragment_id)
        await self._wait(run, timeout)
        return run

    # -- sending -------------------------------------------------------------------------

    async def _request(self, kind: str, fragment_id: str) -> Run:
        """Send ``rerun_script`` with everything the frontend puts in it."""
        if self.ws is None:
            raise SessionError("protocol", "not connected")
        msg = BackMsg()
        self._fill_client_state(msg.rerun_script, fragment_id)
        payload = msg.SerializeToString()
        self.new_session_since_request = False
        run = Run(kind=kind, sent=time.perf_counter(), fragment=bool(fragment_id))
        self.run = run
        try:
            await self.ws.send(payload)
        except ConnectionClosed as exc:
            raise SessionError("connection_closed", repr(exc)) from exc
        return run

    def _fill_client_state(self, state: ClientState, fragment_id: str) -> None:
        state.query_string = self.query_string
        state.widget_states.widgets.extend(self.widgets.values())
        if self.page_hash:
            state.page_script_hash = self.page_hash
        else:  # first load: the server matches the URL path against st.navigation
            state.page_name = self.page
        state.fragment_id = fragment_id
        state.cached_message_hashes.extend(self.cache.hashes())
        info = state.context_info
        info.timezone = "UTC"
        info.timezone_offset = 0
        info.locale = "en-US"
        info.url = self.context_url
        info.is_embedded = False
        info.color_scheme = "light"

    async def _wait(self, run: Run, timeout: float) -> None:
        try:
            await asyncio.wait_for(asyncio.shield(run.done), timeout)
        except TimeoutError as exc:
            run.done.cancel()  # abandoned: later errors of this run go to on_error
            raise SessionError("timeout", f"{run.kind} not finished in {timeout:.0f} s") from exc
        if run.status is not None and run.status not in _SUCCESS_NAMES:
            raise SessionError(f"status:{run.status}", run.kind)

    # -- receiving -----------------------------------------------------------------------

    async def _read_forever(self) -> None:
        assert self.ws is not None
        try:
            async for data in self.ws:
                if isinstance(data, str):
                    self._fail(SessionError("protocol", "text frame"))
                    continue
                self._account(len(data))
                try:
                    msg = self.cache.resolve(ForwardMsg.FromString(data), data)
                    self._handle(msg)
                except SessionError as exc:
                    self._fail(exc)
                except Exception as exc:  # a malformed message: a protocol error
                    self._fail(SessionError("protocol", repr(exc)))
        except ConnectionClosed:
            pass
        if self.run is not None and not self.run.done.done():
            self._fail(SessionError("connection_closed", "while a run was in flight"))

    def _account(self, size: int) -> None:
        if self.run is not None:
            self.run.bytes += size
            self.run.messages += 1

    def _fail(self, exc: SessionError) -> None:
        """Record an error; if a run is waiting, end it with that error."""
        run = self.run
        if run is not None and not run.done.done():
            run.done.set_exception(exc)
            run.done.exception()  # mark retrieved: the waiter may already have timed out
        else:
            self.on_error(exc.kind, exc.detail)

    def _handle(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self._on_new_session(msg)
        elif kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            self._error("page_not_found", msg.page_not_found.page_name or self.page)
        elif kind == "delta":
            self._on_delta(msg)
        elif kind == "session_event":
            event = msg.session_event
            if event.WhichOneof("type") == "script_compilation_exception":
                self._error("compile_error", event.script_compilation_exception.message)
        elif kind == "script_finished":
            self._on_script_finished(msg)

    def _error(self, kind: str, detail: str) -> None:
        """An error inside a run that does not end it (e.g. an exception element)."""
        self.on_error(kind, detail)

    def _on_new_session(self, msg: ForwardMsg) -> None:
        session = msg.new_session
        self.max_cache_age = session.config.max_cached_message_age
        if not self.page_hash:
            self.page_hash = session.page_script_hash
        self.fragment_ids_this_run = list(msg.metadata.run.fragment_ids)
        self.new_session_since_request = True
        if not self.fragment_ids_this_run:
            self.drawn_this_run = set()
        if self.run is not None and self.run.run_id is None:
            self.run.run_id = msg.metadata.run.script_run_id

    def _on_delta(self, msg: ForwardMsg) -> None:
        delta = msg.delta
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            exc = element.exception
            self._error("exception", f"{exc.type}: {exc.message}"[:300])
        elif kind == "alert" and element.alert.format == element.alert.ERROR:
            self._error("error_alert", element.alert.body[:300])
        try:
            state = committed_state(element)
        except KeyError:
            self.unsupported.add(kind or "?")
            return
        if state is None:
            return
        self.drawn_this_run.add(state.id)
        proto = getattr(element, kind)
        if proto.id not in self.widgets or getattr(proto, "set_value", False):
            self.widgets[state.id] = state
        if kind == "slider" and user_key(state.id) == self.slider_key:
            copy = Slider()
            copy.CopyFrom(proto)
            self.probe = ProbeSlider(proto=copy, fragment_id=delta.fragment_id)

    def _on_script_finished(self, msg: ForwardMsg) -> None:
        status = msg.script_finished
        if status != ForwardMsg.FINISHED_EARLY_FOR_RERUN and self.new_session_since_request:
            self.cache.finish_run(self.max_cache_age, self.fragment_ids_this_run)
        if status == ForwardMsg.FINISHED_SUCCESSFULLY:
            # A full run drew every widget still on the page; forget the others.
            self.widgets = {k: v for k, v in self.widgets.items() if k in self.drawn_this_run}
        run = self.run
        if run is None or run.done.done():
            return
        run_id = msg.metadata.run.script_run_id
        if run_id and run.run_id is not None and run_id != run.run_id:
            return  # the end of an older run
        if run_id and run.run_id is None:
            return  # finished before our run even started: an older run
        if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            # The script called st.rerun() (nobody else can interrupt our run): the run
            # the user waits for is the next one, as in the frontend.
            run.run_id = None
            run.script_reruns += 1
            return
        run.finished = time.perf_counter()
        run.status = ForwardMsg.ScriptFinishedStatus.Name(status)
        run.done.set_result(None)


_SUCCESS_NAMES = {ForwardMsg.ScriptFinishedStatus.Name(s) for s in SUCCESS}
