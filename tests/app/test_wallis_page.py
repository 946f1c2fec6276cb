"""The Wallis page, driven through AppTest by widget keys."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.app.conftest import latex, live_controls, live_states, open_page, url

PAGE = "wallis.py"


@pytest.mark.parametrize(
    ("n", "shown"), [(200, "3.13767"), (400, "3.13963"), (1000, "3.14080"), (100_000, "3.14158")]
)
def test_n_moves_the_numbers_in_the_formula(n, shown):
    at = open_page(PAGE)
    at.select_slider(key="wallis_n").set_value(n).run()
    assert not at.exception and not at.error
    assert f"2P_{{{n}}}" in latex(at) and f"= {shown}" in latex(at)
    assert ":red-badge[" not in latex(at)
    assert url(at)["wallis_n"] == str(n)


def test_small_n_shows_the_exact_fraction():
    at = open_page(PAGE, {"wallis_n": "2"})
    assert "\\frac{128}{45}" in latex(at)  # 2 · 64/45
    assert "float = exact fraction" in latex(at)


def test_integrals_part_shows_the_exact_sandwich():
    at = open_page(PAGE, {"wallis_view": "integrals", "wallis_N": "1"})
    assert not at.exception and not at.error
    text = latex(at)
    assert "W_{4} = \\frac{3 \\pi}{16}" in text and "W_{3} = \\frac{2}{3}" in text
    assert ":red-badge[" not in text
    at.session_state["_live_value_wallis_N"] = 20  # the live slider settled at 20 (ui.live)
    at.run()
    assert "W_{42}" in latex(at) and url(at)["wallis_N"] == "20"


def test_every_N_is_sent_with_its_integrands_its_sandwich_and_green_badges():
    """N is a live control (ui.live): the browser moves the chart to any N with no round
    trip, so each state must hold that N's three integrands, the three W it highlights, the
    sandwich's numbers and its checks."""
    from core import wallis as w

    at = open_page(PAGE, {"wallis_view": "integrals"})
    states = live_states(at)
    assert sorted(states) == list(range(21))
    (data,) = live_controls(at)
    assert data["moveTraces"] and data["index"] == 2
    x = np.linspace(0, math.pi / 2, 161)
    for N, s in states.items():
        traces = dict((i, props) for i, props in s["traces"])
        assert sorted(traces) == [0, 1, 2, 4]
        for j in range(3):
            np.testing.assert_allclose(traces[j]["y"], np.sin(x) ** (2 * N + j), atol=1e-4)
        assert traces[4]["x"] == [2 * N, 2 * N + 1, 2 * N + 2]
        W2, W1, W0 = (float(v) for v in w.sandwich(N))
        np.testing.assert_allclose(traces[4]["y"], [W0, W1, W2], rtol=1e-6)
        assert f"<b>{W2:.6f} ≤ {W1:.6f} ≤ {W0:.6f}</b>" in s["html"]
        assert s["html"].count("live-badge live-ok") == 4 and ' live-bad"' not in s["html"]
    linked = open_page(PAGE, {"wallis_view": "integrals", "wallis_N": "7"})
    assert live_controls(linked)[0]["index"] == 7 and "W_{16}" in latex(linked)


def test_bad_url_parameters_fall_back_with_a_notice():
    at = open_page(PAGE, {"wallis_n": "9**9**9", "wallis_view": "nope", "wallis_N": "1e999999"})
    assert not at.exception and not at.error
    assert at.select_slider(key="wallis_n").value == 10
    notice = " ".join(c.value for c in at.caption)
    assert "wallis_n" in notice and "wallis_view" in notice
    at = open_page(PAGE, {"wallis_view": "integrals", "wallis_N": "1e999999"})
    assert not at.exception and not at.error and live_controls(at)[0]["index"] == 2
    assert "wallis_N" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("N", [0, 1, 7, 20])
def test_the_cached_sandwich_agrees_with_the_gamma_function_and_checks_out(N):
    """``ui.cache.wallis_sandwich`` (what every state of the live N shows) against the closed
    form W_m = (√π / 2) Γ((m + 1) / 2) / Γ(m / 2 + 1), which the page does not use."""
    from ui import cache

    f = cache.wallis_sandwich(N, 161)

    def W(m: int) -> float:
        return math.sqrt(math.pi) / 2 * math.gamma((m + 1) / 2) / math.gamma(m / 2 + 1)

    want = [W(2 * N + 2), W(2 * N + 1), W(2 * N)]
    np.testing.assert_allclose(f["floats"], want, rtol=1e-12)
    assert f["ratio"] == pytest.approx((2 * N + 1) / (2 * N + 2))
    assert f["W_ratio"] == pytest.approx(want[1] / want[2], rel=1e-12)
    assert all(f[k] is True for k in ("recurrence", "order", "product", "quadrature"))
    assert f["gap"] <= 1e-4 * want[2] + 1e-6  # the trapezoid rule on 161 points
