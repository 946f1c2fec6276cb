"""The SimCLR page, driven through AppTest by widget keys; the exercise against torch."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.app.conftest import kept_charts, latex, live_controls, live_states, open_page, url
from ui import exercises, i18n, kit

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
    assert url(at)["simclr_draw"] == "2"


def test_similarity_part_shows_the_anchor_loss_and_softmax_link():
    at = open_page(
        PAGE, {"simclr_view": "similarity", "simclr_encoder": "untrained", "simclr_n": "3"}
    )
    assert not at.exception and not at.error and no_red(at)
    text = latex(at)
    assert "\\ell_{1,1'}" in text and "\\frac{1}{6}" in text
    at.session_state["_live_value_simclr_anchor"] = 5  # view 2′: its positive is view 2
    at.run()
    assert "\\ell_{2',2}" in latex(at) and no_red(at)
    assert url(at)["simclr_anchor"] == "5"
    losses = re.findall(r"\\mathcal\{L\} = \\frac\{1\}\{6\}.*= ([\d.]+)", latex(at))
    assert losses and 0 < float(losses[0]) < 10


def test_every_anchor_is_sent_with_its_softmax_row_and_loss():
    """The anchor is a live control (ui.live): each state holds that anchor's bars (the
    positive apart, no bar for the anchor itself) and its ℓ, which must be torch's
    cross-entropy of the row of similarities / τ; the bars move (scatter and bar traces on
    fixed axes), and the matrix's outline and the formula follow once the slider settles."""
    at = open_page(
        PAGE,
        {"simclr_view": "similarity", "simclr_encoder": "untrained", "simclr_n": "4"},
    )
    [data] = live_controls(at)
    assert data["moveTraces"] and data["chartKey"] == "simclr_anchor_chart"
    states = live_states(at)
    assert sorted(states) == list(range(1, 9))
    sim = np.asarray(kept_charts(at)["simclr_similarity_chart"]["figure"]["data"][0]["z"])
    for value, s in states.items():
        i, j = value - 1, (value - 1 + 4) % 8
        traces = dict(s["traces"])
        assert traces[0]["x"] == [j] and sorted(traces[1]["x"]) == sorted(set(range(8)) - {i, j})
        assert abs(sum(traces[0]["y"]) + sum(traces[1]["y"]) - 1) < 5e-4
        logits = torch.tensor(sim[i] / 0.2).masked_fill(torch.arange(8) == i, -math.inf)
        ell = float(F.cross_entropy(logits[None], torch.tensor([j])))
        shown = float(re.search(r"ℓ</span> = <b>([0-9.]+)</b>", s["html"])[1])
        assert shown == pytest.approx(ell, abs=6e-3)  # sim to 3 decimals: logits ± 0.0025
        assert s["html"].count("live-badge live-ok") == 1 and ' live-bad"' not in s["html"]
    at.session_state["_live_value_simclr_anchor"] = 7
    at.run()
    outline = kept_charts(at)["simclr_similarity_chart"]["figure"]["data"][2]["y"]
    assert set(outline) == {5.5, 6.5} and "\\ell_{3',3}" in latex(at)
    bad = open_page(PAGE, {"simclr_view": "similarity", "simclr_anchor": "99"})
    assert not bad.exception and url(bad)["simclr_anchor"] == "1"


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


@pytest.fixture
def trainings(monkeypatch):
    """Every SimCLR training run the page starts, by its seed (the last setting of a key)."""
    from core import simclr as sc

    seeds: list[int] = []
    real = sc.train_steps

    def counted(*args, **kwargs):
        seeds.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(sc, "train_steps", counted)
    return seeds


def test_the_default_settings_show_a_trained_run_without_a_button():
    at = open_page(PAGE, {"simclr_view": "training"})
    assert not at.exception and not at.error and no_red(at)
    assert "\\mathcal{L}_{60}" in latex(at) and not at.button
    at.session_state["_live_value_simclr_step"] = 10  # the live slider settled at 10 (ui.live)
    at.run()
    assert "\\mathcal{L}_{10}" in latex(at) and no_red(at)
    assert url(at)["simclr_step"] == "10"


def test_every_training_step_is_sent_with_its_loss_similarities_and_green_badges():
    """The step is a live control (ui.live): the browser redraws any step with no round trip,
    so each state must hold that step's point on the loss curve and its similarity matrix:
    step 0's matrix is the "before" panel, the last step's the one drawn at the default, and
    the formula, once the slider settles, shows the state's loss."""
    at = open_page(PAGE, {"simclr_view": "training"})
    states = live_states(at)
    assert sorted(states) == list(range(61))
    exported = kit._built(at.session_state[kit._FIGURES])["simclr_training_chart"]  # at step 60
    before, drawn = (np.asarray(exported.data[i].z).tolist() for i in (5, 6))
    assert live_controls(at)[0]["repaintHeatmaps"]  # both patched traces are heatmaps' values
    losses = []
    for k, s in states.items():
        traces = dict((i, props) for i, props in s["traces"])
        assert sorted(traces) == [4, 6]
        assert traces[4]["z"] == [[int(j == k) for j in range(61)]]  # the step's column
        assert f"<b>{k} / 60</b>" in s["html"]
        losses.append(float(re.search(r"ℒₖ</span> = <b>([0-9.]+)</b>", s["html"])[1]))
        assert s["html"].count("live-badge live-ok") == 1 and ' live-bad"' not in s["html"]
    assert dict(states[0]["traces"])[6]["z"] == before
    assert dict(states[60]["traces"])[6]["z"] == drawn
    assert losses[60] < losses[0] and len(set(map(str, losses))) > 50
    at.session_state["_live_value_simclr_step"] = 25
    at.run()
    assert f"\\mathcal{{L}}_{{25}} = {losses[25]:.4f}" in latex(at)
    linked = open_page(PAGE, {"simclr_view": "training", "simclr_step": "7"})
    assert live_controls(linked)[0]["index"] == 7 and "\\mathcal{L}_{7}" in latex(linked)
    bad = open_page(PAGE, {"simclr_view": "training", "simclr_step": "61"})
    assert not bad.exception and url(bad)["simclr_step"] == "60"


def test_the_default_run_outlives_the_other_runs_cache(trainings):
    from ui import cache_simclr as cache

    open_page(PAGE, {"simclr_view": "training"})
    done = len(trainings)  # the default run, if this process had not trained it yet
    cache._runs.clear()  # as if a class's other settings had pushed every run out
    at = open_page(PAGE, {"simclr_view": "training"})
    assert len(trainings) == done and not at.button and "\\mathcal{L}_{60}" in latex(at)


@pytest.mark.parametrize(
    ("key", "value"),
    [("simclr_n", 3), ("simclr_strength", 0.9), ("simclr_area", 0.55), ("simclr_seed", 41)],
)
def test_a_settings_change_never_trains_it_offers_the_button(trainings, key, value):
    at = open_page(PAGE, {"simclr_view": "training"})
    done = len(trainings)  # the default run, if this process had not trained it yet
    widget = at.number_input(key=key) if key == "simclr_seed" else at.slider(key=key)
    widget.set_value(value).run()
    assert not at.exception and not at.error
    assert len(trainings) == done, "a slider step trained"
    assert [b.key for b in at.button] == ["simclr_train"]
    assert "\\mathcal{L}_{" not in latex(at)  # no run shown for settings never trained
    assert str(value) in at.info[0].value  # the notice says what the button would train


def test_the_train_tau_offers_the_button_and_pressing_it_trains_once(trainings):
    at = open_page(PAGE, {"simclr_view": "training", "simclr_seed": "43"})
    assert at.button(key="simclr_train") and not trainings
    at.select_slider(key="simclr_train_tau").set_value(1.0).run()
    assert at.button(key="simclr_train") and not trainings
    at.button(key="simclr_train").click().run()
    assert not at.exception and not at.error and no_red(at)
    assert trainings == [43] and not at.button
    assert "\\mathcal{L}_{60}" in latex(at)
    at.session_state["_live_value_simclr_step"] = 5  # the cached run: no second training
    at.run()
    assert "\\mathcal{L}_{5}" in latex(at) and trainings == [43] and no_red(at)
    at.select_slider(key="simclr_train_tau").set_value(0.5).run()  # not trained at 0.5
    assert at.button(key="simclr_train") and trainings == [43]


@pytest.mark.parametrize(("view", "seed"), [("similarity", 44), ("temperature", 45)])
def test_the_trained_encoder_of_new_settings_waits_for_the_button(trainings, view, seed):
    at = open_page(PAGE, {"simclr_view": view, "simclr_seed": str(seed), "simclr_n": "2"})
    assert not at.exception and not at.error and not trainings
    assert at.button(key="simclr_train") and "\\mathcal{L}" not in latex(at)
    at.radio(key="simclr_encoder").set_value("untrained").run()  # no training needed
    assert not at.button and "\\mathcal{L}" in latex(at) and not trainings and no_red(at)
    at.radio(key="simclr_encoder").set_value("trained").run()
    at.button(key="simclr_train").click().run()
    assert not at.exception and not at.error and no_red(at)
    assert trainings == [seed] and not at.button and "\\mathcal{L}" in latex(at)


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
