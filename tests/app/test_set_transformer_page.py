"""The Set Transformer page, driven through AppTest by widget keys."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import app_test

from tests.app.conftest import ROOT, latex, open_page, url

PAGE = "set_transformer.py"
C = "set_transformer"


def one_line(at) -> str:
    """The formulas with their line breaks as spaces: a narrow column breaks 2·m·n = … ."""
    return re.sub(r"\s*\\\\(\[\w+\])?\s*", " ", latex(at))


def badges(at) -> str:
    return "\n".join(m.value for m in at.markdown if "-badge[" in m.value)


@pytest.mark.parametrize("view", ["inducing", "equivariance", "pooling"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {f"{C}_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)
    assert any(e.label.startswith("Show the tested code") for e in at.expander)


def test_the_m_slider_moves_the_maps_and_the_cost():
    at = open_page(PAGE)
    text = latex(at)
    assert "n^2 = 128^2 = 16{,}384" in text and "2\\cdot8\\cdot128 = 2{,}048" in one_line(at)
    assert "\\mathbb{R}^{8\\times128}" in text and "8.0 \\text{× fewer}" in text
    at.slider(key=f"{C}_m").set_value(16).run()
    text = latex(at)
    assert "2\\cdot16\\cdot128 = 4{,}096" in one_line(at) and "\\mathbb{R}^{128\\times16}" in text
    assert "16×128, 128×16" in badges(at) and ":red-badge[" not in badges(at)
    assert url(at)[f"{C}_m"] == ["16"] or url(at)[f"{C}_m"] == "16"


def test_isab_is_not_cheaper_when_n_is_at_most_2m():
    at = open_page(PAGE, {f"{C}_n": "32", f"{C}_m": "32"})
    text = latex(at)
    assert "2\\cdot32\\cdot32 = 2{,}048" in one_line(at) and "n^2 = 32^2 = 1{,}024" in text
    assert "fewer" not in text and "2.0 \\text{× more}" in text  # ISAB: 2·32·32 = 2·32²
    at = open_page(PAGE, {f"{C}_n": "32", f"{C}_m": "16"})
    assert "\\text{as many}" in latex(at)  # n = 2m: 2nm = n²


def test_the_highlighted_inducing_point_is_clamped_when_m_shrinks():
    at = open_page(PAGE, {f"{C}_m": "12", f"{C}_j": "11"})
    assert at.slider(key=f"{C}_j").value == 11
    at.slider(key=f"{C}_m").set_value(4).run()
    assert not at.exception
    assert at.slider(key=f"{C}_j").value == 3


def test_one_inducing_point_reads_everything_and_is_read_by_all():
    at = open_page(PAGE, {f"{C}_m": "4", f"{C}_j": "2"})
    at.slider(key=f"{C}_m").set_value(1).run()
    assert not at.exception and not at.error
    assert not [s for s in at.slider if s.key == f"{C}_j"]  # nothing to choose
    assert "2\\cdot1\\cdot128 = 256" in one_line(at) and ":red-badge[" not in badges(at)
    at.slider(key=f"{C}_m").set_value(6).run()
    assert at.slider(key=f"{C}_j").value == 2


def test_set_size_and_seed_change_the_numbers():
    at = open_page(PAGE)
    at.select_slider(key=f"{C}_n").set_value(256).run()
    assert "256^2 = 65{,}536" in latex(at) and "16.0 \\text{× fewer}" in latex(at)
    at.number_input(key=f"{C}_seed").set_value(7).run()
    assert not at.exception and ":red-badge[" not in badges(at)


def test_a_new_shuffle_moves_the_outputs_but_keeps_the_identities():
    at = open_page(PAGE, {f"{C}_view": "equivariance"})
    first = re.search(r"\\pi = \(([^)]*)\)", latex(at)).group(1)
    at.slider(key=f"{C}_shuffle").set_value(42).run()
    second = re.search(r"\\pi = \(([^)]*)\)", latex(at)).group(1)
    assert first != second
    text = badges(at)
    assert "ISAB(πX) = π·ISAB(X)" in text and "SAB(πX) = π·SAB(X)" in text
    assert ":red-badge[" not in text


def test_pooling_is_invariant_and_the_position_weighted_sum_is_not():
    at = open_page(PAGE, {f"{C}_view": "pooling", f"{C}_shuffle": "17", f"{C}_n": "64"})
    text = badges(at)
    assert "PMA(πZ) = PMA(Z)" in text and "max" in text and ":red-badge[" not in text
    weighted = re.search(r"\\max\|\\Delta\| = ([0-9.]+)", latex(at))
    assert weighted and float(weighted.group(1)) > 1e-3
    assert "\\mathbb{R}^{64\\times16}" in latex(at)


def test_a_shared_link_restores_the_view():
    at = open_page(
        PAGE,
        {f"{C}_n": "64", f"{C}_m": "20", f"{C}_clusters": "2", f"{C}_seed": "5", f"{C}_head": "3"},
    )
    assert at.select_slider(key=f"{C}_n").value == 64
    assert at.slider(key=f"{C}_m").value == 20 and at.slider(key=f"{C}_head").value == 3
    assert at.number_input(key=f"{C}_seed").value == 5
    assert "2\\cdot20\\cdot64 = 2{,}560" in one_line(at)


def test_bad_link_params_fall_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_m": "99", f"{C}_n": "17", f"{C}_view": "nope"})
    assert not at.exception and not at.error
    assert at.slider(key=f"{C}_m").value == 8 and at.select_slider(key=f"{C}_n").value == 128
    assert any("were not valid" in c.value for c in at.caption)


@pytest.fixture
def served(monkeypatch):
    """st.navigation mode from the first run, as on a server (see tests/app/test_exercises.py:
    otherwise require_entrypoint's rerun drops a button's click)."""

    class NavigationMode(app_test.PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    monkeypatch.setattr(app_test, "PagesManager", NavigationMode)


def reveal(seed: int):
    at = open_page(PAGE, {f"{C}_ex": str(seed)})
    at.session_state[f"{C}_ex_box"] = True
    at.run()
    at.button(key=f"{C}_ex_reveal").click().run()
    assert not at.exception
    question = next(m.value for m in at.markdown if m.value.startswith(("A set of", "You shuffle")))
    answer = at.info[0].value
    return question, answer


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8, 13, 18, 21])  # every kind and block
def test_the_exercise_reveals_an_independently_computed_answer(seed, served):
    question, answer = reveal(seed)
    if "How many attention weights" in question:
        n, m = (int(x) for x in re.search(r"n = (\d+) .* m = (\d+)", question).groups())
        assert f"Answer: {2 * n * m}**" in answer  # m·n weights I → X, n·m weights X → H
        assert f"n² = {n * n}" in question
    else:  # the symmetry each block has in theory (Lee et al. 2019, Zaheer et al. 2017)
        rows, same = "the same rows, shuffled by π", "exactly the same"
        expected = {
            "ISAB": rows,
            "SAB": rows,
            "PMA": same,
            "sum pool": same,
            "max pool": same,
            "position-weighted": "some other way",
        }
        block = next(k for k in expected if k in question)
        assert expected[block] in answer


@pytest.mark.parametrize("view", ["inducing", "equivariance", "pooling"])
def test_every_part_runs_in_japanese(view):
    at = open_page(PAGE, {f"{C}_view": view, "lang": "ja"})
    assert not at.exception and not at.error
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", at.markdown[0].value)
    assert ":green-badge[" in badges(at) and ":red-badge[" not in badges(at)
    assert "set_transformer." not in badges(at)  # every key translated


def test_the_whole_model_is_invariant_and_ends_in_k_vectors():
    at = open_page(
        PAGE, {"set_transformer_view": "model", "set_transformer_k": "3", "set_transformer_n": "64"}
    )
    assert not at.exception and not at.error
    text = latex(at)
    assert "\\mathrm{PMA}_{3}" in text and "\\mathbb{R}^{3\\times 3}" in text
    assert "\\mathbb{R}^{64\\times 16}" in text and ":red-badge[" not in text
    fig = at.session_state["_kit_figures"]["set_transformer_model_chart"]
    assert len(fig.data) == 2 * 3  # bars and diamonds for each of the k outputs
    at.slider(key="set_transformer_shuffle").set_value(7).run()
    assert ":red-badge[" not in latex(at) and ":green-badge[" in latex(at)


def test_with_one_inducing_point_the_second_map_is_all_ones():
    """Try-this step 2: with m = 1 every element puts weight 1 on the single summary."""
    at = open_page(PAGE, {"set_transformer_m": "1"})
    assert not at.exception and not at.error
    fig = at.session_state["_kit_figures"]["set_transformer_attention_chart"]
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    second = np.asarray(heatmaps[1].z, dtype=float)  # weight × row length (1) = weight
    assert second.shape[1] == 1 and np.allclose(second, 1.0, atol=1e-3)
    try_en = (ROOT / "assets/content/en/set_transformer.md").read_text(encoding="utf-8")
    assert "right-hand map" not in try_en and "MAB(X, H)" in try_en


def test_the_shared_blocks_are_read_only_and_the_pooled_bars_are_pma_of_the_set():
    """The blocks and the whole model are drawn once per seed and shared by every session
    (``ui.cache.set_blocks``/``set_model``); a view that trained or changed them would change
    every other student's page. The pooling view pools a cached encoding of the set."""
    import torch

    from core import set_transformer as stf
    from core import toydata
    from ui import cache

    seed, n = 9, 48
    query = {f"{C}_seed": str(seed), f"{C}_n": str(n), f"{C}_shuffle": "5"}
    for view in ("equivariance", "pooling", "model"):
        at = open_page(PAGE, {**query, f"{C}_view": view})
        assert not at.exception and ":red-badge[" not in badges(at)
        at.slider(key=f"{C}_shuffle").set_value(6).run()
        assert not at.exception and ":red-badge[" not in badges(at)
        if view == "pooling":
            bars = np.asarray(at.session_state["_kit_figures"][f"{C}_pooling_chart"].data[0].y)
    shared = [*cache.set_blocks(seed, 2, 16, 4, 8), cache.set_model(seed, 2, 3, 16, 4, 8, 2)]
    fresh = [
        *stf.seeded_blocks(seed, 2, 16, 4, 8),
        stf.SetTransformer(2, 3, 16, 4, 8, 2, generator=torch.Generator().manual_seed(seed)),
    ]
    for a, b in zip(shared, fresh, strict=True):
        assert all(p.grad is None for p in a.parameters())
        for (name, p), q in zip(
            a.state_dict().items(), b.double().state_dict().values(), strict=True
        ):
            assert torch.equal(p, q), name
    X, labels = toydata.circle_clusters(n, 4, np.random.default_rng(seed))
    X = X[np.argsort(labels, kind="stable")]  # the page's display order
    isab, _, pma = fresh[:3]
    with torch.inference_mode():
        expected = pma(isab(torch.from_numpy(X)[None]))[0, 0].numpy()
    np.testing.assert_allclose(bars, expected, rtol=0, atol=5.1e-5)  # the chart keeps 4 digits
