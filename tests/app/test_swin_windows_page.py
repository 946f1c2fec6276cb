"""The Swin windows page, driven through AppTest by widget keys."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core import windows as win
from tests.app.conftest import (
    first_at,
    kept_charts,
    latex,
    live_controls,
    live_states,
    open_page,
    url,
)
from ui import live

PAGE = "swin_windows.py"
WINDOW = "_live_value_swin_windows_window"  # what ui.live keeps from the browser's report


def live_data(at) -> dict:
    """The window control's data as the browser gets it (ui.live.pack)."""
    (data,) = live_controls(at)
    return data


def settle_on(at, k: int):
    """What the browser does when the live window slider settles on window ``k``."""
    at.session_state[WINDOW] = k
    return at.run()


@pytest.mark.parametrize("view", ["shift", "bias", "stages", "cost"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {"swin_windows_view": view})
    assert not at.exception and not at.error
    # the shift part draws its badges in the live window control, one set per window
    badges = latex(at) + "".join(s["html"] for s in live_states(at).values())
    assert ":green-badge[" in badges or "live-badge live-ok" in badges
    assert ":red-badge[" not in badges and ' live-bad"' not in badges


@pytest.mark.parametrize(("H", "M", "shifted"), [(8, 4, "1"), (12, 3, "1"), (8, 2, "0")])
def test_every_window_is_sent_with_its_own_mask_and_region_ids(H, M, shifted):
    """The live window control (ui.live) carries every window: the browser redraws any of
    them with no round trip, so each state must hold that window's ids, mask and numbers."""
    at = open_page(
        PAGE, {"swin_windows_H": str(H), "swin_windows_M": str(M), "swin_windows_shifted": shifted}
    )
    s = M // 2 if shifted == "1" else 0
    masks = win.shifted_window_mask(H, H, M, s)
    ids = win.window_partition(win.shifted_window_regions(H, H, M, s)[:, :, None], M)[..., 0]
    data = live_data(at)
    nW = (H // M) ** 2
    assert [st["value"] for st in data["states"]] == list(range(nW))
    for k in range(nW):
        traces = live.state_traces(data, k)
        assert sorted(traces) == [0, 1]  # the window's ids and its mask, nothing else
        assert np.array_equal(traces[0]["z"], ids[k]), k
        assert np.array_equal(traces[1]["z"], masks[k].astype(int)), k
        html = data["states"][k]["html"]
        regions = "{" + ", ".join(map(str, sorted(set(ids[k].ravel().tolist())))) + "}"
        assert f"window {k}: regions {regions}" in html, (k, html)
        assert f"{int(masks[k].sum())} of {M * M}² = {M**4} pairs" in html, (k, html)
        assert html.count("live-badge live-ok") == 2 and ' live-bad"' not in html, k
    # the checks of the whole map (the roll, the partition) are sent once, for every window
    assert data["sharedHtml"].count("live-badge live-ok") == 2
    assert ' live-bad"' not in data["sharedHtml"]


def test_windows_mix_regions_after_the_shift():
    at = open_page(PAGE)  # H = 8, M = 4: window 2 (nW - 2) is shown first
    assert "\\{3, 6\\}" in latex(at) and "128 \\text{ of }" in latex(at)
    assert live_data(at)["index"] == 2
    settle_on(at, 3)
    assert "\\{4, 5, 7, 8\\}" in latex(at)
    assert "64 \\text{ of } 16^2 = 256" in latex(at)
    assert url(at)["swin_windows_window"] == "3"
    assert live_data(at)["index"] == 3
    settle_on(at, 0)
    assert "\\{0\\}" in latex(at) and "256 \\text{ of }" in latex(at)
    assert url(at)["swin_windows_window"] == "0"


def test_the_states_do_not_depend_on_the_window_shown():
    """A rerun that only moves the window keeps the browser's chart (same digest)."""
    at = open_page(PAGE)
    before = live_data(at)
    after = live_data(settle_on(at, 1))
    assert before["digest"] == after["digest"] and (before["index"], after["index"]) == (2, 1)


def test_a_link_opens_at_its_window_and_a_bad_one_falls_back_with_a_notice():
    linked = open_page(PAGE, {"swin_windows_window": "2"})
    assert live_data(linked)["index"] == 2 and "window } 2 " in latex(linked)
    linked = open_page(PAGE, {"swin_windows_window": "1"})
    assert live_data(linked)["index"] == 1 and "\\{1, 2\\}" in latex(linked)
    assert url(linked)["swin_windows_window"] == "1"
    for bad in ("9", "banana", "-1"):  # H = 8, M = 4: windows 0..3
        at = open_page(PAGE, {"swin_windows_window": bad})
        assert not at.exception and not at.error
        assert live_data(at)["index"] == 2  # the default
        assert "swin_windows_window" in " ".join(c.value for c in at.caption)
        assert url(at)["swin_windows_window"] == "2"


def test_switching_the_shift_off_gives_plain_windows():
    at = open_page(PAGE)
    at.toggle(key="swin_windows_shifted").set_value(False).run()
    assert "W-MSA" in latex(at) and "256 \\text{ of }" in latex(at)
    # no roll by 0 and no mask: the windows are cut from x as it is
    assert "roll" not in latex(at) and "masked" not in latex(at)
    assert "\\text{attention in each window}" in latex(at)
    assert url(at)["swin_windows_shifted"] == "0"
    states = live_states(at)
    assert all("256 of 16² = 256 pairs" in s["html"] for s in states.values())
    at.toggle(key="swin_windows_shifted").set_value(True).run()  # M = 4: s = 2
    assert "\\mathrm{roll}(-2)" in latex(at) and "\\mathrm{roll}(+2)" in latex(at)


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


def test_one_window_covering_the_map_has_one_state():
    """M = H leaves one window: the control has one state (the browser shows no slider)."""
    at = open_page(PAGE, {"swin_windows_H": "8", "swin_windows_M": "8"})
    assert not at.exception and not at.error
    assert sorted(live_states(at)) == [0]
    assert "window } 0 " in latex(at)


def test_window_index_is_clamped_when_windows_get_fewer():
    at = open_page(
        PAGE, {"swin_windows_H": "16", "swin_windows_M": "2", "swin_windows_window": "60"}
    )
    assert live_data(at)["index"] == 60 and "window } 60 " in latex(at)
    at.select_slider(key="swin_windows_M").set_value(8).run()  # 4 windows: the nearest is 3
    assert not at.exception and not at.error
    assert sorted(live_states(at)) == [0, 1, 2, 3]
    assert live_data(at)["index"] == 3 and "window } 3 " in latex(at)
    assert url(at)["swin_windows_window"] == "3"


@pytest.mark.parametrize(("H", "M"), [(32, 2), (32, 8), (28, 7)])
def test_the_largest_maps_stay_small_on_the_wire(H, M):
    """Up to 256 windows, or 16 masks of 64×64: shared masks and the checks of the whole map
    are sent once (ui.live.pack), not once per window."""
    for lang in ("en", "ja"):
        at = open_page(PAGE, {"swin_windows_H": str(H), "swin_windows_M": str(M), "lang": lang})
        assert not at.exception and not at.error
        assert len(json.dumps(live_data(at))) < 150_000, (H, M, lang)


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


def test_the_window_row_above_the_charts_shows_the_settings_they_were_drawn_of():
    """H, M and the shift are read before the charts and drawn after them, above them
    (``kit.controls_after_the_chart``): from a shared link and after the student's steps,
    the widgets show what the charts were drawn of (the helper raises if they do not), a new
    H offers only the windows that divide it, and the URL holds the values."""
    link = {"swin_windows_H": "12", "swin_windows_M": "3", "swin_windows_shifted": "0"}
    at = open_page(PAGE, link)
    assert not at.exception and not at.error
    assert at.select_slider(key="swin_windows_H").value == 12
    assert at.select_slider(key="swin_windows_M").value == 3
    assert at.toggle(key="swin_windows_shifted").value is False
    row, chart = first_at(at.main, "select_slider"), first_at(at.main, "bidi_component")
    assert row is not None and chart is not None and row < chart, (row, chart)
    regions = kept_charts(at)["swin_windows_regions_chart"]["figure"]["data"][1]["z"]
    assert np.array_equal(regions, win.shifted_window_regions(12, 12, 3, 0))

    at.toggle(key="swin_windows_shifted").set_value(True).run()
    at.select_slider(key="swin_windows_H").set_value(16).run()  # 3 does not divide 16
    assert not at.exception and not at.error
    M = at.select_slider(key="swin_windows_M")
    assert M.options == ["2", "4", "8"] and M.value == 2  # the nearest, the smaller on a tie
    assert (url(at)["swin_windows_H"], url(at)["swin_windows_M"]) == ("16", "2")
    assert url(at)["swin_windows_shifted"] == "1"
    regions = kept_charts(at)["swin_windows_regions_chart"]["figure"]["data"][1]["z"]
    assert np.array_equal(regions, win.shifted_window_regions(16, 16, 2, 1))
    assert len(live_data(at)["states"]) == (16 // 2) ** 2
