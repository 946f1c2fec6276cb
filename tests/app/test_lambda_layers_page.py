"""The lambda layers page, driven through AppTest by widget keys."""

from __future__ import annotations

import json
import re

import pytest

from tests.app.conftest import ROOT, first_at, latex, open_page, url

PAGE = "lambda_layers.py"
C = "lambda_layers"


def badges(at) -> str:
    return "\n".join(m.value for m in at.markdown if "-badge[" in m.value)


def lambda_matrix(at) -> str:
    return re.search(r"\\begin\{pmatrix\}(.*?)\\end\{pmatrix\}", latex(at)).group(1)


@pytest.mark.parametrize("view", ["cost", "content", "position"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {f"{C}_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)
    assert any(e.label.startswith("Show the tested code") for e in at.expander)


def test_the_side_slider_moves_the_cost_and_the_measured_forward_pass():
    at = open_page(PAGE)
    text = latex(at)
    assert "n = s^2 = 1{,}024" in text and "h\\,n^2 = 2{,}097{,}152" in text
    assert "= 128\\end{gathered}" in text  # h·n / (k·v) = 2·1024 / 16
    assert "conv3d 1×4×4×32×32 = 16,384" in badges(at)
    at.select_slider(key=f"{C}_side").set_value(128).run()
    text = latex(at)
    assert "n = s^2 = 16{,}384" in text and "h\\,n^2 = 536{,}870{,}912" in text
    assert "\\to 2{,}147\\,\\text{MB}" in text  # 536,870,912 × 4 B
    assert "conv3d 1×4×4×128×128 = 262,144" in badges(at) and ":red-badge[" not in badges(at)
    assert url(at)[f"{C}_side"] in ("128", ["128"])


def test_the_content_lambda_ignores_the_query_position():
    at = open_page(PAGE, {f"{C}_view": "content"})
    applied_to_q = r"\\ldots, \d+\):\s*\\\\(?:\[\w+\])?\s*\(([^)]*)\)"  # (λᶜ)ᵀ q_n^(j), j = 1, …, h
    before, applied = lambda_matrix(at), re.search(applied_to_q, latex(at)).group(1)
    assert "n = (4, 2)" in latex(at)
    at.slider(key=f"{C}_row").set_value(7).run()
    at.slider(key=f"{C}_col").set_value(0).run()
    assert "n = (7, 0)" in latex(at)
    assert lambda_matrix(at) == before  # the same λᶜ
    assert re.search(applied_to_q, latex(at)).group(1) != applied  # another qₙ
    assert ":red-badge[" not in badges(at)


def test_the_local_window_is_clipped_at_the_border():
    at = open_page(PAGE, {f"{C}_view": "position"})
    assert "25 \\le r^2 = 25" in latex(at) and "n = (8, 4)" in latex(at)
    at.slider(key=f"{C}_row").set_value(0).run()
    at.slider(key=f"{C}_col").set_value(0).run()
    assert "9 \\le r^2 = 25" in latex(at)  # only the 3×3 quarter of the window is inside
    at.select_slider(key=f"{C}_r").set_value(9).run()
    assert "25 \\le r^2 = 81" in latex(at)
    assert ":red-badge[" not in badges(at)


def test_a_shared_link_restores_the_view():
    at = open_page(
        PAGE,
        {
            f"{C}_view": "position",
            f"{C}_position_H": "8",
            f"{C}_r": "7",
            f"{C}_row": "2",
            f"{C}_col": "5",
        },
    )
    assert at.select_slider(key=f"{C}_position_H").value == 8
    assert at.select_slider(key=f"{C}_r").value == 7
    assert at.slider(key=f"{C}_row").value == 2 and at.slider(key=f"{C}_col").value == 5
    assert "|m| = 8\\cdot8 = 64" in latex(at) and "n = (2, 5)" in latex(at)
    assert "36 \\le r^2 = 49" in latex(at)  # rows 0..5 × columns 2..7 of the 7×7 window


def test_bad_link_params_fall_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_view": "nope", f"{C}_side": "33"})
    assert not at.exception and not at.error
    assert at.radio(key=f"{C}_view").value == "cost"
    assert at.select_slider(key=f"{C}_side").value == 32
    assert any("were not valid" in c.value for c in at.caption)
    at = open_page(PAGE, {f"{C}_view": "position", f"{C}_r": "4", f"{C}_row": "99"})
    assert not at.exception and not at.error
    assert at.select_slider(key=f"{C}_r").value == 5 and at.slider(key=f"{C}_row").value == 8


def test_the_query_is_clamped_when_the_image_shrinks():
    at = open_page(PAGE, {f"{C}_view": "position", f"{C}_row": "15", f"{C}_col": "12"})
    assert "n = (15, 12)" in latex(at)
    at.select_slider(key=f"{C}_position_H").set_value(8).run()
    assert not at.exception
    assert at.slider(key=f"{C}_row").value == 7 and at.slider(key=f"{C}_col").value == 7
    assert "n = (7, 7)" in latex(at) and ":red-badge[" not in badges(at)


@pytest.mark.parametrize("view", ["content", "position"])
def test_the_query_row_above_the_chart_shows_the_position_it_was_drawn_of(view):
    """Row and column are read before the chart and drawn after it, above it
    (``kit.controls_after_the_chart``: a new side gives both sliders another range): from a
    shared link and after a smaller side, the sliders, the URL and the formula agree."""
    at = open_page(PAGE, {f"{C}_view": view, f"{C}_{view}_H": "16", "lambda_layers_row": "15"})
    assert not at.exception and not at.error
    row, chart = first_at(at.main, "slider"), first_at(at.main, "bidi_component")
    assert row is not None and chart is not None and row < chart, (row, chart)
    assert at.slider(key=f"{C}_row").value == 15 and "n = (15, 4)" in latex(at)
    at.select_slider(key=f"{C}_{view}_H").set_value(8).run()
    assert not at.exception and not at.error
    assert at.slider(key=f"{C}_row").value == 7 and at.slider(key=f"{C}_row").max == 7
    assert url(at)[f"{C}_row"] == "7" and "n = (7, 4)" in latex(at)
    assert ":red-badge[" not in badges(at)


@pytest.mark.parametrize("view", ["cost", "content", "position"])
def test_the_data_expander_exports_every_chart(view):
    at = open_page(PAGE, {f"{C}_view": view})
    at.session_state[f"{C}_data"] = True
    at.run()
    assert not at.exception and not at.error


def test_the_page_runs_in_japanese_with_the_same_keys():
    en = json.loads((ROOT / "assets/i18n/en" / f"{C}.json").read_text(encoding="utf-8"))
    ja = json.loads((ROOT / "assets/i18n/ja" / f"{C}.json").read_text(encoding="utf-8"))
    assert set(en) == set(ja)
    for view in ("cost", "content", "position"):
        at = open_page(PAGE, {"lang": "ja", f"{C}_view": view})
        assert not at.exception and not at.error
        assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)


def reveal(seed: int):
    at = open_page(PAGE, {f"{C}_ex": str(seed)})
    at.session_state[f"{C}_ex_box"] = True
    at.run()
    at.button(key=f"{C}_ex_reveal").click().run()
    assert not at.exception
    question = next(m.value for m in at.markdown if "attention maps take" in m.value)
    return question, at.info[0].value


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_the_exercise_reveals_an_independently_computed_answer(seed):
    question, answer = reveal(seed)
    h = int(re.search(r"h = (\d+)", question).group(1))
    s = int(re.search(r"(\d+)×\1", question).group(1))
    k, v = (int(x) for x in re.search(r"k = (\d+), v = (\d+)", question).groups())
    megabytes = h * s**4 * 4 / 1e6  # h maps of (s²)² float32 numbers
    shown = float(re.search(r"Answer: ([\d.e+]+)", answer).group(1))
    assert shown == pytest.approx(megabytes, rel=1e-3)
    assert f"{s**2 * k * v:,}" in answer  # the lambda layer's n·k·v


def test_the_formula_gives_per_head_dimensions():
    """λ ∈ ℝ^{k×v}, q_n ∈ ℝ^k, y_n = λ_nᵀ q_n ∈ ℝ^v per head (Bello 2021); h·v outputs."""
    at = open_page(PAGE, {f"{C}_view": "position"})
    text = latex(at)
    assert "q_n^{(j)} \\in \\mathbb{R}^{4}" in text and "\\mathbb{R}^{4\\times4}" in text
    assert "y_n^{(j)} = (\\lambda^c + \\lambda^p_n)^\\top q_n^{(j)} \\in \\mathbb{R}^{4}" in text
    assert "\\mathbb{R}^{2\\times4}" not in text  # not q_n ∈ ℝ^{h×k}
    assert ":red-badge[" not in badges(at)
