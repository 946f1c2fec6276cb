"""figures.cayley_hamilton: eigenvalues in the plane and the remainder coefficients."""

from __future__ import annotations

import numpy as np

from core import cayley_hamilton as ch
from figures import cayley_hamilton as figs
from tests.figures.validation import assert_valid_plotly


def fig_for(A, k):
    r, _ = ch.power_by_reduction(A, k)
    eig = np.linalg.eigvals(ch.to_float(A))
    return figs.powers_figure(eig, r, titles=("a", "b"), axis_titles=("Re", "Im", "j", "r")), r


def test_powers_figure_shows_eigenvalues_and_signed_log_coefficients():
    A = ch.parse_matrix("0 -1; 1 0")  # eigenvalues ±i
    fig, r = fig_for(A, 3)
    assert_valid_plotly(fig)  # built as plain dicts (figures.style.figure): Plotly validates
    assert [tr.type for tr in fig.data] == ["scatter", "bar"]
    np.testing.assert_allclose(sorted(fig.data[0].y), [-1, 1])
    np.testing.assert_allclose(fig.data[0].x, [0, 0], atol=1e-12)
    assert fig.data[1].x == ("I", "A")
    np.testing.assert_allclose(fig.data[1].customdata, [float(c) for c in r])
    np.testing.assert_allclose(fig.data[1].y, figs.signed_log(np.array([float(c) for c in r])))
    assert fig.layout.shapes[0].type == "circle" and fig.layout.shapes[0].x1 == 1
    assert fig.layout.xaxis.title.text == "Re" and fig.layout.yaxis2.title.text == "r"


def test_layout_does_not_depend_on_k():
    A = ch.parse_matrix("2 1 0; -1 2 1; 0 1 1")
    assert fig_for(A, 1)[0].layout.to_plotly_json() == fig_for(A, 30)[0].layout.to_plotly_json()
    assert fig_for(A, 4)[0].data[1].x == ("I", "A", "A²")


def test_signed_log_keeps_sign_and_zero():
    np.testing.assert_allclose(figs.signed_log(np.array([-99.0, 0.0, 9.0])), [-2, 0, 1])
