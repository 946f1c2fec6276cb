"""The linear-attention page, driven through AppTest by widget keys."""

from __future__ import annotations

import pytest

from tests.app.conftest import latex, open_page, url

PAGE = "linear_attention.py"


@pytest.mark.parametrize("view", ["equal", "causal"])
@pytest.mark.parametrize("N", [4, 64])
def test_both_orderings_agree_on_screen(view, N):
    at = open_page(PAGE, {"linear_attention_view": view})
    at.select_slider(key="linear_attention_N").set_value(N).run()
    assert not at.exception and not at.error
    assert f"({N}\\times{N})" in latex(at)
    assert ":red-badge[" not in latex(at)
    assert url(at)["linear_attention_N"] == str(N)


def test_causal_view_checks_the_cumulative_sum_against_the_mask():
    at = open_page(PAGE, {"linear_attention_view": "causal", "linear_attention_d": "32"})
    assert "j \\le i" in latex(at) and "cumulative sums" in latex(at)


def test_timing_runs_only_when_its_part_is_open_and_fits_slopes():
    at = open_page(PAGE)
    assert not any("propto N" in m.value for m in at.markdown)
    at.radio(key="linear_attention_view").set_value("timing").run()
    assert not at.exception and not at.error
    assert "\\propto N^{" in latex(at)
    at.button(key="linear_attention_again").click().run()
    assert not at.exception and "\\propto N^{" in latex(at)
