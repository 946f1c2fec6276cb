"""The parameterisation page, driven through AppTest by widget keys; its exercise checked
against answers computed independently from the question's own numbers."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from core import snr_schedules as snr
from tests.app.conftest import kept_charts, latex, live_controls, live_states, open_page, url
from ui import exercises, i18n

PAGE = "diffusion_parameterisations.py"
C = "diffusion_parameterisations"


def value_after(tex: str, name: str) -> float:
    """The number after ``name =`` in the formula."""
    m = re.search(re.escape(name) + r" = (-?[\d.]+)", tex)
    assert m, f"{name} not in {tex}"
    return float(m.group(1))


@pytest.mark.parametrize("view", ["predictions", "weights", "schedules", "leak"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_view_draws_with_green_badges(view, lang):
    at = open_page(PAGE, {f"{C}_view": view, "lang": lang})
    assert not at.exception and not at.error
    tex = latex(at)
    assert ":green-badge[" in tex and ":red-badge[" not in tex or view == "schedules"
    for data in live_controls(at):  # the live side shows the badges (schedules)
        html = data.get("sharedHtml", "") + "".join(s["html"] for s in data["states"])
        assert "live-badge live-ok" in html and ' live-bad"' not in html


def test_predictions_show_the_numbers_of_core():
    at = open_page(PAGE)
    at.slider(key=f"{C}_t").set_value(250).run()
    at.select_slider(key=f"{C}_x0").set_value(-0.7).run()
    at.select_slider(key=f"{C}_eps").set_value(1.3).run()
    assert not at.exception and not at.error
    tex = latex(at)
    a = float(snr.named_schedule("linear").alpha_bars[249])
    truth = snr.targets(np.array([-0.7]), np.array([1.3]), a)
    assert f"t = 250:\\ \\bar\\alpha_t = {a:.6f}" in tex
    assert f"= {truth.x_t[0]:.4f}\\\\" in tex and f"= {truth.v[0]:.4f}," in tex
    assert "12 pairs" in tex and ":red-badge[" not in tex
    assert url(at)[f"{C}_t"] == "250" and url(at)[f"{C}_x0"] == "-0.7"


def test_zero_terminal_snr_at_T_leaves_four_conversions_undefined():
    at = open_page(PAGE)
    at.toggle(key=f"{C}_zero_snr").set_value(True).run()
    at.slider(key=f"{C}_t").set_value(1000).run()
    assert not at.exception and not at.error
    tex = latex(at)
    assert "\\bar\\alpha_t = 0.000000" in tex
    assert "8 pairs" in tex and "4 pairs" in tex and ":red-badge[" not in tex
    # v = −x₀ when ᾱ = 0 (default x₀ = 1)
    assert value_after(tex, "0.0000\\cdot(-0.5) - 1.0000\\cdot1") == -1.0


@pytest.mark.parametrize("name", ["linear", "cosine", "stable_diffusion"])
def test_weights_view_reports_snr_of_the_schedule(name):
    at = open_page(PAGE, {f"{C}_view": "weights", f"{C}_schedule": name})
    at.slider(key=f"{C}_weights_t").set_value(30).run()
    assert not at.exception and not at.error
    a = float(snr.named_schedule(name).alpha_bars[29])
    tex = latex(at)
    shown = re.search(r"\\mathrm{SNR}_t = \\frac{\\bar\\alpha_t}{1-\\bar\\alpha_t} = ([\d.]+)", tex)
    assert shown and math.isclose(float(shown.group(1)), a / (1 - a), rel_tol=1e-3)
    assert ":red-badge[" not in tex


def test_schedules_view_shifts_by_two_log_s():
    at = open_page(PAGE, {f"{C}_view": "schedules"})
    at.session_state[f"_live_value_{C}_resolution"] = 512  # the live slider settled (ui.live)
    at.run()
    assert not at.exception and not at.error
    tex = latex(at)
    assert f"- {2 * math.log(8):.3f}" in tex and "s = 8" in tex
    assert f"{snr.log_snr(snr.named_schedule('cosine'))[-1]:.2f}" in tex
    assert ":red-badge[" not in tex
    assert url(at)[f"{C}_resolution"] == "512"


@pytest.mark.parametrize("name", ["linear", "stable_diffusion"])
def test_every_image_side_is_sent_with_its_shifted_curve_and_green_badges(name):
    """The side is a live control (ui.live): the browser moves the shifted curve to any of the
    five sides with no round trip, so each state must hold that side's curve — the schedule's
    ᾱ with its odds divided by s² (Hoogeboom et al. 2023), computed here from ᾱ alone — and
    its numbers and checks."""
    at = open_page(PAGE, {f"{C}_view": "schedules", f"{C}_schedule_variant": name})
    assert not at.exception and not at.error
    (data,) = live_controls(at)
    assert data["moveTraces"] and data["index"] == 2  # 256 by default
    states = live_states(at)
    assert sorted(states) == [64, 128, 256, 512, 1024]
    a = snr.named_schedule(name).alpha_bars
    for side, st in states.items():
        s = side / 64
        odds = a / (1 - a) / s**2
        ((index, props),) = st["traces"]
        assert index == 6  # five schedules, the rescaled one, then the shifted one
        np.testing.assert_allclose(props["y"], np.log(odds), atol=6e-4)
        assert f"{2 * math.log(s):.3f}" in st["html"]
        assert f"{odds[-1] / (1 + odds[-1]):.3g}".replace("-", "−") in st["html"]
        assert "live-badge live-ok" in st["html"] and ' live-bad"' not in st["html"]
    assert "live-badge live-ok" in data["sharedHtml"] and ' live-bad"' not in data["sharedHtml"]
    linked = open_page(PAGE, {f"{C}_view": "schedules", f"{C}_resolution": "1024"})
    assert live_controls(linked)[0]["index"] == 4 and "s = 16" in latex(linked)


def test_a_bad_image_side_in_the_link_falls_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_view": "schedules", f"{C}_resolution": "9**9**9"})
    assert not at.exception and not at.error and live_controls(at)[0]["index"] == 2
    assert f"{C}_resolution" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("block", [1, 32])
def test_leak_view_counts_the_block_means(block):
    at = open_page(PAGE, {f"{C}_view": "leak", f"{C}_image": "shapes"})
    at.select_slider(key=f"{C}_block").set_value(block).run()
    assert not at.exception and not at.error
    tex = latex(at)
    assert f"b = {block}:" in tex and f"(n = {(128 // block) ** 2 * 3})" in tex
    assert ":red-badge[" not in tex


# ---- the exercise: answers from the question's own numbers --------------------------------


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text.replace("−", "-"))]


@pytest.mark.parametrize("seed", range(40))
def test_exercise_answers_follow_from_the_question(seed, english):
    ex = exercises.diffusion_parameterisations(np.random.default_rng(seed))
    q = ex.question
    a = float(re.search(r"ᾱₜ = (\d+\.\d+)", q).group(1))
    assert 0.05 < a < 0.95
    if "v̂" in q:
        x_t = numbers(q.split("xₜ = ")[1])[0]
        v = numbers(q.split("v̂ = ")[1])[0]
        expected = math.sqrt(a) * x_t - math.sqrt(1 - a) * v  # rotate back
    elif "ε̂ =" in q:
        x_t = numbers(q.split("xₜ = ")[1])[0]
        e = numbers(q.split("ε̂ = ")[1])[0]
        expected = (x_t - math.sqrt(1 - a) * e) / math.sqrt(a)
    else:
        expected = a / (1 - a)
    assert ex.is_right(expected), (q, ex.answer, expected)
    assert not ex.is_right(expected + 0.1 + 0.05 * abs(expected))


def test_exercise_draws_every_kind(english):
    kinds = set()
    for seed in range(60):
        q = exercises.diffusion_parameterisations(np.random.default_rng(seed)).question
        kinds.add("v" if "v̂" in q else "eps" if "ε̂ =" in q else "weight")
    assert kinds == {"v", "eps", "weight"}


def test_exercise_opens_on_the_page():
    at = open_page(PAGE, {f"{C}_ex": "7"})
    box = next(e for e in at.expander if e.key == f"{C}_ex_box")
    assert box is not None and not at.exception


def test_the_weights_derivation_opens_with_its_steps():
    at = open_page(PAGE, {f"{C}_view": "weights"})
    key = f"{C}_weights_derivation"
    assert key in {e.key for e in at.expander}
    assert not any("1. Fix xₜ." in m.value for m in at.markdown), "lazy: not sent while closed"
    at.session_state[key] = True
    at.run()
    assert not at.exception and not at.error
    body = " ".join(m.value for m in at.markdown)
    assert "Fix xₜ." in body and "5. For the score" in body


def test_t_x0_and_eps_move_the_rotation_chart_in_place():
    """Every step of t, x₀ or ε gives a figure with the same skeleton on fixed axes, which
    the browser draws by moving the traces (ui.live, ``move=True``): a title, a trace or an
    autoranged axis that changed with them would make each step a redraw."""
    at = open_page(PAGE)
    first = kept_charts(at)[f"{C}_rotation_chart"]
    assert first["movable"]
    seen = {first["digest"]}
    for key, value in (("t", 1), ("t", 1000), ("x0", -1.5), ("eps", 2.0)):
        widget = at.slider(key=f"{C}_t") if key == "t" else at.select_slider(key=f"{C}_{key}")
        widget.set_value(value).run()
        chart = kept_charts(at)[f"{C}_rotation_chart"]
        assert chart["movable"] and chart["skeleton"] == first["skeleton"], key
        seen.add(chart["digest"])
    assert len(seen) == 5  # each step a new figure
