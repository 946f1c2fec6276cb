"""axe-core, the engine of browsers' accessibility audits, on every page in both languages:
no serious or critical violation (WCAG 2.1 A/AA rules and axe's best practices)."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page

from bench.server import ROOT
from tests.browser.conftest import wait_for_app
from ui.registry import CONCEPTS

AXE = ROOT / ".venv" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PATHS = ["", *(c.slug for c in CONCEPTS)]  # "" is the home page


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        if os.environ.get("CI"):
            raise FileNotFoundError(f"{AXE}: run `make axe`")
        pytest.skip("axe-core is not installed (make axe)")
    return AXE.read_text(encoding="utf-8")


def violations(page: Page, axe_source: str) -> list[dict]:
    page.add_script_tag(content=axe_source)
    return page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ['violations']});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.html.slice(0, 200)),
            }));
        }"""
    )


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("path", PATHS, ids=lambda p: p or "home")
def test_no_serious_accessibility_violation(page, server, axe_source, path, lang):
    page.goto(f"{server.url}/{path}?lang={lang}")
    wait_for_app(page)
    assert page.evaluate("document.documentElement.lang") == lang
    serious = [v for v in violations(page, axe_source) if v["impact"] in ("serious", "critical")]
    assert serious == [], serious


def test_axe_finds_a_planted_violation(page, server, axe_source):
    """The check can fail: an image without alternative text is a critical violation."""
    page.goto(server.url)
    wait_for_app(page)
    page.evaluate(
        "() => { const img = document.createElement('img'); img.src = 'data:,';"
        " document.querySelector('[data-testid=stMain]').appendChild(img); }"
    )
    found = {v["id"] for v in violations(page, axe_source) if v["impact"] == "critical"}
    assert "image-alt" in found


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_chart_is_a_named_figure_that_says_where_its_numbers_are(page, server, lang):
    from ui.i18n import strings

    page.goto(f"{server.url}/diffusion_loss?lang={lang}")
    wait_for_app(page)
    page.wait_for_selector(".js-plotly-plot .gtitle, .js-plotly-plot .annotation-text")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')]"
        ".every(p => p.getAttribute('role') === 'figure')"
    )
    names = page.eval_on_selector_all(
        ".js-plotly-plot", "plots => plots.map(p => p.getAttribute('aria-label'))"
    )
    hint = strings(lang)["kit.chart_data_hint"]
    assert names and all(name.endswith(hint) and len(name) > len(hint) + 3 for name in names)
    assert all(not name.startswith("Chart.") for name in names), names
