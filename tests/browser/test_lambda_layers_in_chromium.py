"""The lambda layers page in a real browser: every part renders its formula (KaTeX, no parse
error), and the query slider of the position part redraws its chart."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, wait_for_app

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'


@pytest.mark.parametrize("view", ["cost", "content", "position"])
def test_every_part_renders_its_formula(page, server, view):
    page.goto(f"{server.url}/lambda_layers?lambda_layers_view={view}")
    wait_for_app(page)
    page.wait_for_selector(f".st-key-lambda_layers_{view}_chart .js-plotly-plot .main-svg")
    expect(page.locator(".katex-display").first).to_be_visible()
    expect(page.locator(ERRORS)).to_have_count(0)
    screenshot(page, f"lambda_layers-{view}")


def test_the_query_slider_moves_the_position_lambdas(page, server):
    page.goto(f"{server.url}/lambda_layers?lambda_layers_view=position")
    wait_for_app(page)
    chart = ".st-key-lambda_layers_position_chart .js-plotly-plot"
    page.wait_for_selector(f"{chart} .main-svg")
    before = page.locator(chart).first.inner_html()
    thumb = page.locator(".st-key-lambda_layers_col input[type=range]").first
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([sel, before]) => document.querySelector(sel).innerHTML !== before",
        arg=[chart, before],
    )
    wait_for_app(page)
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("n = (8, 5)")
    expect(page.locator(ERRORS)).to_have_count(0)
