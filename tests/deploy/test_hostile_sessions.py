"""A hostile browser does not take the server down for everyone else.

One real ``streamlit run app.py``; a well-behaved session keeps moving a slider (attention
maps' d) while another session, speaking the websocket protocol directly (past every
frontend check), types hostile text into the softmax page's logits and then sends a message
over ``server.maxMessageSize``.
The hostile text gets ``st.error`` (never a traceback), the big message only costs the
sender its connection, and the other session is served throughout.
"""

from __future__ import annotations

import random

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.exceptions import ConnectionClosed

from bench.load import DEFAULT_PAGE as VICTIM_PAGE
from bench.load import DEFAULT_SLIDER as VICTIM_SLIDER  # a Streamlit slider: d
from bench.server import ROOT, streamlit_server
from bench.st_protocol import BrowserSession, SessionError, run_in_own_loop, user_key

PAGE = "softmax"  # the attacker's: it types logits
TEXT_KEY = "softmax_logits"
TIMEOUT = 90.0
HOSTILE = [
    "9" * 1_000_000,  # 1 MB; the text box's max_chars (200) is enforced by the server too
    "1e999, nan, -inf",
    "٣ ٤ ½ ∞ \u202e\u200b 🙂",
    "5, 6, 7; " * 2_000,
    "",
]


class Session(BrowserSession):
    def __init__(self, url: str, page: str, slider: str = "") -> None:
        """A session on ``page``; ``slider`` (a key) if it moves one, "" if it only types."""
        self.errors: list[tuple[str, str]] = []
        super().__init__(url, page, slider, self.record, random.Random(1))

    def record(self, kind: str, detail: str) -> None:
        self.errors.append((kind, detail))

    async def type_text(self, key: str, text: str) -> None:
        """Set a text box to ``text`` and wait for the full run it triggers (as on Enter)."""
        (widget_id,) = [w for w in self.widgets if user_key(w) == key]
        self.widgets[widget_id] = WidgetState(id=widget_id, string_value=text)
        run = await self._request("rerun", fragment_id="")
        await self._wait(run, TIMEOUT)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("hostile") / "server.log"
    with streamlit_server(ROOT / "app.py", log_path=log) as running:
        yield running


async def _scenario(url: str) -> tuple[list, list, int]:
    victim = Session(url, VICTIM_PAGE, VICTIM_SLIDER)
    attacker = Session(url, PAGE)
    try:
        for s in (victim, attacker):
            await s.connect(TIMEOUT)
            await s.open_page(TIMEOUT)
        assert not victim.errors and not attacker.errors
        alerts = []
        for text in HOSTILE:
            attacker.errors.clear()
            await attacker.type_text(TEXT_KEY, text)
            alerts.append(list(attacker.errors))
            await victim.move_slider(TIMEOUT)
        # A message over server.maxMessageSize (50 MB): the server drops that connection.
        assert attacker.ws is not None
        with pytest.raises((ConnectionClosed, SessionError)):
            await attacker.ws.send(b"\0" * (51 * 1024 * 1024))
            await attacker.type_text(TEXT_KEY, "1, 2")
        moves = 0
        for _ in range(3):
            await victim.move_slider(TIMEOUT)
            moves += 1
        return alerts, victim.errors, moves
    finally:
        await attacker.close()
        await victim.close()


def test_hostile_input_is_an_error_message_and_others_keep_being_served(server):
    alerts, victim_errors, moves = run_in_own_loop(lambda: _scenario(server.url))
    for text, seen in zip(HOSTILE, alerts, strict=True):
        kinds = {kind for kind, _ in seen}
        assert "exception" not in kinds, f"{text[:20]!r}: a traceback reached the page: {seen}"
        assert kinds == {"error_alert"}, f"{text[:20]!r}: expected one st.error, got {seen}"
        assert all(len(detail) < 400 for _, detail in seen)
    assert not victim_errors
    assert moves == 3
