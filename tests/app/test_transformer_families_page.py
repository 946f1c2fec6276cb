"""The Transformer-families page, driven through AppTest by widget keys."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import transformer as tf
from tests.app.conftest import latex, open_page
from ui import exercises, i18n

PAGE = "transformer_families.py"


def test_maps_view_shows_every_family_and_all_badges_hold():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert ":red-badge[" not in latex(at)
    assert "6\\times6 = 36" in latex(at) and "j \\le i:\\ 21" in latex(at)
    at.slider(key="transformer_families_head").set_value(3).run()
    assert not at.exception and at.query_params["transformer_families_head"] == "3"


def test_typed_sentences_change_the_shapes_and_bad_text_is_refused():
    at = open_page(
        PAGE, {"transformer_families_source": "a b c", "transformer_families_target": "x y"}
    )
    assert "3\\times3 = 9" in latex(at) and "3\\times3 = 9\\ " in latex(at)  # T = 3 (<s> x y)
    at.text_input(key="transformer_families_source").set_value("one").run()
    assert not at.exception
    [message] = [e.value for e in at.error]
    assert "2 to 10 words" in message


def test_japanese_error_for_a_bad_sentence():
    at = open_page(PAGE, {"lang": "ja", "transformer_families_source": "a " + "x" * 20})
    assert not at.exception
    assert any("16 文字" in e.value for e in at.error)


@pytest.mark.parametrize("D", [64, 4096])
def test_params_view_agrees_with_torch(D):
    at = open_page(PAGE, {"transformer_families_view": "params"})
    at.select_slider(key="transformer_families_d_model").set_value(D).run()
    assert not at.exception and not at.error
    assert ":red-badge[" not in latex(at)
    expected = tf.block_parameters(D, 4 * D).total
    assert f"{expected:,}".replace(",", "{,}") in latex(at)


def test_cache_view_states_the_closed_form():
    at = open_page(
        PAGE,
        {
            "transformer_families_view": "cache",
            "transformer_families_length": "2048",
            "transformer_families_layers": "24",
        },
    )
    assert not at.exception and not at.error
    numbers = 2 * 24 * 2048 * 768
    assert f"{numbers:,}".replace(",", "{,}") in latex(at)
    assert ":red-badge[" not in latex(at)


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


@pytest.mark.parametrize("seed", range(30))
def test_exercise_answers_match_an_independent_computation(english, seed):
    ex = exercises.transformer_families(np.random.default_rng(seed))
    nums = [int(x) for x in __import__("re").findall(r"\d+", ex.question.replace("10⁶", ""))]
    if "MB" in ex.question:
        L, D, n, b = nums
        assert ex.is_right(2 * L * n * D * b / 1e6)
    else:
        D, F, h = nums
        layer = torch.nn.TransformerEncoderLayer(D, h, F, device="meta")
        assert ex.answer == sum(p.numel() for p in layer.parameters())
