"""The Vision Transformer page, driven through AppTest by widget keys."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core import vit
from tests.app.conftest import latex, open_page, url
from ui import cache_vit, exercises, i18n

PAGE = "vision_transformer.py"


@pytest.mark.parametrize("P", [4, 32])
def test_patches_view_states_the_shapes_and_the_conv_check(P):
    at = open_page(PAGE)
    at.select_slider(key="vision_transformer_P").set_value(P).run()
    assert not at.exception and not at.error
    N = (64 // P) ** 2
    assert f"\\mathbb{{R}}^{{{N}\\times{P * P * 3}}}" in latex(at)
    assert f"\\mathbb{{R}}^{{{N + 1}\\times384}}" in latex(at)
    assert ":red-badge[" not in latex(at)
    assert url(at)["vision_transformer_P"] == str(P)


@pytest.mark.parametrize("image", ["checker", "sunset"])
def test_attention_view_agrees_with_torch_for_every_sample(image):
    at = open_page(
        PAGE,
        {
            "vision_transformer_view": "attention",
            "vision_transformer_image": image,
            "vision_transformer_query": "0",
        },
    )
    assert not at.exception and not at.error
    assert "(3,\\ 65,\\ 128)" in latex(at) and "a_{0}" in latex(at)
    assert ":red-badge[" not in latex(at)


def _weights(image: str, P: int) -> np.ndarray:
    """The page's attention weights (h, T, T), computed here without the page's cache."""
    w = vit.init_vit(P, 3, 384, (64 // P) ** 2, np.random.default_rng(0))
    z0 = vit.input_tokens(cache_vit.sample_image(image, 64) / 255.0, w, P)
    return vit.torch_mha(z0, w.w_q, w.w_k, w.w_v, w.w_o, 3)[1]


def test_a_step_reads_the_weights_of_its_own_image_patch_size_and_head():
    """The attention view's work is cached per image and P (ui.cache_vit.attention): every
    step shows the numbers of the image, P, head and query now picked, not a cached
    neighbour's."""
    at = open_page(PAGE, {"vision_transformer_view": "attention"})
    steps = [("scene", 8, 1, 5), ("scene", 16, 1, 5), ("sunset", 16, 1, 5), ("sunset", 16, 3, 7)]
    steps += [("scene", 8, 2, 5)]  # back to a P and image seen before: read from the cache
    for image, P, head, query in steps:
        at.radio(key="vision_transformer_image").set_value(image)
        at.select_slider(key="vision_transformer_attention_P").set_value(P).run()
        at.slider(key="vision_transformer_head").set_value(head)  # the query's range: P's
        at.slider(key="vision_transformer_query").set_value(query).run()
        assert not at.exception and not at.error
        a = _weights(image, P)[head - 1, query]
        assert f"{a[0]:.4f},\\ \\max\\ {a.max():.4f}" in latex(at), (image, P, head)
        assert ":red-badge[" not in latex(at)


def test_the_query_slider_follows_the_patch_count():
    at = open_page(
        PAGE, {"vision_transformer_view": "attention", "vision_transformer_attention_P": "32"}
    )
    assert at.slider(key="vision_transformer_query").max == 4
    assert "(3,\\ 5,\\ 5)" in latex(at)


def test_cost_view_vit_b16():
    at = open_page(PAGE, {"vision_transformer_view": "cost", "vision_transformer_cost_P": "8"})
    assert not at.exception and not at.error
    assert "28^2 = 784" in latex(at) and ":red-badge[" not in latex(at)


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


@pytest.mark.parametrize("seed", range(30))
def test_exercise_answers_match_a_closed_form(english, seed):
    ex = exercises.vision_transformer(np.random.default_rng(seed))
    nums = [int(x) for x in re.findall(r"\d+", ex.question)]
    if "attention weights" in ex.question:
        h, S, _, P, _ = nums
        assert ex.answer == h * ((S // P) ** 2 + 1) ** 2
    else:
        S, _, P, _ = nums
        assert ex.answer == (S // P) * (S // P) + 1
