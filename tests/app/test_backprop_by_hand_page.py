"""The backpropagation page, driven through AppTest by widget keys: every view draws with
green badges, the numbers on screen are the core's, and the exercise is right."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from core import backprop as bp
from tests.app.conftest import latex, live_controls, live_states, open_page, url
from ui import exercises, i18n

PAGE = "backprop_by_hand.py"
TOKENS = (2, 3, 4, 5, 6, 7, 8)
VIEWS = ("forward", "gradients", "softmax_jacobian", "layernorm", "training")


def badges_all_green(at) -> None:
    """Every badge on the page green: the formulas' and the live N's (forward view)."""
    text = latex(at)
    live = "".join(s["html"] for s in live_states(at).values())
    assert ":green-badge[" in text or "live-badge live-ok" in live, text[-600:]
    assert ":red-badge[" not in text and ' live-bad"' not in live, text[-600:]


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_draws_with_green_badges(view):
    at = open_page(PAGE, {"backprop_by_hand_view": view})
    assert not at.exception and not at.error
    badges_all_green(at)


@pytest.mark.parametrize("N", [2, 8])
def test_forward_shapes_follow_the_token_slider(N):
    at = open_page(PAGE)
    at.session_state["_live_value_backprop_by_hand_N"] = N  # the live slider settled (ui.live)
    at.run()
    assert not at.exception and not at.error
    assert f"\\underbrace{{A}}_{{2\\times{N}\\times{N}}}" in latex(at)
    assert url(at)["backprop_by_hand_N"] == str(N)
    assert live_controls(at)[0]["index"] == TOKENS.index(N)
    badges_all_green(at)


def test_every_N_is_sent_with_its_five_tensors_and_green_badges():
    """N is a live control (ui.live): the browser redraws the five tensors of any N with no
    round trip, so each state must hold that N's x, A, h, r and y (A's heads side by side),
    each on its own colour range, and its checks; the panels keep one layout for every N."""
    at = open_page(PAGE)
    (data,) = live_controls(at)
    assert data["index"] == TOKENS.index(5)
    states = live_states(at)
    assert sorted(states) == list(TOKENS)
    for N, s in states.items():
        x, p, _ = bp.example(N, 8, 2, 16, 0)
        y, cache = bp.block_forward(x, p)
        traces = dict(s["traces"])
        assert sorted(traces) == [0, 1, 2, 3, 4]
        want = [x, np.concatenate(list(cache.A), axis=1), cache.h, cache.r, y]
        for k, w in enumerate(want):
            np.testing.assert_allclose(traces[k]["z"], w, rtol=1e-5, atol=1e-6)
            top = np.abs(w).max()
            assert traces[k]["zmax"] == pytest.approx(top, rel=1e-6)
            assert traces[k]["zmin"] == pytest.approx(0.0 if k == 1 else -top, rel=1e-6)
        assert np.shape(traces[1]["z"]) == (N, 2 * N)
        assert s["html"].count("live-badge live-ok") == 3 and ' live-bad"' not in s["html"]
    lay = data["figure"]["layout"]
    x_, a_ = (lay[f"xaxis{k}"]["domain"] for k in ("", "2"))  # as wide as at N = 8: 10 and 18
    assert a_[1] - a_[0] == pytest.approx(1.8 * (x_[1] - x_[0]), rel=1e-4)
    linked = open_page(PAGE, {"backprop_by_hand_N": "7"})
    assert live_controls(linked)[0]["index"] == TOKENS.index(7)
    assert "\\underbrace{A}_{2\\times7\\times7}" in latex(linked)


def test_the_token_count_carries_over_to_the_gradients_view():
    at = open_page(PAGE, {"backprop_by_hand_N": "3"})
    at.radio(key="backprop_by_hand_view").set_value("gradients").run()
    assert not at.exception and not at.error
    assert at.select_slider(key="backprop_by_hand_N").value == 3
    at.select_slider(key="backprop_by_hand_N").set_value(6).run()
    at.radio(key="backprop_by_hand_view").set_value("forward").run()
    assert not at.exception and not at.error
    assert live_controls(at)[0]["index"] == TOKENS.index(6)
    assert "\\underbrace{A}_{2\\times6\\times6}" in latex(at)


@pytest.mark.parametrize("name", ["W_q", "b_k", "S", "x", "gamma1", "z"])
def test_each_gradient_shows_the_same_entry_three_ways(name):
    at = open_page(PAGE, {"backprop_by_hand_view": "gradients", "backprop_by_hand_tensor": name})
    assert not at.exception and not at.error
    text = latex(at)
    badges_all_green(at)
    x, p, t = bp.example(5, 8, 2, 16, 0)
    y, cache = bp.block_forward(x, p)
    g = bp.all_gradients(bp.squared_error_loss(y, t)[1], cache)[name]
    shape = "\\times".join(map(str, g.shape))
    assert f"\\mathbb{{R}}^{{{shape}}}" in text
    assert f"{g.flat[int(np.abs(g).argmax())]:.10f}" in text  # the largest entry, by hand
    numbers = re.findall(r"(-?\d\.\d{10})\\ \(", text)
    assert len(numbers) == 3 and abs(float(numbers[0]) - float(numbers[2])) < 1e-6


def test_the_softmax_view_shows_the_row_and_its_gradient():
    at = open_page(
        PAGE,
        {
            "backprop_by_hand_view": "softmax_jacobian",
            "backprop_by_hand_query": "2",
            "backprop_by_hand_head": "2",
        },
    )
    assert not at.exception and not at.error
    x, p, _ = bp.example(5, 8, 2, 16, 0)
    _, cache = bp.block_forward(x, p)
    a = cache.A[1, 2]
    assert "a = (" + ",\\ ".join(f"{v:.3f}" for v in a) + ")" in latex(at)
    badges_all_green(at)


def test_layernorm_view_for_both_norms():
    for k in ("1", "2"):
        at = open_page(PAGE, {"backprop_by_hand_view": "layernorm", "backprop_by_hand_which": k})
        assert not at.exception and not at.error
        assert f"\\mathrm{{LN}}_{k}" in latex(at)
        badges_all_green(at)


def test_training_step_slider_scrubs_the_run():
    at = open_page(PAGE, {"backprop_by_hand_view": "training", "backprop_by_hand_lr": "0.3"})
    task = bp.tiny_task("reverse", 5, 3)
    run = bp.train(task, bp.init_model(task, 8, 2, 16, 0), 200, 0.3)
    assert f"L_{{\\text{{numpy}}}} = {run.losses[-1]:.10f}" in latex(at)
    at.slider(key="backprop_by_hand_step").set_value(0).run()
    assert not at.exception and not at.error
    assert f"L_{{\\text{{numpy}}}} = {run.losses[0]:.10f}" in latex(at)
    badges_all_green(at)


def test_a_bad_value_in_the_url_falls_back_to_the_default():
    at = open_page(PAGE, {"backprop_by_hand_N": "99", "backprop_by_hand_tensor": "nope"})
    assert not at.exception
    assert "\\underbrace{A}_{2\\times5\\times5}" in latex(at)


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")


@pytest.mark.parametrize("seed", range(40))
def test_exercise_answer_equals_torch_autograd(seed, english):
    ex = exercises.backprop_by_hand(np.random.default_rng(seed))
    a, g = (
        [float(v) for v in m.replace("−", "-").split(", ")]
        for m in re.findall(r"\*\*\(([^)]*)\)\*\*", ex.question)
    )
    assert abs(sum(a) - 1) < 1e-9 and min(a) > 0
    j = "₁₂₃₄₅".index(re.search(r"∂s([₁-₅])", ex.question)[1])
    # a = softmax(s) for s = log a; autograd of Σ g ⊙ softmax(s) at that s
    s = torch.tensor(np.log(a), requires_grad=True)
    torch.softmax(s, 0).backward(torch.tensor(g, dtype=torch.float64))
    assert ex.is_right(float(s.grad[j]))
    assert not ex.is_right(float(s.grad[j]) + 0.01)


@pytest.mark.parametrize(("section", "marker"), [("derivation", "4. "), ("course", "2GX")])
def test_the_derivation_and_the_course_errata_open_lazily(section, marker):
    at = open_page(PAGE)
    key = f"backprop_by_hand_{section}"
    assert key in {e.key for e in at.expander}
    assert not any(marker in m.value for m in at.markdown), "lazy: not sent while closed"
    at.session_state[key] = True
    at.run()
    assert not at.exception and not at.error
    assert any(marker in m.value for m in at.markdown)


@pytest.fixture
def trainings(monkeypatch):
    """Every numpy training run the page starts, as (steps, η)."""
    calls: list[tuple[int, float]] = []
    real = bp.train

    def counted(task, model, steps, lr, *args, **kwargs):
        calls.append((steps, lr))
        return real(task, model, steps, lr, *args, **kwargs)

    monkeypatch.setattr(bp, "train", counted)
    return calls


def test_the_default_runs_outlive_the_other_runs_cache(trainings):
    from ui import cache_backprop as cb

    open_page(PAGE, {"backprop_by_hand_view": "training"})
    done = len(trainings)  # the default runs, if this process had not trained them yet
    cb._runs.clear()  # as if a class's other settings had pushed every run out
    at = open_page(PAGE, {"backprop_by_hand_view": "training"})
    assert len(trainings) == done and not at.button
    badges_all_green(at)


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("number_input", "backprop_by_hand_seed", 17),
        ("radio", "backprop_by_hand_task", "copy"),
        ("select_slider", "backprop_by_hand_lr", 0.1),
    ],
)
def test_a_settings_change_never_trains_it_offers_the_button(trainings, kind, key, value):
    at = open_page(PAGE, {"backprop_by_hand_view": "training"})
    assert not at.exception and not at.error and not at.button  # the default: shown at once
    done = len(trainings)  # the default runs, if this process had not trained them yet
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception and not at.error
    assert len(trainings) == done, "a control step trained"
    assert [b.key for b in at.button] == ["backprop_by_hand_train"]
    assert "L_{\\text{numpy}}" not in latex(at)


def test_pressing_train_trains_both_once_and_caches_them(trainings):
    from ui import cache_backprop as cb

    query = {"backprop_by_hand_view": "training", "backprop_by_hand_lr": "0.1"}
    at = open_page(PAGE, query | {"backprop_by_hand_seed": "23"})
    assert at.button(key="backprop_by_hand_train") and not trainings
    assert cb.cached_runs("reverse", 0.1, 23) is None
    at.button(key="backprop_by_hand_train").click().run()
    assert not at.exception and not at.error and not at.button
    badges_all_green(at)
    assert trainings == [(cb.TRAIN_STEPS, 0.1)]
    runs = cb.cached_runs("reverse", 0.1, 23)
    assert runs is not None and len(runs[0].losses) == cb.TRAIN_STEPS + 1
    assert f"L_{{\\text{{numpy}}}} = {runs[0].losses[-1]:.10f}" in latex(at)
    at.slider(key="backprop_by_hand_step").set_value(0).run()  # scrubs the cached run
    assert f"L_{{\\text{{numpy}}}} = {runs[0].losses[0]:.10f}" in latex(at)
    again = open_page(PAGE, query | {"backprop_by_hand_seed": "23"})  # another student
    assert not again.button and trainings == [(cb.TRAIN_STEPS, 0.1)]
