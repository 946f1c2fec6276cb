"""A kept chart (``kit.chart(..., kept=True)``, ``ui/live.py`` kept_chart) in a real Chromium:
a slider step gives the chart on the page the new figure in place (``Plotly.react`` on the
same plot), and what it then draws is the server's new figure, its axes included."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from tests.browser.conftest import screenshot, wait_for_app

KEY = "set_transformer_pooling_chart"
PLOT = f".st-key-{KEY} .js-plotly-plot"

# What the plot draws (each trace's computed y, the weighted panel's y range) and what the
# server sent (the payload's figure), and whether the plot is the node marked before the step.
DRAWN_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  return {
    marked: gd.__marked === true, by: live.drawnBy, digest: live.digest,
    drawn: gd.calcdata.map((trace) => trace.map((point) => point.s ?? point.y)),
    sent: live.data.figure.data.map((trace) => trace.y),
    range: gd._fullLayout.yaxis5.range,
  };
}"""


def _drawn(page: Page) -> dict:
    return page.evaluate(DRAWN_JS, PLOT)


def test_a_step_redraws_the_kept_chart_in_place_with_the_new_figure(page: Page, server):
    page.goto(f"{server.url}/set_transformer?set_transformer_view=pooling&set_transformer_n=64")
    wait_for_app(page)
    page.wait_for_selector(f"{PLOT} .main-svg")
    expect(page.locator(f".st-key-{KEY}_kept .live-control")).to_be_hidden()  # no control
    before = _drawn(page)
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", PLOT)
    page.locator(".st-key-set_transformer_shuffle input").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([sel, digest]) => document.querySelector(sel)"
        ".closest('.adlab-live').live.digest !== digest",
        arg=[PLOT, before["digest"]],
    )
    wait_for_app(page)
    after = _drawn(page)
    assert after["marked"] and after["by"] == "react-new"  # the same plot, given new data
    for drawn, sent in zip(after["drawn"], after["sent"], strict=True):
        assert drawn == sent  # Plotly computed the new data, not the old
    # the invariant pools' diamonds stay on their bars; the position-weighted sum moves,
    # and its panel's y axis covers where it moved to
    assert after["sent"][0] == before["sent"][0] and after["sent"][1] == before["sent"][1]
    assert after["sent"][9] != before["sent"][9]
    lo, hi = after["range"]
    assert all(lo <= y <= hi for y in after["sent"][8] + after["sent"][9])
    query = parse_qs(urlparse(page.url).query)
    assert query["set_transformer_shuffle"] == ["2"] and f"{KEY}_kept" not in query
    screenshot(page, "kept_chart_pooling")
