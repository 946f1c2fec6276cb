"""Shared look of every figure: a colour-blind-safe palette and a compact layout.

Okabe & Ito (2008) colours stay distinguishable under the common colour-vision deficiencies.
"""

from __future__ import annotations

import plotly.graph_objects as go

BLUE = "#0072B2"
ORANGE = "#E69F00"
GREEN = "#009E73"
VERMILLION = "#D55E00"
SKY = "#56B4E9"
PURPLE = "#CC79A7"
YELLOW = "#F0E442"
GREY = "#7F7F7F"
PALETTE = (BLUE, ORANGE, GREEN, VERMILLION, SKY, PURPLE, YELLOW)

# Sequential scale for heatmaps (colour-blind safe, perceptually uniform).
SEQUENTIAL = "Viridis"


def layout(fig: go.Figure, *, title: str, x: str, y: str, height: int = 340) -> go.Figure:
    """Apply the house layout: title, axis titles, small margins, legend on top."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        xaxis_title=x,
        yaxis_title=y,
        height=height,
        margin={"l": 55, "r": 15, "t": 60, "b": 45},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 1.0, "xanchor": "right"},
        template="plotly_white",
        colorway=list(PALETTE),
    )
    return fig
