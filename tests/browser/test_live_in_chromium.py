"""The live temperature control (ui/live.py) in a real Chromium: an arrow key redraws the
chart and the numbers in the browser with no message to the server; once the slider settles
the value reaches the URL and the formula, and that rerun leaves the chart alone; a link opens
at its value."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import plotly
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench._latency_js import SEND_HOOK_JS
from tests.browser.conftest import screenshot, wait_for_app

LIVE = ".st-key-softmax_T .adlab-live"
SLIDER = f"{LIVE} input[type=range]"
PLOT = ".st-key-softmax_probs_chart .js-plotly-plot"
NUMBERS = f"{LIVE} .live-numbers"

# In the page: press-to-redraw bookkeeping. Stamps the keydown, the first change of the
# chart and of the numbers after it, and counts websocket sends (SEND_HOOK_JS) until then.
WATCH_JS = """() => {
  const plot = document.querySelector('.st-key-softmax_probs_chart .js-plotly-plot');
  const numbers = document.querySelector('.st-key-softmax_T .live-numbers');
  const w = (window.__liveWatch = {
    before: plot.innerHTML, numbersBefore: numbers.innerText,
    down: null, chart: null, numbers: null,
  });
  document.addEventListener('keydown', (e) => { if (w.down === null) w.down = e.timeStamp; },
                            {capture: true, once: true});
  new MutationObserver(() => {
    const now = performance.now();
    if (w.down === null) return;
    if (w.chart === null && plot.innerHTML !== w.before) w.chart = now;
    if (w.numbers === null && numbers.innerText !== w.numbersBefore) w.numbers = now;
  }).observe(document.querySelector('.st-key-softmax_T'),
             {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def _open(page: Page, url: str, query: str = "") -> None:
    page.add_init_script(SEND_HOOK_JS)
    page.goto(f"{url}/softmax{query}")
    wait_for_app(page)
    page.wait_for_selector(f"{PLOT} .main-svg")
    expect(page.locator(LIVE)).to_have_attribute("data-pending", "0")


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.evaluate("location.href")).query)


def test_an_arrow_key_redraws_chart_and_numbers_with_no_message_to_the_server(page, server):
    _open(page, server.url)
    slider = page.locator(SLIDER)
    expect(slider).to_have_attribute("aria-valuetext", "1")
    page.evaluate(WATCH_JS)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.__liveWatch.chart && window.__liveWatch.numbers")
    watch = page.evaluate("() => window.__liveWatch")
    sends = page.evaluate("d => window.__latencySends.filter((t) => t >= d)", watch["down"])
    # nothing went to the server before the chart and the numbers changed
    assert not [t for t in sends if t <= max(watch["chart"], watch["numbers"])]
    expect(slider).to_have_attribute("aria-valuetext", "1.1")
    expect(page.locator(NUMBERS)).to_contain_text("0.6389")  # p₃ at T = 1.1, from core
    screenshot(page, "softmax-live-step")


def test_the_settled_value_reaches_the_url_and_the_formula_and_the_chart_stays(page, server):
    _open(page, server.url)
    slider = page.locator(SLIDER)
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")  # 1 → 0.88 → 0.78 → 0.69
    expect(slider).to_have_attribute("aria-valuetext", "0.69")
    page.wait_for_timeout(100)  # the redraw of the last step is done; the report is not sent
    # from now on the chart must not change: mark its node and count its mutations
    page.evaluate(
        """() => {
          const plot = document.querySelector('.st-key-softmax_probs_chart .js-plotly-plot');
          plot.__mark = 'kept';
          window.__chartMutations = 0;
          new MutationObserver((r) => { window.__chartMutations += r.length; })
            .observe(plot, {subtree: true, childList: true, attributes: true,
                            characterData: true});
        }"""
    )
    page.wait_for_function("() => location.search.includes('softmax_T=0.69')")
    expect(page.locator(LIVE)).to_have_attribute("data-pending", "0")
    wait_for_app(page)
    expect(page.locator('[data-testid="stMain"] .katex').first).to_contain_text("0.69")
    page.wait_for_timeout(300)
    mark = page.evaluate(f"() => document.querySelector('{PLOT}').__mark")
    assert mark == "kept"  # the same chart node: not remounted
    assert page.evaluate("() => window.__chartMutations") == 0
    assert _query(page)["softmax_T"] == ["0.69"]
    expect(slider).to_have_attribute("aria-valuetext", "0.69")


def test_a_link_opens_at_its_value_and_a_bad_one_falls_back(page, server):
    _open(page, server.url, "?softmax_T=0.5&softmax_logits=5%2C+6%2C+7")
    expect(page.locator(SLIDER)).to_have_attribute("aria-valuetext", "0.5")
    expect(page.locator(NUMBERS)).to_contain_text("0.8668")  # p₃ at T = 0.5
    expect(page.locator('[data-testid="stMain"] .katex').first).to_contain_text("0.8668")
    screenshot(page, "softmax-live-link")
    page.goto(f"{server.url}/softmax?softmax_T=banana")
    wait_for_app(page)
    expect(page.locator(SLIDER)).to_have_attribute("aria-valuetext", "1")
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("softmax_T")  # the notice
    page.wait_for_function("() => location.search.includes('softmax_T=1')")


# In the page: the chart's traces as drawn (trace ids and styles aside), and the same state
# drawn from scratch by Plotly.newPlot in a hidden box of the chart's size.
DRAWN_JS = """(key) => {
  const shape = (plot) => [...plot.querySelectorAll('.cartesianlayer .trace')]
    .map((t) => t.outerHTML.replace(/ style="[^"]*"/g, '').replace(/trace[0-9a-f]{6}/g, ''));
  const live = document.querySelector(`.st-key-${key} .adlab-live`).live;
  const box = document.createElement('div');
  box.style.cssText = `position:absolute;left:-9999px;width:${live.plot.clientWidth}px;`
    + `height:${live.plot.clientHeight}px`;
  document.body.appendChild(box);
  const state = live.data.states[live.index];
  // a heatmap's hover over cell (1, 1) of each patched heatmap: what the student reads
  const hover = (plot) => state.traces.filter(([i]) => plot._fullData[i].type === 'heatmap')
    .map(([i]) => {
      const t = plot._fullData[i];
      window.Plotly.Fx.hover(plot, {xval: 1, yval: 1}, t.xaxis + t.yaxis);
      const text = [...plot.querySelectorAll('.hovertext')].map((e) => e.textContent);
      window.Plotly.Fx.unhover(plot);
      return text;
    });
  return window.Plotly.newPlot(box, live.traces(state), live.layout, live.data.config)
    .then(() => {
      const out = {label: state.label, by: live.drawnBy,
                   shown: shape(live.plot), fresh: shape(box),
                   hoverShown: hover(live.plot), hoverFresh: hover(box)};
      window.Plotly.purge(box);
      box.remove();
      return out;
    });
}"""


# what a live slider holds: its state, the server's, a report in flight, the focus
HELD_JS = """(key) => {
  const root = document.querySelector(`.st-key-${key} .adlab-live`);
  const live = root.live;
  const focus = document.activeElement;
  return {index: live.index, server: live.serverIndex, reported: live.reported,
          settling: live.timer !== null, value: live.input.value, by: live.drawnBy,
          focus: `${focus?.tagName}.${focus?.className}`, focusHere: root.contains(focus)};
}"""


def _wait_for_state(page: Page, key: str, index: int) -> None:
    """The live slider of ``key`` shows state ``index`` (its key's input event has run); a
    timeout says what the slider held (CI once saw the last state missing, round 46)."""
    try:
        page.wait_for_function(
            "([key, i]) => document.querySelector(`.st-key-${key} .adlab-live`).live.index === i",
            arg=[key, index],
            timeout=10_000,
        )
    except PlaywrightTimeout:
        pytest.fail(f"state {index} never shown: {page.evaluate(HELD_JS, key)}")


@pytest.mark.parametrize(
    ("path", "key", "by"),
    [
        ("softmax", "softmax_T", {"move"}),
        ("attention_maps", "attention_maps_query", {"move"}),
        # σ⁰ = id has no crossings: an empty trace, redrawn, and the step after it too
        ("permutations", "permutations_k", {"move", "react"}),
        ("transformer_families", "transformer_families_head", {"repaint"}),
        ("swin_windows", "swin_windows_window", {"repaint"}),
        # the step's column of the loss panel and the similarities: two heatmaps repainted
        ("simclr?simclr_view=training", "simclr_step", {"repaint"}),
        ("wallis?wallis_view=integrals", "wallis_N", {"move"}),  # filled curves moved
        ("simclr?simclr_view=similarity", "simclr_anchor", {"move"}),  # the softmax bars
        (  # the shifted log-SNR curve, on the fixed axes of every schedule
            "diffusion_parameterisations?diffusion_parameterisations_view=schedules",
            "diffusion_parameterisations_resolution",
            {"move"},
        ),
        # a new N changes the heatmaps' shapes: redrawn, on the one layout of every N
        ("backprop_by_hand", "backprop_by_hand_N", {"react"}),
    ],
)
def test_every_step_draws_what_a_fresh_chart_of_that_state_draws(page, server, path, key, by):
    """Each state, drawn the fast way (traces moved by Plotly.animate with no redraw, or
    heatmaps repainted alone), equals a from-scratch drawing of it: no trace lost, none left
    over from the state before, no axis moved, the same heatmap image."""
    page.goto(f"{server.url}/{path}")
    wait_for_app(page)
    live = page.locator(f".st-key-{key} .adlab-live")
    page.wait_for_selector(f".st-key-{key} .adlab-live .main-svg")
    slider = live.locator("input[type=range]")
    n = int(slider.get_attribute("max")) + 1
    slider.focus()
    page.keyboard.press("Home")
    seen, ways = set(), set()
    for step in range(n + 2):  # every state, and back from the last one
        if step:
            page.keyboard.press("ArrowRight" if step < n else "ArrowLeft")
        _wait_for_state(page, key, step if step < n else max(0, 2 * (n - 1) - step))
        page.wait_for_timeout(60)  # a moved state is drawn in the next animation frame
        drawn = page.evaluate(DRAWN_JS, key)
        assert drawn["shown"] == drawn["fresh"], drawn["label"]
        assert drawn["hoverShown"] == drawn["hoverFresh"], drawn["label"]
        assert "repaint" not in by or any(drawn["hoverShown"])  # a hover was read
        seen.add(drawn["label"])
        if step:  # (step 0: Home may be where the page opened, drawn by newPlot)
            ways.add(drawn["by"])
    assert len(seen) == n
    assert ways == by  # the fast way was taken (not a silent fall-back to Plotly.react)


def test_a_redraw_right_after_a_move_shows_the_later_state(page, server):
    """σ² → σ¹ moves the traces in the next frame; σ¹ → σ⁰ = id (no crossings) is redrawn
    at once. Pressed within one frame, the redraw must not be overwritten by the move."""
    key = "permutations_k"
    page.goto(f"{server.url}/permutations?{key}=2")
    wait_for_app(page)
    page.wait_for_selector(f".st-key-{key} .adlab-live .main-svg")
    slider = page.locator(f".st-key-{key} input[type=range]")
    expect(slider).to_have_attribute("aria-valuetext", "2")
    slider.focus()
    # both steps inside one task: nothing can draw between them
    page.evaluate(
        """(key) => {
          const input = document.querySelector(`.st-key-${key} input[type=range]`);
          for (const _ of [1, 2]) {
            input.value = String(Number(input.value) - 1);
            input.dispatchEvent(new Event('input'));
          }
        }""",
        key,
    )
    expect(slider).to_have_attribute("aria-valuetext", "0")
    page.wait_for_timeout(150)  # the queued move's frame, and the redraw after it
    drawn = page.evaluate(DRAWN_JS, key)
    assert drawn["by"] == "react"
    assert drawn["shown"] == drawn["fresh"]


# The plotly.js the app serves (ui/live.py serves the plotly package's own bundle).
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
# A bar beside a heatmap or a contour: the bar moved with Plotly.animate and no redraw (the
# move of ui/live/live.js: every trace listed, the unpatched one with an empty patch), or
# the figure redrawn with Plotly.react; what is left in the heatmap's or contour's layer.
MOVE_BESIDE_JS = """async ([kind, how]) => {
  const gd = document.createElement('div');
  document.body.appendChild(gd);
  const fig = (y) => [
    {type: 'bar', x: ['a', 'b'], y},
    {type: kind, z: [[1, 2, 3], [3, 2, 1], [1, 1, 2]], xaxis: 'x2', yaxis: 'y2'},
  ];
  const layout = {
    xaxis: {domain: [0, 0.45]}, yaxis: {range: [0, 1]}, xaxis2: {domain: [0.55, 1]},
    yaxis2: {anchor: 'x2'},
  };
  await Plotly.newPlot(gd, fig([0.2, 0.8]), layout);
  const before = gd.querySelectorAll(`.${kind}layer *`).length;
  if (how === 'move') {
    await Plotly.animate(gd, {data: [{y: [0.6, 0.4]}, {}], traces: [0, 1]},
      {mode: 'immediate', transition: {duration: 0}, frame: {duration: 0, redraw: false}});
  } else {
    await Plotly.react(gd, fig([0.6, 0.4]), {...layout, datarevision: 1});
  }
  return {before, after: gd.querySelectorAll(`.${kind}layer *`).length,
          bar: gd.calcdata[0].map((p) => p.s)};
}"""


@pytest.mark.parametrize("kind", ["heatmap", "contour"])
def test_a_move_would_empty_a_heatmap_beside_the_moved_trace_so_live_never_moves_one(
    page: Page, kind: str
):
    """Why ``ui.live`` moves a figure's traces only when every trace is a scatter or a bar
    (``_moves_traces``, ``_movable``): in the plotly.js the app serves, Plotly.animate with
    no redraw draws the moved bar and leaves a heatmap or contour beside it with nothing in
    its layer; Plotly.react keeps it."""
    page.set_content("<html><body></body></html>")
    page.add_script_tag(path=str(PLOTLY_JS))
    moved = page.evaluate(MOVE_BESIDE_JS, [kind, "move"])
    assert moved["before"] > 0 and moved["bar"] == [0.6, 0.4]
    assert moved["after"] == 0
    redrawn = page.evaluate(MOVE_BESIDE_JS, [kind, "react"])
    assert redrawn["bar"] == [0.6, 0.4] and redrawn["after"] == redrawn["before"] > 0
