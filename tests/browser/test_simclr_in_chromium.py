"""SimCLR in a real browser: the pick of encoder sits in the part's fragment (a pick reruns
the fragment only), and a pick that needs the "Train" button reruns the page, which offers
it whole: a button first drawn in a fragment's rerun would show empty (Streamlit 1.67)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import wait_for_app

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'


@pytest.mark.parametrize(
    ("view", "chart"), [("similarity", "similarity"), ("temperature", "temperature")]
)
def test_picking_the_trained_encoder_of_new_settings_offers_the_button(page, server, view, chart):
    seed = {"similarity": 47, "temperature": 48}[view]  # settings nobody else trains
    page.goto(f"{server.url}/simclr?simclr_view={view}&simclr_seed={seed}&simclr_n=3&lang=en")
    wait_for_app(page)
    pick = page.locator(".st-key-simclr_encoder")
    button = page.locator(".st-key-simclr_train button")
    plot = page.locator(f".st-key-simclr_{chart}_chart .js-plotly-plot")
    expect(button).to_contain_text("Train")  # the trained encoder, not trained yet
    expect(plot).to_have_count(0)

    pick.get_by_text("untrained").click()  # the page's rerun (the pick is drawn above it)
    expect(plot).to_have_count(1)
    expect(button).to_have_count(0)
    expect(page).to_have_url(re.compile(r"simclr_encoder=untrained"))

    pick.get_by_text("after 60 steps").click()  # the fragment's rerun, then the page's
    expect(button).to_contain_text("Train")  # drawn whole, not empty
    expect(plot).to_have_count(0)
    tau = page.locator(".st-key-simclr_tau")
    expect(tau).to_have_count(0)

    button.click()  # trains (about a second), then the part with the trained network
    expect(plot).to_have_count(1, timeout=30_000)
    expect(button).to_have_count(0)
    for label in ("untrained", "after 60 steps", "untrained"):  # the fragment's reruns
        pick.get_by_text(label).click()
        expect(plot).to_have_count(1)
        expect(tau).to_contain_text("Temperature")  # the sliders drawn whole
    expect(page.locator(ERRORS)).to_have_count(0)
