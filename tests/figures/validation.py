"""Full Plotly validation of a figure our builders made without it (figures.style.figure)."""

from __future__ import annotations

import plotly.graph_objects as go


def assert_valid_plotly(fig: go.Figure) -> None:
    """Rebuild ``fig`` with Plotly's validation on: raises on any unknown or bad property."""
    spec = fig.to_plotly_json()
    go.Figure(spec)  # validated: ValueError names the offending property
