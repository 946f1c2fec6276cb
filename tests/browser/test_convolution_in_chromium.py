"""The convolution pages in a real browser: every part of each page renders its chart and
its formula (KaTeX, no parse error) in English and Japanese; full-page screenshots of each."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SHOTS, wait_for_app

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'
PARTS = [
    ("depthwise_separable", "filters", "filters_chart"),
    ("depthwise_separable", "cost", "ratio_chart"),
    ("depthwise_separable", "mobilenet", "mobilenet_chart"),
    ("depthwise_separable", "torch", "kernels_chart"),
    ("depthwise_separable", "timing", "timing_chart"),
    ("sub_pixel_convolution", "shuffle", "shuffle_chart"),
    ("sub_pixel_convolution", "transposed", "kernel_chart"),
    ("sub_pixel_convolution", "artefacts", "images_chart"),
]


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize(("slug", "view", "chart"), PARTS, ids=lambda p: str(p))
def test_every_part_renders_its_chart_and_formula(page, server, slug, view, chart, lang):
    page.set_viewport_size({"width": 1400, "height": 2600})  # the whole part in one picture
    page.goto(f"{server.url}/{slug}?{slug}_view={view}&lang={lang}")
    wait_for_app(page)
    page.wait_for_selector(f".st-key-{slug}_{chart} .js-plotly-plot .main-svg")
    expect(page.locator(".katex-display").first).to_be_visible()
    expect(page.locator(ERRORS)).to_have_count(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{slug}-{view}-{lang}.png"))
