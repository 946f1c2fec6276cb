"""The SimCLR page, driven through AppTest by widget keys; the exercise against torch."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.app.conftest import latex, open_page
from ui import exercises, i18n

PAGE = "simclr.py"


def no_red(at) -> bool:
    return ":red-badge[" not in latex(at)


def test_views_part_draws_the_batch_and_follows_the_draw():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert no_red(at) and "\\tilde{x}_1" in latex(at)
    before = latex(at)
    at.slider(key="simclr_draw").set_value(2).run()
    assert not at.exception and latex(at) != before and no_red(at)
    assert at.query_params["simclr_draw"] == "2"


def test_similarity_part_shows_the_anchor_loss_and_softmax_link():
    at = open_page(
        PAGE, {"simclr_view": "similarity", "simclr_encoder": "untrained", "simclr_n": "3"}
    )
    assert not at.exception and not at.error and no_red(at)
    text = latex(at)
    assert "\\ell_{1,1'}" in text and "\\frac{1}{6}" in text
    at.slider(key="simclr_anchor").set_value(5).run()  # view 2′: its positive is view 2
    assert "\\ell_{2',2}" in latex(at) and no_red(at)
    losses = re.findall(r"\\mathcal\{L\} = \\frac\{1\}\{6\}.*= ([\d.]+)", latex(at))
    assert losses and 0 < float(losses[0]) < 10


def test_temperature_part_shows_chance_and_bound():
    at = open_page(
        PAGE,
        {
            "simclr_view": "temperature",
            "simclr_encoder": "untrained",
            "simclr_n": "4",
            "simclr_tau": "0.5",
        },
    )
    assert not at.exception and not at.error and no_red(at)
    text = latex(at)
    assert f"= {math.log(7):.4f}" in text  # ln(2N − 1), N = 4
    bound = math.log1p(6 * math.exp(-4 / (3 * 0.5)))
    assert f"= {bound:.4f}" in text


def test_training_part_trains_then_scrubs_the_steps():
    at = open_page(PAGE, {"simclr_view": "training", "simclr_n": "3"})
    assert not at.exception and not at.error and no_red(at)
    assert "\\mathcal{L}_{60}" in latex(at)
    at.slider(key="simclr_step").set_value(10).run()
    assert "\\mathcal{L}_{10}" in latex(at) and no_red(at)


def test_bad_url_values_fall_back():
    at = open_page(PAGE, {"simclr_n": "99", "simclr_tau": "nan", "simclr_view": "x"})
    assert not at.exception and not at.error
    assert at.slider(key="simclr_n").value == 6


# ---- the exercise against an independent computation ---------------------------------------


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


@pytest.mark.parametrize("seed", range(40))
def test_exercise_answer_against_torch(english, seed):
    ex = exercises.simclr(np.random.default_rng(seed))
    q = ex.question.replace("−", "-")
    tau = float(re.search(r"τ = (\d+(?:\.\d+)?)", q).group(1))
    if "collapsed" in q:
        n = int(re.search(r"N = (\d+)", q).group(1))
        logits = torch.zeros(2 * n, 2 * n).fill_diagonal_(-math.inf)  # all sims equal
        target = (torch.arange(2 * n) + n) % (2 * n)
        assert ex.answer == pytest.approx(float(F.cross_entropy(logits, target)), abs=1e-3)
        return
    bold = re.findall(r"\*\*(.+?)\*\*", q)
    s_pos = float(bold[0])
    negatives = [float(x) for x in bold[1].split(", ")]
    logits = torch.tensor([s_pos, *negatives], dtype=torch.float64)[None] / tau
    ref = float(F.cross_entropy(logits, torch.tensor([0])))
    assert ex.answer == pytest.approx(ref, abs=1e-3)
    assert ex.is_right(ref) and not ex.is_right(ref + 0.1)
