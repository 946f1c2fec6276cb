"""The depthwise separable convolution page, driven through AppTest by widget keys."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.app.conftest import latex, open_page, url
from ui import exercises, i18n

PAGE = "depthwise_separable.py"
C = "depthwise_separable"


def badges(at) -> str:
    return "\n".join(m.value for m in at.markdown if "-badge[" in m.value)


@pytest.mark.parametrize("view", ["filters", "cost", "mobilenet", "torch"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {f"{C}_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)
    assert any(e.label.startswith("Show the tested code") for e in at.expander)


def test_the_timing_part_measures_and_can_measure_again():
    at = open_page(PAGE, {f"{C}_view": "timing"})
    assert not at.exception and not at.error
    rows = re.findall(
        r"(\d+)\\to (\d+),\\ (\d+)\^2 & ([\d.]+) & ([\d.]+) & ([\d.]+) & ([\d.]+)", latex(at)
    )
    assert [r[:3] for r in rows] == [
        ("32", "64", "112"),
        ("128", "128", "56"),
        ("256", "256", "28"),
        ("512", "512", "14"),
    ]
    for *_, standard, dw, pw, _flops in rows:
        assert min(float(standard), float(dw), float(pw)) > 0
    assert [r[6] for r in rows] == ["0.127", "0.119", "0.115", "0.113"]  # 1/N + 1/9
    at.button(key=f"{C}_again").click().run()
    assert not at.exception and at.session_state[f"{C}_runs"] == 1


def test_the_cost_part_shows_the_course_example():
    at = open_page(PAGE, {f"{C}_view": "cost"})
    text = latex(at)
    # D_K = 3, M = 64, N = 128, D_F = 56 (MobileNet's 1×1 layer 64 → 128 at 56²)
    assert "= 231{,}211{,}008" in text and "= 27{,}496{,}448" in text
    assert "\\frac{1}{128} + \\frac{1}{9} = 0.1189" in text
    at.select_slider(key=f"{C}_n").set_value(1024).run()
    at.select_slider(key=f"{C}_kernel").set_value(5).run()
    assert "\\frac{1}{1024} + \\frac{1}{25} = 0.0410" in latex(at)
    at.select_slider(key=f"{C}_kernel").set_value(1).run()  # nothing to split: worse
    assert "\\frac{1}{1024} + \\frac{1}{1} = 1.0010" in latex(at)
    assert ":red-badge[" not in badges(at)
    assert url(at)[f"{C}_kernel"] in ("1", ["1"])


def test_the_filters_part_counts_clipped_windows():
    at = open_page(PAGE, {f"{C}_view": "filters"})
    assert "D_K\\cdot D_K\\cdot M = 36}_{\\text{standard filter}:\\ 36}" in latex(at)
    at.slider(key=f"{C}_row").set_value(0).run()
    at.slider(key=f"{C}_col").set_value(0).run()
    assert "}_{\\text{standard filter}:\\ 16}" in latex(at)  # a 2×2 corner in 4 channels
    assert ":red-badge[" not in badges(at)


@pytest.mark.parametrize(
    ("alpha", "side", "total"),
    [
        ("1.0", "224", "568.74"),
        ("0.5", "224", "149.50"),
        ("1.0", "160", "290.68"),
        ("0.75", "128", "106.77"),
    ],
)
def test_the_mobilenet_part_matches_the_paper(alpha, side, total):
    at = open_page(PAGE, {f"{C}_view": "mobilenet", f"{C}_alpha": alpha, f"{C}_resolution": side})
    assert f"= {total}\\,\\text{{M}}" in latex(at)
    assert ":red-badge[" not in badges(at)
    published = "paper publishes" in badges(at)
    assert published == (alpha == "1.0" or side == "224")


def test_the_mobilenet_table_is_lazy():
    at = open_page(PAGE, {f"{C}_view": "mobilenet"})
    assert not at.dataframe
    at.session_state[f"{C}_table"] = True
    at.run()
    frame = at.dataframe[0].value
    assert len(frame) == 28 and frame.iloc[:, -2].sum() == 568_740_352


def test_the_torch_part_follows_its_sliders():
    at = open_page(PAGE, {f"{C}_view": "torch", f"{C}_torch_m": "5", f"{C}_torch_n": "2"})
    assert "\\texttt{Conv2d}(5, 2, 1):\\ 55\\ " in latex(at)  # 3·3·5 + 5·2
    assert "\\texttt{Conv2d}(5, 2, 3):\\ 90\\ " in latex(at)
    at.select_slider(key=f"{C}_torch_k").set_value(5).run()
    assert "\\texttt{Conv2d}(5, 2, 5):\\ 250\\ " in latex(at)
    assert ":red-badge[" not in badges(at)


def test_a_bad_link_falls_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_view": "cost", f"{C}_n": "77"})
    assert not at.exception
    assert at.select_slider(key=f"{C}_n").value == 128


# ---- the exercise against an independent count ------------------------------------------


def independent(question: str) -> float:
    pattern = r"(\d+)×\d+ kernel.*?M = (\d+).*?N = (\d+).*?(\d+)×\d+ feature"
    k, m, n, f = (int(x) for x in re.search(pattern, question).groups())
    standard = sum(k * k * m for _ in range(n)) * f * f  # N filters of D_K·D_K·M at D_F² positions
    separable = (k * k + n) * m * f * f
    return separable / standard if "fraction" in question else float(separable)


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


def test_the_exercise_answer_matches_an_independent_count(english):
    kinds = set()
    for seed in range(40):
        ex = exercises.depthwise_separable(np.random.default_rng(seed))
        expected = independent(ex.question)
        kinds.add("fraction" in ex.question)
        assert ex.is_right(expected) and not ex.is_right(expected * 1.5 + 1), ex
        assert "$" not in ex.question + ex.explanation
    assert kinds == {True, False}
    same = exercises.depthwise_separable(np.random.default_rng(3))
    assert same == exercises.depthwise_separable(np.random.default_rng(3))
