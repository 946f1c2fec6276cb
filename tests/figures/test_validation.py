"""Every figure builder's output passes Plotly's full validation.

The builders skip validation for speed (figures/style.py); this is where it happens instead.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import contrastive as ct
from core import softmax as sm
from core import toydata
from figures import softmax as figs
from tests.figures.validation import assert_valid_plotly

U = np.array([5.0, 6.0, 7.0])
P = sm.softmax(U)
GRID = np.geomspace(0.05, 20, 30)
CURVE = sm.entropy(sm.softmax(U[None, :] / GRID[:, None]))
RAW, SCALED = sm.sample_dot_products(8, 200, np.random.default_rng(0))
EDGES = np.linspace(0, 1, 6)
ACC = np.array([np.nan, 0.2, 0.5, 0.6, 0.9])
NCE = ct.explain_nt_xent(toydata.positive_pairs(3, 4, 0.3, np.random.default_rng(0)), 0.5).probs
T3 = {"title": "t", "x_title": "x", "y_title": "y"}

BUILDERS = {
    "temperature_figure": lambda: figs.temperature_figure(
        ["a", "b", "c"],
        P,
        GRID,
        CURVE,
        1.0,
        0.8,
        np.log(3),
        titles=("a", "b"),
        y_titles=("p", "H"),
        x_title="T",
    ),
    "dot_product_histograms": lambda: figs.dot_product_histograms(RAW, SCALED, **T3),
    "variance_vs_dimension": lambda: figs.variance_vs_dimension(
        [1, 2, 4], np.array([[1.0, 1.0], [2.0, 1.0], [4.0, 1.0]]), 2, **T3
    ),
    "reliability_diagram": lambda: figs.reliability_diagram(EDGES, ACC, ACC, **T3),
    "contrastive_distribution": lambda: figs.contrastive_distribution(NCE[0], 3, 0, **T3),
    "loss_vs_tau": lambda: figs.loss_vs_tau(GRID, CURVE, 1.0, 0.8, **T3),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_softmax_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_validation_catches_a_bad_property():
    from figures.style import figure

    bad = figure([{"type": "bar", "x": [1], "y": [1], "colour": "red"}], {})
    with pytest.raises(ValueError, match="colour"):
        assert_valid_plotly(bad)


def test_lines_and_markers_differ_by_more_than_colour():
    """Two undashed lines get two dash patterns, two plain marker traces two symbols; a
    trace that chose its own dash or symbol keeps it."""
    from figures.style import figure

    fig = figure(
        [
            {"type": "scatter", "x": [0, 1], "y": [0, 1], "mode": "lines"},
            {"type": "scatter", "x": [0, 1], "y": [1, 0], "mode": "lines"},
            {"type": "scatter", "x": [0, 1], "y": [1, 1], "mode": "lines", "line": {"dash": "dot"}},
            {"type": "scatter", "x": [0], "y": [0], "mode": "markers"},
            {"type": "scatter", "x": [1], "y": [1], "mode": "markers"},
        ],
        {},
    )
    dashes = [t.line.dash for t in fig.data[:3]]
    assert dashes[0] != dashes[1] and dashes[2] == "dot"
    assert fig.data[3].marker.symbol != fig.data[4].marker.symbol
    single = figure([{"type": "scatter", "x": [0], "y": [0], "mode": "lines"}], {})
    assert single.data[0].line.dash is None  # one line: nothing to tell apart


def test_a_figure_encodes_as_plotly_would_without_copying_or_changing_itself():
    """figures.style.Figure.to_dict (what Streamlit encodes) gives Plotly's own JSON, numpy
    arrays as typed arrays included, leaves the figure's arrays as they were, and keeps the
    animation frames."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    from figures.style import figure

    z = np.arange(12.0).reshape(3, 4)
    data = [
        {"type": "heatmap", "z": z, "zmin": 0.0, "zmax": 11.0},
        {"type": "scatter", "x": [0, 1, None, 2], "y": np.array([1.0, 2.0, np.nan, 3.0])},
    ]
    layout = {"xaxis": {"range": np.array([0.0, 3.0])}, "annotations": [{"text": "a", "x": 1}]}
    frames = [{"name": "1", "data": [{"type": "heatmap", "z": z + 1}], "traces": [0]}]
    fig = figure(data, layout, frames)
    ours = pio.to_json(fig.to_dict(), validate=False)
    theirs = go.Figure({"data": data, "layout": layout, "frames": frames})
    assert json.loads(ours) == json.loads(pio.to_json(theirs.to_dict(), validate=False))
    assert '"bdata"' in ours  # the heatmap's z went as a typed array, as Plotly sends it
    assert isinstance(fig.data[0].z, np.ndarray) and np.array_equal(fig.data[0].z, z)
    assert fig.to_dict()["data"][1]["x"] is fig.to_dict()["data"][1]["x"]  # shared, not copied
    assert [f.name for f in fig.frames] == ["1"] and np.array_equal(fig.frames[0].data[0].z, z + 1)


def test_ours_names_the_none_template_and_changes_nothing_else():
    """figures.style.ours (how kit.chart sends a chart): a validated go.Figure wrapped, its
    JSON Plotly's own but for the "none" template's name, frames kept, the figure unchanged;
    one of ours returned as it is."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    from figures.style import NONE_TEMPLATE, figure, ours

    z = np.arange(12.0).reshape(3, 4)
    validated = go.Figure(
        [go.Heatmap(z=z), go.Scatter(y=np.array([1.0, np.nan, 3.0]))],
        layout={"template": "none", "title": {"text": "t"}},
        frames=[go.Frame(name="1", data=[go.Heatmap(z=z + 1)], traces=[0])],
    )
    theirs = json.loads(pio.to_json(validated.to_dict(), validate=False))
    assert theirs["layout"]["template"] == NONE_TEMPLATE
    sent = json.loads(pio.to_json(ours(validated).to_dict(), validate=False))
    assert sent["layout"]["template"] == "none"
    theirs["layout"]["template"] = "none"
    assert sent == theirs  # typed arrays, frames and all
    assert validated.layout.template.data.scatter[0].type == "scatter"  # the original as built
    mine = figure([{"type": "heatmap", "z": z}], {"template": "none"})
    assert ours(mine) is mine
