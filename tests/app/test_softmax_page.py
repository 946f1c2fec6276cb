"""The softmax page, driven through AppTest by widget keys."""

from __future__ import annotations

import numpy as np
import pytest

from core import softmax as sm
from tests.app.conftest import latex, live_controls, open_page, url

PAGE = "softmax.py"


def badges(at) -> str:
    return "\n".join(m.value for m in at.markdown if "-badge[" in m.value)


def live_data(at) -> dict:
    """The live T control's data (ui.live): what the browser draws, state by state."""
    (data,) = live_controls(at)
    return data


def index_of(at, T: float) -> int:
    return [s["value"] for s in live_data(at)["states"]].index(T)


def live_state(at, T: float) -> dict:
    data = live_data(at)
    (state,) = [s for s in data["states"] if s["value"] == T]
    return state


@pytest.mark.parametrize(("T", "top"), [(0.3, "0.9644"), (1.0, "0.6652"), (10.0, "0.3672")])
def test_every_temperature_is_sent_with_its_numbers(T, top):
    """The browser swaps states in without the server: each state's numbers and bars were
    computed here (core.softmax), and its checks hold."""
    at = open_page(PAGE)
    data = live_data(at)
    grid = [s["value"] for s in data["states"]]  # 55 temperatures, log-spaced
    assert len(grid) == 55 and grid == sorted(grid) and (grid[0], grid[-1]) == (0.05, 20.0)
    state = live_state(at, T)
    assert f"<b>{top}</b>" in state["html"] and f"<b>{T:g}</b>" in state["html"]
    bars = dict(state["traces"])[0]["y"]
    assert bars == pytest.approx(list(sm.softmax(np.array([5.0, 6.0, 7.0]), T)), abs=1e-6)
    assert all("✗" not in s["html"] for s in data["states"])
    assert state["html"].count("live-ok") == 4


@pytest.mark.parametrize(("T", "top"), [(0.3, "0.9644"), (1.0, "0.6652"), (10.0, "0.3672")])
def test_the_reported_temperature_moves_the_formula_and_the_url(T, top):
    """What follows when the slider settles: the browser reports T (simulated here, as the
    component's state), the part reruns, the formula and the URL follow."""
    at = open_page(PAGE)
    at.session_state["_live_value_softmax_T"] = T  # what ui.live keeps from the report
    at.run()
    assert not at.exception
    assert f"= {top}" in latex(at)
    assert url(at)["softmax_T"] == f"{T:g}"
    assert live_data(at)["index"] == index_of(at, T)


def test_the_live_payload_is_small():
    """The whole component payload, sent on mount and once per settled step."""
    at = open_page(PAGE)
    size = len(at.get("bidi_component")[0].proto.bytes)  # the JSON bytes sent (ui.live.wire)
    assert size < 100 * 1024, size


def test_shifted_logits_give_the_same_probabilities():
    at = open_page(PAGE)
    at.text_input(key="softmax_logits").input("1000, 1001, 1002").run()
    assert "= 0.6652" in latex(at)
    assert ":red-badge[" not in badges(at)


@pytest.mark.parametrize(
    "text",
    ["", "5", "5, six", "1e999, 1", "nan, 1", "__import__('os').system('id')", "9**9**9, 1"],
)
def test_bad_logits_show_an_error_and_the_page_keeps_working(text):
    at = open_page(PAGE)
    at.text_input(key="softmax_logits").input(text).run()
    assert not at.exception
    assert at.error and "can't be used" in at.error[0].value
    # the rest of the page still renders
    assert at.radio(key="softmax_view").value == "temperature"
    assert any("Try this" in m.value for m in at.markdown)
    at.text_input(key="softmax_logits").input("1, 2, 3").run()
    assert not at.error


def test_url_restores_the_view():
    query = {"softmax_T": "0.3", "softmax_logits": "1, 2"}
    at = open_page(PAGE, query)
    assert live_data(at)["index"] == index_of(at, 0.3)
    assert "u / 0.3)" in latex(at) and "= (0.0344,\\ 0.9656)" in latex(at)
    assert at.text_input(key="softmax_logits").value == "1, 2"
    assert "\\ln 2" in latex(at)
    at = open_page(PAGE, {"softmax_view": "calibration", "softmax_bins": "7", "softmax_seed": "5"})
    assert at.slider(key="softmax_bins").value == 7
    assert at.number_input(key="softmax_seed").value == 5
    assert "sum_{m=1}^{7}" in latex(at)


@pytest.mark.parametrize("view", ["temperature", "sqrt_d", "calibration", "contrastive"])
def test_every_part_of_the_page_runs_with_green_badges(view):
    at = open_page(PAGE, {"softmax_view": view})
    assert not at.exception and not at.error
    if view == "temperature":  # the badges follow T in the live control (ui.live)
        assert latex(at) and live_state(at, 1.0)["html"].count("live-ok") == 4
    else:
        assert latex(at) and ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)
    assert url(at)["softmax_view"] == view


def test_bad_url_parameters_fall_back_to_defaults_with_a_notice():
    query = {"softmax_view": "calibration", "softmax_bins": "999", "softmax_seed": "-4"}
    at = open_page(PAGE, query)
    assert not at.exception
    assert at.slider(key="softmax_bins").value == 15
    notice = " ".join(c.value for c in at.caption)
    assert "softmax_bins" in notice and "softmax_seed" in notice
    at = open_page(PAGE, {"softmax_T": "banana", "softmax_view": "nonsense"})
    assert live_data(at)["index"] == index_of(at, 1.0)
    assert url(at)["softmax_T"] == "1"
    assert at.radio(key="softmax_view").value == "temperature"
    notice = " ".join(c.value for c in at.caption)
    assert "softmax_T" in notice and "softmax_view" in notice


def test_sqrt_d_readout_follows_the_dimension():
    at = open_page(PAGE, {"softmax_view": "sqrt_d"})
    at.select_slider(key="softmax_d").set_value(512).run()
    metrics = {m.label: m.value for m in at.metric}
    assert 450 < float(metrics["var(q·k)"]) < 580
    assert 0.9 < float(metrics["var(q·k / √d)"]) < 1.1
    assert "= 512" in latex(at)


def test_calibration_fits_the_overconfidence_and_lowers_ece():
    at = open_page(PAGE, {"softmax_view": "calibration"})
    at.slider(key="softmax_overconf").set_value(3.0).run()
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["fitted T"]) == pytest.approx(3.0, rel=0.1)
    assert float(metrics["ECE after"]) < float(metrics["ECE before"])


def test_contrastive_anchor_is_clamped_when_the_batch_shrinks():
    at = open_page(PAGE, {"softmax_view": "contrastive"})
    at.slider(key="softmax_anchor").set_value(7).run()
    at.slider(key="softmax_pairs").set_value(2).run()
    assert not at.exception
    assert at.slider(key="softmax_anchor").value == 3
    assert "\\ell_{3,1}" in latex(at)
