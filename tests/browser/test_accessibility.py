"""axe-core, the engine of browsers' accessibility audits, on every page in both languages:
no serious or critical violation (WCAG 2.1 A/AA rules and axe's best practices)."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Page, expect

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
    # audit the page at rest: a colour still fading in (a CSS transition on load, e.g. a
    # shortcut hint's) read as low contrast in one run of several; a transition can start
    # after a first quiet moment (a late re-render), so wait for half a second of quiet
    page.evaluate("() => { window.__axeQuietSince = undefined; }")
    page.wait_for_function(
        """() => {
            const now = performance.now();
            if (document.getAnimations().some((a) => a.playState === 'running')) {
                window.__axeQuietSince = now;
                return false;
            }
            window.__axeQuietSince ??= now;
            return now - window.__axeQuietSince >= 500;
        }""",
        polling=50,
        timeout=10_000,
    )
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


@pytest.mark.parametrize("path", ["", "softmax", "forward_diffusion"], ids=lambda p: p or "home")
def test_presenter_mode_keeps_its_contrast(page, server, axe_source, path):
    """Projector type (?present=1) passes the same audit: no serious contrast failure."""
    page.goto(f"{server.url}/{path}?present=1")
    wait_for_app(page)
    serious = [v for v in violations(page, axe_source) if v["impact"] in ("serious", "critical")]
    assert serious == [], serious


# what Tab stops at inside a control's box (a disabled input is skipped)
FOCUSABLE = ", ".join(
    f"{tag}:not([disabled]):not([tabindex='-1'])"
    for tag in ("input", "textarea", "button", "[role='slider']", "[tabindex='0']")
)


def focused_control(page: Page) -> str | None:
    """The widget key (``st-key-…``) of the element that has the keyboard focus."""
    return page.evaluate(
        """() => {
            const now = document.activeElement;
            const box = now && now.closest('[class*="st-key-"]');
            if (!box) return null;
            const cls = [...box.classList].find(c => c.startsWith('st-key-'));
            return cls ? cls.slice(7) : null;
        }"""
    )


@pytest.mark.parametrize(
    ("path", "controls"),
    [
        ("wallis", ["wallis_view", "wallis_n"]),
        ("softmax", ["softmax_view", "softmax_logits", "softmax_T"]),
        (
            "attention_maps",
            [
                "attention_maps_view",
                "attention_maps_sentence",
                "attention_maps_d",
                "attention_maps_proj",
                "attention_maps_query",
            ],
        ),
    ],
)
def test_every_control_is_reached_by_tab_in_reading_order(page, server, path, controls):
    page.goto(f"{server.url}/{path}")
    wait_for_app(page)
    for c in controls:  # a live control (ui.live) mounts after the run, its input disabled
        # until its chart is drawn (Tab skips a disabled input): tab once each can take focus
        page.locator(f".st-key-{c}").locator(FOCUSABLE).first.wait_for(state="attached")
    page.locator('[data-testid="stMain"] h1').first.click()  # start from the page's title
    seen: list[str] = []
    for _ in range(80):
        page.keyboard.press("Tab")
        key = focused_control(page)
        if key and key not in seen:
            seen.append(key)
        if all(c in seen for c in controls):
            break
    order = [c for c in seen if c in controls]
    assert order == controls, seen


def test_a_slider_moves_with_the_keyboard(page, server):
    page.goto(f"{server.url}/wallis")
    wait_for_app(page)
    thumb = page.locator(".st-key-wallis_n").locator('[role="slider"], input[type="range"]').first
    expect(thumb).to_be_visible()
    thumb.focus()
    before = thumb.get_attribute("aria-valuenow")
    page.keyboard.press("ArrowRight")
    expect(thumb).not_to_have_attribute("aria-valuenow", before)
    page.wait_for_function("() => location.search.includes('wallis_n=')")


WIDE_FORMULAS = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
    .map(d => ({wide: d.scrollWidth > d.clientWidth + 1, tab: d.getAttribute('tabindex'),
                name: d.getAttribute('aria-label')}))"""


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_formula_wider_than_its_column_is_reached_and_scrolled_by_keyboard(
    page, server, axe_source, lang
):
    """In a narrow window (a phone, or a page zoomed to 200 %) a formula scrolls sideways:
    Tab reaches it and the arrow keys scroll it (axe: no scrollable region out of the
    keyboard's reach). In a wide one it fits and is no tab stop."""
    from ui.i18n import strings

    page.set_viewport_size({"width": 400, "height": 900})
    page.goto(f"{server.url}/diffusion_parameterisations?lang={lang}")
    wait_for_app(page)
    page.wait_for_function(f"() => ({WIDE_FORMULAS})().some(f => f.wide && f.tab === '0')")
    formulas = page.evaluate(WIDE_FORMULAS)
    assert all((f["tab"] == "0") == f["wide"] for f in formulas), formulas
    assert {f["name"] for f in formulas if f["wide"]} == {strings(lang)["kit.wide_formula"]}
    serious = [v for v in violations(page, axe_source) if v["impact"] in ("serious", "critical")]
    assert serious == [], serious
    page.locator('[data-testid="stMain"] h1').first.click()
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('katex-display')"):
            break
    else:
        raise AssertionError("Tab never reached the wide formula")
    assert page.evaluate("document.activeElement.scrollLeft") == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.activeElement.scrollLeft > 0")
    page.set_viewport_size({"width": 1400, "height": 1000})  # now it fits: no tab stop
    page.wait_for_function(
        f"() => ({WIDE_FORMULAS})().every(f => !f.wide && f.tab === null && f.name === null)"
    )


# each invariant badge of the main area: its width as laid out and the width its text needs
BADGES = """() => [...document.querySelectorAll('[data-testid="stMain"] .stMarkdownBadge')]
  .map((b) => ({text: b.textContent, shown: b.clientWidth, needs: b.scrollWidth,
                lines: Math.round(b.getBoundingClientRect().height / 16)}))"""


def test_a_badge_wider_than_its_column_wraps_instead_of_being_cut_off(page, server):
    """Streamlit draws a badge on one line and cuts it with "…": at 400 px (a phone, or 200 %
    zoom) the depthwise page's Japanese checks lost their numbers. They wrap (ui.a11y)."""
    page.set_viewport_size({"width": 400, "height": 900})
    page.goto(f"{server.url}/depthwise_separable?lang=ja")
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stMain"] .stMarkdownBadge')
    badges = page.evaluate(BADGES)
    assert len(badges) >= 3, badges
    assert all(b["needs"] <= b["shown"] + 1 for b in badges), badges  # nothing hidden
    assert any(b["lines"] >= 2 for b in badges), badges  # and one did need a second line
