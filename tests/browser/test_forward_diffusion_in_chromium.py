"""The forward-diffusion page in a real browser: the t scrub never talks to the server, uploads
(good and hostile) and the payload of a probe step."""

from __future__ import annotations

import io
import struct
import zlib
from dataclasses import dataclass, field

import pytest
from PIL import Image
from playwright.sync_api import Page, WebSocket, expect

from tests.browser.conftest import (
    SLIDER_DRAWN,
    log_plotly_calls,
    plotly_calls,
    screenshot,
    wait_for_app,
)

C = "forward_diffusion"
SCRUB = f".st-key-{C}_scrub_chart"
PROBE_CHART = f".st-key-{C}_pixel_chart"
ERROR = '[data-testid="stAlertContentError"]'
EXCEPTION = '[data-testid="stException"]'
BUDGET = 200 * 1024  # bytes per server rerun (DESIGN.md)


@dataclass
class Wire:
    """Every websocket frame the page sends and receives."""

    sent: list[int] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)

    def attach(self, ws: WebSocket) -> None:
        ws.on("framesent", lambda payload: self.sent.append(len(payload)))
        ws.on(
            "framereceived",
            lambda payload: self.received.append(
                payload.encode() if isinstance(payload, str) else payload
            ),
        )

    def reset(self) -> None:
        self.sent.clear()
        self.received.clear()


def open_page(page: Page, url: str) -> Wire:
    wire = Wire()
    page.on("websocket", wire.attach)
    page.goto(url)
    wait_for_app(page)
    page.wait_for_selector(f"{SCRUB} .js-plotly-plot .main-svg")
    page.wait_for_selector(f"{PROBE_CHART} .js-plotly-plot .main-svg")
    page.wait_for_timeout(500)  # let the URL update and any trailing message pass
    return wire


def images_shown(page: Page) -> list[str]:
    """The data URIs of the scrub figure's images: x₀, ε, xₜ linear, xₜ cosine."""
    return page.locator(f"{SCRUB} .js-plotly-plot image").evaluate_all(
        "els => els.map(e => e.getAttribute('href') || e.getAttribute('xlink:href'))"
    )


def current_t(page: Page) -> str:
    return page.locator(f"{SCRUB} .slider-group > text.slider-label").first.text_content()


def png(colour: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (200, 150), colour).save(buf, "PNG")
    return buf.getvalue()


def bomb() -> bytes:
    """A tiny, well-formed PNG whose header declares 50000 × 50000 pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", 50_000, 50_000, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


def upload(page: Page, name: str, data: bytes) -> None:
    page.locator(f".st-key-{C}_upload input[type=file]").set_input_files(
        {"name": name, "mimeType": "image/png", "buffer": data}
    )


def probe_still_works(page: Page) -> None:
    """Move the probe slider one step: its chart is redrawn and no error appears."""
    before = page.locator(f"{PROBE_CHART} .js-plotly-plot").inner_html()
    thumb = page.locator(f".st-key-{C}_pixel_t input[type=range]").first
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "([sel, before]) => { const el = document.querySelector(sel);"
        " return el && el.innerHTML !== before; }",
        arg=[f"{PROBE_CHART} .js-plotly-plot", before],
    )
    wait_for_app(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_scrubbing_t_happens_in_the_browser_without_a_server_round_trip(page, server):
    wire = open_page(page, f"{server.url}/{C}")
    expect(page.locator(ERROR)).to_have_count(0)
    scrub = page.locator(SCRUB)
    scrub.scroll_into_view_if_needed()
    before, t_before = images_shown(page), current_t(page)
    assert len(before) == 4
    wire.reset()

    # drag the Plotly slider's handle along its rail, then press it at a single spot
    rail = page.locator(f"{SCRUB} .slider-rail-touch-rect").first
    box = rail.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.2, y)
    page.mouse.down()
    for frac in (0.3, 0.45, 0.6, 0.75):
        page.mouse.move(box["x"] + box["width"] * frac, y, steps=4)
        page.wait_for_timeout(60)
    page.mouse.up()
    page.wait_for_timeout(400)
    dragged = images_shown(page)
    assert current_t(page) != t_before
    assert dragged[2] != before[2] and dragged[3] != before[3]  # xₜ of both schedules moved
    assert dragged[:2] == before[:2]  # x₀ and ε stay
    page.mouse.click(box["x"] + box["width"] * 0.95, y)
    page.wait_for_timeout(400)
    assert images_shown(page)[2] != dragged[2]
    # the play button animates through the frames, still without the server
    shown = images_shown(page)[2]
    page.locator(f"{SCRUB} .updatemenu-button").first.click()
    page.wait_for_timeout(900)
    page.locator(f"{SCRUB} .updatemenu-button").nth(1).click()
    assert images_shown(page)[2] != shown
    screenshot(page, f"{C}-scrubbed")
    assert wire.sent == [], f"the scrub sent {len(wire.sent)} websocket frames to the server"
    assert wire.received == []
    expect(page.locator(ERROR)).to_have_count(0)


def test_a_probe_step_stays_within_the_payload_budget_and_never_resends_the_scrub(page, server):
    wire = open_page(page, f"{server.url}/{C}")
    wire.reset()
    probe_still_works(page)
    page.wait_for_timeout(300)
    total = sum(len(f) for f in wire.received)
    assert wire.sent, "the probe is a server-side slider: it must send its value"
    assert total <= BUDGET, f"{total / 1024:.1f} KB"
    assert not any(b'"sliders"' in f or b'"frames"' in f for f in wire.received)
    # a full rerun (a new seed) resends the scrub figure, still within the budget
    wire.reset()
    seed = page.locator(f".st-key-{C}_seed input")
    seed.fill("5")
    seed.press("Enter")
    page.wait_for_timeout(300)
    wait_for_app(page)
    full = sum(len(f) for f in wire.received)
    assert any(b'"sliders"' in f for f in wire.received)
    assert full <= BUDGET, f"{full / 1024:.1f} KB"
    print(f"\nprobe step: {total / 1024:.1f} KB; full rerun (new seed): {full / 1024:.1f} KB")


def test_an_uploaded_png_becomes_x0(page, server):
    open_page(page, f"{server.url}/{C}")
    before = images_shown(page)
    upload(page, "green.png", png((0, 200, 0)))
    page.wait_for_function(
        "([sel, old]) => { const im = document.querySelector(sel);"
        " return im && im.getAttribute('href') !== old; }",
        arg=[f"{SCRUB} .js-plotly-plot image", before[0]],
    )
    wait_for_app(page)
    expect(page.locator(ERROR)).to_have_count(0)
    expect(
        page.locator('[data-testid="stCaptionContainer"]').filter(has_text="uploaded image")
    ).to_have_count(1)
    after = images_shown(page)
    assert after[0] != before[0] and after[1] == before[1]  # x₀ changed, ε did not
    screenshot(page, f"{C}-uploaded")
    probe_still_works(page)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("garbage.png", b"\x00garbage, not an image" * 40, "not a PNG or JPEG"),
        ("bomb.png", bomb(), "decompression bomb"),
    ],
    ids=["garbage", "bomb"],
)
def test_a_bad_upload_shows_a_clear_message_and_the_page_keeps_working(
    page, server, name, data, message
):
    open_page(page, f"{server.url}/{C}")
    before = images_shown(page)
    upload(page, name, data)
    expect(page.locator(ERROR)).to_contain_text(message)
    wait_for_app(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert images_shown(page)[0] == before[0]  # the sample stays x₀
    screenshot(page, f"{C}-bad-upload-{name.split('.')[0]}")
    probe_still_works(page)
    expect(page.locator(ERROR)).to_contain_text(message)  # still explained, not a traceback


# The kept scrub (ui/live.py): how it was last drawn, whether it is the plot marked before,
# Plotly's slider position and the frame it names, and what was sent: the base images (x₀,
# ε, xₜ at the server's frame) and each frame's two xₜ by name.
KEPT_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  const slider = gd._fullLayout.sliders[0];
  return {
    by: live.drawnBy, marked: gd.__marked === true, digest: live.digest,
    active: slider.active, frame: slider.steps[slider.active].args[0][0],
    base: live.data.figure.data.slice(0, 4).map((t) => t.source),
    frames: Object.fromEntries(live.data.frames.map((f) => [f.name, [f.data[0].source,
                                                                     f.data[1].source]])),
    names: slider.steps.map((s) => s.args[0][0]),
    labels: slider.steps.map((s) => s.label),
    sent: live.data.figure.layout.sliders[0].active,
  };
}"""
PLOT = f"{SCRUB} .js-plotly-plot"
# mark the curves' tick labels (t/T and log-SNR axes): a redraw of the axes replaces them
TICKS = ".x5tick text, .x6tick text, .x7tick text, .y7tick text"
MARK_AXES = f"""(sel) => {{
  document.querySelector(sel).querySelectorAll('{TICKS}').forEach((t) => {{ t.__marked = true; }});
}}"""
# the first ᾱ curve's data in the figure Plotly holds, whether the tick labels are the ones
# marked, and where the current-t line of the ᾱ panel is drawn (its path's first x, in
# pixels) against where its data puts it
CURVES_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const ticks = Array.from(gd.querySelectorAll('TICKS'));
  const line = gd.calcdata[12][0].trace.uid;
  const path = gd.querySelector(`.scatterlayer .trace[class*="${line}"] path.js-line`);
  return {
    x: gd.data[4].x, axesMarked: ticks.length > 0 && ticks.every((t) => t.__marked),
    drawn: Number(path.getAttribute('d').slice(1).split(',')[0]),
    sent: gd._fullLayout.xaxis5.l2p(gd.data[12].x[0]), tLine: gd.data[12].x[0],
    imagesAnimatable: gd._fullData[0]._module.animatable,
  };
}""".replace("TICKS", TICKS)


def kept(page: Page) -> dict:
    return page.evaluate(KEPT_JS, PLOT)


def step(page: Page, control: str, key: str) -> dict:
    before = kept(page)
    page.locator(f".st-key-{C}_{control} input").first.focus()
    page.keyboard.press(key)
    page.wait_for_function(
        "([sel, d]) => document.querySelector(sel).closest('.adlab-live').live.digest !== d",
        arg=[PLOT, before["digest"]],
    )
    wait_for_app(page)
    page.wait_for_timeout(300)
    return kept(page)


def test_a_new_seed_swaps_the_scrubs_pictures_in_place_and_keeps_the_students_frame(page, server):
    """A new seed changes ε and every xₜ, nothing else: the scrub on the page keeps its plot
    and its slider and swaps its pictures (no redraw); the frame the student scrubbed to
    stays and shows its new xₜ, and scrubbing on shows the new frames. A new T (other
    frames and curves on the same t/T axes) is moved in place: the curves move, the
    pictures are swapped, the slider takes the new steps, nothing is drawn anew, and the
    student stays at their place along t/T."""
    open_page(page, f"{server.url}/{C}")
    touch = page.locator(f"{SCRUB} .slider-rail-touch-rect").first
    touch.scroll_into_view_if_needed()
    rail = touch.bounding_box()
    y = rail["y"] + rail["height"] / 2
    page.mouse.click(rail["x"] + rail["width"] * 0.6, y)  # the student scrubs to a frame
    page.wait_for_timeout(400)
    scrubbed, shown = kept(page), images_shown(page)
    assert shown[2:] == scrubbed["frames"][scrubbed["frame"]]
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", PLOT)

    swapped = step(page, "seed", "ArrowUp")
    assert swapped["by"] == "swap-new" and swapped["marked"]  # the same plot, not redrawn
    assert (swapped["active"], swapped["frame"]) == (scrubbed["active"], scrubbed["frame"])
    now = images_shown(page)
    assert now[0] == shown[0] == swapped["base"][0]  # x₀: the same picture
    assert now[1] == swapped["base"][1] != shown[1]  # the new ε
    assert now[2:] == swapped["frames"][swapped["frame"]] != shown[2:]  # that frame's new xₜ
    screenshot(page, f"{C}-seed-swapped")
    touch.scroll_into_view_if_needed()  # focusing the seed's input scrolled the page up
    rail = touch.bounding_box()
    page.mouse.click(rail["x"] + rail["width"] * 0.95, rail["y"] + rail["height"] / 2)
    page.wait_for_timeout(400)  # scrubbing on: the new frames
    later = kept(page)
    assert later["frame"] != swapped["frame"]
    assert images_shown(page)[1:] == [swapped["base"][1], *swapped["frames"][later["frame"]]]

    page.evaluate(MARK_AXES, PLOT)
    moved = step(page, "T", "ArrowRight")  # T = 1000 → 2000
    assert moved["by"] == "move-new" and moved["marked"]
    # the student's place along t/T stays: the same frame (by its name, "k/40"), now at
    # T = 2000's t, with that frame's new pictures (not the server's frame)
    assert (moved["active"], moved["frame"]) == (later["active"], later["frame"])
    assert moved["frame"] != moved["names"][moved["sent"]]
    assert images_shown(page)[2:] == moved["frames"][moved["frame"]] != moved["base"][2:]
    assert moved["labels"][-1] == "2000" and moved["labels"] != later["labels"]
    t = int(moved["labels"][moved["active"]])
    assert t / 2000 == pytest.approx(int(later["labels"][later["active"]]) / 1000, abs=0.01)
    shown = page.evaluate(CURVES_JS, PLOT)
    assert shown["x"][0] == pytest.approx(1 / 2000) and shown["x"][-1] == 1  # t/T
    assert shown["axesMarked"]  # the axes' tick labels were not drawn again
    # the current-t line is drawn at that frame's t/T, where its data puts it
    assert shown["drawn"] == pytest.approx(shown["sent"], abs=0.5)
    assert shown["tLine"] == pytest.approx(t / 2000, abs=1e-5)
    assert shown["imagesAnimatable"] is False  # lent for the move only, given back
    screenshot(page, f"{C}-T-moved")


def test_a_T_step_moves_the_scrub_before_it_draws_the_slider_s_new_steps(page, server):
    """A new T moves the curves and swaps the pictures; the frame slider's steps, which step
    to the same frames with new t labels, are drawn in the frame after, once, and show the
    new T's t values."""
    open_page(page, f"{server.url}/{C}")
    log_plotly_calls(page, PLOT)
    moved = step(page, "T", "ArrowRight")  # T = 1000 → 2000
    assert moved["by"] == "move-new"
    assert plotly_calls(page) == ["animate", "frame", SLIDER_DRAWN], plotly_calls(page)
    assert moved["labels"][-1] == "2000"  # the slider drawn is the new T's
    assert current_t(page).strip().endswith(moved["labels"][moved["active"]])


def test_a_T_seen_a_few_steps_before_comes_back_as_a_reference(page, server):
    """The browser keeps a large message for 30 script runs (``global.maxCachedMessageAge``
    in .streamlit/config.toml; Streamlit's default is 2) and the server sends one it keeps
    as a short reference: sliding back to a T seen two to eight steps before receives a few
    KB, not the scrub's 150 KB again, and draws the same scrub as the first time."""
    wire = open_page(page, f"{server.url}/{C}")
    first = kept(page)
    seen = {first["labels"][-1]: first["digest"]}  # T = 1000, drawn on the page's first run
    revisits = []
    for key in ("ArrowLeft",) * 4 + ("ArrowRight",) * 4:  # T: 500 … 50, then back to 1000
        wire.reset()
        now = step(page, "T", key)
        T, received = now["labels"][-1], sum(len(f) for f in wire.received)
        if T in seen:
            assert now["digest"] == seen[T]  # the same scrub as drawn at this T before
            revisits.append((T, received))
        else:
            assert received > 100 * 1024, (T, received)  # a first visit: the whole scrub
            seen[T] = now["digest"]
    assert [T for T, _ in revisits] == ["100", "250", "500", "1000"]
    assert all(received < 30 * 1024 for _, received in revisits), revisits


# The chain view's kept chart (ui/live.py): how it was last drawn, whether it is the plot
# marked before, the two pictures' titles as drawn, the current-t line and the pictures shown
CHAIN = f".st-key-{C}_chain_chart .js-plotly-plot"
CHAIN_JS = """(sel) => {
  const gd = document.querySelector(sel);
  const live = gd.closest('.adlab-live').live;
  return {
    by: live.drawnBy, marked: gd.__marked === true, digest: live.digest,
    titles: Array.from(gd.querySelectorAll('.g-xtitle text, .g-x2title text'))
      .map((e) => e.textContent),
    line: gd.data[6].x, slope: gd.data[4].x,
    shown: Array.from(gd.querySelectorAll('.imagelayer image')).map((e) => e.getAttribute('href')),
    sent: live.data.figure.data.slice(0, 2).map((t) => t.source),
  };
}"""


def test_a_step_of_the_chains_t_moves_its_chart_in_place_and_retitles_its_pictures(page, server):
    """A step of the chain's t changes the two pictures, the moments up to t, the current-t
    line and the pictures' titles ("chain: 201 steps"), nothing else: the chart keeps its
    plot (moved, not redrawn), shows the new pictures and the new titles."""
    page.goto(f"{server.url}/{C}?{C}_view=chain")
    wait_for_app(page)
    page.wait_for_selector(f"{CHAIN} .main-svg")
    page.wait_for_timeout(500)
    before = page.evaluate(CHAIN_JS, CHAIN)
    assert before["titles"] == ["chain: 200 steps", "one jump to t = 200"]
    page.evaluate("(sel) => { document.querySelector(sel).__marked = true; }", CHAIN)
    t_slider = f".st-key-{C}_chain_t"
    page.locator(f"{t_slider} [role=slider], {t_slider} input[type=range]").first.focus()
    for key, t in (("ArrowRight", 201), ("ArrowRight", 202), ("ArrowLeft", 201)):
        digest = page.evaluate(CHAIN_JS, CHAIN)["digest"]
        page.keyboard.press(key)
        page.wait_for_function(
            "([sel, d]) => document.querySelector(sel).closest('.adlab-live').live.digest !== d",
            arg=[CHAIN, digest],
        )
        wait_for_app(page)
        page.wait_for_timeout(300)
        now = page.evaluate(CHAIN_JS, CHAIN)
        assert now["by"] == "move-new" and now["marked"]  # the same plot, not redrawn
        assert now["titles"] == [f"chain: {t} steps", f"one jump to t = {t}"]
        assert now["line"] == [t, t] and now["slope"][-1] == t
        assert now["shown"] == now["sent"] != before["shown"]
    screenshot(page, f"{C}-chain-moved")
