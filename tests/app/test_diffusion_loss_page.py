"""The "pieces of the DDPM loss" page, driven through AppTest by widget keys."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.app.conftest import ROOT, first_at, latex, open_page, url

PAGE = "diffusion_loss.py"


def badges_green(at) -> bool:
    text = latex(at) + " ".join(m.value for m in at.markdown)
    return ":green-badge[" in text and ":red-badge[" not in text


@pytest.mark.parametrize("view", ["posterior", "kl", "elbo"])
@pytest.mark.parametrize("kind", ["linear", "cosine", "quadratic", "sigmoid"])
def test_every_part_and_schedule_runs_with_green_badges(view, kind):
    at = open_page(PAGE, {"diffusion_loss_view": view, "diffusion_loss_kind": kind})
    assert not at.exception and not at.error
    assert badges_green(at)


def test_the_probe_slider_moves_the_posterior_numbers():
    at = open_page(PAGE)
    assert "t = 10:" in latex(at) and "= 2.382 \\times 10^{-4}" in latex(at)
    at.slider(key="diffusion_loss_t").set_value(1).run()
    assert "\\bar\\alpha_{t-1} = 1," in latex(at)  # ᾱ₀ = 1
    assert "= 1\\,x_0 + 0\\,x_t" in latex(at)  # the mean is x₀ exactly
    at.slider(key="diffusion_loss_t").set_value(1000).run()
    assert "t = 1000:" in latex(at) and badges_green(at)
    assert url(at)["diffusion_loss_t"] == "1000"


def test_a_shorter_chain_clamps_t_and_keeps_the_identities():
    at = open_page(PAGE, {"diffusion_loss_t": "800"})
    at.select_slider(key="diffusion_loss_T").set_value(50).run()
    assert not at.exception and not at.error
    assert at.slider(key="diffusion_loss_t").value == 50
    assert "t = 50:" in latex(at) and badges_green(at)


@pytest.mark.parametrize(("view", "slider"), [("posterior", "slider"), ("kl", "select_slider")])
def test_the_controls_sit_above_the_charts_they_were_read_for(view, slider):
    """Every part reads its controls first and draws them above its charts after them
    (``kit.controls_after_the_chart``): the schedule row, then the part's own sliders, then
    the first chart; after a T step the row and the numbers agree."""
    at = open_page(PAGE, {"diffusion_loss_view": view, "diffusion_loss_T": "200"})
    assert not at.exception and not at.error
    row, own = first_at(at.main, "selectbox"), first_at(at.main, slider)
    chart = first_at(at.main, "plotly_chart")
    assert None not in (row, own, chart) and row < own < chart, (row, own, chart)
    at.select_slider(key="diffusion_loss_T").set_value(20).run()
    assert not at.exception and not at.error
    assert at.select_slider(key="diffusion_loss_T").value == 20
    assert url(at)["diffusion_loss_T"] == "20" and badges_green(at)


def test_the_kl_sliders_change_the_closed_form():
    at = open_page(PAGE, {"diffusion_loss_view": "kl"})
    assert "= 0.3466\\ \\text{nats}" in latex(at)  # KL(N(0, 1) ‖ N(1, 2))
    assert "D_{\\mathrm{KL}}(q\\,\\|\\,p) = 0.6534" in latex(at)
    at.select_slider(key="diffusion_loss_mean_q").set_value(0.0).run()
    at.select_slider(key="diffusion_loss_var_q").set_value(1.0).run()
    assert "= 0.0000\\ \\text{nats}" in latex(at) and "equal now" in latex(at)
    at.select_slider(key="diffusion_loss_mean_q").set_value(-2.0).run()
    assert "(0 - (-2))^2" in latex(at) and "= 2.0000\\ \\text{nats}" in latex(at)
    assert badges_green(at)


def test_the_prior_term_is_about_1e_5_bits_for_ddpm():
    at = open_page(PAGE, {"diffusion_loss_view": "kl"})
    badges = " ".join(m.value for m in at.markdown if "badge[" in m.value)
    assert "about 10⁻⁵ bits/dim, as DDPM reports — 1.46e-05" in badges


def test_bad_data_values_show_an_error_and_the_page_keeps_working():
    at = open_page(PAGE, {"diffusion_loss_view": "kl"})
    at.text_input(key="diffusion_loss_x0").set_value("1, two, 3").run()
    assert not at.exception
    assert at.error and "'two' is not a number" in at.error[0].value
    assert "0.3466" in latex(at)  # the Gaussians above still work
    assert any("Try this" in m.value for m in at.markdown)
    at.text_input(key="diffusion_loss_x0").set_value("5").run()
    assert not at.error and badges_green(at)  # |x₀| > 1: no comparison with DDPM's number


def test_the_elbo_weights_follow_t_and_the_schedule():
    at = open_page(PAGE, {"diffusion_loss_view": "elbo"})
    assert "L_T\\, =\\, 1.46 \\times 10^{-5}" in latex(at)
    assert "= 0.07372" in latex(at)  # λ₁₀ with σ² = β (linear, T = 1000)
    at.slider(key="diffusion_loss_elbo_t").set_value(2).run()
    assert "t = 2:" in latex(at) and badges_green(at)
    at.selectbox(key="diffusion_loss_kind").set_value("cosine").run()
    at.slider(key="diffusion_loss_elbo_t").set_value(1000).run()
    assert "= 499.5" in latex(at) and badges_green(at)  # β_T clipped at 0.999


def test_url_parameters_restore_the_view():
    query = {
        "diffusion_loss_view": "kl",
        "diffusion_loss_kind": "sigmoid",
        "diffusion_loss_T": "200",
        "diffusion_loss_mean_p": "-1.5",
        "diffusion_loss_var_p": "0.5",
        "diffusion_loss_x0": "0.2 -0.4",
    }
    at = open_page(PAGE, query)
    assert not at.exception and not at.error
    assert at.selectbox(key="diffusion_loss_kind").value == "sigmoid"
    assert at.select_slider(key="diffusion_loss_T").value == 200
    assert at.select_slider(key="diffusion_loss_mean_p").value == -1.5
    assert at.text_input(key="diffusion_loss_x0").value == "0.2 -0.4"
    assert "\\ln\\frac{2}{0.5}" in latex(at)


def test_bad_url_parameters_fall_back_with_a_notice():
    query = {
        "diffusion_loss_view": "nope",
        "diffusion_loss_T": "7",
        "diffusion_loss_kind": "exponential",
        "diffusion_loss_t": "1e999",
    }
    at = open_page(PAGE, query)
    assert not at.exception and not at.error
    assert at.select_slider(key="diffusion_loss_T").value == 1000
    assert at.slider(key="diffusion_loss_t").value == 10
    notice = " ".join(c.value for c in at.caption)
    for key in ("diffusion_loss_view", "diffusion_loss_T", "diffusion_loss_kind"):
        assert key in notice


# ---- the exercise: the revealed answer against an independent computation ----
def alpha_bar(kind: str, T: int) -> np.ndarray:
    """ᾱ by hand: linear β from 0.1/T to 20/T (1e-4 … 0.02 at T = 1000), cosine from its
    closed form f(t)/f(0); both with β clipped at 0.999."""
    if kind == "linear":
        beta = np.minimum(np.linspace(0.1 / T, 20 / T, T), 0.999)
    else:
        f = np.cos((np.arange(T + 1) / T + 0.008) / 1.008 * np.pi / 2) ** 2
        beta = np.minimum(1 - f[1:] / f[:-1], 0.999)
    return np.cumprod(1 - beta)


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)]


def revealed(seed: int):
    at = open_page(PAGE, {"diffusion_loss_ex": str(seed)})
    at.session_state["diffusion_loss_ex_box"] = True  # open the expander
    at.session_state["diffusion_loss_ex_done"] = {seed: "revealed"}
    at.run()
    assert not at.exception
    box = next(e for e in at.expander if e.label.startswith("Exercise"))
    question = box.markdown[0].value
    answer = at.info[0].value.split("**")[1].removeprefix("Answer: ")
    return question, answer


def test_the_exercise_reveals_the_right_answer_for_several_seeds():
    kinds = set()
    for seed in (0, 1, 6, 9, 11, 14):
        question, answer = revealed(seed)
        if question.startswith("A schedule has"):
            kinds.add("variance")
            a_prev, a = numbers(question.replace("ᾱₜ₋₁", "").replace("ᾱₜ", ""))[:2]
            beta = 1 - a / a_prev
            assert math.isclose(float(answer), (1 - a_prev) / (1 - a) * beta, rel_tol=1e-5)
        elif question.startswith("With T ="):
            kinds.add("schedule")
            T, step = (int(v) for v in numbers(question)[:2])
            linear, cosine = alpha_bar("linear", T)[step - 1], alpha_bar("cosine", T)[step - 1]
            assert answer.startswith("cosine" if cosine > linear else "linear"), seed
        else:
            kinds.add("kl")
            m_p, v_p, m_q, v_q = numbers(question)[:4]
            kl = 0.5 * (math.log(v_q / v_p) + (v_p + (m_p - m_q) ** 2) / v_q - 1)
            assert math.isclose(float(answer), kl, rel_tol=1e-5, abs_tol=1e-9)
    assert kinds == {"variance", "schedule", "kl"}


def test_the_expectation_covers_the_whole_bound():
    """DDPM eq. 5: L = E_q[L_T + Σ L_{t−1} + L_0], the expectation over every term; and in
    the derivation the log takes the whole ratio p_θ(x_0:T) / q(x_1:T | x_0)."""
    at = open_page(PAGE, {"diffusion_loss_view": "elbo"})
    text = latex(at)
    start, end = text.index("\\mathbb E_{q}\\Big["), text.index("\\Big]")
    assert start < text.index("_{L_T") < text.index("_{L_{t-1}}") < text.index("_{L_0}") < end
    for lang in ("en", "ja"):
        md = (ROOT / "assets/content" / lang / "diffusion_loss.md").read_text(encoding="utf-8")
        assert "E_q[−log (p_θ(x₀:T) / q(x₁:T | x₀))]" in md
