"""Load the home page and one chart page of a running app in headless Chromium.

    .venv/bin/python deploy/browser_check.py http://127.0.0.1:8501 [--screenshots DIR]

Used by deploy/verify_image.sh against the container. The chart page's probe slider is moved
once, so a full server rerun travels over the websocket and redraws the chart. Exits non-zero
with a message on the first thing that is wrong.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from bench.server import CHART_REDRAWN_JS, CHROMIUM_FLAGS, chromium_path  # noqa: E402
from ui.registry import concept  # noqa: E402

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
TIMEOUT_MS = 90_000


def wait_idle(page) -> None:
    """Until the script run has finished (Streamlit's running indicator is gone)."""
    page.wait_for_selector('[data-testid="stMain"] h1', state="visible")
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the app's base URL, e.g. http://127.0.0.1:8501")
    parser.add_argument("--page", default="softmax", help="slug of the chart page (softmax)")
    parser.add_argument("--screenshots", type=Path, help="save home.png and <page>.png here")
    args = parser.parse_args(argv)
    base = args.url.rstrip("/")
    slider_key, chart_key = concept(args.page).probe

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2400})
        page.set_default_timeout(TIMEOUT_MS)
        expect.set_options(timeout=TIMEOUT_MS)

        start = time.perf_counter()
        page.goto(base)
        wait_idle(page)
        expect(page.locator("h1").first).not_to_be_empty()
        expect(page.locator(".st-key-nav")).to_be_visible()
        expect(page.locator('[data-testid="stPageLink"]').first).to_be_visible()
        expect(page.locator(ERRORS)).to_have_count(0)
        title = page.locator("h1").first.inner_text()
        print(f"home: '{title}' in {time.perf_counter() - start:.1f} s")
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.screenshots / "home.png"), full_page=True)

        start = time.perf_counter()
        page.goto(f"{base}/{args.page}")
        chart = page.locator(f".st-key-{chart_key} .js-plotly-plot").first
        page.wait_for_selector(f".st-key-{chart_key} .js-plotly-plot .main-svg")
        wait_idle(page)
        expect(page.locator(ERRORS)).to_have_count(0)
        print(f"{args.page}: chart drawn in {time.perf_counter() - start:.1f} s")
        before = chart.inner_html()
        thumb = page.locator(f".st-key-{slider_key} input[type=range]").first
        thumb.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            CHART_REDRAWN_JS,
            arg=[chart_key, before],
        )
        wait_idle(page)
        expect(page.locator(ERRORS)).to_have_count(0)
        print(f"{args.page}: the slider moved and the chart was redrawn by the server")
        if args.screenshots:
            page.screenshot(path=str(args.screenshots / f"{args.page}.png"), full_page=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
