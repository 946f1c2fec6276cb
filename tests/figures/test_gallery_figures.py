"""figures.gallery: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import numpy as np
import pytest

from figures import gallery as figs
from tests.figures.validation import assert_valid_plotly

LABELS = ("full", "band", "linear")
FLOPS = (4e6, 3e5, 2e5)
ERRORS = (0.0, 0.35, 0.58)
FRONT = (True, True, True)
FULL = np.full((4, 4), 1 / 16)
METHOD = np.zeros((4, 4))
METHOD[1, :] = 0.25

BUILDERS = {
    "pareto_figure": lambda: figs.pareto_figure(
        LABELS, FLOPS, ERRORS, FRONT, title="t", x_title="x", y_title="y", front_name="f"
    ),
    "row_maps_figure": lambda: figs.row_maps_figure(FULL, METHOD, (1, 2), titles=("a", "b")),
    "time_figure": lambda: figs.time_figure(
        [64, 256, 1024],
        np.array([[1e-4, 1e-3, 1e-2], [1e-4, 3e-4, 1e-3]]),
        ("full", "linear"),
        (1.66, 0.79),
        title="t",
        x_title="N",
        y_title="s",
    ),
}


@pytest.mark.parametrize("name", BUILDERS)
def test_every_builder_passes_plotly_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_pareto_front_line_runs_through_the_front_in_order_of_cost():
    fig = figs.pareto_figure(
        LABELS,
        FLOPS,
        ERRORS,
        (True, False, True),
        title="t",
        x_title="x",
        y_title="y",
        front_name="front",
    )
    line, *points = fig.data
    assert line.name == "front" and list(line.x) == [2e5, 4e6] and list(line.y) == [0.58, 0.0]
    assert [p.name for p in points] == list(LABELS)
    assert fig.layout.xaxis.type == "log"
    assert {p.marker.symbol for p in points} == {"circle", "square", "diamond"}


def test_row_maps_share_one_colour_scale_and_mark_the_query():
    fig = figs.row_maps_figure(FULL, METHOD, (1, 2), titles=("full", "band"))
    left, right, *marks = fig.data
    assert left.zmax == right.zmax == 0.25 and left.zmin == right.zmin == 0.0
    np.testing.assert_allclose(np.array(right.z), METHOD)
    assert [(m.x[0], m.y[0]) for m in marks] == [(2, 1), (2, 1)]
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]  # row 0 on top


def test_time_lines_carry_their_slopes_in_the_names():
    fig = BUILDERS["time_figure"]()
    assert [t.name for t in fig.data] == ["full (1.66)", "linear (0.79)"]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.data[0].line.dash != fig.data[1].line.dash  # not colour alone
