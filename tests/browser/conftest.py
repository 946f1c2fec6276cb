"""A real ``streamlit run app.py`` and a real headless Chromium (the system one).

Browser tests are never skipped in CI (``CI`` set): a missing Chromium fails the run there.
Screenshots go to ``artifacts/screenshots/`` as test artifacts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from bench.server import CHROMIUM_FLAGS, ROOT, RunningServer, chromium_path, streamlit_server

SHOTS = ROOT / "artifacts" / "screenshots"
VIEWPORT = {"width": 1400, "height": 1000}
TIMEOUT_MS = 30_000  # CI's two cores run two workers, each a server and a Chromium

# expect() retries its assertion until this timeout (Playwright's default is 5 s, too short
# for a page whose first run imports torch on a loaded CI machine).
expect.set_options(timeout=TIMEOUT_MS)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium() -> str:
    try:
        return chromium_path()
    except RuntimeError as err:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(err))


@pytest.fixture(scope="session")
def server() -> Iterator[RunningServer]:
    log = ROOT / "artifacts" / "browser-server.log"
    log.parent.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", log_path=log) as srv:
        yield srv


@pytest.fixture(scope="session")
def browser(chromium: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    ctx = browser.new_context(viewport=VIEWPORT)
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    yield pg
    ctx.close()


def wait_for_app(page: Page) -> None:
    """Wait until the script run has finished and the page has settled."""
    page.wait_for_selector('[data-testid="stMain"] h1', state="visible")
    # no script run in flight, and no element still waiting for its lazily loaded code
    page.wait_for_function(
        "() => !document.querySelector("
        '\'[data-testid="stStatusWidget"], .stSkeleton, [data-testid="stSkeleton"]\')',
        timeout=60_000,
    )


def screenshot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


# Plotly's calls on one plot, in order, and each animation frame after a move
_LOG_PLOTLY_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const log = (window.__plotlyCalls = []);
  for (const name of ['animate', 'relayout', 'react']) {
    const call = window.Plotly[name];
    window.Plotly[name] = function (plot, arg, ...rest) {
      if (plot === gd) {
        log.push(name === 'relayout' ? `relayout ${Object.keys(arg).sort().join(' ')}` : name);
        if (name === 'animate') requestAnimationFrame(() => log.push('frame'));
      }
      return call.call(this, plot, arg, ...rest);
    };
  }
}"""
SLIDER_DRAWN = "relayout sliders[0].active sliders[0].steps"  # a kept chart's frame slider


def log_plotly_calls(page: Page, plot: str) -> None:
    """From now on, log Plotly's animate, relayout and react on the plot ``plot`` (a CSS
    selector), and the animation frame after each animate (:func:`plotly_calls`)."""
    page.evaluate(_LOG_PLOTLY_JS, plot)


def plotly_calls(page: Page) -> list[str]:
    return page.evaluate("() => window.__plotlyCalls")
