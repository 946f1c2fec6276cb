"""A kept chart (``kit.chart(..., kept=True)``, ``ui/live.py`` kept_chart) in a real Chromium:
a slider step gives the chart on the page the new figure in place (``Plotly.react`` on the
same plot), and what it then draws is the server's new figure, its axes included."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from tests.browser.conftest import log_plotly_calls, plotly_calls, screenshot, wait_for_app
from ui import live

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


SCRUB = ".st-key-reverse_diffusion_scrub_chart .js-plotly-plot"
# The kept scrub: how it was drawn, Plotly's slider position and the frame it names, the
# frames Plotly holds (name → the particles' x), and what the plot draws of the trajectories
# (trace 1) and the exact panel's particles (trace 2); the payload's frames and base traces,
# and the payload's bytes as they came.
SCRUB_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  const slider = gd._fullLayout.sliders[0];
  const frames = gd._transitionData._frames;
  const held = Object.fromEntries(frames.map((f) => [f.name, f.data[0].x]));
  return {
    marked: gd.__marked === true, by: live.drawnBy, moved: live.movedBy, digest: live.digest,
    active: slider.active, frame: slider.steps[slider.active].args[0][0],
    names: slider.steps.map((s) => s.args[0][0]), held, heldNames: frames.map((f) => f.name),
    paths: gd.calcdata[1].map((p) => p.x), particles: gd.calcdata[2].map((p) => p.x),
    sent: Object.fromEntries(live.data.frames.map((f) => [f.name, f.data[0].x])),
    sentPaths: live.data.figure.data[1].x, sentActive: live.layout.sliders[0].active,
    raw: new TextDecoder().decode(live.sent),
  };
}"""


def _scrub(page: Page) -> dict:
    return page.evaluate(SCRUB_JS, SCRUB)


def _press(
    page: Page, chart: str, control: str, key: str, digest: str, focus: str = "input"
) -> None:
    """Press ``key`` on the reverse page's ``control`` (on its first ``focus`` element: a
    radio's arrow key moves from the focused radio, so ``input:checked``); return once
    ``chart`` has drawn a new payload (its digest differs) and the moved traces' animation
    frame has passed."""
    page.locator(f".st-key-reverse_diffusion_{control} {focus}").first.focus()
    _press_focused(page, chart, key, digest)


def _press_focused(page: Page, chart: str, key: str, digest: str) -> None:
    """Press ``key`` on the focused control; return once ``chart`` has drawn a new payload
    and the moved traces' animation frame has passed."""
    page.keyboard.press(key)
    page.wait_for_function(
        "([sel, digest]) => document.querySelector(sel)"
        ".closest('.adlab-live').live.digest !== digest",
        arg=[chart, digest],
    )
    wait_for_app(page)
    page.wait_for_timeout(300)  # a moved trace is drawn in the next animation frame


def _step(page: Page, control: str, key: str, before: dict, focus: str = "input") -> dict:
    _press(page, SCRUB, control, key, before["digest"], focus)
    return _scrub(page)


def _same(drawn: list, sent: list) -> bool:
    return [None if x is None else round(x, 6) for x in drawn] == [
        None if x is None else round(x, 6) for x in sent
    ]


def test_a_kept_scrub_moves_to_new_data_in_place_and_keeps_the_students_frame(page: Page, server):
    """η changes only the particles' coordinates: the chart on the page keeps its plot and
    its slider, takes the new frames, and moves its traces (no redraw); the frame the student
    scrubbed to stays, showing its new particles. A new step count names other frames: the
    chart still keeps its plot, takes the new frames and slider steps, and stays at the
    student's t where the new frames have it (else goes to the server's frame, x_0)."""
    page.goto(f"{server.url}/reverse_diffusion")
    wait_for_app(page)
    page.wait_for_selector(f"{SCRUB} .main-svg")
    first = _scrub(page)
    assert (
        first["by"] == "new" and first["active"] == first["sentActive"] == len(first["names"]) - 1
    )
    # the student scrubs: a click near the left end of Plotly's slider rail
    touch = page.locator(f"{SCRUB} .slider-rail-touch-rect").first
    touch.scroll_into_view_if_needed()
    rail = touch.bounding_box()
    assert rail is not None
    page.mouse.click(rail["x"] + 0.1 * rail["width"], rail["y"] + rail["height"] / 2)
    page.wait_for_function(
        "(sel) => document.querySelector(sel)._fullLayout.sliders[0].active < 5", arg=SCRUB
    )
    page.wait_for_timeout(300)
    scrubbed = _scrub(page)
    assert _same(scrubbed["particles"], scrubbed["sent"][scrubbed["frame"]])
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", SCRUB)

    after = _step(page, "eta", "ArrowRight", scrubbed)
    assert after["marked"] and after["by"] == "move-new"  # the same plot, nothing redrawn
    assert after["names"] == scrubbed["names"] and after["active"] == scrubbed["active"]
    assert after["held"] == after["sent"] != scrubbed["sent"]  # the new frames replaced the old
    # the particles came packed (ui/live.py _packed), and live.js read them as live.read does
    assert '"i2":' in after["raw"]
    read = live.read(after["raw"].encode())
    assert after["sent"] == {f["name"]: f["data"][0]["x"] for f in read["frames"]}
    assert _same(after["particles"], after["sent"][after["frame"]])  # the student's frame, new
    assert _same(after["paths"], after["sentPaths"]) and after["paths"] != scrubbed["paths"]
    screenshot(page, "kept_scrub_moved")

    # 100 → 50 steps: other frames, in which the student's t (920 or 840) is again a frame
    assert after["frame"] in ("920", "840")
    log_plotly_calls(page, SCRUB)
    fewer = _step(page, "steps", "ArrowLeft", after)
    # the slider is drawn with the move, not in a later frame: no step names a frame gone
    calls = plotly_calls(page)
    assert calls[0].startswith("relayout") and "sliders[0].steps" in calls[0], calls
    assert not any("sliders" in c for c in calls[1:]), calls
    # only the scatter traces' x and y change: live.js moves them itself (quickMove)
    assert fewer["moved"] == "quick" and "animate" not in calls, calls
    assert fewer["marked"] and fewer["by"] == "move-new"
    assert fewer["names"] != after["names"] and fewer["heldNames"] == fewer["names"]
    assert fewer["held"] == fewer["sent"]  # every old frame gone, the new ones in order
    assert fewer["frame"] == after["frame"] and fewer["active"] != fewer["sentActive"]
    assert _same(fewer["particles"], fewer["sent"][fewer["frame"]])
    assert _same(fewer["paths"], fewer["sentPaths"]) and fewer["paths"] != after["paths"]
    # 50 → 20 steps: t runs 1000, 950, 900, …; the student's t is not a frame: x_0
    twenty = _step(page, "steps", "ArrowLeft", fewer)
    assert twenty["marked"] and twenty["by"] == "move-new"
    assert twenty["names"][1] == "950" and after["frame"] not in twenty["names"]
    assert twenty["frame"] == twenty["names"][-1] == "0"
    assert twenty["active"] == twenty["sentActive"] == len(twenty["names"]) - 1
    assert twenty["heldNames"] == twenty["names"]
    assert _same(twenty["particles"], twenty["sent"][twenty["frame"]])
    screenshot(page, "kept_scrub_fewer_steps")


# The scrub's scatter layers as the last move drew them, and as Plotly.animate draws the
# same data on the same plot (Plotly.redraw would also set the axes' scale anew: a plot
# drawn while the page was still laying out is a fraction of a pixel off it); the hover's
# points of the exact panel's particles, and the data Plotly holds for them
MOVED_JS = """async (sel) => {
  const gd = document.querySelector(sel);
  const layers = () => Array.from(gd.querySelectorAll('.scatterlayer'), (e) => e.innerHTML);
  const moved = layers();
  const hover = gd.calcdata[2].map((p) => p.x);
  const held = gd.data[2].x;
  const data = gd.data.map((t) => ({ x: t.x, y: t.y }));
  const move = { duration: 0, redraw: false };
  const opts = { mode: 'immediate', transition: { duration: 0 }, frame: move };
  await window.Plotly.animate(gd, { data, traces: data.map((_, i) => i) }, opts);
  return { moved, animated: layers(), hover, held };
}"""


# From now on, note for each quick move of the plot whether it was drawn inside an animation
# frame's callback (true) or in the task that handled the new payload (false)
LOG_QUICK_DRAWS_JS = """(sel) => {
  const live = document.querySelector(sel).closest('.adlab-live').live;
  if (!window.__inFrameWrapped) {
    window.__inFrameWrapped = true;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (cb) => raf((ts) => {
      window.__inFrame = true;
      try { return cb(ts); } finally { window.__inFrame = false; }
    });
  }
  window.__quickDraws = [];
  const draw = Object.getPrototypeOf(live).quickDraw;
  live.quickDraw = function (jobs) {
    window.__quickDraws.push(window.__inFrame === true);
    return draw.call(this, jobs);
  };
}"""


def test_a_sampler_step_moves_the_scrub_itself_and_draws_what_plotly_would(page: Page, server):
    """Euler ↔ Heun changes only the scrub's scatter traces' x and y (the paths and the
    particles): live.js moves them without Plotly.animate (quickMove), whose defaults pass
    over the whole figure took a third of the move. What it draws, and what the hover reads,
    is what Plotly.animate draws of the same data."""
    page.goto(f"{server.url}/reverse_diffusion?reverse_diffusion_sampler=euler")
    wait_for_app(page)
    page.wait_for_selector(f"{SCRUB} .main-svg")
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", SCRUB)
    euler = _scrub(page)
    log_plotly_calls(page, SCRUB)
    page.evaluate(LOG_QUICK_DRAWS_JS, SCRUB)
    seen: list[dict] = []
    for key in ("ArrowRight", "ArrowLeft"):  # Euler → Heun → Euler
        before = seen[-1] if seen else euler
        after = _step(page, "sampler", key, before, "input:checked")
        assert after["marked"] and after["by"] == "move-new" and after["moved"] == "quick"
        # drawn in the task that brought the new figure, not in the next animation frame:
        # there it waited behind the formula's typesetting when that task ran first
        assert page.evaluate("() => window.__quickDraws.splice(0)") == [False]
        assert "animate" not in plotly_calls(page), plotly_calls(page)
        assert _same(after["paths"], after["sentPaths"]) and after["paths"] != before["paths"]
        assert _same(after["particles"], after["sent"][after["frame"]])
        drawn = page.evaluate(MOVED_JS, SCRUB)
        assert drawn["moved"] == drawn["animated"]  # as Plotly.animate draws it
        # the hover's points are the data Plotly holds, the frame's new particles
        assert _same(drawn["hover"], drawn["held"])
        assert _same(drawn["held"], after["sent"][after["frame"]])
        log_plotly_calls(page, SCRUB)  # (our own animate above is not the page's)
        seen.append(after)
    assert _same(seen[-1]["paths"], euler["paths"])  # back where it started
    screenshot(page, "kept_scrub_sampler_moved")


# What the plot shows of the learned panel (its subplot x2y2): particle markers, the paths'
# line and the note's text, and whether the plot is the node marked before the steps.
LEARNED_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  const layer = gd.querySelector('.subplot.x2y2 .scatterlayer');
  const traces = Array.from(layer.querySelectorAll('.trace'));
  return {
    marked: gd.__marked === true, by: live.drawnBy, digest: live.digest,
    markers: traces.map((t) => t.querySelectorAll('.point').length),
    line: traces.some((t) => (t.querySelector('.js-line')?.getAttribute('d') ?? '') !== ''),
    note: Array.from(layer.querySelectorAll('.textpoint')).map((t) => t.textContent).join(''),
  };
}"""


def test_the_learned_panel_waits_in_place_off_the_trained_setting(page: Page, server):
    """Balance 0.6 has the shipped network, 0.7 none: the step there moves the chart (no
    redraw), the learned panel's particles and paths vanish and its note appears; the step
    back moves them in again and the note goes."""
    page.goto(f"{server.url}/reverse_diffusion")
    wait_for_app(page)
    page.wait_for_selector(f"{SCRUB} .main-svg")
    first = page.evaluate(LEARNED_JS, SCRUB)
    data, particles = first["markers"][0], first["markers"][2]
    assert first["line"] and particles > 0 and first["note"] == ""
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", SCRUB)

    _press(page, SCRUB, "balance", "ArrowRight", first["digest"])
    waiting = page.evaluate(LEARNED_JS, SCRUB)
    assert waiting["marked"] and waiting["by"] == "move-new"
    assert waiting["markers"][0] == data and sum(waiting["markers"][1:]) == 0
    assert not waiting["line"] and "Train the network now" in waiting["note"]
    expect(page.locator(".st-key-reverse_diffusion_train button")).to_be_visible()
    screenshot(page, "kept_scrub_learned_waiting")

    _press(page, SCRUB, "balance", "ArrowLeft", waiting["digest"])
    back = page.evaluate(LEARNED_JS, SCRUB)
    assert back["marked"] and back["by"] == "move-new"
    assert back["markers"][2] == particles and back["line"] and back["note"] == ""


# The scrub's data dots (a layout image a panel, figures/reverse.py dots_image): each image
# element's picture and screen box, each panel's square [−3, 3]² on the screen, and the
# pictures the payload sent.
DOTS_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  const images = Array.from(gd.querySelectorAll('.layer-subplot image, .imagelayer image'));
  const svg = gd.querySelector('.main-svg').getBoundingClientRect();
  const square = ([x, y]) => {
    const xa = gd._fullLayout[x], ya = gd._fullLayout[y];
    const left = svg.x + xa._offset + xa.l2p(-3), top = svg.y + ya._offset + ya.l2p(3);
    return [left, top, xa.l2p(3) - xa.l2p(-3), ya.l2p(-3) - ya.l2p(3)];
  };
  return {
    marked: gd.__marked === true, by: live.drawnBy, digest: live.digest,
    hrefs: images.map((e) => e.href.baseVal),
    boxes: images.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height];
    }),
    squares: [['xaxis', 'yaxis'], ['xaxis2', 'yaxis2']].map(square),
    sent: live.layout.images.map((i) => i.source),
    legend: gd.data[0].visible ?? true,
  };
}"""


def _over_the_squares(dots: dict) -> None:
    """Each panel's picture covers its square [−3, 3]² on the screen, to a pixel."""
    for box, square in zip(dots["boxes"], dots["squares"], strict=True):
        assert all(abs(b - s) < 1.0 for b, s in zip(box, square, strict=True)), (box, square)


def test_the_scrubs_data_dots_are_a_picture_in_each_panel_that_moves_and_hides_with_its_legend(
    page: Page, server
):
    """The scrub's data points are a picture under each panel, over its square [−3, 3]²:
    a data step (4 → 5 components) gives both panels the new picture in place (the chart
    moved, not redrawn), and the legend's "data" entry hides and shows them."""
    page.goto(f"{server.url}/reverse_diffusion")
    wait_for_app(page)
    page.wait_for_selector(f"{SCRUB} .main-svg")
    first = page.evaluate(DOTS_JS, SCRUB)
    assert first["by"] == "new" and first["hrefs"] == first["sent"] and len(first["sent"]) == 2
    _over_the_squares(first)
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", SCRUB)

    _press(page, SCRUB, "components", "ArrowRight", first["digest"])
    more = page.evaluate(DOTS_JS, SCRUB)
    assert more["marked"] and more["by"] == "move-new"
    assert more["hrefs"] == more["sent"] and set(more["sent"]).isdisjoint(first["sent"])
    _over_the_squares(more)

    entry = page.locator(f"{SCRUB} .legend .traces").first
    entry.click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel).querySelectorAll('image').length === 0", arg=SCRUB
    )
    assert page.evaluate(DOTS_JS, SCRUB)["legend"] == "legendonly"
    screenshot(page, "kept_scrub_data_hidden")
    entry.click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel).querySelectorAll('image').length === 2", arg=SCRUB
    )
    shown = page.evaluate(DOTS_JS, SCRUB)
    assert shown["legend"] is True and shown["hrefs"] == more["sent"]


FIELD = ".st-key-reverse_diffusion_field_chart .js-plotly-plot"


def test_the_field_swaps_its_pictures_to_a_new_t_and_they_hide_with_their_legend(
    page: Page, server
):
    """The field's samples of q(x_t), arrows and contours are pictures, one a legend group
    and panel over the panel's square [−3, 3]²: t gives every one a new picture in place (the
    chart keeps its plot, nothing redrawn), and the legend's contour entry hides both panels'
    contours and shows them again."""
    page.goto(f"{server.url}/reverse_diffusion?reverse_diffusion_view=field")
    wait_for_app(page)
    page.wait_for_selector(f"{FIELD} .main-svg")
    first = page.evaluate(DOTS_JS, FIELD)
    assert first["by"] == "new" and len(first["sent"]) == 6
    assert sorted(first["hrefs"]) == sorted(first["sent"])  # drawn grouped by layer and axes
    for box in first["boxes"]:  # each over one panel's square, to a pixel
        assert any(
            all(abs(b - q) < 1.0 for b, q in zip(box, sq, strict=True)) for sq in first["squares"]
        )
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", FIELD)

    _press(page, FIELD, "t", "PageUp", first["digest"])
    after = page.evaluate(DOTS_JS, FIELD)
    assert after["marked"] and after["by"] == "move-new"
    assert sorted(after["hrefs"]) == sorted(after["sent"])
    assert all(a != b for a, b in zip(after["sent"], first["sent"], strict=True))
    screenshot(page, "kept_field_moved")

    entry = page.locator(f"{FIELD} .legend .traces").nth(2)  # samples, exact arrows, contours
    entry.click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel).querySelectorAll('image').length === 4", arg=FIELD
    )
    shown = page.evaluate(DOTS_JS, FIELD)
    assert sorted(shown["hrefs"]) == sorted(h for k, h in enumerate(after["sent"]) if k % 3 != 2)
    entry.click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel).querySelectorAll('image').length === 6", arg=FIELD
    )
    assert sorted(page.evaluate(DOTS_JS, FIELD)["hrefs"]) == sorted(after["sent"])


# Frames counted from now; the frame count when each live element is built and when Plotly's
# newPlot is called.
FIRST_DRAW_JS = """() => {
  window.__frames = 0;
  const tick = () => { window.__frames += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.__built = [];
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1 && node.matches('.adlab-live, :has(.adlab-live)')) {
          window.__built.push(window.__frames);
        }
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
  window.__newPlots = [];
  const newPlot = window.Plotly.newPlot;
  window.Plotly.newPlot = function (...args) {
    window.__newPlots.push(window.__frames);
    return newPlot.apply(this, args);
  };
}"""


def test_a_new_chart_is_drawn_after_the_browser_painted_what_came_with_it(page: Page, server):
    """A view switch: the new view's kept chart is built, the browser paints (the text came
    with it), and only then does Plotly draw the chart (its newPlot held that frame back)."""
    page.goto(f"{server.url}/cayley_hamilton")
    wait_for_app(page)
    chart = ".st-key-cayley_hamilton_chart .js-plotly-plot .main-svg"
    page.wait_for_selector(chart)
    views = page.locator(".st-key-cayley_hamilton_view label:has(input[type='radio'])")
    views.nth(1).click()  # the 2×2 identity: no chart
    expect(page.locator(chart)).to_have_count(0)
    wait_for_app(page)
    page.evaluate(FIRST_DRAW_JS)
    views.nth(0).click()  # back to the theorem: its chart is built anew
    page.wait_for_selector(chart)
    wait_for_app(page)
    built, plots = page.evaluate("() => [window.__built, window.__newPlots]")
    assert built and plots, (built, plots)
    assert plots[0] > built[0], (built, plots)  # at least one frame between them


ROTATION = ".st-key-diffusion_parameterisations_rotation_chart .js-plotly-plot"
# every scatter layer of the plot as drawn, then as Plotly.animate draws the same data on the
# same plot; and what the plot holds: each trace's x and y, and its calcdata's points
ROTATION_JS = """async (sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  const layers = () => Array.from(gd.querySelectorAll('.scatterlayer'), (e) => e.innerHTML);
  const held = gd.data.map((t) => ({ x: t.x, y: t.y }));
  const points = gd.calcdata.map((trace) => trace.map((p) => [p.x, p.y]));
  const moved = layers();
  const frame = { duration: 0, redraw: false };
  const opts = { mode: 'immediate', transition: { duration: 0 }, frame };
  await window.Plotly.animate(gd, { data: held, traces: held.map((_, i) => i) }, opts);
  return {
    marked: gd.__marked === true, by: live.drawnBy, moved: live.movedBy, digest: live.digest,
    layers: moved, animated: layers(), held, points,
    sent: live.data.figure.data.map((t) => ({ x: t.x, y: t.y })),
  };
}"""


def test_the_parameterisations_t_moves_its_plane_and_log_axis_line_itself(page: Page, server):
    """The t slider turns the plane's axes and projections (whose markers are sized per
    point) and moves the t line on the weights panel's log axis: live.js moves them without
    Plotly.animate (quickMove), and what it draws is what Plotly.animate draws."""
    page.goto(f"{server.url}/diffusion_parameterisations?diffusion_parameterisations_t=250")
    wait_for_app(page)
    page.wait_for_selector(f"{ROTATION} .main-svg")
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", ROTATION)
    before = page.evaluate(ROTATION_JS, ROTATION)
    log_plotly_calls(page, ROTATION)
    page.locator(".st-key-diffusion_parameterisations_t input").first.focus()
    for _ in range(3):  # t 250 → 253
        _press_focused(page, ROTATION, "ArrowRight", before["digest"])
        assert plotly_calls(page) == [], plotly_calls(page)  # no Plotly.animate, no react
        after = page.evaluate(ROTATION_JS, ROTATION)
        log_plotly_calls(page, ROTATION)  # (our own animate above is not the page's)
        assert after["marked"] and after["by"] == "move-new" and after["moved"] == "quick"
        assert after["layers"] == after["animated"]  # drawn as Plotly.animate draws it
        for held, sent, points in zip(after["held"], after["sent"], after["points"], strict=True):
            assert held == sent  # the plot holds the server's new figure
            assert [p[0] for p in points] == sent["x"]  # the points hover reads
        t_line = after["sent"][-1]
        assert t_line["x"] == [before["sent"][-1]["x"][0] + 1] * 2
        assert after["sent"][3] != before["sent"][3]  # the projection on x_t moved
        before = after
    screenshot(page, "kept_rotation_moved")
