"""The Swin windows page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page

PAGE = "swin_windows.py"


@pytest.mark.parametrize("view", ["shift", "bias", "stages", "cost"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {"swin_windows_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)


def test_windows_mix_regions_after_the_shift():
    at = open_page(PAGE)
    assert "\\{3, 6\\}" in latex(at) and "128 \\text{ of }" in latex(at)
    at.slider(key="swin_windows_window").set_value(3).run()
    assert "\\{4, 5, 7, 8\\}" in latex(at)
    assert "64 \\text{ of } 16^2 = 256" in latex(at)
    at.slider(key="swin_windows_window").set_value(0).run()
    assert "\\{0\\}" in latex(at) and "256 \\text{ of }" in latex(at)


def test_switching_the_shift_off_gives_plain_windows():
    at = open_page(PAGE)
    at.toggle(key="swin_windows_shifted").set_value(False).run()
    assert "W-MSA" in latex(at) and "256 \\text{ of }" in latex(at)
    assert at.query_params["swin_windows_shifted"] == "0"


def test_the_window_control_offers_only_the_windows_that_tile_the_map():
    at = open_page(PAGE)  # H = 8
    assert at.select_slider(key="swin_windows_M").options == ["2", "4", "8"]
    at.select_slider(key="swin_windows_H").set_value(12).run()
    assert at.select_slider(key="swin_windows_M").options == ["2", "3", "4"]
    at.select_slider(key="swin_windows_M").set_value(3).run()
    assert not at.exception and not at.error
    at.select_slider(key="swin_windows_H").set_value(16).run()  # 3 does not divide 16
    assert at.select_slider(key="swin_windows_M").value in (2, 4)  # the nearest that does
    assert not at.exception and not at.error


def test_one_window_covering_the_map_needs_no_window_slider():
    """M = H leaves one window: Streamlit refuses a slider from 0 to 0 (it raised)."""
    at = open_page(PAGE, {"swin_windows_H": "8", "swin_windows_M": "8"})
    assert not at.exception and not at.error
    assert not [s for s in at.slider if s.key == "swin_windows_window"]
    assert any("0" in c.value for c in at.caption)  # says which window is shown


def test_window_index_is_clamped_when_windows_get_fewer():
    at = open_page(
        PAGE, {"swin_windows_H": "16", "swin_windows_M": "2", "swin_windows_window": "60"}
    )
    assert at.slider(key="swin_windows_window").value == 60
    at.select_slider(key="swin_windows_M").set_value(8).run()
    assert not at.exception
    assert at.slider(key="swin_windows_window").value == 3


def test_cost_formula_has_the_published_numbers_at_56():
    at = open_page(PAGE, {"swin_windows_view": "cost"})
    text = latex(at)
    assert "2{,}003{,}828{,}736" in text and "145{,}108{,}992" in text
    at.select_slider(key="swin_windows_cost_h").set_value(14).run()
    assert "4\\cdot196\\cdot96^2" in latex(at)


def test_bias_query_moves_the_row():
    at = open_page(PAGE, {"swin_windows_view": "bias", "swin_windows_bias_M": "4"})
    at.slider(key="swin_windows_bias_query").set_value(5).run()
    assert "i = 5 = (1, 1)" in latex(at)
    assert "\\mathbb{R}^{16\\times16}" in latex(at)


def test_stages_follow_the_image_size():
    at = open_page(PAGE, {"swin_windows_view": "stages"})
    assert "56\\times56\\times96" in latex(at)
    at.select_slider(key="swin_windows_stage_side").set_value(384).run()
    assert "96\\times96\\times96" in latex(at) and "12\\times12\\times768" in latex(at)
