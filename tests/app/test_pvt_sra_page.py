"""The PVT spatial-reduction attention page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import ROOT, latex, open_page, url

PAGE = "pvt_sra.py"


@pytest.mark.parametrize("view", ["attention", "cost", "stages", "torch"])
def test_every_part_runs_with_green_badges(view):
    at = open_page(PAGE, {"pvt_sra_view": view})
    assert not at.exception and not at.error
    assert ":green-badge[" in latex(at) and ":red-badge[" not in latex(at)
    assert url(at)["pvt_sra_view"] == view


@pytest.mark.parametrize(("R", "keys", "width"), [(1, 256, 7), (2, 64, 28), (8, 4, 448)])
def test_ratio_changes_the_reshape_and_the_key_count(R, keys, width):
    at = open_page(PAGE)
    at.select_slider(key="pvt_sra_R").set_value(R).run()
    assert not at.exception
    assert f"\\mathbb{{R}}^{{{keys}\\times{width}}}" in latex(at)
    assert f"keys = H·W/R² — {keys}" in latex(at)
    assert url(at)["pvt_sra_R"] == str(R)


def test_query_sliders_move_the_query_and_stay_in_the_url():
    at = open_page(PAGE)
    at.slider(key="pvt_sra_col").set_value(12).run()
    at.slider(key="pvt_sra_row").set_value(3).run()
    assert "a_{(3,12)}" in latex(at)
    assert url(at)["pvt_sra_col"] == "12"


def test_query_is_clamped_when_the_map_shrinks():
    at = open_page(PAGE, {"pvt_sra_side": "32", "pvt_sra_col": "30"})
    assert at.slider(key="pvt_sra_col").value == 30
    at.select_slider(key="pvt_sra_side").set_value(8).run()
    assert not at.exception
    assert at.slider(key="pvt_sra_col").value == 7


def test_stages_show_table_one_and_49_kv_tokens_at_224():
    at = open_page(PAGE, {"pvt_sra_view": "stages"})
    text = latex(at)
    for n in ("3{,}136", "H_2W_2 = 784", "H_3W_3 = 196", "H_4W_4 = 49"):
        assert n in text
    # Nᵢ is the number of heads of stage i (1, 2, 5, 8), never a token count
    for n in ("N_1 = 1", "N_2 = 2", "N_3 = 5", "N_4 = 8"):
        assert n in text
    assert "N_2 = 784" not in text
    assert text.count("= 49") >= 4
    at.select_slider(key="pvt_sra_stage_side").set_value(512).run()
    assert "— 256" in latex(at)
    at.radio(key="pvt_sra_variant").set_value("Large").run()
    table = next(m.value for m in at.markdown if m.value.startswith("| stage"))
    assert "| 27 |" in table


def test_torch_part_shows_conv_equals_linear():
    at = open_page(PAGE, {"pvt_sra_view": "torch"})
    at.select_slider(key="pvt_sra_torch_R").set_value(4).run()
    assert not at.exception
    assert "k=s=4" in latex(at) and "max |Δ|" in latex(at)
    assert ":red-badge[" not in latex(at)


def test_bad_url_parameters_fall_back_with_a_notice():
    at = open_page(PAGE, {"pvt_sra_R": "3", "pvt_sra_view": "nope", "pvt_sra_row": "99"})
    assert not at.exception and not at.error
    assert at.select_slider(key="pvt_sra_R").value == 4
    assert at.radio(key="pvt_sra_view").value == "attention"
    notice = " ".join(c.value for c in at.caption)
    assert "pvt_sra_R" in notice and "pvt_sra_view" in notice


def test_n_i_means_heads_only_and_tokens_are_h_w():
    """PVT's notation (Wang et al. 2021): Nᵢ heads of stage i, HᵢWᵢ tokens — never N for both."""
    import json

    for lang in ("en", "ja"):
        strings = json.loads((ROOT / "assets/i18n" / lang / "pvt_sra.json").read_text("utf-8"))
        md = (ROOT / "assets/content" / lang / "pvt_sra.md").read_text("utf-8")
        assert "Nᵢ" in strings["pvt_sra.col_heads"]
        assert "HᵢWᵢ" in strings["pvt_sra.q_tokens"] and "HᵢWᵢ" in strings["pvt_sra.kv_tokens"]
        assert "_" not in strings["pvt_sra.q_tokens"] + strings["pvt_sra.col_heads"]  # no TeX
        assert "N トークン" not in md and "N tokens" not in md and "N×N" not in md
    at = open_page(PAGE, {"pvt_sra_view": "cost"})
    assert "H_1W_1 = (224/4)^2" in latex(at) and "N = (" not in latex(at)
