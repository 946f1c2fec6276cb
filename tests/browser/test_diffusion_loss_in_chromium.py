"""The DDPM-loss page in a real browser: the formulas typeset without KaTeX errors in every
part, a KL slider redraws its chart, and the exercise reveals an answer."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, wait_for_app

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'


@pytest.mark.parametrize("view", ["posterior", "kl", "elbo"])
def test_every_part_typesets_its_formula(page, server, view):
    page.goto(f"{server.url}/diffusion_loss?diffusion_loss_view={view}&diffusion_loss_ex=9")
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=60_000)
    expect(page.locator(".katex-display").first).to_be_visible()
    expect(page.locator(ERRORS)).to_have_count(0)
    expect(page.get_by_text("✗")).to_have_count(0)
    screenshot(page, f"diffusion_loss-{view}")


def test_a_kl_slider_redraws_the_densities(page, server):
    page.goto(f"{server.url}/diffusion_loss?diffusion_loss_view=kl")
    wait_for_app(page)
    chart = page.locator(".st-key-diffusion_loss_kl_chart .js-plotly-plot")
    chart.locator(".main-svg").first.wait_for()
    before = chart.inner_html()
    thumb = page.locator(".st-key-diffusion_loss_mean_q input[type=range]").first
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        """before => {
            const el = document.querySelector('.st-key-diffusion_loss_kl_chart .js-plotly-plot');
            return el && el.innerHTML !== before;
        }""",
        arg=before,
    )
    wait_for_app(page)
    # the URL is updated last, after the chart (kit.fragment): wait for it, do not race it
    page.wait_for_url(lambda url: "diffusion_loss_mean_q=1.25" in url)
    expect(page.locator('[data-testid="stMain"]')).to_contain_text(
        "0.4872"
    )  # KL(N(0, 1) ‖ N(1.25, 2))
    expect(page.locator(ERRORS)).to_have_count(0)


def test_the_exercise_reveals_its_answer(page, server):
    page.goto(f"{server.url}/diffusion_loss?diffusion_loss_ex=9")
    wait_for_app(page)
    page.get_by_text("Exercise: predict, then reveal").click()
    expect(page.get_by_text("which schedule keeps more of the signal")).to_be_visible()
    page.get_by_text("Reveal the answer").click()
    expect(page.get_by_text("Answer: linear (DDPM)")).to_be_visible()
    screenshot(page, "diffusion_loss-exercise")
