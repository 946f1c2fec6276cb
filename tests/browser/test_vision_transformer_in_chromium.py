"""The Vision Transformer page in a real browser: every part typesets its formula, a good
upload replaces the sample image, and bad files get a clear message while the page works on."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, wait_for_app

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"], .katex-error'
ALERT = '[data-testid="stAlertContentError"]'
UPLOAD = '.st-key-vision_transformer_upload input[type="file"]'


def png(size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 40, 90)).save(buf, "PNG")
    return buf.getvalue()


@pytest.mark.parametrize("view", ["patches", "attention", "cost"])
def test_every_part_renders_its_formula(page, server, view):
    page.goto(f"{server.url}/vision_transformer?vision_transformer_view={view}")
    wait_for_app(page)
    page.wait_for_selector(f".st-key-vision_transformer_{view}_chart .js-plotly-plot .main-svg")
    expect(page.locator(".katex-display").first).to_be_visible()
    expect(page.locator(ERRORS)).to_have_count(0)
    screenshot(page, f"vision_transformer-{view}")


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("notes.png", b"this is text, not an image", "not a PNG or JPEG"),
        ("cut.png", png((40, 40))[:70], "could not be decoded"),
    ],
)
def test_a_bad_upload_gets_a_message_and_the_page_keeps_working(page, server, name, data, says):
    page.goto(f"{server.url}/vision_transformer")
    wait_for_app(page)
    page.locator(UPLOAD).set_input_files({"name": name, "mimeType": "image/png", "buffer": data})
    expect(page.locator(ALERT)).to_contain_text(says)
    wait_for_app(page)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    expect(page.locator(".st-key-vision_transformer_patches_chart .main-svg").first).to_be_visible()
    screenshot(page, "vision_transformer-bad-upload")


def test_a_good_upload_replaces_the_sample(page, server):
    page.goto(f"{server.url}/vision_transformer?lang=ja")
    wait_for_app(page)
    page.locator(UPLOAD).set_input_files(
        {"name": "mine.png", "mimeType": "image/png", "buffer": png((300, 200))}
    )
    expect(page.locator('[data-testid="stMain"]')).to_contain_text("アップロードした画像")
    expect(page.locator(ERRORS)).to_have_count(0)
