"""The parameterisation page in a real browser: every part typesets its formula without KaTeX
errors and shows no ✗ in English and Japanese, and the leak view's block slider redraws."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SHOTS, wait_for_app

C = "diffusion_parameterisations"
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("view", ["predictions", "weights", "schedules", "leak"])
def test_every_part_typesets_its_formula(page, server, view, lang):
    page.set_viewport_size({"width": 1400, "height": 2600})  # the whole part in one shot
    page.goto(f"{server.url}/{C}?{C}_view={view}&lang={lang}")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    expect(page.locator(".katex-display").first).to_be_visible()
    expect(page.locator(ERRORS)).to_have_count(0)
    expect(page.get_by_text("✗")).to_have_count(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{C}-{view}-{lang}.png"))


def test_the_block_slider_redraws_the_leak(page, server):
    page.goto(f"{server.url}/{C}?{C}_view=leak")
    wait_for_app(page)
    chart = page.locator(f".st-key-{C}_leak_chart .js-plotly-plot")
    chart.locator(".main-svg").first.wait_for()
    before = chart.inner_html()
    thumb = page.locator(f".st-key-{C}_block input[type=range]").first
    thumb.focus()
    page.keyboard.press("ArrowLeft")  # from the default b = 32
    page.wait_for_function(
        """([key, before]) => {
            const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
            return el && el.innerHTML !== before;
        }""",
        arg=[f"{C}_leak_chart", before],
    )
    wait_for_app(page)
    assert f"{C}_block=16" in page.url
    expect(page.locator(ERRORS)).to_have_count(0)
