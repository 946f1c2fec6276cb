"""Offline exports: a standalone chart and the whole-view handout need no network."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import plotly.graph_objects as go

from figures import handout

FIG = go.Figure(go.Scatter(x=[1, 2, 3], y=[4, 5, 6], name="p"))


def external_references(page: str) -> list[str]:
    """Addresses the page would fetch (scripts, styles, images, fonts), not plain links."""
    return re.findall(r"""(?:src|@import|url\()\s*=?\s*["']?(https?://[^"')\s]+)""", page)


def test_a_standalone_chart_carries_plotly_js_and_saves_svg():
    page = handout.standalone_chart(FIG, "Probabilities")
    assert page.startswith("<!DOCTYPE html>") and "<title>Probabilities</title>" in page
    assert "Plotly.newPlot" in page and len(page) > 1_000_000  # plotly.js is inside
    assert external_references(page) == []
    assert '"format": "svg"' in page or '"format":"svg"' in page


def test_the_handout_has_everything_of_the_view_and_fetches_nothing():
    formula = handout.Formula(
        "p_i = \\frac{e^{u_i/T}}{\\sum_j e^{u_j/T}} = 0.6652",
        (handout.Badge("rows sum to 1", True), handout.Badge("T > 0", False, "T = −1")),
        caption="today's numbers",
    )
    page = handout.handout(
        "Softmax & temperature",
        "How **T** sharpens a distribution.",
        "http://localhost:8501/softmax?softmax_T=0.3",
        [("Probabilities", FIG), ("Entropy", FIG)],
        [formula],
        lang="ja",
        made=datetime(2026, 11, 25, tzinfo=UTC),
    )
    assert '<html lang="ja">' in page and "<strong>T</strong>" in page
    assert 'href="http://localhost:8501/softmax?softmax_T=0.3"' in page
    assert page.count("<figure>") == 2 and page.count("Plotly.newPlot") == 2
    assert page.count("<script") >= 2 and external_references(page) == []
    assert "<math" in page and "<mfrac>" in page and "0.6652" in page
    assert "✓ rows sum to 1" in page and "✗ T &gt; 0 — T = −1" in page
    assert "2026-11-25 00:00 UTC" in page


def test_a_formula_mathml_cannot_convert_falls_back_to_its_source():
    assert handout.mathml("x^2").startswith("<math") and 'display="block"' in handout.mathml("x")
    assert handout.mathml("\\frac{1}{").startswith("<pre>")


def test_a_gathered_formula_is_cut_at_its_own_line_breaks_only():
    latex = (
        "\\begin{gathered}a = 1\\\\[6pt]M = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}"
        "\\\\ c = 3\\end{gathered}"
    )
    assert handout.formula_lines(latex) == [
        "a = 1",
        "M = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        "c = 3",
    ]
    assert handout.mathml(latex).count("<math") == 3 and "<mtable" in handout.mathml(latex)
    assert handout.formula_lines("x = 1") == ["x = 1"]
