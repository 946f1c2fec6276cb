"""Two real app replicas behind nginx (deploy/nginx.conf) on loopback.

A session's page requests and its websocket stick to one replica by cookie; new browsers
spread over both; when a replica stops, its sessions and new ones are served by the other.
Sessions speak Streamlit's real websocket protocol (bench/st_protocol.py): a page load and
a slider move are full server runs, so "served" means the app computed the page.
"""

from __future__ import annotations

import asyncio
import http.client
import random
import socket
import threading
import urllib.request
from collections import Counter
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from bench.load import DEFAULT_PAGE as PAGE
from bench.load import DEFAULT_SLIDER as SLIDER  # a Streamlit slider (not a ui/live control)
from bench.st_protocol import MAX_MESSAGE_BYTES, BrowserSession, run_in_own_loop
from deploy.cluster import COOKIE, run_cluster, run_nginx

TIMEOUT = 90.0  # s per page run: generous, the CI machine's two cores are shared
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(url: str, cookie: str | None = None) -> tuple[int, str, str | None, bytes]:
    """GET through the balancer: (status, replica that served, new cookie, body)."""
    request = urllib.request.Request(url)
    if cookie:
        request.add_header("Cookie", f"{COOKIE}={cookie}")
    with NO_PROXY.open(request, timeout=TIMEOUT) as response:
        body = response.read()
        served = response.headers["X-Upstream"].split(",")[-1].strip()
        new_cookie = None
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name == COOKIE:
                new_cookie = rest.split(";")[0]
        return response.status, served, new_cookie, body


class CookieSession(BrowserSession):
    """A ``BrowserSession`` whose websocket carries the balancer cookie, like a browser's."""

    def __init__(self, url: str, cookie: str | None) -> None:
        self.errors: list[tuple[str, str]] = []
        super().__init__(url, PAGE, SLIDER, self.record, random.Random(0))
        self.cookie = cookie

    def record(self, kind: str, detail: str) -> None:
        self.errors.append((kind, detail))

    async def connect(self, timeout: float) -> None:
        headers = {"Cookie": f"{COOKIE}={self.cookie}"} if self.cookie else {}
        self.ws = await connect(
            self.ws_url,
            subprotocols=[Subprotocol("streamlit")],
            proxy=None,
            max_size=MAX_MESSAGE_BYTES,
            open_timeout=timeout,
            additional_headers=headers,
        )
        self.reader = asyncio.create_task(self._read_forever())

    @property
    def served_by(self) -> str:
        assert self.ws is not None and self.ws.response is not None
        return self.ws.response.headers["X-Upstream"].split(",")[-1].strip()


async def _session(url: str, cookie: str | None) -> str:
    """Open the page over the websocket, move its slider once; return the replica."""
    session = CookieSession(url, cookie)
    try:
        await session.connect(TIMEOUT)
        await session.open_page(TIMEOUT)
        await session.move_slider(TIMEOUT)
        assert not session.errors, session.errors
        return session.served_by
    finally:
        await session.close()


def websocket_session(url: str, cookie: str | None = None) -> str:
    return run_in_own_loop(lambda: _session(url, cookie))


@pytest.fixture(scope="module")
def cluster(nginx, tmp_path_factory):
    with run_cluster(nginx, tmp_path_factory.mktemp("cluster")) as running:
        yield running


def test_a_new_browser_gets_a_cookie_and_then_sticks_to_its_replica(cluster):
    status, first, cookie, html = get(cluster.url)
    assert status == 200 and cookie, "a browser without the cookie must be given one"
    assert first in cluster.replicas
    # The page's own assets, another page, the health check and the websocket session (a
    # full page run and a slider rerun) all go where the first response came from.
    asset = html.decode().split('src="')[1].split('"')[0].removeprefix(".")
    paths = ["/", f"/{PAGE}", asset, "/_stcore/health", "/", f"/{PAGE}"]
    for path in paths:
        status, served, again, _ = get(f"{cluster.url}{path}", cookie)
        assert (status, served, again) == (200, first, None), path
    for _ in range(2):
        assert websocket_session(cluster.url, cookie) == first


def test_new_browsers_spread_over_both_replicas(cluster):
    served = Counter(get(cluster.url)[1] for _ in range(60))
    assert set(served) == set(cluster.replicas), served
    assert min(served.values()) >= 6, f"one replica took (almost) everything: {served}"
    # Websocket sessions without a page load first (bench/load's sessions) spread too.
    by_socket = Counter(websocket_session(cluster.url) for _ in range(8))
    assert set(by_socket) <= set(cluster.replicas)


def test_sessions_fail_over_when_their_replica_stops(nginx, tmp_path):
    with run_cluster(nginx, tmp_path) as cluster:
        _, doomed, cookie, _ = get(cluster.url)
        assert websocket_session(cluster.url, cookie) == doomed
        (survivor,) = set(cluster.replicas) - {doomed}

        cluster.stop(doomed)

        # The stranded browser: its page and a new websocket session (what the frontend
        # does when its socket drops) are served by the other replica.
        status, served, _, _ = get(cluster.url, cookie)
        assert (status, served) == (200, survivor)
        assert websocket_session(cluster.url, cookie) == survivor
        # New browsers keep arriving and are all served.
        for _ in range(10):
            status, served, new_cookie, _ = get(cluster.url)
            assert (status, served) == (200, survivor) and new_cookie
        assert websocket_session(cluster.url, new_cookie) == survivor
        assert websocket_session(cluster.url) == survivor


# ---- the balancer refuses websockets from other sites' pages --------------------------


class Recorder:
    """A stand-in upstream on loopback: counts requests, answers 200 (never a real app)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.addr = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.requests: list[bytes] = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self.requests.append(conn.recv(65536))
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")

    def close(self) -> None:
        self.sock.close()


def upgrade(url: str, origin: str | None) -> int:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    if origin:
        headers["Origin"] = origin
    conn.request("GET", "/_stcore/stream", headers=headers)
    status = conn.getresponse().status
    conn.close()
    return status


@pytest.mark.parametrize(
    "origin, allowed",
    [
        ("http://evil.example", False),
        ("null", False),
        ("http://127.0.0.1.evil.example", False),
        ("SAME", True),
        (None, True),
    ],
)
def test_the_balancer_refuses_websockets_from_other_origins(nginx, tmp_path, origin, allowed):
    recorder = Recorder()
    try:
        with run_nginx(nginx, [recorder.addr], tmp_path) as url:
            sent = url if origin == "SAME" else origin
            status = upgrade(url, sent)
    finally:
        recorder.close()
    if allowed:
        assert status == 200 and len(recorder.requests) == 1
    else:
        assert status == 403 and not recorder.requests
