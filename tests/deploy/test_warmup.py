"""A real server warms up once, in the background, after its first page view (ui/warmup.py),
and keeps serving meanwhile."""

from __future__ import annotations

import gc
import random
import re
import sys
import time

from bench.latency import wait_for_warmup
from bench.server import ROOT, streamlit_server
from bench.st_protocol import BrowserSession, run_in_own_loop
from ui import warmup

TIMEOUT = 90.0
DONE = re.compile(r"adlab warm-up: done \((.*)\)")


class Session(BrowserSession):
    def __init__(self, url: str, page: str) -> None:
        self.errors: list[tuple[str, str]] = []
        super().__init__(url, page, "", self.record, random.Random(2))

    def record(self, kind: str, detail: str) -> None:
        self.errors.append((kind, detail))


async def _open(url: str, page: str) -> list:
    session = Session(url, page)
    try:
        await session.connect(TIMEOUT)
        await session.open_page(TIMEOUT)
        return session.errors
    finally:
        await session.close()


def test_the_first_page_view_starts_one_warm_up_that_finishes_every_task(tmp_path, monkeypatch):
    monkeypatch.setenv(warmup.ENV, "1")  # the tests switch it off (tests/conftest.py)
    log = tmp_path / "server.log"
    with streamlit_server(ROOT / "app.py", log_path=log) as server:
        assert "adlab warm-up" not in log.read_text()  # nothing before a page view
        assert run_in_own_loop(lambda: _open(server.url, "wallis")) == []
        # the server answers other sessions while it warms up
        assert run_in_own_loop(lambda: _open(server.url, "softmax")) == []
        assert wait_for_warmup(log, timeout=120)  # as bench.latency waits before measuring
        text = log.read_text()
        done = DONE.findall(text)
        assert len(done) == 1, text[-2000:]
        tasks = [part.split()[0] for part in done[0].split(", ")]
        assert tasks == [name for name, _ in warmup.tasks()]  # none failed
        assert "failed" not in text and "Traceback" not in text
        assert int(re.search(r"; (\d+) objects frozen", text)[1]) > 100_000
        # a later page view does not start it again
        assert run_in_own_loop(lambda: _open(server.url, "reverse_diffusion")) == []
        time.sleep(1)
        assert len(DONE.findall(log.read_text())) == 1


def test_the_warm_up_freezes_the_libraries_pages_load_later():
    """Python's full collections walk every object not frozen: torch, sympy and pandas,
    imported by pages after app.py froze its own imports, are frozen with the warm-up."""
    try:
        frozen = warmup.freeze_libraries()
        assert {"torch", "sympy", "pandas"} <= set(sys.modules)
        assert frozen == gc.get_freeze_count() > 100_000
        assert len(gc.get_objects()) < 1_000  # what is alive now was frozen
    finally:
        gc.unfreeze()  # this test process collects as before
