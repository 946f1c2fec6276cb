"""The sub-pixel convolution page, driven through AppTest by widget keys."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.app.conftest import latex, open_page
from ui import exercises, i18n

PAGE = "sub_pixel_convolution.py"
C = "sub_pixel_convolution"


def badges(at) -> str:
    return "\n".join(m.value for m in at.markdown if "-badge[" in m.value)


@pytest.mark.parametrize("view", ["shuffle", "transposed", "artefacts"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {f"{C}_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)


def test_the_shuffle_names_each_output_pixels_source():
    at = open_page(PAGE)
    assert "(Y, X) = (2, 3) = (1\\cdot2 + 0,\\ 1\\cdot2 + 1)" in latex(at)
    at.slider(key=f"{C}_r").set_value(3).run()
    at.slider(key=f"{C}_out_row").set_value(4).run()
    at.slider(key=f"{C}_out_col").set_value(5).run()
    # (4, 5) = (1·3 + 1, 1·3 + 2): channel 1·3 + 2 = 5, pixel (1, 1)
    assert "\\text{channel}\\ 1\\cdot3 + 2 = 5,\\ \\text{pixel}\\ (1, 1)" in latex(at)
    assert "r = 3:\\ 9\\ " in latex(at) and ":red-badge[" not in badges(at)
    at.slider(key=f"{C}_r").set_value(1).run()  # r = 1: the identity
    assert "r = 1:\\ 1\\ " in latex(at) and ":red-badge[" not in badges(at)


@pytest.mark.parametrize(("r", "k"), [(1, 1), (3, 5), (4, 3)])
def test_the_transposed_convolution_equals_conv_and_shuffle(r, k):
    at = open_page(PAGE, {f"{C}_view": "transposed", f"{C}_t_r": str(r), f"{C}_kernel": str(k)})
    text = latex(at)
    assert f"T \\in \\mathbb{{R}}^{{2\\times1\\times{r * k}\\times{r * k}}}" in text
    assert f"= {r * r}\\times " in text  # the zero-filled convolution does r² times the work
    assert ":red-badge[" not in badges(at)


@pytest.mark.parametrize("kernel", [2, 3, 4])
def test_the_artefacts_part_for_every_transposed_kernel(kernel):
    at = open_page(
        PAGE,
        {
            f"{C}_view": "artefacts",
            f"{C}_t_kernel": str(kernel),
            f"{C}_sample": "sunset",
            f"{C}_init_seed": "5",
        },
    )
    text = latex(at)
    counts = re.search(r"= ([\d,\\ ]+),\\ \\ldots", text).group(1).replace("\\ ", "").split(",")
    assert (len(set(counts)) > 1) == (kernel == 3)
    assert "\\text{resize}\\ 0.0000" in text and "\\text{ICNR}\\ 0.0000" in text
    assert float(re.search(r"\\text{transposed}\\ ([\d.]+)", text).group(1)) > 0.01
    assert ":red-badge[" not in badges(at)
    assert at.selectbox(key=f"{C}_sample").value == "sunset"


def test_a_bad_link_falls_back():
    at = open_page(PAGE, {f"{C}_view": "artefacts", f"{C}_sample": "nope", f"{C}_t_kernel": "9"})
    assert not at.exception
    assert at.selectbox(key=f"{C}_sample").value == "shapes"


# ---- the exercise against an independent computation ------------------------------------


def independent(question: str) -> float:
    r, C = (int(x) for x in re.search(r"r = (\d+).*?C = (\d+)", question).groups())
    if "How many channels" in question:
        return float(C * r * r)
    c, Y, X = (
        int(x)
        for x in re.search(r"c = (\d+), pixel \(Y, X\) = \((\d+), (\d+)\)", question).groups()
    )
    # torch's order written out: output (c, Y, X) reads channel c·r² + (Y mod r)·r + (X mod r)
    return float(c * r * r + (Y % r) * r + X % r)


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


def test_the_exercise_answer_matches_an_independent_computation(english):
    import torch

    kinds = set()
    for seed in range(40):
        ex = exercises.sub_pixel_convolution(np.random.default_rng(seed))
        kinds.add("How many channels" in ex.question)
        assert ex.is_right(independent(ex.question)) and not ex.is_right(ex.answer + 1), ex
        if m := re.search(r"r = (\d+) the PixelShuffle|PixelShuffle with r = (\d+)", ex.question):
            r = int(m[2] or m[1])
            n = int(re.search(r"turns (\d+) channels", ex.question)[1])
            c, Y, X = (
                int(x)
                for x in re.search(
                    r"c = (\d+), pixel \(Y, X\) = \((\d+), (\d+)\)", ex.question
                ).groups()
            )
            ids = torch.arange(n * 9, dtype=torch.float64).reshape(1, n, 3, 3)
            assert int(torch.nn.PixelShuffle(r)(ids)[0, c, Y, X]) // 9 == ex.answer
    assert kinds == {True, False}
