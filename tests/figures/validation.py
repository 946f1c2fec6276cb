"""Full Plotly validation of a figure our builders made without it (figures.style.figure),
and a reader of the pictures figures draw as SVG."""

from __future__ import annotations

import re
from urllib.parse import unquote

import numpy as np
import plotly.graph_objects as go


def assert_valid_plotly(fig: go.Figure) -> None:
    """Rebuild ``fig`` with Plotly's validation on: raises on any unknown or bad property."""
    spec = fig.to_plotly_json()
    go.Figure(spec)  # validated: ValueError names the offending property


def dots_of(source: str) -> tuple[np.ndarray, str]:
    """A layout image's dots (figures.reverse.dots_image) back as (n, 2) points in axis
    units, and its SVG."""
    head = "data:image/svg+xml,"
    assert source.startswith(head)
    svg = unquote(source[len(head) :])
    path = re.fullmatch(r".*<path d='([^']*)'.*", svg, flags=re.S)
    assert path is not None
    pairs = re.findall(r"M(-?\d+),(-?\d+)h0", path.group(1))
    assert "".join(f"M{x},{y}h0" for x, y in pairs) == path.group(1)  # nothing else drawn
    return np.array([[int(x) / 100, -int(y) / 100] for x, y in pairs]).reshape(-1, 2), svg
