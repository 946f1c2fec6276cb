"""Every page in a real browser: loads, a control moves, its chart changes, no error."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from bench.server import CHART_REDRAWN_JS, ROOT, streamlit_server
from tests.browser.conftest import screenshot, wait_for_app
from ui.registry import CONCEPTS

PROBED = list(CONCEPTS)
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def chart_html(page: Page, key: str) -> str:
    return page.locator(f".st-key-{key} .js-plotly-plot").first.inner_html()


def test_home_lists_the_concepts_and_links_to_ready_pages(page, server):
    page.goto(server.url)
    wait_for_app(page)
    expect(page.locator("h1").first).to_have_text("Attention & Diffusion Lab")
    expect(page.locator(ERRORS)).to_have_count(0)
    sidebar = page.locator(".st-key-nav")
    for section in ("Foundations",):
        expect(sidebar).to_contain_text(section)
    # app.py draws the links after the page, into a place kept at the sidebar's top: above
    # the language and presenter controls, every page listed
    links, language = sidebar.bounding_box(), page.locator(".st-key-lang").bounding_box()
    assert links and language and links["y"] + links["height"] <= language["y"]
    expect(sidebar.get_by_role("link")).to_have_count(len(CONCEPTS) + 1)
    screenshot(page, "home")
    page.get_by_role("link", name="Open").first.click()
    # the click navigates inside the app: wait for the address, not only for a quiet app
    page.wait_for_url(lambda url: urlparse(url).path.strip("/") == PROBED[0].slug)
    wait_for_app(page)


def test_the_favicon_is_never_fetched_and_a_step_makes_no_request(page, server):
    """No fetch at run time: a ":material/...:" page icon made the browser load the favicon
    from fonts.gstatic.com. Served from this server, Streamlit's icon link, set again on
    every run, made the browser fetch it on every slider step. The icon is a data: URL
    (ui.nav.favicon), and a step talks to the server over the websocket alone."""
    sparse = next(c for c in PROBED if c.slug == "sparse_attention")  # a server-side slider
    for path in ("", sparse.slug):
        page.goto(f"{server.url}/{path}")
        wait_for_app(page)
        icons = page.evaluate("[...document.querySelectorAll('link[rel*=icon]')].map(l => l.href)")
        assert icons and all(href.startswith("data:image/png;base64,") for href in icons), icons
    slider_key, chart_key = sparse.probe
    page.wait_for_selector(f".st-key-{chart_key} .js-plotly-plot .main-svg")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for _ in range(3):  # three runs of the page, each sets the icon link again
        before = chart_html(page, chart_key)
        page.locator(f".st-key-{slider_key} input[type=range]").first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(CHART_REDRAWN_JS, arg=[chart_key, before])
        wait_for_app(page)
    page.wait_for_timeout(300)
    assert requests == [], requests


@pytest.mark.parametrize("concept", PROBED, ids=lambda c: c.slug)
def test_page_loads_and_its_chart_follows_the_slider(page, server, concept):
    slider_key, chart_key = concept.probe
    page.goto(f"{server.url}/{concept.slug}")
    wait_for_app(page)
    page.wait_for_selector(f".st-key-{chart_key} .js-plotly-plot .main-svg")
    expect(page.locator(ERRORS)).to_have_count(0)
    screenshot(page, concept.slug)

    before = chart_html(page, chart_key)
    thumb = page.locator(f".st-key-{slider_key} input[type=range]").first
    value_before = thumb.input_value()
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        CHART_REDRAWN_JS,
        arg=[chart_key, before],
    )
    wait_for_app(page)
    assert thumb.input_value() != value_before
    expect(page.locator(ERRORS)).to_have_count(0)
    # the new value is in the address bar, ready to share
    query = parse_qs(urlparse(page.url).query)
    assert slider_key in query


def test_a_shared_link_restores_the_exact_view(page, server):
    page.goto(f"{server.url}/softmax?softmax_T=0.3&softmax_logits=5%2C+6%2C+7")
    wait_for_app(page)
    expect(page.locator(".st-key-softmax_T input[type=range]")).to_have_attribute(
        "aria-valuetext", re.compile(r"0\.3")
    )
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("0.9644")
    screenshot(page, "softmax-shared-link")


def test_bad_input_shows_a_message_and_the_page_keeps_working(page, server):
    page.goto(f"{server.url}/softmax")
    wait_for_app(page)
    box = page.locator(".st-key-softmax_logits input")
    box.fill("__import__('os').system('id')")
    box.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text("can't be used")
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    screenshot(page, "softmax-bad-input")
    box.fill("1, 2, 3")
    box.press("Enter")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)


def test_a_deep_link_on_a_fresh_server_still_goes_through_app_py(browser):
    """Streamlit runs pages/<x>.py alone on a fresh server unless ui.boot reruns it."""
    with streamlit_server(ROOT / "app.py") as fresh:
        ctx = browser.new_context()
        page = ctx.new_page()
        page.goto(f"{fresh.url}/softmax")
        wait_for_app(page)
        nav = page.locator(".st-key-nav")
        expect(nav).to_contain_text("Foundations")
        expect(nav).to_contain_text("Home")
        expect(page.locator("h1").first).to_have_text("Softmax & temperature")
        ctx.close()


def _step_and_wait(page: Page, control: str, key: str, chart_key: str) -> None:
    """Press ``key`` on the control's input and wait for the chart to change."""
    before = chart_html(page, chart_key)
    page.locator(f".st-key-{control} input").first.focus()
    page.keyboard.press(key)
    page.wait_for_function(CHART_REDRAWN_JS, arg=[chart_key, before])
    wait_for_app(page)


# Every Plotly chart drawn from now on: its draws, and whether each drew newly computed data.
WATCH_DRAWS_JS = """() => {
  window.__draws = []; const seen = new WeakSet(document.querySelectorAll('.js-plotly-plot'));
  const hook = () => document.querySelectorAll('.js-plotly-plot').forEach((gd) => {
    if (seen.has(gd) || !gd.on) return;
    seen.add(gd); const chart = window.__draws.length; window.__draws.push([]);
    let last = null;
    gd.on('plotly_afterplot', () => {
      window.__draws[chart].push({computed: gd.calcdata !== last, x: gd.data.at(-1).x});
      last = gd.calcdata;
    });
  });
  new MutationObserver(hook).observe(document.body, {childList: true, subtree: true});
}"""


def test_a_new_chart_is_not_computed_twice(page, server):
    """Streamlit draws a changed figure as a new chart, then hands Plotly the same figure
    again with its width: kit.chart's datarevision keeps that second pass to a layout.
    (The sub-pixel shuffle chart is a Streamlit chart: a kept one showed no gain there.)"""
    page.goto(f"{server.url}/sub_pixel_convolution")
    wait_for_app(page)
    key = "sub_pixel_convolution_shuffle_chart"
    page.wait_for_selector(f".st-key-{key} .js-plotly-plot .main-svg")
    page.evaluate(WATCH_DRAWS_JS)
    slider = page.locator(".st-key-sub_pixel_convolution_out_col")
    thumb = slider.locator('[role="slider"], input[type="range"]').first
    thumb.focus()
    for step in range(4):
        page.keyboard.press("ArrowLeft" if step < 2 else "ArrowRight")
        page.wait_for_function("n => window.__draws.length >= n", arg=step + 1)
        page.wait_for_timeout(600)  # Streamlit's second pass comes after a resize measurement
    draws = page.evaluate("window.__draws")
    assert len(draws) == 4, draws  # one new chart per step
    for col, chart in zip([2, 1, 2, 3], draws, strict=True):  # from the default column 3
        assert chart and all(d["x"] == [col] for d in chart), chart  # the new output pixel
        assert [d["computed"] for d in chart] == [True] + [False] * (len(chart) - 1), chart


def test_the_view_picker_and_a_part_control_rerun_the_part_and_live_sliders_still_work(
    page, server
):
    """The part is a fragment (kit.Page.run) with the live part's own fragment nested in it:
    after the outer one reruns (the seed), the inner slider must still redraw its chart, and
    every value must reach the address bar."""
    page.goto(f"{server.url}/softmax")
    wait_for_app(page)
    page.locator(".st-key-softmax_view label:has(input[type='radio'])").nth(1).click()
    page.wait_for_selector(".st-key-softmax_hist_chart .js-plotly-plot .main-svg")
    wait_for_app(page)
    _step_and_wait(page, "softmax_seed", "ArrowUp", "softmax_hist_chart")  # the outer fragment
    _step_and_wait(page, "softmax_d", "ArrowRight", "softmax_hist_chart")  # the inner one
    _step_and_wait(page, "softmax_seed", "ArrowUp", "softmax_hist_chart")
    _step_and_wait(page, "softmax_d", "ArrowRight", "softmax_hist_chart")
    expect(page.locator(ERRORS)).to_have_count(0)
    query = parse_qs(urlparse(page.url).query)
    assert query["softmax_view"] == ["sqrt_d"] and query["softmax_seed"] == ["2"]
    assert query["softmax_d"] == ["256"]  # 64 → 128 → 256
    expect(page.locator('[data-testid="stMain"] h1')).to_have_count(1)  # nothing drawn twice


def _sentence_after(page: Page) -> str:
    wait_for_app(page)
    expect(page.locator(ERRORS)).to_have_count(0)
    return page.locator(".st-key-attention_maps_sentence input").input_value()


def test_a_widget_a_view_brings_back_keeps_its_value(page, server):
    """The sentence is not drawn by the scaling view; back on a sentence view it must show
    the sentence again, and keep it when a control of the part reruns the part (a fragment
    rerun that re-created it showed it empty under Streamlit 1.67: "type a sentence")."""
    page.goto(f"{server.url}/attention_maps?attention_maps_sentence=the+cat+sat+down")
    wait_for_app(page)
    views = page.locator(".st-key-attention_maps_view label:has(input[type='radio'])")
    views.nth(2).click()  # scaling: no sentence
    page.wait_for_selector(".st-key-attention_maps_scaling_chart .main-svg")
    views.nth(3).click()  # masks: the sentence again
    page.wait_for_selector(".st-key-attention_maps_mask_chart .main-svg")
    assert _sentence_after(page) == "the cat sat down"
    _step_and_wait(page, "attention_maps_d", "ArrowRight", "attention_maps_mask_chart")
    assert _sentence_after(page) == "the cat sat down"
    views.nth(4).click()
    page.wait_for_selector(".st-key-attention_maps_torch_chart .main-svg")
    assert _sentence_after(page) == "the cat sat down"


def test_a_toggle_inside_the_part_brings_back_the_typed_matrix(page, server):
    """The Cayley–Hamilton part is a fragment: its toggle swaps the typed matrix for a random
    one and back by fragment reruns; the matrix must come back as typed, with no error."""
    typed = "1 2; 3 4"
    page.goto(f"{server.url}/cayley_hamilton?cayley_hamilton_matrix=1+2%3B+3+4")
    wait_for_app(page)
    toggle = page.locator(".st-key-cayley_hamilton_random label").first
    toggle.click()
    page.wait_for_selector(".st-key-cayley_hamilton_n input")
    _step_and_wait(page, "cayley_hamilton_n", "ArrowUp", "cayley_hamilton_chart")
    toggle.click()
    page.wait_for_selector(".st-key-cayley_hamilton_matrix input")
    wait_for_app(page)
    assert page.locator(".st-key-cayley_hamilton_matrix input").input_value() == typed
    _step_and_wait(page, "cayley_hamilton_k", "ArrowRight", "cayley_hamilton_chart")
    assert page.locator(".st-key-cayley_hamilton_matrix input").input_value() == typed
    expect(page.locator(ERRORS)).to_have_count(0)


def test_a_seed_a_pattern_brings_back_keeps_its_value(page, server):
    """The sparse-attention seed shows only for patterns with random keys; the pattern radio
    reruns the part, and the seed that comes back must hold its value (not an empty box)."""
    page.goto(
        f"{server.url}/sparse_attention?sparse_attention_pattern=bigbird&sparse_attention_seed=7"
    )
    wait_for_app(page)
    seed = page.locator(".st-key-sparse_attention_seed input")
    assert seed.input_value() == "7"
    patterns = page.locator(".st-key-sparse_attention_pattern label:has(input[type='radio'])")
    patterns.first.click()  # band: no seed
    expect(seed).to_have_count(0)
    wait_for_app(page)
    patterns.last.click()  # bigbird again
    expect(seed).to_have_count(1)
    wait_for_app(page)
    assert seed.input_value() == "7"
    expect(page.locator(ERRORS)).to_have_count(0)


# Counts, on each plot element, the times Plotly assigned it computed data (``gd.calcdata``),
# and notes whether the element was visible when Plotly first computed it.
COUNT_COMPUTATIONS_JS = """
Object.defineProperty(HTMLDivElement.prototype, 'calcdata', {
  configurable: true,
  set(v) {
    if (v && !this.__computed) this.__firstVisibility = getComputedStyle(this).visibility;
    if (v) this.__computed = (this.__computed || 0) + 1;
    this.__calcdata = v;
  },
  get() { return this.__calcdata; },
});
"""


MASK_PLOT = ".st-key-sparse_attention_mask_chart .js-plotly-plot"
# the mask plot a step drew: the one not marked old (step_to_a_new_mask)
NEW_PLOT_JS = "(sel) => [...document.querySelectorAll(sel)].find((g) => !g.__old)"


def open_the_mask(page: Page, server) -> None:
    """The sparse-attention mask, with every plot's computations counted."""
    page.add_init_script(COUNT_COMPUTATIONS_JS)
    page.goto(f"{server.url}/sparse_attention?sparse_attention_view=pattern")
    wait_for_app(page)
    page.wait_for_selector(f"{MASK_PLOT} .main-svg")


def step_to_a_new_mask(page: Page, key: str, until: str = "true") -> None:
    """Press ``key`` on the n slider and wait until a new mask plot is there and ``until``
    (a JavaScript expression of ``gd``) holds, and the run has finished."""
    # every mask plot there now is old (Streamlit may still hold the last step's beside it)
    page.evaluate(
        "(sel) => document.querySelectorAll(sel).forEach((g) => (g.__old = true))", MASK_PLOT
    )
    thumb = page.locator(".st-key-sparse_attention_n input[type=range]")
    before = thumb.get_attribute("aria-valuetext")
    thumb.focus()
    page.keyboard.press(key)
    expect(thumb).not_to_have_attribute("aria-valuetext", before)  # n moved
    try:
        page.wait_for_function(
            f"(sel) => {{ const gd = ({NEW_PLOT_JS})(sel); return gd && {until}; }}", arg=MASK_PLOT
        )
    except PlaywrightTimeoutError as err:  # say what the page held instead
        plots = page.evaluate(
            "(sel) => [...document.querySelectorAll(sel)].map((g) => ({old: !!g.__old,"
            " visibility: getComputedStyle(g).visibility}))",
            MASK_PLOT,
        )
        raise AssertionError(f"no new mask plot after {key} at {page.url}: {plots}") from err
    wait_for_app(page)


def test_a_new_chart_is_computed_once(page: Page, server):
    """Streamlit draws a new chart twice (ui.streamlit_internals); the second pass must only
    lay it out. A validated figure's template object made Plotly compute the sparse-attention
    mask (a heatmap) on both passes, until kit.chart named the template
    (figures.style.ours)."""
    open_the_mask(page, server)
    step_to_a_new_mask(page, "ArrowLeft", "getComputedStyle(gd).visibility === 'visible'")
    page.wait_for_timeout(500)  # a late second computation would show here
    assert page.evaluate(f"(sel) => ({NEW_PLOT_JS})(sel).__computed", MASK_PLOT) == 1


def test_a_new_chart_is_drawn_visible(page: Page, server):
    """Streamlit keeps a new chart hidden until its element has measured its width, which
    it mostly does after Plotly's first draw (ui.streamlit_internals): the app's style shows
    that first draw, so a student sees each new chart one pass earlier. Three steps: without
    the style, most first draws are hidden."""
    open_the_mask(page, server)
    plot = MASK_PLOT
    seen = []
    for key in ("ArrowLeft", "ArrowRight", "ArrowLeft"):
        step_to_a_new_mask(page, key)
        seen.append(page.evaluate(f"(sel) => ({NEW_PLOT_JS})(sel).__firstVisibility", plot))
    assert seen == ["visible"] * 3
    # the rule itself, whatever the timing: Streamlit's inline style does not hide a chart
    hidden = "(sel) => { const gd = document.querySelector(sel); gd.style.visibility = 'hidden';"
    assert page.evaluate(hidden + " return getComputedStyle(gd).visibility; }", plot) == "visible"
    # Streamlit may still hold the step's old chart beside the new one for a moment
    expect(page.locator(plot)).to_have_count(1)
    box = page.locator(plot).bounding_box()
    main = page.locator(".st-key-sparse_attention_mask_chart").bounding_box()
    assert box and main and abs(box["width"] - main["width"]) < 2  # it fills its element
