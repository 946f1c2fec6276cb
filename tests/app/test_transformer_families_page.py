"""The Transformer-families page, driven through AppTest by widget keys."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core import transformer as tf
from tests.app.conftest import latex, live_controls, live_states, open_page, url
from ui import exercises, i18n

PAGE = "transformer_families.py"
SOURCE, TARGET = "the cat sat on the mat", "猫 が マット に 座った"


def live_data(at) -> dict:
    """The live head control's data (ui.live): its states, ``index`` and ``digest``."""
    (data,) = live_controls(at)
    return data


def test_maps_view_shows_every_family_and_all_badges_hold():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert ":red-badge[" not in latex(at)
    assert "6\\times6 = 36" in latex(at) and "j \\le i:\\ 21" in latex(at)


def _head_maps(source: str = SOURCE, target: str = TARGET) -> tf.FamilyMaps:
    """The page's maps computed directly from core (its default [MASK] is word 3)."""
    src, tgt = tf.parse_sentence(source, "source"), tf.parse_sentence(target, "target")
    bert = tf.masked_lm_objective(src, [min(3, len(src)) - 1])
    s2s = tf.seq2seq_objective(src, tgt)
    gpt = tf.next_token_objective(src)
    return tf.family_maps(bert.inputs, gpt.inputs, s2s.context, s2s.inputs, 16, 4, 0)


def test_every_head_is_sent_with_its_own_weights_and_green_badges():
    """The live head control (ui.live) carries all four heads: the browser redraws any of
    them with no round trip, so each must hold that head's weights, numbers and checks."""
    at = open_page(PAGE)
    states = live_states(at)
    assert sorted(states) == [1, 2, 3, 4]
    m = _head_maps()
    for h, s in states.items():
        traces = dict((i, props) for i, props in s["traces"])
        assert sorted(traces) == [0, 1, 2] and all(set(p) == {"z"} for p in traces.values())
        for i, maps in enumerate((m.encoder, m.decoder, m.cross)):
            np.testing.assert_allclose(traces[i]["z"], maps[h - 1], atol=1e-4)
            np.testing.assert_allclose(np.sum(traces[i]["z"], axis=1), 1, atol=1e-3)
        assert np.all(np.triu(traces[1]["z"], 1) == 0)  # GPT: nothing above the diagonal
        assert f"<b>{h} / 4</b>" in s["html"]
        assert "<b>36 / 36</b>" in s["html"] and "<b>21 / 36</b>" in s["html"]  # 6×6, j ≤ i
        assert s["html"].count("live-badge live-ok") == 4 and ' live-bad"' not in s["html"]
    assert not np.allclose(states[1]["traces"][0][1]["z"], states[2]["traces"][0][1]["z"])


def test_the_settled_head_reaches_the_url_and_a_link_opens_at_its_head():
    """What follows when the slider settles: the browser reports the head (simulated here,
    as the component's state), the part reruns, the URL follows and the states stay."""
    at = open_page(PAGE)
    before = live_data(at)
    at.session_state["_live_value_transformer_families_head"] = 3  # what ui.live keeps
    at.run()
    assert not at.exception and url(at)["transformer_families_head"] == "3"
    after = live_data(at)
    assert after["index"] == 2 and after["digest"] == before["digest"]  # no redraw
    assert "6\\times6 = 36" in latex(at)
    linked = open_page(PAGE, {"transformer_families_head": "4"})
    assert live_data(linked)["index"] == 3
    assert url(linked)["transformer_families_head"] == "4"


@pytest.mark.parametrize("raw", ["0", "5", "banana", "2.5"])
def test_a_bad_head_in_the_link_falls_back_to_head_1_with_a_notice(raw):
    at = open_page(PAGE, {"transformer_families_head": raw})
    assert not at.exception and not at.error
    assert live_data(at)["index"] == 0
    assert url(at)["transformer_families_head"] == "1"
    assert "transformer_families_head" in " ".join(c.value for c in at.caption)


def test_the_japanese_page_sends_its_heads_in_japanese():
    states = live_states(open_page(PAGE, {"lang": "ja"}))
    assert sorted(states) == [1, 2, 3, 4]
    assert "ヘッド" in states[2]["html"] and "クロス" in states[2]["html"]
    assert "どの行も和が 1" in states[2]["html"] and ' live-bad"' not in states[2]["html"]


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
