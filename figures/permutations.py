"""Figures of the permutations page: tuples in, ``go.Figure`` out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from figures.style import BLUE, GREY, ORANGE, VERMILLION, layout


def crossings(p: Sequence[int], pairs: Sequence[tuple[int, int]]) -> tuple[list, list]:
    """Where the strands i → p(i) and j → p(j) cross (x, y), for each pair (i, j).

    Strand i runs from (i, 1) at the top to (p(i), 0) at the bottom: x(y) = p(i) + y·(i − p(i)).
    """
    xs, ys = [], []
    for i, j in pairs:
        pi, pj = p[i - 1], p[j - 1]
        y = (pj - pi) / ((i - pi) - (j - pj))
        xs.append(pi + y * (i - pi))
        ys.append(y)
    return xs, ys


def wiring_diagram(
    p: Sequence[int],
    pairs: Sequence[tuple[int, int]],
    *,
    title: str,
    n_max: int | None = None,
    names: tuple[str, str, str] = ("i ↦ p(i)", "inversion (a crossing)", "1 … n"),
) -> go.Figure:
    """Two rows of dots 1 … n; strand i goes from i (top) to p(i) (bottom).

    Two strands cross exactly when their pair is an inversion (i < j, p(i) > p(j)), so the
    number of crossings is the number of inversions. The layout depends on ``n_max``
    (default n) only, so powers of the same permutation redraw without a relayout.

    Traces: [0] strands (one trace, segments split by None), [1] crossings, [2] the dots.
    """
    n = len(p)
    n_max = n if n_max is None else n_max
    lay = layout(
        title=title,
        x="",
        y="",
        height=300,
        xaxis={
            "range": [0.4, n_max + 0.6],
            "showgrid": False,
            "zeroline": False,
            "showline": False,
            "ticks": "",
            "showticklabels": False,
        },
        yaxis={
            "range": [-0.25, 1.25],
            "showgrid": False,
            "zeroline": False,
            "showline": False,
            "ticks": "",
            "tickvals": [0, 1],
            "ticktext": ["p(i)", "i"],
        },
    )
    lay["margin"] = {"l": 50, "r": 15, "t": 40, "b": 10}
    lay["legend"] = {
        "orientation": "h",
        "x": 1.0,
        "xanchor": "right",
        "y": 1.0,
        "yanchor": "bottom",
    }
    fig = go.Figure(layout=lay)
    moving = wiring_traces(p, pairs)
    sy = [1, 0, None] * n
    fig.add_scatter(
        **moving[0],
        y=sy,
        mode="lines",
        name=names[0],
        line={"color": BLUE, "width": 2},
        hoverinfo="skip",
    )
    fig.add_scatter(
        **moving[1],
        mode="markers",
        name=names[1],
        marker={"size": 11, "color": VERMILLION, "line": {"color": "black", "width": 1}},
        hovertemplate="(%{customdata[0]}, %{customdata[1]})<extra></extra>",
    )
    k = np.arange(1, n + 1)
    fig.add_scatter(
        x=np.concatenate([k, k]),
        y=[1] * n + [0] * n,
        mode="markers+text",
        name=names[2],
        text=[str(x) for x in k] * 2,
        textposition=["top center"] * n + ["bottom center"] * n,
        marker={"size": 9, "color": GREY},
        hoverinfo="skip",
        showlegend=False,
    )
    return fig


def wiring_traces(p: Sequence[int], pairs: Sequence[tuple[int, int]]) -> dict[int, dict]:
    """What changes between two permutations of the same n in :func:`wiring_diagram`:
    trace 0's strand ends and trace 1's crossings (a ``ui.live`` state patches these)."""
    sx: list = []
    for i in range(1, len(p) + 1):
        sx += [i, p[i - 1], None]
    cx, cy = crossings(p, pairs)
    return {0: {"x": sx}, 1: {"x": cx, "y": cy, "customdata": [list(ij) for ij in pairs]}}


def matrices_figure(
    mats: Sequence[np.ndarray],
    *,
    titles: Sequence[str],
    height: int = 300,
    hovertemplate: str = "row %{y}, column %{x}: %{z}<extra></extra>",
) -> go.Figure:
    """Permutation matrices side by side as heatmaps (1 orange, 0 white), row 1 at the top.

    ``hovertemplate``: the hover text of a cell (the page passes it translated).
    Traces: one ``heatmap`` per matrix, on axes x/y, x2/y2, ….
    """
    m = len(mats)
    gap = 0.06
    w = (1 - gap * (m - 1)) / m
    lay = layout(title="", x="", y="", height=height)
    lay["margin"] = {"l": 20, "r": 20, "t": 40, "b": 20}
    lay["annotations"] = []
    for a, title in enumerate(titles):
        sfx = "" if a == 0 else str(a + 1)
        n = mats[a].shape[0]
        ticks = {"tickvals": list(range(1, n + 1)), "showgrid": False, "ticks": ""}
        lay[f"xaxis{sfx}"] = {
            **ticks,
            "domain": [a * (w + gap), a * (w + gap) + w],
            "anchor": f"y{sfx}",
            "side": "top",
            "constrain": "domain",
        }
        lay[f"yaxis{sfx}"] = {
            **ticks,
            "anchor": f"x{sfx}",
            "autorange": "reversed",
            "scaleanchor": f"x{sfx}",
        }
        lay["annotations"].append(
            {
                "text": f"<b>{title}</b>",
                "x": a * (w + gap) + w / 2,
                "y": -0.02,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "center",
                "yanchor": "top",
                "showarrow": False,
                "font": {"size": 14},
            }
        )
    lay["margin"]["b"] = 40
    fig = go.Figure(layout=lay)
    for a, M in enumerate(mats):
        sfx = "" if a == 0 else str(a + 1)
        k = list(range(1, M.shape[0] + 1))
        fig.add_heatmap(
            z=M,
            x=k,
            y=k,
            xaxis=f"x{sfx}",
            yaxis=f"y{sfx}",
            showscale=False,
            xgap=2,
            ygap=2,
            colorscale=[[0, "#F4F4F4"], [1, ORANGE]],
            zmin=0,
            zmax=1,
            hovertemplate=hovertemplate,
        )
    return fig
