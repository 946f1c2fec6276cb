"""figures.export: every chart's numbers as CSV, every heatmap as a table."""

from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from figures.export import figure_csv, heatmap_tables
from figures.style import figure, layout

finite = st.floats(-1e6, 1e6, allow_nan=False)


def read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@given(arrays(float, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=finite))
def test_heatmap_table_and_csv_hold_every_cell(z):
    fig = figure([{"type": "heatmap", "z": z, "name": "scores"}], layout(title="t", x="k", y="q"))
    (table,) = heatmap_tables(fig)
    np.testing.assert_array_equal(table.values, z)
    assert table.rows == [str(i) for i in range(z.shape[0])]
    assert table.columns == [str(j) for j in range(z.shape[1])]
    rows = read(figure_csv(fig))
    assert len(rows) == z.size
    back = np.array([float(r["z"]) for r in rows]).reshape(z.shape)
    np.testing.assert_allclose(back, z, rtol=1e-5)  # 6 significant digits
    assert {r["trace"] for r in rows} == {"scores"}


def test_heatmap_labels_are_kept_and_mismatched_labels_replaced():
    fig = go.Figure(
        [
            go.Heatmap(z=[[1, 2], [3, 4]], x=["k1", "k2"], y=["q1", "q2"], name="A"),
            go.Heatmap(z=[[1, 2, 3]], x=["only one"]),
        ]
    )
    a, b = heatmap_tables(fig)
    assert (a.rows, a.columns) == (["q1", "q2"], ["k1", "k2"])
    assert b.columns == ["0", "1", "2"] and b.title == "heatmap 2"
    rows = read(figure_csv(fig))
    assert rows[1] == {"trace": "A", "x": "k2", "y": "q1", "z": "2"}


def test_lines_bars_and_histograms_export_their_points_and_images_are_skipped():
    fig = go.Figure(
        [
            go.Scatter(x=[0.5, 1.0], y=[2.0, 3.0], name="line"),
            go.Bar(y=[7, 8, 9], name="bars"),
            go.Histogram(x=[1.5, 2.5, 2.5], name="draws"),
            go.Image(z=np.zeros((2, 2, 3))),
        ]
    )
    rows = read(figure_csv(fig))
    by = {
        name: [(r["x"], r["y"]) for r in rows if r["trace"] == name]
        for name in ("line", "bars", "draws")
    }
    assert by["line"] == [("0.5", "2"), ("1", "3")]
    assert by["bars"] == [("0", "7"), ("1", "8"), ("2", "9")]  # Plotly's implicit x
    assert by["draws"] == [("1.5", ""), ("2.5", ""), ("2.5", "")]  # raw samples
    assert not [r for r in rows if r["trace"].startswith("image")]
    assert heatmap_tables(fig) == []
