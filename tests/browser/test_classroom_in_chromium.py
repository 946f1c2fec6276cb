"""Classroom features in a real browser, on every page: the copied link, Japanese, presenter
mode, exports."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.conftest import TIMEOUT_MS, VIEWPORT, screenshot, wait_for_app
from ui.i18n import strings
from ui.registry import CONCEPTS

PROBED = list(CONCEPTS)
READY = list(CONCEPTS)
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def formulas(page: Page) -> str:
    """The text of every rendered KaTeX formula: the numbers of the current view."""
    return "\n".join(page.locator('[data-testid="stMain"] .katex-html').all_inner_texts())


def copied_link(page: Page) -> str:
    page.locator(".st-key-share_link button").first.click()
    code = page.locator('[data-testid="stPopoverBody"] code').first
    expect(code).to_contain_text("http")
    return code.inner_text().replace("\n", "")


@pytest.mark.parametrize("concept", PROBED, ids=lambda c: c.slug)
def test_the_copied_link_restores_the_view_in_a_fresh_browser(browser, page, server, concept):
    slider_key, chart_key = concept.probe
    page.goto(f"{server.url}/{concept.slug}")
    wait_for_app(page)
    thumb = page.locator(f".st-key-{slider_key} input[type=range]").first
    expect(thumb).to_be_enabled()  # a live control (ui.live) takes keys once it has drawn
    start = thumb.input_value()
    in_url = parse_qs(urlparse(page.url).query).get(slider_key, [None])[0]
    entries = page.evaluate("history.length")
    thumb.focus()
    for _ in range(2):
        page.keyboard.press("ArrowRight")
        wait_for_app(page)
    if thumb.input_value() == start:  # the slider started at its right end
        for _ in range(4):
            page.keyboard.press("ArrowLeft")
            wait_for_app(page)
    moved = thumb.input_value()
    assert moved != start
    # The address bar is written at the end of the run that drew the moved slider's view.
    page.wait_for_function(
        "([k, v]) => new URLSearchParams(location.search).get(k) !== v", arg=[slider_key, in_url]
    )
    wait_for_app(page)
    # written in place (ui.state.flush), by scripts whose elements take no room on the page
    assert page.evaluate("history.length") == entries
    heights = page.evaluate(
        """[...document.querySelectorAll('script[data-adlab-url]')].map((s) =>
             s.closest('[data-testid="stElementContainer"]').getBoundingClientRect().height)"""
    )
    assert heights and set(heights) == {0}
    view = formulas(page)
    link = copied_link(page)
    assert urlparse(link).path.strip("/") == concept.slug
    assert slider_key in parse_qs(urlparse(link).query)

    fresh = browser.new_context(viewport=VIEWPORT)  # no cookies, no session: a new student
    other = fresh.new_page()
    other.set_default_timeout(TIMEOUT_MS)
    other.goto(link)
    wait_for_app(other)
    other.wait_for_selector(f".st-key-{chart_key} .js-plotly-plot .main-svg")
    assert other.locator(f".st-key-{slider_key} input[type=range]").first.input_value() == moved
    restored = formulas(other)
    if restored != view:  # the first page may still have been drawing its last run
        page.wait_for_timeout(2_000)
        view = formulas(page)
    assert restored == view
    expect(other.locator(ERRORS)).to_have_count(0)
    fresh.close()


@pytest.mark.parametrize("concept", READY, ids=lambda c: c.slug)
def test_every_page_speaks_japanese(page, server, concept):
    ja = strings("ja")
    assert f"{concept.slug}.title" in ja, f"no Japanese title for {concept.slug}"
    page.goto(f"{server.url}/{concept.slug}?lang=ja")
    wait_for_app(page)
    expect(page.locator("h1").first).to_have_text(ja[f"{concept.slug}.title"])
    expect(page.locator(".st-key-nav")).to_contain_text(ja["home.nav"])
    expect(page.locator(ERRORS)).to_have_count(0)
    screenshot(page, f"{concept.slug}-ja")


def test_the_language_selector_switches_and_the_choice_follows_to_other_pages(page, server):
    page.goto(f"{server.url}/softmax")
    wait_for_app(page)
    # The selector sits below 25 page links; a rerun landing while its menu opens closes
    # the menu again, so open it until the option shows (at most a few tries).
    select, option = page.locator(".st-key-lang"), page.get_by_role("option", name="日本語")
    select.scroll_into_view_if_needed()
    for _ in range(4):
        select.click()
        try:
            option.wait_for(state="visible", timeout=5_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
    option.click()
    wait_for_app(page)
    ja = strings("ja")
    expect(page.locator("h1").first).to_have_text(ja["softmax.title"])
    nav = page.locator(".st-key-nav a")
    current = nav.and_(page.locator("[aria-current=page]"))  # named without its icon
    expect(current).to_have_accessible_name(ja["softmax.title"])
    entries = page.evaluate("history.length")
    nav.filter(has_text=ja["attention_maps.title"]).click()
    wait_for_app(page)
    expect(page.locator("h1").first).to_have_text(ja["attention_maps.title"])
    page.wait_for_function("() => location.search.includes('attention_maps_')")
    assert parse_qs(urlparse(page.url).query).get("lang") == ["ja"]
    # the page opened in this session (ui/nav/nav.js): one history entry, the new page marked
    assert page.evaluate("history.length") == entries + 1
    expect(current).to_have_accessible_name(ja["attention_maps.title"])
    page.go_back()  # Back: the page before, still in Japanese
    expect(page.locator("h1").first).to_have_text(ja["softmax.title"])
    assert urlparse(page.url).path.strip("/") == "softmax"


def test_presenter_mode_steps_through_try_this_with_the_clicker_keys(page, server):
    page.goto(f"{server.url}/softmax?present=1")
    wait_for_app(page)
    # The sidebar starts collapsed (Streamlit marks it with data-collapsed, older releases
    # with aria-expanded).
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=stSidebar]');"
        " return s && (s.dataset.collapsed === 'true'"
        " || s.getAttribute('aria-expanded') === 'false'); }"
    )
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text("Step 1 of")
    # Projector type: at least 20 px (the normal page uses 16 px).
    page.wait_for_function(
        "() => parseFloat(getComputedStyle(document.querySelector("
        "'[data-testid=stMain] [data-testid=stMarkdownContainer] p')).fontSize) >= 20"
    )
    screenshot(page, "softmax-presenter")
    page.locator("h1").first.click()  # focus the page, not a control
    page.keyboard.press("PageDown")
    expect(main).to_contain_text("Step 2 of")
    page.wait_for_function("() => location.search.includes('softmax_step=2')")
    page.keyboard.press("PageUp")
    expect(main).to_contain_text("Step 1 of")


def test_data_tables_and_exports_of_a_heatmap_page(page, server):
    page.goto(f"{server.url}/attention_maps")
    wait_for_app(page)
    page.locator(".st-key-attention_maps_data summary").click()
    wait_for_app(page)
    box = page.locator(".st-key-attention_maps_data")
    expect(box.locator('[data-testid="stDataFrame"]').first).to_be_visible()
    screenshot(page, "attention_maps-data")

    with page.expect_download() as info:
        box.get_by_role("button", name="Chart data (CSV)").first.click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert rows and set(rows[0]) == {"trace", "x", "y", "z"}
    weights = [float(r["z"]) for r in rows if r["z"]]
    assert weights and all(0.0 <= w <= 1.0 + 1e-9 for w in weights)  # attention weights

    with page.expect_download() as info:
        box.get_by_role("button", name="Page state (JSON)").click()
    state = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert state["page"] == "attention_maps" and state["lang"] == "en"
    assert "attention_maps_query" in state["params"]
